//! The window's own file dialog (where no desktop portal answers): folders browsed, only the
//! files that fit listed, and a file asked about before it is replaced.

use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text};

/// Where no desktop portal answers (a bare X server, a test), the window's own file dialog
/// browses folders, keeps to the files that fit, and asks before it replaces a file.
#[test]
fn the_windows_own_file_dialog_browses_folders_and_asks_before_replacing() {
    let folder = tempfile::tempdir().unwrap();
    let sub = folder.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(
        sub.join("cases.toml"),
        "[server]\ndemo = true\n\n[[case]]\nname = \"add\"\ntool = \"add\"\narguments = { a = 1, b = 2 }\n",
    )
    .unwrap();
    std::fs::write(sub.join("notes.txt"), "not a case file").unwrap();
    std::fs::write(sub.join("old.html"), "an old report").unwrap();
    let mut window = Window::connected("file-dialog");

    // Cases → Browse…: into the folder by its path, into `sub` by a click, the file by a click.
    window.harness.get_by_label("Cases").click();
    window.harness.run_ok();
    window.harness.get_by_label("Browse…").click();
    window.harness.run_ok();
    window.step_until("the dialog", |h| has_text(h, "Open a case file"));
    window.go_to_folder(folder.path());
    window.step_until("the folder listed", |h| h.query_by_label("sub").is_some());
    window.harness.get_by_label("sub").click();
    window.harness.run_ok();
    window.step_until("sub listed", |h| h.query_by_label("cases.toml").is_some());
    assert!(
        window.harness.query_by_label("notes.txt").is_none(),
        "a case file is .toml: other files are not listed"
    );
    assert!(has_text(
        &window.harness,
        "1 entry · 2 other entries not listed"
    ));
    window.harness.get_by_label("cases.toml").click();
    window.harness.run_ok();
    // The dialog's Open (the Cases tab has one too, under the dialog).
    window
        .harness
        .query_all_by_label("Open")
        .last()
        .unwrap()
        .click();
    window.harness.run_ok();
    window.step_until("the case file opened", |h| {
        h.state()
            .model()
            .case_book()
            .file
            .as_ref()
            .is_some_and(|file| file.cases.len() == 1)
    });
    assert_eq!(
        window.harness.state().model().case_book().path.as_deref(),
        Some(sub.join("cases.toml").as_path())
    );

    // A report named like a file there: asked first; kept, then replaced.
    window.harness.get_by_label("Tools").click();
    window.harness.run_ok();
    window.select_tool("add");
    window.call();
    window.until_recorded("the call in the history", 1);
    // Save as case → Choose…: a case is added to the end of a file, so no "replace?".
    window.harness.get_by_label("Save as case…").click();
    window.harness.run_ok();
    window.harness.get_by_label("Choose…").click();
    window.harness.run_ok();
    window.step_until("the case file's folder listed", |h| {
        h.query_by_label("cases.toml").is_some()
    });
    window.harness.get_by_label("cases.toml").click();
    window.harness.run_ok();
    window
        .harness
        .query_all_by_label("Save")
        .last()
        .unwrap()
        .click();
    window.harness.run_ok();
    assert!(!has_text(&window.harness, "exists already."));
    assert_eq!(
        window.harness.get_by_label("Case file").value().as_deref(),
        Some(sub.join("cases.toml").display().to_string().as_str())
    );
    window.harness.key_press(egui::Key::Escape);
    window.harness.run_ok();
    window.open_history(1);
    window.mark(1);
    window.harness.get_by_label("Report…").click();
    window.harness.run_ok();
    window.step_until("the last folder listed", |h| {
        h.query_by_label("old.html").is_some()
    });
    window.harness.get_by_label("old.html").click();
    window.harness.run_ok();
    window.harness.get_by_label("Save").click();
    window.harness.run_ok();
    assert!(has_text(&window.harness, "old.html exists already."));
    window.harness.get_by_label("Keep it").click();
    window.harness.run_ok();
    assert_eq!(
        std::fs::read_to_string(sub.join("old.html")).unwrap(),
        "an old report"
    );
    window.harness.get_by_label("Save").click();
    window.harness.run_ok();
    window.harness.get_by_label("Replace it").click();
    window.harness.run_ok();
    window.step_until("the report written", |h| {
        h.state()
            .model()
            .banner()
            .is_some_and(|banner| banner.starts_with("Wrote a report of 1 call(s)"))
    });
    assert!(
        std::fs::read_to_string(sub.join("old.html"))
            .unwrap()
            .contains("Call #1")
    );
}
