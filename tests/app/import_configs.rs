//! Servers the user already has: `toolscope servers` finds them in the configuration files of
//! Claude Desktop, Claude Code (user, per project and `.mcp.json`), Cursor, VS Code (with its
//! `inputs`), Windsurf, Gemini CLI and Codex, in a home folder made up for the test.

#![allow(clippy::expect_used, reason = "tests fail loudly")]

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("folder");
    std::fs::write(path, text).expect("written");
}

/// A home with every client's file, and a project folder.
fn made_up_home(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!("toolscope-import-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let home = root.join("home");
    let config = root.join("config");
    let project = root.join("project");
    write(
        &config.join("Claude/claude_desktop_config.json"),
        r#"{"mcpServers": {
            "weather": {"command": "npx", "args": ["-y", "weather-mcp"], "env": {"API_KEY": "s3cret"}},
            "broken": {"args": ["no command"]}
        }}"#,
    );
    write(
        &home.join(".cursor/mcp.json"),
        "{\n  // Cursor writes JSON with comments\n  \"mcpServers\": {\n    \"linear\": {\"url\": \"https://mcp.linear.app/mcp?token=abc\", \"headers\": {\"Authorization\": \"Bearer ${env:LINEAR}\"}},\n  },\n}\n",
    );
    write(
        &home.join(".claude.json"),
        r#"{"mcpServers": {"git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git"]}},
            "projects": {"/work/app": {"mcpServers": {"db": {"command": "python3", "args": ["db.py"]}}}}}"#,
    );
    write(
        &project.join(".vscode/mcp.json"),
        r#"{"inputs": [{"type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true}],
            "servers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${input:gh-token}"}}}}"#,
    );
    write(
        &project.join(".mcp.json"),
        r#"{"mcpServers": {"local": {"command": "./server", "disabled": true}}}"#,
    );
    write(
        &home.join(".gemini/settings.json"),
        r#"{"mcpServers": {"streamed": {"httpUrl": "https://s.example/mcp"}, "old": {"url": "https://o.example/sse"}}}"#,
    );
    write(
        &home.join(".codeium/windsurf/mcp_config.json"),
        r#"{"mcpServers": {"surf": {"serverUrl": "https://surf.example/mcp"}}}"#,
    );
    write(
        &home.join(".codex/config.toml"),
        "[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--port\", \"0\"]\n\n[mcp_servers.remote]\nurl = \"https://r.example/mcp\"\nbearer_token_env_var = \"R_TOKEN\"\n",
    );
    write(&config.join("Code/User/mcp.json"), "{ this is not json");
    (home, config, project)
}

fn servers(home: &Path, config: &Path, project: &Path) -> Value {
    let output = Command::new(crate::support::binary())
        .args(["servers", "--json", "--project"])
        .arg(project)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", config)
        .env("TOOLSCOPE_CONFIG_DIR", config.join("toolscope"))
        .env_remove("CODEX_HOME")
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        crate::support::stderr(&output)
    );
    crate::support::json_of(&output)
}

fn found<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["found"]
        .as_array()
        .and_then(|found| found.iter().find(|server| server["name"] == name))
        .unwrap_or_else(|| panic!("{name} not found in {report}"))
}

#[test]
fn every_clients_servers_are_found_with_their_source() {
    let (home, config, project) = made_up_home("all");
    let report = servers(&home, &config, &project);

    let weather = found(&report, "weather");
    assert_eq!(weather["client"], "claude-desktop");
    assert_eq!(weather["server"], "npx -y weather-mcp");
    assert!(
        weather["path"]
            .as_str()
            .unwrap_or_default()
            .ends_with("Claude/claude_desktop_config.json")
    );
    assert!(
        !report.to_string().contains("s3cret"),
        "environment values are never listed"
    );
    assert!(
        found(&report, "broken")["error"]
            .as_str()
            .is_some_and(|e| e.contains("neither a command nor a URL"))
    );

    let linear = found(&report, "linear");
    assert_eq!(linear["client"], "cursor");
    assert_eq!(
        linear["server"], "https://mcp.linear.app/mcp",
        "without its query"
    );
    assert_eq!(linear["placeholders"][0], "${env:LINEAR}");

    assert_eq!(found(&report, "git")["client"], "claude-code");
    let db = found(&report, "db");
    assert_eq!(db["scope"]["project"], "/work/app");

    let github = found(&report, "github");
    assert_eq!(github["client"], "vs-code");
    assert_eq!(github["placeholders"][0], "${input:gh-token}");

    assert_eq!(found(&report, "local")["disabled"], true);
    assert_eq!(found(&report, "streamed")["transport"], "http");
    assert!(
        found(&report, "old")["notes"][0]
            .as_str()
            .is_some_and(|n| n.contains("SSE"))
    );
    assert_eq!(found(&report, "surf")["server"], "https://surf.example/mcp");
    assert_eq!(found(&report, "docs")["server"], "docs-mcp --port 0");
    assert_eq!(found(&report, "remote")["placeholders"][0], "${R_TOKEN}");

    let unreadable = report["unreadable"].as_array().cloned().unwrap_or_default();
    assert_eq!(unreadable.len(), 1, "{unreadable:?}");
    assert!(
        unreadable[0]["path"]
            .as_str()
            .unwrap_or_default()
            .ends_with("Code/User/mcp.json")
    );
    assert_eq!(report["saved"][0]["name"], "Built-in demo");
}

#[test]
fn the_listing_for_people_names_each_source_and_keeps_secrets_out() {
    let (home, config, project) = made_up_home("text");
    let output = Command::new(crate::support::binary())
        .args(["servers", "--project"])
        .arg(&project)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", &config)
        .env("TOOLSCOPE_CONFIG_DIR", config.join("toolscope"))
        .env_remove("CODEX_HOME")
        .output()
        .expect("runs");
    let text = crate::support::stdout(&output);
    assert!(text.contains("Found in other clients"), "{text}");
    assert!(text.contains("Claude Desktop"), "{text}");
    assert!(
        text.contains("resolved when it connects: ${input:gh-token}"),
        "{text}"
    );
    assert!(text.contains("cannot be imported"), "{text}");
    assert!(text.contains("Could not be read"), "{text}");
    assert!(
        !text.contains("s3cret") && !text.contains("token=abc"),
        "{text}"
    );
}

#[test]
fn a_server_found_in_another_client_is_called_by_name_with_its_placeholders_filled() {
    let root = std::env::temp_dir().join(format!("toolscope-import-{}-call", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (home, config) = (root.join("home"), root.join("config"));
    write(
        &config.join("Claude/claude_desktop_config.json"),
        r#"{"mcpServers": {
            "tasks": {"command": "python3", "args": ["${FIXTURE}"]},
            "keyed": {"command": "python3", "args": ["${input:key}"]}
        }}"#,
    );
    let fixture = crate::support::repo_root().join("tests/fixtures/task_server.py");
    let run = |args: &[&str]| {
        Command::new(crate::support::binary())
            .args(args)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", &config)
            .env("TOOLSCOPE_CONFIG_DIR", config.join("toolscope"))
            .env("TOOLSCOPE_DATA_DIR", root.join("data"))
            .env("FIXTURE", &fixture)
            .current_dir(&root)
            .output()
            .expect("runs")
    };
    let output = run(&[
        "call",
        "--server",
        "tasks",
        "slow_sum",
        "--args",
        r#"{"a": 1, "b": 2}"#,
        "--json",
    ]);
    assert_eq!(
        crate::support::status(&output),
        0,
        "{}",
        crate::support::stderr(&output)
    );
    assert_eq!(
        crate::support::json_of(&output)["response"]["value"]["structuredContent"]["sum"],
        3
    );

    let missing = run(&["tools", "--server", "keyed"]);
    assert_ne!(crate::support::status(&missing), 0);
    assert!(
        crate::support::stderr(&missing).contains("${input:key} (set TOOLSCOPE_INPUT_KEY)"),
        "{}",
        crate::support::stderr(&missing)
    );
    let unknown = run(&["tools", "--server", "nowhere"]);
    assert!(crate::support::stderr(&unknown).contains("no server is called \"nowhere\""));

    // A server saved in Toolscope with a placeholder (imported earlier) is filled the same
    // way on the command line as in the window.
    write(
        &config.join("toolscope/settings.json"),
        r#"{"servers": [{"name": "saved tasks", "config": {"transport": "stdio",
            "command": "python3", "args": ["${FIXTURE}"]}}]}"#,
    );
    let saved = run(&[
        "call",
        "--server",
        "saved tasks",
        "slow_sum",
        "--args",
        r#"{"a": 2, "b": 2}"#,
        "--json",
    ]);
    assert_eq!(
        crate::support::status(&saved),
        0,
        "{}",
        crate::support::stderr(&saved)
    );
    assert_eq!(
        crate::support::json_of(&saved)["response"]["value"]["structuredContent"]["sum"],
        4
    );
}

#[test]
fn a_saved_server_is_written_as_another_clients_entry_without_its_secrets() {
    let root = std::env::temp_dir().join(format!("toolscope-import-{}-export", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let settings = root.join("toolscope/settings.json");
    write(
        &settings,
        r#"{"servers": [{"name": "remote", "config": {"transport": "http",
            "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer t0k3n"}}}]}"#,
    );
    let run = |args: &[&str]| {
        Command::new(crate::support::binary())
            .args(args)
            .env("TOOLSCOPE_CONFIG_DIR", root.join("toolscope"))
            .output()
            .expect("runs")
    };
    let cursor =
        crate::support::stdout(&run(&["servers", "--export", "remote", "--for", "cursor"]));
    let entry: Value = serde_json::from_str(&cursor).expect("JSON to paste");
    assert_eq!(
        entry["mcpServers"]["remote"]["url"],
        "https://mcp.example.com/mcp"
    );
    assert_eq!(
        entry["mcpServers"]["remote"]["headers"]["Authorization"],
        "Bearer ${AUTHORIZATION}"
    );
    let codex = crate::support::stdout(&run(&[
        "servers",
        "--export",
        "remote",
        "--for",
        "codex",
        "--include-secrets",
    ]));
    assert!(
        codex.contains("[mcp_servers.remote]") && codex.contains("t0k3n"),
        "{codex}"
    );
    let wrong = run(&["servers", "--export", "remote", "--for", "emacs"]);
    assert_ne!(crate::support::status(&wrong), 0);
    assert!(crate::support::stderr(&wrong).contains("not a client"));
}

#[test]
fn a_claude_desktop_server_watched_through_toolscope_is_proxied_then_put_back_byte_for_byte() {
    let root = std::env::temp_dir().join(format!("toolscope-watch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (home, config, data) = (root.join("home"), root.join("config"), root.join("data"));
    let file = config.join("Claude/claude_desktop_config.json");
    let original = format!(
        "{{\n  \"mcpServers\": {{\n    \"calc\": {{\"command\": \"{}\", \"args\": [\"demo-server\"]}},\n    \"other\": {{\"command\": \"x\"}}\n  }}\n}}\n",
        crate::support::binary()
    );
    write(&file, &original);
    let toolscope = |args: &[&str]| {
        Command::new(crate::support::binary())
            .args(args)
            .current_dir(&root)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", &config)
            .env("TOOLSCOPE_CONFIG_DIR", config.join("toolscope"))
            .env("TOOLSCOPE_DATA_DIR", &data)
            .env_remove("CODEX_HOME")
            .output()
            .expect("runs")
    };
    let watched = toolscope(&["servers", "--watch", "calc", "--in", "claude-desktop"]);
    assert!(
        watched.status.success(),
        "{}",
        crate::support::stderr(&watched)
    );
    let shown = crate::support::stdout(&watched);
    assert!(
        shown.contains("- {\"command\"") && shown.contains("\"proxy\","),
        "the change is shown: {shown}"
    );
    assert!(
        crate::support::stderr(&watched).contains("watch-backups"),
        "where the copy is"
    );

    // Claude Desktop would now run this: the proxy in front of the same command.
    let rewritten: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("still JSON");
    let entry = &rewritten["mcpServers"]["calc"];
    let args: Vec<&str> = entry["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|arg| arg.as_str().expect("text"))
        .collect();
    // The data folder is not the default one, and the client gives its servers a bare
    // environment (Claude Desktop does): where to record is in the entry itself.
    let history = data.join("history.sqlite3");
    let history = history.to_str().expect("a UTF-8 path");
    assert_eq!(
        args[..6],
        ["proxy", "--history", history, "--name", "calc", "--"]
    );
    let mut client = Command::new(entry["command"].as_str().expect("command"))
        .args(&args)
        .env_clear()
        .env("HOME", root.join("elsewhere"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the watched command runs");
    {
        use std::io::{BufRead, Write};
        let mut stdin = client.stdin.take().expect("stdin");
        let mut stdout = std::io::BufReader::new(client.stdout.take().expect("stdout"));
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1"}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
        ] {
            writeln!(stdin, "{line}").expect("sent");
            let mut answer = String::new();
            stdout.read_line(&mut answer).expect("answered");
            assert!(answer.contains("\"result\""), "{answer}");
        }
    }
    assert!(client.wait().expect("ends").success());
    let sessions = crate::support::json_of(&toolscope(&["history", "sessions", "--json"]));
    assert_eq!(sessions[0]["server"], "calc", "{sessions}");
    assert_eq!(sessions[0]["client"], "claude-ai 0.1", "{sessions}");
    let listed = crate::support::stdout(&toolscope(&["servers"]));
    assert!(listed.contains("watched through Toolscope"), "{listed}");

    let unwatched = toolscope(&["servers", "--unwatch", "calc", "--in", "claude-desktop"]);
    assert!(
        unwatched.status.success(),
        "{}",
        crate::support::stderr(&unwatched)
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        original,
        "put back byte for byte"
    );
    let again = toolscope(&["servers", "--unwatch", "calc", "--in", "claude-desktop"]);
    assert!(!again.status.success());
    assert!(crate::support::stderr(&again).contains("is not watched"));
    let _ = std::fs::remove_dir_all(&root);
}
