//! A proxied session as the recorder follows it from the messages that pass: who the client
//! is, what the server said of itself, the tools it listed, and each request followed until
//! its answer makes a history row (as a session of Toolscope's own would make it).

use std::{collections::HashMap, time::Duration};

use serde_json::Value;

use crate::{
    analysis::ProtocolEra,
    engine::{CallEnd, CallPlan, FeatureAnswer, FeatureAsk},
    history::{CallKind, CalledServer, NewCall},
    json_doc::JsonDoc,
    session::{CallOutcome, RawResponse, ServerSummary, ToolCatalog},
};

/// A request waiting for its response.
struct Pending {
    kind: CallKind,
    name: String,
    arguments: Value,
    at: Duration,
}

/// The session as the recorder follows it.
#[derive(Default)]
pub(super) struct Session {
    pub(super) client: Option<String>,
    /// What the server said of itself in the handshake, read once when its answer passes.
    summary: Option<ServerSummary>,
    protocol_version: Option<String>,
    /// The tools this session listed, as its client saw them (a call is checked against this,
    /// and a tool not in it is recorded as not listed). `None` until a list was answered.
    catalog: Option<ToolCatalog>,
    pending: HashMap<String, Pending>,
    /// `tools/list` requests waiting, by id: `true` for a first page (a new list).
    listing: HashMap<String, bool>,
    initializing: Option<String>,
}

/// What the session's row says of it: the client, the protocol version, the server's version.
pub(super) type Description = crate::history::SessionDescription;

/// The `_meta` keys through which a 2026-07-28 request names the version and the client.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// A client's `clientInfo` as the history names it: `name version`.
fn client_name(info: &Value) -> String {
    let name = info["name"].as_str().unwrap_or("a client");
    let version = info["version"].as_str().unwrap_or("");
    format!("{name} {version}").trim_end().to_owned()
}

fn id_of(message: &Value) -> Option<String> {
    message.get("id").map(crate::deep_json::to_string)
}

impl Session {
    /// The version the exchange settled on (a 2026-07-28 request names it in its `_meta`).
    fn settle_version(&mut self, version: &str) {
        self.protocol_version = Some(version.to_owned());
        if let Some(summary) = &mut self.summary {
            version.clone_into(&mut summary.protocol_version);
        }
    }

    /// The protocol version the session settled on, once known.
    pub(super) fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    pub(super) fn description(&self) -> Description {
        let summary = self.summary.as_ref();
        Description {
            client: self.client.clone(),
            protocol_version: self.protocol_version.clone(),
            server_name: summary.and_then(|summary| summary.name.clone()),
            server_version: summary.and_then(|summary| summary.version.clone()),
        }
    }

    /// A message from the client: a request to follow (its id), or the client's introduction.
    pub(super) fn request(&mut self, message: &Value, at: Duration) {
        let (Some(id), Some(method)) = (id_of(message), message["method"].as_str()) else {
            return;
        };
        let params = &message["params"];
        // From 2026-07-28 every request names the client and the version in its _meta.
        let meta = &params["_meta"];
        if let Some(version) = meta[META_PROTOCOL_VERSION].as_str() {
            self.settle_version(version);
        }
        if let Some(info) = meta.get(META_CLIENT_INFO) {
            self.client = Some(client_name(info));
        }
        let (kind, name, arguments) = match method {
            "initialize" => {
                self.client = Some(client_name(&params["clientInfo"]));
                self.initializing = Some(id);
                return;
            }
            "server/discover" => {
                self.initializing = Some(id);
                return;
            }
            "tools/list" => {
                let first_page = params.get("cursor").is_none_or(Value::is_null);
                self.listing.insert(id, first_page);
                return;
            }
            "tools/call" => (
                CallKind::Call,
                params["name"].as_str().unwrap_or(""),
                &params["arguments"],
            ),
            "resources/read" => (
                CallKind::Read,
                params["uri"].as_str().unwrap_or(""),
                &Value::Null,
            ),
            "prompts/get" => (
                CallKind::Prompt,
                params["name"].as_str().unwrap_or(""),
                &params["arguments"],
            ),
            _ => return,
        };
        let arguments = match arguments {
            Value::Null => Value::Object(serde_json::Map::new()),
            other => other.clone(),
        };
        self.pending.insert(
            id,
            Pending {
                kind,
                name: name.to_owned(),
                arguments,
                at,
            },
        );
    }

    /// A message from the server: the answer to a request followed makes a row.
    pub(super) fn response(
        &mut self,
        message: &Value,
        text: &str,
        at: Duration,
        label: &str,
    ) -> Option<NewCall> {
        let id = id_of(message)?;
        if self.initializing.as_ref() == Some(&id) {
            self.initializing = None;
            let result = &message["result"];
            if let Some(version) = result["protocolVersion"].as_str() {
                self.settle_version(version);
            }
            // As a session of Toolscope's own would summarize it.
            let version = self.protocol_version.as_deref().unwrap_or("unknown");
            self.summary = Some(ServerSummary::observed(version, result));
            return None;
        }
        if let Some(first_page) = self.listing.remove(&id) {
            let modern = ProtocolEra::from_version(self.protocol_version.as_deref().unwrap_or(""))
                == ProtocolEra::Modern;
            let catalog = match (first_page, self.catalog.take()) {
                (false, Some(catalog)) => catalog,
                _ => ToolCatalog::default(),
            };
            let catalog = self.catalog.insert(catalog);
            catalog.add_page(&message["result"], modern);
            return None;
        }
        let pending = self.pending.remove(&id)?;
        let request_id = id.clone();
        let took = at.saturating_sub(pending.at);
        // The answer as relayed, read as a session of Toolscope's own reads one.
        let response =
            RawResponse::from_message(std::sync::Arc::new(JsonDoc::parse(text.to_owned()).ok()?));
        let server = CalledServer {
            label,
            summary: self.summary.as_ref(),
        };
        let protocol_version = self.protocol_version.clone().unwrap_or_default();
        let mut row = match pending.kind {
            CallKind::Call => {
                let plan = CallPlan::observed(self.catalog.as_ref(), &pending.name);
                let outcome = CallOutcome {
                    tool: pending.name,
                    arguments: pending.arguments,
                    request_id: id,
                    response,
                    duration: took,
                    duplicate_responses: 0,
                    rounds: Box::default(),
                };
                let analysis = plan.analyze(&outcome, &protocol_version);
                let end = CallEnd::Answered {
                    outcome: &outcome,
                    analysis: &analysis,
                };
                plan.history_row(server, end)
            }
            kind => {
                let ask = match kind {
                    CallKind::Prompt => FeatureAsk::Prompt {
                        name: pending.name,
                        arguments: match pending.arguments {
                            Value::Object(arguments) => arguments,
                            _ => serde_json::Map::new(),
                        },
                    },
                    _ => FeatureAsk::Read { uri: pending.name },
                };
                let answer = FeatureAnswer {
                    ask,
                    response: Ok(response),
                    duration: took,
                    protocol_version,
                    trace_id: None,
                };
                answer.history_row(server)
            }
        };
        row.client.clone_from(&self.client);
        // The id as the log reader writes it (a read's row would keep it as the server wrote
        // it, escapes and all, and a gate would not find its answer).
        row.request_id = Some(request_id);
        Some(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{CallQuery, Verdict};

    #[test]
    fn a_call_of_a_tool_the_session_never_listed_is_kept_as_not_listed() {
        let mut session = Session::default();
        let request = |session: &mut Session, text: &str| {
            session.request(&serde_json::from_str(text).unwrap(), Duration::ZERO);
        };
        let answer = |session: &mut Session, text: &str| {
            session.response(
                &serde_json::from_str(text).unwrap(),
                text,
                Duration::ZERO,
                "srv",
            )
        };
        request(
            &mut session,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#,
        );
        let before_any_list = answer(
            &mut session,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
        )
        .unwrap();
        assert!(!before_any_list.listed, "no list was seen in the session");
        request(
            &mut session,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        );
        assert!(answer(&mut session, r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"add","inputSchema":{"type":"object"}}]}}"#).is_none());
        request(
            &mut session,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add"}}"#,
        );
        let listed = answer(
            &mut session,
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#,
        )
        .unwrap();
        assert!(listed.listed);
        request(
            &mut session,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"secret"}}"#,
        );
        let unlisted = answer(
            &mut session,
            r#"{"jsonrpc":"2.0","id":4,"result":{"content":[]}}"#,
        )
        .unwrap();
        assert!(
            !unlisted.listed,
            "`secret` is not in what the session listed"
        );
        assert_eq!(unlisted.tool, "secret");
    }

    #[test]
    fn the_rows_say_who_and_how_it_went() {
        let mut session = Session::default();
        let initialize: Value = serde_json::json!({"jsonrpc":"2.0","id":1,"method":"initialize",
            "params":{"clientInfo":{"name":"cursor","version":"1.2"}}});
        session.request(&initialize, Duration::ZERO);
        let call: Value = serde_json::json!({"jsonrpc":"2.0","id":7,"method":"prompts/get",
            "params":{"name":"review","arguments":{"code":"x"}}});
        session.request(&call, Duration::from_millis(5));
        let text = r#"{"jsonrpc":"2.0","id":7,"result":{"messages":[]}}"#;
        let answer: Value = serde_json::from_str(text).unwrap();
        let row = session
            .response(&answer, text, Duration::from_millis(12), "srv")
            .unwrap();
        assert_eq!(row.kind, CallKind::Prompt);
        assert_eq!(row.client.as_deref(), Some("cursor 1.2"));
        assert_eq!(row.duration_ms, Some(7));
        assert_eq!(row.verdict, Verdict::Ok);
        assert_eq!(row.arguments, r#"{"code":"x"}"#);
        let mut store = crate::history::in_memory_store().unwrap();
        store.record(&row).unwrap();
        let kept = store.list(&CallQuery::default()).unwrap();
        assert_eq!(kept[0].client.as_deref(), Some("cursor 1.2"));
    }
}
