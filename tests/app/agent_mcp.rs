//! `toolscope mcp`: Toolscope as an MCP server, driven by a client nobody here wrote (the
//! official Python SDK's, `tests/fixtures/agent_client.py`, which also checks every
//! structuredContent against the tool's outputSchema). Each test has its own data, settings
//! and home folders, so the servers found and the history are its own.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::{
    io::Write as _,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use serde_json::{Value, json};

use crate::support::{binary, peer_available, repo_root};

/// A folder of one test's own: data (the history), config (settings), home (other clients'
/// files), and the project folder `toolscope mcp` runs in.
struct Agent {
    dir: PathBuf,
}

impl Agent {
    /// `None` (the test skips, loudly) when the Python peer is not installed.
    fn new(name: &str) -> Option<Self> {
        if !peer_available(&python(), "the Python `mcp` peer") {
            return None;
        }
        let dir =
            std::env::temp_dir().join(format!("toolscope-agent-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["config", "home", "project"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        Some(Self { dir })
    }

    fn project(&self) -> PathBuf {
        self.dir.join("project")
    }

    fn environment(&self, command: &mut Command) {
        command
            .env("TOOLSCOPE_DATA_DIR", self.dir.join("data"))
            .env("TOOLSCOPE_CONFIG_DIR", self.dir.join("config"))
            .env("TOOLSCOPE_SECRETS", "file")
            .env("HOME", self.dir.join("home"))
            .env("XDG_CONFIG_HOME", self.dir.join("home/.config"))
            .env_remove("CODEX_HOME")
            .env_remove("TOOLSCOPE_HISTORY_URL")
            .current_dir(self.project());
    }

    /// Saves servers in Toolscope's settings.
    fn save_servers(&self, servers: Value) {
        let settings = json!({ "servers": servers });
        std::fs::write(
            self.dir.join("config/settings.json"),
            serde_json::to_string(&settings).unwrap(),
        )
        .unwrap();
    }

    /// Runs `toolscope mcp <flags>` under the Python SDK's client named `agent-test`, which
    /// lists the tools and calls each step; what it got.
    fn run(&self, flags: &[&str], steps: Value) -> Value {
        let mut command = Command::new(python());
        command
            .arg(repo_root().join("tests/fixtures/agent_client.py"))
            .arg("agent-test")
            .arg(binary())
            .arg("mcp")
            .args(flags)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        self.environment(&mut command);
        let mut child = command.spawn().expect("the Python client starts");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(steps.to_string().as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "{}\nstdout: {stdout}\nstderr: {stderr}",
            output.status
        );
        serde_json::from_str(&stdout).unwrap_or_else(|error| {
            panic!("not JSON ({error}): {stdout}\nstderr: {stderr}");
        })
    }

    /// `toolscope <args>` on this test's folders.
    fn toolscope(&self, args: &[&str]) -> std::process::Output {
        let mut command = Command::new(binary());
        command.args(args);
        self.environment(&mut command);
        command.output().unwrap()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn python() -> PathBuf {
    repo_root().join("tests/peers/python/.venv/bin/python")
}

/// A saved stdio server's settings: `command` with `args`.
fn stdio_entry(command: &Path, args: &[&Path]) -> Value {
    json!({"transport": "stdio", "command": command, "args": args})
}

fn call(server: &str, tool: &str, arguments: Value) -> Value {
    json!({"tool": "call_tool", "arguments": {"server": server, "tool": tool, "arguments": arguments}})
}

/// The step's structuredContent, after checking the SDK took it and it is not a tool error.
fn structured<'a>(result: &'a Value, step: &str) -> &'a Value {
    assert!(result.get("sdk_error").is_none(), "{step}: {result}");
    assert_eq!(result["isError"], false, "{step}: {result}");
    &result["structured"]
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_python_sdk_lists_its_tools_and_call_tool_on_demo_add_brings_both_halves_and_the_analysis() {
    let Some(agent) = Agent::new("add") else {
        return;
    };
    let got = agent.run(
        &[],
        json!([call("demo", "add", json!({"a": 2, "b": 3})), {"tool": "history"}]),
    );
    let mut names: Vec<&str> = got["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            assert!(tool["outputSchema"].is_object(), "{tool}");
            tool["name"].as_str().unwrap()
        })
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "call_tool",
            "diff_interface",
            "get_prompt",
            "history",
            "list_servers",
            "list_tools",
            "read_resource",
            "run_cases"
        ]
    );
    // The skill file for agents names every tool, and its frontmatter reads as Agent Skills'.
    let skill = std::fs::read_to_string(repo_root().join("skills/toolscope/SKILL.md")).unwrap();
    let document = toolscope_core::skills::frontmatter::split(&skill).unwrap();
    assert_eq!(document.frontmatter["name"], "toolscope");
    let description = document.frontmatter["description"].as_str().unwrap();
    assert!(
        (1..=1024).contains(&description.chars().count()),
        "{description}"
    );
    for name in &names {
        assert!(
            document.body.contains(&format!("`{name}`")),
            "SKILL.md names {name}"
        );
    }

    let result = &got["results"][0];
    let added = structured(result, "call_tool");
    assert_eq!(added["content"], json!([{"type": "text", "text": "5"}]));
    assert_eq!(added["structuredContent"], json!({"result": 5}));
    let analysis = &added["analysis"];
    assert_eq!(analysis["verdict"], "ok");
    assert_eq!(analysis["outcome"], "success");
    assert_eq!(analysis["contract"], "contract kept");
    assert_eq!(analysis["wrapping"], "wrapped by the SDK");
    assert_eq!(analysis["mirror"], "text mirrors it");
    let text = result["text"].as_str().unwrap();
    assert!(
        text.contains("success · contract kept · wrapped by the SDK · text mirrors it"),
        "{text}"
    );
    assert!(text.contains("The model reads: 5"), "{text}");

    // Kept in the history with the agent's name, as `history` and `toolscope history` say.
    let id = added["history_id"].as_i64().unwrap();
    let history = structured(&got["results"][1], "history");
    assert_eq!(history["calls"][0]["id"], id);
    assert_eq!(history["calls"][0]["client"], "agent-test 9.9");
    let listed = agent.toolscope(&["history", "--json"]);
    let rows: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(rows[0]["client"], "agent-test 9.9", "{rows}");
    assert_eq!(rows[0]["tool"], "add");
}

#[test]
fn a_new_command_line_is_refused_unless_new_servers_are_allowed() {
    let Some(agent) = Agent::new("new") else {
        return;
    };
    let command_line = format!("{} demo-server", binary());
    let steps = json!([call(&command_line, "add", json!({"a": 1, "b": 1}))]);
    // Arguments that do not fit the inputSchema: a tool error the model can read and correct,
    // not a JSON-RPC error.
    let unfit = &agent.run(
        &[],
        json!([{"tool": "call_tool", "arguments": {"tool": "add"}}]),
    )["results"][0];
    assert_eq!(unfit["isError"], true, "{unfit}");
    assert!(
        unfit["text"]
            .as_str()
            .unwrap()
            .contains("the arguments do not fit call_tool's inputSchema: missing field `server`"),
        "{unfit}"
    );
    let refused = &agent.run(&[], steps.clone())["results"][0];
    assert_eq!(refused["isError"], true, "{refused}");
    let why = refused["text"].as_str().unwrap();
    assert!(
        why.contains("is not a server saved in Toolscope") && why.contains("--allow-new-servers"),
        "{why}"
    );
    let history = agent.toolscope(&["history", "--json"]);
    assert_eq!(
        serde_json::from_slice::<Value>(&history.stdout).unwrap(),
        json!([]),
        "nothing was started, nothing kept"
    );

    let allowed = &agent.run(&["--allow-new-servers"], steps)["results"][0];
    let added = structured(allowed, "call_tool");
    assert_eq!(added["structuredContent"], json!({"result": 2}));
    assert_eq!(added["server"], command_line);
}

#[test]
fn saved_and_imported_servers_are_listed_and_reached_by_name_for_tools_reads_and_prompts() {
    let Some(agent) = Agent::new("named") else {
        return;
    };
    let peer = repo_root().join("tests/peers/python/server.py");
    // A saved HTTP server too (the demo over Streamable HTTP, with a bearer token).
    let (_http, url) = crate::support::demo_http_server(Some("s3cret"));
    agent.save_servers(json!([
        {"name": "peer", "config": stdio_entry(&python(), &[&peer])},
        {"name": "demo over http", "config": {"transport": "http", "url": url,
            "headers": {"Authorization": "Bearer s3cret"}}},
    ]));
    // Claude Code's user file; and a project file in the folder the agent runs in, which a
    // cloned repository may ship: its servers are not started for an agent.
    let imported = json!({"mcpServers": {"imported-demo": {
        "command": binary(), "args": ["demo-server"]}}});
    write(&agent.dir.join("home/.claude.json"), &imported.to_string());
    let shipped = json!({"mcpServers": {"shipped": {
        "command": "sh", "args": ["-c", "touch started-by-the-agent"]}}});
    write(&agent.project().join(".mcp.json"), &shipped.to_string());
    let got = agent.run(
        &[],
        json!([
            {"tool": "list_servers"},
            {"tool": "list_tools", "arguments": {"server": "imported-demo"}},
            {"tool": "read_resource", "arguments": {"server": "peer", "uri": "config://settings"}},
            {"tool": "get_prompt", "arguments": {"server": "peer", "name": "review",
                "arguments": {"code": "print(1)"}}},
            {"tool": "read_resource", "arguments": {"server": "peer", "uri": "config://nothing"}},
            call("demo over http", "add", json!({"a": 20, "b": 22})),
            {"tool": "list_tools", "arguments": {"server": "shipped"}},
        ]),
    );
    let refused = &got["results"][6];
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        refused.to_string().contains("project file"),
        "the project's server is refused and said why: {refused}"
    );
    assert!(!agent.project().join("started-by-the-agent").exists());
    let servers = structured(&got["results"][0], "list_servers");
    let named: Vec<(&str, &str)> = servers["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| {
            (
                line["name"].as_str().unwrap(),
                line["source"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(named[0], ("demo", "built in"));
    assert!(named.contains(&("peer", "saved in Toolscope")), "{named:?}");
    assert!(
        named
            .iter()
            .any(|(name, source)| *name == "imported-demo" && source.starts_with("Claude Code")),
        "{named:?}"
    );
    let shipped_line = servers["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|line| line["name"] == "shipped")
        .expect("the project's server is listed");
    assert!(
        shipped_line["problem"]
            .as_str()
            .unwrap()
            .contains("not started for an agent"),
        "{shipped_line}"
    );

    let tools = structured(&got["results"][1], "list_tools");
    let add = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "add")
        .unwrap();
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(add["outputSchema"]["required"], json!(["result"]));
    assert_eq!(tools["server"]["name"], "toolscope-demo");

    let read = structured(&got["results"][2], "read_resource");
    let settings = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(
        serde_json::from_str::<Value>(settings).is_ok(),
        "{settings}"
    );
    assert!(read["history_id"].is_i64());
    let prompt = structured(&got["results"][3], "get_prompt");
    assert!(
        prompt["result"]["messages"]
            .as_array()
            .is_some_and(|m| !m.is_empty()),
        "{prompt}"
    );
    let missing = structured(&got["results"][4], "read_resource");
    assert!(missing["result"].is_null());
    assert!(
        missing["problem"]
            .as_str()
            .unwrap()
            .contains("config://nothing"),
        "{missing}"
    );

    let over_http = structured(&got["results"][5], "call_tool over HTTP");
    assert_eq!(over_http["structuredContent"], json!({"result": 42}));
    assert_eq!(over_http["server"], "demo over http");
    assert!(
        !got["results"][0].to_string().contains("s3cret"),
        "list_servers shows no header value"
    );

    let history = agent.toolscope(&["history", "--json"]);
    let rows: Value = serde_json::from_slice(&history.stdout).unwrap();
    let kinds: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            assert_eq!(row["client"], "agent-test 9.9");
            row["kind"].as_str().unwrap()
        })
        .collect();
    assert_eq!(kinds, ["call", "read", "prompt", "read"]);
}

#[test]
fn history_finds_and_shows_calls_run_cases_reports_failures_and_diff_interface_names_changes() {
    let Some(agent) = Agent::new("checks") else {
        return;
    };
    let cases = r#"
[server]
demo = true

[[case]]
name = "add wraps a scalar"
tool = "add"
arguments = { a = 1, b = 2 }
[case.expect]
structured = { result = 3 }

[[case]]
name = "divide by zero succeeds (it does not)"
tool = "divide"
arguments = { a = 1, b = 0 }
[case.expect]
is_error = false
"#;
    write(&agent.project().join("cases.toml"), cases);
    // The demo's interface with `add` missing and `divide` described otherwise.
    let snapshot = agent.toolscope(&["snapshot", "--demo", "--output", "demo.json"]);
    assert!(snapshot.status.success(), "{snapshot:?}");
    let path = agent.project().join("demo.json");
    let mut old: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let tools = old["tools"].as_array_mut().unwrap();
    tools.retain(|tool| tool["name"] != "add");
    for tool in tools.iter_mut().filter(|tool| tool["name"] == "divide") {
        tool["description"] = json!("an older description");
    }
    write(&path, &old.to_string());

    let got = agent.run(
        &[],
        json!([
            call("demo", "divide", json!({"a": 1, "b": 0})),
            {"tool": "history", "arguments": {"search": "divide"}},
            {"tool": "history", "arguments": {"show": 1}},
            {"tool": "run_cases", "arguments": {"file": "cases.toml"}},
            {"tool": "diff_interface", "arguments": {"snapshot": "demo.json", "server": "demo"}},
            {"tool": "history", "arguments": {"verdict": "fine"}},
        ]),
    );
    let divided = structured(&got["results"][0], "call_tool");
    assert_eq!(divided["isError"], true);
    assert_eq!(divided["analysis"]["outcome"], "tool error");
    assert_eq!(divided["analysis"]["verdict"], "tool_error");

    let found = structured(&got["results"][1], "history search");
    assert_eq!(found["calls"].as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found["calls"][0]["tool"], "divide");
    let shown = structured(&got["results"][2], "history show");
    assert_eq!(shown["call"]["tool"], "divide");
    assert_eq!(shown["call"]["content"], divided["content"]);
    assert_eq!(shown["call"]["analysis"]["outcome"], "tool error");

    let run = structured(&got["results"][3], "run_cases");
    assert_eq!(
        (run["passed"].as_u64(), run["failed"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(run["all_passed"], false);
    let failed = &run["cases"][1];
    assert_eq!(failed["passed"], false);
    assert!(
        !failed["failures"].as_array().unwrap().is_empty(),
        "{failed}"
    );
    let text = got["results"][3]["text"].as_str().unwrap();
    assert!(
        text.contains("1 passed, 1 failed") && text.contains("✗ divide by zero"),
        "{text}"
    );

    let diff = structured(&got["results"][4], "diff_interface");
    let status = |name: &str| {
        diff["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|tool| tool["name"] == name)
            .map(|tool| tool["status"].clone())
    };
    assert_eq!(status("add"), Some(json!("added")), "{diff}");
    assert_eq!(status("divide"), Some(json!("changed")), "{diff}");
    assert_eq!(diff["breaking"], 0, "{diff}");

    let bad = &got["results"][5];
    assert_eq!(bad["isError"], true);
    assert!(
        bad["text"].as_str().unwrap().contains("tool_error"),
        "{bad}"
    );
}

#[test]
fn a_server_that_hangs_floods_or_nests_deep_is_bounded_for_the_agent() {
    let Some(agent) = Agent::new("hostile") else {
        return;
    };
    let fixture = |name: &str| repo_root().join("tests/fixtures").join(name);
    let python3 = Path::new("python3");
    agent.save_servers(json!([
        {"name": "hostile", "config": stdio_entry(python3, &[&fixture("agent_hostile_server.py")])},
        {"name": "deep", "config": stdio_entry(python3, &[&fixture("deep_answers_server.py")])},
    ]));
    let started = std::time::Instant::now();
    let got = agent.run(
        &["--timeout", "2"],
        json!([
            call("hostile", "hang", json!({})),
            call("hostile", "flood", json!({})),
            {"tool": "list_tools", "arguments": {"server": "hostile"}},
            call("deep", "deep_result", json!({})),
            {"tool": "read_resource", "arguments": {"server": "deep", "uri": "deep://meta"}},
            call("hostile", "huge_error", json!({})),
        ]),
    );
    // A megabyte of error message, and of description, is cut for the agent.
    let huge = structured(&got["results"][5], "huge_error");
    let message = huge["rpc_error"]["message"].as_str().unwrap();
    assert!(message.len() < 20 * 1024, "{}", message.len());
    assert!(huge["withheld"].to_string().contains("is cut at"), "{huge}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "the hung call ended at its timeout"
    );
    let hung = structured(&got["results"][0], "hang");
    assert!(hung["analysis"].is_null());
    assert!(
        hung["failure"].as_str().unwrap().contains("timed out")
            || hung["failure"].as_str().unwrap().contains("timeout"),
        "{hung}"
    );

    let flood = structured(&got["results"][1], "flood");
    assert!(flood["content"].is_null() && flood["structuredContent"].is_null());
    let withheld = flood["withheld"].to_string();
    assert!(withheld.contains("bytes, more than"), "{withheld}");
    assert!(!got["results"][1]["text"].as_str().unwrap().contains('\x1b'));

    let listed = structured(&got["results"][2], "list_tools");
    let deep_schema = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "deep_schema")
        .unwrap();
    assert!(deep_schema["inputSchema"].is_null());
    let described = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "huge_error")
        .unwrap();
    assert!(described["description"].as_str().unwrap().len() < 20 * 1024);
    assert!(
        listed["warnings"].to_string().contains("deeper than 64"),
        "{listed}"
    );

    let nested = structured(&got["results"][3], "deep_result");
    assert!(nested["structuredContent"].is_null());
    assert_eq!(nested["content"][0]["text"], "deep");
    assert!(
        nested["withheld"]
            .to_string()
            .contains("structuredContent nests deeper")
    );
    let read = structured(&got["results"][4], "deep read");
    assert!(read["result"].is_null());
    assert!(
        read["withheld"].to_string().contains("deeper than"),
        "{read}"
    );
}
