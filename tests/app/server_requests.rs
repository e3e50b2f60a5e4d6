//! What a server asks of the client: elicitation, sampling and roots as server requests
//! (2025-11-25, server-everything) and as `input_required` rounds (2026-07-28, the official
//! Python SDK and a hand-written fixture), through the session layer and `toolscope call`.

#![allow(clippy::expect_used, reason = "tests fail loudly")]

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use crate::support::{json_of, peer_available, repo_root, status, stderr, toolscope};
use serde_json::{Map, Value, json};
use toolscope_core::session::{
    AnsweredBy, AskOrigin, AskReply, Asker, ClientRoot, ClientSide, ConnectOptions,
    DeclaredCapabilities, RequestControl, ServerAsk, ServerConfig, Session, Timeouts,
    asks::client_side::RootsList, events::ignore_events, transports::tap::Direction,
};

const TIMEOUT: Duration = Duration::from_secs(30);

fn python_peer() -> Option<ServerConfig> {
    let root = repo_root();
    let python = root.join("tests/peers/python/.venv/bin/python");
    peer_available(&python, "the Python `mcp` peer").then(|| ServerConfig::Stdio {
        command: python.display().to_string(),
        args: vec![
            root.join("tests/peers/python/server.py")
                .display()
                .to_string(),
        ],
        env: Default::default(),
        cwd: None,
    })
}

fn everything() -> Option<ServerConfig> {
    crate::support::everything_entry().map(|entry| ServerConfig::Stdio {
        command: "node".to_owned(),
        args: vec![entry.display().to_string()],
        env: Default::default(),
        cwd: None,
    })
}

fn fixture() -> ServerConfig {
    let script = repo_root().join("tests/fixtures/hostile_stdio_server.py");
    ServerConfig::Stdio {
        command: "python3".to_owned(),
        args: vec![script.display().to_string(), "--discover=modern".to_owned()],
        env: Default::default(),
        cwd: None,
    }
}

/// A stdio server as the command line `--stdio` takes it.
fn command_line(config: Option<ServerConfig>) -> Option<String> {
    match config? {
        ServerConfig::Stdio { command, args, .. } => Some(format!("{command} {}", args.join(" "))),
        _ => None,
    }
}

/// An asker that answers with `reply` and remembers every ask it saw.
fn recording_asker(reply: fn(&ServerAsk) -> AskReply) -> (Asker, Arc<Mutex<Vec<ServerAsk>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    let asker: Asker = toolscope_core::session::asker_fn(move |ask: ServerAsk| {
        kept.lock().expect("lock").push(ask.clone());
        let answer = reply(&ask);
        async move { answer }
    });
    (asker, seen)
}

fn accept(content: Value) -> AskReply {
    AskReply::Result {
        result: json!({"action": "accept", "content": content}),
    }
}

async fn connect(config: &ServerConfig, client_side: ClientSide) -> Session {
    let options = ConnectOptions {
        client_side,
        ..ConnectOptions::new(Timeouts::with_request(TIMEOUT), ignore_events())
    };
    Session::connect(config, options).await.expect("connects")
}

async fn call(
    session: &Session,
    tool: &str,
    arguments: Value,
) -> toolscope_core::session::CallOutcome {
    let arguments: Map<String, Value> = arguments.as_object().cloned().unwrap_or_default();
    session
        .call_tool(
            tool,
            arguments,
            &RequestControl::with_timeouts(Timeouts::with_request(TIMEOUT)),
        )
        .await
        .expect("answered")
}

fn result_text(outcome: &toolscope_core::session::CallOutcome) -> String {
    outcome
        .response
        .member()
        .to_value()
        .get("content")
        .and_then(|content| content.get(0))
        .and_then(|block| block.get("text"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// How many of server-everything's tools that ask the client it offers.
async fn asking_tools(session: &Session) -> usize {
    let catalog = session
        .list_tools(Timeouts::with_request(TIMEOUT))
        .await
        .expect("lists");
    [
        "get-roots-list",
        "trigger-elicitation-request",
        "trigger-sampling-request",
    ]
    .iter()
    .filter(|name| catalog.find(name).is_some())
    .count()
}

#[tokio::test]
async fn server_everything_offers_its_asking_tools_only_when_they_are_declared() {
    let Some(config) = everything() else {
        return;
    };
    let declared = connect(&config, ClientSide::default()).await;
    assert_eq!(asking_tools(&declared).await, 3);
    declared.close().await;
    let bare = ClientSide {
        declared: DeclaredCapabilities::none(),
        ..ClientSide::default()
    };
    let undeclared = connect(&config, bare).await;
    assert_eq!(asking_tools(&undeclared).await, 0);
    undeclared.close().await;
}

#[tokio::test]
async fn server_everything_elicitation_and_sampling_reach_the_asker_with_their_params() {
    let Some(config) = everything() else {
        return;
    };
    let (asker, seen) = recording_asker(|ask| match ask.method.as_str() {
        "elicitation/create" => accept(json!({"name": "Ada Lovelace", "check": true})),
        _ => AskReply::Result {
            result: json!({"role": "assistant", "content": {"type": "text", "text": "A reply"},
                           "model": "by-hand", "stopReason": "endTurn"}),
        },
    });
    let side = ClientSide {
        asker: Some(asker),
        ..ClientSide::default()
    };
    let session = connect(&config, side).await;
    let elicited = call(&session, "trigger-elicitation-request", json!({})).await;
    assert!(
        result_text(&elicited).contains("provided the requested information"),
        "{}",
        result_text(&elicited)
    );
    let exchange = elicited
        .rounds
        .exchanges
        .iter()
        .find(|exchange| exchange.ask.method == "elicitation/create")
        .expect("the elicitation is a round of the call");
    assert_eq!(exchange.answered_by, AnsweredBy::Asker);
    assert!(matches!(exchange.ask.origin, AskOrigin::Request { .. }));
    // The raw params, with what rmcp's typed schema would not keep (titles of enum options).
    let schema = &exchange.ask.params["requestedSchema"]["properties"];
    assert_eq!(
        schema["titledSingleSelectEnum"]["oneOf"][0]["title"],
        "Superman"
    );

    let sampled = call(
        &session,
        "trigger-sampling-request",
        json!({"prompt": "Hi"}),
    )
    .await;
    assert!(
        result_text(&sampled).contains("A reply"),
        "{}",
        result_text(&sampled)
    );
    let asks = seen.lock().expect("lock").clone();
    assert_eq!(asks.len(), 2);
    assert_eq!(asks[1].method, "sampling/createMessage");
    assert!(asks[1].params["messages"].is_array());
    session.close().await;
}

#[tokio::test]
async fn server_everything_roots_come_from_the_list_and_a_change_is_announced() {
    let Some(config) = everything() else {
        return;
    };
    let side = ClientSide {
        roots: RootsList::new(vec![ClientRoot {
            uri: "file:///srv/first".to_owned(),
            name: Some("first".to_owned()),
        }]),
        ..ClientSide::default()
    };
    let session = connect(&config, side).await;
    let listed = call(&session, "get-roots-list", json!({})).await;
    assert!(
        result_text(&listed).contains("file:///srv/first"),
        "{}",
        result_text(&listed)
    );
    let changed = session
        .set_roots(vec![ClientRoot {
            uri: "file:///srv/second".to_owned(),
            name: None,
        }])
        .await
        .expect("sent");
    assert!(changed);
    let sent = session.tap().messages().iter().any(|entry| {
        entry.direction == Direction::ToServer
            && entry.text.contains("notifications/roots/list_changed")
    });
    assert!(sent, "the server is told the roots changed");
    // The server asks again after the notification; the next call sees the new list.
    let mut text = String::new();
    for _ in 0..50 {
        text = result_text(&call(&session, "get-roots-list", json!({})).await);
        if text.contains("second") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(text.contains("file:///srv/second"), "{text}");
    session.close().await;
}

#[tokio::test]
async fn a_python_sdk_tool_that_elicits_completes_through_input_required_rounds() {
    let Some(config) = python_peer() else {
        return;
    };
    let (asker, seen) = recording_asker(|ask| {
        if ask.params["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Book")
        {
            accept(json!({"sure": true}))
        } else {
            accept(json!({"date": "2026-12-24", "guests": 4}))
        }
    });
    let side = ClientSide {
        asker: Some(asker),
        ..ClientSide::default()
    };
    let session = connect(&config, side).await;
    assert_eq!(session.summary().protocol_version, "2026-07-28");
    let booked = call(&session, "book_twice", json!({})).await;
    assert_eq!(result_text(&booked), "Booked: 2026-12-24 for 4.");
    assert_eq!(booked.rounds.earlier.len(), 2, "two questions, two rounds");
    let asks = seen.lock().expect("lock").clone();
    assert_eq!(asks.len(), 2);
    assert!(matches!(
        &asks[0].origin,
        AskOrigin::InputRequired { round: 1, .. }
    ));
    assert!(matches!(
        &asks[1].origin,
        AskOrigin::InputRequired { round: 2, .. }
    ));
    // Each round is a new JSON-RPC request.
    let mut ids: Vec<&str> = booked
        .rounds
        .earlier
        .iter()
        .map(|round| round.request_id.as_str())
        .collect();
    ids.push(&booked.request_id);
    ids.dedup();
    assert_eq!(ids.len(), 3, "{ids:?}");
    session.close().await;
}

#[tokio::test]
async fn a_declined_sampling_round_stops_the_call_instead_of_asking_for_ever() {
    let Some(config) = python_peer() else {
        return;
    };
    let (asker, _) = recording_asker(|_| AskReply::refused(-1, "no model here"));
    let side = ClientSide {
        asker: Some(asker),
        ..ClientSide::default()
    };
    let session = connect(&config, side).await;
    let outcome = call(&session, "haiku", json!({"topic": "rust"})).await;
    assert!(outcome.rounds.earlier.is_empty());
    let stopped = outcome.rounds.stopped.clone().expect("stopped");
    assert!(stopped.contains("nothing the server asked"), "{stopped}");
    let analysis = outcome.analyze(None, "2026-07-28");
    assert!(!analysis.is_conforming_success());
    session.close().await;
}

#[tokio::test]
async fn request_state_is_echoed_exactly_and_a_server_that_keeps_asking_is_cut_off() {
    let config = fixture();
    let session = connect(&config, ClientSide::default()).await;
    let echoed = call(&session, "state_echo", json!({})).await;
    assert_eq!(
        result_text(&echoed),
        r#"state echoed exactly; roots []"#,
        "the fixture compares the echoed requestState with what it sent"
    );
    let forever = call(&session, "ask_forever", json!({})).await;
    assert_eq!(
        forever.rounds.earlier.len(),
        toolscope_core::session::tasks::input_rounds::MAX_ROUNDS
    );
    assert!(forever.rounds.stopped.is_some());
    session.close().await;
}

#[test]
fn call_answers_by_its_flags_and_lists_the_rounds() {
    let Some(server) = command_line(everything()) else {
        return;
    };
    let run = |extra: &[&str]| {
        let mut argv = vec!["call", "--stdio", &server, "--json", "--no-history"];
        argv.extend_from_slice(extra);
        toolscope(&argv)
    };
    let output = run(&[
        "trigger-elicitation-request",
        "--elicit-answer",
        r#"{"name":"Ada"}"#,
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let doc = json_of(&output);
    let asked = &doc["rounds"][0]["asked"][0];
    assert_eq!(asked["ask"]["method"], "elicitation/create");
    assert_eq!(asked["reply"]["result"]["action"], "accept");

    let doc = json_of(&run(&["trigger-elicitation-request"]));
    assert_eq!(
        doc["rounds"][0]["asked"][0]["reply"]["result"]["action"],
        "decline"
    );

    let doc = json_of(&run(&[
        "trigger-sampling-request",
        "--arg",
        "prompt=Hi",
        "--sample",
        "By hand",
    ]));
    let text = doc["response"]["value"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("By hand"), "{text}");

    let folder = tempfile::tempdir().expect("a folder");
    let root = folder.path().display().to_string();
    let doc = json_of(&run(&["get-roots-list", "--root", &root]));
    let text = doc["response"]["value"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("file:///"), "{text}");

    let output = run(&["get-roots-list", "--elicit-answer", "[1]"]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("must be a JSON object"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn call_follows_a_python_sdk_tool_through_its_rounds_in_text_and_json() {
    let Some(server) = command_line(python_peer()) else {
        return;
    };
    let output = toolscope(&[
        "call",
        "--stdio",
        &server,
        "book_table",
        "--arg",
        "restaurant=Noma",
        "--elicit-answer",
        r#"{"date":"2026-12-24","guests":4}"#,
        "--no-history",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let text = crate::support::stdout(&output);
    assert!(text.contains("1. tools/call #"), "{text}");
    assert!(text.contains("→ input_required"), "{text}");
    assert!(text.contains("Booked Noma on 2026-12-24 for 4."), "{text}");

    let output = toolscope(&[
        "call",
        "--stdio",
        &server,
        "book_table",
        "--arg",
        "restaurant=Noma",
        "--elicit",
        "cancel",
        "--json",
        "--no-history",
    ]);
    let doc = json_of(&output);
    assert_eq!(doc["rounds"][0]["result_type"], "input_required");
    assert_eq!(doc["rounds"][1]["result_type"], "final");
    assert_eq!(
        doc["response"]["value"]["structuredContent"]["result"],
        "No booking at Noma: the person chose cancel."
    );
}

#[test]
fn call_runs_a_task_tool_as_a_task_and_follows_its_statuses_to_the_result() {
    let Some(server) = command_line(everything()) else {
        return;
    };
    let output = toolscope(&[
        "call",
        "--stdio",
        &server,
        "simulate-research-query",
        "--args",
        r#"{"topic": "rust", "ambiguous": true}"#,
        "--elicit-answer",
        r#"{"interpretation": "the language"}"#,
        "--task",
        "--json",
        "--no-history",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("input_required"),
        "{}",
        stderr(&output)
    );
    let doc = json_of(&output);
    let statuses: Vec<&str> = doc["task"]["statuses"]
        .as_array()
        .map(|list| list.iter().filter_map(|s| s["status"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(statuses.first(), Some(&"working"), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&"completed"), "{statuses:?}");
    assert!(statuses.contains(&"input_required"), "{statuses:?}");
    let text = doc["response"]["value"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("Research Report: rust (the language)"),
        "{text}"
    );
}

#[tokio::test]
async fn a_cancelled_task_is_cancelled_on_the_server() {
    let Some(config) = everything() else {
        return;
    };
    let session = connect(&config, ClientSide::default()).await;
    let control = RequestControl::with_timeouts(Timeouts::with_request(TIMEOUT));
    let cancel = control.cancel.clone();
    let statuses = Arc::new(Mutex::new(Vec::new()));
    let seen = statuses.clone();
    let on_status = Arc::new(
        move |_: &str, status: &toolscope_core::session::tasks::TaskStatus| {
            seen.lock().expect("lock").push(status.status.clone());
            cancel.cancel();
        },
    );
    let arguments: Map<String, Value> = json!({"topic": "rust"})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let control = RequestControl {
        on_task_status: on_status,
        ..control
    };
    let outcome = session
        .call_tool_as_task("simulate-research-query", arguments, &control)
        .await;
    assert!(matches!(
        outcome,
        Err(toolscope_core::session::SessionError::Cancelled { .. })
    ));
    let sent_cancel =
        session.tap().messages().iter().any(|entry| {
            entry.direction == Direction::ToServer && entry.text.contains("tasks/cancel")
        });
    assert!(sent_cancel, "tasks/cancel was sent");
    session.close().await;
}

#[test]
fn read_prints_a_text_resource_and_saves_a_blob() {
    let Some(server) = command_line(everything()) else {
        return;
    };
    let output = toolscope(&["read", "--stdio", &server, "demo://resource/dynamic/text/2"]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let text = crate::support::stdout(&output);
    assert!(
        text.contains("demo://resource/dynamic/text/2 (text/plain)"),
        "{text}"
    );
    let folder = tempfile::tempdir().expect("a folder");
    let saved = folder.path().join("blob.bin");
    let output = toolscope(&[
        "read",
        "--stdio",
        &server,
        "demo://resource/dynamic/blob/1",
        "--output",
        &saved.display().to_string(),
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert!(std::fs::metadata(&saved).map_or(0, |m| m.len()) > 0);
    let output = toolscope(&["read", "--stdio", &server, "demo://no/such/thing", "--json"]);
    assert_eq!(status(&output), 2, "a JSON-RPC error is a failure");
    assert!(crate::support::stdout(&output).contains("\"error\""));
}

/// An asker that never answers (a person who walked away).
fn absent_person() -> ClientSide {
    ClientSide {
        asker: Some(toolscope_core::session::asker_fn(|_| {
            std::future::pending()
        })),
        ..ClientSide::default()
    }
}

#[tokio::test]
async fn asks_nested_ten_thousand_deep_are_refused_without_harm() {
    let session = connect(&fixture(), absent_person()).await;
    // In a round: the deep entry is left out (and said so), the roots are answered.
    let outcome = call(&session, "ask_deep", json!({})).await;
    assert_eq!(result_text(&outcome), r#"answered ["where"]"#);
    let problems = &outcome.rounds.earlier[0].problems;
    assert!(
        problems
            .iter()
            .any(|problem| problem.contains("deeper than 64 levels")),
        "{problems:?}"
    );
    // As a request: nobody is asked, the call goes on.
    let outcome = call(&session, "ask_deep_request", json!({})).await;
    assert_eq!(result_text(&outcome), "asked deep");
    session.close().await;
}

#[tokio::test]
async fn a_flood_of_requests_nobody_answers_does_not_hold_up_the_call_or_the_close() {
    let session = connect(&fixture(), absent_person()).await;
    let outcome = call(&session, "ask_flood", json!({})).await;
    assert_eq!(result_text(&outcome), "flooded");
    // The session still answers, and closes although 200 questions wait.
    let again = call(&session, "healthy", json!({})).await;
    assert_eq!(result_text(&again), "healthy");
    tokio::time::timeout(Duration::from_secs(15), session.close())
        .await
        .expect("closed in time");
}

#[test]
fn a_url_elicitation_required_error_names_the_page_to_open() {
    let Some(server) = command_line(everything()) else {
        return;
    };
    let output = toolscope(&[
        "call",
        "--stdio",
        &server,
        "trigger-url-elicitation",
        "--args",
        r#"{"url": "https://example.com/authorize", "errorPath": true}"#,
        "--no-history",
    ]);
    let text = crate::support::stdout(&output);
    assert!(
        text.contains("The server needs you to open a page on modelcontextprotocol.io first"),
        "{text}"
    );
    assert!(
        text.contains("→ open https://modelcontextprotocol.io on modelcontextprotocol.io"),
        "{text}"
    );
    assert!(text.contains("-32042, URL elicitation required"), "{text}");
}

#[test]
fn a_url_elicitation_completed_by_the_server_is_marked_in_the_rounds() {
    let Some(server) = command_line(Some(fixture())) else {
        return;
    };
    let output = toolscope(&[
        "call",
        "--stdio",
        &server,
        "open_page",
        "--elicit",
        "accept-defaults",
        "--json",
        "--no-history",
    ]);
    let report = json_of(&output);
    assert_eq!(
        report["rounds"][0]["asked"][0]["ask"]["params"]["elicitationId"], "page-7",
        "{report}"
    );
    assert_eq!(
        report["completed_elicitations"],
        json!(["page-7"]),
        "{report}"
    );
    let human = toolscope(&[
        "call",
        "--stdio",
        &server,
        "open_page",
        "--elicit",
        "accept-defaults",
        "--no-history",
    ]);
    assert!(
        crate::support::stdout(&human).contains("the server says the page is done"),
        "{}",
        crate::support::stdout(&human)
    );
}
