//! The steps Toolscope's own session takes, made as the window makes them: starting a command
//! (or reaching a URL), the handshake, the tools. A failure is put under the step it belongs
//! to, with what to try.

use super::{Diagnosis, Failed, timed};
use crate::session::{ConnectOptions, ServerConfig, Session, SessionError};

/// Connects, lists the tools and closes, adding the steps to `diagnosis` (stopping at the
/// first that fails).
pub async fn session_steps(
    config: &ServerConfig,
    options: ConnectOptions,
    diagnosis: &mut Diagnosis,
) {
    let timeouts = options.timeouts;
    let (handshake, session) = timed("initialize", async {
        match Session::connect(config, options).await {
            Ok(session) => {
                let summary = session.summary();
                let detail = format!(
                    "protocol {} chosen through {}{}, server {} {}\nToolscope offers {}",
                    summary.protocol_version,
                    summary.lifecycle,
                    summary
                        .lifecycle_reason
                        .as_deref()
                        .map(|reason| format!(" ({reason})"))
                        .unwrap_or_default(),
                    summary.name.as_deref().unwrap_or("(unnamed)"),
                    summary.version.as_deref().unwrap_or(""),
                    offered_versions(),
                );
                Ok((session, detail))
            }
            Err(error) => Err(Failed {
                detail: error.to_string(),
                advice: advice(&error).to_owned(),
                at: Some(failed_step(&error)),
            }),
        }
    })
    .await;
    if !diagnosis.push(handshake) {
        return;
    }
    let Some(session) = session else { return };
    let (listed, _) = timed("tools/list", async {
        match session.list_tools(timeouts).await {
            Ok(catalog) => Ok((
                (),
                format!(
                    "{} tool(s) in {} page(s){}",
                    catalog.tools.len(),
                    catalog.pages,
                    if catalog.warnings.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", catalog.warnings.join("; "))
                    }
                ),
            )),
            Err(error) => Err(Failed::new(error.to_string(), advice(&error))),
        }
    })
    .await;
    diagnosis.push(listed);
    session.close().await;
}

/// The protocol versions Toolscope speaks, newest first.
fn offered_versions() -> String {
    rmcp::model::ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .rev()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The step a connection error belongs to.
pub fn failed_step(error: &SessionError) -> &'static str {
    match error {
        SessionError::CommandNotFound { .. }
        | SessionError::SpawnFailed { .. }
        | SessionError::ExitedEarly { .. } => "start",
        SessionError::Unauthorized { .. }
        | SessionError::AuthRejected { .. }
        | SessionError::SignIn(_) => "auth",
        SessionError::Redirected { .. } | SessionError::ResponseHeadersTooLarge { .. } => "http",
        _ => "initialize",
    }
}

/// What to try after `error`.
fn advice(error: &SessionError) -> &'static str {
    match error {
        SessionError::CommandNotFound { .. } => {
            "the program is not on the PATH: give its full path, or install it"
        }
        SessionError::SpawnFailed { .. } => "check the program is executable and its folder exists",
        SessionError::ExitedEarly { .. } => {
            "the server exited before the handshake: its last stderr lines say why (a missing \
             module, a bad argument, a port in use)"
        }
        // The doctor's own connection got through, so the exchange itself failed.
        SessionError::Unreachable { .. } => {
            "the server took the connection but failed the handshake: its logs say why (the \
             detail quotes what it answered)"
        }
        SessionError::Unauthorized { .. } | SessionError::AuthRejected { .. } => {
            "the server wants credentials: sign in, or give an Authorization header"
        }
        SessionError::Redirected { .. } => "use the URL the redirect points at",
        SessionError::HandshakeTimeout { .. } => {
            "the server never answered the handshake: a stdio server must write only JSON-RPC \
             to stdout (logs to stderr)"
        }
        _ => {
            "the server answered the handshake with something Toolscope cannot use: see the \
              detail, and the protocol log"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Timeouts, events::ignore_events};

    fn command(line: &str) -> ServerConfig {
        ServerConfig::Stdio {
            command: "sh".to_owned(),
            args: vec!["-c".to_owned(), line.to_owned()],
            env: Default::default(),
            cwd: None,
        }
    }

    #[tokio::test]
    async fn a_command_that_exits_at_once_fails_at_start_with_its_stderr() {
        let mut diagnosis = Diagnosis::default();
        session_steps(
            &command("echo 'ModuleNotFoundError: no mcp' >&2; exit 3"),
            ConnectOptions::new(Timeouts::default(), ignore_events()),
            &mut diagnosis,
        )
        .await;
        assert!(!diagnosis.ok);
        let last = diagnosis.steps.last().unwrap();
        assert_eq!(last.name, "start", "{diagnosis:?}");
        assert!(last.detail.contains("ModuleNotFoundError"), "{last:?}");
        assert!(
            last.advice.as_deref().unwrap().contains("exited"),
            "{last:?}"
        );
    }
}
