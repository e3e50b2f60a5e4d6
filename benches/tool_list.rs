//! Timing of the window with a server of 10,000 tools: frames with the whole list, and the
//! frame that applies a filter. Runs the real app (egui_kittest, no GPU) against the real demo
//! server with generated tools. Prints numbers only; nothing is asserted.

#![allow(clippy::expect_used, reason = "a benchmark fails loudly")]

use std::time::{Duration, Instant};

use egui_kittest::{Harness, kittest::Queryable as _};
use toolscope::ui::{AppOptions, ToolscopeApp};
use toolscope_core::session::ServerConfig;

const TOOLS: usize = 10_000;
const FRAMES: usize = 60;
/// The demo tools listed beside the generated ones.
const DEMO_TOOLS: usize = 13;

/// The median time of `FRAMES` frames.
fn median_frame(harness: &mut Harness<'_, ToolscopeApp>) -> Duration {
    let mut samples: Vec<Duration> = (0..FRAMES)
        .map(|_| {
            let frame = Instant::now();
            harness.step();
            frame.elapsed()
        })
        .collect();
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let options = AppOptions::new(
        ServerConfig::Stdio {
            command: env!("CARGO_BIN_EXE_toolscope").to_owned(),
            args: vec![
                "demo-server".to_owned(),
                "--extra-tools".to_owned(),
                TOOLS.to_string(),
            ],
            env: Default::default(),
            cwd: None,
        },
        None,
    );
    let handle = runtime.handle().clone();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .with_context_setup(toolscope::ui::fonts::install_system_fallback)
        .build_eframe(move |cc| ToolscopeApp::new(&cc.egui_ctx, handle, options));

    let started = Instant::now();
    let expected = format!("{} tools", TOOLS + DEMO_TOOLS);
    while harness.query_by_label(&expected).is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the tools did not arrive"
        );
        harness.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    println!(
        "connect + list {} tools (20 pages): {:?}",
        TOOLS + DEMO_TOOLS,
        started.elapsed()
    );

    let frame = median_frame(&mut harness);
    println!("frame with the full list (median of {FRAMES}): {frame:?}");

    harness.get_by_label("Filter").focus();
    harness.step();
    harness.get_by_label("Filter").type_text("generated_09");
    let filter_frame = Instant::now();
    harness.step();
    println!(
        "frame that applies a filter over {TOOLS} tools: {:?}",
        filter_frame.elapsed()
    );
    let frame = median_frame(&mut harness);
    println!("frame with the filtered list (median of {FRAMES}): {frame:?}");
}
