//! A run's figures, made once from what the callers counted: calls per second, latency
//! percentiles (the history's nearest-rank [`percentile`]) and a histogram, errors by kind,
//! the server's memory.

use serde::Serialize;

use super::{
    server_memory::MemorySample,
    tally::{Counts, FailureKind},
};
use crate::history::percentile;

/// How many bars the latency histogram has.
pub const HISTOGRAM_BARS: usize = 24;

/// What a run did.
#[derive(Debug, Clone, Serialize)]
pub struct LoadFigures {
    pub tool: String,
    pub concurrency: usize,
    pub sessions: usize,
    pub shared: bool,
    /// The bound asked for: calls, and seconds.
    pub planned_calls: Option<u64>,
    pub planned_seconds: Option<f64>,
    /// Calls that ended, answered or failed (not those the stop cancelled).
    pub calls: u64,
    pub ok: u64,
    pub errors: ErrorCounts,
    /// The first message of each kind of error.
    pub error_examples: Vec<ErrorExample>,
    /// Calls under way when the run was stopped, cancelled (not counted as errors).
    pub stopped: u64,
    /// The run was stopped (Ctrl+C, Stop) before its bound.
    pub interrupted: bool,
    /// Callers that ended early because their session's connection closed.
    pub lost_sessions: u64,
    /// What the person should be told about how the calls were sent, a sentence each.
    pub notes: Vec<String>,
    /// Connecting every session (handshakes and tool lists), before the first call.
    pub connect_seconds: f64,
    /// From the first call sent to the last one ended.
    pub seconds: f64,
    pub calls_per_second: f64,
    /// Over the answered calls; `None` when none was answered.
    pub latency: Option<LatencyFigures>,
    pub histogram: Vec<HistogramBar>,
    pub server_memory: ServerMemory,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ErrorCounts {
    pub transport: u64,
    pub protocol: u64,
    pub tool_error: u64,
    pub timeout: u64,
    pub contract: u64,
}

impl ErrorCounts {
    pub fn total(&self) -> u64 {
        self.transport + self.protocol + self.tool_error + self.timeout + self.contract
    }

    /// Each kind with its count, in [`FailureKind::ALL`]'s order.
    pub fn by_kind(&self) -> [(FailureKind, u64); 5] {
        [
            (FailureKind::Transport, self.transport),
            (FailureKind::Protocol, self.protocol),
            (FailureKind::ToolError, self.tool_error),
            (FailureKind::Timeout, self.timeout),
            (FailureKind::Contract, self.contract),
        ]
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ErrorExample {
    pub kind: FailureKind,
    pub message: String,
}

/// Milliseconds, over the answered calls.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LatencyFigures {
    pub answered: u64,
    pub min_ms: f64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// One bar: the calls that took from `from_ms` up to `to_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HistogramBar {
    pub from_ms: f64,
    pub to_ms: f64,
    pub calls: u64,
}

/// The resident memory of the server's processes, when it is known. In JSON: `known`, then
/// the figures or `why`.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerMemory {
    Sampled {
        /// The most all the server's processes held at once (the largest sample).
        peak_total_bytes: u64,
        /// The most one session's server held.
        peak_largest_bytes: u64,
        processes: usize,
        samples: u64,
    },
    NotKnown {
        why: String,
    },
}

impl Serialize for ServerMemory {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        match self {
            ServerMemory::Sampled {
                peak_total_bytes,
                peak_largest_bytes,
                processes,
                samples,
            } => {
                map.serialize_entry("known", &true)?;
                map.serialize_entry("peak_total_bytes", peak_total_bytes)?;
                map.serialize_entry("peak_largest_bytes", peak_largest_bytes)?;
                map.serialize_entry("processes", processes)?;
                map.serialize_entry("samples", samples)?;
            }
            ServerMemory::NotKnown { why } => {
                map.serialize_entry("known", &false)?;
                map.serialize_entry("why", why)?;
            }
        }
        map.end()
    }
}

impl ServerMemory {
    /// `peak 41.2 MB over 8 processes (the largest 5.3 MB)`, or why it is not known.
    pub fn describe(&self) -> String {
        match self {
            ServerMemory::Sampled {
                peak_total_bytes,
                peak_largest_bytes,
                processes: 1,
                ..
            } => format!(
                "peak {} resident (one process)",
                megabytes(*peak_total_bytes.max(peak_largest_bytes))
            ),
            ServerMemory::Sampled {
                peak_total_bytes,
                peak_largest_bytes,
                processes,
                ..
            } => format!(
                "peak {} resident over {processes} processes (the largest {})",
                megabytes(*peak_total_bytes),
                megabytes(*peak_largest_bytes)
            ),
            ServerMemory::NotKnown { why } => format!("not known: {why}"),
        }
    }
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

/// How a run was set up, for its figures.
#[derive(Debug, Clone)]
pub(super) struct RunShape {
    pub tool: String,
    pub concurrency: usize,
    pub sessions: usize,
    pub shared: bool,
    pub planned_calls: Option<u64>,
    pub planned_seconds: Option<f64>,
    pub interrupted: bool,
    pub notes: Vec<String>,
    pub connect_seconds: f64,
    /// Why memory is not read, when it is not.
    pub memory_not_known: Option<&'static str>,
}

impl LoadFigures {
    pub(super) fn new(shape: RunShape, mut counts: Counts) -> Self {
        let seconds = match (counts.started, counts.ended) {
            (Some(started), Some(ended)) => (ended - started).as_secs_f64(),
            _ => 0.0,
        };
        counts.latencies_us.sort_unstable();
        let errors = error_counts(&counts.failures);
        let calls = counts.ok + errors.total();
        let error_examples = FailureKind::ALL
            .into_iter()
            .zip(std::mem::take(&mut counts.examples))
            .filter_map(|(kind, message)| message.map(|message| ErrorExample { kind, message }))
            .collect();
        LoadFigures {
            tool: shape.tool,
            concurrency: shape.concurrency,
            sessions: shape.sessions,
            shared: shape.shared,
            planned_calls: shape.planned_calls,
            planned_seconds: shape.planned_seconds,
            calls,
            ok: counts.ok,
            errors,
            error_examples,
            stopped: counts.stopped,
            interrupted: shape.interrupted,
            lost_sessions: counts.lost_sessions,
            notes: shape.notes,
            connect_seconds: shape.connect_seconds,
            seconds,
            calls_per_second: if seconds > 0.0 {
                calls as f64 / seconds
            } else {
                0.0
            },
            latency: latency(&counts.latencies_us),
            histogram: histogram(&counts.latencies_us, HISTOGRAM_BARS),
            server_memory: server_memory(
                shape.memory_not_known,
                counts.memory,
                counts.memory_samples,
            ),
        }
    }
}

impl LoadFigures {
    /// Each kind of error that happened, in words with its count and its first message
    /// (`tool error 3 (first: …)`): what the command line and the window say.
    pub fn errors_in_words(&self) -> Vec<String> {
        self.errors
            .by_kind()
            .into_iter()
            .filter(|(_, count)| *count > 0)
            .map(|(kind, count)| {
                let first = self
                    .error_examples
                    .iter()
                    .find(|example| example.kind == kind)
                    .map(|example| {
                        format!(
                            " (first: {})",
                            crate::text_util::one_line(&example.message, 300)
                        )
                    })
                    .unwrap_or_default();
                format!("{} {count}{first}", kind.words())
            })
            .collect()
    }
}

fn error_counts(failures: &[u64; 5]) -> ErrorCounts {
    let of = |kind: FailureKind| failures[kind as usize];
    ErrorCounts {
        transport: of(FailureKind::Transport),
        protocol: of(FailureKind::Protocol),
        tool_error: of(FailureKind::ToolError),
        timeout: of(FailureKind::Timeout),
        contract: of(FailureKind::Contract),
    }
}

fn ms(microseconds: u64) -> f64 {
    microseconds as f64 / 1000.0
}

/// The percentiles of `sorted` (microseconds).
fn latency(sorted: &[u64]) -> Option<LatencyFigures> {
    let (&min, &max) = (sorted.first()?, sorted.last()?);
    let sum: u128 = sorted.iter().map(|&us| u128::from(us)).sum();
    Some(LatencyFigures {
        answered: sorted.len() as u64,
        min_ms: ms(min),
        mean_ms: sum as f64 / sorted.len() as f64 / 1000.0,
        p50_ms: ms(percentile(sorted, 0.50)),
        p95_ms: ms(percentile(sorted, 0.95)),
        p99_ms: ms(percentile(sorted, 0.99)),
        max_ms: ms(max),
    })
}

/// `bars` bars from the fastest to the slowest call on a logarithmic scale (latencies spread
/// over orders of magnitude: a linear one would put nearly every call in its first bar).
pub fn histogram(sorted: &[u64], bars: usize) -> Vec<HistogramBar> {
    let (Some(&min), Some(&max)) = (sorted.first(), sorted.last()) else {
        return Vec::new();
    };
    if bars == 0 {
        return Vec::new();
    }
    // Microseconds, at least 1 so the logarithm is defined.
    let (low, high) = ((min.max(1)) as f64, (max.max(1)) as f64);
    if high <= low {
        return vec![HistogramBar {
            from_ms: ms(min),
            to_ms: ms(max),
            calls: sorted.len() as u64,
        }];
    }
    let ratio = (high / low).powf(1.0 / bars as f64);
    let edge = |index: usize| low * ratio.powi(index as i32);
    let mut histogram: Vec<HistogramBar> = (0..bars)
        .map(|index| HistogramBar {
            from_ms: edge(index) / 1000.0,
            to_ms: edge(index + 1) / 1000.0,
            calls: 0,
        })
        .collect();
    for &us in sorted {
        let position = ((us.max(1) as f64 / low).ln() / ratio.ln()).floor();
        let index = (position.max(0.0) as usize).min(bars - 1);
        histogram[index].calls += 1;
    }
    histogram
}

fn server_memory(not_known: Option<&str>, peak: MemorySample, samples: u64) -> ServerMemory {
    if let Some(why) = not_known {
        return ServerMemory::NotKnown {
            why: why.to_owned(),
        };
    }
    if samples == 0 || peak.processes == 0 {
        return ServerMemory::NotKnown {
            why: "the server's processes ended before they could be read".to_owned(),
        };
    }
    ServerMemory::Sampled {
        peak_total_bytes: peak.total_bytes,
        peak_largest_bytes: peak.largest_bytes,
        processes: peak.processes,
        samples,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_histogram_holds_every_call_from_the_fastest_to_the_slowest() {
        let sorted: Vec<u64> = (1..=1000).map(|n| n * 10).collect();
        let bars = histogram(&sorted, 10);
        assert_eq!(bars.len(), 10);
        assert_eq!(bars.iter().map(|bar| bar.calls).sum::<u64>(), 1000);
        assert!((bars[0].from_ms - 0.01).abs() < 1e-9);
        assert!((bars[9].to_ms - 10.0).abs() < 1e-6, "{:?}", bars[9]);
        // A logarithmic scale: the slowest decade holds most calls of a uniform spread.
        assert!(bars[9].calls > bars[0].calls);
        let same = histogram(&[500, 500, 500], 10);
        assert_eq!(same.len(), 1);
        assert_eq!(same[0].calls, 3);
        assert!(histogram(&[], 10).is_empty());
    }

    #[test]
    fn latency_uses_the_nearest_rank() {
        let sorted: Vec<u64> = (1..=100).map(|n| n * 1000).collect();
        let figures = latency(&sorted).unwrap();
        assert_eq!(figures.answered, 100);
        assert_eq!(
            (
                figures.p50_ms,
                figures.p95_ms,
                figures.p99_ms,
                figures.max_ms
            ),
            (50.0, 95.0, 99.0, 100.0)
        );
        assert!((figures.mean_ms - 50.5).abs() < 1e-9);
        assert!(latency(&[]).is_none());
    }

    #[test]
    fn memory_is_said_with_its_processes_or_why_not() {
        let sampled = server_memory(
            None,
            MemorySample {
                total_bytes: 80_000_000,
                largest_bytes: 10_000_000,
                processes: 8,
            },
            4,
        );
        assert_eq!(
            sampled.describe(),
            "peak 80.0 MB resident over 8 processes (the largest 10.0 MB)"
        );
        let http = server_memory(
            Some("the server is not a process Toolscope started"),
            MemorySample::default(),
            0,
        );
        assert_eq!(
            http.describe(),
            "not known: the server is not a process Toolscope started"
        );
        let json = serde_json::to_value(&sampled).unwrap();
        assert_eq!(json["known"], true);
        assert_eq!(json["processes"], 8);
        assert_eq!(serde_json::to_value(&http).unwrap()["known"], false);
    }
}
