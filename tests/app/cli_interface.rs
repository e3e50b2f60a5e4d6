//! `toolscope snapshot` and `toolscope diff`: the real binary against the demo server and
//! `tests/fixtures/interface_server.py`, whose interface changes between `v1` and `v2`.

#![allow(clippy::expect_used, reason = "a test fails loudly")]

use std::path::{Path, PathBuf};

use crate::support::{json_of, repo_root, status, stderr, stdout, toolscope};
use serde_json::{Value, json};

fn fixture(version: &str) -> String {
    let script = repo_root().join("tests/fixtures/interface_server.py");
    format!("python3 {} {version}", script.display())
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

/// Takes a snapshot of the fixture's `version` into `dir`.
fn snapshot_of(dir: &Path, version: &str) -> PathBuf {
    let file = dir.join(format!("{version}.json"));
    let output = toolscope(&[
        "snapshot",
        "--stdio",
        &fixture(version),
        "--output",
        path_str(&file),
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert!(
        stdout(&output).is_empty(),
        "--output writes nothing to stdout"
    );
    file
}

#[test]
fn a_snapshot_of_the_demo_round_trips_and_matches_the_server() {
    let output = toolscope(&["snapshot", "--demo"]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let doc = json_of(&output);
    assert_eq!(doc["format"], "toolscope-interface");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["server"]["name"], "toolscope-demo");
    assert_eq!(doc["server"]["protocol_version"], "2026-07-28");
    let tools = doc["tools"].as_array().expect("tools");
    let add = tools.iter().find(|t| t["name"] == "add").expect("add");
    assert_eq!(add["inputSchema"]["type"], "object");
    assert_eq!(
        add["outputSchema"]["properties"]["result"]["type"],
        "integer"
    );
    assert_eq!(add["raw"]["name"], "add");
    assert!(
        chrono::DateTime::parse_from_rfc3339(doc["taken_at"].as_str().expect("taken_at")).is_ok()
    );

    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("demo.json");
    std::fs::write(&file, &output.stdout).expect("the snapshot is saved");
    // Against the server now, and against itself: nothing changed.
    for args in [
        vec!["diff", path_str(&file), "--demo"],
        vec!["diff", path_str(&file), path_str(&file)],
    ] {
        let output = toolscope(&args);
        assert_eq!(status(&output), 0, "{args:?}: {}", stderr(&output));
        let text = stdout(&output);
        assert_eq!(text.lines().next(), Some("no changes"), "{text}");
    }
    let output = toolscope(&["diff", path_str(&file), path_str(&file), "--json"]);
    assert_eq!(status(&output), 0);
    let report = json_of(&output);
    assert_eq!(
        report["summary"],
        json!({"breaking": 0, "compatible": 0, "tools_changed": 0, "text": "no changes"})
    );
    assert_eq!(report["old"]["tools"], tools.len());
}

#[test]
fn the_next_interface_breaks_and_each_breaking_change_is_named() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let v1 = snapshot_of(dir.path(), "v1");
    let output = toolscope(&["diff", path_str(&v1), "--stdio", &fixture("v2")]);
    assert_eq!(
        status(&output),
        1,
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let text = stdout(&output);
    assert_eq!(
        text.lines().next(),
        Some("4 breaking, 3 compatible changes in 5 tools and the server's identity"),
        "{text}"
    );
    for line in [
        "━━ search (changed)",
        "   ✗ breaking    /inputSchema/properties/limit: argument `limit` became required: calls without it are rejected",
        "   ✗ breaking    /outputSchema/properties/total: output property `total` was removed: clients that read it will not find it",
        "━━ convert (changed)",
        "   ✗ breaking    /inputSchema/properties/value/type: the type of argument `value` narrowed from number to integer: values that were accepted are now rejected",
        "━━ legacy (removed)",
        "   ✗ breaking    tool `legacy` was removed: calls to it fail",
        "━━ echo (changed)",
        "   · compatible  /description: description changed",
        "━━ fresh (added)",
        "   · compatible  new tool `fresh`",
        "   · compatible  /server/version: server version changed from \"1.0.0\" to \"2.0.0\"",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    // Breaking changes come before the compatible ones of their tool.
    let search = text.find("━━ search").expect("search");
    assert!(
        text[search..].find("✗").expect("a breaking mark")
            < text[search..].find("━━ convert").expect("convert")
    );

    let output = toolscope(&["diff", path_str(&v1), "--stdio", &fixture("v2"), "--json"]);
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    let report = json_of(&output);
    assert_eq!(report["summary"]["breaking"], 4);
    assert_eq!(report["summary"]["compatible"], 3);
    assert_eq!(report["summary"]["tools_changed"], 5);
    assert_eq!(report["new"]["server"]["version"], "2.0.0");
    let breaking: Vec<(String, String, String)> = report["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .flat_map(|tool| {
            let name = tool["name"].as_str().unwrap_or_default().to_owned();
            tool["changes"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter(|c| c["severity"] == "breaking")
                .map(move |c| {
                    (
                        name.clone(),
                        c["kind"].as_str().unwrap_or_default().to_owned(),
                        c["location"].as_str().unwrap_or_default().to_owned(),
                    )
                })
        })
        .collect();
    let expected = [
        ("search", "required_added", "/inputSchema/properties/limit"),
        (
            "search",
            "property_removed",
            "/outputSchema/properties/total",
        ),
        (
            "convert",
            "type_narrowed",
            "/inputSchema/properties/value/type",
        ),
        ("legacy", "tool_removed", ""),
    ];
    assert_eq!(
        breaking,
        expected
            .iter()
            .map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned()))
            .collect::<Vec<_>>()
    );

    // Two files give the same answer; the other way round, v2 → v1 also breaks (`fresh` removed).
    let v2 = snapshot_of(dir.path(), "v2");
    let output = toolscope(&["diff", path_str(&v1), path_str(&v2)]);
    assert_eq!(status(&output), 1);
    assert_eq!(stdout(&output).lines().next(), text.lines().next());
    let output = toolscope(&["diff", path_str(&v2), path_str(&v1)]);
    assert_eq!(status(&output), 1);
    assert!(
        stdout(&output).contains("tool `fresh` was removed"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn an_unreachable_server_exits_2_with_a_message() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let v1 = snapshot_of(dir.path(), "v1");
    for server in [
        vec!["--stdio", "toolscope-no-such-program-here"],
        vec!["--url", "http://127.0.0.1:9/mcp", "--timeout", "5"],
    ] {
        let mut args = vec!["diff", path_str(&v1)];
        args.extend(&server);
        let output = toolscope(&args);
        assert_eq!(status(&output), 2, "{server:?}: {}", stdout(&output));
        assert!(
            stderr(&output).starts_with("error: cannot connect to the server: "),
            "{}",
            stderr(&output)
        );
        assert!(stdout(&output).is_empty());
    }
    let output = toolscope(&["snapshot", "--stdio", "toolscope-no-such-program-here"]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("cannot connect to the server"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_file_that_is_not_a_snapshot_exits_2_saying_what_was_expected() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let tools = dir.path().join("tools.json");
    std::fs::write(&tools, r#"{"server": {}, "tools": []}"#).expect("written");
    let output = toolscope(&["diff", path_str(&tools), "--demo"]);
    assert_eq!(status(&output), 2);
    let message = stderr(&output);
    assert!(
        message.contains("the old snapshot cannot be used: it is not a Toolscope interface snapshot: expected a JSON object with \"format\": \"toolscope-interface\""),
        "{message}"
    );
    assert!(
        message.contains("found an object without \"format\""),
        "{message}"
    );
    assert!(
        message.trim_end().ends_with(path_str(&tools)),
        "the path comes last: {message}"
    );

    let missing = dir.path().join("missing.json");
    let output = toolscope(&["diff", path_str(&tools), path_str(&missing)]);
    assert_eq!(status(&output), 2);
    let output = toolscope(&["diff", path_str(&missing), path_str(&missing)]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("the old snapshot cannot be used: it cannot be read"),
        "{}",
        stderr(&output)
    );

    let output = toolscope(&["diff", path_str(&tools)]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("give the newer interface"),
        "{}",
        stderr(&output)
    );
}

/// A snapshot whose one tool has an input schema nested `levels` object levels deep, with a
/// leaf of type `leaf`. Written as text: no recursive serializer touches it.
fn hostile_snapshot(levels: usize, leaf: &str) -> String {
    let schema = "{\"type\":\"object\",\"properties\":{\"x\":".repeat(levels)
        + &format!("{{\"type\":\"{leaf}\"}}")
        + &"}}".repeat(levels);
    format!(
        "{{\"format\":\"toolscope-interface\",\"version\":1,\"taken_at\":\"2026-11-01T00:00:00Z\",\
         \"server\":{{\"name\":\"deep\"}},\"tools\":[{{\"name\":\"deep\",\"inputSchema\":{schema},\
         \"raw\":{{\"name\":\"deep\",\"inputSchema\":{schema}}}}}]}}"
    )
}

#[test]
fn a_schema_nested_ten_thousand_levels_deep_does_not_crash_the_diff() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (old, new) = (dir.path().join("old.json"), dir.path().join("new.json"));
    std::fs::write(&old, hostile_snapshot(10_000, "string")).expect("written");
    std::fs::write(&new, hostile_snapshot(10_000, "number")).expect("written");

    let output = toolscope(&["diff", path_str(&old), path_str(&old)]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().next(), Some("no changes"));

    let output = toolscope(&["diff", path_str(&old), path_str(&new)]);
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    let text = stdout(&output);
    assert_eq!(
        text.lines().next(),
        Some("1 breaking, 0 compatible changes in 1 tool"),
        "{text}"
    );
    assert!(
        text.contains("nested deeper than Toolscope compares (64 levels)"),
        "{text}"
    );

    let output = toolscope(&["diff", path_str(&old), path_str(&new), "--json"]);
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    let report: Value = json_of(&output);
    let change = &report["tools"][0]["changes"][0];
    assert_eq!(change["kind"], "keyword_changed");
    assert_eq!(
        change["location"],
        format!("/inputSchema{}", "/properties/x".repeat(64))
    );
}
