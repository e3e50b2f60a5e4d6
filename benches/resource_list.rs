//! The window with a server of 10,000 tools and 10,000 resources (tests/fixtures/many_server.py):
//! the frame with the whole resource list, scrolling it, and the frame that applies a filter,
//! each beside the same for the tool list in the same run (the floor: the tool list is what
//! the Resources tab must keep up with). Then memory: what the listed resources hold against the
//! size of their JSON, and a tool whose description is 1 MB of Markdown (memory, frames beside a
//! tool with a one-line description). Prints numbers and ratios; nothing is asserted.
//!
//! `RESOURCES=100000 cargo bench --bench resource_list` for more resources.

#![allow(clippy::expect_used, reason = "a benchmark fails loudly")]

use std::time::{Duration, Instant};

use egui_kittest::{Harness, kittest::Queryable as _};
use toolscope::{
    ui::{AppOptions, DEMO_SERVER, ToolscopeApp},
    workbench::{Action, CallAction, server_features::FeatureList},
};
use toolscope_core::session::ServerConfig;

const ITEMS: usize = 10_000;
const FRAMES: usize = 60;
/// The first tool's description, in bytes of Markdown.
const DESCRIPTION_BYTES: usize = 1_000_000;

/// Resident memory of this process, in MiB (Linux; zero elsewhere).
fn resident_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kib| kib.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

/// The size of the resources' JSON as the fixture sends them (compact), in MiB.
fn resources_json_mib(count: usize) -> f64 {
    let bytes: usize = (0..count)
        .map(|n| {
            serde_json::json!({
                "uri": format!("many://resource/{n:05}"), "name": format!("resource_{n:05}"),
                "title": format!("Resource {n}"), "mimeType": "text/plain",
                "description": format!("Generated resource number {n}")
            })
            .to_string()
            .len()
                + 1
        })
        .sum();
    bytes as f64 / (1024.0 * 1024.0)
}

/// Frames with the tool at `index` selected: the first (its layout) and the median of 30.
fn tool_frames(harness: &mut Harness<'_, ToolscopeApp>, index: usize) -> (Duration, Duration) {
    harness
        .state_mut()
        .act(Action::Calls(CallAction::SelectTool {
            server: DEMO_SERVER,
            index,
        }));
    let first = Instant::now();
    harness.step();
    let first = first.elapsed();
    (first, median_frame(harness, |_| {}))
}

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

/// The window on `many_server.py` with these arguments (tools, resources, description bytes).
fn window(
    runtime: &tokio::runtime::Runtime,
    dir: &std::path::Path,
    args: [usize; 3],
) -> Harness<'static, ToolscopeApp> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/many_server.py");
    let mut command_args = vec![script.to_owned()];
    command_args.extend(args.iter().map(ToString::to_string));
    let options = AppOptions::new(
        ServerConfig::Stdio {
            command: "python3".to_owned(),
            args: command_args,
            env: Default::default(),
            cwd: None,
        },
        Some(dir.join("settings.json")),
    );
    let handle = runtime.handle().clone();
    Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .with_context_setup(toolscope::ui::fonts::install_system_fallback)
        .build_eframe(move |cc| ToolscopeApp::new(&cc.egui_ctx, handle, options))
}

/// What `count` resources hold once listed, in a window of their own (first in the process, so
/// nothing freed before is reused): resident growth from the first frames to the list shown.
fn resources_memory(runtime: &tokio::runtime::Runtime, dir: &std::path::Path, count: usize) {
    let mut harness = window(runtime, dir, [0, count, 0]);
    for _ in 0..3 {
        harness.step();
    }
    let before = resident_mib();
    let listed = Instant::now();
    while !harness
        .state()
        .model()
        .server(DEMO_SERVER)
        .is_some_and(|server| matches!(server.features.resources, FeatureList::Listed(_)))
    {
        assert!(listed.elapsed() < Duration::from_secs(300), "no resources");
        harness.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    harness
        .query_all_by_label("Resources")
        .last()
        .expect("the Resources tab")
        .click();
    let settled = Instant::now();
    while settled.elapsed() < Duration::from_secs(2) {
        harness.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    let (growth, list) = (resident_mib() - before, resources_json_mib(count));
    println!(
        "{count} resources listed and shown: +{growth:.0} MiB resident for {list:.1} MiB of \
         JSON ({:.1}× the list; listed in {:?})",
        growth / list,
        listed.elapsed()
    );
}

fn main() {
    let resource_count: usize = std::env::var("RESOURCES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(ITEMS);
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let dir = std::env::temp_dir().join(format!("toolscope-bench-many-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a settings folder");
    resources_memory(&runtime, &dir, resource_count);

    let mut harness = window(&runtime, &dir, [ITEMS, ITEMS, DESCRIPTION_BYTES]);
    let tools_listed = wait_for(&mut harness, &format!("{ITEMS} tools"));
    println!("connect + list {ITEMS} tools (20 pages): {tools_listed:?}");
    // A tool with a one-line description shown beside the list (the first one's is 1 MB).
    harness
        .state_mut()
        .act(Action::Calls(CallAction::SelectTool {
            server: DEMO_SERVER,
            index: 1,
        }));
    let tools = measure(&mut harness, "tool_0999");

    // The tool with a one-line description (the floor), then the one with 1 MB of Markdown.
    let (_, short_frame) = tool_frames(&mut harness, 1);
    let before_long = resident_mib();
    let (long_first, long_frame) = tool_frames(&mut harness, 0);
    let long_growth = resident_mib() - before_long;
    println!(
        "a tool with a {DESCRIPTION_BYTES}-byte Markdown description: +{long_growth:.0} MiB \
         resident; first frame {long_first:?}, then {long_frame:?} (median of {FRAMES}) · a \
         one-line description {short_frame:?} · ratio {:.2}",
        long_frame.as_secs_f64() / short_frame.as_secs_f64().max(1e-9)
    );

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
