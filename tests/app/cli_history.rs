//! `toolscope call` records every call in the history; `toolscope history` lists them and
//! `history show` prints one again as `call` printed it.

#![allow(clippy::expect_used, reason = "tests fail loudly")]

use crate::support::{json_of, status, stderr, stdout, toolscope_with_data};
use serde_json::{Value, json};

fn history_json(dir: &std::path::Path, filters: &[&str]) -> Vec<Value> {
    let mut args = vec!["history", "--json"];
    args.extend_from_slice(filters);
    let output = toolscope_with_data(dir, &args);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    json_of(&output).as_array().expect("a list").clone()
}

#[test]
fn calls_are_recorded_listed_filtered_and_shown_again() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let data = dir.path();
    let called = toolscope_with_data(
        data,
        &[
            "call", "--demo", "add", "--arg", "a=2", "--arg", "b=3", "--json",
        ],
    );
    assert_eq!(status(&called), 0, "{}", stderr(&called));
    let failed = toolscope_with_data(
        data,
        &["call", "--demo", "divide", "--arg", "a=1", "--arg", "b=0"],
    );
    assert_eq!(status(&failed), 1, "a tool error: {}", stderr(&failed));
    let skipped = toolscope_with_data(
        data,
        &[
            "call",
            "--demo",
            "add",
            "--arg",
            "a=9",
            "--arg",
            "b=9",
            "--no-history",
        ],
    );
    assert_eq!(status(&skipped), 0);

    let calls = history_json(data, &[]);
    assert_eq!(calls.len(), 2, "--no-history is not recorded: {calls:?}");
    assert_eq!(calls[0]["tool"], "divide", "newest first");
    assert_eq!(calls[0]["verdict"], "tool_error");
    assert_eq!(calls[1]["tool"], "add");
    assert_eq!(calls[1]["verdict"], "ok");
    assert_eq!(calls[1]["server"], "Built-in demo");
    assert!(
        calls[1]["started_at"]
            .as_str()
            .expect("a time")
            .ends_with('Z')
    );
    assert_eq!(history_json(data, &["--verdict", "ok"]).len(), 1);
    assert_eq!(history_json(data, &["--tool", "divide"]).len(), 1);
    assert_eq!(history_json(data, &["--text", "\"a\":2"]).len(), 1);
    assert_eq!(history_json(data, &["--limit", "1"]).len(), 1);

    // Shown again: the same response and analysis as the call printed.
    let id = calls[1]["id"].as_i64().expect("an id").to_string();
    let shown = toolscope_with_data(data, &["history", "show", &id, "--json"]);
    assert_eq!(status(&shown), 0, "{}", stderr(&shown));
    let shown = json_of(&shown);
    let original = json_of(&called);
    for field in [
        "response",
        "analysis",
        "arguments",
        "tool",
        "request_id",
        "server",
    ] {
        assert_eq!(shown[field], original[field], "{field}");
    }
    assert_eq!(shown["history"]["verdict"], "ok");
    assert_eq!(
        original["response"]["value"]["structuredContent"],
        json!({"result": 5})
    );

    let human = toolscope_with_data(data, &["history", "show", &id]);
    let text = stdout(&human);
    assert!(text.starts_with(&format!("History #{id} ·")), "{text}");
    // The server line call printed, from what the server said about itself.
    let server_line = text.lines().nth(1).unwrap_or_default();
    assert!(
        server_line.starts_with("toolscope-demo ") && server_line.contains("(server/discover)"),
        "{server_line}"
    );
    assert!(
        text.contains("structuredContent — what the application reads"),
        "{text}"
    );

    let listed = toolscope_with_data(data, &["history"]);
    let table = stdout(&listed);
    assert!(
        table.contains("divide") && table.contains("tool_error"),
        "{table}"
    );

    let missing = toolscope_with_data(data, &["history", "show", "999"]);
    assert_eq!(status(&missing), 2);
    assert!(
        stderr(&missing).contains("no call #999"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn a_history_that_cannot_be_written_is_a_warning_not_a_failure() {
    let blocker = tempfile::NamedTempFile::new().expect("a temp file");
    // The data folder is a file: the database cannot be created in it.
    let output = toolscope_with_data(
        blocker.path(),
        &["call", "--demo", "add", "--arg", "a=1", "--arg", "b=1"],
    );
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("warning: the call was not recorded"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn calls_are_exported_as_a_recording_shown_offline_and_reported_with_their_notes() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let data = dir.path();
    for args in [
        &["call", "--demo", "add", "--arg", "a=2", "--arg", "b=3"][..],
        &[
            "call",
            "--demo",
            "chart",
            "--args",
            r#"{"values": [3, 1, 2]}"#,
        ][..],
    ] {
        let output = toolscope_with_data(data, args);
        assert!(status(&output) <= 1, "{}", stderr(&output));
    }
    let history = data.join("history.sqlite3");
    let mut store = toolscope_core::history::open_store(
        &toolscope_core::history::HistoryLocation::File(history),
        &toolscope_core::history::RecordedBy::here(None),
    )
    .expect("the history opens");
    assert!(
        store
            .set_note(1, "sum looks <right>")
            .expect("a note is kept")
    );
    drop(store);

    let recording = data.join("session.json");
    let recording_arg = recording.display().to_string();
    let output = toolscope_with_data(data, &["history", "export", "-o", &recording_arg]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let text = std::fs::read_to_string(&recording).expect("the recording is written");
    let doc: Value = serde_json::from_str(&text).expect("a recording is JSON");
    assert_eq!(doc["format"], "toolscope-recording");
    assert_eq!(doc["calls"].as_array().map(Vec::len), Some(2));
    assert_eq!(doc["calls"][0]["note"], "sum looks <right>");

    // Another Toolscope, with an empty history of its own, opens it offline.
    let elsewhere = tempfile::tempdir().expect("a temp dir");
    let listed = toolscope_with_data(
        elsewhere.path(),
        &["history", "--recording", &recording_arg, "--json"],
    );
    assert_eq!(status(&listed), 0, "{}", stderr(&listed));
    let calls = json_of(&listed);
    assert_eq!(calls[1]["tool"], "add");
    assert_eq!(calls[1]["note"], "sum looks <right>");
    let shown_here = toolscope_with_data(data, &["history", "show", "1", "--json"]);
    let shown_there = toolscope_with_data(
        elsewhere.path(),
        &[
            "history",
            "show",
            "1",
            "--json",
            "--recording",
            &recording_arg,
        ],
    );
    assert_eq!(status(&shown_there), 0, "{}", stderr(&shown_there));
    let (here, there) = (json_of(&shown_here), json_of(&shown_there));
    assert_eq!(here["response"], there["response"], "the same response");
    assert_eq!(here["analysis"], there["analysis"], "the same analysis");

    let html = data.join("report.html");
    let output = toolscope_with_data(
        elsewhere.path(),
        &[
            "history",
            "report",
            "--recording",
            &recording_arg,
            "-o",
            &html.display().to_string(),
        ],
    );
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let report = std::fs::read_to_string(&html).expect("the report is written");
    assert!(
        report.contains("sum looks &lt;right&gt;"),
        "the note is in the report"
    );
    assert!(
        report.contains("<img src=\"data:image/png;base64,"),
        "the chart is embedded"
    );

    let not_a_recording = data.join("other.json");
    std::fs::write(&not_a_recording, "{\"tools\": []}").expect("written");
    let output = toolscope_with_data(
        data,
        &[
            "history",
            "--recording",
            &not_a_recording.display().to_string(),
        ],
    );
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("not a Toolscope recording"),
        "{}",
        stderr(&output)
    );
}
