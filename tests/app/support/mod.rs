//! Helpers shared by the integration tests: run the real binary, read its JSON.

#![allow(dead_code, reason = "each test file uses a different part")]
#![allow(clippy::expect_used, reason = "test support fails loudly")]

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
};

use serde_json::Value;

pub mod oauth_server;
pub mod otlp_receiver;

pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_toolscope")
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The data folder (the history) the binary uses in tests: one per test process, never the
/// user's own.
pub fn test_data_dir() -> PathBuf {
    std::env::temp_dir().join(format!("toolscope-test-data-{}", std::process::id()))
}

/// `toolscope` as the tests run it: its history, settings and secrets in [`test_data_dir`].
pub fn command() -> Command {
    let mut command = Command::new(binary());
    // Never the user's own settings or keyring: a folder of the test run's, secrets in a file.
    command
        .env("TOOLSCOPE_DATA_DIR", test_data_dir())
        .env("TOOLSCOPE_CONFIG_DIR", test_data_dir().join("config"))
        .env("TOOLSCOPE_SECRETS", "file");
    command
}

/// server-everything's entry (the npm peer: run it with `node`), when it is installed.
pub fn everything_entry() -> Option<PathBuf> {
    let entry = repo_root()
        .join("tests/peers/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    peer_available(&entry, "@modelcontextprotocol/server-everything").then_some(entry)
}

/// Runs `toolscope <args>` and returns its output.
pub fn toolscope(args: &[&str]) -> Output {
    command()
        .args(args)
        .env("COLUMNS", "120")
        .output()
        .expect("the toolscope binary runs")
}

/// Runs `toolscope <args>` with its history in `data_dir`.
pub fn toolscope_with_data(data_dir: &Path, args: &[&str]) -> Output {
    command()
        .args(args)
        .env("COLUMNS", "120")
        .env("TOOLSCOPE_DATA_DIR", data_dir)
        .output()
        .expect("the toolscope binary runs")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Parses stdout as one JSON document, with both streams in the panic message if it fails.
pub fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "stdout is not JSON ({error})\nstdout: {}\nstderr: {}",
            stdout(output),
            stderr(output)
        )
    })
}

pub fn status(output: &Output) -> i32 {
    output.status.code().unwrap_or(-1)
}

/// A background process killed when dropped.
pub struct Background(pub Child);

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `tests/fixtures/hostile_http_server.py` in `mode` (its docstring lists them), and its base
/// URL (`http://127.0.0.1:PORT`).
pub fn hostile_http_fixture(mode: &str, target: Option<&str>) -> (Background, String) {
    hostile_http_fixture_with(mode, target, &[])
}

/// The same with environment variables for the fixture (`HOSTILE_TLS_CERT`, …).
pub fn hostile_http_fixture_with(
    mode: &str,
    target: Option<&str>,
    env: &[(&str, &Path)],
) -> (Background, String) {
    let script = repo_root().join("tests/fixtures/hostile_http_server.py");
    let mut command = Command::new("python3");
    command.arg(&script).arg(mode).args(target);
    command.envs(env.iter().copied());
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 runs the fixture");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the fixture prints its address");
    let base = line
        .strip_prefix("listening ")
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .trim()
        .to_owned();
    (Background(child), base)
}

/// Starts the demo server over HTTP on a free port and returns it with its URL.
pub fn demo_http_server(token: Option<&str>) -> (Background, String) {
    let mut command = command();
    command.args(["demo-server", "--http", "127.0.0.1:0"]);
    if let Some(token) = token {
        command.args(["--token", token]);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the demo HTTP server starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the demo server prints its URL");
    let url = line
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_owned();
    (Background(child), url)
}

/// Installs the third-party test peers once per test run (`tests/peers/install.sh`, which is
/// quick when they are already there). Returns why it failed, if it did.
fn install_peers() -> Option<&'static str> {
    static RESULT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    RESULT
        .get_or_init(|| {
            let script = repo_root().join("tests/peers/install.sh");
            match Command::new("bash").arg(&script).output() {
                Ok(output) if output.status.success() => None,
                Ok(output) => Some(format!(
                    "{} failed:\n{}{}",
                    script.display(),
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                )),
                Err(error) => Some(format!("cannot run bash {}: {error}", script.display())),
            }
        })
        .as_deref()
}

/// Whether a test peer is installed (installing the peers first if needed). In CI a missing
/// peer fails the test; locally the test skips with a loud message.
pub fn peer_available(path: &Path, what: &str) -> bool {
    let install_failure = install_peers();
    if path.exists() {
        return true;
    }
    let message = format!(
        "{what} is not installed at {}: {}",
        path.display(),
        install_failure.unwrap_or("tests/peers/install.sh ran but did not install it")
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
    eprintln!("\n!!!!!!!! SKIPPED: {message} !!!!!!!!\n");
    false
}
