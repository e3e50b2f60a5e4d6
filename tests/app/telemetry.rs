//! Every call a trace: with `OTEL_EXPORTER_OTLP_ENDPOINT` set, `toolscope call` exports a span
//! per request under its session's span before it exits, and the server got that span's
//! `traceparent` in `params._meta`; through `toolscope proxy` a relayed call is a span whose
//! parent is the client's own span; a collector that refuses or never answers costs a call
//! little and is said once; a client's malformed traceparent is no parent and never reaches
//! the terminal; with no variable nothing is set up.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, Output, Stdio},
    time::{Duration, Instant},
};

use serde_json::Value;

use crate::support::{
    command,
    otlp_receiver::{ExportedSpan, OtlpReceiver},
    repo_root, status, stderr,
};

/// The fixture's command line; it writes each request's `_meta` to `seen`.
fn fixture(seen: &Path) -> String {
    let script = repo_root().join("tests/fixtures/trace_server.py");
    format!("python3 {} {}", script.display(), seen.display())
}

/// The `_meta` the fixture got with each request of `method`.
fn metas_seen(seen: &Path, method: &str) -> Vec<Value> {
    std::fs::read_to_string(seen)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["method"] == method)
        .map(|line| line["_meta"].clone())
        .collect()
}

fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join(format!("{name}.jsonl"));
    (dir, seen)
}

/// `toolscope call` on the fixture, traces sent to `endpoint` (none when `None`).
fn call(seen: &Path, tool: &str, endpoint: Option<&str>) -> (Output, Duration) {
    let mut toolscope = command();
    toolscope
        .args(["call", "--stdio", &fixture(seen), tool])
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env("OTEL_SERVICE_NAME", "toolscope-test");
    if let Some(endpoint) = endpoint {
        toolscope.env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
    }
    let started = Instant::now();
    let output = toolscope.output().unwrap();
    (output, started.elapsed())
}

fn named<'a>(spans: &'a [ExportedSpan], name: &str) -> &'a ExportedSpan {
    spans
        .iter()
        .find(|span| span.name == name)
        .unwrap_or_else(|| panic!("no span {name:?} among {spans:#?}"))
}

const CLIENT: i32 = 3;
const ERROR: i32 = 2;

#[test]
fn a_call_is_a_span_under_its_session_and_the_server_gets_its_traceparent() {
    let collector = OtlpReceiver::start();
    let (_dir, seen) = scratch("call");
    let (output, _) = call(&seen, "get_user", Some(&collector.endpoint));
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert!(
        !stderr(&output).contains("warning: traces"),
        "{}",
        stderr(&output)
    );
    // Exported before the command exited: no waiting here.
    let spans = collector.spans();
    let call = named(&spans, "tools/call get_user");
    let session = named(&spans, "mcp session");
    let list = named(&spans, "tools/list");
    let handshake = named(&spans, "initialize");
    assert_eq!(
        handshake.attribute("mcp.protocol.version"),
        Some("2025-11-25")
    );
    assert_eq!(call.kind, CLIENT);
    assert_eq!(call.attribute("mcp.method.name"), Some("tools/call"));
    assert_eq!(call.attribute("gen_ai.tool.name"), Some("get_user"));
    assert_eq!(
        call.attribute("gen_ai.operation.name"),
        Some("execute_tool")
    );
    assert_eq!(call.attribute("network.transport"), Some("pipe"));
    assert_eq!(call.attribute("mcp.protocol.version"), Some("2025-11-25"));
    assert!(call.attribute("jsonrpc.request.id").is_some(), "{call:?}");
    assert_eq!(call.attribute("error.type"), None);
    assert_eq!(call.service_name, "toolscope-test");
    assert_eq!(list.attribute("gen_ai.tool.name"), None);
    for request in [call, list, handshake] {
        assert_eq!(request.trace_id, session.trace_id);
        assert_eq!(request.parent_span_id, session.span_id, "{request:?}");
    }
    assert_eq!(
        session.parent_span_id, "",
        "the session is the trace's root"
    );
    let sent = metas_seen(&seen, "tools/call");
    assert_eq!(
        sent[0]["traceparent"].as_str(),
        Some(format!("00-{}-{}-01", call.trace_id, call.span_id).as_str()),
        "the server got the call's own span as its parent: {sent:?}"
    );
}

#[test]
fn a_tool_error_and_a_json_rpc_error_say_their_error_type() {
    let collector = OtlpReceiver::start();
    let (_dir, seen) = scratch("errors");
    let (output, _) = call(&seen, "fail_user", Some(&collector.endpoint));
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    let spans = collector.spans();
    let failed = named(&spans, "tools/call fail_user");
    assert_eq!(failed.attribute("error.type"), Some("tool_error"));
    assert_eq!(failed.status_code, ERROR);
    // The probe the fixture refuses (-32601), before the fallback to initialize, has no span:
    // it is sent before the session (and its span) exists.
    assert!(spans.iter().all(|span| span.name != "server/discover"));

    // The fixture has no resources: a read is answered with JSON-RPC error -32601.
    let read = command()
        .args(["read", "--stdio", &fixture(&seen), "demo://nothing"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)
        .output()
        .unwrap();
    assert_ne!(status(&read), 0);
    let spans = collector.spans();
    let read = named(&spans, "resources/read");
    assert_eq!(read.attribute("mcp.resource.uri"), Some("demo://nothing"));
    assert_eq!(read.attribute("error.type"), Some("-32601"));
    assert_eq!(read.attribute("rpc.response.status_code"), Some("-32601"));
    assert_eq!(read.status_code, ERROR);
    assert!(read.status_message.contains("no method"), "{read:?}");
    let sent = metas_seen(&seen, "resources/read");
    assert!(
        sent[0]["traceparent"]
            .as_str()
            .is_some_and(|parent| parent.contains(&read.span_id))
    );
}

/// A client of `toolscope proxy` on the fixture: its child and its two ends.
struct ProxyClient {
    child: Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl ProxyClient {
    fn start(seen: &Path, endpoint: Option<&str>) -> Self {
        let data = tempfile::tempdir().unwrap().keep();
        let mut proxy = command();
        proxy
            .args(["proxy", "--stdio", &fixture(seen)])
            .env("TOOLSCOPE_DATA_DIR", &data)
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(endpoint) = endpoint {
            proxy.env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
        }
        let mut child = proxy.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends one line; reads the answer when it has an id.
    fn send(&mut self, line: &str) -> Option<String> {
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
        line.contains("\"id\"").then(|| {
            let mut answer = String::new();
            self.stdout.read_line(&mut answer).unwrap();
            answer
        })
    }

    /// Closes the client's end and waits for the proxy; its stderr.
    fn finish(self) -> String {
        drop(self.stdin);
        let output = self.child.wait_with_output().unwrap();
        String::from_utf8_lossy(&output.stderr).into_owned()
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"traced-client","version":"1.0"}}}"#;

#[test]
fn a_relayed_call_is_a_child_of_the_clients_span_and_passes_unchanged() {
    let collector = OtlpReceiver::start();
    let (_dir, seen) = scratch("proxy");
    let mut client = ProxyClient::start(&seen, Some(&collector.endpoint));
    client.send(INITIALIZE).unwrap();
    client.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let (trace, parent) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let traced = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"get_user","arguments":{{"id":1}},"_meta":{{"traceparent":"00-{trace}-{parent}-01","tracestate":"rojo=1"}}}}}}"#
    );
    let answer = client.send(&traced).unwrap();
    assert!(answer.contains("Ada"), "{answer}");
    // A client's traceparent that is no parent: escape sequences, a huge one.
    let hostile = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"fail_user","_meta":{{"traceparent":"\u001b]0;pwned\u0007\u001b[2J{}"}}}}}}"#,
        "f".repeat(200_000)
    );
    client.send(&hostile).unwrap();
    client.send(
        r#"{"jsonrpc":"2.0","id":{"odd":[1]},"method":42,"params":{"_meta":{"traceparent":["x"]}}}"#,
    );
    let stderr = client.finish();
    assert!(
        !stderr.contains('\u{1b}'),
        "nothing raw reaches the terminal"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    let spans = collector.spans_with("tools/call fail_user");
    let relayed = named(&spans, "tools/call get_user");
    assert_eq!(relayed.trace_id, trace, "the client's trace");
    assert_eq!(
        relayed.parent_span_id, parent,
        "the client's span is the parent"
    );
    assert_eq!(relayed.kind, CLIENT);
    assert_eq!(relayed.attribute("mcp.method.name"), Some("tools/call"));
    assert_eq!(relayed.attribute("gen_ai.tool.name"), Some("get_user"));
    assert_eq!(relayed.attribute("jsonrpc.request.id"), Some("2"));
    assert_eq!(
        relayed.attribute("mcp.protocol.version"),
        Some("2025-11-25")
    );
    let hostile = named(&spans, "tools/call fail_user");
    let session = named(&spans, "mcp session");
    assert_eq!(
        hostile.parent_span_id, session.span_id,
        "no parent of the client's"
    );
    assert_eq!(hostile.attribute("error.type"), Some("tool_error"));
    assert_ne!(session.trace_id, trace);
    let initialize = named(&spans, "initialize");
    assert_eq!(initialize.parent_span_id, session.span_id);
    // The proxy changes no byte: the server got the client's own traceparent.
    let sent = metas_seen(&seen, "tools/call");
    assert_eq!(
        sent[0]["traceparent"].as_str(),
        Some(format!("00-{trace}-{parent}-01").as_str())
    );
    assert_eq!(sent[0]["tracestate"].as_str(), Some("rojo=1"));
}

/// The threads of a running process, by name (Linux shows the first 15 characters).
#[cfg(target_os = "linux")]
fn thread_names(pid: u32) -> Vec<String> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
        .map(|name| name.trim().to_owned())
        .collect()
}

#[cfg(target_os = "linux")]
#[test]
fn without_a_variable_or_a_setting_nothing_is_set_up() {
    let exporter_thread = |endpoint: Option<&str>| {
        let (_dir, seen) = scratch("threads");
        let mut client = ProxyClient::start(&seen, endpoint);
        client.send(INITIALIZE).unwrap();
        let names = thread_names(client.child.id());
        client.finish();
        names.iter().any(|name| name.starts_with("OpenTelemetry"))
    };
    let collector = OtlpReceiver::start();
    assert!(
        exporter_thread(Some(&collector.endpoint)),
        "the check sees the thread"
    );
    assert!(
        !exporter_thread(None),
        "no exporter thread without a variable"
    );
}

/// A port nothing listens on.
fn closed_port() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{address}")
}

#[test]
fn an_unreachable_collector_costs_little_and_is_said_once() {
    let (_dir, seen) = scratch("unreachable");
    // Connections are taken and never answered.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_endpoint = format!("http://{}", silent.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming().flatten() {
            held.push(stream);
        }
    });
    // A collector that refuses with escape sequences in its answer.
    let hostile = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let hostile_endpoint = format!("http://{}", hostile.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in hostile.incoming().flatten() {
            let mut request = [0; 65536];
            let _ = std::io::Read::read(&mut stream, &mut request);
            let body = "\u{1b}]0;pwned\u{7}\u{1b}[2Jrefused\nsecond line";
            let answer = format!(
                "HTTP/1.1 400 Bad\u{1b}[31m\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    let (without, baseline) = call(&seen, "get_user", None);
    assert_eq!(status(&without), 0);
    assert_eq!(stderr(&without), "", "nothing is said without telemetry");
    let escaping = format!("{}/\u{1b}[31m\u{9b}2J", closed_port());
    for endpoint in [closed_port(), silent_endpoint, hostile_endpoint, escaping] {
        let (output, took) = call(&seen, "get_user", Some(&endpoint));
        assert_eq!(status(&output), 0, "{}", stderr(&output));
        let said = stderr(&output);
        let warnings = said.lines().filter(|line| line.contains("traces")).count();
        assert_eq!(warnings, 1, "said once for {endpoint}: {said}");
        assert_eq!(said.lines().count(), 1, "{said}");
        assert!(
            !said.contains(['\u{1b}', '\u{7}', '\u{9b}']),
            "nothing raw reaches the terminal: {said:?}"
        );
        // At most the bounded wait at exit (500 ms) more, with room for a loaded machine.
        assert!(
            took < baseline + Duration::from_millis(1_500),
            "{endpoint}: {took:?} against {baseline:?} without telemetry"
        );
        eprintln!("{endpoint}: {took:?} against {baseline:?} without telemetry");
    }
}

#[test]
fn over_http_the_spans_say_tcp_and_the_modern_era() {
    let collector = OtlpReceiver::start();
    let (_server, url) = crate::support::demo_http_server(None);
    let output = command()
        .args(["call", "--url", &url, "add", "--arg", "a=1", "--arg", "b=2"])
        .env(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            format!("{}/v1/traces", collector.endpoint),
        )
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .output()
        .unwrap();
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let spans = collector.spans();
    let call = named(&spans, "tools/call add");
    let session = named(&spans, "mcp session");
    assert_eq!(call.attribute("network.transport"), Some("tcp"));
    assert_eq!(session.attribute("network.transport"), Some("tcp"));
    assert_eq!(call.attribute("mcp.protocol.version"), Some("2026-07-28"));
    assert_eq!(call.parent_span_id, session.span_id);
    assert_eq!(
        call.service_name, "toolscope",
        "the service's name when none is set"
    );
}

#[test]
fn an_http_session_names_its_mcp_session_id() {
    let collector = OtlpReceiver::start();
    // A 2025-11-25 server that names its session (`Mcp-Session-Id: hostile-session`) and
    // answers everything but tools/call.
    let mut child = std::process::Command::new("python3")
        .arg(repo_root().join("tests/fixtures/hostile_http_server.py"))
        .arg("forbidden-call")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _server = crate::support::Background(child);
    let base = line.trim().strip_prefix("listening ").unwrap().to_owned();
    let output = command()
        .args(["tools", "--url", &format!("{base}/mcp")])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)
        .output()
        .unwrap();
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let spans = collector.spans();
    let list = named(&spans, "tools/list");
    assert_eq!(list.attribute("mcp.session.id"), Some("hostile-session"));
    assert_eq!(list.attribute("mcp.protocol.version"), Some("2025-11-25"));
}
