//! What a proxy keeps of a session, on a thread of its own: the session itself (client,
//! server, start, how it ended), each `tools/call`, `resources/read` and `prompts/get` with
//! its response exactly as relayed, into the history (the client named on each), and the rest
//! of the traffic as the session's protocol log. The relay never waits for it: what it could
//! not keep is counted and said once at the end.

use std::{
    collections::{HashMap, VecDeque},
    sync::mpsc::{Receiver, RecvTimeoutError},
    time::Duration,
};

use serde_json::Value;

use super::{
    stdio_relay::RelayEnd,
    traffic::{TrafficEvent, TrafficSide},
};
use crate::{
    analysis::ProtocolEra,
    engine::{CallEnd, CallPlan, FeatureAnswer, FeatureAsk},
    history::{
        CallKind, CalledServer, HistoryError, HistoryStore, LogSide, NewCall, NewLogLine,
        SessionEnding, started_ago,
    },
    json_doc::JsonDoc,
    session::{CallOutcome, RawResponse, ServerSummary, ToolCatalog},
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
    /// The session's id in the history.
    pub session: Option<i64>,
}

/// A session's log keeps at most this much text; later lines are counted, not kept.
const LOG_CAP_BYTES: usize = 64 * 1024 * 1024;
/// Log lines written together (fewer transactions when traffic is busy).
const LOG_BATCH: usize = 256;
/// A quiet relay's lines reach the database within this (the Live view polls it).
const LOG_LATENCY: Duration = Duration::from_millis(100);
/// The server's last stderr lines kept with the session's ending.
const STDERR_TAIL_LINES: usize = 20;

/// A request waiting for its response.
struct Pending {
    kind: CallKind,
    name: String,
    arguments: Value,
    at: Duration,
}

/// The session as the recorder follows it.
#[derive(Default)]
struct Session {
    client: Option<String>,
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
type Description = (Option<String>, Option<String>, Option<String>);

/// Where the recording goes: the history, the session's row in it, and its log so far.
struct SessionLog {
    store: Box<dyn HistoryStore>,
    session: i64,
    waiting: Vec<NewLogLine>,
    bytes: usize,
    dropped: u64,
    /// The client, version and server version last written to the session's row.
    described: Description,
}

impl SessionLog {
    fn push(&mut self, line: NewLogLine) {
        if self.bytes + line.text.len() > LOG_CAP_BYTES {
            self.dropped += 1;
            return;
        }
        self.bytes += line.text.len();
        self.waiting.push(line);
    }

    fn flush(&mut self, report: &mut RecordingReport) {
        if self.waiting.is_empty() {
            return;
        }
        let lines = std::mem::take(&mut self.waiting);
        if let Err(error) = self.store.append_proxy_log(self.session, &lines) {
            report.problem.get_or_insert_with(|| error.to_string());
        }
    }
}

/// Why a proxy has no history to keep its session in.
#[derive(Debug, thiserror::Error)]
pub enum NoHistory {
    #[error("no data folder (set TOOLSCOPE_DATA_DIR)")]
    NoDataFolder,
    #[error(transparent)]
    Unusable(#[from] HistoryError),
}

/// Reads what the relay offers until it ends, keeping the session and its exchanges in
/// `store` under the server's `label`. `store` is an error when the history cannot be opened.
pub fn record(
    events: &Receiver<TrafficEvent>,
    store: Result<Box<dyn HistoryStore>, NoHistory>,
    label: &str,
) -> RecordingReport {
    let mut report = RecordingReport::default();
    let mut log = match store {
        Ok(mut store) => match store.begin_proxy_session(label, &started_ago(Duration::ZERO)) {
            Ok(session) => {
                report.session = Some(session);
                Some(SessionLog {
                    store,
                    session,
                    waiting: Vec::new(),
                    bytes: 0,
                    dropped: 0,
                    described: Description::default(),
                })
            }
            Err(error) => {
                report.problem = Some(error.to_string());
                None
            }
        },
        Err(why) => {
            report.problem = Some(why.to_string());
            None
        }
    };
    let mut session = Session::default();
    let mut stderr_tail: VecDeque<String> = VecDeque::new();
    let mut ended = None;
    loop {
        let event = match events.recv_timeout(LOG_LATENCY) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => {
                if let Some(log) = &mut log {
                    log.flush(&mut report);
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let (side, bytes, at) = match event {
            TrafficEvent::Line { side, bytes, at } => (side, bytes, at),
            TrafficEvent::Ended { end, dropped } => {
                ended = Some((end, dropped));
                break;
            }
        };
        let at_ms = u64::try_from(at.as_millis()).unwrap_or(u64::MAX);
        let (text, utf8) = match String::from_utf8(bytes) {
            Ok(text) => (text, true),
            Err(error) => (
                String::from_utf8_lossy(error.as_bytes()).into_owned(),
                false,
            ),
        };
        let text = text.trim_end_matches(['\n', '\r']);
        if side == TrafficSide::ServerStderr {
            if stderr_tail.len() == STDERR_TAIL_LINES {
                stderr_tail.pop_front();
            }
            stderr_tail.push_back(text.to_owned());
            if let Some(log) = &mut log {
                log.push(NewLogLine {
                    at_ms,
                    side: LogSide::Stderr,
                    text: text.to_owned(),
                    flag: None,
                    call_id: None,
                });
            }
            continue;
        }
        let log_side = if side == TrafficSide::ToServer {
            LogSide::ToServer
        } else {
            LogSide::ToClient
        };
        let message = if utf8 {
            serde_json::from_str::<Value>(text).ok()
        } else {
            None
        };
        let Some(message) = message else {
            if !text.trim().is_empty() {
                report.malformed += 1;
            }
            if let Some(log) = &mut log {
                let flag = if utf8 { "not JSON" } else { "not UTF-8" };
                log.push(NewLogLine {
                    at_ms,
                    side: log_side,
                    text: text.to_owned(),
                    flag: (!text.trim().is_empty()).then(|| flag.to_owned()),
                    call_id: None,
                });
            }
            continue;
        };
        let row = match side {
            TrafficSide::ToServer => {
                session.request(&message, at);
                None
            }
            _ => session.response(&message, text, at, label),
        };
        let Some(log) = &mut log else {
            crate::deep_json::drop_value(message);
            continue;
        };
        let description = session.description();
        if description != log.described {
            if let Err(error) = log.store.describe_proxy_session(
                log.session,
                description.0.as_deref(),
                description.1.as_deref(),
                description.2.as_deref(),
            ) {
                report.problem.get_or_insert_with(|| error.to_string());
            }
            log.described = description;
        }
        let mut line = NewLogLine {
            at_ms,
            side: log_side,
            text: String::new(),
            flag: None,
            call_id: None,
        };
        match row {
            Some(row) => {
                // The log before the call: its lines keep their order.
                log.flush(&mut report);
                match log.store.record(&row) {
                    Ok(id) => {
                        report.kept += 1;
                        line.call_id = Some(id);
                        if let Err(error) = log.store.link_call_to_session(id, log.session) {
                            report.problem.get_or_insert_with(|| error.to_string());
                        }
                    }
                    Err(error) => {
                        report.problem.get_or_insert_with(|| error.to_string());
                        line.text = text.to_owned();
                    }
                }
            }
            None => text.clone_into(&mut line.text),
        }
        log.push(line);
        if log.waiting.len() >= LOG_BATCH {
            log.flush(&mut report);
        }
        crate::deep_json::drop_value(message);
    }
    if let Some(mut log) = log {
        log.flush(&mut report);
        let (end, dropped) = ended.unwrap_or((
            RelayEnd {
                client_left: true,
                server_exit: None,
                server_code: None,
            },
            0,
        ));
        let ending = SessionEnding {
            ending: ending_in_words(&end),
            stderr_tail: Vec::from(stderr_tail).join("\n"),
            log_dropped: log.dropped + dropped,
        };
        if let Err(error) =
            log.store
                .end_proxy_session(log.session, &started_ago(Duration::ZERO), &ending)
        {
            report.problem.get_or_insert_with(|| error.to_string());
        }
    }
    report.client = session.client;
    report
}

/// How a relay ended, as the session list says it.
fn ending_in_words(end: &RelayEnd) -> String {
    let exit = end.server_exit.as_deref().unwrap_or("it was not reaped");
    // Over HTTP there is no process: the words say how the session ended.
    let process = exit.starts_with("exit status") || exit.starts_with("signal");
    if end.server_code.is_none() && end.server_exit.is_some() && !process {
        return exit.to_owned();
    }
    if end.client_left {
        format!("the client left; the server ended ({exit})")
    } else {
        format!("the server ended first ({exit})")
    }
}

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

    fn description(&self) -> Description {
        let server_version = self
            .summary
            .as_ref()
            .and_then(|summary| summary.version.clone());
        (
            self.client.clone(),
            self.protocol_version.clone(),
            server_version,
        )
    }

    /// A message from the client: a request to follow (its id), or the client's introduction.
    fn request(&mut self, message: &Value, at: Duration) {
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
                };
                answer.history_row(server)
            }
        };
        row.client.clone_from(&self.client);
        Some(row)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::sync_channel;

    use super::*;
    use crate::history::{CallQuery, Verdict};

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
        let store = crate::history::open_store(&path).map_err(NoHistory::from);
        let report = record(&receiver, store, "srv");
        assert_eq!(report.kept, 2);
        assert_eq!(report.malformed, 1);
        assert_eq!(report.client.as_deref(), Some("claude-ai 0.1"));
        assert!(report.problem.is_none(), "{:?}", report.problem);
        let kept = crate::history::open_store(&path)
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

        // The session, its calls and the rest of its traffic.
        let history = crate::history::open_store(&path).unwrap();
        let sessions = history.proxy_sessions(10).unwrap();
        assert_eq!(sessions.len(), 1);
        let session = &sessions[0];
        assert_eq!(Some(session.id), report.session);
        assert_eq!(session.client.as_deref(), Some("claude-ai 0.1"));
        assert_eq!(session.server, "srv");
        assert_eq!(session.server_version.as_deref(), Some("2.0"));
        assert_eq!(session.calls, 2);
        assert!(session.ended_at.is_some());
        assert_eq!(kept[0].session, Some(session.id));
        let log = history.proxy_log(session.id, 0, 100).unwrap();
        let sides: String = log.iter().map(|line| line.side.arrow()).collect();
        assert_eq!(sides, "→←→←→→←→←", "every line, in the order it passed");
        assert_eq!(log[5].text, "not json at all");
        assert_eq!(log[5].flag.as_deref(), Some("not JSON"));
        assert!(
            log[1].text.contains("serverInfo"),
            "the rest is logged as it was"
        );
        assert_eq!(
            log[6].call_id,
            Some(kept[1].id),
            "a call's answer is the call's row"
        );
        assert_eq!(log[6].text, "");
        let only_session = history
            .list(&CallQuery {
                session: Some(session.id),
                ..CallQuery::default()
            })
            .unwrap();
        assert_eq!(only_session.len(), 2);
    }

    #[test]
    fn the_session_ends_with_the_servers_exit_and_stderr_tail() {
        let (sender, receiver) = sync_channel(64);
        sender
            .send(line(TrafficSide::ServerStderr, "Traceback: boom"))
            .unwrap();
        sender
            .send(TrafficEvent::Ended {
                end: RelayEnd {
                    client_left: false,
                    server_exit: Some("exit status: 3".to_owned()),
                    server_code: Some(3),
                },
                dropped: 2,
            })
            .unwrap();
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("history.sqlite3");
        let store = crate::history::open_store(&path).map_err(NoHistory::from);
        record(&receiver, store, "srv");
        let history = crate::history::open_store(&path).unwrap();
        let session = &history.proxy_sessions(1).unwrap()[0];
        assert_eq!(
            session.ending.as_deref(),
            Some("the server ended first (exit status: 3)")
        );
        assert_eq!(session.stderr_tail.as_deref(), Some("Traceback: boom"));
        assert_eq!(session.log_dropped, 2);
        assert_eq!(session.log_lines, 1);
    }

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
