//! Interop with servers nobody here wrote: a Python server on the official `mcp` package and
//! `@modelcontextprotocol/server-everything`. `bash tests/peers/install.sh` installs both.

use crate::support::{json_of, peer_available, repo_root, status, stderr, toolscope};
use serde_json::json;

fn python_server() -> Option<String> {
    let root = repo_root();
    let python = root.join("tests/peers/python/.venv/bin/python");
    peer_available(&python, "the Python `mcp` peer").then(|| {
        format!(
            "{} {}",
            python.display(),
            root.join("tests/peers/python/server.py").display()
        )
    })
}

fn everything_server() -> Option<String> {
    crate::support::everything_entry().map(|entry| format!("node {}", entry.display()))
}

fn filesystem_server(root: &std::path::Path) -> Option<String> {
    let entry = repo_root()
        .join("tests/peers/npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    peer_available(&entry, "@modelcontextprotocol/server-filesystem")
        .then(|| format!("node {} {}", entry.display(), root.display()))
}

/// server-filesystem's `read_text_file` sends the file's text, and `{"content": <the same
/// text>}`: the text mirrors that field, and the analysis says so instead of "not JSON".
#[test]
fn a_text_that_is_a_string_field_mirrors_it_on_server_filesystem() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "first line\nsecond line, plain prose\n").unwrap();
    let Some(server) = filesystem_server(dir.path()) else {
        return;
    };
    let args = json!({"path": file.display().to_string()}).to_string();
    let read = |json: &[&str]| {
        let mut command = vec![
            "call",
            "--stdio",
            &server,
            "read_text_file",
            "--args",
            &args,
        ];
        command.extend_from_slice(json);
        toolscope(&command)
    };
    let output = read(&["--json"]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let doc = json_of(&output);
    assert_eq!(
        doc["response"]["value"]["structuredContent"]["content"],
        "first line\nsecond line, plain prose\n"
    );
    let mirror = &doc["analysis"]["text_mirror"];
    assert_eq!(mirror["kind"], "matches", "{mirror}");
    assert_eq!(
        mirror["shape"]["string_field"]["field"], "content",
        "{mirror}"
    );
    let output = read(&[]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("field `content`"), "{text}");
    assert!(!text.contains("not JSON"), "{text}");
}

#[test]
fn python_sdk_shapes() {
    let Some(server) = python_server() else {
        return;
    };
    let call = |tool: &str, args: &str| {
        toolscope(&["call", "--stdio", &server, tool, "--args", args, "--json"])
    };

    let output = call("add", r#"{"a":1,"b":2}"#);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let doc = json_of(&output);
    assert_eq!(doc["protocol_version"], "2026-07-28");
    assert_eq!(
        doc["response"]["value"]["structuredContent"],
        json!({"result": 3})
    );
    assert_eq!(doc["analysis"]["text_mirror"]["kind"], "matches");
    assert!(doc["analysis"]["wrapping"].is_object());

    let doc = json_of(&call("add_model", r#"{"a":1,"b":2}"#));
    assert!(doc["analysis"]["wrapping"].is_null());
    assert_eq!(
        doc["analysis"]["text_mirror"]["kind"], "matches",
        "pretty JSON text mirrors the model"
    );

    let doc = json_of(&call("add_text", r#"{"a":1,"b":2}"#));
    assert_eq!(doc["analysis"]["contract"]["kind"], "no_schema");

    let doc = json_of(&call("primes", r#"{"n":4}"#));
    assert_eq!(
        doc["analysis"]["text_mirror"]["shape"],
        "one_block_per_item"
    );

    let output = call("fail", r#"{"reason":"boom"}"#);
    assert_eq!(status(&output), 1);
    assert_eq!(
        json_of(&output)["analysis"]["error_kind"]["kind"],
        "tool_error"
    );

    let output = call("bad_contract_raw", "{}");
    assert_eq!(status(&output), 1, "a real violation on the wire");

    let output = call("protocol_error", r#"{"reason":"nope"}"#);
    assert_eq!(status(&output), 2);
    assert_eq!(
        json_of(&output)["analysis"]["error_kind"]["kind"],
        "protocol_error"
    );
}

/// A 2026-07-28 server over Streamable HTTP: Toolscope's own `server/discover` probe finds it.
#[test]
fn python_sdk_over_http_speaks_the_latest_era() {
    let Some(server) = python_server() else {
        return;
    };
    let port = free_port();
    let words: Vec<&str> = server.split(' ').collect();
    let child = std::process::Command::new(words[0])
        .args(&words[1..])
        .args(["--http", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start the Python peer: {error}"));
    let _guard = crate::support::Background(child);
    wait_for_port(port, "the Python peer");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let output = toolscope(&[
        "call",
        "--url",
        &url,
        "add",
        "--args",
        r#"{"a":1,"b":2}"#,
        "--json",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let doc = json_of(&output);
    assert_eq!(doc["protocol_version"], "2026-07-28");
    assert_eq!(
        doc["server"]["lifecycle"], "server/discover",
        "{}",
        doc["server"]
    );
    assert_eq!(
        doc["response"]["value"]["structuredContent"],
        json!({"result": 3})
    );
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map_or_else(
            |error| panic!("no free port: {error}"),
            |address| address.port(),
        )
}

/// Waits until something listens on `port` (a condition, not a fixed sleep).
pub(crate) fn wait_for_port(port: u16, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "{what} did not start");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn server_everything_over_stdio() {
    let Some(server) = everything_server() else {
        return;
    };
    let output = toolscope(&[
        "call",
        "--stdio",
        &server,
        "get-structured-content",
        "--arg",
        "location=Chicago",
        "--json",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let doc = json_of(&output);
    assert_eq!(doc["protocol_version"], "2025-11-25");
    assert_eq!(
        doc["analysis"]["contract"]["dialect"], "draft-07",
        "{}",
        doc["analysis"]["contract"]
    );
    assert_eq!(doc["analysis"]["text_mirror"]["kind"], "matches");

    let doc = json_of(&toolscope(&[
        "call",
        "--stdio",
        &server,
        "get-annotated-message",
        "--args",
        r#"{"messageType":"error","includeImage":true}"#,
        "--json",
    ]));
    let blocks = doc["analysis"]["content"].as_array().unwrap();
    assert_eq!(blocks[1]["kind"], "image");
    assert_eq!(blocks[0]["annotations"]["priority"], 1.0);

    let output = toolscope(&[
        "call",
        "--stdio",
        &server,
        "trigger-long-running-operation",
        "--args",
        r#"{"duration":1,"steps":2}"#,
    ]);
    assert_eq!(status(&output), 0);
    assert!(
        stderr(&output).contains("progress 2/2"),
        "{}",
        stderr(&output)
    );

    let doc = json_of(&toolscope(&["tools", "--stdio", &server, "--json"]));
    let echo = doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap();
    assert!(
        echo.get("execution").is_some(),
        "fields rmcp drops are kept"
    );
}

#[test]
fn server_everything_over_http() {
    let Some(server) = everything_server() else {
        return;
    };
    let port = free_port();
    let words: Vec<&str> = server.split(' ').collect();
    let child = std::process::Command::new(words[0])
        .args(&words[1..])
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _guard = crate::support::Background(child);
    let url = format!("http://127.0.0.1:{port}/mcp");
    wait_for_port(port, "server-everything");
    let output = toolscope(&[
        "call",
        "--url",
        &url,
        "get-structured-content",
        "--arg",
        "location=New York",
        "--json",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(
        json_of(&output)["analysis"]["contract"]["kind"],
        "satisfied"
    );
}

#[tokio::test]
async fn server_notifications_arrive_as_events() {
    use std::sync::{Arc, Mutex};
    use toolscope_core::session::{ConnectOptions, ServerConfig, Session, SessionEvent, Timeouts};

    let Some(server) = everything_server() else {
        return;
    };
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let events = events.clone();
        Arc::new(move |event: SessionEvent| events.lock().unwrap().push(event))
    };
    let config = ServerConfig::stdio_from_command_line(&server).unwrap();
    let options = ConnectOptions::new(Timeouts::default(), sink);
    let session = Session::connect(&config, options).await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        if events
            .lock()
            .unwrap()
            .iter()
            .any(|e| matches!(e, SessionEvent::ToolListChanged))
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no tools/list_changed event"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    session.close().await;
}
