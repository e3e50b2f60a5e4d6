//! How long each tool (resource, prompt) took, from the history: its calls' median, 95th
//! percentile and slowest duration, for the tool's view and the history grouped by tool.

use serde::Serialize;

use super::CallKind;

/// One tool's figures over the calls that have a duration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolLatency {
    pub server: String,
    pub kind: CallKind,
    /// The tool's name (a read's URI, a prompt's name).
    pub tool: String,
    /// Calls with a duration (not those the person cancelled: their wait is not the server's).
    pub calls: u64,
    /// Calls whose verdict is not `ok`.
    pub not_ok: u64,
    pub p50_ms: u64,
    pub p95_ms: u64,
    pub max_ms: u64,
}

impl ToolLatency {
    /// `p50 12 ms · p95 40 ms · slowest 120 ms over 34 calls`.
    pub fn describe(&self) -> String {
        format!(
            "p50 {} ms · p95 {} ms · slowest {} ms over {} call{}",
            self.p50_ms,
            self.p95_ms,
            self.max_ms,
            self.calls,
            if self.calls == 1 { "" } else { "s" }
        )
    }
}

/// The value below which `share` of the sorted `durations` fall (nearest rank).
pub fn percentile(sorted: &[u64], share: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (share * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// One call as the figures read it.
pub(super) struct TimedCall {
    pub server: String,
    pub kind: String,
    pub tool: String,
    pub duration_ms: Option<u64>,
    pub verdict: String,
}

/// Each tool's figures (per server and kind) over `calls`, the most called first.
pub(super) fn by_tool(calls: impl IntoIterator<Item = TimedCall>) -> Vec<ToolLatency> {
    let mut groups: std::collections::BTreeMap<(String, String, String), (Vec<u64>, u64)> =
        std::collections::BTreeMap::new();
    for call in calls {
        // How long a person waited before cancelling says nothing of the server.
        if call.verdict == super::Verdict::Cancelled.as_str() {
            continue;
        }
        let group = groups
            .entry((call.server, call.kind, call.tool))
            .or_default();
        if let Some(duration) = call.duration_ms {
            group.0.push(duration);
        }
        if call.verdict != super::Verdict::Ok.as_str() {
            group.1 += 1;
        }
    }
    let mut figures: Vec<ToolLatency> = groups
        .into_iter()
        .filter(|(_, (durations, _))| !durations.is_empty())
        .map(|((server, kind, tool), (durations, not_ok))| {
            let kind = CallKind::parse(&kind).unwrap_or_default();
            figures((server, kind, tool), durations, not_ok)
        })
        .collect();
    figures.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.tool.cmp(&b.tool)));
    figures
}

/// The figures of one tool's durations (sorted here).
pub(super) fn figures(
    (server, kind, tool): (String, CallKind, String),
    mut durations: Vec<u64>,
    not_ok: u64,
) -> ToolLatency {
    durations.sort_unstable();
    ToolLatency {
        server,
        kind,
        tool,
        calls: durations.len() as u64,
        not_ok,
        p50_ms: percentile(&durations, 0.5),
        p95_ms: percentile(&durations, 0.95),
        max_ms: durations.last().copied().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_take_the_nearest_rank() {
        let durations: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&durations, 0.5), 50);
        assert_eq!(percentile(&durations, 0.95), 95);
        assert_eq!(percentile(&[7], 0.95), 7);
        assert_eq!(percentile(&[], 0.5), 0);
        let one = figures(
            ("s".into(), CallKind::Call, "t".into()),
            vec![30, 10, 20],
            1,
        );
        assert_eq!(
            (one.p50_ms, one.p95_ms, one.max_ms, one.calls),
            (20, 30, 30, 3)
        );
        assert_eq!(
            one.describe(),
            "p50 20 ms · p95 30 ms · slowest 30 ms over 3 calls"
        );
    }
}
