//! Where the window puts things at a given size and zoom: the two result panes own the window
//! (1280×800, 900×600, a projector), the request column keeps its width, a 10 kB tool name and
//! a long analysis do not push the panes away.

use egui::accesskit::Role;
use egui_kittest::{SnapshotResults, kittest::Queryable as _};
use toolscope::ui::DEMO_SERVER;

use super::harness::{Window, has_text};

/// Calls `add` in a window of `size` pixels at `zoom` and returns where the result went.
fn result_layout_of_add(name: &str, size: egui::Vec2, zoom: f32) -> toolscope::ui::ResultLayout {
    let mut window = Window::setup(name).size(size).zoom(zoom).connected();
    window.select_tool("add");
    window.type_into("a", "1");
    window.type_into("b", "2");
    window.call();
    window.step_until("the result", |h| {
        has_text(h, "— what the application reads")
    });
    let layout = window.harness.state().result_layout().unwrap();
    let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, size / zoom);
    for (pane, rect) in [
        ("content", layout.content),
        ("structuredContent", layout.structured),
    ] {
        assert!(
            screen.contains_rect(rect),
            "{name}: the {pane} pane {rect:?} is inside the window {screen:?}"
        );
        assert!(
            rect.width() >= 250.0 && rect.height() >= 150.0,
            "{name}: the {pane} pane {rect:?} is big enough to use"
        );
    }
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "result")
            .is_some(),
        "{name}: the tree shows `result`"
    );
    let mut snapshots = SnapshotResults::new();
    window.until_latency_known("add");
    window.mask_durations();
    snapshots.add(window.harness.try_snapshot(format!("layout_{name}")));
    layout
}

fn area(rect: egui::Rect) -> f32 {
    rect.width() * rect.height()
}

#[test]
fn the_result_owns_the_window_at_1280_by_800() {
    let size = egui::vec2(1280.0, 800.0);
    let layout = result_layout_of_add("1280x800", size, 1.0);
    let window = size.x * size.y;
    assert!(layout.side_by_side);
    assert!(
        area(layout.area) >= 0.6 * window,
        "the result area {:?} takes at least 60 % of the window",
        layout.area
    );
    assert!(
        area(layout.content) >= 0.22 * window && area(layout.structured) >= 0.22 * window,
        "each pane gets a fair share: {layout:?}"
    );
}

#[test]
fn both_panes_are_usable_at_900_by_600() {
    let layout = result_layout_of_add("900x600", egui::vec2(900.0, 600.0), 1.0);
    assert!(
        layout.side_by_side,
        "the request column gives way once called: {layout:?}"
    );
}

#[test]
fn both_panes_are_usable_on_a_projector_at_one_and_a_half_zoom() {
    let layout = result_layout_of_add("1600x1000_zoom1.5", egui::vec2(1600.0, 1000.0), 1.5);
    assert!(layout.side_by_side, "{layout:?}");
}

/// Every demo tool's form shown in turn at 1280×800: the request column stays within its
/// share of the window (forms wrap inside it), and its width is saved only when dragged.
#[test]
fn the_request_column_keeps_its_width_whatever_form_it_shows() {
    let mut window = Window::setup("request-width")
        .size(egui::vec2(1280.0, 800.0))
        .connected();
    let saved_before = window.harness.state().model().layout().request_width;
    let mut first = None;
    for tool in [
        "add",
        "add_model",
        "broken_contract",
        "chart",
        "divide",
        "format_table",
        "large_result",
        "primes",
        "query_db",
        "slow_task",
    ] {
        window.select_tool(tool);
        for _ in 0..3 {
            window.harness.step();
        }
        let width = window.harness.state().request_column_width();
        assert!(
            width <= 1280.0 * 0.3 + 1.0,
            "{tool}'s form widened the request column to {width} px"
        );
        let first = *first.get_or_insert(width);
        assert!(
            (width - first).abs() < 1.0,
            "{tool}'s form widened the request column from {first} to {width} px"
        );
    }
    assert_eq!(
        window.harness.state().model().layout().request_width,
        saved_before,
        "the width was saved though nobody dragged it"
    );
}

/// A tool with a 10 kB name: the line beside the result tabs stays one line, so the panes
/// keep their place under the tabs.
#[test]
fn a_ten_thousand_character_tool_name_does_not_push_the_panes_away() {
    let mut window = Window::on_wide_server("long-name");
    window
        .harness
        .get_by_label("Filter")
        .set_text_value_accesskit("long_n");
    window.harness.run_ok();
    window.step_until("the tool in the list", |h| has_text(h, "1 of 2 tools"));
    window.click_containing("long_nnnn");
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    let layout = window.harness.state().result_layout().expect("a result");
    let header = layout.content.min.y - layout.area.min.y;
    assert!(
        header < 160.0,
        "the panes start {header} points below the result's top"
    );
}

/// broken_contract (a long list of violations) at 1280×800: zoomed to 1.5× and in
/// presentation mode, the two panes stay side by side and keep at least half the window.
#[test]
fn on_a_projector_the_panes_keep_half_the_window_beside_a_long_analysis() {
    for (name, zoom, present) in [("zoom", 1.5, false), ("present", 1.0, true)] {
        // Presenting zooms to 1.5× itself, and the harness keeps its size in points.
        let size = egui::vec2(1280.0, 800.0) / if present { 1.5 } else { 1.0 };
        let mut window = Window::setup(&format!("projector-{name}"))
            .size(size)
            .zoom(zoom)
            .options(|options| options.present = present)
            .open();
        window.step_until("the demo server's tools", |h| {
            h.state()
                .model()
                .server(DEMO_SERVER)
                .is_some_and(|server| server.catalog.is_some())
        });
        window
            .harness
            .state_mut()
            .act(toolscope::workbench::Action::Calls(
                toolscope::workbench::CallAction::SelectTool {
                    server: DEMO_SERVER,
                    index: 3,
                },
            ));
        window.harness.run_ok();
        window.harness.get_by_label("Call").click();
        window.step_until("the result", |h| has_text(h, "— what the model reads"));
        for _ in 0..3 {
            window.harness.step();
        }
        let layout = window.harness.state().result_layout().unwrap();
        let points = window.harness.ctx.content_rect().size();
        assert!(layout.side_by_side, "{name}: {layout:?}");
        // The panes keep half the window's height below a long analysis; presenting (the
        // sidebars folded) that is half the window.
        let tall = layout.content.height();
        assert!(
            tall >= 0.45 * points.y,
            "{name}: the panes are {tall} of {} points tall: {layout:?}",
            points.y
        );
        if present {
            let panes = area(layout.content) + area(layout.structured);
            assert!(
                panes >= 0.5 * points.x * points.y,
                "{name}: the panes get {:.0} % of the window: {layout:?}",
                100.0 * panes / (points.x * points.y)
            );
        }
    }
}

/// The teaching group's projector: broken_contract (a long analysis, details shown) and `add`
/// at 1.5× in 900×600 and 1280×800, and presenting at 1280×800. Both panes stay side by side
/// with at least 40 % of the window, and the tree shows rows, not only its toolbar.
#[test]
fn on_a_projector_both_panes_keep_forty_percent_of_the_window() {
    let mut snapshots = SnapshotResults::new();
    for (name, size, zoom, present, tool) in [
        (
            "900x600-zoom-add",
            egui::vec2(900.0, 600.0),
            1.5,
            false,
            "add",
        ),
        (
            "900x600-zoom-broken",
            egui::vec2(900.0, 600.0),
            1.5,
            false,
            "broken_contract",
        ),
        (
            "1280x800-zoom-broken",
            egui::vec2(1280.0, 800.0),
            1.5,
            false,
            "broken_contract",
        ),
        // Presenting zooms to 1.5× itself: a 1280×800 screen is 853×533 points then, and the
        // harness keeps its size in points.
        (
            "1280x800-present-broken",
            egui::vec2(1280.0, 800.0) / 1.5,
            1.0,
            true,
            "broken_contract",
        ),
    ] {
        let mut window = Window::setup(&format!("forty-{name}"))
            .size(size)
            .zoom(zoom)
            .options(|options| options.present = present)
            .open();
        // Picked through the model: presenting folds the sidebar away.
        window.pick_demo_tool(tool);
        if tool == "add" {
            // So small a window folds the request column into a button.
            if window.harness.query_by_label("Arguments…").is_some() {
                window.click("Arguments…");
            }
            window.type_into("a", "1");
            window.type_into("b", "2");
        }
        window.call();
        window.step_until("the result", |h| has_text(h, "— what the model reads"));
        for _ in 0..3 {
            window.harness.step();
        }
        let layout = window.harness.state().result_layout().unwrap();
        let screen = area(window.harness.ctx.content_rect());
        let panes = area(layout.content) + area(layout.structured);
        window.until_latency_known(tool);
        window.mask_durations();
        snapshots.add(window.harness.try_snapshot(format!("projector_{name}")));
        assert!(layout.side_by_side, "{name}: {layout:?}");
        assert!(
            panes >= 0.4 * screen,
            "{name}: the panes get {:.0} % of the window: {layout:?}",
            100.0 * panes / screen
        );
        let tree_rows = window
            .harness
            .query_all_by_role(Role::TreeItem)
            .filter(|row| layout.structured.contains(row.rect().min))
            .count();
        // `add`'s tree has two rows, the root and `result`.
        assert!(tree_rows >= 2, "{name}: {tree_rows} tree rows in view");
    }
}
