//! The OAuth fixture (tests/fixtures/oauth_server.py: an authorization server and the MCP
//! server it protects) and the fake browser that completes its sign-ins.

use std::{
    io::{BufRead as _, BufReader, Read as _, Write as _},
    net::TcpStream,
    path::PathBuf,
    process::{Child, Command, Stdio},
};

use serde_json::Value;

/// The fixture server, killed when dropped.
pub struct AuthServer {
    child: Child,
    pub url: String,
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl AuthServer {
    pub fn start(flags: &[&str]) -> Self {
        let script = super::repo_root().join("tests/fixtures/oauth_server.py");
        let mut child = Command::new("python3")
            .arg(script)
            .args(flags)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs the OAuth fixture");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("the fixture prints its URL");
        let url = line
            .split_whitespace()
            .nth(1)
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_owned();
        Self { child, url }
    }

    pub fn origin(&self) -> &str {
        self.url.trim_end_matches("/mcp")
    }

    /// What the authorization server saw, oldest first.
    pub fn log(&self) -> Vec<Value> {
        let body = http(self.origin(), "GET", "/_log");
        serde_json::from_str::<Value>(&body)
            .expect("the log is JSON")
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    pub fn events(&self, kind: &str) -> Vec<Value> {
        self.log()
            .into_iter()
            .filter(|event| event["kind"] == kind)
            .collect()
    }

    pub fn revoke(&self, refresh_tokens_too: bool) {
        let path = if refresh_tokens_too {
            "/_revoke?all=1"
        } else {
            "/_revoke"
        };
        http(self.origin(), "POST", path);
    }
}

/// One plain HTTP/1.1 request; the body of the answer.
fn http(origin: &str, method: &str, path: &str) -> String {
    let host = origin.trim_start_matches("http://");
    let mut stream = TcpStream::connect(host).expect("the fixture listens");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .expect("sends");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("reads");
    answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default()
}

/// The "browser" that follows a sign-in page's redirects (tests/fixtures/fake_browser.py).
pub fn fake_browser() -> PathBuf {
    super::repo_root().join("tests/fixtures/fake_browser.py")
}

/// Opens `page` with the fake browser and waits until it is done.
pub fn open_in_fake_browser(page: &str) -> bool {
    Command::new("python3")
        .arg(fake_browser())
        .arg(page)
        .status()
        .is_ok_and(|status| status.success())
}
