//! The session layer as a library: raw fidelity, the tap, cancellation, misbehaving servers.

#![allow(clippy::expect_used, reason = "tests fail loudly")]

use std::{sync::Arc, time::Duration};

use serde_json::{Map, json};
use toolscope_core::session::{
    ConnectOptions, RequestControl, ServerConfig, Session, SessionError, Timeouts,
    events::ignore_events,
    transports::tap::{Direction, Fidelity},
};

fn demo() -> ServerConfig {
    ServerConfig::Stdio {
        command: crate::support::binary().to_owned(),
        args: vec!["demo-server".to_owned()],
        env: Default::default(),
        cwd: None,
    }
}

fn misbehaving() -> ServerConfig {
    let script = crate::support::repo_root().join("tests/fixtures/misbehaving_server.py");
    ServerConfig::Stdio {
        command: "python3".to_owned(),
        args: vec![script.display().to_string()],
        env: Default::default(),
        cwd: None,
    }
}

async fn connect(config: &ServerConfig) -> Session {
    let options = ConnectOptions::new(
        Timeouts::with_request(Duration::from_secs(20)),
        ignore_events(),
    );
    Session::connect(config, options).await.expect("connects")
}

#[tokio::test]
async fn the_tap_holds_exact_lines_in_causal_order() {
    let session = connect(&demo()).await;
    assert_eq!(session.summary().protocol_version, "2026-07-28");
    assert_eq!(session.summary().lifecycle, "server/discover");
    assert!(
        session
            .summary()
            .instructions
            .as_deref()
            .unwrap()
            .contains("structuredContent")
    );
    let control = RequestControl::with_timeouts(Timeouts::default());
    let arguments: Map<_, _> = json!({"a": 1, "b": 2}).as_object().cloned().unwrap();
    let outcome = session.call_tool("add", arguments, &control).await.unwrap();
    let result = outcome.response.result_to_value().expect("a result");
    assert_eq!(result["structuredContent"]["result"], 3);

    let messages = session.tap().messages();
    let call = messages
        .iter()
        .position(|m| m.label.starts_with("tools/call"))
        .expect("call logged");
    let answer = messages
        .iter()
        .position(|m| m.label == format!("result #{}", outcome.request_id))
        .expect("result logged");
    assert!(call < answer);
    assert_eq!(messages[call].direction, Direction::ToServer);
    assert_eq!(messages[answer].direction, Direction::FromServer);
    assert_eq!(messages[answer].fidelity, Fidelity::Exact);
    assert!(
        messages[answer]
            .text
            .contains(r#""structuredContent":{"result":3}"#)
    );
    session.close().await;
}

#[tokio::test]
async fn cancel_tells_the_server_and_returns_promptly() {
    let session = connect(&demo()).await;
    let control = RequestControl::with_timeouts(Timeouts::default());
    let cancel = control.cancel.clone();
    let progressed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = progressed.clone();
    // Cancelled as soon as the tool reports progress: it is running by then.
    let control = RequestControl {
        on_progress: Arc::new(move |_| {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            cancel.cancel();
        }),
        ..control
    };
    let arguments: Map<_, _> = json!({"steps": 100, "step_ms": 200})
        .as_object()
        .cloned()
        .unwrap();
    let started = std::time::Instant::now();
    let outcome = session.call_tool("slow_task", arguments, &control).await;
    assert!(
        matches!(outcome, Err(SessionError::Cancelled { .. })),
        "{outcome:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        progressed.load(std::sync::atomic::Ordering::SeqCst) >= 1,
        "progress arrived"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let cancelled = loop {
        let found = session
            .tap()
            .messages()
            .into_iter()
            .find(|m| m.label == "notifications/cancelled");
        if let Some(found) = found {
            break found;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "notifications/cancelled was sent"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(cancelled.direction, Direction::ToServer);
    session.close().await;
}

#[tokio::test]
async fn a_misbehaving_server_is_shown_as_it_is() {
    let session = connect(&misbehaving()).await;
    assert_eq!(session.summary().protocol_version, "2025-11-25");
    assert_eq!(session.summary().lifecycle, "initialize");

    // The non-JSON line is in the tap, exactly.
    let messages = session.tap().messages();
    assert!(
        messages
            .iter()
            .any(|m| !m.is_json && m.text.as_ref() == "hello from a stray print()")
    );

    // Pagination that does not advance stops with a warning; the malformed tool is flagged.
    let catalog = session.list_tools(Timeouts::default()).await.unwrap();
    assert!(
        catalog.warnings[0].contains("does not advance"),
        "{:?}",
        catalog.warnings
    );
    assert_eq!(catalog.pages, 2);
    let odd = catalog.find("odd_blocks").unwrap();
    assert_eq!(odd.raw["execution"]["taskSupport"], "optional");
    assert_eq!(odd.raw["x-vendor"], "kept");
    assert!(catalog.find("no_schema_tool").unwrap().problems[0].contains("no inputSchema"));

    // rmcp rejects this result (unknown block type); the raw result still arrives.
    let control = RequestControl::with_timeouts(Timeouts::with_request(Duration::from_secs(10)));
    let outcome = session
        .call_tool("odd_blocks", Map::new(), &control)
        .await
        .unwrap();
    let result = outcome.response.result_to_value().expect("a result");
    assert_eq!(result["content"][1]["type"], "widget");
    assert_eq!(result["x-extra"], true);

    // A JSON-RPC error keeps code, message and data.
    let outcome = session
        .call_tool("rpc_error", Map::new(), &control)
        .await
        .unwrap();
    assert!(outcome.response.is_rpc_error(), "an error");
    let error = outcome.response.member().to_value();
    assert_eq!(error["code"], -32602);
    assert_eq!(error["data"]["why"], "test");
    session.close().await;
}

#[tokio::test]
async fn a_crash_mid_call_says_how_the_server_ended() {
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = {
        let events = events.clone();
        Arc::new(move |event| events.lock().unwrap().push(event))
    };
    let options = ConnectOptions::new(Timeouts::with_request(Duration::from_secs(20)), sink);
    let session = Session::connect(&misbehaving(), options).await.unwrap();
    let control = RequestControl::with_timeouts(Timeouts::with_request(Duration::from_secs(10)));
    let outcome = session.call_tool("crash", Map::new(), &control).await;
    let Err(error) = outcome else {
        panic!("the call cannot succeed")
    };
    let message = error.to_string();
    assert!(message.contains("exit status: 3"), "{message}");
    assert!(message.contains("dying on purpose"), "{message}");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let closed = events.lock().unwrap().iter().find_map(|event| match event {
            toolscope_core::session::SessionEvent::Closed { reason } => Some(reason.clone()),
            _ => None,
        });
        if let Some(reason) = closed {
            assert!(reason.contains("exited (exit status: 3)"), "{reason}");
            assert!(reason.contains("dying on purpose"), "{reason}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no Closed event");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn tool_list_changes_arrive_on_the_2026_listen_stream() {
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = {
        let events = events.clone();
        Arc::new(move |event| events.lock().unwrap().push(event))
    };
    let options = ConnectOptions::new(Timeouts::with_request(Duration::from_secs(20)), sink);
    let session = Session::connect(&demo(), options).await.unwrap();
    assert_eq!(session.summary().protocol_version, "2026-07-28");
    // The listen stream opens in the background: wait until it is on the wire.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !session
        .tap()
        .messages()
        .iter()
        .any(|m| m.text.contains("subscriptions/listen"))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no subscriptions/listen"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let control = RequestControl::with_timeouts(Timeouts::default());
    session
        .call_tool("toggle_bonus_tool", Map::new(), &control)
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !events.lock().unwrap().iter().any(|event| {
        matches!(
            event,
            toolscope_core::session::SessionEvent::ToolListChanged
        )
    }) {
        assert!(
            std::time::Instant::now() < deadline,
            "no tools/list_changed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let catalog = session.list_tools(Timeouts::default()).await.unwrap();
    assert!(catalog.find("bonus_echo").is_some());
    session.close().await;
}
