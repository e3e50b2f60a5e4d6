//! The window with a server of 10,000 tools and 10,000 resources (tests/fixtures/many_server.py):
//! the frame with the whole resource list, scrolling it, and the frame that applies a filter,
//! each beside the same for the tool list in the same run (the floor: the tool list is what
//! the Resources tab must keep up with). Prints numbers and ratios; nothing is asserted.

#![allow(clippy::expect_used, reason = "a benchmark fails loudly")]

use std::time::{Duration, Instant};

use egui_kittest::{Harness, kittest::Queryable as _};
use toolscope::ui::{AppOptions, ToolscopeApp};
use toolscope_core::session::ServerConfig;

const ITEMS: usize = 10_000;
const FRAMES: usize = 60;

/// The median time of `FRAMES` frames, each after `before` (a scroll, or nothing).
fn median_frame(
    harness: &mut Harness<'_, ToolscopeApp>,
    mut before: impl FnMut(&mut Harness<'_, ToolscopeApp>),
) -> Duration {
    let mut samples: Vec<Duration> = (0..FRAMES)
        .map(|_| {
            before(harness);
            let frame = Instant::now();
            harness.step();
            frame.elapsed()
        })
        .collect();
    samples.sort();
    samples[samples.len() / 2]
}

fn wait_for(harness: &mut Harness<'_, ToolscopeApp>, label: &str) -> Duration {
    let started = Instant::now();
    while harness.query_by_label(label).is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{label:?} did not appear"
        );
        harness.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    started.elapsed()
}

/// A wheel turn over the list (the sidebar's middle), down then up again.
fn scroll(harness: &mut Harness<'_, ToolscopeApp>, down: &mut bool) {
    harness.event(egui::Event::PointerMoved(egui::pos2(100.0, 700.0)));
    let delta = if *down { -400.0 } else { 400.0 };
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, delta),
        modifiers: egui::Modifiers::NONE,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
    });
    *down = !*down;
}

/// The frames of one list: whole, scrolled, filtered.
fn measure(harness: &mut Harness<'_, ToolscopeApp>, filter: &str) -> [Duration; 3] {
    let whole = median_frame(harness, |_| {});
    let mut down = true;
    let scrolled = median_frame(harness, |harness| scroll(harness, &mut down));
    harness.get_by_label("Filter").focus();
    harness.step();
    harness.get_by_label("Filter").type_text(filter);
    let filtering = Instant::now();
    harness.step();
    let filtered = filtering.elapsed();
    [whole, scrolled, filtered]
}

fn main() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/many_server.py");
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let dir = std::env::temp_dir().join(format!("toolscope-bench-many-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a settings folder");
    let options = AppOptions::new(
        ServerConfig::Stdio {
            command: "python3".to_owned(),
            args: vec![script.to_owned(), ITEMS.to_string(), ITEMS.to_string()],
            env: Default::default(),
            cwd: None,
        },
        Some(dir.join("settings.json")),
    );
    let handle = runtime.handle().clone();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .with_context_setup(toolscope::ui::fonts::install_system_fallback)
        .build_eframe(move |cc| ToolscopeApp::new(&cc.egui_ctx, handle, options));

    let tools_listed = wait_for(&mut harness, &format!("{ITEMS} tools"));
    println!("connect + list {ITEMS} tools (20 pages): {tools_listed:?}");
    let tools = measure(&mut harness, "tool_0999");

    harness
        .query_all_by_label("Resources")
        .last()
        .expect("the Resources tab")
        .click();
    harness.step();
    let resources_listed = wait_for(&mut harness, &format!("{ITEMS} resources"));
    println!("Resources tab until {ITEMS} resources are shown: {resources_listed:?}");
    let resources = measure(&mut harness, "resource_0999");

    for (index, what) in [
        "whole list (median of 60)",
        "scrolling (median of 60)",
        "applying a filter",
    ]
    .iter()
    .enumerate()
    {
        let (tool, resource) = (tools[index], resources[index]);
        println!(
            "frame, {what}: resources {resource:?} · tools {tool:?} · ratio {:.2}",
            resource.as_secs_f64() / tool.as_secs_f64().max(1e-9)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
