//! The History tab: a call found there, shown as it was, noted and edited again; the list as a
//! full-height table whose rows stay put; marked calls exported as a recording and opened
//! offline in another window.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use toolscope::ui::DEMO_SERVER;

use super::harness::{Window, has_text};

#[test]
fn a_call_is_found_in_the_history_shown_as_it_was_noted_and_edited() {
    let mut window = Window::connected("history");
    window.select_tool("add");
    window.type_into("a", "4");
    window.type_into("b", "5");
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    window.until_recorded("the call in the history", 1);
    window.harness.get_by_label("History").click();
    window.harness.run_ok();
    window.step_until("the history list", |h| {
        h.query_all_by_label_contains("add · ok").next().is_some()
    });
    window.click_containing("add · ok");
    window.step_until("the call shown from the history", |h| {
        has_text(h, "History #1") && has_text(h, "— what the application reads")
    });
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "result")
            .is_some(),
        "its structuredContent, as it was"
    );
    window.type_into("Note", "nine, as expected");
    window.harness.get_by_label("Save note").click();
    window.harness.run_ok();
    window.step_until("the note kept", |h| {
        h.state()
            .model()
            .history_browser()
            .calls
            .first()
            .is_some_and(|call| call.note == "nine, as expected")
    });
    // Edit and run: back at the tool, its form holding the arguments of that call.
    window.harness.get_by_label("Edit and run").click();
    window.harness.run_ok();
    window.step_until("the tool's form", |h| h.query_by_label("Call").is_some());
    let arguments = window
        .harness
        .state()
        .model()
        .remembered_arguments(&toolscope::workbench::ToolKey::new(DEMO_SERVER, "add"));
    assert!(arguments.is_some(), "the tool is shown again");
    assert_eq!(
        window.harness.get_by_label("a").value().as_deref(),
        Some("4"),
        "the form holds a = 4"
    );
}

/// The history has the sidebar's whole height (the server cards make way), a server column,
/// and ticking a call never moves the rows under the pointer.
#[test]
fn the_history_is_a_full_height_table_whose_rows_stay_put_when_ticked() {
    let mut window = Window::open("tick-rows");
    window.step_until("the demo server's tools", |h| has_text(h, "13 tools"));
    window.select_tool("add");
    for _ in 0..3 {
        window.call();
        window.step_until("the result", |h| has_text(h, "— what the model reads"));
    }
    window.until_recorded("the calls in the history", 3);
    window.open_history(3);
    assert!(
        window.harness.query_by_label("Disconnect").is_none(),
        "the server cards make way for the history"
    );
    let newest = window.harness.get_by_label("Mark call #3").rect();
    assert!(
        newest.top() < 240.0,
        "the rows start near the top: {newest:?}"
    );
    // Each row names its server, then the tool and the verdict, in columns with titles.
    for title in ["Time (UTC)", "Server", "Tool", "Verdict"] {
        assert!(has_text(&window.harness, title), "{title}");
    }
    let row = window
        .harness
        .query_all_by_label_contains("Built-in demo · add · ")
        .count();
    assert_eq!(row, 3, "three rows with the server's name");
    let before = window.harness.get_by_label("Mark call #2").rect();
    window.mark(3);
    let after = window.harness.get_by_label("Mark call #2").rect();
    assert_eq!(before, after, "the row moved when another was ticked");
}

#[test]
fn marked_calls_exported_as_a_recording_open_in_another_window_offline() {
    let folder = tempfile::tempdir().unwrap();
    let recording = folder.path().join("session.json");
    {
        let mut window = Window::connected("export");
        window.select_tool("add");
        window.type_into("a", "20");
        window.type_into("b", "22");
        window.call();
        window.step_until("the result", |h| has_text(h, "— what the model reads"));
        window.until_recorded("the call in the history", 1);
        window.open_history(1);
        window.mark(1);
        window.harness.get_by_label("Export…").click();
        window.harness.run_ok();
        window
            .harness
            .get_by_label("File name")
            .set_text_value_accesskit(&recording.display().to_string());
        window.harness.run_ok();
        window.harness.get_by_label("Save").click();
        window.harness.run_ok();
        window.step_until("the recording written", |h| {
            h.state()
                .model()
                .banner()
                .is_some_and(|banner| banner.starts_with("Wrote a recording of 1 call(s)"))
        });
    }
    // Another Toolscope, whose own history is empty, opens it.
    let mut window = Window::open("offline");
    window.harness.get_by_label("History").click();
    window.harness.run_ok();
    // Offered once the window's own history is open (a loaded machine may take a moment).
    window.step_until("the history open", |h| h.query_by_label("More").is_some());
    window.menu_item("More", "Open recording…");
    // The recording's folder, then the recording itself: a click picks it, Open opens it.
    window.go_to_folder(folder.path());
    window.step_until("the folder listed", |h| {
        h.query_by_label("session.json").is_some()
    });
    window.harness.get_by_label("session.json").click();
    window.harness.run_ok();
    assert_eq!(
        window.harness.get_by_label("File name").value().as_deref(),
        Some("session.json")
    );
    window.harness.get_by_label("Open").click();
    window.harness.run_ok();
    window.step_until("the recording listed", |h| {
        has_text(h, "Recording session.json · 1 calls") && has_text(h, "add · ok")
    });
    window.click_containing("add · ok");
    window.step_until("the call shown as it was", |h| {
        has_text(h, "Recording session.json · call #1")
            && has_text(h, "— what the application reads")
    });
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "result")
            .is_some(),
        "its structuredContent, as it was"
    );
    assert!(has_text(&window.harness, "42"), "the text the model read");
    window.harness.get_by_label("Back to your history").click();
    window.harness.run_ok();
    window.step_until("the own history again", |h| {
        h.query_by_label("More").is_some()
    });
}
