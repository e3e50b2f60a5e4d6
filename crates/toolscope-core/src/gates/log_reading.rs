//! A proxied session's protocol log read back for what its calls' rows do not say: the
//! requests never answered, those answered with a JSON-RPC error, the lines that were not
//! JSON, the tool lists its client was given, and the features it used that its protocol
//! version deprecates (SEP-2577).

use std::collections::HashMap;

use serde_json::Value;

use crate::{
    history::{LogLine, LogSide},
    interface::ToolSnapshot,
    session::ToolCatalog,
};

/// One complete `tools/list` (every page) as the client was given it.
#[derive(Debug, Clone)]
pub struct SeenToolList {
    /// When its first page was answered, in milliseconds since the session started.
    pub at_ms: u64,
    pub tools: Vec<ToolSnapshot>,
}

/// A request as the log shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedRequest {
    /// Its JSON-RPC id, as JSON text (`3`, `"a"`).
    pub id: String,
    pub method: String,
    /// The tool called, the URI read or the prompt got, when the request names one.
    pub subject: Option<String>,
    pub at_ms: u64,
    /// Sent by the server to the client (sampling, roots, elicitation), not the other way.
    pub from_server: bool,
}

/// A request answered with a JSON-RPC error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedRequest {
    pub request: LoggedRequest,
    pub code: Option<i64>,
    pub message: String,
}

/// A feature the session's protocol version deprecates, and how often it was used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeprecatedUse {
    /// `logging`, `roots` or `sampling`.
    pub feature: &'static str,
    /// The method that used it.
    pub method: &'static str,
    pub count: u64,
    pub first_at_ms: u64,
}

/// A line that was not JSON (or not UTF-8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// The first such line's time and flag.
    pub at_ms: u64,
    pub side: LogSide,
    pub flag: String,
    /// How many lines that way were not JSON-RPC (one finding per side, not one per line: a
    /// server printing debug text to stdout would otherwise make thousands).
    pub count: u64,
}

/// What the log says.
#[derive(Debug, Clone, Default)]
pub struct LogReading {
    pub tool_lists: Vec<SeenToolList>,
    /// Requests with no answer by the end of the log (a request the client cancelled is not
    /// among them), in the order they were sent.
    pub unanswered: Vec<LoggedRequest>,
    pub rejected: Vec<RejectedRequest>,
    pub bad_lines: Vec<BadLine>,
    pub deprecated: Vec<DeprecatedUse>,
    /// Lines passed that the log did not keep (its cap, or the recorder fell behind): what it
    /// says of answers is then incomplete.
    pub gaps: bool,
    /// Answers kept as calls the history has since let go (its size cap): calls, reads and
    /// prompts are then not judged as unanswered (their answers may be among these).
    pub answers_of_calls_gone: u64,
}

/// The features SEP-2577 deprecates from 2026-07-28, by the method that uses them and who
/// sends it (`true`: the server).
const DEPRECATED: [(&str, &str, bool); 4] = [
    ("logging/setLevel", "logging", false),
    ("notifications/message", "logging", true),
    ("roots/list", "roots", true),
    ("sampling/createMessage", "sampling", true),
];

/// The 2026-07-28 request whose answer is a stream of notifications for the session's life.
const LISTEN: &str = "subscriptions/listen";

/// Reads `lines` (the whole log, in order). `answered_calls` maps a kept call's id to its
/// request id: the log keeps a call's answer as a pointer to its row. `modern`: the session
/// speaks 2026-07-28 or later, whose deprecations apply.
pub fn read_log(
    lines: &[LogLine],
    answered_calls: &HashMap<i64, String>,
    modern: bool,
) -> LogReading {
    let mut reading = LogReader::new(modern);
    reading.feed(lines, answered_calls);
    reading.finish()
}

/// A log read a page at a time (a long session's log is never held whole).
#[derive(Default)]
pub struct LogReader {
    /// The session speaks 2026-07-28 or later.
    modern: bool,
    out: LogReading,
    /// Requests waiting, by who sent them (`true`: the server) and id.
    pending: HashMap<(bool, String), LoggedRequest>,
    /// The order requests were sent in, to list the unanswered ones in it.
    sent: Vec<(bool, String)>,
    /// `tools/list` requests waiting: `true` for a first page.
    listing: HashMap<String, bool>,
    lists: Vec<(u64, ToolCatalog)>,
    deprecated: Vec<DeprecatedUse>,
}

fn id_text(message: &Value) -> Option<String> {
    message
        .get("id")
        .filter(|id| !id.is_null())
        .map(crate::deep_json::to_string)
}

impl LogReader {
    /// `modern`: the session speaks 2026-07-28 or later, whose deprecations apply.
    pub fn new(modern: bool) -> Self {
        Self {
            modern,
            ..Self::default()
        }
    }

    /// The next lines of the log, in order.
    pub fn feed(&mut self, lines: &[LogLine], answered_calls: &HashMap<i64, String>) {
        for line in lines {
            self.line(line, answered_calls);
        }
    }

    fn line(&mut self, line: &LogLine, answered_calls: &HashMap<i64, String>) {
        if line.side == LogSide::Stderr {
            return;
        }
        if line.text.is_empty() {
            match (line.call_id, &line.flag) {
                // A call's answer, kept as its row.
                (Some(call), _) => match answered_calls.get(&call) {
                    Some(id) => {
                        self.pending.remove(&(false, id.clone()));
                    }
                    // Its row went since (the history's size cap): which request it answered
                    // is not known any more.
                    None => self.out.answers_of_calls_gone += 1,
                },
                (None, Some(_)) => self.out.gaps = true,
                (None, None) => {}
            }
            return;
        }
        if let Some(flag) = &line.flag {
            self.bad_line(line, flag);
            return;
        }
        // A blank line between messages is harmless; the recorder does not flag it either.
        if line.text.trim().is_empty() {
            return;
        }
        let Ok(message) = crate::deep_json::parse(&line.text) else {
            self.bad_line(line, "not JSON");
            return;
        };
        let from_server = line.side == LogSide::ToClient;
        match &message {
            Value::Array(batch) => {
                for item in batch {
                    self.message(item, from_server, line.at_ms);
                }
            }
            single => self.message(single, from_server, line.at_ms),
        }
        crate::deep_json::drop_value(message);
    }

    /// A line that is not JSON-RPC, counted with the first of its side.
    fn bad_line(&mut self, line: &LogLine, flag: &str) {
        match self
            .out
            .bad_lines
            .iter_mut()
            .find(|first| first.side == line.side)
        {
            Some(first) => first.count += 1,
            None => self.out.bad_lines.push(BadLine {
                at_ms: line.at_ms,
                side: line.side,
                flag: flag.to_owned(),
                count: 1,
            }),
        }
    }

    fn message(&mut self, message: &Value, from_server: bool, at_ms: u64) {
        let id = id_text(message);
        match (message.get("method").and_then(Value::as_str), id) {
            (Some(method), id) => {
                if self.modern {
                    self.note_deprecated(method, from_server, at_ms);
                }
                match id {
                    Some(id) => self.request(message, method, id, from_server, at_ms),
                    None if method == "notifications/cancelled" => {
                        // Its sender gave up on its own request (the client on a call, the
                        // server on what it asked the client): not a request left unanswered.
                        if let Some(id) = message.pointer("/params/requestId") {
                            let id = crate::deep_json::to_string(id);
                            self.pending.remove(&(from_server, id));
                        }
                    }
                    None => {}
                }
            }
            // An answer travels the other way from its request.
            (None, Some(id)) => self.answer(message, id, !from_server, at_ms),
            (None, None) => {}
        }
    }

    fn request(
        &mut self,
        message: &Value,
        method: &str,
        id: String,
        from_server: bool,
        at_ms: u64,
    ) {
        let params = message.get("params");
        let named = |key: &str| {
            params
                .and_then(|params| params.get(key))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let subject = match method {
            "tools/call" | "prompts/get" => named("name"),
            "resources/read" => named("uri"),
            _ => None,
        };
        if method == "tools/list" && !from_server {
            let first_page = params
                .and_then(|params| params.get("cursor"))
                .is_none_or(Value::is_null);
            self.listing.insert(id.clone(), first_page);
        }
        let key = (from_server, id.clone());
        self.sent.push(key.clone());
        self.pending.insert(
            key,
            LoggedRequest {
                id,
                method: method.to_owned(),
                subject,
                at_ms,
                from_server,
            },
        );
    }

    /// An answer to a request `by_server` sent (or the client, when false).
    fn answer(&mut self, message: &Value, id: String, by_server: bool, at_ms: u64) {
        let Some(request) = self.pending.remove(&(by_server, id.clone())) else {
            return;
        };
        let first_page = if by_server {
            None
        } else {
            self.listing.remove(&id)
        };
        if let Some(error) = message.get("error") {
            // A server that does not know `server/discover` answers with an error: the client
            // falls back to `initialize`, as the protocol says.
            if request.method != "server/discover" {
                self.out.rejected.push(RejectedRequest {
                    request,
                    code: error.get("code").and_then(Value::as_i64),
                    message: error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("(no message)")
                        .to_owned(),
                });
            }
            return;
        }
        if let (Some(first_page), Some(result)) = (first_page, message.get("result")) {
            let modern = self.modern;
            if first_page || self.lists.is_empty() {
                self.lists.push((at_ms, ToolCatalog::default()));
            }
            if let Some((_, catalog)) = self.lists.last_mut() {
                catalog.add_page(result, modern);
            }
        }
    }

    fn note_deprecated(&mut self, method: &str, from_server: bool, at_ms: u64) {
        let Some((method, feature, _)) = DEPRECATED
            .iter()
            .find(|(name, _, by_server)| *name == method && *by_server == from_server)
        else {
            return;
        };
        match self
            .deprecated
            .iter_mut()
            .find(|used| used.method == *method)
        {
            Some(used) => used.count += 1,
            None => self.deprecated.push(DeprecatedUse {
                feature,
                method,
                count: 1,
                first_at_ms: at_ms,
            }),
        }
    }

    /// What the log said.
    pub fn finish(mut self) -> LogReading {
        for key in &self.sent {
            // A `subscriptions/listen` stream lasts as long as its session: no answer is due.
            let answer_may_be_gone = self.out.answers_of_calls_gone > 0
                && matches!(
                    self.pending.get(key).map(|request| request.method.as_str()),
                    Some("tools/call" | "resources/read" | "prompts/get")
                );
            if let Some(request) = self
                .pending
                .remove(key)
                .filter(|request| request.method != LISTEN && !answer_may_be_gone)
            {
                self.out.unanswered.push(request);
            }
        }
        self.out.tool_lists = self
            .lists
            .into_iter()
            .map(|(at_ms, catalog)| SeenToolList {
                at_ms,
                tools: catalog.tools.iter().map(ToolSnapshot::of).collect(),
            })
            .collect();
        self.out.deprecated = self.deprecated;
        self.out
    }
}
