//! `toolscope check` and `toolscope history diff` over real proxied sessions: the official
//! Python SDK client through `toolscope proxy` to the Python SDK server (a broken output
//! contract and a clean session), to `tests/fixtures/interface_server.py` v1 then v2 (a
//! changed tool and a changed result), and a raw client to
//! `tests/fixtures/hostile_gate_server.py` (every other kind of finding, with escape
//! sequences in what the server sends). SARIF is validated against the official SARIF 2.1.0
//! schema (`tests/fixtures/sarif-schema-2.1.0.json`).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::{
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Command, Output, Stdio},
};

use serde_json::Value;

use crate::support::{binary, json_of, peer_available, repo_root, stderr, stdout};

/// The Python SDK peer: its interpreter, when installed.
fn python() -> Option<String> {
    let python = repo_root().join("tests/peers/python/.venv/bin/python");
    peer_available(&python, "the Python `mcp` peer").then(|| python.display().to_string())
}

/// The Python SDK client making `calls` (a JSON list of [tool, arguments]) through
/// `toolscope proxy -- <server>`, the session kept in `data`'s history; what it got.
fn client_through_proxy(data: &Path, python: &str, calls: &str, server: &[&str]) -> Value {
    let client = repo_root().join("tests/peers/python/gate_client.py");
    let output = Command::new(python)
        .arg(client)
        .arg(calls)
        .args([binary(), "proxy", "--"])
        .args(server)
        .env("TOOLSCOPE_DATA_DIR", data)
        .env("TOOLSCOPE_CONFIG_DIR", data.join("config"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    json_of(&output)
}

fn toolscope(data: &Path, args: &[&str]) -> Output {
    crate::support::toolscope_with_data(data, args)
}

/// The ids of the sessions kept, oldest first.
fn session_ids(data: &Path) -> Vec<i64> {
    let sessions = json_of(&toolscope(data, &["history", "sessions", "--json"]));
    let mut ids: Vec<i64> = sessions
        .as_array()
        .unwrap()
        .iter()
        .map(|session| session["id"].as_i64().unwrap())
        .collect();
    ids.reverse();
    ids
}

/// The SARIF file, checked against the official SARIF 2.1.0 schema.
fn valid_sarif(path: &Path) -> Value {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("tests/fixtures/sarif-schema-2.1.0.json"))
            .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let sarif: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "not SARIF 2.1.0: {errors:#?}\n{sarif:#}");
    assert_eq!(sarif["version"], "2.1.0");
    sarif
}

#[test]
fn check_fails_a_session_with_a_broken_contract_naming_the_tool_and_passes_a_clean_one() {
    let Some(python) = python() else {
        return;
    };
    let server = repo_root().join("tests/peers/python/server.py");
    let server = [python.as_str(), server.to_str().unwrap()];
    let data = tempfile::tempdir().unwrap();
    let got = client_through_proxy(
        data.path(),
        &python,
        r#"[["add", {"a": 2, "b": 3}], ["bad_contract_raw", {}]]"#,
        &server,
    );
    assert!(
        got["calls"][1]["raised"]
            .as_str()
            .is_some_and(|raised| raised.contains("Invalid structured content")),
        "the SDK's own client saw the broken contract too: {got}"
    );
    client_through_proxy(
        data.path(),
        &python,
        r#"[["add", {"a": 2, "b": 3}], ["add_model", {"a": 1, "b": 2}]]"#,
        &server,
    );
    let [broken, clean] = session_ids(data.path())[..] else {
        panic!("two sessions were kept");
    };

    let sarif_path = data.path().join("broken.sarif");
    let junit_path = data.path().join("broken.xml");
    let checked = toolscope(
        data.path(),
        &[
            "check",
            "--session",
            &broken.to_string(),
            "--sarif",
            sarif_path.to_str().unwrap(),
            "--junit",
            junit_path.to_str().unwrap(),
        ],
    );
    assert_eq!(checked.status.code(), Some(1), "{}", stderr(&checked));
    let lines = stdout(&checked);
    assert_eq!(lines.lines().count(), 1, "one line per finding: {lines}");
    assert!(
        lines.contains(&format!("session #{broken} "))
            && lines.contains("bad_contract_raw (call #")
            && lines.contains("contract-broken: structuredContent breaks the tool's output schema")
            && lines.contains("\"is_success\" is required"),
        "{lines}"
    );
    let sarif = valid_sarif(&sarif_path);
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(rules.len() >= 9, "one rule per kind of finding");
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{sarif:#}");
    let result = &results[0];
    assert_eq!(result["ruleId"], "contract-broken");
    assert_eq!(result["level"], "error");
    assert_eq!(
        rules[result["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "contract-broken"
    );
    let location = &result["locations"][0];
    assert_eq!(location["logicalLocations"][0]["name"], "bad_contract_raw");
    assert_eq!(location["logicalLocations"][0]["kind"], "function");
    assert!(
        location["logicalLocations"][1]["name"]
            .as_str()
            .unwrap()
            .starts_with("call #")
    );
    // The artifact is the server (the same from one CI run to the next), the session's id a
    // property; a fingerprint lets code scanning follow the result across runs.
    let artifact = location["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert!(artifact.starts_with("toolscope:server/"), "{artifact}");
    assert!(!artifact.contains(' '), "percent-encoded: {artifact}");
    assert_eq!(result["properties"]["session"], broken);
    assert_eq!(
        result["partialFingerprints"]["toolscopeFinding/v1"]
            .as_str()
            .map(str::len),
        Some(64)
    );
    let junit = std::fs::read_to_string(&junit_path).unwrap();
    assert!(
        junit.contains("failures=\"1\"")
            && junit.contains("<failure type=\"contract-broken\"")
            && junit.contains("bad_contract_raw"),
        "{junit}"
    );

    let clean_sarif = data.path().join("clean.sarif");
    let checked = toolscope(
        data.path(),
        &[
            "check",
            "--session",
            &clean.to_string(),
            "--sarif",
            clean_sarif.to_str().unwrap(),
        ],
    );
    assert_eq!(checked.status.code(), Some(0), "{}", stdout(&checked));
    assert_eq!(stdout(&checked), "", "no findings, no lines");
    assert!(
        stderr(&checked).contains(&format!("checked session #{clean} ")),
        "{}",
        stderr(&checked)
    );
    let sarif = valid_sarif(&clean_sarif);
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));

    // Every session since an hour ago: the broken one fails the gate.
    let since = toolscope(data.path(), &["check", "--since", "1h"]);
    assert_eq!(since.status.code(), Some(1));
    assert!(
        stderr(&since).contains(&format!("checked session #{broken} "))
            && stderr(&since).contains(&format!("checked session #{clean} ")),
        "{}",
        stderr(&since)
    );

    // The broken session's calls as a recording file: its calls judged alone.
    let recording = data.path().join("broken.json");
    let exported = toolscope(
        data.path(),
        &[
            "history",
            "export",
            "--session",
            &broken.to_string(),
            "--output",
            recording.to_str().unwrap(),
        ],
    );
    assert!(exported.status.success(), "{}", stderr(&exported));
    let checked = toolscope(data.path(), &["check", recording.to_str().unwrap()]);
    assert_eq!(checked.status.code(), Some(1));
    assert!(
        stdout(&checked).contains("bad_contract_raw")
            && stdout(&checked).contains("contract-broken"),
        "{}",
        stdout(&checked)
    );
}

#[test]
fn history_diff_names_a_changed_tool_and_a_changed_result() {
    let Some(python) = python() else {
        return;
    };
    let fixture = repo_root().join("tests/fixtures/interface_server.py");
    let fixture = fixture.to_str().unwrap();
    let data = tempfile::tempdir().unwrap();
    let calls = r#"[["search", {"query": "mcp", "limit": 2}], ["echo", {"text": "hi"}]]"#;
    for version in ["v1", "v2"] {
        client_through_proxy(data.path(), &python, calls, &["python3", fixture, version]);
    }
    let [first, second] = session_ids(data.path())[..] else {
        panic!("two sessions were kept");
    };
    let (first, second) = (first.to_string(), second.to_string());

    let diffed = toolscope(data.path(), &["history", "diff", &first, &second]);
    assert!(diffed.status.success(), "{}", stderr(&diffed));
    let text = stdout(&diffed);
    for expected in [
        "search (changed)",
        "argument `limit` became required",
        "legacy (removed)",
        "fresh (added)",
        "2 calls matched, 1 with a different result",
        "/total: removed 2",
    ] {
        assert!(text.contains(expected), "{expected:?} in:\n{text}");
    }
    let search = text
        .lines()
        .find(|line| line.trim_start().starts_with("search {"))
        .unwrap();
    assert!(search.contains("result changed"), "{search}");
    let echo = text
        .lines()
        .find(|line| line.trim_start().starts_with("echo {"))
        .unwrap();
    assert!(echo.contains("same result"), "{echo}");

    let json = json_of(&toolscope(
        data.path(),
        &["history", "diff", &first, &second, "--json"],
    ));
    let changed: Vec<&str> = json["tools"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|tool| tool["status"] == "changed")
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(changed.contains(&"search"), "{json:#}");
    let pairs = json["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    assert_eq!(pairs[0]["old"]["tool"], "search");
    assert_eq!(pairs[0]["same_result"], false);
    assert_eq!(pairs[1]["same_result"], true);

    // The second session held against a snapshot of the first interface.
    let snapshot = data.path().join("v1.json");
    let taken = toolscope(
        data.path(),
        &[
            "snapshot",
            "--stdio",
            &format!("python3 {fixture} v1"),
            "--output",
            snapshot.to_str().unwrap(),
        ],
    );
    assert!(taken.status.success(), "{}", stderr(&taken));
    let checked = toolscope(
        data.path(),
        &[
            "check",
            "--session",
            &second,
            "--against",
            snapshot.to_str().unwrap(),
        ],
    );
    assert_eq!(checked.status.code(), Some(1));
    let lines = stdout(&checked);
    assert!(
        lines.lines().any(
            |line| line.contains("· search · tools-differ-from-snapshot:")
                && line.contains("became required")
        ),
        "{lines}"
    );
    let checked = toolscope(
        data.path(),
        &[
            "check",
            "--session",
            &first,
            "--against",
            snapshot.to_str().unwrap(),
        ],
    );
    assert_eq!(checked.status.code(), Some(0), "{}", stdout(&checked));
}

/// Writes `line` to the proxy and, when it is a request, reads lines until its answer.
fn exchange(stdin: &mut impl Write, stdout: &mut impl BufRead, line: &str, answered: bool) {
    writeln!(stdin, "{line}").unwrap();
    stdin.flush().unwrap();
    let request: Value = serde_json::from_str(line).unwrap();
    if !answered {
        return;
    }
    let Some(id) = request.get("id") else {
        return;
    };
    loop {
        let mut answer = String::new();
        assert!(
            stdout.read_line(&mut answer).unwrap() > 0,
            "no answer to {line}"
        );
        if serde_json::from_str::<Value>(&answer).is_ok_and(|answer| answer.get("id") == Some(id)) {
            return;
        }
    }
}

#[test]
fn check_finds_every_other_kind_in_a_hostile_session_and_prints_it_safely() {
    let fixture = repo_root().join("tests/fixtures/hostile_gate_server.py");
    let data = tempfile::tempdir().unwrap();
    let mut proxy = crate::support::command()
        .args(["proxy", "--", "python3", fixture.to_str().unwrap()])
        .env("TOOLSCOPE_DATA_DIR", data.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = proxy.stdin.take().unwrap();
    let mut stdout_lines = BufReader::new(proxy.stdout.take().unwrap());
    let call = |id: u32, name: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{{"a":1}}}}}}"#
        )
    };
    let session = [
        (r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"raw-client","version":"1.0"}}}"#.to_owned(), true),
        (r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(), true),
        (r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}"#.to_owned(), true),
        (r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#.to_owned(), true),
        (call(4, "add"), true),
        (call(5, "hang"), false),
        (call(6, "slow"), true),
        (r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#.to_owned(), true),
        (call(8, "garbage"), true),
        (call(9, "evil\\u001b[2J\\u001b]0;pwned\\u0007"), true),
        (r#"{"jsonrpc":"2.0","id":10,"method":"resources/list"}"#.to_owned(), true),
    ];
    for (line, answered) in &session {
        exchange(&mut stdin, &mut stdout_lines, line, *answered);
    }
    drop(stdin);
    assert!(proxy.wait().unwrap().success());

    let sarif_path = data.path().join("hostile.sarif");
    let junit_path = data.path().join("hostile.xml");
    let checked = toolscope(
        data.path(),
        &[
            "check",
            "--session",
            "1",
            "--max-ms",
            "200",
            "--sarif",
            sarif_path.to_str().unwrap(),
            "--junit",
            junit_path.to_str().unwrap(),
        ],
    );
    assert_eq!(checked.status.code(), Some(1), "{}", stderr(&checked));
    let lines = stdout(&checked);
    let finds = |rule: &str, tool: &str, words: &str| {
        assert!(
            lines
                .lines()
                .any(|line| line.contains(&format!(" · {rule}: "))
                    && line.contains(tool)
                    && line.contains(words)),
            "{rule} about {tool} ({words:?}) in:\n{lines}"
        );
    };
    finds(
        "unanswered",
        "hang (request 5)",
        "never answered before the session ended",
    );
    finds("slow-call", "slow (call #", "over the limit of 200 ms");
    finds("deprecated-feature", "logging/setLevel", "SEP-2577");
    finds("deprecated-feature", "notifications/message", "sent 1 time");
    finds(
        "tools-changed-in-session",
        "add",
        "argument `b` became required",
    );
    finds(
        "protocol-error",
        "resources/list (request 10)",
        "-32601 Method not found",
    );
    finds("protocol-error", "a line from the server", "not JSON");
    finds(
        "unlisted-tool",
        "garbage (call #",
        "was not in the tools/list",
    );
    finds(
        "tool-error",
        "evil\\u{1b}[2J",
        "isError: true: bad\\u{1b}[2J",
    );
    for text in [lines.as_str(), &stderr(&checked)] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "what the server sent reaches the terminal made safe: {text:?}"
        );
    }
    let json = json_of(&toolscope(
        data.path(),
        &["check", "--session", "1", "--max-ms", "200", "--json"],
    ));
    let findings = json[0]["findings"].as_array().unwrap();
    assert_eq!(findings.len(), lines.lines().count(), "{json:#}");
    assert!(
        findings
            .iter()
            .any(|finding| finding["tool"] == "evil\u{1b}[2J\u{1b}]0;pwned\u{7}"),
        "the tool's name as sent, in JSON: {json:#}"
    );
    let sarif = valid_sarif(&sarif_path);
    let rules: std::collections::BTreeSet<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| result["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(rules.len(), 7, "{rules:?}");
    let junit = std::fs::read_to_string(&junit_path).unwrap();
    assert!(!junit.contains('\u{1b}'), "XML cannot hold ESC: {junit}");
}
