//! Teaching with the window: the guided tour end to end, presentation mode (F5), and the first
//! start's invitation to the tour, which never covers a pane.

use egui_kittest::{SnapshotResults, kittest::Queryable as _};
use toolscope::ui::DEMO_SERVER;

use super::harness::{Window, has_text};

#[test]
fn the_guided_tour_runs_end_to_end() {
    let lessons = toolscope_core::demo_server::lessons::lessons();
    // 1280×800: the request column is short, and its output schema ends near the bottom.
    let mut window = Window::setup("tour").size(egui::vec2(1280.0, 800.0)).open();
    window
        .harness
        .get_by_label(
            "The guided tour of the demo server: seven lessons on content and structuredContent",
        )
        .click();
    window.harness.run_ok();
    for (step, lesson) in lessons.iter().enumerate() {
        let heading = format!("Step {} of {}", step + 1, lessons.len());
        window.step_until(&format!("tour step {}", step + 1), |h| {
            has_text(h, &heading) && has_text(h, lesson.notice)
        });
        let run = window
            .harness
            .state()
            .model()
            .run(&toolscope::workbench::ToolKey::new(
                DEMO_SERVER,
                lesson.tool,
            ))
            .map(|run| run.last_record.is_some());
        assert_eq!(
            run,
            Some(true),
            "step {}: {} was called",
            step + 1,
            lesson.tool
        );
        let selected = window
            .harness
            .state()
            .model()
            .selected_tool()
            .map(|(_, tool)| tool.name.clone());
        assert_eq!(selected.as_deref(), Some(lesson.tool));
        assert!(
            window.harness.state().tour_outline().is_some(),
            "step {}: the lesson's part is outlined",
            step + 1
        );
        if lesson.shows_output_schema {
            // The evidence is on screen: the output schema is opened, its dialect shown, and
            // the card is not over it.
            let dialect = "dialect: https://json-schema.org/draft/2020-12/schema";
            assert!(
                has_text(&window.harness, dialect),
                "step {}: the output schema is open",
                step + 1
            );
            // The section, from its heading down the request column.
            let heading = window.harness.get_by_label("Output schema").rect();
            let schema = egui::Rect::from_min_max(
                heading.left_top(),
                egui::pos2(heading.right(), window.harness.ctx.content_rect().bottom()),
            );
            let card = window
                .harness
                .get_by_label(&format!("Step {} of {}", step + 1, lessons.len()))
                .rect()
                .union(window.harness.get_by_label("Leave the tour").rect());
            assert!(
                !card.intersects(schema),
                "step {}: the card {card:?} covers the output schema {schema:?}",
                step + 1
            );
        }
        if lesson.tool == "query_db" {
            // The person chains `rows` into format_table and calls it: its text is not the
            // lesson's evidence, and its empty structuredContent pane is not outlined.
            window.pick_demo_tool("format_table");
            assert!(
                window.harness.state().tour_outline().is_none(),
                "another tool's result is not outlined"
            );
        }
        let next = if step + 1 == lessons.len() {
            "Finish"
        } else {
            "Next"
        };
        // The tree's search has a Next too; the tour's card is drawn last.
        window
            .harness
            .query_all_by_label(next)
            .last()
            .unwrap()
            .click();
        window.harness.run_ok();
    }
    assert!(!has_text(&window.harness, "Step 1 of"), "the tour is over");
}

#[test]
fn presentation_mode_shows_both_panes_big() {
    let mut window = Window::setup("present")
        .size(egui::vec2(1600.0, 1000.0))
        .connected();
    window.select_tool("add");
    window.type_into("a", "1");
    window.type_into("b", "2");
    window.harness.key_press(egui::Key::F5);
    window.harness.run_ok();
    assert!(
        window.harness.query_by_label("Filter").is_none(),
        "the sidebar folded away"
    );
    window
        .harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    window.step_until("the result", |h| {
        has_text(h, "— what the application reads")
    });
    assert!((window.harness.ctx.zoom_factor() - 1.5).abs() < 0.01);
    let layout = window.harness.state().result_layout().unwrap();
    assert!(layout.side_by_side, "{layout:?}");
    for rect in [layout.content, layout.structured] {
        assert!(
            rect.width() >= 300.0 && rect.height() >= 300.0,
            "{layout:?}"
        );
    }
    let mut snapshots = SnapshotResults::new();
    window.mask_durations();
    snapshots.add(window.harness.try_snapshot("presentation_mode"));
    // F5 again: back to the layout before, which was never saved as the presentation one.
    window.harness.key_press(egui::Key::F5);
    window.harness.run_ok();
    assert!((window.harness.ctx.zoom_factor() - 1.0).abs() < 0.01);
    assert!(window.harness.query_by_label("Filter").is_some());
}

/// The first start's invitation to the tour, at 900×600: it takes room beside the panes and
/// never covers them, and Escape puts it away.
#[test]
fn the_welcome_never_covers_a_pane_and_escape_closes_it() {
    let mut window = Window::setup("welcome")
        .size(egui::vec2(900.0, 600.0))
        .options(|options| options.offer_tour_on_first_start = true)
        .open();
    window.select_tool("add");
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    let offer = window.harness.get_by_label("Take the tour").rect();
    let panes = window
        .harness
        .state()
        .result_layout()
        .expect("a result is shown");
    for pane in [panes.content, panes.structured] {
        assert!(
            !pane.intersects(offer),
            "the welcome ({offer:?}) covers a pane ({pane:?})"
        );
    }
    window.harness.key_press(egui::Key::Escape);
    window.harness.run_ok();
    assert!(window.harness.query_by_label("Take the tour").is_none());
}
