//! `toolscope proxy`: a raw JSON-RPC client through the proxy gets byte-identical answers to
//! a direct run against the official Python SDK server; the official Python SDK client works
//! through it; the server's stderr reaches the proxy's; a client that leaves ends and reaps
//! the server; a server that exits leaves the client at EOF with its exit code. Over HTTP: a
//! remote server served locally, its stream relayed, Host and Origin checked.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use crate::support::{binary, peer_available, repo_root};

/// The Python SDK peer's command line, when installed.
fn python_server() -> Option<(String, String)> {
    let root = repo_root();
    let python = root.join("tests/peers/python/.venv/bin/python");
    peer_available(&python, "the Python `mcp` peer").then(|| {
        (
            python.display().to_string(),
            root.join("tests/peers/python/server.py")
                .display()
                .to_string(),
        )
    })
}

/// What a client sends: the handshake, the tool list and a call.
const SESSION: [&str; 4] = [
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-client","version":"1.0"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
];

/// Sends `SESSION` to `child`, reads the three answers (raw lines), closes its stdin and waits.
/// The answers, how the process ended, and what it said on stderr (when piped).
fn converse(mut child: Child) -> (Vec<Vec<u8>>, std::process::ExitStatus, String) {
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut answers = Vec::new();
    for line in SESSION {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        if line.contains("\"id\"") {
            let mut answer = Vec::new();
            stdout.read_until(b'\n', &mut answer).unwrap();
            answers.push(answer);
        }
    }
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut said = String::new();
            if let Some(mut stderr) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut stderr, &mut said);
            }
            return (answers, status, said);
        }
        assert!(
            Instant::now() < deadline,
            "the process did not end after its stdin closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_raw_client_gets_byte_identical_answers_through_the_proxy() {
    let Some((python, script)) = python_server() else {
        return;
    };
    let direct = Command::new(&python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (expected, _, _) = converse(direct);
    let data = tempfile::tempdir().unwrap();
    let proxied = crate::support::command()
        // The server's command line as a client's configuration would give it.
        .args(["proxy", "--stdio", &format!("'{python}' '{script}'")])
        .env("TOOLSCOPE_DATA_DIR", data.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (answers, status, said) = converse(proxied);
    assert_eq!(answers.len(), 3);
    for (through, direct) in answers.iter().zip(&expected) {
        assert_eq!(
            String::from_utf8_lossy(through),
            String::from_utf8_lossy(direct),
            "the proxy relays each answer byte for byte"
        );
    }
    assert!(
        String::from_utf8_lossy(&answers[2]).contains("\"result\""),
        "the call was answered"
    );
    assert!(
        status.success(),
        "the client left; the server ended cleanly: {status}"
    );

    // The call is kept with the client's name, its response as relayed.
    let kept = crate::support::json_of(&crate::support::toolscope_with_data(
        data.path(),
        &["history", "--json"],
    ));
    let calls = kept.as_array().unwrap();
    assert_eq!(calls.len(), 1, "{kept}\nthe proxy said: {said}");
    assert_eq!(calls[0]["tool"], "add");
    assert_eq!(calls[0]["client"], "raw-client 1.0");
    assert_eq!(calls[0]["verdict"], "ok");
    let shown = crate::support::toolscope_with_data(
        data.path(),
        &["history", "show", &calls[0]["id"].to_string(), "--json"],
    );
    let shown = crate::support::stdout(&shown);
    let listed = crate::support::stdout(&crate::support::toolscope_with_data(
        data.path(),
        &["history"],
    ));
    assert!(listed.contains("(from raw-client 1.0)"), "{listed}");
    assert!(
        shown.contains("\"result\": 5") || shown.contains("\"result\":5"),
        "{shown}"
    );
}

/// A client that calls a tool the server never listed (the demo server refuses it) through the
/// proxy: the row says it was not listed, as a window call of an unlisted tool does, while the
/// listed tool's call beside it is listed and checked against its output schema.
#[test]
fn a_call_of_a_tool_the_server_never_listed_is_kept_as_not_listed() {
    let data = tempfile::tempdir().unwrap();
    let mut proxy = crate::support::command()
        .args(["proxy", "--", binary(), "demo-server"])
        .env("TOOLSCOPE_DATA_DIR", data.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = proxy.stdin.take().unwrap();
    let mut stdout = BufReader::new(proxy.stdout.take().unwrap());
    let session = [
        SESSION[0],
        SESSION[1],
        SESSION[2],
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"not_a_listed_tool","arguments":{}}}"#,
    ];
    for line in session {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        if line.contains("\"id\"") {
            let mut answer = String::new();
            stdout.read_line(&mut answer).unwrap();
            assert!(answer.contains("\"jsonrpc\""), "{answer}");
        }
    }
    drop(stdin);
    assert!(proxy.wait().unwrap().success());

    let kept = crate::support::json_of(&crate::support::toolscope_with_data(
        data.path(),
        &["history", "--json"],
    ));
    let calls = kept.as_array().unwrap();
    let listed = |tool: &str| -> bool {
        let call = calls.iter().find(|call| call["tool"] == tool).unwrap();
        let shown = crate::support::json_of(&crate::support::toolscope_with_data(
            data.path(),
            &["history", "show", &call["id"].to_string(), "--json"],
        ));
        shown["listed"].as_bool().unwrap()
    };
    assert_eq!(calls.len(), 2, "{kept}");
    assert!(listed("add"), "add is in the session's tools/list");
    assert!(
        !listed("not_a_listed_tool"),
        "a tool the session never listed is kept as not listed"
    );
}

#[test]
fn the_servers_stderr_and_exit_reach_the_client_and_a_malformed_line_passes_unchanged() {
    // A server that writes a line that is not JSON, a line on stderr, then exits with 3.
    let script = "import sys\n\
                  line = sys.stdin.buffer.readline()\n\
                  sys.stdout.buffer.write(b'not json ' + line)\n\
                  sys.stdout.flush()\n\
                  sys.stderr.write('server says goodbye\\n')\n\
                  sys.exit(3)\n";
    let mut proxy = crate::support::command()
        .args(["proxy", "--", "python3", "-c", script])
        .env("TOOLSCOPE_DATA_DIR", crate::support::test_data_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = proxy.stdin.take().unwrap();
    stdin.write_all(b"{\"odd\": \xff}\n").unwrap();
    stdin.flush().unwrap();
    let output = proxy.wait_with_output().unwrap();
    assert_eq!(
        output.stdout, b"not json {\"odd\": \xff}\n",
        "relayed unchanged"
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("server says goodbye"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(3), "the server's exit code");
    drop(stdin);
}

#[test]
fn a_server_not_found_by_name_is_said_so() {
    let output = crate::support::command()
        .args(["proxy", "--server", "no-such-server-anywhere"])
        .env("TOOLSCOPE_DATA_DIR", crate::support::test_data_dir())
        .env(
            "TOOLSCOPE_CONFIG_DIR",
            crate::support::test_data_dir().join("config"),
        )
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        output.stdout.is_empty(),
        "standard output is the client's: nothing of ours"
    );
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("no-such-server-anywhere"), "{said}");
}

#[test]
fn the_official_python_sdk_client_works_through_the_proxy_and_its_session_is_kept() {
    let Some((python, script)) = python_server() else {
        return;
    };
    let client = repo_root().join("tests/peers/python/client.py");
    let data = tempfile::tempdir().unwrap();
    let binary = binary();
    let output = Command::new(&python)
        .arg(&client)
        .args([binary, "proxy", "--", &python, &script])
        .env("TOOLSCOPE_DATA_DIR", data.path())
        // Never the settings of whoever runs the tests (a team history named there).
        .env("TOOLSCOPE_CONFIG_DIR", data.path().join("config"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{said}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let got: serde_json::Value = serde_json::from_str(said.trim()).unwrap();
    assert_eq!(got["structured"]["result"], 5, "{got}");
    assert!(got["settings"].as_str().unwrap().contains("dark"), "{got}");
    assert_eq!(got["prompt_messages"], 1, "{got}");

    // The session: the client as it named itself (in each request's _meta on 2026-07-28),
    // its three exchanges, and the rest of its traffic in its log.
    let sessions = crate::support::json_of(&crate::support::toolscope_with_data(
        data.path(),
        &["history", "sessions", "--json"],
    ));
    let session = &sessions[0];
    assert_eq!(session["client"], "mcp 0.1.0", "{sessions}");
    assert_eq!(session["protocol_version"], "2026-07-28", "{sessions}");
    assert_eq!(session["calls"], 3, "{sessions}");
    assert!(
        session["ending"]
            .as_str()
            .unwrap()
            .starts_with("the client left"),
        "{sessions}"
    );
    let id = session["id"].to_string();
    let calls = crate::support::json_of(&crate::support::toolscope_with_data(
        data.path(),
        &["history", "--session", &id, "--json"],
    ));
    let kinds: Vec<&str> = calls
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["prompt", "read", "call"], "{calls}");
    let log = crate::support::stdout(&crate::support::toolscope_with_data(
        data.path(),
        &["history", "log", &id],
    ));
    assert!(
        log.contains("→ {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\""),
        "{log}"
    );
    assert!(log.contains("tools/list"), "{log}");
    assert!(log.contains("(the answer: call #"), "{log}");
    assert!(log.contains("ended: the client left"), "{log}");
}

/// `toolscope proxy --url URL --listen 127.0.0.1:0` with its data in `data`, and the local
/// URL it says it serves.
fn http_proxy(url: &str, data: &std::path::Path, extra: &[&str]) -> (Child, String) {
    let mut proxy = crate::support::command()
        .args(["proxy", "--url", url, "--listen", "127.0.0.1:0"])
        .args(extra)
        .env("TOOLSCOPE_DATA_DIR", data)
        .env("TOOLSCOPE_CONFIG_DIR", data.join("config"))
        .env("TOOLSCOPE_SECRETS", "file")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = String::new();
    BufReader::new(proxy.stderr.take().unwrap())
        .read_line(&mut said)
        .unwrap();
    let local = said
        .split("served at ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no local URL in {said:?}"))
        .to_owned();
    (proxy, local)
}

/// The status of a bare POST to `address` with these header lines.
fn post_status(address: &str, headers: &str) -> u16 {
    use std::io::Read as _;
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\n{headers}\r\nContent-Type: application/json\r\n\
         Content-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer:?}"))
}

/// Ctrl+C, and the exit it makes.
fn interrupt(mut child: Child) -> std::process::ExitStatus {
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "Ctrl+C did not end the proxy");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_http_server_is_served_locally_its_stream_relayed_and_its_session_kept() {
    let (_server, url) = crate::support::demo_http_server(Some("s3cret"));
    let data = tempfile::tempdir().unwrap();
    let (proxy, local) = http_proxy(
        &url,
        data.path(),
        &["--header", "Authorization: Bearer s3cret"],
    );

    // A client configured with the local URL, and no token: the proxy adds the header.
    let called = crate::support::toolscope_with_data(
        &data.path().join("client"),
        &[
            "call", "--url", &local, "add", "--arg", "a=2", "--arg", "b=40", "--json",
        ],
    );
    let shown = crate::support::stdout(&called);
    assert!(
        called.status.success(),
        "{shown}{}",
        crate::support::stderr(&called)
    );
    assert!(
        shown.contains("\"result\": 42") || shown.contains("\"result\":42"),
        "{shown}"
    );

    // Only this machine's pages and clients are answered.
    let address = local
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    assert_eq!(post_status(&address, "Host: attacker.example"), 403);
    assert_eq!(
        post_status(
            &address,
            &format!("Host: {address}\r\nOrigin: http://attacker.example")
        ),
        403
    );
    assert_ne!(
        post_status(
            &address,
            &format!("Host: {address}\r\nOrigin: http://localhost")
        ),
        403,
        "the machine's own pages are forwarded"
    );

    assert!(interrupt(proxy).success(), "Ctrl+C stops it cleanly");
    let sessions = crate::support::json_of(&crate::support::toolscope_with_data(
        data.path(),
        &["history", "sessions", "--json"],
    ));
    let session = &sessions[0];
    assert!(
        session["client"]
            .as_str()
            .unwrap()
            .starts_with("toolscope "),
        "{sessions}"
    );
    assert_eq!(session["calls"], 1, "{sessions}");
    assert_eq!(session["ending"], "the proxy stopped", "{sessions}");
    let log = crate::support::stdout(&crate::support::toolscope_with_data(
        data.path(),
        &["history", "log", &session["id"].to_string()],
    ));
    assert!(log.contains("tools/list"), "{log}");
    assert!(log.contains("(the answer: call #"), "{log}");
}

#[test]
fn an_http_proxy_listens_on_this_machine_only() {
    let output = crate::support::command()
        .args([
            "proxy",
            "--url",
            "http://127.0.0.1:9/mcp",
            "--listen",
            "0.0.0.0:0",
        ])
        .env("TOOLSCOPE_DATA_DIR", crate::support::test_data_dir())
        .env("TOOLSCOPE_SECRETS", "file")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("listens on this machine only"), "{said}");
}
