//! The real binary against the built-in demo server over stdio.

use crate::support::{json_of, status, stderr, stdout, toolscope};
use serde_json::json;

#[test]
fn add_is_wrapped_mirrored_and_satisfies_its_contract() {
    let output = toolscope(&[
        "call",
        "--demo",
        "add",
        "--args",
        r#"{"a":1,"b":2}"#,
        "--json",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let doc = json_of(&output);
    assert_eq!(doc["protocol_version"], "2026-07-28");
    let result = &doc["response"]["value"];
    assert_eq!(result["structuredContent"], json!({"result": 3}));
    assert_eq!(result["content"][0]["text"], "3");
    let analysis = &doc["analysis"];
    assert_eq!(analysis["contract"]["kind"], "satisfied", "{analysis}");
    assert!(
        analysis["wrapping"]["explanation"]
            .as_str()
            .unwrap()
            .contains("wrapped")
    );
    assert_eq!(analysis["text_mirror"]["kind"], "matches", "{analysis}");
    assert!(doc["duration_ms"].is_u64());
}

#[test]
fn text_view_shows_both_panes_and_the_analysis() {
    let output = toolscope(&["call", "--demo", "add", "--arg", "a=1", "--arg", "b=2"]);
    assert_eq!(status(&output), 0);
    let text = stdout(&output);
    assert!(text.contains("content — what the model reads"), "{text}");
    assert!(text.contains("structuredContent — what the application reads"));
    assert!(text.contains("\"result\": 3"));
    assert!(text.contains("Contract satisfied"));
}

#[test]
fn broken_contract_exits_1_naming_each_violation() {
    let output = toolscope(&["call", "--demo", "broken_contract", "--json"]);
    assert_eq!(status(&output), 1);
    let doc = json_of(&output);
    let violations = doc["analysis"]["contract"]["violations"]
        .as_array()
        .unwrap();
    let places: Vec<(&str, &str)> = violations
        .iter()
        .map(|v| {
            (
                v["pointer"].as_str().unwrap(),
                v["keyword"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(places.contains(&("", "required")), "{places:?}");
    assert!(places.contains(&("/value", "type")));
    assert!(places.contains(&("/operation", "type")));
    let text = stdout(&toolscope(&["call", "--demo", "broken_contract"]));
    assert!(
        text.contains("/value should be an integer, but it is the string \"three\""),
        "{text}"
    );
}

#[test]
fn model_and_text_only_variants() {
    let doc = json_of(&toolscope(&[
        "call",
        "--demo",
        "add_model",
        "--args",
        r#"{"a":1,"b":2}"#,
        "--json",
    ]));
    assert_eq!(
        doc["response"]["value"]["structuredContent"],
        json!({"value": 3, "operation": "add", "is_success": true})
    );
    assert!(doc["analysis"]["wrapping"].is_null());
    let doc = json_of(&toolscope(&[
        "call",
        "--demo",
        "add_text_only",
        "--args",
        r#"{"a":1,"b":2}"#,
        "--json",
    ]));
    assert!(doc["response"]["value"].get("structuredContent").is_none());
    assert_eq!(doc["analysis"]["contract"]["kind"], "no_schema");
}

#[test]
fn tool_error_is_not_a_protocol_error() {
    let output = toolscope(&[
        "call", "--demo", "divide", "--arg", "a=1", "--arg", "b=0", "--json",
    ]);
    assert_eq!(status(&output), 1);
    let doc = json_of(&output);
    assert_eq!(doc["analysis"]["error_kind"]["kind"], "tool_error");
    assert_eq!(doc["response"]["value"]["isError"], true);
    // divide's output schema wraps a float in {"result": …}, but an error has no
    // structuredContent: nothing was wrapped, and nothing is said of it.
    assert!(doc["analysis"]["wrapping"].is_null(), "{}", doc["analysis"]);
    let output = toolscope(&["call", "--demo", "divide", "--arg", "a=1", "--arg", "b=0"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains("Wrapped"), "{text}");
}

#[test]
fn rows_chain_from_query_db_into_format_table() {
    let doc = json_of(&toolscope(&[
        "call",
        "--demo",
        "query_db",
        "--arg",
        "sql=SELECT name, city FROM users WHERE age < 30",
        "--json",
    ]));
    let rows = doc["response"]["value"]["structuredContent"]["rows"].clone();
    assert_eq!(doc["response"]["value"]["structuredContent"]["count"], 3);
    let args = json!({"data": rows}).to_string();
    let doc = json_of(&toolscope(&[
        "call",
        "--demo",
        "format_table",
        "--args",
        &args,
        "--json",
    ]));
    let table = doc["response"]["value"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(table.starts_with("| name | city |"), "{table}");
    assert!(table.contains("李雷"));
}

#[test]
fn chinese_image_and_list_results() {
    let doc = json_of(&toolscope(&[
        "call",
        "--demo",
        "weather_zh",
        "--arg",
        "city=北京",
        "--json",
    ]));
    assert_eq!(
        doc["response"]["value"]["structuredContent"]["城市"],
        "北京"
    );
    let doc = json_of(&toolscope(&[
        "call",
        "--demo",
        "chart",
        "--args",
        r#"{"values":[10,50,90]}"#,
        "--json",
    ]));
    assert_eq!(doc["analysis"]["content"][0]["kind"], "image");
    assert_eq!(doc["analysis"]["content"][0]["mime_type"], "image/png");
    let doc = json_of(&toolscope(&[
        "call", "--demo", "primes", "--arg", "n=3", "--json",
    ]));
    assert_eq!(
        doc["analysis"]["text_mirror"]["shape"], "one_block_per_item",
        "{}",
        doc["analysis"]
    );
}

#[test]
fn progress_is_reported_and_a_stuck_call_times_out() {
    let output = toolscope(&[
        "call",
        "--demo",
        "slow_task",
        "--arg",
        "steps=3",
        "--arg",
        "step_ms=50",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("progress 3/3"),
        "{}",
        stderr(&output)
    );
    let started = std::time::Instant::now();
    let output = toolscope(&[
        "call",
        "--demo",
        "slow_task",
        "--arg",
        "steps=2",
        "--arg",
        "step_ms=20000",
        "--timeout",
        "1",
    ]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("no answer within 1.0 s"),
        "{}",
        stderr(&output)
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
}

#[test]
fn large_result_arrives_whole() {
    let output = toolscope(&[
        "call",
        "--demo",
        "large_result",
        "--arg",
        "nodes=200000",
        "--json",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let doc = json_of(&output);
    assert_eq!(
        doc["response"]["value"]["structuredContent"]["count"],
        25_000
    );
    assert_eq!(doc["analysis"]["contract"]["kind"], "satisfied");
}

#[test]
fn tools_lists_both_schemas_and_raw_json() {
    let doc = json_of(&toolscope(&["tools", "--demo", "--json"]));
    let tools = doc["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 13);
    let add = tools.iter().find(|t| t["name"] == "add").unwrap();
    assert_eq!(add["outputSchema"]["title"], "addOutput");
    assert_eq!(add["inputSchema"]["type"], "object");
    let text = stdout(&toolscope(&["tools", "--demo"]));
    assert!(text.contains("output schema:"), "{text}");
    assert!(text.contains("destructive: yes (default)"), "{text}");
    assert!(text.contains("天气查询"));
}

#[test]
fn bad_input_gets_a_clear_message_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["call", "--demo", "nope"],
            "`nope` is not in the server's tools/list; sent anyway",
        ),
        (
            &["call", "--demo", "add", "--args", "{bad"],
            "not valid JSON",
        ),
        (
            &["call", "--demo", "add", "--args", "[1]"],
            "must be a JSON object",
        ),
        (
            &["tools", "--stdio", "no-such-program-xyz"],
            "no such program",
        ),
        (
            &["tools", "--stdio", "sh -c 'echo boom >&2; exit 3'"],
            "boom",
        ),
        (
            &[
                "tools",
                "--stdio",
                "sh -c 'while true; do echo garbage; sleep 0.2; done'",
                "--timeout",
                "2",
            ],
            "not JSON-RPC",
        ),
        (
            &["tools", "--stdio", "sleep 30", "--timeout", "1"],
            "did not answer the handshake",
        ),
        (
            &["tools", "--url", "http://127.0.0.1:1/mcp"],
            "connection refused",
        ),
        (&["tools", "--demo", "--timeout", "0"], "positive number"),
    ];
    for (args, expected) in cases {
        let started = std::time::Instant::now();
        let output = toolscope(args);
        assert_eq!(status(&output), 2, "{args:?}: {}", stderr(&output));
        assert!(
            stderr(&output).contains(expected),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{args:?} took too long"
        );
    }
}

#[test]
fn thousands_of_tools_arrive_over_several_pages() {
    let server = format!(
        "{} demo-server --extra-tools 1200",
        crate::support::binary()
    );
    let doc = json_of(&toolscope(&["tools", "--stdio", &server, "--json"]));
    assert_eq!(doc["tools"].as_array().unwrap().len(), 1213);
    assert_eq!(doc["pages"], 3);
    let output = toolscope(&[
        "call",
        "--stdio",
        &server,
        "generated_01199",
        "--arg",
        "text=hi",
        "--json",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(
        json_of(&output)["response"]["value"]["structuredContent"]["arguments"]["text"],
        "hi"
    );
}
