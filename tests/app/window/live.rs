//! The Live tab: a real client's session through `toolscope proxy` (another process, writing
//! the history the window reads) shows as it happens; its call is shown as a call made in the
//! window is (both panes, the analysis, Save as case), and its protocol log is read. A server
//! of another client is watched through Toolscope from the Import dialog, and put back.

use std::{
    io::{BufRead, BufReader, Write},
    process::Stdio,
};

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text};

/// A window whose history is on disk in its own folder (which a proxy or a command line
/// writes into as well), and that folder.
fn window_with_history(name: &str) -> (Window, std::path::PathBuf) {
    let setup = Window::setup(name);
    let dir = setup.dir().to_owned();
    std::fs::create_dir_all(&dir).unwrap();
    let history = dir.join("history.sqlite3");
    let window = setup
        .options(|options| {
            options.history = Some(toolscope_core::history::HistoryLocation::File(history));
        })
        .open();
    (window, dir)
}

#[test]
fn a_proxied_call_shows_live_with_both_panes_and_its_session_log() {
    let (mut window, dir) = window_with_history("live");
    window.tab("Live");
    window.step_until("the invitation", |h| {
        has_text(h, "No client has come through toolscope proxy yet")
    });

    // A client runs the demo server through the proxy, which keeps into the same history.
    let binary = crate::support::binary();
    let mut proxy = crate::support::command()
        .args(["proxy", "--", binary, "demo-server"])
        .env("TOOLSCOPE_DATA_DIR", &dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut to_server = proxy.stdin.take().unwrap();
    let mut from_server = BufReader::new(proxy.stdout.take().unwrap());
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-client","version":"1.0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
    ] {
        writeln!(to_server, "{line}").unwrap();
        to_server.flush().unwrap();
        if line.contains("\"id\"") {
            let mut answer = String::new();
            from_server.read_line(&mut answer).unwrap();
        }
    }

    window.step_until("the session, running", |h| {
        h.query_all_by_label_contains("1 call · running · raw-client 1.0")
            .next()
            .is_some()
    });
    window.step_until("its call", |h| {
        h.query_all_by_label_contains("add · ok").next().is_some()
    });
    window.click_containing("add · ok");
    window.step_until("the call shown as its client got it", |h| {
        has_text(h, "from raw-client 1.0 through toolscope proxy")
            && has_text(h, "— what the application reads")
    });
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "result")
            .is_some(),
        "its structuredContent"
    );
    assert!(window.harness.query_by_label("Save as case…").is_some());
    assert!(
        has_text(&window.harness, "wrapped by the SDK"),
        "the analysis, as for a call made in the window"
    );
    window.click("Back to the sessions");
    window.step_until("the sessions again", |h| {
        has_text(h, "Pick a call on the left")
    });

    // The session: its protocol log, and its end once the client leaves.
    window.click_containing("· raw-client 1.0 →");
    window.step_until("the session's log", |h| {
        has_text(h, "the answer: call #1") && has_text(h, "\"method\":\"tools/list\"")
    });
    drop(to_server);
    assert!(proxy.wait().unwrap().success());
    window.step_until("the session ended", |h| {
        has_text(
            h,
            "Ended: the client left; the server ended (exit status: 0)",
        )
    });
}

#[test]
fn a_server_of_another_client_is_watched_through_toolscope_and_put_back() {
    let setup = Window::setup("watch");
    let dir = setup.dir().to_owned();
    let cursor = dir.join("home/.cursor/mcp.json");
    std::fs::create_dir_all(cursor.parent().unwrap()).unwrap();
    let original = "// Cursor\n{\n  \"mcpServers\": {\n    \"weather\": { \"command\": \"python3\", \"args\": [\"weather.py\"] },\n  },\n}\n";
    std::fs::write(&cursor, original).unwrap();
    let files =
        toolscope_core::import::known_files(&dir.join("home"), &dir.join("config"), None, None);
    let history = dir.join("data/history.sqlite3");
    let mut window = setup
        .options(move |options| {
            options.import_files = Some(files);
            options.history = Some(toolscope_core::history::HistoryLocation::File(history));
        })
        .open();
    window.step_until("the offer to import", |h| has_text(h, "Import (1)…"));
    window.click("Import (1)…");
    window.step_until("the found server", |h| {
        h.query_by_label("Watch through Toolscope…").is_some()
    });
    window.click("Watch through Toolscope…");
    window.step_until("the change shown", |h| {
        has_text(h, "Run \"weather\" through Toolscope in Cursor?")
    });
    assert!(
        has_text(&window.harness, "\"proxy\","),
        "the entry as it will be"
    );
    window.click("Rewrite the entry");
    window.step_until("the entry watched", |h| {
        h.query_by_label("Stop watching…").is_some()
    });
    let watched = std::fs::read_to_string(&cursor).unwrap();
    assert!(
        watched.contains("\"--name\",\n        \"weather\""),
        "{watched}"
    );
    assert!(
        watched.starts_with("// Cursor\n"),
        "the rest untouched: {watched}"
    );
    assert!(
        std::fs::read_dir(dir.join("data/watch-backups"))
            .unwrap()
            .next()
            .is_some(),
        "a copy of the file kept"
    );

    window.click("Stop watching…");
    window.step_until("the change back shown", |h| {
        h.query_by_label("Put it back").is_some()
    });
    window.click("Put it back");
    window.step_until("the entry put back", |h| {
        h.query_by_label("Watch through Toolscope…").is_some()
    });
    assert_eq!(std::fs::read_to_string(&cursor).unwrap(), original);
}

#[test]
fn a_call_the_command_line_records_shows_in_the_history_tab_without_a_refresh() {
    let (mut window, dir) = window_with_history("cli");
    window.tab("History");
    window.step_until("the empty history", |h| {
        has_text(h, "No calls kept yet that match")
    });
    let called = crate::support::toolscope_with_data(
        &dir,
        &["call", "--demo", "divide", "--arg", "a=1", "--arg", "b=0"],
    );
    assert_eq!(called.status.code(), Some(1), "a tool error");
    window.step_until("the command line's call listed", |h| {
        has_text(h, "divide · tool_error")
    });
}

/// A session of 25,002 lines whose call is answered in bytes that are not UTF-8, beside a
/// call of the window's own ticked in the History: the Live tab names the history it reads,
/// lists no call for the session (not the window's, and not its tick), and shows the log's
/// tail, where the answer is, flagged.
#[test]
fn a_long_sessions_answer_not_in_utf8_is_shown_flagged_and_the_windows_calls_stay_out() {
    let setup = Window::setup("live-long");
    let dir = setup.dir().to_owned();
    std::fs::create_dir_all(&dir).unwrap();
    let history = dir.join("history.sqlite3");
    let mut window = setup
        .options(|options| {
            options.history = Some(toolscope_core::history::HistoryLocation::File(history));
        })
        .connected();
    window.select_tool("add");
    window.call();
    window.until_recorded("the window's own call", 1);
    window.open_history(1);
    window.mark(1);
    window.step_until("the tick", |h| has_text(h, "1 marked"));

    let fixture = crate::support::repo_root().join("tests/fixtures/flood_then_not_utf8.py");
    let mut proxy = crate::support::command()
        .args(["proxy", "--name", "latin", "--", "python3"])
        .arg(&fixture)
        .env("TOOLSCOPE_DATA_DIR", &dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut to_server = proxy.stdin.take().unwrap();
    let mut from_server = BufReader::new(proxy.stdout.take().unwrap());
    writeln!(
        to_server,
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"chatty"}}}}"#
    )
    .unwrap();
    let mut relayed = 0;
    let answer = loop {
        let mut line = Vec::new();
        assert!(from_server.read_until(b'\n', &mut line).unwrap() > 0);
        relayed += 1;
        if line.starts_with(br#"{"jsonrpc":"2.0","id":1,"#) {
            break line;
        }
    };
    assert_eq!(relayed, 25_001, "every line reached the client");
    assert!(answer.ends_with(b"caf\xe9\"}]}}\n"), "byte for byte");
    drop(to_server);
    assert!(proxy.wait().unwrap().success());

    window.tab("Live");
    window.step_until("the history named", |h| {
        has_text(h, "Reading ") && has_text(h, "history.sqlite3")
    });
    window.step_until("the session", |h| has_text(h, "0 calls · ended"));
    window.click_containing("0 calls · ended");
    window.step_until("its log's tail", |h| has_text(h, "[not UTF-8"));
    assert!(
        has_text(&window.harness, "caf\u{FFFD}"),
        "the answer, its byte that is not UTF-8 replaced"
    );
    assert!(has_text(&window.harness, "25002 lines"));
    assert!(has_text(&window.harness, "No calls in this session yet"));
    assert!(
        !has_text(&window.harness, "add · ok"),
        "the window's own call is not the session's"
    );
    assert!(
        !has_text(&window.harness, "1 marked"),
        "the History's tick is not the Live tab's"
    );
}

/// Two sessions of a client through the proxy, to `tests/fixtures/interface_server.py` v1 then
/// v2, ticked in the Live tab and compared: the changed tool and the changed result are named,
/// and a call's id shows the call.
#[test]
fn two_proxied_sessions_compared_name_a_changed_tool_and_a_changed_result() {
    let (mut window, dir) = window_with_history("live-compare");
    let fixture = crate::support::repo_root().join("tests/fixtures/interface_server.py");
    for version in ["v1", "v2"] {
        let mut proxy = crate::support::command()
            .args(["proxy", "--", "python3"])
            .arg(&fixture)
            .arg(version)
            .env("TOOLSCOPE_DATA_DIR", &dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut to_server = proxy.stdin.take().unwrap();
        let mut from_server = BufReader::new(proxy.stdout.take().unwrap());
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-client","version":"1.0"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"mcp","limit":2}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
        ] {
            writeln!(to_server, "{line}").unwrap();
            to_server.flush().unwrap();
            if line.contains("\"id\"") {
                let mut answer = String::new();
                from_server.read_line(&mut answer).unwrap();
            }
        }
        drop(to_server);
        assert!(proxy.wait().unwrap().success());
    }

    window.tab("Live");
    window.step_until("both sessions", |h| {
        h.query_by_label("Tick session #1").is_some()
            && h.query_by_label("Tick session #2").is_some()
    });
    assert!(
        window
            .harness
            .query_by_label("Compare")
            .is_some_and(|button| {
                use egui_kittest::kittest::NodeT as _;
                button.accesskit_node().is_disabled()
            }),
        "Compare waits for two ticks"
    );
    window.click("Tick session #1");
    window.click("Tick session #2");
    window.click("Compare #1 and #2");
    window.step_until("the comparison", |h| {
        has_text(h, "2 calls matched, 1 with a different result")
    });
    for expected in [
        "search (changed)",
        "legacy (removed)",
        "fresh (added)",
        "result changed",
        "same result",
        "/total: removed 2",
    ] {
        assert!(
            has_text(&window.harness, expected),
            "{expected:?} in the comparison"
        );
    }
    assert!(
        has_text(&window.harness, "argument `limit` became required"),
        "the change in words"
    );

    // A call's id shows it; back to the sessions, the comparison is still there to close.
    window.click("#1");
    window.step_until("the first session's search shown", |h| {
        has_text(h, "from raw-client 1.0 through toolscope proxy")
    });
    window.click("Back to the sessions");
    window.step_until("the comparison again", |h| {
        has_text(h, "Session #1 compared with session #2")
    });
    window.click("Close the comparison");
    window.step_until("the sessions' invitation", |h| {
        has_text(h, "Pick a call on the left")
    });
}
