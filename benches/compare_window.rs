//! The window's Compare view on two 1,000,000-node results: the real app (egui_kittest, no GPU)
//! against the real demo server calls `large_result` twice (the second a little bigger), then
//! compares the two calls from the history. Prints how long the comparison takes to be ready
//! beside a floor measured in the same run (showing one of the calls from the history: read,
//! parsed and analysed again), the longest frame meanwhile, and frames with the view shown.
//! Prints numbers only; nothing is asserted.
//!
//! `cargo bench --bench compare_window` (NODES=3000000 for bigger results).

#![allow(clippy::expect_used, reason = "a benchmark fails loudly")]

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use serde_json::json;
use toolscope::{
    ui::{AppOptions, DEMO_SERVER, ToolscopeApp},
    workbench::{
        Action, CallAction, CallState, CompareSide, ComparisonState, HistoryAction, HistoryStatus,
        SelectionAction, ToolKey,
    },
};
use toolscope_core::session::ServerConfig;

/// Steps frames until `done`; returns how long that took, the longest frame before the last,
/// and the last (the one that took in what `done` waited for, and drew it).
fn frames_until(
    harness: &mut Harness<'_, ToolscopeApp>,
    what: &str,
    done: impl Fn(&ToolscopeApp) -> bool,
) -> (Duration, Duration, Duration) {
    let started = Instant::now();
    let (mut longest, mut last) = (Duration::ZERO, Duration::ZERO);
    while !done(harness.state()) {
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "timed out waiting for {what}"
        );
        longest = longest.max(last);
        let frame = Instant::now();
        harness.step();
        last = frame.elapsed();
        std::thread::sleep(Duration::from_millis(5));
    }
    (started.elapsed(), longest, last)
}

/// The median and the longest of `count` frames.
fn frames(harness: &mut Harness<'_, ToolscopeApp>, count: usize) -> (Duration, Duration) {
    let mut samples: Vec<Duration> = (0..count)
        .map(|_| {
            let frame = Instant::now();
            harness.step();
            frame.elapsed()
        })
        .collect();
    samples.sort();
    (samples[samples.len() / 2], samples[samples.len() - 1])
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn main() {
    let nodes: u64 = std::env::var("NODES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let data = std::env::temp_dir().join(format!("toolscope-bench-compare-{}", std::process::id()));
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
    frames_until(&mut harness, "the tools", |app| {
        app.model()
            .server(DEMO_SERVER)
            .is_some_and(|server| server.catalog.is_some())
    });
    let key = ToolKey::new(DEMO_SERVER, "large_result");
    let index = harness
        .state()
        .model()
        .server(DEMO_SERVER)
        .and_then(|server| server.catalog.as_ref())
        .and_then(|catalog| catalog.tools.iter().position(|t| t.name == "large_result"))
        .expect("large_result is listed");
    harness
        .state_mut()
        .act(Action::Calls(CallAction::SelectTool {
            server: DEMO_SERVER,
            index,
        }));
    // Two runs that differ a little: the second has a few more items.
    for (at, size) in [nodes, nodes + 40].into_iter().enumerate() {
        harness.state_mut().act(Action::Calls(CallAction::Call {
            tool: key.clone(),
            arguments: json!({ "nodes": size })
                .as_object()
                .cloned()
                .unwrap_or_default(),
            force: false,
        }));
        frames_until(&mut harness, "the call", |app| {
            app.model().run(&key).is_some_and(|run| {
                matches!(run.call, CallState::Done | CallState::Failed(_))
                    && run.last_record.is_some()
            })
        });
        let recorded = at as u64 + 1;
        frames_until(
            &mut harness,
            "the call recorded",
            |app| matches!(app.model().history_status(), HistoryStatus::Open { calls, .. } if *calls >= recorded),
        );
    }
    let bytes = harness
        .state()
        .model()
        .run(&key)
        .and_then(|run| run.last_record.as_ref())
        .map_or(0, |record| record.response_bytes());

    // The floor: one of the two shown from the history (read, parsed and analysed again).
    harness
        .state_mut()
        .act(Action::History(HistoryAction::Select(Some(1))));
    let (floor, _, _) = frames_until(&mut harness, "a call shown from the history", |app| {
        app.model().history_browser().shown.is_some()
    });
    harness
        .state_mut()
        .act(Action::History(HistoryAction::Select(None)));

    harness
        .state_mut()
        .act(Action::Selection(SelectionAction::Compare {
            old: CompareSide::History(1),
            new: CompareSide::History(2),
        }));
    let (ready, longest, arrival) = frames_until(&mut harness, "the comparison", |app| {
        matches!(app.model().comparison(), ComparisonState::Ready(_))
    });
    let changes = match harness.state().model().comparison() {
        ComparisonState::Ready(view) => view.comparison.structured.summary(),
        _ => String::new(),
    };
    // The frames right after, then the view as a user sees it.
    let (first_frames, _) = frames(&mut harness, 3);
    let (median, slowest) = frames(&mut harness, 60);

    println!(
        "compare view, two large_result calls of {nodes} and {} nodes ({:.1} MiB each):",
        nodes + 40,
        bytes as f64 / (1024.0 * 1024.0)
    );
    println!(
        "  floor: one call shown from the history in {:.2} s",
        floor.as_secs_f64()
    );
    println!(
        "  comparison ready in {:.2} s ({:.1}x the floor; both read and analysed again, then \
         diffed): {changes}",
        ready.as_secs_f64(),
        ready.as_secs_f64() / floor.as_secs_f64().max(1e-9)
    );
    println!(
        "  longest frame while it was prepared: {:.1} ms (the work is off the window's thread); \
         the frame that took it in and indexed both trees: {:.1} ms",
        ms(longest),
        ms(arrival)
    );
    println!(
        "  frames with the view shown: median {:.2} ms, longest {:.2} ms (the three right \
         after it: {:.1} ms)",
        ms(median),
        ms(slowest),
        ms(first_frames)
    );
    let _ = std::fs::remove_dir_all(&data);
}
