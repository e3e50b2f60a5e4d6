//! What a session reports while it runs: server notifications and its own end.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

/// A `notifications/progress` for a request of ours.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProgressUpdate {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// Something the server told us, or a change in the session itself.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SessionEvent {
    /// Progress for a running request, by the progress token we gave it.
    Progress {
        token: String,
        update: ProgressUpdate,
    },
    /// A `notifications/message` log line (see [`log_line`]).
    Log {
        level: String,
        logger: Option<String>,
        data: Value,
    },
    /// `notifications/tools/list_changed`: the tool list should be fetched again.
    ToolListChanged,
    /// Another list (`resources`, `prompts`) changed.
    OtherListChanged { list: &'static str },
    /// `notifications/resources/updated`: a resource subscribed to changed.
    ResourceUpdated { uri: String },
    /// A request of the server (elicitation, sampling, roots) was answered.
    Answered(Box<crate::session::asks::Exchange>),
    /// `notifications/elicitation/complete`: the web page of a URL elicitation is done.
    ElicitationComplete { elicitation_id: String },
    /// The connection ended: the server exited or closed the stream.
    Closed { reason: String },
}

/// Where a session sends its events. The window wraps a channel send plus a repaint request.
pub type EventSink = Arc<dyn Fn(SessionEvent) + Send + Sync>;

/// A sink that drops every event (the CLI's `tools` command needs none).
pub fn ignore_events() -> EventSink {
    Arc::new(|_| {})
}

/// How long a log line's data may be when shown.
const LOG_LINE_CHARS: usize = 4_000;

/// A server log message as one line, `[level logger] text`, the same in the window and the
/// command line. Data that is not a string is shown as compact JSON (cut when very long).
pub fn log_line(level: &str, logger: Option<&str>, data: &Value) -> String {
    let logger = logger.map(|l| format!(" {l}")).unwrap_or_default();
    let text = match data.as_str() {
        Some(text) => crate::text_util::clip_chars(text, LOG_LINE_CHARS),
        None => crate::text_util::clip_chars(&crate::deep_json::to_string(data), LOG_LINE_CHARS),
    };
    format!("[{level}{logger}] {text}")
}
