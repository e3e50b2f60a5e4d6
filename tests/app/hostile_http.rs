//! Streamable HTTP against hostile servers (`tests/fixtures/hostile_http_server.py`, each on its
//! own port of 127.0.0.1, so two of them are two origins): redirects, huge headers, an SSE
//! stream that closes before its response.

#![allow(clippy::expect_used, reason = "tests fail loudly")]

use std::{collections::BTreeMap, time::Duration};

use crate::support::Background;
use serde_json::{Map, Value, json};
use toolscope_core::session::{
    ConnectOptions, RefusalReason, RequestControl, ServerConfig, Session, SessionError, Timeouts,
    events::ignore_events,
    transports::tap::{Direction, Fidelity},
};

const API_KEY: &str = "k-hostile-0123";

/// A fixture server in `mode`, and its base URL (`http://127.0.0.1:PORT`).
fn fixture(mode: &str, target: Option<&str>) -> (Background, String) {
    crate::support::hostile_http_fixture(mode, target)
}

/// Every request the fixture at `base` received, oldest first.
async fn received(base: &str) -> Vec<Value> {
    let body = reqwest::get(format!("{base}/_received"))
        .await
        .expect("the fixture answers")
        .text()
        .await
        .expect("a body");
    serde_json::from_str::<Vec<Value>>(&body).expect("a JSON list")
}

fn config(url: &str) -> ServerConfig {
    ServerConfig::Http {
        oauth_client_id: None,
        oauth_client_secret: None,
        oauth: Default::default(),
        url: url.to_owned(),
        headers: BTreeMap::from([("X-Api-Key".to_owned(), API_KEY.to_owned())]),
    }
}

fn timeouts() -> Timeouts {
    Timeouts::with_request(Duration::from_secs(20))
}

async fn connect(url: &str) -> Result<Session, SessionError> {
    Session::connect(
        &config(url),
        ConnectOptions::new(timeouts(), ignore_events()),
    )
    .await
}

async fn call_echo(session: &Session) -> Result<Value, SessionError> {
    let mut arguments = Map::new();
    arguments.insert("word".to_owned(), json!("hello"));
    let outcome = session
        .call_tool(
            "echo",
            arguments,
            &RequestControl::with_timeouts(timeouts()),
        )
        .await?;
    match outcome.response.result_to_value() {
        Some(value) => Ok(value),
        None => panic!("the call failed: {}", outcome.response.text()),
    }
}

/// The echo tool's answer: the arguments and the X-Api-Key header it received.
fn echoed(result: &Value) -> Value {
    let text = result["content"][0]["text"].as_str().expect("a text block");
    serde_json::from_str(text).expect("the echo is JSON")
}

fn assert_refused_to(error: &SessionError, target: &str, reason: RefusalReason) {
    match error {
        SessionError::Redirected {
            to, reason: actual, ..
        } => {
            assert_eq!(to, target);
            assert_eq!(*actual, reason);
        }
        other => panic!("expected a refused redirect, got: {other}"),
    }
    let message = error.to_string();
    assert!(message.contains(target), "{message}");
    assert!(message.contains("not followed"), "{message}");
}

async fn cross_origin_redirect_at_the_handshake(mode: &str, status: u16) {
    let (_sink, sink_base) = fixture("sink", None);
    let target = format!("{sink_base}/mcp");
    let (_server, base) = fixture(mode, Some(&target));
    let error = connect(&format!("{base}/mcp"))
        .await
        .err()
        .expect("the handshake fails");
    assert_refused_to(&error, &target, RefusalReason::OtherOrigin);
    assert!(error.to_string().contains(&format!("HTTP {status}")));
    assert_eq!(received(&sink_base).await, Vec::<Value>::new());
    // The first origin did get the handshake, with the configured header.
    let first = received(&base).await;
    assert!(!first.is_empty());
    assert_eq!(first[0]["headers"]["x-api-key"], API_KEY);
}

#[tokio::test]
async fn a_307_to_another_origin_at_the_handshake_is_refused_and_names_the_target() {
    cross_origin_redirect_at_the_handshake("redirect-307", 307).await;
}

#[tokio::test]
async fn a_302_to_another_origin_at_the_handshake_is_refused_and_names_the_target() {
    cross_origin_redirect_at_the_handshake("redirect-302", 302).await;
}

#[tokio::test]
async fn a_redirect_of_a_tool_call_to_another_origin_is_refused_and_names_the_target() {
    let (_sink, sink_base) = fixture("sink", None);
    let target = format!("{sink_base}/mcp");
    let (_server, base) = fixture("redirect-call", Some(&target));
    let session = connect(&format!("{base}/mcp")).await.expect("connects");
    let error = call_echo(&session).await.expect_err("the call fails");
    assert_refused_to(&error, &target, RefusalReason::OtherOrigin);
    assert!(error.to_string().contains("tools/call echo"), "{error}");
    assert_eq!(received(&sink_base).await, Vec::<Value>::new());
    // Only that request failed: the session goes on.
    let tools = session
        .list_tools(timeouts())
        .await
        .expect("the session lives");
    assert_eq!(tools.tools.len(), 1);
    session.close().await;
}

#[tokio::test]
async fn a_same_origin_307_is_followed_with_the_configured_headers() {
    let (_server, base) = fixture("redirect-same", None);
    let session = connect(&format!("{base}/old")).await.expect("connects");
    let result = call_echo(&session).await.expect("the call works");
    let echo = echoed(&result);
    assert_eq!(echo["arguments"], json!({"word": "hello"}));
    assert_eq!(echo["x-api-key"], API_KEY);
    let requests = received(&base).await;
    let moved = requests
        .iter()
        .filter(|request| request["method"] == "POST" && request["path"] == "/mcp")
        .count();
    assert!(
        moved >= 2,
        "the redirected POSTs reached /mcp: {requests:?}"
    );
    session.close().await;
}

#[tokio::test]
async fn a_same_origin_302_is_not_followed_as_a_bodyless_get() {
    let (_server, base) = fixture("redirect-same-302", None);
    let error = connect(&format!("{base}/old"))
        .await
        .err()
        .expect("the handshake fails");
    assert_refused_to(
        &error,
        &format!("{base}/mcp"),
        RefusalReason::DropsTheMessage,
    );
    let requests = received(&base).await;
    assert!(
        requests.iter().all(|request| request["path"] == "/old"),
        "nothing was sent to the target: {requests:?}"
    );
}

#[tokio::test]
async fn huge_response_headers_to_a_tool_call_are_named_as_such() {
    let (_server, base) = fixture("huge-headers-call", None);
    let session = connect(&format!("{base}/mcp")).await.expect("connects");
    let error = call_echo(&session).await.expect_err("the call fails");
    match &error {
        SessionError::ResponseHeadersTooLarge { request } => assert_eq!(request, "tools/call echo"),
        other => panic!("expected headers too large, got: {other}"),
    }
    session.close().await;
}

#[tokio::test]
async fn huge_response_headers_are_named_as_such() {
    let (_server, base) = fixture("huge-headers", None);
    let error = connect(&format!("{base}/mcp"))
        .await
        .err()
        .expect("the handshake fails");
    assert!(
        matches!(error, SessionError::ResponseHeadersTooLarge { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("headers too large"), "{error}");
}

#[tokio::test]
async fn an_sse_stream_closed_before_the_response_resumes_with_last_event_id() {
    let (_server, base) = fixture("sse-resume", None);
    let session = connect(&format!("{base}/mcp")).await.expect("connects");
    let result = call_echo(&session).await.expect("the call is answered");
    assert_eq!(echoed(&result)["arguments"], json!({"word": "hello"}));

    let requests = received(&base).await;
    let resumed = requests
        .iter()
        .find(|request| request["method"] == "GET" && request["headers"]["last-event-id"] == "2")
        .unwrap_or_else(|| panic!("no GET resumed after event 2: {requests:?}"));
    assert_eq!(resumed["headers"]["mcp-session-id"], "hostile-session");
    assert_eq!(resumed["headers"]["x-api-key"], API_KEY);

    // The events of both streams are in the tap, exactly as sent.
    let from_server: Vec<_> = session
        .tap()
        .messages()
        .into_iter()
        .filter(|entry| entry.direction == Direction::FromServer)
        .collect();
    assert!(
        from_server
            .iter()
            .any(|entry| entry.text.contains("before the break")),
        "the event before the break is logged"
    );
    let response = from_server
        .iter()
        .find(|entry| entry.text.contains(r#""result""#) && entry.text.contains("hello"))
        .expect("the resumed response is logged");
    assert_eq!(response.fidelity, Fidelity::Exact);
    session.close().await;
}

#[tokio::test]
async fn a_handshake_stream_closed_before_the_response_resumes_with_last_event_id() {
    let (_server, base) = fixture("sse-resume-handshake", None);
    let session = connect(&format!("{base}/mcp")).await.expect("connects");
    assert_eq!(session.summary().name.as_deref(), Some("hostile"));
    let requests = received(&base).await;
    let resumed = requests
        .iter()
        .find(|request| request["method"] == "GET" && request["headers"]["last-event-id"] == "h1")
        .unwrap_or_else(|| panic!("no GET resumed the handshake: {requests:?}"));
    assert_eq!(resumed["headers"]["mcp-session-id"], "hostile-session");
    assert_eq!(resumed["headers"]["x-api-key"], API_KEY);
    let result = call_echo(&session).await.expect("the session works");
    assert_eq!(echoed(&result)["arguments"], json!({"word": "hello"}));
    session.close().await;
}

/// The capture only: whether the call then answers with the raw copy (rmcp cannot parse it) is
/// the request path's business, checked where that is built.
#[tokio::test]
async fn a_response_nested_ten_thousand_deep_is_captured_exactly_over_http() {
    let (_server, base) = fixture("deep", None);
    let session = connect(&format!("{base}/mcp")).await.expect("connects");
    let outcome = session
        .call_tool(
            "echo",
            Map::new(),
            &RequestControl::with_timeouts(timeouts()),
        )
        .await;
    if let Ok(outcome) = outcome
        && let Some(result) = outcome.response.result_ref()
    {
        let deep = result.pointer("/structuredContent/deep").expect("kept");
        assert_eq!(deep.depth(), 10_000);
    }
    let entry = session
        .tap()
        .messages()
        .into_iter()
        .rfind(|entry| entry.direction == Direction::FromServer)
        .expect("the response is logged");
    assert!(entry.is_json, "the deep event was parsed: {}", entry.label);
    assert!(entry.label.starts_with("result #"), "{}", entry.label);
    assert_eq!(entry.fidelity, Fidelity::Exact);
    assert!(entry.text.ends_with("]]]}}}"), "logged exactly");
    assert_eq!(entry.bytes, entry.text.len(), "logged whole");
    session.close().await;
}

/// A server that ignores `server/discover`, or answers it with something else, is reached with
/// `initialize` after the discover timeout (1 s here), not rmcp's own 10 s wait or a failure.
async fn reached_through_initialize(mode: &str, reason: &str) {
    let (_server, base) = fixture(mode, None);
    let timeouts = Timeouts {
        discover: Duration::from_secs(1),
        ..timeouts()
    };
    let session = Session::connect(
        &config(&format!("{base}/mcp")),
        ConnectOptions::new(timeouts, ignore_events()),
    )
    .await
    .expect("connects through initialize");
    let summary = session.summary();
    assert_eq!(summary.lifecycle, "initialize");
    assert_eq!(summary.protocol_version, "2025-11-25");
    let why = summary.lifecycle_reason.clone().unwrap_or_default();
    assert!(why.contains(reason), "{why}");
    assert_eq!(
        echoed(&call_echo(&session).await.expect("a call"))["x-api-key"],
        API_KEY
    );
    let probe = &received(&base).await[0];
    assert!(
        probe["body"]
            .as_str()
            .unwrap_or_default()
            .contains("server/discover")
    );
    assert_eq!(
        probe["headers"]["x-api-key"], API_KEY,
        "the probe carries the headers"
    );
    session.close().await;
}

#[tokio::test]
async fn an_ignored_discover_over_http_falls_back_after_the_discover_timeout() {
    reached_through_initialize("discover-ignored", "no answer within 1.0 s").await;
}

#[tokio::test]
async fn a_discover_answered_with_something_else_over_http_falls_back() {
    reached_through_initialize("discover-empty", "not a discover result").await;
}

/// A 403 is said as a 403, at the handshake and on a call: the status comes from the
/// transport's typed error, not from the challenge's words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_403_is_reported_as_a_403_at_the_handshake_and_on_a_call() {
    let (_server, base) = fixture("forbidden", None);
    let error = connect(&format!("{base}/mcp"))
        .await
        .err()
        .expect("the handshake is refused");
    assert!(
        matches!(error, SessionError::Unauthorized { status: 403, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("(HTTP 403)"), "{error}");

    let (_server, base) = fixture("forbidden-call", None);
    let session = connect(&format!("{base}/mcp")).await.expect("connects");
    let error = call_echo(&session).await.expect_err("the call is refused");
    assert!(
        matches!(error, SessionError::AuthRejected { status: 403, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("(HTTP 403)"), "{error}");
    session.close().await;
}
