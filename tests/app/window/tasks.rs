//! Tasks: a task tool run as a task that asks midway, and a call the server turns into a task,
//! each with its status shown and its question answered.

use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text, saved_stdio};

#[test]
fn a_task_tool_runs_as_a_task_asks_midway_and_lands_with_its_statuses() {
    let Some(mut window) = Window::on_everything("asks-task") else {
        return;
    };
    window.select_tool_titled("simulate-research-query", "Simulate Research Query");
    window.step_until("the topic argument", |h| {
        h.query_all_by_label("topic").next().is_some()
    });
    window.type_into("topic", "rust");
    window.harness.get_by_label("JSON").click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("Arguments (JSON)")
        .set_text_value_accesskit(r#"{"topic": "rust", "ambiguous": true}"#);
    window.harness.run_ok();
    window.call();
    window.step_until("the task's status", |h| has_text(h, "Task "));
    window.step_until("the clarification question", |h| {
        has_text(h, "could have multiple interpretations")
    });
    window.harness.get_by_label("Decline").click();
    window.harness.run_ok();
    window.step_until("the report", |h| has_text(h, "Research Report: rust"));
    assert!(has_text(&window.harness, "as a task ("));
    assert!(has_text(&window.harness, "input_required"));
    assert!(has_text(&window.harness, "completed"));
}

#[test]
fn a_call_the_server_turns_into_a_task_shows_its_status_and_answers_its_question() {
    let script = crate::support::repo_root().join("tests/fixtures/task_server.py");
    let server = saved_stdio("tasks", "python3", &[script.display().to_string()]);
    let mut window = Window::setup("asks-task-extension")
        .servers(vec![server])
        .open();
    window.step_until("the task server to connect", |h| {
        has_text(h, "Connected: tasks")
    });
    window.harness.get_by_label("tasks").click();
    window.harness.run_ok();
    window.select_tool("confirm");
    window.call();
    // The question waits for the person, and the task's status line stays while it does.
    window.step_until("the task's question", |h| {
        has_text(h, "Go ahead with the order?")
    });
    window.step_until("the task's status line", |h| {
        has_text(
            h,
            "Task task-1-confirm · input_required: waiting for a confirmation",
        )
    });
    window.harness.get_by_label("Accept").click();
    window.harness.run_ok();
    window.step_until("the result", |h| has_text(h, "confirmation: accept"));
    assert!(has_text(&window.harness, "as a task ("));
    assert!(has_text(
        &window.harness,
        "The result came with tasks/get #"
    ));
}
