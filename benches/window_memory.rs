//! Memory and time of the window with big results: the real app (egui_kittest, no GPU) against
//! the real demo server calls `large_result` again and again, then other tools, and prints the
//! resident memory after each step beside the response size, and the time from Call to the
//! result drawn beside `toolscope call` of the same tool on the same server (the floor: the
//! transport, the parse and the analysis, without a window). Prints numbers only; nothing is
//! asserted.
//!
//! `cargo bench --bench window_memory` (NODES=3000000 for a bigger result).

#![allow(clippy::expect_used, reason = "a benchmark fails loudly")]

use std::time::{Duration, Instant};

use egui_kittest::{Harness, kittest::Queryable as _};
use serde_json::json;
use toolscope::{
    ui::{AppOptions, DEMO_SERVER, ToolscopeApp},
    workbench::{Action, CallAction, CallState, ToolKey},
};
use toolscope_core::session::ServerConfig;

/// Resident and peak memory of this process, in MiB (Linux; zero elsewhere).
fn memory_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|line| line.starts_with(name))
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|kib| kib.parse::<f64>().ok())
            .map_or(0.0, |kib| kib / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn step_until(
    harness: &mut Harness<'_, ToolscopeApp>,
    what: &str,
    done: impl Fn(&ToolscopeApp) -> bool,
) {
    let started = Instant::now();
    while !done(harness.state()) {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "timed out waiting for {what}"
        );
        harness.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    // A few frames so the views build what they show.
    for _ in 0..3 {
        harness.step();
    }
}

/// Draws frames for `time`, as an idle window would while background work finishes.
fn settle(harness: &mut Harness<'_, ToolscopeApp>, time: Duration) {
    let idle = Instant::now();
    while idle.elapsed() < time {
        harness.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Calls a tool, waits for its result, and returns the size of the response in bytes.
fn call(
    harness: &mut Harness<'_, ToolscopeApp>,
    tool: &str,
    arguments: serde_json::Value,
) -> usize {
    let key = ToolKey::new(DEMO_SERVER, tool);
    let index = harness
        .state()
        .model()
        .server(DEMO_SERVER)
        .and_then(|server| server.catalog.as_ref())
        .and_then(|catalog| catalog.tools.iter().position(|t| t.name == tool))
        .expect("the tool is listed");
    harness
        .state_mut()
        .act(Action::Calls(CallAction::SelectTool {
            server: DEMO_SERVER,
            index,
        }));
    harness.state_mut().act(Action::Calls(CallAction::Call {
        tool: key.clone(),
        arguments: arguments.as_object().cloned().unwrap_or_default(),
        force: false,
    }));
    step_until(harness, tool, |app| {
        app.model()
            .run(&key)
            .is_some_and(|run| matches!(run.call, CallState::Done | CallState::Failed(_)))
    });
    harness
        .state()
        .model()
        .run(&key)
        .and_then(|run| run.last_record.as_ref())
        .map_or(0, |record| record.response_bytes())
}

/// The median time of `toolscope call --demo large_result` (its output to /dev/null).
fn cli_call_time(nodes: u64) -> Duration {
    let mut times: Vec<Duration> = (0..3)
        .map(|_| {
            let started = Instant::now();
            let status = std::process::Command::new(env!("CARGO_BIN_EXE_toolscope"))
                .args(["call", "--demo", "large_result", "--json", "--arg"])
                .arg(format!("nodes={nodes}"))
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .env(
                    "TOOLSCOPE_DATA_DIR",
                    std::env::temp_dir().join("toolscope-bench-cli"),
                )
                .status()
                .expect("toolscope runs");
            assert!(status.success(), "toolscope call failed");
            started.elapsed()
        })
        .collect();
    times.sort();
    times[1]
}

fn main() {
    let nodes: u64 = std::env::var("NODES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    // The window records every call in its history, on disk as for a user (a history in
    // memory would hold every response it was given).
    let data = std::env::temp_dir().join(format!("toolscope-bench-window-{}", std::process::id()));
    let options = AppOptions {
        history: Some(toolscope_core::history::HistoryLocation::File(
            data.join("history.sqlite3"),
        )),
        ..AppOptions::new(
            ServerConfig::Stdio {
                command: env!("CARGO_BIN_EXE_toolscope").to_owned(),
                args: vec!["demo-server".to_owned()],
                env: Default::default(),
                cwd: None,
            },
            None,
        )
    };
    let handle = runtime.handle().clone();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .with_context_setup(toolscope::ui::fonts::install_system_fallback)
        .build_eframe(move |cc| ToolscopeApp::new(&cc.egui_ctx, handle, options));
    step_until(&mut harness, "the tools", |app| {
        app.model()
            .server(DEMO_SERVER)
            .is_some_and(|server| server.catalog.is_some())
    });
    let (base, _) = memory_mib();
    println!(
        "window memory with large_result of {nodes} nodes (MiB resident; ratio = growth / response size)"
    );
    println!(
        "{:<44} {:>9} {:>9} {:>7}",
        "step", "resident", "peak", "ratio"
    );
    let mut response_mib = 0.0;
    let report = |step: &str, response_mib: f64| {
        let (resident, peak) = memory_mib();
        let ratio = if response_mib > 0.0 {
            format!("{:.1}×", (resident - base) / response_mib)
        } else {
            "-".to_owned()
        };
        println!("{step:<44} {resident:>9.0} {peak:>9.0} {ratio:>7}");
    };
    report("connected, tools listed", 0.0);
    let mut window_times = Vec::new();
    for round in 1..=4 {
        let started = Instant::now();
        let bytes = call(&mut harness, "large_result", json!({"nodes": nodes}));
        let took = started.elapsed();
        window_times.push(took);
        response_mib = bytes as f64 / (1024.0 * 1024.0);
        report(
            &format!(
                "large_result #{round} ({response_mib:.1} MiB, {:.1} s)",
                took.as_secs_f64()
            ),
            response_mib,
        );
        // The result it replaced is freed in the background: what stays is the shown result.
        settle(&mut harness, Duration::from_secs(1));
        report("  1 s later (the old result freed)", response_mib);
    }
    // The raw response as text, beside the tree (the tab holds its own view of the bytes).
    harness.get_by_label("Raw response").click();
    for _ in 0..5 {
        harness.step();
    }
    report("the Raw response tab shown", response_mib);
    harness.get_by_label("Result").click();
    settle(&mut harness, Duration::from_secs(1));
    report("back to the Result tab", response_mib);
    window_times.sort();
    let window_median = window_times[window_times.len() / 2];
    let cli = cli_call_time(nodes);
    println!(
        "Call → result drawn: window {:.2} s (median of 4), `toolscope call` {:.2} s (median of \
         3): {:.2}× the command line",
        window_median.as_secs_f64(),
        cli.as_secs_f64(),
        window_median.as_secs_f64() / cli.as_secs_f64()
    );
    let started = Instant::now();
    for _ in 0..30 {
        harness.step();
    }
    println!(
        "30 frames with large_result's result shown: {:?} each",
        started.elapsed() / 30
    );
    call(&mut harness, "add", json!({"a": 1, "b": 2}));
    report("then add (large_result no longer shown)", response_mib);
    call(&mut harness, "primes", json!({"n": 10}));
    report("then primes", response_mib);
    // Compacting and freeing run in the background: give them time, drawing meanwhile.
    settle(&mut harness, Duration::from_secs(3));
    report("3 s later", response_mib);
    let started = Instant::now();
    for _ in 0..30 {
        harness.step();
    }
    println!(
        "30 frames with add's result shown: {:?} each",
        started.elapsed() / 30
    );
    drop(harness);
    let _ = std::fs::remove_dir_all(&data);
}
