//! What a proxy keeps of a session, on a thread of its own: the session itself (client,
//! server, start, how it ended), each `tools/call`, `resources/read` and `prompts/get` with
//! its response exactly as relayed, into the history (the client named on each), and the rest
//! of the traffic as the session's protocol log. The relay never waits for it: what it could
//! not keep is counted, marked in the log where it went missing and said once at the end.
//! A flood costs little: a message is parsed whole only when a row or the session's
//! description needs it (a server's notification is only checked to be JSON and logged), and
//! the log is written in batches.

use std::{
    collections::VecDeque,
    sync::mpsc::RecvTimeoutError,
    time::{Duration, Instant},
};

use serde::{Deserialize, de::IgnoredAny};
use serde_json::Value;

use super::{
    followed_session::{Description, Session},
    stdio_relay::RelayEnd,
    traffic::{TrafficEvent, TrafficReceiver, TrafficSide},
};
use crate::{
    history::{HistoryError, HistoryStore, LogSide, NewLogLine, SessionEnding, started_ago},
    telemetry::{Transport, relayed_spans::RelayedSpans},
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
const LOG_BATCH: usize = 4096;
/// Every line reaches the database within this (the Live view polls it).
const LOG_LATENCY: Duration = Duration::from_millis(100);
/// The server's last stderr lines kept with the session's ending.
const STDERR_TAIL_LINES: usize = 20;
/// The flag of a line that is not UTF-8 (kept with U+FFFD where its bytes were not).
const NOT_UTF8: &str = "not UTF-8: shown with \u{FFFD} for the bytes that are not";

/// Where the recording goes: the history, the session's row in it, and its log so far.
struct SessionLog {
    store: Box<dyn HistoryStore>,
    session: i64,
    waiting: Vec<NewLogLine>,
    /// When the oldest line waiting came.
    waiting_since: Option<Instant>,
    bytes: usize,
    /// Lines not kept for the log's cap.
    dropped: u64,
    /// Lines the queue dropped that a line in the log marks.
    gaps_marked: u64,
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
        self.waiting_since.get_or_insert_with(Instant::now);
        self.waiting.push(line);
    }

    /// A line that says `count` lines passed here but found the recorder's queue full.
    fn push_gap(&mut self, side: LogSide, at_ms: u64, count: u64) {
        self.gaps_marked += count;
        self.waiting_since.get_or_insert_with(Instant::now);
        self.waiting.push(NewLogLine {
            at_ms,
            side,
            text: String::new(),
            flag: Some(format!(
                "{count} line(s) passed here but were not kept (the recorder fell behind)"
            )),
            call_id: None,
        });
    }

    /// How long the next line may be waited for before what waits is written.
    fn patience(&self) -> Duration {
        self.waiting_since.map_or(LOG_LATENCY, |since| {
            LOG_LATENCY.saturating_sub(since.elapsed())
        })
    }

    /// Writes what waits when there is a batch of it or the oldest has waited long enough.
    fn flush_when_due(&mut self, report: &mut RecordingReport) {
        if self.waiting.len() >= LOG_BATCH || self.patience().is_zero() {
            self.flush(report);
        }
    }

    fn flush(&mut self, report: &mut RecordingReport) {
        self.waiting_since = None;
        if self.waiting.is_empty() {
            return;
        }
        if let Err(error) = self.store.append_proxy_log(self.session, &self.waiting) {
            report.problem.get_or_insert_with(|| error.to_string());
        }
        self.waiting.clear();
    }
}

/// Enough of a message to tell whether it is needed whole: one with an `id` is a request or an
/// answer (a row, the handshake, a tool list); one without is a notification, only logged.
#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    id: Option<IgnoredAny>,
}

/// What a line is, as far as the recorder needs to know.
enum Reading {
    /// A message it follows, parsed whole.
    Whole(Value),
    /// A message it only logs.
    Passing,
    NotJson,
}

/// Reads a line from `side`: the client's messages whole (there are few, and they name the
/// client and what it asks), the server's when they carry an `id`.
fn read_line(text: &str, side: TrafficSide) -> Reading {
    // Anything else (an answer, a request, a batch, not JSON) is parsed whole.
    if side == TrafficSide::ToClient
        && let Ok(Envelope { id: None }) = serde_json::from_str::<Envelope>(text)
    {
        return Reading::Passing;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(message) => Reading::Whole(message),
        Err(_) => Reading::NotJson,
    }
}

/// Why a proxy has no history to keep its session in.
#[derive(Debug, thiserror::Error)]
pub enum NoHistory {
    /// Why the chosen history could not be opened, in words.
    #[error("{0}")]
    Unopened(String),
    #[error(transparent)]
    Unusable(#[from] HistoryError),
}

/// Reads what the relay offers until it ends, keeping the session and its exchanges in
/// `store` under the server's `label`. `store` is an error when the history cannot be opened.
/// When traces are exported, each request relayed over `transport` is a span too.
pub fn record(
    events: &TrafficReceiver,
    store: Result<Box<dyn HistoryStore>, NoHistory>,
    label: &str,
    transport: Transport,
) -> RecordingReport {
    let mut spans = RelayedSpans::start(transport, events.relay_age());
    let mut report = RecordingReport::default();
    let mut log = match store {
        Ok(mut store) => match store.begin_proxy_session(label, &started_ago(Duration::ZERO)) {
            Ok(session) => {
                report.session = Some(session);
                Some(SessionLog {
                    store,
                    session,
                    waiting: Vec::new(),
                    waiting_since: None,
                    bytes: 0,
                    dropped: 0,
                    gaps_marked: 0,
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
    let mut last_at_ms = 0;
    loop {
        let patience = log.as_ref().map_or(LOG_LATENCY, SessionLog::patience);
        let event = match events.recv_timeout(patience) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => {
                if let Some(log) = &mut log {
                    log.flush(&mut report);
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let (side, bytes, at, dropped_before) = match event {
            TrafficEvent::Line {
                side,
                bytes,
                at,
                dropped_before,
            } => (side, bytes, at, dropped_before),
            TrafficEvent::Ended { end, dropped } => {
                ended = Some((end, dropped));
                break;
            }
        };
        let at_ms = u64::try_from(at.as_millis()).unwrap_or(u64::MAX);
        last_at_ms = at_ms;
        let log_side = match side {
            TrafficSide::ToServer => LogSide::ToServer,
            TrafficSide::ToClient => LogSide::ToClient,
            TrafficSide::ServerStderr => LogSide::Stderr,
        };
        if let Some(log) = &mut log {
            if dropped_before > 0 {
                log.push_gap(log_side, at_ms, dropped_before);
            }
            log.flush_when_due(&mut report);
        }
        let (mut text, utf8) = match String::from_utf8(bytes) {
            Ok(text) => (text, true),
            Err(error) => (
                String::from_utf8_lossy(error.as_bytes()).into_owned(),
                false,
            ),
        };
        text.truncate(text.trim_end_matches(['\n', '\r']).len());
        if side == TrafficSide::ServerStderr {
            if stderr_tail.len() == STDERR_TAIL_LINES {
                stderr_tail.pop_front();
            }
            stderr_tail.push_back(text.clone());
            if let Some(log) = &mut log {
                log.push(NewLogLine {
                    at_ms,
                    side: LogSide::Stderr,
                    flag: (!utf8).then(|| NOT_UTF8.to_owned()),
                    text,
                    call_id: None,
                });
            }
            continue;
        }
        let reading = if utf8 {
            read_line(&text, side)
        } else {
            Reading::NotJson
        };
        let message = match reading {
            Reading::Whole(message) => message,
            Reading::Passing => {
                if let Some(log) = &mut log {
                    log.push(NewLogLine {
                        at_ms,
                        side: log_side,
                        text,
                        flag: None,
                        call_id: None,
                    });
                }
                continue;
            }
            Reading::NotJson => {
                let blank = text.trim().is_empty();
                if !blank {
                    report.malformed += 1;
                }
                if let Some(log) = &mut log {
                    let flag = if utf8 { "not JSON" } else { NOT_UTF8 };
                    log.push(NewLogLine {
                        at_ms,
                        side: log_side,
                        text,
                        flag: (!blank).then(|| flag.to_owned()),
                        call_id: None,
                    });
                }
                continue;
            }
        };
        let row = match side {
            TrafficSide::ToServer => {
                session.request(&message, at);
                if let Some(spans) = &mut spans {
                    spans.request(&message, at, session.protocol_version());
                }
                None
            }
            _ => {
                let row = session.response(&message, &text, at, label);
                if let Some(spans) = &mut spans {
                    spans.response(&message, at, session.protocol_version());
                }
                row
            }
        };
        let Some(log) = &mut log else {
            crate::deep_json::drop_value(message);
            continue;
        };
        let description = session.description();
        if description != log.described {
            if let Err(error) = log.store.describe_proxy_session(log.session, &description) {
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
                        line.text = text;
                    }
                }
            }
            None => line.text = text,
        }
        log.push(line);
        crate::deep_json::drop_value(message);
    }
    if let Some(mut log) = log {
        let (end, dropped) = ended.unwrap_or((
            RelayEnd {
                client_left: true,
                server_exit: None,
                server_code: None,
            },
            0,
        ));
        // Lines dropped after the last one kept.
        if dropped > log.gaps_marked {
            log.push_gap(LogSide::ToClient, last_at_ms, dropped - log.gaps_marked);
        }
        log.flush(&mut report);
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
    if let Some(spans) = spans {
        spans.end(events.relay_age());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        history::{CallKind, CallQuery, Verdict},
        proxy::Traffic,
    };

    fn line(side: TrafficSide, text: &str) -> (TrafficSide, Vec<u8>) {
        (side, format!("{text}\n").into_bytes())
    }

    #[test]
    fn calls_reads_and_prompts_are_kept_with_their_client_and_verdict() {
        use TrafficSide::{ToClient, ToServer};
        let (sender, receiver) = Traffic::bounded(usize::MAX);
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
        for (side, bytes) in traffic {
            sender.offer(side, &bytes);
        }
        drop(sender);
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("history.sqlite3");
        let store = crate::history::open_file(&path).map_err(NoHistory::from);
        let report = record(&receiver, store, "srv", Transport::Pipe);
        assert_eq!(report.kept, 2);
        assert_eq!(report.malformed, 1);
        assert_eq!(report.client.as_deref(), Some("claude-ai 0.1"));
        assert!(report.problem.is_none(), "{:?}", report.problem);
        let kept = crate::history::open_file(&path)
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
        let history = crate::history::open_file(&path).unwrap();
        let sessions = history.proxy_sessions(10).unwrap();
        assert_eq!(sessions.len(), 1);
        let session = &sessions[0];
        assert_eq!(Some(session.id), report.session);
        assert_eq!(session.client.as_deref(), Some("claude-ai 0.1"));
        assert_eq!(session.server, "srv");
        // The server's own name from the handshake, beside the proxy's label for it.
        assert_eq!(session.server_name.as_deref(), Some("s"));
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
    fn the_session_ends_with_the_servers_exit_its_stderr_tail_and_what_was_not_kept() {
        // Room for one line: the two after it, offered before the recorder reads, are dropped.
        let (traffic, receiver) = Traffic::bounded(4);
        traffic.offer(TrafficSide::ServerStderr, b"Traceback: boom\n");
        traffic.offer(TrafficSide::ToClient, b"{}\n");
        traffic.offer(TrafficSide::ToClient, b"{}\n");
        traffic.ended(&RelayEnd {
            client_left: false,
            server_exit: Some("exit status: 3".to_owned()),
            server_code: Some(3),
        });
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("history.sqlite3");
        let store = crate::history::open_file(&path).map_err(NoHistory::from);
        record(&receiver, store, "srv", Transport::Pipe);
        let history = crate::history::open_file(&path).unwrap();
        let session = &history.proxy_sessions(1).unwrap()[0];
        assert_eq!(
            session.ending.as_deref(),
            Some("the server ended first (exit status: 3)")
        );
        assert_eq!(session.stderr_tail.as_deref(), Some("Traceback: boom"));
        assert_eq!(session.log_dropped, 2);
        let log = history.proxy_log(session.id, 0, 10).unwrap();
        assert_eq!(log.len(), 2, "the stderr line, and where the others went");
        assert_eq!(
            log[1].flag.as_deref(),
            Some("2 line(s) passed here but were not kept (the recorder fell behind)")
        );
    }

    #[test]
    fn a_flood_of_notifications_is_kept_whole_and_a_line_not_utf8_is_flagged() {
        let (traffic, receiver) = Traffic::bounded(usize::MAX);
        traffic.offer(
            TrafficSide::ToServer,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chatty"}}"#,
        );
        for n in 0..10_000 {
            let note = format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"line {n}\"}}}}\n"
            );
            traffic.offer(TrafficSide::ToClient, note.as_bytes());
        }
        traffic.offer(
            TrafficSide::ToClient,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"caf\xe9\"}]}}\n",
        );
        drop(traffic);
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("history.sqlite3");
        let store = crate::history::open_file(&path).map_err(NoHistory::from);
        let report = record(&receiver, store, "srv", Transport::Pipe);
        assert_eq!(report.malformed, 1, "the answer is not UTF-8");
        let history = crate::history::open_file(&path).unwrap();
        let session = &history.proxy_sessions(1).unwrap()[0];
        assert_eq!(session.log_lines, 10_002, "every line kept");
        let log = history.proxy_log(session.id, 0, 20_000).unwrap();
        let answer = log.last().unwrap();
        assert_eq!(
            log[5].text,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"line 4"}}"#,
            "in order, as relayed"
        );
        assert!(answer.text.contains("caf\u{FFFD}"), "{}", answer.text);
        assert_eq!(answer.flag.as_deref(), Some(NOT_UTF8));
        assert_eq!(
            history.list(&CallQuery::default()).unwrap().len(),
            0,
            "an answer that is not UTF-8 makes no row: its line says why"
        );
    }
}
