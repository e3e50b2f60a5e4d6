//! Reload on change: `run FILE --watch DIR` runs the cases again when the server's file is
//! edited, and a case the edit broke shows without a command typed; `call … --watch DIR`
//! prints the result again with what changed. Ctrl+C ends either, the server reaped.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::{
    io::{BufRead, BufReader},
    path::Path,
    process::{Child, Command, Stdio},
    sync::mpsc::{Receiver, channel},
    time::{Duration, Instant},
};

use crate::support::repo_root;

/// A folder holding a copy of the editable server (its answer is `ANSWER = 42`).
fn server_folder() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo_root().join("tests/fixtures/editable_server.py"),
        folder.path().join("server.py"),
    )
    .unwrap();
    folder
}

/// Edits the server's answer, as a person saving the file would.
fn set_answer(folder: &Path, answer: u32) {
    let path = folder.join("server.py");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited: String = text
        .lines()
        .map(|line| {
            if line.starts_with("ANSWER = ") {
                format!("ANSWER = {answer}\n")
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    std::fs::write(&path, edited).unwrap();
}

/// Starts `toolscope ARGS` with its output read line by line on a thread.
fn start(args: &[&str], data: &Path) -> (Child, Receiver<String>) {
    let mut child = crate::support::command()
        .args(args)
        .env("TOOLSCOPE_DATA_DIR", data)
        .env("COLUMNS", "120")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, received) = channel();
    for stream in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let lines = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
    }
    (child, received)
}

/// What the command printed (stdout and stderr, read on two threads: their lines interleave
/// in no fixed order) and how much of it was looked at already.
struct Printed {
    lines: Receiver<String>,
    seen: Vec<String>,
    from: usize,
}

impl Printed {
    fn new(lines: Receiver<String>) -> Self {
        Self {
            lines,
            seen: Vec::new(),
            from: 0,
        }
    }

    /// Reads until every one of `texts` is in a line printed since the last call; fails with
    /// what was read after 30 s.
    fn until(&mut self, texts: &[&str]) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let found = |seen: &[String]| {
            texts
                .iter()
                .all(|text| seen.iter().any(|line| line.contains(text)))
        };
        while !found(&self.seen[self.from..]) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(_) => panic!("not all of {texts:?} came; read:\n{}", self.seen.join("\n")),
            }
        }
        self.from = self.seen.len();
    }
}

/// Sends SIGINT (Ctrl+C) and waits for a clean end.
fn interrupt(mut child: Child) -> std::process::ExitStatus {
    let pid = child.id().to_string();
    Command::new("kill").args(["-INT", &pid]).status().unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "Ctrl+C did not end it");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// No process runs the server of `folder` any more.
fn server_reaped(folder: &Path) -> bool {
    let script = folder.join("server.py").display().to_string();
    let listed = Command::new("pgrep")
        .args(["-f", &script])
        .output()
        .unwrap();
    listed.stdout.is_empty()
}

#[test]
fn editing_the_server_runs_the_cases_again_and_a_broken_case_shows() {
    let folder = server_folder();
    let data = tempfile::tempdir().unwrap();
    let cases = folder.path().join("cases.toml");
    std::fs::write(
        &cases,
        "[server]\nstdio = \"python3 server.py\"\n\n\
         [[case]]\nname = \"the answer is 42\"\ntool = \"answer\"\n\
         [case.expect]\nstructured = { result = 42 }\n",
    )
    .unwrap();
    let (child, lines) = start(
        &[
            "run",
            cases.to_str().unwrap(),
            "--watch",
            folder.path().to_str().unwrap(),
        ],
        data.path(),
    );
    let mut printed = Printed::new(lines);
    printed.until(&["1 case(s): 1 passed, 0 failed", "watching"]);

    set_answer(folder.path(), 41);
    printed.until(&[
        "changed: server.py",
        "FAIL  the answer is 42",
        "expected {\"result\":42}, got {\"result\":41}",
        "1 case(s): 0 passed, 1 failed",
        "watching",
    ]);

    set_answer(folder.path(), 42);
    printed.until(&["1 case(s): 1 passed, 0 failed", "watching"]);
    let status = interrupt(child);
    assert_eq!(
        status.code(),
        Some(0),
        "the last run passed: {:?}",
        printed.seen
    );
    assert!(server_reaped(folder.path()), "no server process is left");
}

#[test]
fn a_call_watched_prints_the_result_again_with_what_changed() {
    let folder = server_folder();
    let data = tempfile::tempdir().unwrap();
    let script = folder.path().join("server.py");
    let command_line = format!("python3 {}", script.display());
    let (child, lines) = start(
        &[
            "call",
            "--stdio",
            &command_line,
            "answer",
            "--watch",
            folder.path().to_str().unwrap(),
        ],
        data.path(),
    );
    let mut printed = Printed::new(lines);
    printed.until(&["\"result\": 42", "watching"]);
    set_answer(folder.path(), 43);
    printed.until(&[
        "\"result\": 43",
        "since the call before:",
        "structuredContent/result: changed 42 → 43",
        "watching",
    ]);
    interrupt(child);
    assert!(server_reaped(folder.path()), "no server process is left");
}
