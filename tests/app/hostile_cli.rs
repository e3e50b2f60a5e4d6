//! The real binary against `tests/fixtures/hostile_server.py`, a server that puts terminal
//! escape sequences, C1 controls and bidi overrides in everything it sends, lists a tool with
//! invalid x-mcp-header annotations, and answers a tool it does not list.

use std::{
    io::{BufRead as _, BufReader},
    process::{Command, Output, Stdio},
};

use crate::support::{Background, json_of, repo_root, status, stderr, stdout, toolscope};

const CLEAR: &str = "\u{1b}[2J";
const TITLE: &str = "\u{1b}]0;pwned\u{7}";
const LINK: &str = "\u{1b}]8;;https://evil.example\u{1b}\\click\u{1b}]8;;\u{1b}\\";
const C1: &str = "\u{9b}31m";
const BIDI: &str = "\u{202e}gnp.exe\u{202c} \u{2066}iso\u{2069} \u{200f}\u{61c}";

fn server() -> String {
    let script = repo_root().join("tests/fixtures/hostile_server.py");
    format!("python3 {}", script.display())
}

/// Runs `toolscope <command> --stdio <hostile server> <rest>`.
fn hostile(command: &str, rest: &[&str]) -> Output {
    let server = server();
    let mut args = vec![command, "--stdio", server.as_str()];
    args.extend_from_slice(rest);
    toolscope(&args)
}

/// The same, with the fixture speaking protocol 2026-07-28.
fn modern(command: &str, rest: &[&str]) -> Output {
    let mut args = vec!["--env", "HOSTILE_PROTOCOL=2026-07-28"];
    args.extend_from_slice(rest);
    hostile(command, &args)
}

/// Everything the fixture sends, made visible the way the human output shows it.
fn visible(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if is_raw_control(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Listed here independently of the code under test: controls a terminal acts on.
fn is_raw_control(c: char) -> bool {
    let code = u32::from(c);
    (code < 0x20 && c != '\n' && c != '\t')
        || (0x7f..=0x9f).contains(&code)
        || matches!(code, 0x61c | 0x200e | 0x200f | 0x2028..=0x202e | 0x2066..=0x2069)
}

fn assert_no_raw_controls(output: &Output) {
    for (stream, text) in [("stdout", stdout(output)), ("stderr", stderr(output))] {
        if let Some((at, c)) = text.char_indices().find(|&(_, c)| is_raw_control(c)) {
            panic!(
                "raw {c:?} in {stream} at byte {at}: {:?}",
                &text[at.saturating_sub(40)..]
            );
        }
    }
}

#[test]
fn tools_shows_server_text_with_controls_made_visible() {
    let output = hostile("tools", &[]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_no_raw_controls(&output);
    let text = stdout(&output);
    for shown in [
        visible(&format!("hostile{TITLE} 6.6.6{CLEAR}")),
        visible(&format!("━━ evil{CLEAR}\u{202e} (Evil{TITLE})")),
        visible(&format!("   Line one {LINK}\n   Line two {C1}{BIDI}")),
    ] {
        assert!(text.contains(&shown), "{shown:?} missing from\n{text}");
    }
    // The schema stays JSON: every control is a JSON escape there.
    assert!(
        text.contains(r#""description": "schema \u001b[2J"#),
        "{text}"
    );
    assert!(
        text.contains(r"\u009b31m\u202egnp.exe\u202c \u2066iso"),
        "{text}"
    );
}

#[test]
fn call_shows_result_progress_log_and_error_text_with_controls_made_visible() {
    let name = format!("evil{CLEAR}\u{202e}");
    let output = toolscope(&["call", "--stdio", &server(), &name]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_no_raw_controls(&output);
    let text = stdout(&output);
    assert!(text.contains(&visible(&name)), "{text}");
    // The result text is wrapped in its column: look for pieces that fit in one.
    for piece in [
        "result \\u{1b}[2J\\u{1b}]0;pwned\\u{7}",
        "second line \\u{9b}31m",
    ] {
        assert!(text.contains(piece), "{piece:?} missing from\n{text}");
    }
    assert!(text.contains(r#""note": "structured \u001b[2J"#), "{text}");
    let diagnostics = stderr(&output);
    for shown in [
        visible(&format!(
            "progress 1/2 working {CLEAR}{TITLE}{LINK}{C1}{BIDI}"
        )),
        visible(&format!(
            "server log [warning log{TITLE}] startup log {CLEAR}{TITLE}{LINK}{C1}{BIDI}"
        )),
        visible(&format!("call log {CLEAR}")),
    ] {
        assert!(
            diagnostics.contains(&shown),
            "{shown:?} missing from\n{diagnostics}"
        );
    }

    let failed = hostile("call", &["fail"]);
    assert_eq!(status(&failed), 2, "{}", stderr(&failed));
    assert_no_raw_controls(&failed);
    assert!(stdout(&failed).contains(&visible(&format!("rpc error {CLEAR}{TITLE}"))));

    let crashed = hostile("call", &["crash"]);
    assert_eq!(status(&crashed), 2, "{}", stdout(&crashed));
    assert_no_raw_controls(&crashed);
    let tail = stderr(&crashed);
    assert!(
        tail.contains("Last lines the server wrote to stderr"),
        "{tail}"
    );
    assert!(
        tail.contains(&visible(&format!("stderr {CLEAR}{TITLE}"))),
        "{tail}"
    );
}

#[test]
fn json_output_is_the_exact_text_with_no_raw_controls() {
    let tools = hostile("tools", &["--json"]);
    assert_eq!(status(&tools), 0, "{}", stderr(&tools));
    assert_no_raw_controls(&tools);
    let doc = json_of(&tools);
    assert_eq!(doc["server"]["name"], format!("hostile{TITLE}"));
    assert_eq!(doc["tools"][0]["name"], format!("evil{CLEAR}\u{202e}"));
    assert_eq!(
        doc["tools"][0]["description"],
        format!("Line one {LINK}\nLine two {C1}{BIDI}")
    );
    // serde_json leaves C1 and bidi characters raw; they are written as \u escapes.
    assert!(stdout(&tools).contains(r"\u009b31m\u202egnp.exe"));

    let call = hostile("call", &["echo", "--json"]);
    assert_eq!(status(&call), 0, "{}", stderr(&call));
    assert_no_raw_controls(&call);
    let doc = json_of(&call);
    assert_eq!(
        doc["response"]["value"]["content"][0]["text"],
        format!("result {CLEAR}{TITLE}{LINK}{C1}{BIDI}\nsecond line {C1}")
    );
    assert_eq!(doc["listed"], true);
}

#[test]
fn an_unlisted_tool_is_sent_anyway_with_a_note() {
    let output = hostile("call", &["unlisted"]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("`unlisted` is not in the server's tools/list; sent anyway"),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).contains("you found the unlisted tool"));

    let json = hostile("call", &["unlisted", "--json"]);
    let doc = json_of(&json);
    assert_eq!(doc["listed"], false);
    assert_eq!(
        doc["response"]["value"]["content"][0]["text"],
        "you found the unlisted tool"
    );
    // The server's own answer decides the exit code.
    assert_eq!(status(&hostile("call", &["nothing_here"])), 1);

    // A server that refuses tools/list is still called.
    let unlisting = hostile("call", &["--env", "HOSTILE_NO_LIST=1", "echo"]);
    assert_eq!(status(&unlisting), 0, "{}", stderr(&unlisting));
    assert_no_raw_controls(&unlisting);
    let warning = stderr(&unlisting);
    assert!(
        warning.contains("tools/list failed: JSON-RPC error -32601: no list \\u{1b}[2J"),
        "{warning}"
    );
    assert!(warning.contains("`echo` is sent without its definition"));
    assert!(stdout(&unlisting).contains("second line"));
}

#[test]
fn invalid_x_mcp_header_tools_are_flagged_and_called_only_with_force() {
    let listed = modern("tools", &[]);
    assert_eq!(status(&listed), 0, "{}", stderr(&listed));
    let text = stdout(&listed);
    assert!(text.contains("protocol 2026-07-28"), "{text}");
    assert!(
        text.contains("━━ bad_headers  ⚠ invalid x-mcp-header"),
        "{text}"
    );
    assert!(text.contains("properties.ids.items: x-mcp-header is only allowed"));
    assert!(text.contains(r#"properties.region: x-mcp-header "Bad Region" is not an HTTP token"#));
    let doc = json_of(&modern("tools", &["--json"]));
    let flagged: Vec<&str> = doc["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["invalid_headers"].is_string())
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(flagged, ["bad_headers"]);

    let refused = modern("call", &["bad_headers"]);
    assert_eq!(status(&refused), 2);
    let why = stderr(&refused);
    assert!(why.contains("invalid x-mcp-header annotations"), "{why}");
    assert!(
        why.contains("Bad Region") && why.contains("--force"),
        "{why}"
    );
    assert!(!stdout(&refused).contains("bad_headers ran"));

    let forced = modern("call", &["bad_headers", "--force"]);
    assert_eq!(status(&forced), 0, "{}", stderr(&forced));
    assert!(stdout(&forced).contains("bad_headers ran"));

    // Before 2026-07-28 the annotation means nothing: the tool is called as any other.
    let legacy = hostile("call", &["bad_headers"]);
    assert_eq!(status(&legacy), 0, "{}", stderr(&legacy));
    assert!(!stdout(&hostile("tools", &[])).contains("invalid x-mcp-header"));
}

/// Starts the fixture as a Streamable HTTP server speaking 2026-07-28; returns it and its URL.
#[allow(clippy::expect_used, reason = "test setup fails loudly")]
fn hostile_http_server() -> (Background, String) {
    let mut child = Command::new("python3")
        .arg(repo_root().join("tests/fixtures/hostile_server.py"))
        .env("HOSTILE_HTTP", "1")
        .env("HOSTILE_PROTOCOL", "2026-07-28")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 runs the fixture");
    let stdout = child.stdout.take().expect("piped stdout");
    let server = Background(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the fixture prints its URL");
    let url = line
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_owned();
    (server, url)
}

#[test]
fn over_http_the_tool_rmcp_excludes_is_listed_flagged_and_forced_through() {
    let (_server, url) = hostile_http_server();
    let listed = toolscope(&["tools", "--url", &url]);
    assert_eq!(status(&listed), 0, "{}", stderr(&listed));
    assert_no_raw_controls(&listed);
    let text = stdout(&listed);
    assert!(text.contains("4 tool(s)"), "{text}");
    assert!(
        text.contains("━━ bad_headers  ⚠ invalid x-mcp-header"),
        "{text}"
    );

    let refused = toolscope(&["call", "--url", &url, "bad_headers"]);
    assert_eq!(status(&refused), 2, "{}", stderr(&refused));
    assert!(stderr(&refused).contains("--force"));
    let forced = toolscope(&["call", "--url", &url, "bad_headers", "--force"]);
    assert_eq!(status(&forced), 0, "{}", stderr(&forced));
    assert_no_raw_controls(&forced);
    assert!(stdout(&forced).contains("bad_headers ran"));
}

#[test]
fn deeply_nested_results_and_schemas_print() {
    let call = hostile("call", &["deep"]);
    assert_eq!(status(&call), 0, "{}", stderr(&call));
    let text = stdout(&call);
    // 120 levels are within the 256 shown, but more lines than a column shows.
    assert!(text.contains(r#""d": {"#), "{text}");
    assert!(
        text.contains("more lines (--json prints everything)"),
        "{text}"
    );
    let doc = json_of(&hostile("call", &["deep", "--json"]));
    let mut value = &doc["response"]["value"]["structuredContent"];
    let mut levels = 0;
    while let Some(inner) = value.get("d") {
        value = inner;
        levels += 1;
    }
    assert_eq!((levels, value.as_str()), (120, Some("bottom")));
    let tools = hostile("tools", &[]);
    assert_eq!(status(&tools), 0, "{}", stderr(&tools));
    assert!(stdout(&tools).contains("━━ deep_schema"));
    // The 10,000-level input schema as JSON: valid, and linear in size (indenting every level
    // made it 300 MB).
    let tools = hostile("tools", &["--json"]);
    assert_eq!(status(&tools), 0, "{}", stderr(&tools));
    assert!(
        tools.stdout.len() < 5_000_000,
        "{} bytes of JSON",
        tools.stdout.len()
    );
    let text = String::from_utf8(tools.stdout).unwrap();
    let doc = toolscope_core::deep_json::parse(&text).expect("valid JSON");
    toolscope_core::deep_json::drop_value(doc);
}

/// `read`, `prompt` and `complete` of answers nested 10,000 levels deep
/// (tests/fixtures/deep_answers_server.py): each printed, none a stack overflow.
#[test]
fn deep_reads_prompts_and_completions_are_printed() {
    let script = repo_root().join("tests/fixtures/deep_answers_server.py");
    let server = format!("python3 {}", script.display());
    let run = |args: &[&str]| {
        let mut all = args[..1].to_vec();
        all.extend(["--stdio", server.as_str()]);
        all.extend_from_slice(&args[1..]);
        toolscope(&all)
    };
    let read = run(&["read", "deep://meta"]);
    assert_eq!(status(&read), 0, "{}", stderr(&read));
    assert!(stdout(&read).contains("deep resource text"));
    let prompt = run(&["prompt", "deep_prompt"]);
    assert_eq!(status(&prompt), 0, "{}", stderr(&prompt));
    assert!(stdout(&prompt).contains("deep prompt text"));
    let completed = run(&[
        "complete",
        "--prompt",
        "deep_prompt",
        "--argument",
        "topic",
        "--value",
        "d",
    ]);
    assert_eq!(status(&completed), 0, "{}", stderr(&completed));
    assert!(stdout(&completed).contains("deep-two"));
}
