use std::time::Duration;

use serde_json::{Value, json};

use super::*;
use crate::{
    analysis::{CallAnalysis, CallResponse, ProtocolEra, analyze_call},
    session::RawResponse,
};

const ISSUE_EXAMPLE: &str = r#"
[server]            # exactly one of: demo = true | stdio = "cmd line" (+ env, cwd) | url = "…" (+ headers)
stdio = "python3 server.py"

[[case]]
name = "add wraps a scalar"
tool = "add"
arguments = { a = 1, b = 2 }
[case.expect]                   # every key optional
is_error = false
contract = "satisfied"          # or "violated"
structured = { result = 3 }     # structuredContent equals (after JSON parsing)
pointer = { "/result" = 3 }     # selected values equal
text_contains = ["3"]
text_mirror = "matched"         # or "differs" / "absent"
max_duration_ms = 2000
"#;

fn answered(result: &Value, schema: Option<&Value>) -> (RawResponse, CallAnalysis) {
    let response = RawResponse::new_result("1", result);
    let analysis = analyze_call(
        CallResponse::Result(response.member()),
        schema,
        ProtocolEra::Modern,
    );
    (response, analysis)
}

fn failures_of(expect: &Expect, result: &Value, schema: Option<&Value>) -> Vec<Failure> {
    let (response, analysis) = answered(result, schema);
    expect.check(&Answered {
        response: &response,
        analysis: &analysis,
        duration: Duration::from_millis(5),
    })
}

fn add_result(sum: i64) -> Value {
    json!({"content": [{"type": "text", "text": sum.to_string()}], "structuredContent": {"result": sum}})
}

fn add_schema() -> Value {
    json!({"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]})
}

#[test]
fn the_issue_example_reads_as_written() {
    let file = CaseFile::parse(ISSUE_EXAMPLE).unwrap();
    let server = file.server.unwrap();
    assert!(matches!(
        &server.target,
        CaseTarget::Stdio { command_line, .. } if command_line == "python3 server.py"
    ));
    let case = &file.cases[0];
    assert_eq!(case.name, "add wraps a scalar");
    assert_eq!(
        Value::Object(case.arguments.clone()),
        json!({"a": 1, "b": 2})
    );
    assert_eq!(case.expect.is_error, Some(false));
    assert_eq!(case.expect.contract, Some(ContractExpect::Satisfied));
    assert_eq!(case.expect.structured, Some(json!({"result": 3})));
    assert_eq!(case.expect.pointer, vec![("/result".to_owned(), json!(3))]);
    assert_eq!(case.expect.text_mirror, Some(MirrorExpect::Matched));
    assert_eq!(case.expect.max_duration_ms, Some(2000));
}

#[test]
fn a_matching_result_passes_every_expectation() {
    let file = CaseFile::parse(ISSUE_EXAMPLE).unwrap();
    let failures = failures_of(&file.cases[0].expect, &add_result(3), Some(&add_schema()));
    assert_eq!(failures, vec![]);
}

#[test]
fn each_unmet_expectation_is_named_with_expected_and_actual() {
    let file = CaseFile::parse(ISSUE_EXAMPLE).unwrap();
    let failures = failures_of(&file.cases[0].expect, &add_result(4), Some(&add_schema()));
    let keys: Vec<&str> = failures.iter().map(|f| f.expectation.as_str()).collect();
    assert_eq!(keys, ["structured", "pointer /result", "text_contains"]);
    assert_eq!(failures[0].expected, r#"{"result":3}"#);
    assert_eq!(
        failures[0].actual,
        r#"{"result":4} (at /result: expected 3, the result has 4)"#
    );
    assert_eq!(failures[1].sentence(), "pointer /result: expected 3, got 4");
}

#[test]
fn contract_error_and_mirror_expectations() {
    let expect = Expect {
        is_error: Some(false),
        contract: Some(ContractExpect::Satisfied),
        text_mirror: Some(MirrorExpect::Matched),
        ..Expect::default()
    };
    let broken =
        json!({"content": [{"type": "text", "text": "y"}], "structuredContent": {"result": "x"}});
    let failures = failures_of(&expect, &broken, Some(&add_schema()));
    let keys: Vec<&str> = failures.iter().map(|f| f.expectation.as_str()).collect();
    assert_eq!(keys, ["contract", "text_mirror"]);

    let tool_error =
        json!({"content": [{"type": "text", "text": "division by zero"}], "isError": true});
    let failures = failures_of(&expect, &tool_error, None);
    assert_eq!(failures[0].expectation, "is_error");
    assert_eq!(failures[0].actual, "true (division by zero)");
}

#[test]
fn a_protocol_error_fails_unless_expected() {
    let response =
        RawResponse::new_rpc_error("1", &json!({"code": -32602, "message": "Unknown tool"}));
    let analysis = analyze_call(
        CallResponse::RpcError(response.member()),
        None,
        ProtocolEra::Modern,
    );
    let answer = Answered {
        response: &response,
        analysis: &analysis,
        duration: Duration::ZERO,
    };
    let failures = Expect::default().check(&answer);
    assert_eq!(failures.len(), 1);
    assert!(failures[0].actual.contains("Unknown tool"), "{failures:?}");
    let expected = Expect {
        protocol_error: Some(true),
        ..Expect::default()
    };
    assert_eq!(expected.check(&answer), vec![]);
}

#[test]
fn mistakes_in_a_case_file_say_where_and_what() {
    let cases = [
        ("[server]\ndemo = true\nstdio = \"x\"\n", "exactly one of"),
        (
            "[[case]]\nname = \"a\"\ntool = \"t\"\n[case.expect]\nstrucutred = 1\n",
            "unknown field `strucutred`",
        ),
        (
            "[[case]]\nname = \"a\"\ntool = \"t\"\n[[case]]\nname = \"a\"\ntool = \"u\"\n",
            "same name",
        ),
        (
            "[[case]]\nname = \"a\"\ntool = \"t\"\n[case.expect]\ncontract = \"kept\"\n",
            "unknown variant `kept`",
        ),
        (
            "[[case]]\nname = \"a\"\ntool = \"t\"\n[case.expect]\npointer = { \"result\" = 3 }\n",
            "must start with /",
        ),
        (
            "[[case]]\nname = \"a\"\ntool = \"t\"\narguments_json = \"[1]\"\n",
            "must be a JSON object",
        ),
        (
            "[server]\nurl = \"http://x\"\nenv = { A = \"1\" }\n",
            "stdio servers",
        ),
        ("[[case]\n", "not a valid case file"),
    ];
    for (text, wanted) in cases {
        let error = CaseFile::parse(text).unwrap_err().to_string();
        assert!(
            error.contains(wanted),
            "{text:?} gave {error:?}, not {wanted:?}"
        );
    }
}

#[test]
fn json_text_holds_what_toml_cannot() {
    let text = "[[case]]\nname = \"a\"\ntool = \"t\"\narguments_json = '{\"x\": null}'\n\
                [case.expect]\nstructured_json = '{\"y\": null}'\n";
    let file = CaseFile::parse(text).unwrap();
    assert_eq!(
        Value::Object(file.cases[0].arguments.clone()),
        json!({"x": null})
    );
    assert_eq!(file.cases[0].expect.structured, Some(json!({"y": null})));
}

#[test]
fn a_saved_case_reads_back_and_passes_against_its_own_result() {
    let (response, analysis) = answered(&add_result(3), Some(&add_schema()));
    let arguments = json!({"a": 1, "b": 2, "note": null});
    let Value::Object(arguments) = arguments else {
        unreachable!()
    };
    let text = case_toml(
        "add: 1 + 2",
        "add",
        &arguments,
        ExpectFrom::Result {
            response: &response,
            analysis: &analysis,
        },
    )
    .unwrap();
    let file = CaseFile::parse(&format!(
        "{}{text}",
        server_toml(&crate::session::ServerConfig::demo(), true)
    ))
    .unwrap();
    assert_eq!(file.server, Some(CaseServer::demo()));
    let case = &file.cases[0];
    assert_eq!(case.tool, "add");
    assert_eq!(
        Value::Object(case.arguments.clone()),
        json!({"a": 1, "b": 2, "note": null})
    );
    assert_eq!(case.expect.structured, Some(json!({"result": 3})));
    assert_eq!(case.expect.contract, Some(ContractExpect::Satisfied));
    let failures = case.expect.check(&Answered {
        response: &response,
        analysis: &analysis,
        duration: Duration::ZERO,
    });
    assert_eq!(failures, vec![]);
}

#[test]
fn a_new_case_file_keeps_secrets_out() {
    let config = crate::session::ServerConfig::Http {
        oauth_client_id: None,
        oauth_client_secret: None,
        oauth: Default::default(),
        url: "http://127.0.0.1:9/mcp".to_owned(),
        headers: [("Authorization".to_owned(), "Bearer s3cret".to_owned())].into(),
    };
    let text = server_toml(&config, false);
    assert!(!text.contains("s3cret"), "{text}");
    assert!(text.contains("${AUTHORIZATION}"), "{text}");
    let file = CaseFile::parse(&text).unwrap();
    let resolved = file
        .server
        .unwrap()
        .config(std::path::Path::new("."), &|name| {
            (name == "AUTHORIZATION").then(|| "Bearer t".to_owned())
        })
        .unwrap();
    assert_eq!(
        resolved,
        crate::session::ServerConfig::Http {
            oauth_client_id: None,
            oauth_client_secret: None,
            oauth: Default::default(),
            url: "http://127.0.0.1:9/mcp".to_owned(),
            headers: [("Authorization".to_owned(), "Bearer t".to_owned())].into(),
        }
    );
}

#[test]
fn appending_keeps_the_file_and_refuses_a_duplicate_name() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("cases.toml");
    let server = server_toml(&crate::session::ServerConfig::demo(), true);
    let case = case_toml("one", "add", &serde_json::Map::new(), ExpectFrom::Nothing).unwrap();
    append_case(&path, &server, &case).unwrap();
    let error = append_case(&path, &server, &case).unwrap_err();
    assert!(error.to_string().contains("same name"), "{error}");
    let file = CaseFile::read(&path).unwrap();
    assert_eq!(file.cases.len(), 1);
}

#[test]
fn a_deep_result_is_saved_as_json_text_and_reads_back() {
    let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
    let result = format!(
        r#"{{"content": [{{"type": "text", "text": "x"}}], "structuredContent": {{"v": {deep}}}}}"#
    );
    let result: Value = crate::deep_json::parse(&result).unwrap();
    let (response, analysis) = answered(&result, None);
    let text = case_toml(
        "deep",
        "t",
        &serde_json::Map::new(),
        ExpectFrom::Result {
            response: &response,
            analysis: &analysis,
        },
    )
    .unwrap();
    assert!(text.contains("structured_json"), "{}", &text[..200]);
    let file = CaseFile::parse(&text).unwrap();
    let failures = file.cases[0].expect.check(&Answered {
        response: &response,
        analysis: &analysis,
        duration: Duration::ZERO,
    });
    assert_eq!(failures, vec![]);
}

#[test]
fn a_url_with_credentials_is_written_without_them() {
    let config = crate::session::ServerConfig::Http {
        oauth_client_id: None,
        oauth_client_secret: None,
        oauth: Default::default(),
        url: "https://me:pw@example.com/mcp?api_key=s3cret".to_owned(),
        headers: Default::default(),
    };
    let text = server_toml(&config, false);
    assert!(!text.contains("s3cret") && !text.contains("pw@"), "{text}");
    assert!(text.contains("url = \"https://example.com/mcp\""), "{text}");
}

#[test]
fn a_timeout_past_a_day_is_refused_not_a_panic() {
    let error = CaseFile::parse("[server]\ndemo = true\ntimeout_seconds = 1e20\n").unwrap_err();
    assert!(error.to_string().contains("at most"), "{error}");
}

#[test]
fn a_case_says_how_its_call_is_sent_as_call_does_with_force_and_task() {
    let file = CaseFile::parse(
        "[server]\ndemo = true\n\n[[case]]\nname = \"plain\"\ntool = \"add\"\n\n\
         [[case]]\nname = \"both\"\ntool = \"add\"\nforce = true\ntask = true\n",
    )
    .unwrap();
    assert_eq!(file.cases[0].wish, crate::engine::CallWish::default());
    assert_eq!(
        file.cases[1].wish,
        crate::engine::CallWish {
            force: true,
            prefer_task: true
        }
    );
}

#[test]
fn a_case_says_how_to_answer_what_the_server_asks() {
    let file = CaseFile::parse(
        "[server]\ndemo = true\n\n[[case]]\nname = \"a\"\ntool = \"t\"\n\
         [case.answers]\nelicit = \"accept-defaults\"\nsample = \"hi\"\n\n\
         [[case]]\nname = \"b\"\ntool = \"t\"\n[case.answers]\nelicit_answer = { n = 1 }\n",
    )
    .unwrap();
    assert_eq!(
        file.cases[0].answers,
        CaseAnswers {
            elicit: Some(crate::answers::ElicitChoice::AcceptDefaults),
            elicit_answer: None,
            sample: Some("hi".to_owned()),
        }
    );
    assert_eq!(file.cases[1].answers.elicit_answer, Some(json!({"n": 1})));
    let side = CaseAsker::default().client_side(&file.cases);
    assert!(side.declared.elicitation_form && side.declared.sampling);
    assert!(!side.declared.elicitation_url);
    let both = CaseFile::parse(
        "[[case]]\nname = \"a\"\ntool = \"t\"\n[case.answers]\nelicit = \"decline\"\n\
         elicit_answer = { n = 1 }\n",
    );
    assert!(
        both.unwrap_err()
            .0
            .contains("give elicit or elicit_answer, not both"),
        "both"
    );
}

#[test]
fn a_case_names_one_of_a_tool_a_resource_or_a_prompt() {
    let file = CaseFile::parse(
        "[[case]]\nname = \"r\"\nresource = \"demo://a\"\n\
         [[case]]\nname = \"p\"\nprompt = \"review\"\narguments = { code = \"x\" }\n",
    )
    .unwrap();
    let kinds: Vec<_> = file.cases.iter().map(|case| case.kind).collect();
    assert_eq!(
        kinds,
        [
            crate::history::CallKind::Read,
            crate::history::CallKind::Prompt
        ]
    );
    let both = CaseFile::parse("[[case]]\nname = \"x\"\ntool = \"a\"\nprompt = \"b\"\n");
    assert!(both.unwrap_err().0.contains("give one of tool"));
    let none = CaseFile::parse("[[case]]\nname = \"x\"\n");
    assert!(none.unwrap_err().0.contains("give one of tool"));
    let read_arguments =
        CaseFile::parse("[[case]]\nname = \"x\"\nresource = \"a\"\narguments = { a = \"1\" }\n");
    assert!(
        read_arguments
            .unwrap_err()
            .0
            .contains("a read has no arguments")
    );
    let number = CaseFile::parse("[[case]]\nname = \"x\"\nprompt = \"a\"\narguments = { a = 1 }\n");
    assert!(number.unwrap_err().0.contains("arguments are strings"));
    let task = CaseFile::parse("[[case]]\nname = \"x\"\nprompt = \"a\"\ntask = true\n");
    assert!(
        task.unwrap_err()
            .0
            .contains("task apply to tool calls only")
    );
}
