//! Timing of the compare layer on two ~1,000,000-node results (plain `Instant`, no harness):
//! the structural diff of their structuredContent against the floor of parsing both texts, and
//! the line diff of their texts pretty-printed (about 1,000,000 lines each).
//!
//! Run with `cargo bench --bench compare`. Prints numbers only; nothing is asserted.
//! `COMPARE_NODES` changes the size (default 1,000,000).

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use toolscope_core::compare::{LineDiff, StructuralDiff};
use toolscope_core::json_doc::JsonDoc;

const RUNS: usize = 3;

/// How the new text differs from the old one.
#[derive(Clone, Copy)]
enum Edit {
    /// The same text.
    None,
    /// Six values changed, spread over the document.
    Handful,
    /// Every 10th item's score changed and every 100th item one more tag.
    Many,
    /// One item inserted at the front of the list (every later item moves by one).
    InsertedAtFront,
    /// The same value with spaces after `,` and `:` (no subtree is byte-identical).
    Reformatted,
}

/// The demo server's `large_result` shape (8 nodes an item), written directly as text.
fn large_text(nodes: usize, edit: Edit) -> String {
    let count = (nodes / 8).max(1);
    let (comma, colon) = match edit {
        Edit::Reformatted => (", ", ": "),
        _ => (",", ":"),
    };
    let handful = [1, count / 5, count / 3, count / 2, count * 3 / 4, count - 1];
    let mut out = String::with_capacity(count * 80);
    let _ = write!(out, "{{\"count\"{colon}{count}{comma}\"items\"{colon}[");
    if let Edit::InsertedAtFront = edit {
        let _ = write!(
            out,
            "{{\"id\":-1,\"label\":\"new\",\"score\":0.0,\"tags\":[\"odd\",\"g0\"]}},"
        );
    }
    for id in 0..count {
        if id > 0 {
            out.push_str(comma);
        }
        let mut score = (id % 1000) as f64 / 10.0;
        let mut label = format!("item {id}");
        let mut extra_tag = false;
        match edit {
            Edit::Handful if handful.contains(&id) => {
                if id % 2 == 0 {
                    score += 1000.0;
                } else {
                    label.push_str(" (renamed)");
                }
            }
            Edit::Many => {
                if id % 10 == 0 {
                    score += 0.5;
                }
                extra_tag = id % 100 == 0;
            }
            _ => {}
        }
        let parity = if id % 2 == 0 { "even" } else { "odd" };
        let _ = write!(
            out,
            "{{\"id\"{colon}{id}{comma}\"label\"{colon}\"{label}\"{comma}\"score\"{colon}{score:?}\
             {comma}\"tags\"{colon}[\"{parity}\"{comma}\"g{}\"",
            id % 16
        );
        if extra_tag {
            let _ = write!(out, "{comma}\"extra\"");
        }
        out.push_str("]}");
    }
    out.push_str("]}");
    out
}

fn time<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
}

fn ms(d: Duration) -> String {
    format!("{:>9.1} ms", d.as_secs_f64() * 1000.0)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// A field of `/proc/self/status` in KiB (Linux), e.g. `VmRSS`, `VmHWM`.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the process's peak resident size to its current one (Linux `clear_refs`).
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Runs `f`, returning its result and how far resident memory rose above where it started.
fn with_peak<R>(f: impl FnOnce() -> R) -> (R, Option<u64>) {
    let before = status_kib("VmRSS:");
    let reset = reset_peak();
    let r = f();
    let peak = status_kib("VmHWM:");
    let rise = match (reset, before, peak) {
        (true, Some(before), Some(peak)) => Some(peak.saturating_sub(before)),
        _ => None,
    };
    (r, rise)
}

fn mib_kib(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "     n/a".to_owned(),
        |kib| format!("{:>6.1} MiB", kib as f64 / 1024.0),
    )
}

fn main() {
    let nodes: usize = std::env::var("COMPARE_NODES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let old_text = large_text(nodes, Edit::None);
    println!(
        "two results of ~{nodes} nodes ({:.1} MiB of text each), median of {RUNS} runs\n",
        old_text.len() as f64 / (1024.0 * 1024.0)
    );
    println!(
        "{:<22} {:>12} {:>12} {:>8} {:>12} {:>9} {:>10}",
        "case", "parse both", "diff", "diff/fl", "parse+diff", "changes", "diff mem"
    );
    let cases = [
        ("identical", Edit::None),
        ("a handful of changes", Edit::Handful),
        ("many changes", Edit::Many),
        ("one item at the front", Edit::InsertedAtFront),
        ("reformatted, equal", Edit::Reformatted),
    ];
    for (name, edit) in cases {
        let new_text = large_text(nodes, edit);
        let mut parses = Vec::new();
        let mut diffs = Vec::new();
        let mut found = None;
        let mut rise = None;
        for _ in 0..RUNS {
            let ((old, new), parse) = time(|| {
                let old = JsonDoc::parse(old_text.clone()).ok();
                let new = JsonDoc::parse(new_text.clone()).ok();
                (old, new)
            });
            let (Some(old), Some(new)) = (old, new) else {
                println!("{name}: not JSON");
                return;
            };
            parses.push(parse);
            let ((diff, elapsed), peak) =
                with_peak(|| time(|| StructuralDiff::compute(old.root(), new.root())));
            diffs.push(elapsed);
            rise = peak;
            found = Some(diff);
        }
        let (floor, diff) = (median(parses), median(diffs));
        let found = found.unwrap_or_default();
        println!(
            "{name:<22} {} {} {:>7.2}× {} {:>9} {}",
            ms(floor),
            ms(diff),
            diff.as_secs_f64() / floor.as_secs_f64(),
            ms(floor + diff),
            found.counts.total(),
            mib_kib(rise)
        );
        black_box(found);
    }

    // The text the model reads, pretty-printed: ~1M lines a side.
    println!();
    let pretty = |text: &str| {
        JsonDoc::parse(text.to_owned())
            .ok()
            .and_then(|doc| serde_json::to_string_pretty(&doc.root()).ok())
            .unwrap_or_default()
    };
    let old_pretty = pretty(&old_text);
    for (name, edit) in [
        ("a handful of changes", Edit::Handful),
        ("many changes", Edit::Many),
    ] {
        let new_pretty = pretty(&large_text(nodes, edit));
        let (diff, elapsed) = time(|| LineDiff::compute(&old_pretty, &new_pretty));
        println!(
            "line diff, {name}: {} lines, {} — {}",
            diff.old_lines,
            ms(elapsed).trim(),
            diff.summary()
        );
        black_box(diff);
    }
}
