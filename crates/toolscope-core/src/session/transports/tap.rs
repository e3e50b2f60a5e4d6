//! The protocol tap: every JSON-RPC message in both directions, in causal order, as it crossed
//! the wire, plus the server's stderr. Both logs are bounded so a flood cannot eat memory; what
//! was dropped is counted and shown.

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex, MutexGuard},
    time::{Duration, Instant},
};

use serde::Serialize;
use serde_json::Value;

use crate::json_doc::JsonRef;
use crate::text_util::cut_at_char_boundary;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    ToServer,
    FromServer,
    /// Toolscope's own note in the log (a step of a sign-in that is not an HTTP exchange).
    Local,
}

/// How faithful the logged text is to the bytes on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fidelity {
    /// The exact line or event data the peer sent.
    Exact,
    /// rmcp's re-serialization of what it parsed: fields rmcp does not model are missing.
    Reserialized,
}

/// How the auth timeline's entries are labelled (a log filter finds them by it).
pub const AUTH_LABEL: &str = "OAuth · ";

/// One logged message.
#[derive(Debug, Clone, Serialize)]
pub struct TapEntry {
    pub seq: u64,
    /// Time since the session started.
    pub at: Duration,
    pub direction: Direction,
    pub fidelity: Fidelity,
    /// A one-line label such as `tools/call #3`, `result #3` or `non-JSON line`.
    pub label: String,
    /// The message text, cut to [`TapLimits::max_entry_bytes`].
    pub text: Arc<str>,
    /// The full size of the message before any cut.
    pub bytes: usize,
    pub is_json: bool,
    /// Something to flag on this entry, such as a duplicate response that was ignored.
    pub note: Option<String>,
}

/// One line the server wrote to stderr.
#[derive(Debug, Clone, Serialize)]
pub struct StderrLine {
    pub at: Duration,
    pub text: String,
}

/// The bounds of the logs.
#[derive(Debug, Clone, Copy)]
pub struct TapLimits {
    pub max_entries: usize,
    pub max_bytes: usize,
    pub max_entry_bytes: usize,
    pub max_stderr_lines: usize,
}

impl Default for TapLimits {
    fn default() -> Self {
        Self {
            max_entries: 20_000,
            max_bytes: 32 * 1024 * 1024,
            max_entry_bytes: 256 * 1024,
            max_stderr_lines: 5_000,
        }
    }
}

/// A bounded log with a count of what fell off its front.
#[derive(Debug)]
pub struct Bounded<T> {
    pub items: VecDeque<T>,
    pub dropped: u64,
    pub dropped_bytes: u64,
    sizes: VecDeque<usize>,
    bytes: usize,
}

impl<T> Default for Bounded<T> {
    fn default() -> Self {
        Self {
            items: VecDeque::new(),
            dropped: 0,
            dropped_bytes: 0,
            sizes: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl<T> Bounded<T> {
    fn push(&mut self, item: T, size: usize, max_items: usize, max_bytes: usize) {
        self.items.push_back(item);
        self.sizes.push_back(size);
        self.bytes += size;
        while self.items.len() > max_items || (self.bytes > max_bytes && self.items.len() > 1) {
            self.items.pop_front();
            let evicted = self.sizes.pop_front().unwrap_or(0);
            self.bytes -= evicted;
            self.dropped += 1;
            self.dropped_bytes += evicted as u64;
        }
    }
}

#[derive(Debug, Default)]
pub struct TapLogs {
    pub messages: Bounded<TapEntry>,
    pub stderr: Bounded<StderrLine>,
    next_seq: u64,
    /// Bumped on every change, so a viewer can tell when to re-filter.
    pub generation: u64,
    /// The `Mcp-Session-Id` an HTTP server gave the session, once it was sent back.
    pub mcp_session_id: Option<Arc<str>>,
}

type Waker = Arc<dyn Fn() + Send + Sync>;

/// Shared, cheaply cloneable handle to a session's logs.
#[derive(Clone)]
pub struct ProtocolTap {
    logs: Arc<Mutex<TapLogs>>,
    started: Instant,
    limits: TapLimits,
    waker: Option<Waker>,
}

impl std::fmt::Debug for ProtocolTap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProtocolTap")
            .field("limits", &self.limits)
            .finish()
    }
}

impl ProtocolTap {
    pub fn new(limits: TapLimits, waker: Option<Waker>) -> Self {
        Self {
            logs: Arc::default(),
            started: Instant::now(),
            limits,
            waker,
        }
    }

    /// Whether both handles are the same session's tap.
    pub fn same_as(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.logs, &other.logs)
    }

    /// Keeps the `Mcp-Session-Id` a request is sent with (the first one seen).
    pub fn note_session_id(&self, id: Option<&Arc<str>>) {
        if let Some(id) = id {
            self.logs().mcp_session_id.get_or_insert_with(|| id.clone());
        }
    }

    /// The `Mcp-Session-Id` of an HTTP session, once known.
    pub fn session_id(&self) -> Option<Arc<str>> {
        self.logs().mcp_session_id.clone()
    }

    /// Locks the logs for reading. Hold the guard briefly: the session writes through it.
    pub fn logs(&self) -> MutexGuard<'_, TapLogs> {
        // A panic while holding the lock leaves plain data behind: keep using it.
        self.logs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records one message. `parsed` is its JSON, when it parsed.
    pub fn record_message(
        &self,
        direction: Direction,
        fidelity: Fidelity,
        text: &str,
        parsed: Option<JsonRef<'_>>,
    ) {
        let label = parsed.map_or_else(|| "non-JSON line".to_owned(), message_label);
        self.record_labelled(direction, fidelity, text, label, parsed.is_some(), None);
    }

    /// Records one message whose label is already known (its JSON may have been handed on),
    /// with an optional note shown on the entry.
    pub fn record_labelled(
        &self,
        direction: Direction,
        fidelity: Fidelity,
        text: &str,
        label: String,
        is_json: bool,
        note: Option<String>,
    ) {
        let bytes = text.len();
        let kept = cut_at_char_boundary(text, self.limits.max_entry_bytes);
        {
            let mut logs = self.logs();
            let seq = logs.next_seq;
            logs.next_seq += 1;
            logs.generation += 1;
            let entry = TapEntry {
                seq,
                at: self.started.elapsed(),
                direction,
                fidelity,
                label,
                text: Arc::from(kept),
                bytes,
                is_json,
                note,
            };
            let limits = self.limits;
            logs.messages
                .push(entry, kept.len(), limits.max_entries, limits.max_bytes);
        }
        self.wake();
    }

    /// Records one step of a sign-in (the auth timeline): its HTTP requests go to the
    /// authorization server, its answers come back, its notes are Toolscope's own.
    pub fn record_auth_step(&self, step: &crate::auth::AuthStep) {
        use crate::auth::StepKind;
        let direction = match step.kind {
            StepKind::Request => Direction::ToServer,
            StepKind::Response | StepKind::RefusedResponse => Direction::FromServer,
            StepKind::Note | StepKind::Failure => Direction::Local,
        };
        let note = match step.kind {
            StepKind::RefusedResponse => Some("refused".to_owned()),
            StepKind::Failure => Some("the sign-in stopped here".to_owned()),
            _ => None,
        };
        self.record_labelled(
            direction,
            Fidelity::Exact,
            &step.detail,
            format!("{AUTH_LABEL}{}", step.title),
            false,
            note,
        );
    }

    pub fn record_stderr(&self, line: &str) {
        let kept = cut_at_char_boundary(line, self.limits.max_entry_bytes);
        {
            let mut logs = self.logs();
            logs.generation += 1;
            let limits = self.limits;
            logs.stderr.push(
                StderrLine {
                    at: self.started.elapsed(),
                    text: kept.to_owned(),
                },
                kept.len(),
                limits.max_stderr_lines,
                usize::MAX,
            );
        }
        self.wake();
    }

    /// The last `count` stderr lines, oldest first.
    pub fn stderr_tail(&self, count: usize) -> Vec<String> {
        let logs = self.logs();
        let skip = logs.stderr.items.len().saturating_sub(count);
        logs.stderr
            .items
            .iter()
            .skip(skip)
            .map(|line| line.text.clone())
            .collect()
    }

    /// A copy of every kept message, oldest first.
    pub fn messages(&self) -> Vec<TapEntry> {
        self.logs().messages.items.iter().cloned().collect()
    }

    fn wake(&self) {
        if let Some(waker) = &self.waker {
            waker();
        }
    }
}

/// `tools/call #3`, `result #3`, `error #3`, `notifications/progress`.
pub fn message_label(message: JsonRef<'_>) -> String {
    let id = message.get("id").map(|id| format!(" #{}", id_text_of(id)));
    let id = id.unwrap_or_default();
    if let Some(method) = message.get("method").and_then(JsonRef::as_str) {
        format!("{method}{id}")
    } else if message.get("error").is_some() {
        format!("error{id}")
    } else if message.get("result").is_some() {
        format!("result{id}")
    } else if message.is_array() {
        "batch".to_owned()
    } else {
        "unrecognised JSON".to_owned()
    }
}

/// A JSON-RPC id as text without quotes, so `3` and `"3"` read alike in labels.
pub fn id_text(id: &Value) -> String {
    match id {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// [`id_text`] of an id in a received message (a number as the server wrote it).
pub fn id_text_of(id: JsonRef<'_>) -> String {
    match id.as_str() {
        Some(text) => text.into_owned(),
        None => id.raw().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn label_of(message: &Value) -> String {
        message_label(crate::json_doc::JsonDoc::from_value(message).root())
    }

    fn tap(limits: TapLimits) -> ProtocolTap {
        ProtocolTap::new(limits, None)
    }

    #[test]
    fn labels_name_method_and_id() {
        assert_eq!(
            label_of(&json!({"id": 3, "method": "tools/call"})),
            "tools/call #3"
        );
        assert_eq!(label_of(&json!({"id": "a", "result": {}})), "result #a");
        assert_eq!(label_of(&json!({"id": 1, "error": {}})), "error #1");
        assert_eq!(
            label_of(&json!({"method": "notifications/progress"})),
            "notifications/progress"
        );
    }

    #[test]
    fn flood_is_bounded_and_counted() {
        let tap = tap(TapLimits {
            max_entries: 10,
            max_stderr_lines: 5,
            ..TapLimits::default()
        });
        for n in 0..100 {
            tap.record_message(
                Direction::FromServer,
                Fidelity::Exact,
                &format!("line {n}"),
                None,
            );
            tap.record_stderr(&format!("err {n}"));
        }
        let logs = tap.logs();
        assert_eq!(logs.messages.items.len(), 10);
        assert_eq!(logs.messages.dropped, 90);
        assert_eq!(
            logs.messages.items.front().unwrap().text.as_ref(),
            "line 90"
        );
        assert_eq!(logs.stderr.items.len(), 5);
        assert_eq!(logs.stderr.dropped, 95);
        drop(logs);
        assert_eq!(tap.stderr_tail(2), vec!["err 98", "err 99"]);
    }

    #[test]
    fn huge_message_is_cut_but_its_size_kept() {
        let tap = tap(TapLimits {
            max_entry_bytes: 8,
            ..TapLimits::default()
        });
        tap.record_message(Direction::ToServer, Fidelity::Exact, "ééééééééé", None);
        let entry = &tap.messages()[0];
        assert_eq!(entry.text.as_ref(), "éééé");
        assert_eq!(entry.bytes, 18);
    }

    #[test]
    fn byte_budget_evicts_oldest() {
        let tap = tap(TapLimits {
            max_bytes: 100,
            ..TapLimits::default()
        });
        for _ in 0..20 {
            tap.record_message(
                Direction::FromServer,
                Fidelity::Exact,
                &"x".repeat(30),
                None,
            );
        }
        let logs = tap.logs();
        assert!(logs.messages.items.len() <= 4);
        assert!(logs.messages.dropped >= 16);
    }
}
