//! `toolscope doctor`: the step a connection fails at, named with what was seen and what to
//! try, and a healthy server passing every step.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::support::{json_of, status, stdout, toolscope};

fn steps(output: &std::process::Output) -> Vec<(String, bool)> {
    json_of(output)["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            (
                step["name"].as_str().unwrap().to_owned(),
                step["ok"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_healthy_server_passes_every_step() {
    let output = toolscope(&["doctor", "--demo", "--json"]);
    assert_eq!(status(&output), 0, "{}", stdout(&output));
    assert_eq!(
        steps(&output),
        [
            ("initialize".to_owned(), true),
            ("tools/list".to_owned(), true)
        ]
    );
}

#[test]
fn a_closed_port_fails_at_connect() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let output = toolscope(&["doctor", "--url", &url, "--json"]);
    assert_eq!(status(&output), 2);
    assert_eq!(
        steps(&output),
        [("resolve".to_owned(), true), ("connect".to_owned(), false)]
    );
    let shown = toolscope(&["doctor", "--url", &url]);
    assert!(
        stdout(&shown).contains("try: nothing listens on that port"),
        "{}",
        stdout(&shown)
    );
}

#[test]
fn a_command_that_exits_at_once_fails_at_start_with_its_stderr() {
    let output = toolscope(&["doctor", "--stdio", "sh -c 'echo boom >&2; exit 3'"]);
    assert_eq!(status(&output), 2);
    let text = stdout(&output);
    assert!(text.starts_with("FAIL  start"), "{text}");
    assert!(text.contains("exit status: 3"), "{text}");
    assert!(
        text.contains("      boom") || text.contains("  boom"),
        "{text}"
    );
}

#[test]
fn a_401_without_oauth_metadata_fails_at_auth_with_the_challenge() {
    let (_server, base) = crate::support::hostile_http_fixture("unauthorized", None);
    let output = toolscope(&["doctor", "--url", &format!("{base}/mcp"), "--json"]);
    assert_eq!(status(&output), 2);
    let names = steps(&output);
    assert_eq!(
        names.last().unwrap(),
        &("auth".to_owned(), false),
        "{names:?}"
    );
    let detail = json_of(&output)["steps"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["detail"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(detail.contains("401"), "{detail}");
}

#[test]
fn an_http_500_fails_at_initialize() {
    let (_server, base) = crate::support::hostile_http_fixture("error-500", None);
    let output = toolscope(&["doctor", "--url", &format!("{base}/mcp"), "--json"]);
    assert_eq!(status(&output), 2);
    let names = steps(&output);
    assert_eq!(
        names,
        [
            ("resolve".to_owned(), true),
            ("connect".to_owned(), true),
            ("initialize".to_owned(), false)
        ]
    );
}
