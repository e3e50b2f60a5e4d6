//! What passed over an app's bridge, for the person: each message in both directions, the
//! calls made on the app's behalf, what the host decided, each with its time since the page
//! started and its payload (bounded).

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// The most of a payload a log entry keeps (an app's HTML or a huge result is cut).
pub const MAX_LOGGED_PAYLOAD: usize = 64 * 1024;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// From the app to Toolscope.
    FromApp,
    /// From Toolscope to the app.
    ToApp,
    /// Sent to the app's server on its behalf.
    ToServer,
    /// The server's answer to that.
    FromServer,
    /// What Toolscope itself did or saw (a CSP report, the page closing, a refusal).
    Host,
}

impl Direction {
    /// `app → host` and the like, for a log line.
    pub fn arrow(self) -> &'static str {
        match self {
            Self::FromApp => "app → host",
            Self::ToApp => "host → app",
            Self::ToServer => "host → server",
            Self::FromServer => "server → host",
            Self::Host => "host",
        }
    }
}

/// One line of the bridge log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BridgeEntry {
    /// Since the app's host started.
    #[serde(serialize_with = "as_millis")]
    pub at: Duration,
    pub direction: Direction,
    /// `ui/initialize`, `tools/call`, `result`, `blocked`…
    pub method: String,
    /// The JSON-RPC id, when it has one.
    pub id: Option<String>,
    /// The message as JSON text, cut at [`MAX_LOGGED_PAYLOAD`].
    pub payload: String,
    /// What it means, in words, where there is more to say than the method.
    pub note: Option<String>,
    /// The check before the run (`host_checks`, numbered from 1) this entry is, or bears out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<usize>,
}

fn as_millis<S: serde::Serializer>(at: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(at.as_millis()).unwrap_or(u64::MAX))
}

impl BridgeEntry {
    /// The entry of `message` going `direction`.
    pub fn of(at: Duration, direction: Direction, message: &Value, note: Option<String>) -> Self {
        Self {
            at,
            direction,
            method: super::bridge::method_of(message),
            id: message.get("id").map(|id| match id {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            }),
            payload: bounded(message),
            note,
            check: None,
        }
    }

    /// An entry of the host's own.
    pub fn host(at: Duration, method: &str, note: String) -> Self {
        Self {
            at,
            direction: Direction::Host,
            method: method.to_owned(),
            id: None,
            payload: String::new(),
            note: Some(note),
            check: None,
        }
    }

    /// This entry, pointing at check `number`.
    #[must_use]
    pub fn bearing_out(mut self, number: Option<usize>) -> Self {
        self.check = number;
        self
    }
}

/// `message` as JSON text, cut on a character boundary at [`MAX_LOGGED_PAYLOAD`].
fn bounded(message: &Value) -> String {
    let mut text = crate::deep_json::to_string(message);
    if text.len() > MAX_LOGGED_PAYLOAD {
        let mut cut = MAX_LOGGED_PAYLOAD;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let total = text.len();
        text.truncate(cut);
        text.push_str(&format!("… ({total} bytes in all)"));
    }
    text
}
