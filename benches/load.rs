//! `toolscope load` against its floor, a single sequential session, in the same run (the
//! figures are the command's own `--json`). Run with `cargo bench --bench load`;
//! `LOAD_BENCH_CALLS` sets the calls per run (default 2,000) and `LOAD_BENCH_CONCURRENCY` the
//! callers (default 8). A small run without a release build: `LOAD_BENCH_CALLS=200 cargo test
//! --bench load`.
//!
//! Against the official Python SDK's server (`tests/peers/python/server.py`, installed by
//! `tests/peers/install.sh`), `add` called:
//!
//! - the floor: one caller on one session, each call after the other;
//! - N callers on a session each (N server processes);
//! - N callers on one shared session (N calls in flight on one process).
//!
//! For each: calls per second, p50/p95/p99/max, errors, connecting time and the server's peak
//! memory; then the ratios to the floor (throughput, p50). Every call must be counted and none
//! may fail (that is asserted: it is not a timing); nothing else is asserted, the machines are
//! shared and noisy.

use std::process::Command;

use serde_json::Value;

const BINARY: &str = env!("CARGO_BIN_EXE_toolscope");

fn size(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// One `toolscope load … --json` run and its figures.
fn load(server: &str, concurrency: u64, calls: u64, shared: bool) -> Value {
    let (concurrency, calls) = (concurrency.to_string(), calls.to_string());
    let mut args = vec![
        "load",
        "--stdio",
        server,
        "add",
        "--args",
        r#"{"a": 2, "b": 3}"#,
        "--concurrency",
        &concurrency,
        "--calls",
        &calls,
        "--json",
    ];
    if shared {
        args.push("--shared");
    }
    let output = Command::new(BINARY)
        .args(&args)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {BINARY}: {error}"));
    assert!(
        output.status.success(),
        "toolscope load failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("toolscope load --json printed no JSON: {error}"))
}

fn number(figures: &Value, pointer: &str) -> f64 {
    figures
        .pointer(pointer)
        .and_then(Value::as_f64)
        .unwrap_or(f64::NAN)
}

fn row(label: &str, figures: &Value) {
    let memory = match figures.pointer("/server_memory/peak_total_bytes") {
        Some(bytes) => format!("{:.1} MB", bytes.as_f64().unwrap_or(f64::NAN) / 1_000_000.0),
        None => "not known".to_owned(),
    };
    println!(
        "{label:<34} {:>9.1} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>7} {:>9.2} {:>10}",
        number(figures, "/calls_per_second"),
        number(figures, "/latency/p50_ms"),
        number(figures, "/latency/p95_ms"),
        number(figures, "/latency/p99_ms"),
        number(figures, "/latency/max_ms"),
        figures["calls"],
        number(figures, "/connect_seconds"),
        memory
    );
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("tests/peers/python/.venv/bin/python");
    if !python.exists() {
        println!(
            "skipped: the Python SDK peer is not installed (bash tests/peers/install.sh installs it)"
        );
        return;
    }
    let server = format!(
        "{} {}",
        python.display(),
        root.join("tests/peers/python/server.py").display()
    );
    let calls = size("LOAD_BENCH_CALLS", 2_000);
    let concurrency = size("LOAD_BENCH_CONCURRENCY", 8);

    println!("toolscope load, `add` on the Python SDK's server, {calls} calls a run");
    println!(
        "{:<34} {:>9} {:>8} {:>8} {:>8} {:>8} {:>7} {:>9} {:>10}",
        "run", "calls/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "calls", "connect s", "memory"
    );
    let floor = load(&server, 1, calls, false);
    row("floor: 1 caller, 1 session", &floor);
    let separate = load(&server, concurrency, calls, false);
    row(&format!("{concurrency} callers, a session each"), &separate);
    let shared = load(&server, concurrency, calls, true);
    row(
        &format!("{concurrency} callers, one shared session"),
        &shared,
    );

    for (label, figures) in [("a session each", &separate), ("shared", &shared)] {
        assert_eq!(figures["calls"].as_u64(), Some(calls), "{label}: {figures}");
        assert_eq!(figures["ok"].as_u64(), Some(calls), "{label}: {figures}");
    }
    let ratio = |figures: &Value, pointer: &str| number(figures, pointer) / number(&floor, pointer);
    println!();
    println!(
        "{concurrency} callers, a session each: {:.2}× the floor's calls/s, p50 {:.2}× the floor's",
        ratio(&separate, "/calls_per_second"),
        ratio(&separate, "/latency/p50_ms")
    );
    println!(
        "{concurrency} callers, one shared session: {:.2}× the floor's calls/s, p50 {:.2}× the floor's",
        ratio(&shared, "/calls_per_second"),
        ratio(&shared, "/latency/p50_ms")
    );
}
