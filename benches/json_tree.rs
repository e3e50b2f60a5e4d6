//! Timing of the JSON tree on a ~1,000,000-node value (plain `Instant`, no harness).
//!
//! Run with `cargo bench`. Prints numbers only; nothing is asserted.

use std::hint::black_box;
use std::time::{Duration, Instant};

use egui::{Context, Pos2, RawInput, Rect, vec2};
use serde_json::{Value, json};
use toolscope::ui::json_tree::{JsonTreeState, json_tree_ui};
use toolscope_core::json_doc::{JsonDoc, JsonRef};

const OBJECTS: usize = 125_000;
const FRAMES: usize = 30;

/// 125,000 objects of 8 nodes each (the object, 5 fields, 2 tags) in one array.
fn big_value() -> Value {
    Value::Array(
        (0..OBJECTS)
            .map(|i| {
                json!({
                    "id": i,
                    "name": format!("item {i}"),
                    "active": i % 2 == 0,
                    "score": i as f64 / 7.0,
                    "tags": ["alpha", if i % 10 == 0 { "tenth" } else { "other" }],
                })
            })
            .collect(),
    )
}

fn time<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
}

fn ms(d: Duration) -> String {
    format!("{:>10.3} ms", d.as_secs_f64() * 1000.0)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn input(t: f64) -> RawInput {
    RawInput {
        screen_rect: Some(Rect::from_min_size(Pos2::ZERO, vec2(1280.0, 800.0))),
        time: Some(t),
        ..Default::default()
    }
}

/// Median time of `FRAMES` frames of `json_tree_ui`, and of the same frames
/// including tessellation (what a real frame also pays before the GPU).
fn frames(
    ctx: &Context,
    value: JsonRef<'_>,
    state: &mut JsonTreeState,
    t0: &mut f64,
) -> (Duration, Duration) {
    let mut ui_times = Vec::with_capacity(FRAMES);
    let mut full_times = Vec::with_capacity(FRAMES);
    for _ in 0..FRAMES {
        *t0 += 1.0 / 60.0;
        let start = Instant::now();
        let output = ctx.run_ui(input(*t0), |ui| {
            black_box(json_tree_ui(ui, "bench", 1, value, state));
        });
        let ui_done = start.elapsed();
        let prims = ctx.tessellate(output.shapes.clone(), output.pixels_per_point);
        black_box(prims);
        full_times.push(start.elapsed());
        ui_times.push(ui_done);
        output.drop_without_applying_deltas();
    }
    (median(ui_times), median(full_times))
}

/// Counts what one frame painted, to show the timed frames really draw rows.
fn check_frame(
    ctx: &Context,
    value: JsonRef<'_>,
    state: &mut JsonTreeState,
    t0: &mut f64,
    needle: &str,
) -> (usize, usize, bool) {
    *t0 += 1.0 / 60.0;
    let output = ctx.run_ui(input(*t0), |ui| {
        black_box(json_tree_ui(ui, "bench", 1, value, state));
    });
    let texts: Vec<&str> = output
        .shapes
        .iter()
        .filter_map(|s| match &s.shape {
            egui::Shape::Text(t) => Some(t.galley.text()),
            _ => None,
        })
        .collect();
    let result = (
        output.shapes.len(),
        texts.len(),
        texts.iter().any(|t| t.contains(needle)),
    );
    output.drop_without_applying_deltas();
    result
}

fn main() {
    let (value, t_value) = time(|| JsonDoc::from_value(&big_value()));
    let mut state = JsonTreeState::new();
    let mut rows: Vec<(String, Duration, usize)> = Vec::new();

    let (_, t) = time(|| state.sync(1, value.root()));
    rows.push((
        "build index + level-2 rows (sync)".into(),
        t,
        state.visible_row_count(),
    ));

    let (_, t) = time(|| state.expand_all());
    rows.push(("expand_all".into(), t, state.visible_row_count()));

    let ctx = Context::default();
    let mut clock = 0.0;
    // Warm-up frame: font atlas and galley caches are built once per app, not per frame.
    let (_, t) = time(|| frames(&ctx, value.root(), &mut state, &mut clock));
    rows.push((
        "first 30 frames incl. warm-up (total)".into(),
        t,
        state.visible_row_count(),
    ));

    // Middle of the fully expanded tree: selecting scrolls there on the next frame.
    let middle = format!("/{}/name", OBJECTS / 2);
    state.select_pointer(&middle);
    let (ui, full) = frames(&ctx, value.root(), &mut state, &mut clock);
    rows.push((
        "frame, 1M rows open, mid-scroll (median)".into(),
        ui,
        state.visible_row_count(),
    ));
    rows.push((
        "  same + tessellate (median)".into(),
        full,
        state.visible_row_count(),
    ));
    let (shapes, texts, found) =
        check_frame(&ctx, value.root(), &mut state, &mut clock, "item 62500");
    println!("sanity: {shapes} shapes, {texts} text shapes, middle row painted: {found}");

    state.set_search("item 99999");
    let (_, t) = time(|| state.sync(1, value.root()));
    rows.push((
        "search 'item 99999' over 1M nodes".into(),
        t,
        state.match_count(),
    ));

    state.collapse_all();
    state.set_search("tenth");
    let (_, t) = time(|| state.sync(1, value.root()));
    rows.push((
        "search 'tenth' (+ open 12.5k ancestors)".into(),
        t,
        state.match_count(),
    ));

    state.set_search("e");
    let (_, t) = time(|| state.sync(1, value.root()));
    rows.push((
        "search 'e' (matches most nodes)".into(),
        t,
        state.match_count(),
    ));

    let (ui, full) = frames(&ctx, value.root(), &mut state, &mut clock);
    rows.push((
        "frame with search active (median)".into(),
        ui,
        state.visible_row_count(),
    ));
    rows.push((
        "  same + tessellate (median)".into(),
        full,
        state.visible_row_count(),
    ));

    state.set_search("");
    state.sync(1, value.root());
    let (_, t) = time(|| state.collapse_all());
    rows.push(("collapse_all".into(), t, state.visible_row_count()));
    let (_, t) = time(|| state.expand_to_level(2));
    rows.push(("expand_to_level(2)".into(), t, state.visible_row_count()));

    println!();
    println!("value: {OBJECTS} objects, built in {}", ms(t_value));
    println!("{:<44} {:>13} {:>10}", "step", "time", "rows/hits");
    println!("{}", "-".repeat(69));
    for (name, t, n) in rows {
        println!("{name:<44} {} {n:>10}", ms(t));
    }
    drop(value);
}
