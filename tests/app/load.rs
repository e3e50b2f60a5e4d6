//! `toolscope load`: many calls at once through the engine, against the official Python SDK's
//! server (which nobody here wrote), a server that fails in every way
//! (`tests/fixtures/hostile_load_server.py`), and the demo.

use crate::support::{json_of, peer_available, repo_root, status, stderr, stdout, toolscope};

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

fn hostile_server() -> String {
    format!(
        "python3 {}",
        repo_root()
            .join("tests/fixtures/hostile_load_server.py")
            .display()
    )
}

/// The issue's "done when": 2,000 calls at concurrency 8 against the Python SDK's server,
/// every one counted and none failed, with the figures and the server's memory.
#[test]
fn two_thousand_calls_at_concurrency_eight_on_the_python_sdk_all_answer() {
    let Some(server) = python_server() else {
        return;
    };
    let output = toolscope(&[
        "load",
        "--stdio",
        &server,
        "add",
        "--args",
        r#"{"a": 2, "b": 3}"#,
        "--concurrency",
        "8",
        "--calls",
        "2000",
        "--json",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let figures = json_of(&output);
    assert_eq!(figures["calls"], 2000, "{figures}");
    assert_eq!(figures["ok"], 2000, "{figures}");
    assert_eq!(figures["sessions"], 8);
    assert_eq!(figures["stopped"], 0);
    assert_eq!(figures["interrupted"], false);
    for kind in ["transport", "protocol", "tool_error", "timeout", "contract"] {
        assert_eq!(figures["errors"][kind], 0, "{kind}: {figures}");
    }
    let latency = &figures["latency"];
    assert_eq!(latency["answered"], 2000);
    let ms = |name: &str| latency[name].as_f64().unwrap_or(-1.0);
    assert!(
        0.0 < ms("min_ms")
            && ms("min_ms") <= ms("p50_ms")
            && ms("p50_ms") <= ms("p95_ms")
            && ms("p95_ms") <= ms("p99_ms")
            && ms("p99_ms") <= ms("max_ms"),
        "{latency}"
    );
    let bars = figures["histogram"].as_array().unwrap();
    let in_bars: u64 = bars.iter().map(|bar| bar["calls"].as_u64().unwrap()).sum();
    assert_eq!(in_bars, 2000);
    assert!(figures["calls_per_second"].as_f64().unwrap() > 0.0);
    let memory = &figures["server_memory"];
    if cfg!(target_os = "linux") {
        assert_eq!(memory["known"], true, "{memory}");
        assert_eq!(memory["processes"], 8, "{memory}");
        // A Python interpreter with the SDK loaded holds megabytes, not bytes.
        assert!(memory["peak_largest_bytes"].as_u64().unwrap() > 5_000_000);
    }
}

/// One shared session: the eight callers' calls are in flight on it at once.
#[test]
fn callers_share_one_session_with_shared() {
    let Some(server) = python_server() else {
        return;
    };
    let output = toolscope(&[
        "load", "--stdio", &server, "add", "--arg", "a=1", "--arg", "b=2", "-c", "8", "--calls",
        "200", "--shared",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("8 callers on one shared session"), "{text}");
    assert!(text.contains("200 calls of 200 in "), "{text}");
    assert!(text.contains("ok 200 · errors 0"), "{text}");
    assert!(text.contains("latency p50 "), "{text}");
    assert!(text.contains("server memory: peak "), "{text}");
}

/// Every kind of error is counted under its name with its first message made safe, a session
/// whose server exits stops its caller, and the run ends with status 1.
#[test]
fn a_hostile_server_is_counted_by_kind_and_reaches_the_terminal_escaped() {
    let output = toolscope(&[
        "load",
        "--stdio",
        &hostile_server(),
        "flaky",
        "-c",
        "2",
        "--calls",
        "100",
    ]);
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        !text.contains('\x1b') && !text.contains('\u{202e}'),
        "{text:?}"
    );
    // Each of the two servers answers 8 calls (2 of each kind), then exits at the ninth.
    assert!(text.contains("18 calls of 100"), "{text}");
    assert!(text.contains("ok 4 · errors 14"), "{text}");
    for line in [
        "  transport 2 (first: the connection closed during tools/call flaky",
        "  protocol error (JSON-RPC) 4 (first: Protocol error (JSON-RPC error -32603",
        "  tool error (isError) 4 (first: Tool error (isError: true)",
        "  broken output contract 4 (first: Contract violated",
        "2 sessions closed during the run: their callers stopped",
    ] {
        assert!(text.contains(line), "{line:?} in {text}");
    }

    let stuck = toolscope(&[
        "load",
        "--stdio",
        &hostile_server(),
        "stuck",
        "--calls",
        "1",
        "--timeout",
        "0.3",
        "--json",
    ]);
    assert_eq!(status(&stuck), 1, "{}", stderr(&stuck));
    let figures = json_of(&stuck);
    assert_eq!(figures["errors"]["timeout"], 1, "{figures}");
    assert_eq!(figures["latency"], serde_json::Value::Null);
}

/// A remote URL is refused before anything is sent, with what to do; bad sizes are said.
#[test]
fn only_loopback_and_stdio_servers_are_loaded_unless_allowed() {
    let refused = toolscope(&[
        "load",
        "--url",
        "https://user:secret@example.com/mcp?key=k",
        "add",
        "--calls",
        "1",
    ]);
    assert_eq!(status(&refused), 2);
    let message = stderr(&refused);
    assert!(
        message.contains("error: https://example.com/mcp is not on this machine"),
        "{message}"
    );
    assert!(
        message.contains("--allow-remote") && !message.contains("secret"),
        "{message}"
    );

    for (args, said) in [
        (
            vec!["--concurrency", "0", "--calls", "1"],
            "the concurrency must be between 1 and 1000, not 0",
        ),
        (
            vec!["--duration", "-2"],
            "--duration must be a positive number of seconds",
        ),
        (vec![], "--calls <M>|--duration <SECONDS>"),
    ] {
        let mut line = vec!["load", "--demo", "add"];
        line.extend(args);
        let output = toolscope(&line);
        assert_eq!(status(&output), 2);
        assert!(
            stderr(&output).contains(said),
            "{said}: {}",
            stderr(&output)
        );
    }
}

/// A duration bounds the run; the demo's calls are counted all the same.
#[test]
fn a_duration_bounds_the_run() {
    let output = toolscope(&[
        "load",
        "--demo",
        "add",
        "--args",
        r#"{"a": 1, "b": 1}"#,
        "-c",
        "2",
        "--duration",
        "0.5",
        "--json",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let figures = json_of(&output);
    let seconds = figures["seconds"].as_f64().unwrap();
    // Not before the bound, and ended by it (the calls under way then are waited for; the
    // upper limit only says the run did not go on to its default timeout).
    assert!((0.5..30.0).contains(&seconds), "{seconds}");
    assert!(figures["calls"].as_u64().unwrap() > 0);
    assert_eq!(figures["planned_calls"], serde_json::Value::Null);
}

/// Ctrl+C stops a run and prints the figures so far, with the status shells give it.
#[cfg(unix)]
#[test]
fn ctrl_c_prints_the_figures_so_far() {
    let child = crate::support::command()
        .args([
            "load",
            "--demo",
            "add",
            "--args",
            r#"{"a": 1, "b": 1}"#,
            "-c",
            "2",
            "--duration",
            "60",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Once both demo servers run, calls are under way (connecting takes milliseconds).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let servers = || {
        std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |tasks| {
            tasks
                .flatten()
                .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
                .map(|list| list.split_whitespace().count())
                .sum::<usize>()
        })
    };
    while servers() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let sent = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(status(&output), 130, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("stopped before its end: the figures so far"),
        "{text}"
    );
    assert!(text.contains("latency p50 "), "{text}");
    assert!(stderr(&output).contains("stopping the load run"));
}

/// Over Streamable HTTP on loopback: the Python SDK's server started by the test, its memory
/// not known (Toolscope did not start it).
#[test]
fn a_loopback_http_server_is_loaded_and_its_memory_is_not_known() {
    let Some(server) = python_server() else {
        return;
    };
    let port = crate::interop::free_port();
    let words: Vec<&str> = server.split(' ').collect();
    let child = std::process::Command::new(words[0])
        .args(&words[1..])
        .args(["--http", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start the Python peer: {error}"));
    let _guard = crate::support::Background(child);
    crate::interop::wait_for_port(port, "the Python peer");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let output = toolscope(&[
        "load",
        "--url",
        &url,
        "add",
        "--args",
        r#"{"a": 2, "b": 3}"#,
        "-c",
        "4",
        "--calls",
        "200",
        "--json",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let figures = json_of(&output);
    assert_eq!(
        (figures["calls"].as_u64(), figures["ok"].as_u64()),
        (Some(200), Some(200))
    );
    assert_eq!(figures["server_memory"]["known"], false);
    assert_eq!(
        figures["server_memory"]["why"],
        "the server is not a process Toolscope started"
    );
}
