//! The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`) against a fixture server
//! that implements it (tests/fixtures/task_server.py): a call the server turns into a task is
//! polled with `tasks/get` to its result, an `input_required` task is answered with
//! `tasks/update`, a failed task is its JSON-RPC error, Cancel sends `tasks/cancel`, and a
//! client that does not declare the extension gets the answer at once.

#![allow(clippy::expect_used, reason = "tests fail loudly")]

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::Duration,
};

use crate::support::{json_of, repo_root, status, stderr, stdout, toolscope};
use serde_json::{Map, Value, json};
use toolscope_core::session::{
    ClientSide, ConnectOptions, DeclaredCapabilities, RequestControl, ServerConfig, Session,
    SessionError, Timeouts, events::ignore_events,
};

const TIMEOUT: Duration = Duration::from_secs(30);

fn script() -> String {
    repo_root()
        .join("tests/fixtures/task_server.py")
        .display()
        .to_string()
}

/// The fixture, writing what it was sent to `log`.
fn server(log: &Path) -> ServerConfig {
    ServerConfig::Stdio {
        command: "python3".to_owned(),
        args: vec![script(), format!("--log={}", log.display())],
        env: Default::default(),
        cwd: None,
    }
}

/// The fixture as `--stdio` takes it, writing what it was sent to `log`.
fn command_line(log: &Path) -> String {
    format!("python3 {} --log={}", script(), log.display())
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolscope-tasks-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join("requests.log")
}

fn sent(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

async fn connect(config: &ServerConfig, client_side: ClientSide) -> Session {
    let options = ConnectOptions {
        client_side,
        ..ConnectOptions::new(Timeouts::with_request(TIMEOUT), ignore_events())
    };
    Session::connect(config, options).await.expect("connects")
}

fn text_of(outcome: &toolscope_core::session::CallOutcome) -> String {
    outcome.response.member().to_value()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_task_is_polled_to_its_result_with_every_status_heard() {
    let log = scratch("sum");
    let session = connect(&server(&log), ClientSide::default()).await;
    let heard = Arc::new(Mutex::new(Vec::new()));
    let kept = heard.clone();
    let control = RequestControl {
        on_task_status: Arc::new(move |task_id: &str, status| {
            kept.lock()
                .expect("lock")
                .push(format!("{task_id} {}", status.describe()));
        }),
        ..RequestControl::with_timeouts(Timeouts::with_request(TIMEOUT))
    };
    let arguments: Map<String, Value> = json!({"a": 2, "b": 3})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let outcome = session
        .call_tool("slow_sum", arguments, &control)
        .await
        .expect("answered");
    assert_eq!(
        outcome
            .response
            .member()
            .get("structuredContent")
            .map(|s| s.to_value()),
        Some(json!({"sum": 5}))
    );
    let task = outcome.rounds.task.as_ref().expect("ran as a task");
    assert_eq!(task.task_id, "task-1-slow_sum");
    let statuses: Vec<String> = task.statuses.iter().map(|s| s.describe()).collect();
    assert_eq!(
        statuses,
        [
            "working: accepted",
            "working: adding, step 1 of 2",
            "working: adding, step 2 of 2",
            "completed",
        ]
    );
    assert!(task.result_from.is_some(), "the tasks/get that carried it");
    assert_eq!(
        heard.lock().expect("lock").len(),
        4,
        "each status heard once"
    );
    // The analysis reads the task's result as the call's, against the tool's output schema.
    let schema =
        json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]});
    let analysis = outcome.analyze(Some(&schema), "2026-07-28");
    assert_eq!(
        analysis.error_kind,
        toolscope_core::analysis::ErrorKind::Success
    );
    assert!(
        matches!(
            analysis.contract,
            toolscope_core::analysis::ContractCheck::Satisfied { .. }
        ),
        "{:?}",
        analysis.contract
    );
    session.close().await;
    let requests = sent(&log);
    assert!(requests.iter().any(|line| line.starts_with("tasks/get")));
    assert!(
        !requests.iter().any(|line| line.starts_with("tasks/result")),
        "no tasks/result in 2026-07-28"
    );
}

#[tokio::test]
async fn without_the_extension_declared_the_server_answers_at_once() {
    let log = scratch("undeclared");
    let side = ClientSide {
        declared: DeclaredCapabilities {
            tasks: false,
            ..DeclaredCapabilities::default()
        },
        ..ClientSide::default()
    };
    let session = connect(&server(&log), side).await;
    let outcome = session
        .call_tool(
            "slow_sum",
            Map::new(),
            &RequestControl::with_timeouts(Timeouts::with_request(TIMEOUT)),
        )
        .await
        .expect("answered");
    assert!(outcome.rounds.task.is_none());
    assert!(
        text_of(&outcome).contains("ran at once"),
        "{}",
        text_of(&outcome)
    );
    session.close().await;
}

#[tokio::test]
async fn cancelling_a_task_sends_tasks_cancel() {
    let log = scratch("cancel");
    let session = connect(&server(&log), ClientSide::default()).await;
    let control = RequestControl::with_timeouts(Timeouts::with_request(TIMEOUT));
    let cancel = control.cancel.clone();
    let control = RequestControl {
        // Cancelled once the task has been polled a few times.
        on_task_status: Arc::new(move |_: &str, status| {
            if status.status_message.as_deref() == Some("still going (poll 3)") {
                cancel.cancel();
            }
        }),
        ..control
    };
    let result = tokio::time::timeout(
        Duration::from_secs(20),
        session.call_tool("eternal", Map::new(), &control),
    )
    .await
    .expect("the cancel ends the call");
    assert!(
        matches!(result, Err(SessionError::Cancelled { .. })),
        "{result:?}"
    );
    session.close().await;
    assert!(
        sent(&log)
            .iter()
            .any(|line| line.starts_with("tasks/cancel") && line.contains("task-1-eternal")),
        "{:?}",
        sent(&log)
    );
}

#[tokio::test]
async fn a_task_that_asks_what_nobody_can_answer_is_cancelled_with_the_reason() {
    let log = scratch("unanswerable");
    // No asker: the form cannot be shown to anyone.
    let session = connect(&server(&log), ClientSide::unattended()).await;
    let result = session
        .call_tool(
            "confirm",
            Map::new(),
            &RequestControl::with_timeouts(Timeouts::with_request(TIMEOUT)),
        )
        .await;
    let Err(SessionError::Protocol { reason, .. }) = result else {
        panic!("expected the task to be given up: {result:?}");
    };
    assert!(reason.contains("could not give"), "{reason}");
    session.close().await;
    assert!(
        sent(&log)
            .iter()
            .any(|line| line.starts_with("tasks/cancel"))
    );
}

#[test]
fn call_answers_a_tasks_question_with_tasks_update_and_prints_the_task() {
    let log = scratch("cli-confirm");
    let line = command_line(&log);
    let output = toolscope(&[
        "call",
        "--stdio",
        &line,
        "confirm",
        "--elicit",
        "accept-defaults",
        "--no-history",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("confirmation: accept {\"sure\": true}"),
        "{text}"
    );
    assert!(text.contains("ran as task task-1-confirm"), "{text}");
    assert!(
        text.contains("input_required: waiting for a confirmation"),
        "{text}"
    );
    assert!(
        text.contains("confirm: asked for input: Go ahead with the order?"),
        "{text}"
    );
    assert!(text.contains("the result came with tasks/get #"), "{text}");
    let update = sent(&log)
        .into_iter()
        .find(|line| line.starts_with("tasks/update"))
        .expect("tasks/update sent");
    assert!(
        update.contains(
            r#""inputResponses": {"confirm": {"action": "accept", "content": {"sure": true}}}"#
        ),
        "{update}"
    );
    assert!(
        stderr(&output).contains("task task-1-confirm input_required"),
        "statuses as they come: {}",
        stderr(&output)
    );
}

#[test]
fn call_json_lists_the_task_and_a_failed_task_is_its_error() {
    let log = scratch("cli-json");
    let line = command_line(&log);
    let output = toolscope(&[
        "call",
        "--stdio",
        &line,
        "doomed",
        "--json",
        "--no-history",
        "--task",
    ]);
    let report = json_of(&output);
    assert_eq!(report["response"]["kind"], "rpc_error", "{report}");
    assert_eq!(report["response"]["value"]["code"], -32603);
    assert_eq!(report["task"]["task_id"], "task-1-doomed", "{report}");
    let last = report["task"]["statuses"]
        .as_array()
        .and_then(|statuses| statuses.last())
        .cloned()
        .unwrap_or_default();
    assert_eq!(last["status"], "failed");
    assert!(
        stderr(&output).contains("the server decides whether a call runs as a task"),
        "--task on a 2026-07-28 server says who decides: {}",
        stderr(&output)
    );
}

#[test]
fn a_task_the_server_forgets_is_given_up_after_repeated_failures() {
    let log = scratch("cli-vanishing");
    let line = command_line(&log);
    let output = toolscope(&["call", "--stdio", &line, "vanishing", "--no-history"]);
    assert_ne!(status(&output), 0);
    assert!(
        stderr(&output).contains("tasks/get failed 5 times in a row"),
        "{}",
        stderr(&output)
    );
    let polls = sent(&log)
        .iter()
        .filter(|line| line.starts_with("tasks/get"))
        .count();
    assert_eq!(polls, 5);
}

#[test]
fn the_history_keeps_a_calls_task_and_questions_and_a_recording_carries_them() {
    let log = scratch("history");
    let data = log.with_file_name("data");
    let line = command_line(&log);
    let output = crate::support::toolscope_with_data(
        &data,
        &[
            "call",
            "--stdio",
            &line,
            "confirm",
            "--elicit",
            "accept-defaults",
        ],
    );
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let listed = json_of(&crate::support::toolscope_with_data(
        &data,
        &["history", "--json"],
    ));
    let id = listed[0]["id"]
        .as_i64()
        .expect("the call is listed")
        .to_string();
    let shown = stdout(&crate::support::toolscope_with_data(
        &data,
        &["history", "show", &id],
    ));
    assert!(shown.contains("ran as task task-1-confirm"), "{shown}");
    assert!(
        shown.contains("input_required: waiting for a confirmation"),
        "{shown}"
    );
    assert!(
        shown.contains("confirm: asked for input: Go ahead with the order?"),
        "{shown}"
    );
    // Through a recording, read by another Toolscope.
    let recording = data.join("recording.json");
    let recording_path = recording.display().to_string();
    let exported = crate::support::toolscope_with_data(
        &data,
        &["history", "export", "--output", &recording_path],
    );
    assert_eq!(status(&exported), 0, "{}", stderr(&exported));
    let elsewhere = log.with_file_name("elsewhere");
    let replayed = stdout(&crate::support::toolscope_with_data(
        &elsewhere,
        &["history", "show", "1", "--recording", &recording_path],
    ));
    assert!(
        replayed.contains("ran as task task-1-confirm"),
        "{replayed}"
    );
}

/// Calls `tool` and expects the task given up (a protocol error) within `seconds`: its reason.
async fn given_up(session: &Session, tool: &str, seconds: u64) -> String {
    let result = tokio::time::timeout(
        Duration::from_secs(seconds),
        session.call_tool(
            tool,
            Map::new(),
            &RequestControl::with_timeouts(Timeouts::with_request(TIMEOUT)),
        ),
    )
    .await
    .expect("given up well before the call's deadline");
    let Err(SessionError::Protocol { reason, .. }) = result else {
        panic!("expected the task to be given up: {result:?}");
    };
    reason
}

#[tokio::test]
async fn a_task_waiting_for_what_was_refused_is_cancelled_instead_of_polled_for_ever() {
    let log = scratch("in-vain");
    // Elicitation answered (accepted), sampling not declared: half the task's questions.
    let asker = toolscope_core::session::asker_fn(|_ask| async {
        toolscope_core::session::AskReply::Result {
            result: json!({"action": "accept", "content": {}}),
        }
    });
    let side = ClientSide {
        declared: DeclaredCapabilities {
            sampling: false,
            ..DeclaredCapabilities::default()
        },
        asker: Some(asker),
        ..ClientSide::default()
    };
    let session = connect(&server(&log), side).await;
    let reason = given_up(&session, "two_questions", 20).await;
    assert!(
        reason.contains("waits for input Toolscope cannot give"),
        "{reason}"
    );
    assert!(reason.contains("\"model\""), "{reason}");
    session.close().await;
    let requests = sent(&log);
    assert!(
        requests
            .iter()
            .any(|line| line.starts_with("tasks/update") && line.contains("confirm"))
    );
    assert!(requests.iter().any(|line| line.starts_with("tasks/cancel")));
}

#[tokio::test]
async fn a_task_that_never_stops_asking_is_cut_off() {
    let log = scratch("asks-forever");
    let session = connect(&server(&log), ClientSide::default()).await;
    let reason = given_up(&session, "asks_forever", 60).await;
    assert!(reason.contains("asked more than 800 things"), "{reason}");
    session.close().await;
    assert!(
        sent(&log)
            .iter()
            .any(|line| line.starts_with("tasks/cancel"))
    );
}
