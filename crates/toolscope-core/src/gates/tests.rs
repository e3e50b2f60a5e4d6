//! The gate's reading of a log and its judgement, on logs written by hand.

use std::collections::HashMap;

use chrono::{TimeZone, Utc};

use super::*;
use crate::history::{LogLine, LogSide};

fn line(id: i64, side: LogSide, text: &str) -> LogLine {
    LogLine {
        id,
        at_ms: u64::try_from(id).unwrap() * 10,
        side,
        text: text.to_owned(),
        flag: None,
        call_id: None,
    }
}

fn log(lines: &[(LogSide, &str)]) -> Vec<LogLine> {
    lines
        .iter()
        .zip(1..)
        .map(|((side, text), id)| line(id, *side, text))
        .collect()
}

use LogSide::{ToClient, ToServer};

#[test]
fn a_cancelled_request_a_listen_stream_and_a_discover_the_server_does_not_know_are_not_findings() {
    let lines = log(&[
        (
            ToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#,
        ),
        (
            ToClient,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#,
        ),
        (
            ToServer,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"slow"}}"#,
        ),
        (
            ToServer,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#,
        ),
        (ToServer, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#),
        (
            ToServer,
            r#"{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{}}"#,
        ),
    ]);
    let reading = read_log(&lines, &HashMap::new(), false);
    assert!(reading.rejected.is_empty(), "{:?}", reading.rejected);
    assert_eq!(reading.unanswered.len(), 1, "{:?}", reading.unanswered);
    assert_eq!(reading.unanswered[0].method, "ping");
    assert_eq!(reading.unanswered[0].id, "2");
}

#[test]
fn a_servers_request_the_client_never_answered_and_a_kept_calls_answer_are_told_apart() {
    let mut lines = log(&[
        (
            ToServer,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add"}}"#,
        ),
        (
            ToClient,
            r#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}"#,
        ),
        (ToClient, ""),
    ]);
    // The call's answer, kept as call #40 of the history.
    lines[2].call_id = Some(40);
    let answered = HashMap::from([(40, "7".to_owned())]);
    let reading = read_log(&lines, &answered, true);
    assert_eq!(reading.unanswered.len(), 1, "{:?}", reading.unanswered);
    let request = &reading.unanswered[0];
    assert!(
        request.from_server,
        "the server's own id 7, not the client's"
    );
    assert_eq!(request.method, "sampling/createMessage");
    assert_eq!(reading.deprecated.len(), 1);
    assert_eq!(reading.deprecated[0].feature, "sampling");
    // Not deprecated before 2026-07-28.
    assert!(read_log(&lines, &answered, false).deprecated.is_empty());
}

#[test]
fn a_paged_tool_list_is_one_list_and_a_new_first_page_starts_the_next() {
    let page = |id: u32, cursor: Option<&str>| match cursor {
        Some(cursor) => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"cursor":"{cursor}"}}}}"#
        ),
        None => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#),
    };
    let tools = |id: u32, names: &[&str], next: Option<&str>| {
        let tools: Vec<String> = names
            .iter()
            .map(|name| format!(r#"{{"name":"{name}","inputSchema":{{"type":"object"}}}}"#))
            .collect();
        let next = next.map_or_else(String::new, |next| format!(r#","nextCursor":"{next}""#));
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{}]{next}}}}}"#,
            tools.join(",")
        )
    };
    let texts = [
        (ToServer, page(1, None)),
        (ToClient, tools(1, &["a", "b"], Some("p2"))),
        (ToServer, page(2, Some("p2"))),
        (ToClient, tools(2, &["c"], None)),
        (ToServer, page(3, None)),
        (ToClient, tools(3, &["a"], None)),
    ];
    let lines: Vec<LogLine> = texts
        .iter()
        .zip(1..)
        .map(|((side, text), id)| line(id, *side, text))
        .collect();
    let reading = read_log(&lines, &HashMap::new(), false);
    let names: Vec<Vec<&str>> = reading
        .tool_lists
        .iter()
        .map(|list| list.tools.iter().map(|tool| tool.name.as_str()).collect())
        .collect();
    assert_eq!(names, vec![vec!["a", "b", "c"], vec!["a"]]);
    assert!(reading.unanswered.is_empty());
}

#[test]
fn a_gap_in_the_log_and_a_line_not_json_are_said() {
    let mut lines = log(&[
        (ToServer, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
        (ToClient, ""),
        (ToClient, "not json"),
    ]);
    lines[1].flag = Some("3 line(s) passed here but were not kept".to_owned());
    lines[2].flag = Some("not JSON".to_owned());
    let reading = read_log(&lines, &HashMap::new(), false);
    assert!(reading.gaps);
    assert_eq!(reading.bad_lines.len(), 1);
    assert_eq!(reading.bad_lines[0].side, ToClient);
}

#[test]
fn since_takes_a_time_a_date_or_an_age() {
    let now = Utc.with_ymd_and_hms(2026, 12, 5, 12, 0, 0).unwrap();
    let at = |text: &str| parse_since(text, now).map(|time| time.to_rfc3339());
    assert_eq!(at("2h").unwrap(), "2026-12-05T10:00:00+00:00");
    assert_eq!(at("1d").unwrap(), "2026-12-04T12:00:00+00:00");
    assert_eq!(at("2026-12-01").unwrap(), "2026-12-01T00:00:00+00:00");
    assert_eq!(
        at("2026-12-05T09:30:00+01:00").unwrap(),
        "2026-12-05T08:30:00+00:00"
    );
    for wrong in ["yesterday", "5w", "", "99999999999999999999d"] {
        let error = at(wrong).unwrap_err().to_string();
        assert!(error.contains("is not a time"), "{error}");
    }
}

#[test]
fn a_recording_is_judged_on_its_calls_and_every_rule_is_in_sarif() {
    let mut store = crate::history::in_memory_store().unwrap();
    let row = |tool: &str, verdict, listed, duration_ms| crate::history::NewCall {
        kind: crate::history::CallKind::Call,
        started_at: "2026-12-05T08:00:00.000Z".to_owned(),
        duration_ms: Some(duration_ms),
        server: "srv".to_owned(),
        server_version: None,
        protocol_version: Some("2025-11-25".to_owned()),
        server_info: None,
        tool: tool.to_owned(),
        arguments: "{}".to_owned(),
        request_id: Some("1".to_owned()),
        response: None,
        duplicate_responses: 0,
        output_schema: None,
        listed,
        verdict,
        failure: Some("timed out after 30 s".to_owned()),
        rounds: None,
        client: None,
    };
    use crate::history::Verdict;
    store.record(&row("ok", Verdict::Ok, true, 5)).unwrap();
    store
        .record(&row("late", Verdict::Timeout, true, 30_000))
        .unwrap();
    store.record(&row("hidden", Verdict::Ok, false, 5)).unwrap();
    let recorded = RecordedSession::from_recording(store.as_ref(), "calls.json").unwrap();
    let options = GateOptions {
        max_ms: Some(1000),
        against: Some(crate::interface::InterfaceSnapshot::of_tools(
            crate::interface::ServerIdentity::default(),
            Vec::new(),
        )),
    };
    let judged = judge(&recorded, store.as_ref(), &options).unwrap();
    let rules: Vec<Rule> = judged.findings.iter().map(|finding| finding.rule).collect();
    assert_eq!(
        rules,
        vec![Rule::Unanswered, Rule::SlowCall, Rule::UnlistedTool],
        "{:#?}",
        judged.findings
    );
    assert!(judged.findings[0].message.contains("timed out after 30 s"));
    assert!(
        judged.notes[0].contains("--against needs a session"),
        "{:?}",
        judged.notes
    );
    let sarif = sarif_log(std::slice::from_ref(&judged));
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(rules.len(), Rule::ALL.len());
    assert_eq!(
        sarif["runs"][0]["artifacts"][0]["location"]["uri"],
        "calls.json"
    );
    let junit = junit_xml(std::slice::from_ref(&judged));
    assert!(junit.contains("tests=\"9\" failures=\"3\""), "{junit}");
}

#[test]
fn a_long_log_is_read_a_page_at_a_time_and_an_answer_pages_later_still_counts() {
    let mut store = crate::history::in_memory_store().unwrap();
    let session = store
        .begin_proxy_session("srv", "2026-12-05T08:00:00.000Z")
        .unwrap();
    let new_line = |side, text: String| crate::history::NewLogLine {
        at_ms: 1,
        side,
        text,
        flag: None,
        call_id: None,
    };
    let mut lines = vec![
        new_line(
            ToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_owned(),
        ),
        new_line(
            ToServer,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.to_owned(),
        ),
    ];
    lines.extend((0..25_000).map(|n| {
        new_line(
            ToClient,
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"{n}"}}}}"#
            ),
        )
    }));
    lines.push(new_line(
        ToClient,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_owned(),
    ));
    store.append_proxy_log(session, &lines).unwrap();
    store
        .describe_proxy_session(
            session,
            &crate::history::SessionDescription {
                protocol_version: Some("2026-07-28".to_owned()),
                ..Default::default()
            },
        )
        .unwrap();
    let recorded = RecordedSession::from_session(store.as_ref(), session).unwrap();
    let log = recorded.log.unwrap();
    let unanswered: Vec<&str> = log.unanswered.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(unanswered, ["2"], "ping 1 was answered 25,000 lines later");
    assert_eq!(log.deprecated.len(), 1);
    assert_eq!(log.deprecated[0].count, 25_000);
}

#[test]
fn a_request_waiting_in_a_running_session_is_said_and_one_never_answered_is_found() {
    let reading = LogReading {
        unanswered: vec![LoggedRequest {
            id: "7".into(),
            method: "tools/call".into(),
            subject: Some("slow".into()),
            at_ms: 1200,
            from_server: false,
        }],
        ..LogReading::default()
    };
    let (mut findings, mut notes) = (Vec::new(), Vec::new());
    judge::log_findings(&reading, false, &mut findings, &mut notes);
    assert!(findings.is_empty(), "{findings:?}");
    assert!(notes[0].contains("is waiting for its answer"), "{notes:?}");
    judge::log_findings(&reading, true, &mut findings, &mut notes);
    assert_eq!(findings.len(), 1);
    assert!(
        findings[0]
            .message
            .contains("was never answered before the session ended"),
        "{findings:?}"
    );
}

#[test]
fn a_request_the_server_cancelled_itself_is_not_left_unanswered() {
    let lines = log(&[
        (
            ToClient,
            r#"{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{}}"#,
        ),
        (
            ToClient,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#,
        ),
        // The client cancelling a request of the same id does not touch the server's.
        (
            ToServer,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}"#,
        ),
        (
            ToClient,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#,
        ),
    ]);
    let reading = read_log(&lines, &HashMap::new(), false);
    assert_eq!(reading.unanswered.len(), 1, "{:?}", reading.unanswered);
    assert_eq!(reading.unanswered[0].method, "tools/call");
}

#[test]
fn lines_not_json_rpc_are_one_finding_per_side_and_a_blank_line_none() {
    let lines = log(&[
        (ToClient, "debug: starting"),
        (ToClient, "   "),
        (ToClient, "debug: ready"),
        (ToServer, "{oops"),
    ]);
    let reading = read_log(&lines, &HashMap::new(), false);
    let counts: Vec<(LogSide, u64)> = reading
        .bad_lines
        .iter()
        .map(|line| (line.side, line.count))
        .collect();
    assert_eq!(counts, [(ToClient, 2), (ToServer, 1)]);
}

#[test]
fn sarif_keeps_at_most_its_bound_of_results_and_counts_the_rest_with_stable_fingerprints() {
    let judged = Judgement {
        source: Source::Recording {
            path: "C:\\runs\\run #3.json".to_owned(),
        },
        calls: MAX_SARIF_RESULTS + 2,
        findings: (0..MAX_SARIF_RESULTS + 2)
            .map(|n| Finding::new(Rule::ToolError, format!("failure {n}")).tool("flaky"))
            .collect(),
        notes: Vec::new(),
    };
    let sarif = sarif_log(std::slice::from_ref(&judged));
    let schema: serde_json::Value = serde_json::from_str(include_str!(
        "../../../../tests/fixtures/sarif-schema-2.1.0.json"
    ))
    .unwrap();
    let validator = jsonschema::options().build(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "not SARIF 2.1.0: {errors:#?}");
    let run = &sarif["runs"][0];
    assert_eq!(run["results"].as_array().unwrap().len(), MAX_SARIF_RESULTS);
    let said = run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
        .as_str()
        .unwrap();
    assert!(said.starts_with("2 more finding(s) left out"), "{said}");
    assert_eq!(
        run["artifacts"][0]["location"]["uri"],
        "file:///C:/runs/run%20%233.json"
    );
    let print = |n: usize| run["results"][n]["partialFingerprints"]["toolscopeFinding/v1"].clone();
    assert_ne!(print(0), print(1), "each finding of a tool its own");
    let again = sarif_log(std::slice::from_ref(&judged));
    assert_eq!(
        again["runs"][0]["results"][0]["partialFingerprints"],
        run["results"][0]["partialFingerprints"],
        "the same from one run to the next"
    );
}

#[test]
fn calls_are_matched_by_what_they_sent_whatever_the_order_of_its_keys() {
    use super::session_diff::request_key;
    assert_eq!(
        request_key(r#"{"b": 2, "a": {"x": 1}}"#),
        request_key(r#"{"a":{"x":1},"b":2}"#)
    );
    assert_ne!(request_key(r#"{"a": 1}"#), request_key(r#"{"a": 2}"#));
    assert_eq!(request_key("not json"), "not json");
}

#[test]
fn calls_whose_rows_the_history_let_go_are_not_judged_unanswered() {
    let mut lines = log(&[
        (
            ToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"old"}}"#,
        ),
        (ToClient, ""),
        (ToServer, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#),
    ]);
    // The answer was kept as call #9, which the size cap deleted since.
    lines[1].call_id = Some(9);
    let reading = read_log(&lines, &HashMap::new(), false);
    assert_eq!(reading.answers_of_calls_gone, 1);
    let methods: Vec<&str> = reading
        .unanswered
        .iter()
        .map(|request| request.method.as_str())
        .collect();
    assert_eq!(methods, ["ping"], "a ping has no row: still judged");
}
