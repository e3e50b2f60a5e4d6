//! The spans of what the proxy relays: a request seen starts one, its answer ends it, as a
//! child of the client's own span when its `params._meta` names one (else of the proxy's
//! session span). Followed on the recorder's thread, never the relay's; the times are when
//! the relay passed each line, not when the recorder got to it.

use std::{
    collections::HashMap,
    time::{Duration, SystemTime},
};

use serde_json::Value;

use super::{
    mcp_span::{Answer, McpRequest, Parent, RequestSpan, SessionSpan, Target, Transport},
    trace_context::parent_in_meta,
};

/// Requests left unanswered past this many are not followed (a client that never hears back
/// must not grow the recorder without bound).
const MAX_OPEN: usize = 10_000;
/// A method, a tool's or prompt's name or a URI longer than this is cut in a span.
const NAME_MAX: usize = 512;

/// The spans of one relayed session.
pub struct RelayedSpans {
    /// When the relay started: a line's time is this plus its offset.
    began: SystemTime,
    transport: Transport,
    session: SessionSpan,
    /// Each request waiting for its answer, and whether its span names the protocol version.
    open: HashMap<String, (RequestSpan, bool)>,
}

fn id_of(message: &Value) -> Option<String> {
    message.get("id").map(crate::deep_json::to_string)
}

fn text(value: &Value) -> &str {
    crate::text_util::cut_at_char_boundary(value.as_str().unwrap_or(""), NAME_MAX)
}

impl RelayedSpans {
    /// Starts following a session relayed since `relay_age` ago; `None` when traces are not
    /// exported.
    pub fn start(transport: Transport, relay_age: Duration) -> Option<Self> {
        let began = SystemTime::now()
            .checked_sub(relay_age)
            .unwrap_or_else(SystemTime::now);
        let session = SessionSpan::start(began, transport, None)?;
        Some(Self {
            began,
            transport,
            session,
            open: HashMap::new(),
        })
    }

    fn time(&self, at: Duration) -> SystemTime {
        self.began.checked_add(at).unwrap_or(self.began)
    }

    /// A message from the client: a request (with an id and a method) starts a span.
    pub fn request(&mut self, message: &Value, at: Duration, protocol_version: Option<&str>) {
        let (Some(id), Some(method)) = (id_of(message), message.get("method")) else {
            return;
        };
        if self.open.len() >= MAX_OPEN && !self.open.contains_key(&id) {
            return;
        }
        let params = &message["params"];
        let target = match method.as_str() {
            Some("tools/call") => Target::Tool(text(&params["name"])),
            Some("prompts/get") => Target::Prompt(text(&params["name"])),
            Some("resources/read" | "resources/subscribe" | "resources/unsubscribe") => {
                Target::Resource(text(&params["uri"]))
            }
            _ => Target::Nothing,
        };
        let request = McpRequest {
            method: text(method),
            target,
            protocol_version,
            transport: self.transport,
        };
        let client_span = parent_in_meta(&params["_meta"]);
        let parent = match &client_span {
            Some(remote) => Parent::Remote(remote),
            None => Parent::Session(&self.session),
        };
        if let Some(mut span) = RequestSpan::start(parent, &request, Some(self.time(at))) {
            span.set_request_id(crate::text_util::cut_at_char_boundary(&id, NAME_MAX));
            // A repeated id replaces the span it had (the old one ends as it is dropped).
            self.open.insert(id, (span, protocol_version.is_some()));
        }
    }

    /// A message from the server: the answer to a request followed ends its span. The relay
    /// passes a client's request on as soon as it reads it, so a request may be seen before
    /// the handshake's answer that settled the version: the span learns it here.
    pub fn response(&mut self, message: &Value, at: Duration, protocol_version: Option<&str>) {
        if message.get("method").is_some() {
            return;
        }
        let Some((mut span, versioned)) = id_of(message).and_then(|id| self.open.remove(&id))
        else {
            return;
        };
        if let (false, Some(version)) = (versioned, protocol_version) {
            span.set_protocol_version(version);
        }
        let answer = match message.get("error") {
            Some(error) => Answer::RpcError {
                code: error["code"].as_i64().unwrap_or(0),
                message: error["message"].as_str().unwrap_or(""),
            },
            None => Answer::Result {
                tool_error: message["result"]["isError"] == Value::Bool(true),
            },
        };
        span.end(answer, Some(self.time(at)));
    }

    /// The relay ended at `at`: requests still waiting end unanswered, then the session.
    pub fn end(self, at: Duration) {
        let at = self.time(at);
        for (_, (span, _)) in self.open {
            span.end(
                Answer::Failed {
                    kind: "unanswered",
                    message: "the relay ended before the server answered",
                },
                Some(at),
            );
        }
        self.session.end_at(at);
    }
}
