//! What the result panes draw and do: a word double-clicked in the text found in the tree,
//! Markdown as sent or rendered, an image too thin to see, a resource link opened.

use egui::accesskit::Role;
use egui_kittest::{
    Harness,
    kittest::{NodeT as _, Queryable as _},
};
use toolscope::ui::ToolscopeApp;

use super::harness::{Window, has_text};

#[test]
fn a_word_double_clicked_in_the_text_is_found_in_the_tree() {
    let mut window = Window::setup("word").step_dt(0.05).connected();
    window.select_tool("add");
    window.type_into("a", "40");
    window.type_into("b", "2");
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    let pos = window
        .harness
        .get_by_role_and_label(Role::Label, "42")
        .rect()
        .left_center()
        + egui::vec2(4.0, 0.0);
    window.harness.hover_at(pos);
    // Two clicks in one frame: a double click.
    for pressed in [true, false, true, false] {
        window.harness.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    window.harness.run_ok();
    let search = window.harness.get_by_label("Search:");
    assert_eq!(
        search.value().as_deref(),
        Some("42"),
        "the tree searches for the double-clicked word"
    );
}

/// The Raw response tab shows the response pretty, a line per row (only the rows on screen are
/// laid out), from its first line to the result's members.
#[test]
fn the_raw_response_tab_shows_the_response_line_by_line() {
    let mut window = Window::setup("raw-lines").connected();
    window.select_tool("add");
    window.type_into("a", "40");
    window.type_into("b", "2");
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    window.click("Raw response");
    window.step_until("the raw response", |h| has_text(h, r#""jsonrpc": "2.0","#));
    for line in [r#""structuredContent": {"#, r#""result": 42"#] {
        assert!(has_text(&window.harness, line), "{line} is shown");
    }
}

/// format_table's Markdown shows as sent (the pipes the model reads) and, on request, rendered.
#[test]
fn a_markdown_text_block_is_shown_as_sent_or_rendered() {
    let mut window = Window::open("markdown");
    window.step_until("the demo server's tools", |h| has_text(h, "13 tools"));
    window.select_tool("format_table");
    window.harness.get_by_label("JSON").click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("Arguments (JSON)")
        .set_text_value_accesskit(r#"{"data": [{"name": "Ada", "city": "London"}]}"#);
    window.harness.run_ok();
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    // The block's own text (the analysis above also quotes it, on one line).
    let as_sent = |h: &Harness<'static, ToolscopeApp>| {
        h.query_all_by_label_contains("| Ada | London |")
            .any(|node| {
                node.accesskit_node()
                    .value()
                    .is_some_and(|text| !text.contains(" reads "))
            })
    };
    assert!(as_sent(&window.harness), "as sent by default");
    window.harness.get_by_label("Rendered").click();
    window.harness.run_ok();
    assert!(!as_sent(&window.harness), "the pipes are gone");
    assert!(
        has_text(&window.harness, "London"),
        "the table's cells are shown"
    );
}

/// A 9000×2 image is drawn tall enough to see, and says it was stretched.
#[test]
fn a_thin_image_is_drawn_tall_enough_to_see() {
    let mut window = Window::on_wide_server("thin-image");
    window.select_tool("thin_image");
    window.call();
    window.step_until("the image", |h| has_text(h, "image block 0 (image/png)"));
    let image = window
        .harness
        .get_by_label("image block 0 (image/png)")
        .rect();
    assert!(
        image.height() >= 8.0,
        "drawn {} points tall",
        image.height()
    );
    assert!(has_text(&window.harness, "too thin to see at its shape"));
}

#[test]
fn a_resource_link_opens_the_resource_read_from_its_server() {
    let Some(mut window) = Window::on_everything("resource-link") else {
        return;
    };
    window.select_tool_titled("get-resource-links", "Get Resource Links Tool");
    window.call();
    window.step_until("the links", |h| {
        h.query_all_by_label("Open").next().is_some()
    });
    // The second link is a text resource.
    window
        .harness
        .query_all_by_label("Open")
        .nth(1)
        .unwrap()
        .click();
    window.harness.run_ok();
    window.step_until("the resource's text", |h| {
        matches!(
            h.state()
                .model()
                .opened_resource()
                .map(|opened| &opened.state),
            Some(toolscope::workbench::ResourceState::Read(_))
        )
    });
    assert!(has_text(
        &window.harness,
        "demo://resource/dynamic/text/2 · text/plain"
    ));
}
