//! End-to-end tests of `analyze_call`.

use super::*;
use crate::json_doc::JsonDoc;
use serde_json::json;
use std::time::Instant;

fn add_schema() -> Value {
    json!({"type": "object", "properties": {"result": {"type": "integer", "title": "Result"}},
           "required": ["result"], "title": "addOutput"})
}

fn legacy(result: &Value, schema: Option<&Value>) -> CallAnalysis {
    analyze_call(
        CallResponse::Result(JsonDoc::from_value(result).root()),
        schema,
        ProtocolEra::Legacy,
    )
}

#[test]
fn success_with_wrapped_scalar() {
    let result = json!({"content": [{"type": "text", "text": "3"}],
                        "structuredContent": {"result": 3}, "isError": false});
    let schema = add_schema();
    let a = legacy(&result, Some(&schema));
    assert_eq!(a.error_kind, ErrorKind::Success);
    assert_eq!(
        a.contract,
        ContractCheck::Satisfied {
            dialect: Dialect::Draft2020_12
        }
    );
    assert_eq!(
        a.text_mirror,
        TextMirror::Matches {
            shape: MirrorShape::UnwrappedResult
        }
    );
    let w = a.wrapping.clone().unwrap();
    assert_eq!(
        w.signals,
        vec![
            WrapSignal::ResultOnlySchema,
            WrapSignal::ResultOnlyStructuredContent
        ]
    );
    assert!(a.is_conforming_success());
    assert!(a.notes.is_empty(), "{:?}", a.notes);
    let lines = a.summary_lines();
    assert_eq!(lines[0], "Success: the tool ran and returned a result");
    assert_eq!(lines[1], "Content: 1 block (1 text)");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Wrapped result: a scalar/list return"))
    );
    assert!(lines.iter().any(|l| l.starts_with("Contract satisfied")));
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["error_kind"]["kind"], "success");
    assert_eq!(json["contract"]["kind"], "satisfied");
    assert_eq!(json["contract"]["dialect"], "2020-12");
    assert_eq!(json["text_mirror"]["shape"], "unwrapped_result");
}

#[test]
fn fastmcp_meta_flag_wrapping_without_schema() {
    let result = json!({"content": [{"type": "text", "text": "1"}, {"type": "text", "text": "2"}],
        "structuredContent": {"result": [1, 2]}, "_meta": {"fastmcp": {"wrap_result": true}}});
    let a = legacy(&result, None);
    let w = a.wrapping.clone().unwrap();
    assert_eq!(w.signals[0], WrapSignal::ResultMetaFlag);
    assert_eq!(
        a.text_mirror,
        TextMirror::Matches {
            shape: MirrorShape::OneBlockPerItem
        }
    );
    assert_eq!(
        a.contract,
        ContractCheck::NoSchema {
            has_structured_content: true
        }
    );
    // Modern era: the explanation adds that the wrapper is no longer needed.
    let m = analyze_call(
        CallResponse::Result(JsonDoc::from_value(&result).root()),
        None,
        ProtocolEra::Modern,
    );
    assert!(
        m.wrapping
            .unwrap()
            .explanation
            .contains("no longer required")
    );
}

#[test]
fn tool_error_skips_validation() {
    let result =
        json!({"content": [{"type": "text", "text": "division by zero"}], "isError": true});
    let schema = add_schema();
    let a = legacy(&result, Some(&schema));
    assert_eq!(
        a.error_kind,
        ErrorKind::ToolError {
            message: Some("division by zero".into())
        }
    );
    assert_eq!(
        a.contract,
        ContractCheck::NotChecked {
            reason: SkipReason::ToolError
        }
    );
    assert!(!a.is_conforming_success());
    let lines = a.summary_lines();
    assert!(lines[0].starts_with(
        "Tool error (isError: true): the tool ran and reported a failure; this is not a protocol error"
    ));
    assert!(lines[0].contains("division by zero"));
}

#[test]
fn rpc_error_is_a_protocol_error() {
    let err = json!({"code": -32602, "message": "Unknown tool: nope"});
    let schema = add_schema();
    let a = analyze_call(
        CallResponse::RpcError(JsonDoc::from_value(&err).root()),
        Some(&schema),
        ProtocolEra::Legacy,
    );
    assert!(matches!(
        a.error_kind,
        ErrorKind::ProtocolError {
            code: Some(-32602),
            ..
        }
    ));
    assert_eq!(
        a.contract,
        ContractCheck::NotChecked {
            reason: SkipReason::ProtocolError
        }
    );
    assert!(a.summary_lines()[0].starts_with("Protocol error (JSON-RPC error -32602"));
    assert!(!a.is_conforming_success());
    // A whole envelope passed as a "result" is recognised too.
    let env = json!({"jsonrpc": "2.0", "id": 7, "error": err});
    let a = legacy(&env, None);
    assert!(matches!(a.error_kind, ErrorKind::ProtocolError { .. }));
    let env = json!({"jsonrpc": "2.0", "id": 7, "result": {"content": []}});
    assert_eq!(legacy(&env, None).error_kind, ErrorKind::Success);
}

#[test]
fn missing_structured_content_is_not_conforming() {
    let result = json!({"content": [{"type": "text", "text": "3"}]});
    let schema = add_schema();
    let a = legacy(&result, Some(&schema));
    assert!(a.contract.is_violated());
    assert!(!a.is_conforming_success());
    assert_eq!(
        a.text_mirror,
        TextMirror::NoStructuredContent { text_blocks: 1 }
    );
}

#[test]
fn non_object_structured_content_by_era() {
    let result =
        json!({"content": [{"type": "text", "text": "[1,2]"}], "structuredContent": [1, 2]});
    let schema = json!({"type": "array", "items": {"type": "integer"}});
    let a = legacy(&result, Some(&schema));
    assert!(a.structured.is_flagged());
    assert!(!a.is_conforming_success());
    assert!(
        a.notes.iter().any(|n| n.contains("root type is \"array\"")),
        "{:?}",
        a.notes
    );
    let m = analyze_call(
        CallResponse::Result(JsonDoc::from_value(&result).root()),
        Some(&schema),
        ProtocolEra::Modern,
    );
    assert!(!m.structured.is_flagged());
    assert!(m.notes.is_empty());
    assert!(m.is_conforming_success());
    assert_eq!(
        m.text_mirror,
        TextMirror::Matches {
            shape: MirrorShape::WholeValue
        }
    );
}

#[test]
fn no_schema_no_structured_explains_itself() {
    let result = json!({"content": []});
    let a = legacy(&result, None);
    let lines = a.summary_lines();
    assert!(lines.contains(&"Content: no blocks".to_owned()));
    assert!(lines.contains(
        &"No output schema and no structuredContent: an application only gets text".to_owned()
    ));
    assert!(a.is_conforming_success());
}

#[test]
fn malformed_envelope_is_noted_not_fatal() {
    let result =
        json!({"content": {"type": "text"}, "isError": "yes", "structuredContent": {"a": 1}});
    let a = legacy(&result, None);
    assert_eq!(a.error_kind, ErrorKind::Success);
    assert_eq!(a.notes.len(), 2, "{:?}", a.notes);
    let a = legacy(&json!(null), None);
    assert!(a.notes[0].contains("not an object"));
    let mixed =
        json!({"content": [{"type": "text", "text": "ok"}, {"type": "image", "data": "!!"}]});
    let lines = legacy(&mixed, None).summary_lines();
    assert_eq!(
        lines[1],
        "Content: 2 blocks (1 text, 1 image); 1 block has problems"
    );
    assert!(
        lines[2].starts_with("Block 1: image (no mimeType, undecodable); problems:"),
        "{}",
        lines[2]
    );
}

#[test]
fn large_structured_content_is_fast() {
    // ~1,000,000 nodes: 200,000 objects of 4 fields each, plus the text mirror.
    let items: Vec<Value> = (0..200_000)
        .map(|i| json!({"id": i, "name": "item", "score": 0.5, "tags": ["a"]}))
        .collect();
    let structured = json!({"items": items});
    let text = serde_json::to_string(&structured).unwrap();
    let result =
        json!({"content": [{"type": "text", "text": text}], "structuredContent": structured});
    let schema = json!({"type": "object", "properties": {"items": {"type": "array", "items": {
        "type": "object", "required": ["id", "name"],
        "properties": {"id": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}}}}});
    let start = Instant::now();
    let a = legacy(&result, Some(&schema));
    let elapsed = start.elapsed();
    assert!(a.is_conforming_success());
    assert_eq!(
        a.text_mirror,
        TextMirror::Matches {
            shape: MirrorShape::WholeValue
        }
    );
    // Generous for unoptimised test builds; release builds take a small fraction of this.
    assert!(elapsed.as_secs_f64() < 10.0, "took {elapsed:?}");
}

#[test]
fn one_sentence_says_what_each_half_gives_its_reader() {
    let schema = add_schema();
    let wrapped = legacy(
        &json!({"content": [{"type": "text", "text": "3"}], "structuredContent": {"result": 3}}),
        Some(&schema),
    );
    assert_eq!(
        wrapped.explanation,
        "The model reads the text `3`; the application reads `{\"result\":3}`: the SDK wrapped \
         a number in {\"result\": …} because structured output had to be an object."
    );
    let text_only = legacy(
        &json!({"content": [{"type": "text", "text": "hello\nworld"}]}),
        None,
    );
    assert_eq!(
        text_only.explanation,
        "Only the model gets something: it reads the text `hello world`; an application gets \
         no structuredContent, so nothing typed."
    );
    // Pretty JSON is quoted as compact JSON (its first line alone is `{`).
    let pretty = legacy(
        &json!({"content": [{"type": "text", "text": "{\n  \"a\": 1,\n  \"b\": [2]\n}"}]}),
        None,
    );
    assert!(
        pretty
            .explanation
            .contains("the text `{\"a\":1,\"b\":[2]}`"),
        "{}",
        pretty.explanation
    );
    let mirrored = legacy(
        &json!({"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}}),
        None,
    );
    assert!(
        mirrored
            .explanation
            .starts_with("Both halves carry the same data"),
        "{}",
        mirrored.explanation
    );
    let differs = legacy(
        &json!({"content": [{"type": "text", "text": "{\"a\":2}"}], "structuredContent": {"a": 1}}),
        None,
    );
    assert!(
        differs.explanation.starts_with("The halves differ"),
        "{}",
        differs.explanation
    );
    let broken = legacy(
        &json!({"content": [], "structuredContent": {"result": "x"}}),
        Some(&schema),
    );
    assert!(
        broken
            .explanation
            .ends_with("The structuredContent breaks the tool's output schema (1 problem)."),
        "{}",
        broken.explanation
    );
    let tool_error = legacy(
        &json!({"content": [{"type": "text", "text": "boom"}], "isError": true}),
        Some(&schema),
    );
    assert!(
        tool_error
            .explanation
            .contains("the model reads the text `boom`")
    );
    let rpc = analyze_call(
        CallResponse::RpcError(
            JsonDoc::from_value(&json!({"code": -32602, "message": "unknown tool"})).root(),
        ),
        None,
        ProtocolEra::Modern,
    );
    assert!(
        rpc.explanation
            .starts_with("The server rejected the request"),
        "{}",
        rpc.explanation
    );
}

#[test]
fn the_sentence_quotes_a_huge_value_in_a_few_characters() {
    let items: Vec<Value> = (0..200_000).map(|n| json!({"id": n})).collect();
    let result = json!({"content": [], "structuredContent": {"items": items}});
    let analysis = legacy(&result, None);
    assert!(analysis.explanation.len() < 400, "{}", analysis.explanation);
    assert!(analysis.explanation.contains("`{\"items\":[{\"id\":0},"));
}

#[test]
fn an_error_without_structured_content_says_nothing_of_wrapping() {
    // The demo's divide by zero: a wrapping output schema, an error, no structuredContent.
    let result = json!({"content": [{"type": "text", "text": "Error executing tool divide: \
                        division by zero"}], "isError": true});
    let schema = add_schema();
    let a = legacy(&result, Some(&schema));
    assert_eq!(a.wrapping, None);
    assert!(
        !a.summary_lines().iter().any(|l| l.contains("Wrapped")),
        "{:?}",
        a.summary_lines()
    );
    // Nor does a JSON-RPC error.
    let error = json!({"code": -32602, "message": "Unknown tool"});
    let a = analyze_call(
        CallResponse::RpcError(JsonDoc::from_value(&error).root()),
        Some(&schema),
        ProtocolEra::Legacy,
    );
    assert_eq!(a.wrapping, None);
}
