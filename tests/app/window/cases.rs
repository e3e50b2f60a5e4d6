//! The Cases tab: calls saved as cases, a case written by hand, the file reloaded when it
//! changes on disk, and a run whose failure is spelled out.

use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text};

#[test]
fn calls_saved_as_cases_run_from_the_cases_tab_with_the_failure_spelled_out() {
    let mut window = Window::connected("cases");
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("qa.toml");
    let saves = [
        ("add", &[("a", "4"), ("b", "5")][..], "add 4 5"),
        ("divide", &[("a", "1"), ("b", "0")][..], "divide by zero"),
    ];
    for (at, (tool, arguments, name)) in saves.iter().enumerate() {
        window.select_tool(tool);
        for (field, value) in *arguments {
            window.type_into(field, value);
        }
        window.call();
        window.step_until("the result", |h| has_text(h, "— what the model reads"));
        window.harness.get_by_label("Save as case…").click();
        window.harness.run_ok();
        window
            .harness
            .get_by_label("Case name")
            .set_text_value_accesskit(name);
        window
            .harness
            .get_by_label("Case file")
            .set_text_value_accesskit(&file.display().to_string());
        window.harness.run_ok();
        window.harness.get_by_label("Save").click();
        window.harness.run_ok();
        window.step_until("the case saved and opened", |h| {
            h.state()
                .model()
                .case_book()
                .file
                .as_ref()
                .is_some_and(|file| file.cases.len() == at + 1)
        });
    }
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.starts_with("# Toolscope cases"), "{saved}");
    assert!(saved.contains("demo = true"), "{saved}");
    assert!(saved.contains("name = \"add 4 5\""), "{saved}");
    assert!(saved.contains("is_error = true"), "{saved}");
    // A third case, written by hand, that fails on purpose.
    std::fs::write(
        &file,
        format!(
            "{saved}\n[[case]]\nname = \"add is ten (wrong)\"\ntool = \"add\"\narguments = \
             {{ a = 4, b = 5 }}\n[case.expect]\npointer = {{ \"/result\" = 10 }}\n"
        ),
    )
    .unwrap();
    window.harness.get_by_label("Cases").click();
    window.harness.run_ok();
    // The tab notices the change on disk and offers to read the file again.
    window.step_until("the change noticed", |h| {
        has_text(h, "The file changed on disk since it was read")
    });
    window.harness.get_by_label("Reload it").click();
    window.harness.run_ok();
    window.step_until("three cases listed", |h| {
        has_text(h, "add is ten (wrong) · add")
    });
    window.harness.get_by_label("Run all").click();
    window.harness.run_ok();
    window.step_until("the run's tally", |h| has_text(h, "2 passed, 1 failed"));
    window
        .harness
        .query_all_by_label_contains("add is ten (wrong) · add")
        .next()
        .unwrap()
        .click();
    window.harness.run_ok();
    window.step_until("the failing case shown", |h| {
        has_text(h, "pointer /result: expected 10, got 9")
            && has_text(h, "— what the application reads")
    });
    // The case's calls are in the history too.
    window.until_recorded("the runs recorded", 5);
}
