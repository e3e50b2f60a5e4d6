//! `toolscope app`: the official example app server's app (@modelcontextprotocol/server-basic-
//! vanillajs) run in a real browser (Debian's chromium, driven over the DevTools protocol by
//! tests/fixtures/app_browser.py): the app shows the tool's result, its button calls the tool
//! through Toolscope into the history, a link it asks for is asked of the person and not
//! followed, a fetch to a domain it did not declare is blocked and reported.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::{
    io::{BufRead as _, BufReader, Read as _, Write as _},
    net::TcpStream,
    path::{Path, PathBuf},
    process::{Child, Stdio},
    time::{Duration, Instant},
};

use crate::support::{command, peer_available, repo_root};

fn example_server() -> Option<PathBuf> {
    let entry = repo_root().join(
        "tests/peers/npm/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js",
    );
    peer_available(&entry, "@modelcontextprotocol/server-basic-vanillajs").then_some(entry)
}

/// Debian's chromium (the `.ci/run` installs it); a loud skip where it is missing, a failure
/// under CI.
pub(crate) fn chromium_available() -> bool {
    if Path::new("/usr/lib/chromium/chromium").exists() || Path::new("/usr/bin/chromium").exists() {
        return true;
    }
    let message = "chromium is not installed (apt-get install chromium)";
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
    eprintln!("\n!!!!!!!! SKIPPED: {message} !!!!!!!!\n");
    false
}

/// `toolscope app` on the example server, its history in `data`; the page's address.
fn start_app(entry: &Path, data: &Path) -> (Child, String, std::thread::JoinHandle<String>) {
    let mut app = command()
        .env("TOOLSCOPE_DATA_DIR", data)
        .args([
            "app",
            "--stdio",
            &format!("node {} --stdio", entry.display()),
            "get-time",
            "--no-open",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(app.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let url = first
        .strip_prefix("app: ")
        .unwrap_or_else(|| panic!("no address first: {first:?}"))
        .trim()
        .to_owned();
    // The rest of the log, read as it comes (the pipe must not fill up).
    let rest = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    (app, url, rest)
}

/// Ctrl+C, then the process's end within a while.
fn interrupt(app: &mut Child) {
    std::process::Command::new("kill")
        .args(["-INT", &app.id().to_string()])
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while app.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "toolscope app did not end on Ctrl+C"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_example_app_runs_in_a_real_browser_and_its_calls_go_through_toolscope() {
    let Some(entry) = example_server() else {
        return;
    };
    if !chromium_available() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let (mut app, url, log) = start_app(&entry, data.path());
    let browser = std::process::Command::new("python3")
        .arg(repo_root().join("tests/fixtures/app_browser.py"))
        .arg(&url)
        .output()
        .unwrap();
    interrupt(&mut app);
    let log = log.join().unwrap();
    let mut stderr = String::new();
    app.stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let seen: serde_json::Value = serde_json::from_slice(&browser.stdout).unwrap_or_else(|_| {
        panic!(
            "the browser said: {}{}\nthe log: {log}",
            String::from_utf8_lossy(&browser.stdout),
            String::from_utf8_lossy(&browser.stderr)
        )
    });
    let first = seen["first_time"].as_str().unwrap_or_default();
    assert!(
        first.starts_with("20"),
        "the app shows the tool's result: {seen}\n{log}"
    );
    let clicked = seen["clicked_time"].as_str().unwrap_or_default();
    assert!(
        clicked.starts_with("20") && clicked != first,
        "the button's call came back: {seen}\n{log}"
    );
    assert!(
        seen["fetch"]
            .as_str()
            .unwrap_or_default()
            .starts_with("blocked"),
        "{seen}"
    );
    assert_eq!(seen["read"], "read 1 content(s)", "{seen}\n{log}");
    for expected in [
        // What a host checks first, said before the run.
        "lint  check 1: the server does not declare the io.modelcontextprotocol/ui extension",
        // ... and the point where a host that negotiates extensions would have stopped.
        "would not have shown the app that sent this (check 1: the extension is not declared)",
        "app → host     ui/initialize #0",
        "host → app     ui/notifications/tool-result",
        "host → server  tools/call",
        "host → server  resources/read",
        "the model would receive, as the user: This is message text.",
        "the app logs (info): This is log text.",
        "not opened: the person said no to https://modelcontextprotocol.io/",
        "blocked: https://undeclared.example/data under connect-src",
    ] {
        assert!(log.contains(expected), "{expected:?} in the log:\n{log}");
    }
    // Ctrl+C tears the app down, unless its page said it had closed already.
    assert!(
        log.contains("ui/resource-teardown") || log.contains("the page was closed"),
        "{log}"
    );
    assert!(
        stderr.contains("the app asks to open https://modelcontextprotocol.io/: not opened"),
        "{stderr}"
    );
    // Both calls are in the history: the tool's, and the app's own with its name.
    let history = command()
        .env("TOOLSCOPE_DATA_DIR", data.path())
        .args(["history", "--json"])
        .output()
        .unwrap();
    let calls: serde_json::Value = serde_json::from_slice(&history.stdout).unwrap();
    let calls = calls.as_array().cloned().unwrap_or_default();
    let clients: Vec<Option<&str>> = calls
        .iter()
        .filter(|call| call["tool"] == "get-time")
        .map(|call| call["client"].as_str())
        .collect();
    assert_eq!(clients.len(), 2, "{calls:?}");
    assert!(clients.contains(&Some("Get Time App 1.0.0")), "{clients:?}");
    assert!(clients.contains(&None), "{clients:?}");
    // So is the app's read of its own resource.
    assert!(
        calls
            .iter()
            .any(|call| call["tool"] == "ui://get-time/mcp-app.html"
                && call["kind"] == "read"
                && call["client"] == "Get Time App 1.0.0"),
        "{calls:?}"
    );
}

/// One HTTP/1.1 request to the app's host; the status line.
fn status_of(url: &str, host: &str, path: &str, origin: Option<&str>) -> String {
    let address = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let mut stream = TcpStream::connect(&address).unwrap();
    let origin = origin
        .map(|origin| format!("Origin: {origin}\r\n"))
        .unwrap_or_default();
    let method = if origin.is_empty() { "GET" } else { "POST" };
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\n{origin}Content-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    )
    .unwrap();
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).unwrap();
    answer.trim().to_owned()
}

/// A POST of `body` to the app's message path, from the host page's origin; the status line.
fn post_from_page(url: &str, body: &[u8]) -> String {
    let address = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let path = format!(
        "{}from-app",
        url.trim_start_matches("http://")
            .trim_start_matches(&address)
    );
    let mut stream = TcpStream::connect(&address).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nOrigin: http://{address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    // A refused body may be answered before it is all sent.
    let _ = stream.write_all(body);
    let mut answer = String::new();
    let _ = BufReader::new(stream).read_line(&mut answer);
    answer.trim().to_owned()
}

#[test]
fn an_oversized_message_and_a_flood_from_the_app_are_refused_and_said() {
    let Some(entry) = example_server() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let (mut app, url, log) = start_app(&entry, data.path());
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"{}\"}}",
        "a".repeat(5 << 20)
    );
    assert!(post_from_page(&url, huge.as_bytes()).contains("413"));
    let ping = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood"}}"#;
    // Bursts from several connections at once until the bound shows (a loaded machine may
    // need more than one).
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut refused = false;
    while !refused && Instant::now() < deadline {
        let bursts: Vec<_> = (0..8)
            .map(|_| {
                let url = url.clone();
                std::thread::spawn(move || {
                    (0..150).any(|_| post_from_page(&url, ping).contains("429"))
                })
            })
            .collect();
        refused = bursts.into_iter().any(|burst| burst.join().unwrap());
    }
    assert!(refused, "more than 500 messages a second are refused");
    std::thread::sleep(Duration::from_millis(1100));
    post_from_page(&url, ping);
    interrupt(&mut app);
    let log = log.join().unwrap();
    assert!(log.contains("refused: larger than 4 MiB"), "{log}");
    assert!(
        log.contains("were dropped: it sent more than 500 a second"),
        "{log}"
    );
}

#[test]
fn the_host_answers_its_own_name_its_token_and_its_page_only() {
    let Some(entry) = example_server() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let (mut app, url, log) = start_app(&entry, data.path());
    let authority = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let token_path = url
        .trim_start_matches("http://")
        .trim_start_matches(&authority)
        .to_owned();
    assert!(status_of(&url, &authority, &token_path, None).contains("200"));
    assert!(
        status_of(&url, "evil.example", &token_path, None).contains("403"),
        "a DNS-rebinding page's Host is refused"
    );
    assert!(
        status_of(&url, &authority, "/", None).contains("404"),
        "no page without the token"
    );
    assert!(
        status_of(
            &url,
            &authority,
            &format!("{token_path}from-app"),
            Some("https://evil.example")
        )
        .contains("403"),
        "messages from another site are refused"
    );
    // A page whose browser went away without a word (killed: no pagehide) is said closed once
    // its event stream cannot be written to.
    let mut page = TcpStream::connect(&authority).unwrap();
    write!(
        page,
        "GET {token_path}events HTTP/1.1\r\nHost: {authority}\r\n\r\n"
    )
    .unwrap();
    let mut status = String::new();
    BufReader::new(page.try_clone().unwrap())
        .read_line(&mut status)
        .unwrap();
    assert!(status.contains("200"), "{status}");
    page.shutdown(std::net::Shutdown::Both).unwrap();
    drop(page);
    std::thread::sleep(Duration::from_secs(7));
    interrupt(&mut app);
    let log = log.join().unwrap();
    let opened = log.find("a page opened the app's host");
    let closed = log.find("the page was closed");
    assert!(
        opened.is_some() && closed > opened,
        "opened, then closed: {log}"
    );
}
