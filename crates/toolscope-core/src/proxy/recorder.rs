//! What a proxy keeps of a session, on a thread of its own: the client's `clientInfo`, the
//! server's answer to `initialize`, and each `tools/call`, `resources/read` and `prompts/get`
//! with its response exactly as relayed, into the history (the client named on each). The
//! relay never waits for it: what it could not keep is counted and said once at the end.

use std::{collections::HashMap, sync::mpsc::Receiver, time::Duration};

use serde_json::Value;

use super::traffic::{TrafficEvent, TrafficSide};
use crate::{
    analysis::{self, ProtocolEra},
    history::{CallKind, HistoryStore, NewCall, ResponseText, Verdict, started_ago},
    json_doc::JsonDoc,
};

/// What the recorder did, for the proxy's last words.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RecordingReport {
    /// Calls, reads and prompts kept.
    pub kept: usize,
    /// Lines that were not JSON (relayed unchanged, flagged here).
    pub malformed: usize,
    /// Why nothing (or not everything) was kept, once.
    pub problem: Option<String>,
    /// The client, as it named itself (`name version`).
    pub client: Option<String>,
}

/// A request waiting for its response.
struct Pending {
    kind: CallKind,
    name: String,
    arguments: String,
    at: Duration,
}

/// The session as the recorder follows it.
#[derive(Default)]
struct Session {
    client: Option<String>,
    server_info: Option<Value>,
    protocol_version: Option<String>,
    /// Each tool's output schema, from the last `tools/list` answer seen.
    output_schemas: HashMap<String, Value>,
    pending: HashMap<String, Pending>,
    /// `tools/list` requests waiting, by id.
    listing: HashMap<String, ()>,
    initializing: Option<String>,
}

/// Reads what the relay offers until it ends, keeping the exchanges in `store` under the
/// server's `label`. `store` is `None` when the history cannot be opened (`why`).
pub fn record(
    events: &Receiver<TrafficEvent>,
    store: Result<HistoryStore, String>,
    label: &str,
) -> RecordingReport {
    let mut report = RecordingReport::default();
    let mut store = match store {
        Ok(store) => Some(store),
        Err(why) => {
            report.problem = Some(why);
            None
        }
    };
    let mut session = Session::default();
    while let Ok(event) = events.recv() {
        let (side, bytes, at) = match event {
            TrafficEvent::Line { side, bytes, at } => (side, bytes, at),
            TrafficEvent::Ended(_) => break,
        };
        if side == TrafficSide::ServerStderr {
            continue;
        }
        let Ok(text) = String::from_utf8(bytes) else {
            report.malformed += 1;
            continue;
        };
        let text = text.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            continue;
        }
        let Ok(message) = serde_json::from_str::<Value>(text) else {
            report.malformed += 1;
            continue;
        };
        let row = match side {
            TrafficSide::ToServer => {
                session.request(&message, at);
                None
            }
            _ => session.response(&message, text, at, label),
        };
        if let (Some(row), Some(history)) = (row, store.as_mut()) {
            match history.record(&row) {
                Ok(_) => report.kept += 1,
                Err(error) => {
                    report.problem.get_or_insert_with(|| error.to_string());
                }
            }
        }
        crate::deep_json::drop_value(message);
    }
    report.client = session.client;
    report
}

fn id_of(message: &Value) -> Option<String> {
    message.get("id").map(crate::deep_json::to_string)
}

impl Session {
    /// A message from the client: a request to follow (its id), or the client's introduction.
    fn request(&mut self, message: &Value, at: Duration) {
        let (Some(id), Some(method)) = (id_of(message), message["method"].as_str()) else {
            return;
        };
        let params = &message["params"];
        let (kind, name, arguments) = match method {
            "initialize" => {
                let info = &params["clientInfo"];
                let name = info["name"].as_str().unwrap_or("a client");
                let version = info["version"].as_str().unwrap_or("");
                self.client = Some(format!("{name} {version}").trim_end().to_owned());
                self.initializing = Some(id);
                return;
            }
            "tools/list" => {
                self.listing.insert(id, ());
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
            Value::Null => "{}".to_owned(),
            other => crate::deep_json::to_string(other),
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
    fn response(
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
            self.protocol_version = result["protocolVersion"].as_str().map(str::to_owned);
            self.server_info = Some(result.clone());
            return None;
        }
        if self.listing.remove(&id).is_some() {
            for tool in message["result"]["tools"].as_array().into_iter().flatten() {
                if let (Some(name), Some(schema)) =
                    (tool["name"].as_str(), tool.get("outputSchema"))
                {
                    self.output_schemas.insert(name.to_owned(), schema.clone());
                }
            }
            return None;
        }
        let pending = self.pending.remove(&id)?;
        let took = at.saturating_sub(pending.at);
        let verdict = self.verdict(&pending, text);
        let output_schema = (pending.kind == CallKind::Call)
            .then(|| self.output_schemas.get(&pending.name))
            .flatten()
            .map(crate::deep_json::to_string);
        let server_info = self.server_info.as_ref();
        Some(NewCall {
            kind: pending.kind,
            started_at: started_ago(took),
            duration_ms: Some(u64::try_from(took.as_millis()).unwrap_or(u64::MAX)),
            server: label.to_owned(),
            server_version: server_info
                .and_then(|info| info["serverInfo"]["version"].as_str())
                .map(str::to_owned),
            protocol_version: self.protocol_version.clone(),
            server_info: None,
            tool: pending.name,
            arguments: pending.arguments,
            request_id: Some(id),
            response: Some(ResponseText::Owned(text.to_owned())),
            duplicate_responses: 0,
            output_schema,
            listed: true,
            verdict,
            failure: None,
            rounds: None,
            client: self.client.clone(),
        })
    }

    /// The verdict the window would give: a tool call analysed against the output schema the
    /// server listed for it; a read or prompt by whether it was an error.
    fn verdict(&self, pending: &Pending, text: &str) -> Verdict {
        let Ok(doc) = JsonDoc::parse(text.to_owned()) else {
            return Verdict::Failed;
        };
        let root = doc.root();
        let era = ProtocolEra::from_version(self.protocol_version.as_deref().unwrap_or(""));
        if let Some(error) = root.get("error") {
            if pending.kind == CallKind::Call {
                let analysis =
                    analysis::analyze_call(analysis::CallResponse::RpcError(error), None, era);
                return Verdict::of_analysis(true, &analysis);
            }
            return Verdict::ProtocolError;
        }
        let Some(result) = root.get("result") else {
            return Verdict::Failed;
        };
        if pending.kind != CallKind::Call {
            return Verdict::Ok;
        }
        let schema = self.output_schemas.get(&pending.name);
        let analysis = analysis::analyze_call(analysis::CallResponse::Result(result), schema, era);
        Verdict::of_analysis(false, &analysis)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::sync_channel;

    use super::*;
    use crate::history::CallQuery;

    fn line(side: TrafficSide, text: &str) -> TrafficEvent {
        TrafficEvent::Line {
            side,
            bytes: format!("{text}\n").into_bytes(),
            at: Duration::ZERO,
        }
    }

    #[test]
    fn calls_reads_and_prompts_are_kept_with_their_client_and_verdict() {
        use TrafficSide::{ToClient, ToServer};
        let (sender, receiver) = sync_channel(64);
        let traffic = [
            line(
                ToServer,
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"claude-ai","version":"0.1"}}}"#,
            ),
            line(
                ToClient,
                r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"2.0"}}}"#,
            ),
            line(
                ToServer,
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            ),
            line(
                ToClient,
                r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"add","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}}]}}"#,
            ),
            line(
                ToServer,
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}"#,
            ),
            line(ToServer, "not json at all"),
            line(
                ToClient,
                r#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":{"result":"three"}}}"#,
            ),
            line(
                ToServer,
                r#"{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"demo://a"}}"#,
            ),
            line(
                ToClient,
                r#"{"jsonrpc":"2.0","id":"r","error":{"code":-32002,"message":"nope"}}"#,
            ),
        ];
        for event in traffic {
            sender.send(event).unwrap();
        }
        drop(sender);
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("history.sqlite3");
        let store = HistoryStore::open(&path).map_err(|error| error.to_string());
        let report = record(&receiver, store, "srv");
        assert_eq!(report.kept, 2);
        assert_eq!(report.malformed, 1);
        assert_eq!(report.client.as_deref(), Some("claude-ai 0.1"));
        assert!(report.problem.is_none(), "{:?}", report.problem);
        let kept = HistoryStore::open(&path)
            .unwrap()
            .list(&CallQuery::default())
            .unwrap();
        let rows: Vec<_> = kept
            .iter()
            .map(|call| (call.kind, call.tool.as_str(), call.verdict))
            .collect();
        assert_eq!(
            rows,
            [
                (CallKind::Read, "demo://a", Verdict::ProtocolError),
                (CallKind::Call, "add", Verdict::ContractViolated),
            ],
            "the call is checked against the output schema the server listed"
        );
        assert_eq!(kept[1].protocol_version.as_deref(), Some("2025-11-25"));
        assert_eq!(kept[1].server_version.as_deref(), Some("2.0"));
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
        let mut store = HistoryStore::in_memory().unwrap();
        store.record(&row).unwrap();
        let kept = store.list(&CallQuery::default()).unwrap();
        assert_eq!(kept[0].client.as_deref(), Some("cursor 1.2"));
    }
}
