//! Two calls ticked in the history compared (arguments first, then the results) and written
//! as an HTML report through the window's own file dialog.

use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text};

#[test]
fn two_runs_of_a_tool_are_compared_and_reported_from_the_history() {
    let mut window = Window::connected("compare");
    window.select_tool("add");
    window.type_into("a", "4");
    window.type_into("b", "5");
    window.call();
    window.step_until("the first result", |h| {
        has_text(h, "— what the model reads")
    });
    // Typed after the 5: b is 56 now, and the sum 60.
    window.type_into("b", "6");
    window.call();
    window.until_recorded("both calls in the history", 2);
    window.open_history(2);
    window.mark(1);
    window.mark(2);
    window.harness.get_by_label("Compare").click();
    window.harness.run_ok();
    window.step_until("the comparison", |h| {
        has_text(h, "structuredContent (1 change: 1 changed)")
    });
    assert!(
        has_text(&window.harness, "/result: changed 9 → 60"),
        "the change, with its pointer"
    );
    // The calls differed first of all in their arguments: said before the results.
    assert!(has_text(&window.harness, "These are different calls:"));
    assert!(
        has_text(&window.harness, "• arguments: /b: changed 5 → 56"),
        "the argument that changed"
    );
    window.click_containing("Text (");
    assert!(has_text(&window.harness, "- 9"), "the old text, deleted");
    assert!(has_text(&window.harness, "+ 60"), "the new text, inserted");
    window.harness.get_by_label("Close the comparison").click();
    window.harness.run_ok();

    // Both marked calls as one HTML report.
    let folder = tempfile::tempdir().unwrap();
    let report = folder.path().join("qa.html");
    window.harness.get_by_label("Report…").click();
    window.harness.run_ok();
    // No desktop portal answers in a test: the window's own file dialog opens, in the
    // documents (or home) folder, never where Toolscope happens to run.
    window.step_until("the file dialog", |h| has_text(h, "Write a report"));
    let offered = window
        .harness
        .get_by_label("Folder")
        .value()
        .unwrap_or_default();
    assert!(std::path::Path::new(&offered).is_absolute(), "{offered}");
    assert_eq!(
        window.harness.get_by_label("File name").value().as_deref(),
        Some("toolscope-report.html")
    );
    window
        .harness
        .get_by_label("File name")
        .set_text_value_accesskit(&report.display().to_string());
    window.harness.run_ok();
    window.harness.get_by_label("Save").click();
    window.harness.run_ok();
    window.step_until("the report written", |h| {
        h.state()
            .model()
            .banner()
            .is_some_and(|banner| banner.starts_with("Wrote a report of 2 call(s)"))
    });
    // The banner names the whole path and offers to open the file or its folder.
    window.harness.run_ok();
    assert_eq!(
        window.harness.state().model().written_file(),
        Some(report.as_path())
    );
    assert!(window.harness.query_by_label("Open").is_some());
    assert!(window.harness.query_by_label("Show in folder").is_some());
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("Call #1") && html.contains("Call #2"),
        "both calls"
    );
    assert!(html.contains("&quot;result&quot;: 60"), "the second result");

    // The next file dialog starts where the report went, and lists it there.
    window.harness.get_by_label("Export…").click();
    window.harness.run_ok();
    assert_eq!(
        window.harness.get_by_label("Folder").value().as_deref(),
        Some(folder.path().display().to_string().as_str())
    );
    // A recording lists .json files only: the report is left out, and that is said.
    window.step_until("what was left out said", |h| {
        has_text(
            h,
            "Nothing to list · 1 other entry not listed (hidden, or not .json)",
        )
    });
    // Escape closes it, as it does every dialog.
    window.harness.key_press(egui::Key::Escape);
    window.harness.run_ok();
    assert!(window.harness.query_by_label("Folder").is_none(), "closed");
}
