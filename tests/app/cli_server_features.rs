//! The command line on the rest of a real server: `resources`, `read` of a template, `prompts`,
//! `prompt`, `complete` and `ping` against `@modelcontextprotocol/server-everything` (the
//! reference server, which declares all of them).

use crate::support::{json_of, status, stderr, stdout, toolscope};

fn everything_server() -> Option<String> {
    crate::support::everything_entry().map(|entry| format!("node {}", entry.display()))
}

#[test]
fn resources_and_templates_are_listed_and_a_template_is_read() {
    let Some(server) = everything_server() else {
        return;
    };
    let listed = toolscope(&["resources", "--stdio", &server]);
    assert_eq!(status(&listed), 0, "{}", stderr(&listed));
    let text = stdout(&listed);
    assert!(text.contains("demo://resource/static/document/"), "{text}");
    assert!(text.contains("· text/markdown"), "{text}");
    let json = toolscope(&["resources", "--stdio", &server, "--json"]);
    let doc = json_of(&json);
    assert!(
        doc["resources"]
            .as_array()
            .is_some_and(|items| !items.is_empty())
    );
    assert_eq!(doc["pages"], 1);

    let templates = toolscope(&["resources", "--stdio", &server, "--templates"]);
    assert_eq!(status(&templates), 0, "{}", stderr(&templates));
    assert!(
        stdout(&templates).contains("demo://resource/dynamic/text/{resourceId} (resourceId)"),
        "{}",
        stdout(&templates)
    );

    let template = "demo://resource/dynamic/text/{resourceId}";
    let read = toolscope(&[
        "read",
        "--stdio",
        &server,
        template,
        "--var",
        "resourceId=2",
    ]);
    assert_eq!(status(&read), 0, "{}", stderr(&read));
    assert!(stdout(&read).contains("Resource 2:"), "{}", stdout(&read));
    let unfilled = toolscope(&["read", "--stdio", &server, template]);
    assert_ne!(status(&unfilled), 0);
    assert!(
        stderr(&unfilled).contains("give resourceId"),
        "{}",
        stderr(&unfilled)
    );

    // A resource that is not there is said so, with the code and the era.
    let missing = toolscope(&[
        "read",
        "--stdio",
        &server,
        "demo://resource/static/document/nope.md",
    ]);
    assert_ne!(status(&missing), 0);
    let said = stderr(&missing);
    assert!(said.contains("the server has no resource at"), "{said}");
    assert!(said.contains("-32602"), "{said}");
}

#[test]
fn prompts_are_listed_got_and_their_arguments_completed() {
    let Some(server) = everything_server() else {
        return;
    };
    let listed = toolscope(&["prompts", "--stdio", &server]);
    assert_eq!(status(&listed), 0, "{}", stderr(&listed));
    assert!(
        stdout(&listed).contains("completable-prompt(department*, name*)"),
        "{}",
        stdout(&listed)
    );

    let got = toolscope(&[
        "prompt",
        "--stdio",
        &server,
        "args-prompt",
        "--args",
        r#"{"city": "Lisbon"}"#,
    ]);
    assert_eq!(status(&got), 0, "{}", stderr(&got));
    assert!(stdout(&got).starts_with("── user\n"), "{}", stdout(&got));
    assert!(stdout(&got).contains("Lisbon"), "{}", stdout(&got));
    // An embedded resource is shown with its URI and text.
    let embedded = toolscope(&[
        "prompt",
        "--stdio",
        &server,
        "resource-prompt",
        "--args",
        r#"{"resourceType": "Text", "resourceId": "1"}"#,
    ]);
    assert!(
        stdout(&embedded).contains("[resource demo://resource/dynamic/text/1 text/plain]"),
        "{}",
        stdout(&embedded)
    );

    // `department` from "E", then `name` in the context of the department chosen.
    let departments = toolscope(&[
        "complete",
        "--stdio",
        &server,
        "--prompt",
        "completable-prompt",
        "--argument",
        "department",
        "--value",
        "E",
    ]);
    assert_eq!(status(&departments), 0, "{}", stderr(&departments));
    assert!(
        stdout(&departments).starts_with("Engineering\n"),
        "{}",
        stdout(&departments)
    );
    let names = toolscope(&[
        "complete",
        "--stdio",
        &server,
        "--prompt",
        "completable-prompt",
        "--argument",
        "name",
        "--context",
        r#"{"department": "Engineering"}"#,
        "--json",
    ]);
    assert_eq!(status(&names), 0, "{}", stderr(&names));
    let values = json_of(&names)["result"]["completion"]["values"].clone();
    assert!(
        values.as_array().is_some_and(|values| values.len() >= 2),
        "{values}"
    );
}

#[test]
fn ping_reports_each_round_trip_and_the_spread() {
    let Some(server) = everything_server() else {
        return;
    };
    let pinged = toolscope(&["ping", "--stdio", &server, "--count", "3"]);
    assert_eq!(status(&pinged), 0, "{}", stderr(&pinged));
    let text = stdout(&pinged);
    for n in 1..=3 {
        assert!(text.contains(&format!("ping {n}: ")), "{text}");
    }
    assert!(text.contains("3 of 3 answered · min "), "{text}");
    assert!(
        !text.contains("server/discover"),
        "a 2025-11-25 server has ping: {text}"
    );
    // The demo speaks 2026-07-28, which has no ping: timed with server/discover, and said so.
    let modern = toolscope(&["ping", "--demo", "--count", "2"]);
    assert_eq!(status(&modern), 0, "{}", stderr(&modern));
    assert!(
        stdout(&modern).contains("has no ping: each round trip is a server/discover"),
        "{}",
        stdout(&modern)
    );
    let json = json_of(&toolscope(&["ping", "--demo", "--count", "2", "--json"]));
    assert_eq!(json["method"], "server/discover");
    assert_eq!(json["round_trips_ms"].as_array().map(Vec::len), Some(2));
}

#[test]
fn reads_and_prompts_are_kept_in_the_history_and_listed_by_kind() {
    let Some(server) = everything_server() else {
        return;
    };
    let data = std::env::temp_dir().join(format!("toolscope-kinds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let run = |args: &[&str]| crate::support::toolscope_with_data(&data, args);
    let read = run(&[
        "read",
        "--stdio",
        &server,
        "demo://resource/dynamic/text/{resourceId}",
        "--var",
        "resourceId=3",
    ]);
    assert_eq!(status(&read), 0, "{}", stderr(&read));
    let prompt = run(&[
        "prompt",
        "--stdio",
        &server,
        "args-prompt",
        "--args",
        r#"{"city": "Lyon"}"#,
    ]);
    assert_eq!(status(&prompt), 0, "{}", stderr(&prompt));
    let missing = run(&["read", "--stdio", &server, "demo://no/such/thing"]);
    assert_ne!(status(&missing), 0);

    let reads = json_of(&run(&["history", "--kind", "read", "--json"]));
    let reads = reads.as_array().unwrap();
    assert_eq!(reads.len(), 2, "{reads:?}");
    assert_eq!(reads[1]["tool"], "demo://resource/dynamic/text/3");
    assert_eq!(reads[1]["verdict"], "ok");
    assert_eq!(reads[0]["verdict"], "protocol_error", "the missing one");
    let prompts = json_of(&run(&["history", "--kind", "prompt", "--json"]));
    assert_eq!(prompts[0]["tool"], "args-prompt");
    assert_eq!(prompts[0]["kind"], "prompt");
    let all = stdout(&run(&["history"]));
    assert!(all.contains("read "), "{all}");
    let groups = json_of(&run(&["history", "--by-tool", "--json", "--kind", "read"]));
    let groups = groups.as_array().unwrap();
    assert_eq!(groups.len(), 2, "one group per URI: {groups:?}");
    assert!(
        groups
            .iter()
            .all(|group| group["calls"] == 1 && group["kind"] == "read")
    );
    assert!(
        groups.iter().any(|group| group["not_ok"] == 1),
        "the missing one is not ok: {groups:?}"
    );
    let table = stdout(&run(&["history", "--by-tool"]));
    assert!(table.contains("p95 ms"), "{table}");
    assert!(table.contains("args-prompt"), "{table}");

    // Shown again as it was answered.
    let id = prompts[0]["id"].to_string();
    let shown = run(&["history", "show", &id]);
    assert_eq!(status(&shown), 0, "{}", stderr(&shown));
    assert!(
        stdout(&shown).contains("prompts/get args-prompt"),
        "{}",
        stdout(&shown)
    );
    assert!(stdout(&shown).contains("Lyon"), "{}", stdout(&shown));
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn what_2026_deprecates_is_said_where_the_command_line_offers_it() {
    let modern = toolscope(&[
        "call",
        "--demo",
        "add",
        "--args",
        r#"{"a": 1, "b": 2}"#,
        "--sample",
        "hi",
        "--root",
        ".",
        "--no-history",
    ]);
    assert_eq!(status(&modern), 0, "{}", stderr(&modern));
    let said = stderr(&modern);
    assert!(
        said.contains("sampling is deprecated from protocol 2026-07-28 (SEP-2577)"),
        "{said}"
    );
    assert!(said.contains("roots is deprecated"), "{said}");
    let Some(server) = everything_server() else {
        return;
    };
    let older = toolscope(&[
        "call",
        "--stdio",
        &server,
        "echo",
        "--args",
        r#"{"message": "x"}"#,
        "--sample",
        "hi",
        "--no-history",
    ]);
    assert_eq!(status(&older), 0, "{}", stderr(&older));
    assert!(
        !stderr(&older).contains("SEP-2577"),
        "a 2025-11-25 server: no note"
    );
}

#[test]
fn a_server_without_tools_lists_none_and_says_why_and_its_resources_are_read() {
    let script = crate::support::repo_root().join("tests/fixtures/no_tools_server.py");
    let server = format!("python3 {}", script.display());
    let tools = toolscope(&["tools", "--stdio", &server]);
    assert_eq!(status(&tools), 0, "{}", stderr(&tools));
    assert!(stdout(&tools).contains("0 tool(s)"), "{}", stdout(&tools));
    assert!(
        stderr(&tools).contains("this server offers no tools: it does not declare the tools"),
        "{}",
        stderr(&tools)
    );
    let read = toolscope(&["read", "--stdio", &server, "notes://readme"]);
    assert_eq!(status(&read), 0, "{}", stderr(&read));
    assert!(stdout(&read).contains("no tools here"), "{}", stdout(&read));
}
