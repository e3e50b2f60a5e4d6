//! A call as the history keeps it.

use std::sync::Arc;

use serde::Serialize;

use super::{CallKind, Verdict};
use crate::json_doc::JsonDoc;

/// A response's text for the history: owned, or shared with the record the window shows (a
/// big response is not copied to be kept).
#[derive(Debug, Clone)]
pub enum ResponseText {
    Owned(String),
    Shared(Arc<JsonDoc>),
}

impl ResponseText {
    pub fn as_str(&self) -> &str {
        match self {
            ResponseText::Owned(text) => text,
            ResponseText::Shared(doc) => doc.text().trim(),
        }
    }
}

/// A call to record (or a resource read, or a prompt got: see `kind`).
#[derive(Debug, Clone)]
pub struct NewCall {
    pub kind: CallKind,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub duration_ms: Option<u64>,
    /// The saved server's name, or the command line or URL it was reached by.
    pub server: String,
    pub server_version: Option<String>,
    pub protocol_version: Option<String>,
    /// What the server said about itself (its summary as JSON), to show the call again.
    pub server_info: Option<String>,
    /// The tool's name (a read's URI, a prompt's name).
    pub tool: String,
    /// The arguments sent, as JSON text.
    pub arguments: String,
    pub request_id: Option<String>,
    /// The JSON-RPC response exactly as received; `None` when there was none.
    pub response: Option<ResponseText>,
    /// Further responses the server sent with the same id.
    pub duplicate_responses: u64,
    /// The tool's output schema when it was called, as JSON text (the analysis needs it).
    pub output_schema: Option<String>,
    /// Whether the tool was in the server's tools/list.
    pub listed: bool,
    pub verdict: Verdict,
    /// Why there is no response (a timeout, the server exiting…).
    pub failure: Option<String>,
    /// What the call asked of the client on its way and the task it ran as (its
    /// `CallRounds` as JSON); `None` when it asked nothing.
    pub rounds: Option<String>,
    /// The client it came from through `toolscope proxy` (`name version`); `None` for a call
    /// Toolscope made.
    pub client: Option<String>,
}

impl NewCall {
    /// Bytes of text the call holds (arguments, response, schema, server info, rounds): what
    /// the size cap counts.
    pub fn text_bytes(&self) -> usize {
        self.arguments.len()
            + self.response.as_ref().map_or(0, |text| text.as_str().len())
            + self.output_schema.as_ref().map_or(0, String::len)
            + self.server_info.as_ref().map_or(0, String::len)
            + self.rounds.as_ref().map_or(0, String::len)
    }
}

/// A call read back.
#[derive(Debug, Clone, Serialize)]
pub struct StoredCall {
    pub id: i64,
    pub kind: CallKind,
    /// The client it came from through a proxy, if it did.
    pub client: Option<String>,
    /// The proxied session it came through, if it did.
    pub session: Option<i64>,
    pub started_at: String,
    pub duration_ms: Option<u64>,
    pub server: String,
    pub server_version: Option<String>,
    pub protocol_version: Option<String>,
    #[serde(skip)]
    pub server_info: Option<String>,
    pub tool: String,
    #[serde(skip)]
    pub arguments: String,
    pub request_id: Option<String>,
    /// Present when the call was read whole ([`super::HistoryStore::get`]); lists leave it out.
    #[serde(skip)]
    pub response: Option<String>,
    pub duplicate_responses: u64,
    #[serde(skip)]
    pub output_schema: Option<String>,
    pub listed: bool,
    pub verdict: Verdict,
    pub failure: Option<String>,
    pub note: String,
    /// How many more times it was made again on its own (a subscribed resource's updates).
    pub repeats: u64,
    /// The machine that recorded it (`None` in a history from before rows said so).
    pub machine: Option<String>,
    /// The person who recorded it.
    pub person: Option<String>,
    /// Bytes of text the call holds (arguments, response, schema, rounds).
    pub bytes: u64,
    /// Present when the call was read whole and asked something on its way (see
    /// [`NewCall::rounds`]).
    #[serde(skip)]
    pub rounds: Option<String>,
}

/// Which calls to list: newest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallQuery {
    pub kind: Option<CallKind>,
    pub server: Option<String>,
    pub tool: Option<String>,
    pub verdict: Option<Verdict>,
    /// Found in the tool, the server, the arguments or the note (case-insensitive).
    pub text: Option<String>,
    pub limit: Option<usize>,
    /// Only the calls of this proxied session.
    pub session: Option<i64>,
    /// Only calls that came through a proxy (any session).
    pub through_proxy: bool,
    /// Only calls older than this id (for paging).
    pub before_id: Option<i64>,
    /// Only calls newer than this id (a list brought up to date without listing it again).
    pub after_id: Option<i64>,
    /// Only the calls this machine recorded.
    pub machine: Option<String>,
    /// Only the calls this person recorded.
    pub person: Option<String>,
}
