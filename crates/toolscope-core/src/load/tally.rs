//! What the callers count while a run goes on: each call's end by kind, the time of each
//! answered one, the server's memory as sampled. Progress is read from it at any time; the
//! figures are made from it once, at the end.

use std::{
    sync::{Mutex, PoisonError},
    time::{Duration, Instant},
};

use serde::Serialize;

use super::server_memory::MemorySample;
use crate::{
    engine::{AnsweredCall, MadeCall},
    history::Verdict,
    session::SessionError,
};

/// How a load call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// No answer: the connection broke, the server exited, the transport failed.
    Transport,
    /// A JSON-RPC error instead of a result.
    Protocol,
    /// A result with `isError: true`.
    ToolError,
    /// No answer within the timeout.
    Timeout,
    /// structuredContent breaks the tool's output schema.
    Contract,
}

impl FailureKind {
    pub const ALL: [FailureKind; 5] = [
        FailureKind::Transport,
        FailureKind::Protocol,
        FailureKind::ToolError,
        FailureKind::Timeout,
        FailureKind::Contract,
    ];

    /// The kind of a call's verdict: `None` for a good result and for a call the stop
    /// cancelled (neither is a failure of the server).
    pub fn of(verdict: Verdict) -> Option<Self> {
        match verdict {
            Verdict::Ok | Verdict::Cancelled => None,
            Verdict::ToolError => Some(FailureKind::ToolError),
            Verdict::ProtocolError => Some(FailureKind::Protocol),
            Verdict::ContractViolated => Some(FailureKind::Contract),
            Verdict::Timeout => Some(FailureKind::Timeout),
            Verdict::Failed => Some(FailureKind::Transport),
        }
    }

    /// `tool error (isError)`, as the figures say it.
    pub fn words(self) -> &'static str {
        match self {
            FailureKind::Transport => "transport",
            FailureKind::Protocol => "protocol error (JSON-RPC)",
            FailureKind::ToolError => "tool error (isError)",
            FailureKind::Timeout => "timeout",
            FailureKind::Contract => "broken output contract",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// How far a run has come, cheap to read while it goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadProgress {
    /// Calls that ended (answered or failed; not those the stop cancelled).
    pub done: u64,
    pub failed: u64,
    /// Since the first call was sent (zero while the sessions connect).
    pub elapsed: Duration,
}

/// The callers' shared count.
#[derive(Debug, Default)]
pub struct LoadTally {
    counts: Mutex<Counts>,
}

#[derive(Debug, Default)]
pub(super) struct Counts {
    pub started: Option<Instant>,
    pub ended: Option<Instant>,
    pub claimed: u64,
    pub ok: u64,
    pub failures: [u64; 5],
    /// The first message of each kind of failure, as it was said.
    pub examples: [Option<String>; 5],
    /// Calls the stop cancelled.
    pub stopped: u64,
    /// Callers that ended early because their session's connection closed.
    pub lost_sessions: u64,
    /// Microseconds from sending to the answer, of every answered call.
    pub latencies_us: Vec<u64>,
    pub memory: MemorySample,
    pub memory_samples: u64,
}

impl Counts {
    fn done(&self) -> u64 {
        self.ok + self.failures.iter().sum::<u64>()
    }
}

impl LoadTally {
    pub fn new() -> Self {
        Self::default()
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The calls start now.
    pub(super) fn begin(&self) {
        self.counts().started = Some(Instant::now());
    }

    /// The calls are over.
    pub(super) fn end(&self) {
        self.counts().ended = Some(Instant::now());
    }

    /// Claims the next call: `false` once `limit` calls were claimed.
    pub(super) fn claim(&self, limit: Option<u64>) -> bool {
        let mut counts = self.counts();
        if limit.is_some_and(|limit| counts.claimed >= limit) {
            return false;
        }
        counts.claimed += 1;
        true
    }

    /// Counts a call that ended; `true` when its session's connection is gone (its caller
    /// stops: every further call on it would fail at once).
    pub(super) fn record(&self, made: &MadeCall) -> bool {
        let verdict = made.verdict();
        let waited_us = u64::try_from(made.waited.as_micros()).unwrap_or(u64::MAX);
        let mut counts = self.counts();
        if let Ok(answered) = &made.ended {
            counts.latencies_us.push(waited_us);
            if let Some(kind) = FailureKind::of(verdict) {
                count_failure(&mut counts, kind, || answered_problem(answered, kind));
            } else {
                counts.ok += 1;
            }
            return false;
        }
        let Err(error) = &made.ended else {
            return false;
        };
        match FailureKind::of(verdict) {
            Some(kind) => count_failure(&mut counts, kind, || error.to_string()),
            None => counts.stopped += 1,
        }
        let lost = matches!(error, SessionError::ConnectionClosed { .. });
        if lost {
            counts.lost_sessions += 1;
        }
        lost
    }

    /// Keeps the larger of what was sampled and what this sample says.
    pub(super) fn note_memory(&self, sample: MemorySample) {
        let mut counts = self.counts();
        counts.memory_samples += 1;
        let kept = &mut counts.memory;
        kept.total_bytes = kept.total_bytes.max(sample.total_bytes);
        kept.largest_bytes = kept.largest_bytes.max(sample.largest_bytes);
        kept.processes = kept.processes.max(sample.processes);
    }

    pub fn progress(&self) -> LoadProgress {
        let counts = self.counts();
        LoadProgress {
            done: counts.done(),
            failed: counts.failures.iter().sum(),
            elapsed: counts.started.map_or(Duration::ZERO, |started| {
                counts.ended.unwrap_or_else(Instant::now) - started
            }),
        }
    }

    /// What was counted, taken out for the figures (the tally is empty afterwards).
    pub(super) fn take(&self) -> Counts {
        std::mem::take(&mut *self.counts())
    }
}

fn count_failure(counts: &mut Counts, kind: FailureKind, message: impl FnOnce() -> String) {
    counts.failures[kind.index()] += 1;
    let example = &mut counts.examples[kind.index()];
    if example.is_none() {
        *example = Some(message());
    }
}

/// What a failed answer said, in the analysis's words.
fn answered_problem(answered: &AnsweredCall, kind: FailureKind) -> String {
    let analysis = &answered.analysis;
    match kind {
        FailureKind::Contract => analysis.contract.describe(),
        _ => analysis.error_kind.describe(),
    }
}
