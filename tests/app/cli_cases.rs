//! `toolscope run`: case files run by the real binary against the demo server, the official
//! Python SDK and servers that cannot be reached; JUnit XML and reports written.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;

use crate::support::{json_of, peer_available, repo_root, status, stderr, stdout, toolscope};

const DEMO_CASES: &str = r#"
[server]
demo = true

[[case]]
name = "add wraps a scalar"
tool = "add"
arguments = { a = 1, b = 2 }
[case.expect]
is_error = false
contract = "satisfied"
structured = { result = 3 }
pointer = { "/result" = 3 }
text_contains = ["3"]
text_mirror = "matched"
max_duration_ms = 20000

[[case]]
name = "divide by zero is a tool error"
tool = "divide"
arguments = { a = 1, b = 0 }
[case.expect]
is_error = true

[[case]]
name = "weather answers in Chinese"
tool = "weather_zh"
arguments = { city = "北京" }
[case.expect]
text_contains = ["北京"]
"#;

fn write(folder: &Path, name: &str, text: &str) -> String {
    let path = folder.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn passing_cases_exit_0_with_a_line_each() {
    let folder = tempfile::tempdir().unwrap();
    let file = write(folder.path(), "demo.toml", DEMO_CASES);
    let output = toolscope(&["run", &file]);
    assert_eq!(status(&output), 0, "{}{}", stdout(&output), stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("PASS  add wraps a scalar  (add,"), "{text}");
    assert!(text.contains("PASS  weather answers in Chinese"), "{text}");
    assert!(text.contains("3 case(s): 3 passed, 0 failed"), "{text}");
}

#[test]
fn a_failing_expectation_exits_1_and_is_named_in_the_junit_xml_and_the_reports() {
    let folder = tempfile::tempdir().unwrap();
    let failing = format!(
        "{DEMO_CASES}\n[[case]]\nname = \"add is four (deliberately wrong)\"\ntool = \"add\"\n\
         arguments = {{ a = 2, b = 2 }}\n[case.expect]\nstructured = {{ result = 5 }}\n"
    );
    let file = write(folder.path(), "demo.toml", &failing);
    let junit = folder.path().join("junit.xml");
    let html = folder.path().join("report.html");
    let output = toolscope(&[
        "run",
        &file,
        "--junit",
        &junit.display().to_string(),
        "--report",
        &html.display().to_string(),
    ]);
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("FAIL  add is four (deliberately wrong)"),
        "{text}"
    );
    assert!(
        text.contains(
            "structured: expected {\"result\":5}, got {\"result\":4} (at /result: expected 5, \
             the result has 4)"
        ),
        "{text}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("tests=\"4\" failures=\"1\" errors=\"0\""),
        "{xml}"
    );
    assert!(
        xml.contains(
            "<testcase name=\"add is four (deliberately wrong)\" classname=\"demo.toml.add\""
        ),
        "{xml}"
    );
    assert!(xml.contains("<failure type=\"structured\""), "{xml}");
    assert!(xml.contains("expected: {&quot;result&quot;:5}"), "{xml}");
    assert!(
        xml.contains("<testcase name=\"add wraps a scalar\""),
        "{xml}"
    );
    let report = std::fs::read_to_string(&html).unwrap();
    assert!(report.contains("4 case(s): 3 passed, 1 failed"));
    assert!(report.contains("add is four (deliberately wrong)"));
    assert!(report.contains("toolscope-demo 0.1.0 (Built-in demo) · protocol 2026-07-28"));

    let markdown = folder.path().join("report.md");
    let output = toolscope(&["run", &file, "--report", &markdown.display().to_string()]);
    assert_eq!(status(&output), 1);
    let report = std::fs::read_to_string(&markdown).unwrap();
    assert!(
        report.contains("## ❌ add is four (deliberately wrong)"),
        "{report}"
    );
    assert!(
        report.contains("## ✅ divide by zero is a tool error"),
        "{report}"
    );
}

#[test]
fn the_json_report_lists_every_case() {
    let folder = tempfile::tempdir().unwrap();
    let file = write(folder.path(), "demo.toml", DEMO_CASES);
    let output = toolscope(&["run", &file, "--json"]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let doc = json_of(&output);
    assert_eq!(doc["passed"], 3);
    assert_eq!(doc["cases"][1]["verdict"], "tool_error");
    assert_eq!(doc["cases"][0]["failures"], serde_json::json!([]));
}

#[test]
fn a_server_on_the_command_line_replaces_the_files() {
    let folder = tempfile::tempdir().unwrap();
    let cases = DEMO_CASES.replace("demo = true", "stdio = \"no-such-program-here\"");
    let file = write(folder.path(), "cases.toml", &cases);
    let output = toolscope(&["run", &file, "--demo"]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
}

#[test]
fn an_unreachable_server_exits_2_and_the_junit_file_says_why() {
    let folder = tempfile::tempdir().unwrap();
    let cases = DEMO_CASES.replace("demo = true", "stdio = \"no-such-program-here\"");
    let file = write(folder.path(), "cases.toml", &cases);
    let junit = folder.path().join("junit.xml");
    let output = toolscope(&["run", &file, "--junit", &junit.display().to_string()]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("no-such-program-here"),
        "{}",
        stderr(&output)
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<error type=\"connection\""), "{xml}");

    let url = DEMO_CASES.replace("demo = true", "url = \"http://127.0.0.1:9/mcp\"");
    let file = write(folder.path(), "url.toml", &url);
    let output = toolscope(&["run", &file, "--timeout", "5"]);
    assert_eq!(status(&output), 2, "{}", stderr(&output));
}

#[test]
fn a_broken_case_file_exits_2_saying_where() {
    let folder = tempfile::tempdir().unwrap();
    for (text, wanted) in [
        (
            "[[case]]\nname = \"a\"\ntool = \"add\"\n[case.expect]\nis_eror = true\n",
            "is_eror",
        ),
        ("[server]\ndemo = true\n", "has no [[case]]"),
        (
            "[[case]]\nname = \"a\"\ntool = \"add\"\n",
            "has no [server] section",
        ),
        (
            "[server]\nurl = \"http://x/${TOOLSCOPE_TEST_UNSET_VARIABLE}\"\n[[case]]\nname = \"a\"\ntool = \"add\"\n",
            "TOOLSCOPE_TEST_UNSET_VARIABLE is not set",
        ),
        ("not toml at all [", "not a valid case file"),
    ] {
        let file = write(folder.path(), "bad.toml", text);
        let output = toolscope(&["run", &file]);
        assert_eq!(status(&output), 2, "{text}");
        assert!(
            stderr(&output).contains(wanted),
            "{text}: {}",
            stderr(&output)
        );
    }
    let output = toolscope(&["run", "/no/such/cases.toml"]);
    assert_eq!(status(&output), 2);
    assert!(stderr(&output).contains("cannot read the case file"));
    let file = write(folder.path(), "demo.toml", DEMO_CASES);
    let output = toolscope(&["run", &file, "--report", "/tmp/report.pdf"]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("name it .md"),
        "{}",
        stderr(&output)
    );
}

/// The `[server]` section of the official Python SDK's peer; `None` when it is not installed.
fn python_peer_server() -> Option<String> {
    let root = repo_root();
    let python = root.join("tests/peers/python/.venv/bin/python");
    peer_available(&python, "the Python `mcp` peer").then(|| {
        format!(
            "[server]\nstdio = \"{} server.py\"\ncwd = \"{}\"\n\n",
            python.display(),
            root.join("tests/peers/python").display()
        )
    })
}

#[test]
fn cases_against_the_official_python_sdk() {
    let Some(server) = python_peer_server() else {
        return;
    };
    let folder = tempfile::tempdir().unwrap();
    let cases = format!(
        "{server}\
         [[case]]\nname = \"add\"\ntool = \"add\"\narguments = {{ a = 1, b = 2 }}\n\
         [case.expect]\nstructured = {{ result = 3 }}\ntext_mirror = \"matched\"\ncontract = \"satisfied\"\n\n\
         [[case]]\nname = \"a model as the schema\"\ntool = \"add_model\"\narguments = {{ a = 1, b = 2 }}\n\
         [case.expect]\npointer = {{ \"/value\" = 3 }}\ntext_mirror = \"matched\"\n\n\
         [[case]]\nname = \"structured output off\"\ntool = \"add_text\"\narguments = {{ a = 1, b = 2 }}\n\
         [case.expect]\ntext_mirror = \"absent\"\ntext_contains = [\"3\"]\n\n\
         [[case]]\nname = \"a tool error\"\ntool = \"fail\"\narguments = {{ reason = \"boom\" }}\n\
         [case.expect]\nis_error = true\ntext_contains = [\"boom\"]\n",
    );
    let file = write(folder.path(), "python.toml", &cases);
    let output = toolscope(&["run", &file]);
    assert_eq!(status(&output), 0, "{}{}", stdout(&output), stderr(&output));
    assert!(stdout(&output).contains("4 case(s): 4 passed, 0 failed"));
}

/// `toolscope run` calls tools as `toolscope call` does: a tool that requires a task runs as
/// one (server-everything's `simulate-research-query` refuses a plain call), a plain tool
/// beside it as before.
#[test]
fn a_tool_that_requires_a_task_runs_as_one_under_run() {
    let Some(entry) = crate::support::everything_entry() else {
        return;
    };
    let folder = tempfile::tempdir().unwrap();
    let cases = format!(
        "[server]\nstdio = \"node {}\"\n\n\
         [[case]]\nname = \"research runs as a task\"\ntool = \"simulate-research-query\"\n\
         arguments = {{ topic = \"rust\" }}\n\
         [case.expect]\nis_error = false\ntext_contains = [\"Research Report: rust\"]\n\n\
         [[case]]\nname = \"a plain sum\"\ntool = \"get-sum\"\narguments = {{ a = 2, b = 3 }}\n\
         [case.expect]\nis_error = false\ntext_contains = [\"5\"]\n",
        entry.display()
    );
    let file = write(folder.path(), "everything.toml", &cases);
    let output = toolscope(&["run", &file]);
    let text = stdout(&output);
    assert_eq!(status(&output), 0, "{text}{}", stderr(&output));
    assert!(text.contains("2 case(s): 2 passed, 0 failed"), "{text}");
    assert!(
        text.contains("note: `simulate-research-query` requires a task, so it runs as one"),
        "{text}"
    );
    let json = json_of(&toolscope(&["run", &file, "--json", "--no-history"]));
    assert_eq!(json["cases"][0]["passed"], true, "{json}");
    assert_eq!(
        json["cases"][0]["notes"][0],
        "`simulate-research-query` requires a task, so it runs as one"
    );
}

/// A tool whose `x-mcp-header` annotations are invalid is not called by a case, as `toolscope
/// call` refuses it, unless the case says `force = true`.
#[test]
fn a_case_does_not_call_a_tool_with_invalid_headers_unless_forced() {
    let folder = tempfile::tempdir().unwrap();
    let script = repo_root().join("tests/fixtures/hostile_server.py");
    let cases = format!(
        "[server]\nstdio = \"python3 {}\"\nenv = {{ HOSTILE_PROTOCOL = \"2026-07-28\" }}\n\n\
         [[case]]\nname = \"refused\"\ntool = \"bad_headers\"\n\n\
         [[case]]\nname = \"forced\"\ntool = \"bad_headers\"\nforce = true\n\
         [case.expect]\ntext_contains = [\"bad_headers ran\"]\n",
        script.display()
    );
    let file = write(folder.path(), "headers.toml", &cases);
    let junit = folder.path().join("junit.xml");
    let output = toolscope(&["run", &file, "--junit", &junit.display().to_string()]);
    let text = stdout(&output);
    assert_eq!(status(&output), 1, "{text}{}", stderr(&output));
    assert!(
        text.contains("FAIL  refused  (bad_headers, 0 ms)"),
        "{text}"
    );
    assert!(
        text.contains("not sent: `bad_headers` has invalid x-mcp-header annotations"),
        "{text}"
    );
    assert!(
        text.contains("`force = true` in the case calls it anyway"),
        "{text}"
    );
    assert!(text.contains("PASS  forced  (bad_headers,"), "{text}");
    assert!(
        text.contains("note: calling `bad_headers` despite invalid x-mcp-header annotations"),
        "{text}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<error type=\"not_sent\""), "{xml}");
    assert!(xml.contains("errors=\"1\""), "{xml}");
}

/// A case answers what the server asks, as `toolscope call`'s flags do: its `[case.answers]`
/// accepts an elicitation with content, replies to sampling, and a case that says nothing
/// declines (each against the official Python SDK's tools that ask).
#[test]
fn a_case_answers_what_the_server_asks_by_its_answers() {
    let Some(server) = python_peer_server() else {
        return;
    };
    let folder = tempfile::tempdir().unwrap();
    let cases = format!(
        "{server}\
         [[case]]\nname = \"accepted\"\ntool = \"book_table\"\narguments = {{ restaurant = \"Noma\" }}\n\
         [case.answers]\nelicit_answer = {{ date = \"2026-12-24\", guests = 4 }}\n\
         [case.expect]\ntext_contains = [\"Booked Noma on 2026-12-24 for 4.\"]\n\n\
         [[case]]\nname = \"declined\"\ntool = \"book_table\"\narguments = {{ restaurant = \"Noma\" }}\n\
         [case.expect]\ntext_contains = [\"the person chose decline\"]\n\n\
         [[case]]\nname = \"sampled\"\ntool = \"haiku\"\narguments = {{ topic = \"rust\" }}\n\
         [case.answers]\nsample = \"crabs in the autumn\"\n\
         [case.expect]\ntext_contains = [\"crabs in the autumn\"]\n",
    );
    let file = write(folder.path(), "answers.toml", &cases);
    let output = toolscope(&["run", &file, "--no-history"]);
    assert_eq!(status(&output), 0, "{}{}", stdout(&output), stderr(&output));
    assert!(stdout(&output).contains("3 case(s): 3 passed, 0 failed"));
}

/// A case file may read a resource (`resource = …`) and get a prompt (`prompt = …`) beside
/// its tool calls: each is checked by what such an answer has (text, a JSON-RPC error, the
/// time), kept in the history with its kind, and named in JUnit.
#[test]
fn a_read_and_a_prompt_are_cases_too() {
    let Some(entry) = crate::support::everything_entry() else {
        return;
    };
    let folder = tempfile::tempdir().unwrap();
    let cases = format!(
        "[server]\nstdio = \"node {}\"\n\n\
         [[case]]\nname = \"the fifth text resource\"\n\
         resource = \"demo://resource/dynamic/text/5\"\n\
         [case.expect]\ntext_contains = [\"Resource 5\"]\n\n\
         [[case]]\nname = \"no such resource\"\nresource = \"demo://nothing/here\"\n\
         [case.expect]\nprotocol_error = true\n\n\
         [[case]]\nname = \"weather in Lyon\"\nprompt = \"args-prompt\"\n\
         arguments = {{ city = \"Lyon\" }}\n\
         [case.expect]\ntext_contains = [\"Paris\"]\n",
        entry.display()
    );
    let file = write(folder.path(), "features.toml", &cases);
    let data = folder.path().join("data");
    let junit = folder.path().join("junit.xml");
    let output = crate::support::toolscope_with_data(
        &data,
        &["run", &file, "--junit", &junit.display().to_string()],
    );
    let text = stdout(&output);
    assert_eq!(status(&output), 1, "the prompt case fails: {text}");
    assert!(text.contains("3 case(s): 2 passed, 1 failed"), "{text}");
    assert!(
        text.contains("PASS  the fifth text resource  (read demo://resource/dynamic/text/5"),
        "{text}"
    );
    assert!(
        text.contains("text_contains: expected the text to contain \"Paris\""),
        "{text}"
    );
    assert!(text.contains("Lyon"), "the prompt's text is quoted: {text}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("failures=\"1\""), "{xml}");
    let kept = json_of(&crate::support::toolscope_with_data(
        &data,
        &["history", "--kind", "read", "--json"],
    ));
    assert_eq!(kept.as_array().map(Vec::len), Some(2), "{kept}");

    // What a read cannot have is refused before anything runs.
    let wrong = write(
        folder.path(),
        "wrong.toml",
        "[[case]]\nname = \"x\"\nresource = \"demo://a\"\n[case.expect]\nstructured = 3\n",
    );
    let refused = toolscope(&["run", &wrong, "--demo"]);
    assert_ne!(status(&refused), 0);
    assert!(
        stderr(&refused).contains("structured apply to tool calls only"),
        "{}",
        stderr(&refused)
    );
}
