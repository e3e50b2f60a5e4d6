//! A call on the demo server and what the window says of it: both halves of the result, a
//! broken output contract violation by violation, a cancel, a result chained into the next
//! call's argument, Chinese text and an image.

use egui::accesskit::Role;
use egui_kittest::{SnapshotResults, kittest::Queryable as _};
use toolscope::ui::DEMO_SERVER;

use super::harness::{Window, has_text};

#[test]
fn call_add_and_point_at_both_halves() {
    let mut window = Window::connected("add");
    let mut snapshots = SnapshotResults::new();
    window.select_tool("add");
    window.type_into("a", "1");
    window.type_into("b", "2");
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    // The model reads "3"; the application reads {"result": 3}. (A label, not the tree's
    // "expand to level 3" button.)
    assert!(
        window
            .harness
            .query_all_by_role_and_label(Role::Label, "3")
            .next()
            .is_some(),
        "the text block 3 is shown"
    );
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "result")
            .is_some(),
        "the structuredContent tree has `result`"
    );
    // One sentence says why the halves differ; the verdicts are chips.
    assert!(has_text(
        &window.harness,
        "the SDK wrapped a number in {\"result\": …} because structured output had to be an object"
    ));
    for chip in ["contract kept", "wrapped by the SDK", "text mirrors it"] {
        assert!(has_text(&window.harness, chip), "the chip {chip}");
    }
    window.until_recorded("the call in the history", 1);
    window.until_latency_known("add");
    window.mask_durations();
    snapshots.add(window.harness.try_snapshot("main_add"));
}

#[test]
fn broken_contract_shows_each_violation() {
    let mut window = Window::connected("broken");
    let mut snapshots = SnapshotResults::new();
    window.select_tool("broken_contract");
    window.call();
    window.step_until("the analysis", |h| has_text(h, "contract broken (3)"));
    assert!(has_text(
        &window.harness,
        "The structuredContent breaks the tool's output schema (3 problems)"
    ));
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "is_success (missing, required)")
            .is_some(),
        "the missing property is a ghost row in the tree"
    );
    for place in [
        "/value should be an integer, but it is the string \"three\"",
        "/operation should be a string, but it is the number 7",
        "the property \"is_success\" is required",
    ] {
        assert!(
            has_text(&window.harness, place),
            "violation {place} is listed"
        );
    }
    // Clicking a violation selects its node in the tree.
    window.click_containing("/value should be");
    let pointer = window
        .harness
        .state()
        .selected_pointer(DEMO_SERVER, "broken_contract");
    assert_eq!(pointer.as_deref(), Some("/value"));
    // The node's note, cut on its row, is read whole below the tree.
    window.harness.run_ok();
    assert!(
        window
            .harness
            .query_by_label("should be an integer, but it is the string \"three\"")
            .is_some(),
        "the selected node's note in full"
    );
    window.until_latency_known("broken_contract");
    window.mask_durations();
    snapshots.add(window.harness.try_snapshot("broken_contract"));
}

#[test]
fn cancel_stops_the_long_running_tool() {
    let mut window = Window::connected("cancel");
    window.select_tool("slow_task");
    window.call();
    window.step_until("progress", |h| has_text(h, "step 1 of 10"));
    window.harness.get_by_label("Cancel").click();
    window.step_until("the call to end", |h| {
        h.query_by_role_and_label(Role::Label, "Cancelled")
            .is_some()
    });
    assert!(
        !has_text(&window.harness, "The call failed"),
        "a cancel the user asked for is not a failure"
    );
    assert!(
        window.harness.query_by_label("Call").is_some(),
        "the Call button is back"
    );
    let tap = window.harness.state().tap(DEMO_SERVER).unwrap();
    assert!(
        tap.messages()
            .iter()
            .any(|m| m.label == "notifications/cancelled"),
        "the server was told"
    );
    // A cancelled call is kept in the history too.
    window.until_recorded("the cancelled call in the history", 1);
}

#[test]
fn chaining_fills_format_table_from_query_db_rows() {
    let mut window = Window::connected("chain");
    let mut snapshots = SnapshotResults::new();
    window.select_tool("query_db");
    window.type_into("sql", "SELECT name, city FROM users");
    window.call();
    window.step_until("the rows", |h| {
        h.query_by_role_and_label(Role::TreeItem, "rows").is_some()
    });
    window
        .harness
        .get_by_role_and_label(Role::TreeItem, "rows")
        .click_secondary();
    window.harness.run_ok();
    window.harness.get_by_label("Use as argument of…").click();
    window.harness.run_ok();
    // format_table takes an array, so it is offered first, and chosen already.
    assert!(has_text(
        &window.harness,
        "Tools with an argument that takes an array"
    ));
    window.type_into("Search tools", "format");
    // The dialog's entry is drawn after the tool list's entry of the same name.
    window
        .harness
        .query_all_by_label("format_table")
        .last()
        .unwrap()
        .click();
    window.harness.run_ok();
    window.mask_durations();
    snapshots.add(window.harness.try_snapshot("chaining_dialog"));
    window.harness.get_by_label("Fill in").click();
    window.harness.run_ok();
    assert!(has_text(
        &window.harness,
        "`data` was filled in from query_db /rows"
    ));
    let arguments = window
        .harness
        .state()
        .arguments(DEMO_SERVER, "format_table")
        .unwrap();
    assert_eq!(arguments["data"][0]["name"], "Ada");
    window.call();
    window.step_until("the table", |h| has_text(h, "| name | city |"));
}

#[test]
fn chinese_text_and_images_render() {
    let mut window = Window::connected("zh");
    // The tool's title is Chinese; the harness fails on any glyph it cannot draw.
    window.select_tool("天气查询");
    window.type_into("city", "北京");
    window.call();
    window.step_until("the Chinese result", |h| has_text(h, "北京今天"));
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "城市")
            .is_some()
    );
    window.select_tool("chart");
    window.harness.get_by_label("JSON").click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("Arguments (JSON)")
        .set_text_value_accesskit(r#"{"values": [10, 60, 90]}"#);
    window.harness.run_ok();
    window.call();
    window.step_until("the chart", |h| has_text(h, "image block 0 (image/png)"));
}
