//! Every kind of answer a server sends, nested 10,000 levels deep, in the real window
//! (tests/fixtures/deep_answers_server.py): a resource read, a prompt got, a completion, a tool
//! result, a log message and an elicitation's schema. Each is shown (or said to be too deep)
//! and the window goes on; a stack overflow here aborts the whole test binary.

use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text, saved_stdio};

fn on_deep_server(name: &str) -> Window {
    let script = crate::support::repo_root().join("tests/fixtures/deep_answers_server.py");
    let server = saved_stdio("deep", "python3", &[script.display().to_string()]);
    let mut window = Window::setup(name).servers(vec![server]).open();
    window.step_until("the deep server to connect", |h| {
        has_text(h, "Connected: deep-answers")
    });
    window.harness.get_by_label("deep").click();
    window.harness.run_ok();
    window
}

#[test]
fn a_deep_resource_prompt_and_completion_are_shown_and_the_window_goes_on() {
    let mut window = on_deep_server("deep-features");
    window.tab("Resources");
    window.step_until("the resource listed", |h| has_text(h, "deep_meta"));
    window.click("deep_meta");
    window.click("Read");
    window.step_until("the resource read", |h| has_text(h, "deep resource text"));

    window.tab("Prompts");
    window.step_until("the prompt listed", |h| has_text(h, "deep_prompt"));
    window.click("deep_prompt");
    window.type_into("topic", "d");
    window.step_until("the completion", |h| h.query_by_label("deep-one").is_some());
    window.click("Get");
    window.step_until("the prompt got", |h| has_text(h, "deep prompt text"));
    // Both are kept in the history, and the window still answers.
    window.until_recorded("the read and the prompt kept", 2);
}

#[test]
fn a_deep_result_log_message_and_elicitation_schema_are_shown_and_the_window_goes_on() {
    let mut window = on_deep_server("deep-calls");
    window.step_until("the tools listed", |h| has_text(h, "3 tools"));
    window.select_tool("deep_result");
    window.call();
    window.step_until("the deep result", |h| has_text(h, "text differs"));

    window.select_tool("deep_log");
    window.call();
    window.step_until("the answer after the log message", |h| {
        has_text(h, "logged deep")
    });

    window.select_tool("deep_ask");
    window.call();
    window.step_until("the answer after the question", |h| {
        has_text(h, "asked deep")
    });
    window.until_recorded("the three calls kept", 3);
}

#[test]
fn a_task_status_nested_10000_deep_is_shown_and_the_task_lands() {
    let script = crate::support::repo_root().join("tests/fixtures/task_server.py");
    let server = saved_stdio("tasks", "python3", &[script.display().to_string()]);
    let mut window = Window::setup("deep-task").servers(vec![server]).open();
    window.step_until("the task server to connect", |h| {
        has_text(h, "Connected: tasks")
    });
    window.harness.get_by_label("tasks").click();
    window.harness.run_ok();
    window.select_tool("deep_status");
    window.call();
    window.step_until("the task landed", |h| has_text(h, "deep_status done"));
    assert!(has_text(&window.harness, "completed"));
}
