//! One history for a team on a real PostgreSQL server (a throwaway cluster the tests start):
//! several "machines" (data folders) record into it at once and each sees what the others
//! recorded; the local history is pushed into it once; a database that is down keeps the
//! calls locally and says so.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

use serde_json::Value;
use toolscope_core::history::test_cluster;

use crate::support::{binary, json_of, stderr};

/// A machine: a data folder (its local history and settings) and a name in the team history.
struct Machine {
    dir: PathBuf,
    name: &'static str,
    team: Option<String>,
}

impl Machine {
    fn new(test: &str, name: &'static str, team: Option<&str>) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "toolscope-team-{}-{test}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self {
            dir,
            name,
            team: team.map(str::to_owned),
        }
    }

    fn command(&self) -> Command {
        let mut command = Command::new(binary());
        command
            .env("TOOLSCOPE_DATA_DIR", &self.dir)
            .env("TOOLSCOPE_CONFIG_DIR", self.dir.join("config"))
            .env("TOOLSCOPE_SECRETS", "file")
            .env("TOOLSCOPE_MACHINE", self.name)
            .env("TOOLSCOPE_PERSON", format!("{}-person", self.name))
            .env("COLUMNS", "160")
            .env_remove("TOOLSCOPE_HISTORY_URL");
        if let Some(url) = &self.team {
            command.env("TOOLSCOPE_HISTORY_URL", url);
        }
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    fn calls(&self) -> Vec<Value> {
        let output = self.run(&["history", "--json", "--limit", "1000"]);
        assert!(output.status.success(), "{}", stderr(&output));
        json_of(&output).as_array().unwrap().clone()
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// 25 cases of `add`, for one `toolscope run` writer.
fn write_cases(dir: &Path) -> PathBuf {
    let mut text = String::from("[server]\ndemo = true\n");
    for n in 0..25 {
        text.push_str(&format!(
            "\n[[case]]\nname = \"add {n}\"\ntool = \"add\"\narguments = {{ a = {n}, b = 1 }}\n"
        ));
    }
    let path = dir.join("cases.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A client's session through `toolscope proxy` in front of the demo server: the handshake and
/// one call, then the client goes.
fn client_through_proxy(machine: &Machine) {
    let mut proxy = machine
        .command()
        .args([
            "proxy",
            "--name",
            "demo via proxy",
            "--",
            binary(),
            "demo-server",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_server = proxy.stdin.take().unwrap();
    let mut from_server = BufReader::new(proxy.stdout.take().unwrap());
    let mut send = |line: &str| writeln!(to_server, "{line}").unwrap();
    send(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"team-client","version":"1.0"}}}"#,
    );
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    send(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
    );
    loop {
        let mut line = String::new();
        assert!(
            from_server.read_line(&mut line).unwrap() > 0,
            "the proxy answered"
        );
        if line.contains(r#""id":2"#) {
            break;
        }
    }
    drop(to_server);
    let ended = proxy.wait_with_output().unwrap();
    assert!(
        ended.status.success(),
        "{}",
        String::from_utf8_lossy(&ended.stderr)
    );
}

#[test]
fn three_machines_record_into_one_postgres_history_and_a_fourth_sees_all_of_it() {
    let Some(cluster) = test_cluster::shared() else {
        return;
    };
    let url = cluster.new_database("team");
    let team = Some(url.secret_text());
    let one = Machine::new("all", "machine-one", team);
    let called = one.run(&["call", "--demo", "add", "--arg", "a=1", "--arg", "b=2"]);
    assert!(called.status.success(), "{}", stderr(&called));
    assert!(!stderr(&called).contains("warning"), "{}", stderr(&called));

    let two = Machine::new("all", "machine-two", team);
    client_through_proxy(&two);

    let three = Machine::new("all", "machine-three", team);
    let cases = write_cases(&three.dir);
    let writers: Vec<_> = (0..4)
        .map(|_| {
            three
                .command()
                .args(["run"])
                .arg(&cases)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for writer in writers {
        let done = writer.wait_with_output().unwrap();
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
    }

    let four = Machine::new("all", "machine-four", team);
    let calls = four.calls();
    assert_eq!(calls.len(), 102, "1 + 1 + 4 × 25 calls");
    let mut ids: Vec<i64> = calls.iter().map(|c| c["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 102, "every id unique");
    let from = |machine: &str| {
        calls
            .iter()
            .filter(|call| call["machine"] == machine)
            .count()
    };
    assert_eq!(
        (
            from("machine-one"),
            from("machine-two"),
            from("machine-three")
        ),
        (1, 1, 100)
    );
    let proxied = calls
        .iter()
        .find(|call| call["machine"] == "machine-two")
        .unwrap();
    assert_eq!(proxied["client"], "team-client 1.0");
    assert_eq!(proxied["person"], "machine-two-person");

    let sessions = four.run(&["history", "sessions", "--json"]);
    let sessions = json_of(&sessions);
    let sessions = sessions.as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["server"], "demo via proxy");
    assert_eq!(sessions[0]["machine"], "machine-two");
    assert_eq!(sessions[0]["calls"], 1);

    let only_three = four.run(&[
        "history",
        "--json",
        "--limit",
        "1000",
        "--machine",
        "machine-three",
    ]);
    assert_eq!(json_of(&only_three).as_array().unwrap().len(), 100);
    let listed = four.run(&["history", "--person", "machine-one-person"]);
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(
        listed.contains("machine-one-person@machine-one"),
        "{listed}"
    );

    let alone = Machine::new("all", "machine-alone", None);
    assert!(
        alone.calls().is_empty(),
        "a folder without the variable has its own history"
    );
}

#[test]
fn the_local_history_is_pushed_once_and_keeps_who_recorded_it() {
    let Some(cluster) = test_cluster::shared() else {
        return;
    };
    let url = cluster.new_database("push");
    let laptop = Machine::new("push", "laptop", None);
    for (a, b) in [("1", "2"), ("3", "4")] {
        let called = laptop.run(&[
            "call",
            "--demo",
            "add",
            "--arg",
            &format!("a={a}"),
            "--arg",
            &format!("b={b}"),
        ]);
        assert!(called.status.success(), "{}", stderr(&called));
    }
    client_through_proxy(&laptop);
    let pushed = laptop.run(&["history", "push", "--history", url.secret_text(), "--json"]);
    assert!(pushed.status.success(), "{}", stderr(&pushed));
    let report = json_of(&pushed);
    assert_eq!(report["calls_sent"], 3);
    assert_eq!(report["sessions_sent"], 1);
    assert!(report["log_lines_sent"].as_u64().unwrap() >= 4, "{report}");

    let again = laptop.run(&["history", "push", "--history", url.secret_text(), "--json"]);
    let report = json_of(&again);
    assert_eq!(
        (
            report["calls_sent"].as_u64(),
            report["calls_there"].as_u64()
        ),
        (Some(0), Some(3))
    );
    assert_eq!(report["sessions_sent"], 0);

    let desk = Machine::new("push", "desk", Some(url.secret_text()));
    let calls = desk.calls();
    assert_eq!(calls.len(), 3, "not doubled");
    assert!(calls.iter().all(|call| call["machine"] == "laptop"));
    let session = json_of(&desk.run(&["history", "sessions", "--json"]));
    let id = session[0]["id"].as_i64().unwrap().to_string();
    let log = desk.run(&["history", "log", &id]);
    let log = String::from_utf8_lossy(&log.stdout).into_owned();
    assert!(log.contains("initialize"), "{log}");
}

#[test]
fn a_team_history_that_is_down_keeps_the_call_locally_and_says_where() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let down = format!("postgres://qa@127.0.0.1:{port}/team?sslmode=disable");
    let laptop = Machine::new("down", "laptop", Some(&down));
    let called = laptop.run(&["call", "--demo", "add", "--arg", "a=1", "--arg", "b=2"]);
    assert!(
        called.status.success(),
        "the call itself is not failed: {}",
        stderr(&called)
    );
    let said = stderr(&called);
    assert!(said.contains(&format!("127.0.0.1:{port}")), "{said}");
    assert!(said.contains("kept in the local history"), "{said}");
    assert!(said.contains("history push"), "{said}");

    let read = laptop.run(&["history"]);
    assert_eq!(
        read.status.code(),
        Some(2),
        "reading names the database that is down"
    );
    assert!(
        stderr(&read).contains(&format!("127.0.0.1:{port}")),
        "{}",
        stderr(&read)
    );

    let local = Machine {
        dir: laptop.dir.clone(),
        name: "laptop",
        team: None,
    };
    assert_eq!(
        local.calls().len(),
        1,
        "the call waits in the local history"
    );
    std::mem::forget(local);

    let bad = laptop.run(&["history", "--history", "postgres:///nohost"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("names no host"), "{}", stderr(&bad));
}
