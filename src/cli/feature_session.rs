//! What the commands about a server's other features (resources, prompts, completion, ping)
//! share: a session on the server the flags name, the request limits, and a failure line.

use super::{EXIT_FAILURE, ServerArgs, call_command::connect, output::say};
use toolscope_core::session::{RequestControl, Session, events::ignore_events};

/// A session on the server, and the limits its requests run under.
pub async fn open(server: &ServerArgs) -> Result<(Session, RequestControl), u8> {
    let timeouts = server.timeouts().map_err(|error| fail(&error))?;
    let session = connect(server, ignore_events())
        .await
        .map_err(|error| fail(&format!("cannot connect to the server: {error}")))?;
    Ok((session, RequestControl::with_timeouts(timeouts)))
}

/// Reads a resource or gets a prompt through the engine, keeps it in the history (unless
/// `keep` is false), and ends the session.
pub async fn ask_and_keep(
    server: &ServerArgs,
    (session, control): (Session, RequestControl),
    ask: toolscope_core::engine::FeatureAsk,
    keep: bool,
) -> toolscope_core::engine::FeatureAnswer {
    let answer = toolscope_core::engine::feature::ask(&session, ask, &control).await;
    if keep {
        let called = toolscope_core::history::CalledServer {
            label: &server.label(),
            summary: Some(session.summary()),
        };
        super::call_command::record(answer.history_row(called));
    }
    session.close().await;
    answer
}

/// Says what failed; the exit code of a failure.
pub fn fail(message: &str) -> u8 {
    say(&format!("error: {message}"));
    EXIT_FAILURE
}

/// Ends the session, then takes its answer: with `json`, printed as sent (the command ends
/// with `Err(exit code)`); else its result, or the failure said under `what`.
pub async fn finish(
    session: Session,
    answer: Result<toolscope_core::session::RawResponse, toolscope_core::session::SessionError>,
    json: bool,
    what: &str,
) -> Result<serde_json::Value, u8> {
    session.close().await;
    let response = answer.map_err(|error| fail(&error.to_string()))?;
    if json {
        return Err(emit_raw(&response));
    }
    toolscope_core::session::server_features::result_of(&response)
        .map_err(|error| fail(&format!("{what}: {error}")))
}

/// `--json`: the answer as the server sent it, with characters a terminal acts on escaped;
/// a JSON-RPC error answer exits as a failure.
pub fn emit_raw(response: &toolscope_core::session::RawResponse) -> u8 {
    super::emit(&format!(
        "{}\n",
        super::json_text::escape_unsafe(response.text())
    ));
    if response.is_rpc_error() {
        EXIT_FAILURE
    } else {
        super::EXIT_OK
    }
}

/// A server's text (a name, a description) on one line, safe for a terminal.
pub fn one_line(text: &str) -> String {
    toolscope_core::text_util::terminal_safe(&toolscope_core::text_util::one_line(text, 200))
        .into_owned()
}
