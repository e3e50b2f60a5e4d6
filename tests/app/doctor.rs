//! `toolscope doctor`: the step a connection fails at, named with what was seen and what to
//! try, and a healthy server passing every step.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::Path;

use crate::support::{command, hostile_http_fixture, json_of, status, stdout, toolscope};

fn step_names(steps: &[(&str, bool)]) -> Vec<(String, bool)> {
    steps
        .iter()
        .map(|(name, ok)| ((*name).to_owned(), *ok))
        .collect()
}

/// The detail of the last step walked.
fn last_detail(output: &std::process::Output) -> String {
    json_of(output)["steps"].as_array().unwrap().last().unwrap()["detail"]
        .as_str()
        .unwrap()
        .to_owned()
}

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
        step_names(&[("start", true), ("initialize", true), ("tools/list", true)])
    );
}

#[test]
fn a_healthy_http_server_passes_every_step() {
    let (_server, url) = crate::support::demo_http_server(None);
    let output = toolscope(&["doctor", "--url", &url, "--json"]);
    assert_eq!(status(&output), 0, "{}", stdout(&output));
    assert_eq!(
        steps(&output),
        step_names(&[
            ("resolve", true),
            ("connect", true),
            ("http", true),
            ("initialize", true),
            ("tools/list", true)
        ])
    );
    let text = stdout(&toolscope(&["doctor", "--url", &url]));
    assert!(
        text.contains("protocol 2026-07-28 chosen through server/discover"),
        "{text}"
    );
    assert!(text.contains("HTTP 200 OK"), "{text}");
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
    let (_server, base) = hostile_http_fixture("unauthorized", None);
    let output = toolscope(&["doctor", "--url", &format!("{base}/mcp"), "--json"]);
    assert_eq!(status(&output), 2);
    let names = steps(&output);
    assert_eq!(
        names,
        step_names(&[
            ("resolve", true),
            ("connect", true),
            ("http", true),
            ("auth", false)
        ])
    );
    let detail = last_detail(&output);
    assert!(detail.contains("401"), "{detail}");
    assert!(detail.contains("Bearer realm=\"hostile\""), "{detail}");
    assert!(
        detail.contains("no protected resource metadata"),
        "{detail}"
    );
}

#[test]
fn an_http_500_fails_at_initialize() {
    let (_server, base) = hostile_http_fixture("error-500", None);
    let output = toolscope(&["doctor", "--url", &format!("{base}/mcp"), "--json"]);
    assert_eq!(status(&output), 2);
    let names = steps(&output);
    assert_eq!(
        names,
        step_names(&[
            ("resolve", true),
            ("connect", true),
            ("http", true),
            ("initialize", false)
        ])
    );
    let shown = stdout(&toolscope(&["doctor", "--url", &format!("{base}/mcp")]));
    assert!(shown.contains("the database is down"), "{shown}");
}

#[test]
fn a_web_page_at_the_url_fails_at_http_with_its_content_type() {
    let (_server, base) = hostile_http_fixture("web-page", None);
    let output = toolscope(&["doctor", "--url", &format!("{base}/"), "--json"]);
    assert_eq!(status(&output), 2);
    assert_eq!(steps(&output).last().unwrap(), &("http".to_owned(), false));
    assert!(
        last_detail(&output).contains("text/html"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_redirect_fails_at_http_and_says_where_to() {
    let (_server, base) =
        hostile_http_fixture("redirect-307", Some("https://elsewhere.example/mcp"));
    let output = toolscope(&["doctor", "--url", &format!("{base}/mcp"), "--json"]);
    assert_eq!(status(&output), 2);
    assert_eq!(steps(&output).last().unwrap(), &("http".to_owned(), false));
    let detail = last_detail(&output);
    assert!(detail.contains("307"), "{detail}");
    assert!(detail.contains("https://elsewhere.example/mcp"), "{detail}");
}

#[test]
fn header_values_never_show_even_when_the_server_echoes_them() {
    let (_server, base) = hostile_http_fixture("error-500-echo", None);
    let url = format!("{base}/mcp");
    let args = [
        "doctor",
        "--url",
        &url,
        "--header",
        "Authorization: Bearer sekrit-token-123",
        "--header",
        "X-Api-Key: key-456-secret",
    ];
    for json in [false, true] {
        let mut all = args.to_vec();
        if json {
            all.push("--json");
        }
        let output = toolscope(&all);
        let everything = format!("{}{}", stdout(&output), crate::support::stderr(&output));
        assert!(everything.contains("refused Authorization"), "{everything}");
        assert!(!everything.contains("sekrit-token-123"), "{everything}");
        assert!(!everything.contains("key-456-secret"), "{everything}");
        assert!(everything.contains("‹redacted›"), "{everything}");
    }
}

/// A test authority and a certificate for 127.0.0.1 signed by it, made with `openssl`.
fn certificates(folder: &Path) {
    let script = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout ca.key -out ca.pem -days 2 -subj '/CN=Toolscope doctor test authority' && \
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout server.key -out server.csr -subj /CN=127.0.0.1 && \
        printf 'subjectAltName=IP:127.0.0.1\n' > server.ext && \
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
        -out server.pem -days 2 -extfile server.ext";
    let made = std::process::Command::new("sh")
        .args(["-c", script])
        .current_dir(folder)
        .output()
        .expect("openssl runs");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
}

#[test]
fn a_certificate_nobody_trusts_fails_at_tls_with_what_it_says_and_passes_once_trusted() {
    let folder = tempfile::tempdir().unwrap();
    certificates(folder.path());
    let (cert, key) = (
        folder.path().join("server.pem"),
        folder.path().join("server.key"),
    );
    let (_server, base) = crate::support::hostile_http_fixture_with(
        "error-500",
        None,
        &[("HOSTILE_TLS_CERT", &cert), ("HOSTILE_TLS_KEY", &key)],
    );
    assert!(base.starts_with("https://"), "{base}");
    let url = format!("{base}/mcp");
    let output = toolscope(&["doctor", "--url", &url, "--json"]);
    assert_eq!(steps(&output).last().unwrap(), &("tls".to_owned(), false));
    let detail = last_detail(&output);
    assert!(detail.contains("does not trust"), "{detail}");
    assert!(detail.contains("for 127.0.0.1"), "{detail}");
    assert!(
        detail.contains("Toolscope doctor test authority"),
        "{detail}"
    );
    assert!(detail.contains("valid until"), "{detail}");

    let trusted = command()
        .args(["doctor", "--url", &url, "--json"])
        .env("SSL_CERT_FILE", folder.path().join("ca.pem"))
        .output()
        .unwrap();
    let walked = steps(&trusted);
    assert_eq!(walked[2], ("tls".to_owned(), true), "{}", stdout(&trusted));
    assert_eq!(walked[3], ("http".to_owned(), true), "{}", stdout(&trusted));
}

#[test]
fn an_oauth_server_without_a_sign_in_stops_at_auth_with_its_metadata_then_passes_once_signed_in() {
    use crate::support::oauth_server::{AuthServer, fake_browser};
    let server = AuthServer::start(&[]);
    let config = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        command()
            .args(args)
            .env("TOOLSCOPE_CONFIG_DIR", config.path())
            .env("TOOLSCOPE_SECRETS", "file")
            .env("BROWSER", format!("python3 {}", fake_browser().display()))
            .output()
            .unwrap()
    };
    let before = run(&["doctor", "--url", &server.url, "--json"]);
    assert_eq!(status(&before), 2, "{}", stdout(&before));
    assert_eq!(steps(&before).last().unwrap(), &("auth".to_owned(), false));
    let detail = last_detail(&before);
    assert!(detail.contains("resource_metadata="), "{detail}");
    assert!(detail.contains("protected resource metadata"), "{detail}");
    assert!(detail.contains("/auth/token"), "{detail}");
    assert!(detail.contains("scopes: mcp:tools"), "{detail}");
    let advice = json_of(&before)["steps"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["advice"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(advice.contains("sign in first"), "{advice}");
    // The diagnosis opened no browser: nothing was authorized.
    assert!(server.events("authorize").is_empty(), "{:?}", server.log());

    let signed_in = run(&["tools", "--url", &server.url]);
    assert_eq!(
        status(&signed_in),
        0,
        "{}",
        crate::support::stderr(&signed_in)
    );
    let after = run(&["doctor", "--url", &server.url, "--json"]);
    assert_eq!(status(&after), 0, "{}", stdout(&after));
    let kept = std::fs::read_to_string(config.path().join("secrets.json")).unwrap();
    let token = kept
        .split("access_token")
        .nth(1)
        .and_then(|rest| rest.split('"').nth(2))
        .unwrap()
        .trim_end_matches('\\')
        .to_owned();
    assert!(token.len() > 8, "{kept}");
    assert!(!stdout(&after).contains(&token), "{token}");
    assert!(kept.contains(&token));
}
