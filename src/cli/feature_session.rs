//! What the commands about a server's other features (resources, prompts, completion, ping)
//! share: a session on the server the flags name, the request limits, and the answer taken.

use super::{CliError, EXIT_FAILURE, ServerArgs, call_command::connect};
use toolscope_core::session::{RequestControl, Session, events::ignore_events};

/// A session on the server, and the limits its requests run under.
pub async fn open(server: &ServerArgs) -> Result<(Session, RequestControl), CliError> {
    let timeouts = server.timeouts()?;
    let session = connect(server, ignore_events())
        .await
        .map_err(|error| format!("cannot connect to the server: {error}"))?;
    Ok((session, RequestControl::with_timeouts(timeouts)))
}

/// Reads a resource or gets a prompt through the engine, keeps it in the history `keep` (none:
/// `--no-history`), and ends the session.
pub async fn ask_and_keep(
    server: &ServerArgs,
    (session, control): (Session, RequestControl),
    ask: toolscope_core::engine::FeatureAsk,
    keep: Option<&super::history_flag::HistoryFlag>,
) -> toolscope_core::engine::FeatureAnswer {
    let answer = toolscope_core::engine::feature::ask(&session, ask, &control).await;
    if let Some(history) = keep {
        let called = toolscope_core::history::CalledServer {
            label: &server.label(),
            summary: Some(session.summary()),
        };
        super::call_command::record(history, answer.history_row(called));
    }
    session.close().await;
    answer
}

/// The result of an answer, or the failure said under `what` (the method).
pub fn result_of(
    response: &toolscope_core::session::RawResponse,
    what: &str,
) -> Result<toolscope_core::deep_json::DeepValue, CliError> {
    toolscope_core::session::requests::server_features::result_of(response)
        .map_err(|error| CliError::Failure(format!("{what}: {error}")))
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
