//! The Import dialog: a server another client has, offered at start and connected in two
//! clicks; a pasted command line previewed and added.

use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text};

#[test]
fn a_server_another_client_has_is_offered_at_start_and_connects_in_two_clicks() {
    let setup = Window::setup("import");
    let dir = setup.dir().to_owned();
    let claude = dir.join("config/Claude/claude_desktop_config.json");
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    let fixture = crate::support::repo_root().join("tests/fixtures/task_server.py");
    std::fs::write(
        &claude,
        serde_json::json!({"mcpServers": {"tasks": {"command": "python3", "args": [fixture]}}})
            .to_string(),
    )
    .unwrap();
    let files =
        toolscope_core::import::known_files(&dir.join("home"), &dir.join("config"), None, None);
    let mut window = setup
        .options(move |options| options.import_files = Some(files))
        .open();
    window.step_until("the offer to import", |h| has_text(h, "Import (1)…"));
    window.harness.get_by_label("Import (1)…").click();
    window.harness.run_ok();
    window.step_until("the found server", |h| {
        has_text(h, "claude_desktop_config.json")
    });
    assert!(has_text(&window.harness, "Claude Desktop"));
    window.harness.get_by_label("Import and connect").click();
    window.harness.run_ok();
    window.step_until("the imported server to connect", |h| {
        has_text(h, "Connected: tasks 0.1.0")
    });
    assert!(
        has_text(&window.harness, "Import…"),
        "nothing left to import"
    );
    window.step_until("the settings to be written", |_| {
        std::fs::read_to_string(dir.join("settings.json"))
            .is_ok_and(|text| text.contains("task_server.py"))
    });
}

#[test]
fn a_pasted_command_line_is_previewed_and_added() {
    let mut window = Window::connected("import-paste");
    window.harness.get_by_label("Import…").click();
    window.harness.run_ok();
    window.harness.get_by_label("Paste").click();
    window.harness.run_ok();
    let fixture = crate::support::repo_root().join("tests/fixtures/task_server.py");
    window
        .harness
        .get_by_label("Pasted server")
        .set_text_value_accesskit(&format!("python3 {}", fixture.display()));
    window.harness.run_ok();
    window.step_until("the preview", |h| {
        h.query_by_label("Name")
            .is_some_and(|name| name.value().as_deref() == Some("task_server"))
    });
    // The guessed name can be changed before it is added.
    window
        .harness
        .get_by_label("Name")
        .set_text_value_accesskit("long tasks");
    window.harness.run_ok();
    window.harness.get_by_label("Add and connect").click();
    window.harness.run_ok();
    window.step_until("the pasted server to connect", |h| {
        has_text(h, "Connected: tasks 0.1.0")
    });
    assert!(
        window
            .harness
            .state()
            .model()
            .servers()
            .iter()
            .any(|server| server.name == "long tasks")
    );
}
