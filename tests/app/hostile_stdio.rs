//! The stdio session against hostile servers: deep JSON, duplicate responses, floods, a server
//! that ignores `server/discover`, and one that will not exit when asked.

#![allow(clippy::expect_used, reason = "tests fail loudly")]

use std::{
    path::Path,
    process::Command,
    time::{Duration, Instant},
};

use serde_json::{Map, Value, json};
use toolscope_core::{
    analysis::ProtocolEra,
    deep_json,
    session::{
        ConnectOptions, RequestControl, ServerConfig, Session, Timeouts, events::ignore_events,
        transports::tap::TapLimits,
    },
};

fn hostile(options: &[&str]) -> ServerConfig {
    let script = crate::support::repo_root().join("tests/fixtures/hostile_stdio_server.py");
    let mut args = vec![script.display().to_string()];
    args.extend(options.iter().map(|option| (*option).to_owned()));
    ServerConfig::Stdio {
        command: "python3".to_owned(),
        args,
        env: Default::default(),
        cwd: None,
    }
}

const TIMEOUT: Duration = Duration::from_secs(20);

fn options() -> ConnectOptions {
    ConnectOptions::new(Timeouts::with_request(TIMEOUT), ignore_events())
}

async fn connect(config: &ServerConfig) -> Session {
    Session::connect(config, options()).await.expect("connects")
}

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// How deeply `structuredContent` nests in a `{"d": {"d": … 1}}` chain.
fn chain_depth(mut value: toolscope_core::json_doc::JsonRef<'_>) -> usize {
    let mut depth = 0;
    while let Some(inner) = value.get("d") {
        depth += 1;
        value = inner;
    }
    depth
}

/// A test thread has a 2 MiB stack: a tool drops its deep schema without recursion.
fn drop_catalog(catalog: toolscope_core::session::ToolCatalog) {
    drop(catalog);
}

async fn deep_call(session: &Session, depth: usize) {
    let control = RequestControl::with_timeouts(Timeouts::with_request(TIMEOUT));
    let started = Instant::now();
    let outcome = session
        .call_tool("deep", arguments(json!({"depth": depth})), &control)
        .await
        .expect("the deep call answers");
    // Well within the timeout: no grace timer, no waiting for rmcp.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    let result = outcome.response.result_ref().expect("a result");
    let structured = result.get("structuredContent").expect("kept");
    assert_eq!(chain_depth(structured), depth);
    assert_eq!(
        result
            .pointer("/content/0/text")
            .and_then(|t| t.as_plain_str()),
        Some("deep")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_results_and_schemas_arrive_raw_and_healthy_tools_are_listed() {
    let session = connect(&hostile(&[])).await;
    let catalog = session
        .list_tools(Timeouts::with_request(TIMEOUT))
        .await
        .expect("tools/list answers");
    let names: Vec<&str> = catalog
        .tools
        .iter()
        .map(|tool| tool.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "deep",
            "deep_schema",
            "dup",
            "flood",
            "healthy",
            "odd_json",
            "state_echo",
            "ask_forever",
            "ask_deep",
            "ask_flood",
            "ask_deep_request",
            "open_page"
        ]
    );
    let deep_schema = catalog.find("deep_schema").expect("listed");
    assert!(deep_json::depth(deep_schema.input_schema.as_ref().expect("kept")) > 10_000);
    drop_catalog(catalog);
    deep_call(&session, 10_000).await;
    deep_call(&session, 100_000).await;
    // The session still works afterwards.
    let control = RequestControl::with_timeouts(Timeouts::default());
    let healthy = session
        .call_tool("healthy", Map::new(), &control)
        .await
        .expect("a plain call");
    assert_eq!(healthy.duplicate_responses, 0);
    session.close().await;
}

#[tokio::test]
async fn the_first_of_two_responses_wins_and_the_second_is_flagged() {
    let session = connect(&hostile(&[])).await;
    let control = RequestControl::with_timeouts(Timeouts::with_request(TIMEOUT));
    let outcome = session
        .call_tool("dup", Map::new(), &control)
        .await
        .expect("answers");
    let result = outcome.response.result_to_value().expect("a result");
    assert_eq!(result["content"][0]["text"], "first");
    assert_eq!(outcome.duplicate_responses, 1);
    let flagged: Vec<_> = session
        .tap()
        .messages()
        .into_iter()
        .filter(|entry| entry.note.is_some())
        .collect();
    assert_eq!(flagged.len(), 1, "one entry is flagged");
    assert!(flagged[0].text.contains("second"));
    assert!(
        flagged[0]
            .note
            .as_deref()
            .expect("noted")
            .contains("duplicate")
    );
    session.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_notifications_and_garbage_stays_bounded() {
    let limits = TapLimits {
        max_entries: 5_000,
        ..TapLimits::default()
    };
    let options = ConnectOptions {
        tap_limits: limits,
        ..options()
    };
    let session = Session::connect(&hostile(&[]), options)
        .await
        .expect("connects");
    let control = RequestControl::with_timeouts(Timeouts::with_request(TIMEOUT));
    let outcome = session
        .call_tool("flood", arguments(json!({"count": 100_000})), &control)
        .await
        .expect("the call completes after the flood");
    let result = outcome.response.result_to_value().expect("a result");
    assert_eq!(result["content"][0]["text"], "after the flood");
    {
        let logs = session.tap().logs();
        assert!(logs.messages.items.len() <= 5_000);
        // 100,000 notifications and 10,000 garbage lines passed through; most fell off.
        assert!(
            logs.messages.dropped >= 100_000,
            "{}",
            logs.messages.dropped
        );
        let last = logs.messages.items.back().expect("entries");
        assert!(last.text.contains("after the flood"));
    }
    session.close().await;
}

async fn connect_timed(config: &ServerConfig, options: ConnectOptions) -> (Session, Duration) {
    let started = Instant::now();
    let session = Session::connect(config, options)
        .await
        .expect("reached through initialize");
    (session, started.elapsed())
}

#[tokio::test]
async fn a_server_that_ignores_discover_is_reached_through_initialize() {
    let (session, took) = connect_timed(&hostile(&["--discover=ignore"]), options()).await;
    assert!(took < Duration::from_secs(6), "took {took:?}");
    assert_eq!(session.summary().lifecycle, "initialize");
    let reason = session
        .summary()
        .lifecycle_reason
        .clone()
        .expect("a reason");
    assert!(reason.contains("no answer"), "{reason}");
    session.close().await;
}

#[tokio::test]
async fn a_server_that_answers_discover_with_nonsense_is_reached_through_initialize() {
    let (session, took) = connect_timed(&hostile(&["--discover=empty"]), options()).await;
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert_eq!(session.summary().lifecycle, "initialize");
    assert_eq!(session.summary().protocol_version, "2025-11-25");
    let reason = session
        .summary()
        .lifecycle_reason
        .clone()
        .expect("a reason");
    assert!(reason.contains("not a discover result"), "{reason}");
    // The probe's answer never reached rmcp: the session works.
    let catalog = session
        .list_tools(Timeouts::with_request(TIMEOUT))
        .await
        .expect("lists");
    assert!(catalog.find("healthy").is_some());
    drop_catalog(catalog);
    session.close().await;
}

#[tokio::test]
async fn a_known_legacy_server_skips_the_probe() {
    let options = ConnectOptions {
        known_era: Some(ProtocolEra::Legacy),
        ..options()
    };
    let (session, took) = connect_timed(&hostile(&["--discover=ignore"]), options).await;
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(session.summary().lifecycle, "initialize");
    let sent_discover = session
        .tap()
        .messages()
        .iter()
        .any(|entry| entry.label.starts_with("server/discover"));
    assert!(!sent_discover, "no probe was sent");
    session.close().await;
}

#[tokio::test]
async fn a_modern_server_still_uses_discover() {
    let (session, _) = connect_timed(&hostile(&["--discover=modern"]), options()).await;
    assert_eq!(session.summary().lifecycle, "server/discover");
    assert!(session.summary().lifecycle_reason.is_none());
    session.close().await;
}

/// A modern server that starts slower than the probe waits answers `server/discover` late and
/// then refuses the fallback `initialize` (the official Python SDK on a loaded machine): it is
/// started again as a 2026-07-28 server, and the late answer never reaches rmcp.
#[tokio::test]
async fn a_modern_server_slower_than_the_probe_is_started_again_as_modern() {
    let options = ConnectOptions::new(
        Timeouts {
            discover: Duration::from_millis(500),
            ..Timeouts::with_request(TIMEOUT)
        },
        ignore_events(),
    );
    let (session, _) = connect_timed(
        &hostile(&["--discover=modern", "--slow-start=1.5"]),
        options,
    )
    .await;
    assert_eq!(session.summary().lifecycle, "server/discover");
    assert_eq!(session.summary().protocol_version, "2026-07-28");
    let reason = session
        .summary()
        .lifecycle_reason
        .clone()
        .expect("a reason");
    assert!(reason.contains("started the server again"), "{reason}");
    let catalog = session
        .list_tools(Timeouts::with_request(TIMEOUT))
        .await
        .expect("lists");
    assert!(catalog.find("healthy").is_some());
    drop_catalog(catalog);
    session.close().await;
}

/// Started again, the server is as slow as before: slower than rmcp's own 10 s wait for
/// `server/discover` in its `Auto` mode, after which it would fall back to `initialize` and
/// take the late discover answer for its answer ("conflict initialized response id"). The
/// second start asks `server/discover` alone and waits for it.
#[tokio::test]
async fn a_server_as_slow_when_started_again_is_waited_for_with_discover_alone() {
    let options = ConnectOptions::new(
        Timeouts {
            discover: Duration::from_millis(500),
            ..Timeouts::with_request(Duration::from_secs(30))
        },
        ignore_events(),
    );
    let (session, _) = connect_timed(
        &hostile(&["--discover=modern", "--slow-start=10.5"]),
        options,
    )
    .await;
    assert_eq!(session.summary().protocol_version, "2026-07-28");
    assert!(
        session
            .summary()
            .lifecycle_reason
            .as_deref()
            .is_some_and(|reason| reason.contains("started the server again")),
        "{:?}",
        session.summary().lifecycle_reason
    );
    session.close().await;
}

/// Whether the process exists and is not a zombie.
fn is_running(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .next();
            state != Some("Z")
        }
        Err(_) => false,
    }
}

fn exists(pid: &str) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

async fn wait_for_pidfile(path: &Path) -> String {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Ok(pid) = std::fs::read_to_string(path)
            && !pid.is_empty()
        {
            return pid;
        }
        assert!(Instant::now() < deadline, "the server never wrote its pid");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn close_ends_a_server_that_ignores_stdin_eof_and_sigterm() {
    let dir = std::env::temp_dir().join(format!("toolscope-close-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let pidfile = dir.join("pid");
    let pid_option = format!("--pidfile={}", pidfile.display());
    let session = connect(&hostile(&[&pid_option, "--ignore-eof", "--ignore-term"])).await;
    let pid = wait_for_pidfile(&pidfile).await;
    assert!(is_running(&pid));
    let started = Instant::now();
    session.close().await;
    // stdin closed, 2 s, SIGTERM (ignored), 2 s, SIGKILL, reaped.
    assert!(!exists(&pid), "the server is gone, not even a zombie");
    assert!(started.elapsed() >= Duration::from_secs(3));
    assert!(started.elapsed() < Duration::from_secs(8));
}

#[test]
fn the_cli_closes_its_server_on_every_exit_path() {
    let dir = std::env::temp_dir().join(format!("toolscope-cli-close-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = crate::support::repo_root().join("tests/fixtures/hostile_stdio_server.py");
    for (case, tool, signal) in [
        ("normal", "healthy", None),
        ("error", "no_such_tool", None),
        ("sigterm", "flood", Some("-TERM")),
        ("sigint", "flood", Some("-INT")),
    ] {
        let pidfile = dir.join(format!("{case}.pid"));
        let _ = std::fs::remove_file(&pidfile);
        let server = format!(
            "python3 {} --pidfile={} --ignore-eof",
            script.display(),
            pidfile.display()
        );
        let mut args = vec!["call", "--stdio", &server, tool];
        // A flood that never ends on time keeps the CLI busy until the signal.
        if signal.is_some() {
            args.extend(["--arg", "count=100000000"]);
        }
        let mut cli = crate::support::command()
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the CLI runs");
        let deadline = Instant::now() + TIMEOUT;
        let pid = loop {
            if let Ok(pid) = std::fs::read_to_string(&pidfile)
                && !pid.is_empty()
            {
                break pid;
            }
            assert!(Instant::now() < deadline, "{case}: no pid");
            std::thread::sleep(Duration::from_millis(20));
        };
        if let Some(signal) = signal {
            let status = Command::new("kill")
                .args([signal, &cli.id().to_string()])
                .status()
                .expect("kill runs");
            assert!(status.success());
        }
        let status = cli.wait().expect("the CLI ends");
        assert!(
            !exists(&pid),
            "{case}: the server outlived the CLI ({status})"
        );
    }
}

#[test]
fn the_cli_notes_a_duplicate_response_in_its_analysis() {
    let script = crate::support::repo_root().join("tests/fixtures/hostile_stdio_server.py");
    let output = crate::support::toolscope(&[
        "call",
        "--stdio",
        &format!("python3 {}", script.display()),
        "dup",
    ]);
    let stdout = crate::support::stdout(&output);
    assert!(
        stdout.contains("Note: the server sent 1 more response(s) with this request's id"),
        "stdout: {stdout}\nstderr: {}",
        crate::support::stderr(&output)
    );
    let json = crate::support::json_of(&crate::support::toolscope(&[
        "call",
        "--stdio",
        &format!("python3 {}", script.display()),
        "dup",
        "--json",
    ]));
    assert_eq!(json["duplicate_responses"], 1);
}

#[test]
fn unusual_but_valid_json_is_read_as_serde_json_reads_it_and_reported_as_valid_json() {
    let script = crate::support::repo_root().join("tests/fixtures/hostile_stdio_server.py");
    let server = format!("python3 {}", script.display());
    let output = crate::support::toolscope(&["call", "--stdio", &server, "odd_json", "--json"]);
    assert!(
        !output.stdout.contains(&b'\r'),
        "no raw carriage return reaches the terminal"
    );
    // A carriage return between tokens stays whitespace: the report is still JSON.
    let report = crate::support::json_of(&output);
    assert_eq!(
        crate::support::status(&output),
        0,
        "{}",
        crate::support::stderr(&output)
    );
    let structured = &report["response"]["value"]["structuredContent"];
    // The last "n" wins (written once plainly, once as "\u006e"), as serde_json reads it.
    assert_eq!(structured["n"], 1);
    assert_eq!(structured["big"], json!(100.0));
    assert_eq!(report["analysis"]["text_mirror"]["kind"], "matches");
    let human = crate::support::toolscope(&["call", "--stdio", &server, "odd_json"]);
    assert_eq!(crate::support::status(&human), 0);
    assert!(crate::support::stdout(&human).contains("\"n\": 1"));
}
