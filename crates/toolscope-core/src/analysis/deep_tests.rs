//! Every part of the analysis on values nested 10,000 and 100,000 levels deep, on a thread
//! with a tokio worker's 2 MiB stack.

use serde_json::{Map, Value, json};

use super::*;
use crate::deep_json::{self, DeepValue, SHOWN_DEPTH};
use crate::json_doc::JsonDoc;

const WORKER_STACK: usize = 2 * 1024 * 1024;

fn nested_arrays(levels: usize, leaf: &str) -> String {
    let mut text = "[".repeat(levels);
    text.push_str(leaf);
    text.push_str(&"]".repeat(levels));
    text
}

/// `{"properties": {"a": {"properties": {"a": …}}}}`: `levels` levels of JSON.
fn nested_schema(levels: usize) -> String {
    let mut text = r#"{"properties":{"a":"#.repeat((levels - 1) / 2);
    text.push_str(r#"{"type":"integer"}"#);
    text.push_str(&"}}".repeat((levels - 1) / 2));
    text
}

fn on_worker_stack(check: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn(check)
        .unwrap()
        .join()
        .unwrap();
}

/// An object built by moving the values in (`json!` copies them through `to_value`, which
/// recurses once per level).
fn object(members: Vec<(&str, Value)>) -> Value {
    Value::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

fn deep(levels: usize) -> Value {
    deep_json::parse(&nested_arrays(levels, "1")).unwrap()
}

fn analyse_deep_result(levels: usize) {
    let text = nested_arrays(levels, "1");
    let mut result = Map::new();
    result.insert(
        "content".into(),
        Value::Array(vec![
            json!({"type": "text", "text": text}),
            object(vec![("type", json!("widget")), ("x", deep(levels))]),
            object(vec![
                ("type", json!("text")),
                ("text", json!("note")),
                ("_meta", deep(levels)),
            ]),
        ]),
    );
    result.insert("structuredContent".into(), deep(levels));
    let result = DeepValue(Value::Object(result));
    let schema = json!({"type": "array", "items": {"$ref": "#"}});

    let analysis = analyze_call(
        CallResponse::Result(JsonDoc::from_value(&result).root()),
        Some(&schema),
        ProtocolEra::Modern,
    );
    assert!(analysis.contract.is_too_deep(), "{:?}", analysis.contract);
    assert!(
        analysis
            .contract
            .describe()
            .contains(&format!("nested deeper than {MAX_VALIDATED_DEPTH} levels")),
        "{}",
        analysis.contract.describe()
    );
    assert!(!analysis.is_conforming_success());
    assert_eq!(
        analysis.text_mirror,
        TextMirror::Matches {
            shape: MirrorShape::WholeValue
        }
    );
    assert_eq!(
        analysis.structured.describe(),
        "structuredContent: an array of 1 item"
    );
    let unknown = &analysis.content[1];
    assert_eq!(unknown.raw, None);
    assert!(
        unknown
            .problems
            .iter()
            .any(|p| p.contains(&format!("nested deeper than {SHOWN_DEPTH} levels"))),
        "{:?}",
        unknown.problems
    );
    assert_eq!(analysis.content[2].meta, None);
    assert!(analysis.summary_lines().len() > 3);
    let mut report = Vec::new();
    deep_json::serialize_to_writer(&analysis, &mut report, false).unwrap();

    // A different leaf deep down is located, not mistaken for "not JSON".
    let other = nested_arrays(levels, "2");
    let result = DeepValue(object(vec![
        ("content", json!([{"type": "text", "text": other}])),
        ("structuredContent", deep(levels)),
    ]));
    let analysis = analyze_call(
        CallResponse::Result(JsonDoc::from_value(&result).root()),
        None,
        ProtocolEra::Modern,
    );
    match &analysis.text_mirror {
        TextMirror::Differs { detail } => {
            assert!(
                detail.contains("expected 1, the text has 2"),
                "{}",
                &detail[..200]
            );
            assert!(
                detail.len() < 400,
                "the pointer is clipped: {} bytes",
                detail.len()
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn deep_results_are_analysed_on_a_worker_stack() {
    for levels in [10_000, 100_000] {
        on_worker_stack(move || analyse_deep_result(levels));
    }
}

#[test]
fn deep_schemas_and_error_data_are_not_copied_or_compiled() {
    for levels in [10_000, 100_000] {
        on_worker_stack(move || {
            let schema = DeepValue(deep_json::parse(&nested_schema(levels)).unwrap());
            let result = json!({"content": [], "structuredContent": {"a": 1}});
            let analysis = analyze_call(
                CallResponse::Result(JsonDoc::from_value(&result).root()),
                Some(&schema),
                ProtocolEra::Legacy,
            );
            assert_eq!(
                analysis.contract,
                ContractCheck::NotChecked {
                    reason: SkipReason::SchemaTooDeep
                }
            );

            // A wrapped result whose inner schema is deep, declared with a deep "type".
            let mut wrapped = json!({"type": "object", "required": ["result"],
                "properties": {"result": {}}});
            wrapped["properties"]["result"] = deep(levels);
            let wrapped = DeepValue(wrapped);
            let analysis = analyze_call(
                CallResponse::Result(JsonDoc::from_value(&result).root()),
                Some(&wrapped),
                ProtocolEra::Legacy,
            );
            let wrapping = analysis.wrapping.unwrap();
            assert_eq!(wrapping.inner_schema, None);
            let odd_type = DeepValue(object(vec![("type", deep(levels))]));
            let analysis = analyze_call(
                CallResponse::Result(JsonDoc::from_value(&result).root()),
                Some(&odd_type),
                ProtocolEra::Legacy,
            );
            assert!(
                analysis.notes[0].contains("root type is [[[["),
                "{}",
                analysis.notes[0]
            );

            let error = DeepValue(object(vec![
                ("code", json!(-32603)),
                ("message", json!("boom")),
                ("data", deep(levels)),
            ]));
            let analysis = analyze_call(
                CallResponse::RpcError(JsonDoc::from_value(&error).root()),
                None,
                ProtocolEra::Modern,
            );
            assert!(
                analysis
                    .error_kind
                    .describe()
                    .contains("nested deeper than")
            );
        });
    }
}

/// The validation limit itself is safe: a recursive schema walks an instance
/// `MAX_VALIDATED_DEPTH` deep, valid and invalid, on a worker stack, and a schema that deep
/// compiles.
#[test]
fn validation_up_to_the_limit_fits_a_worker_stack() {
    on_worker_stack(|| {
        let schema =
            json!({"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#"}}]});
        let valid = DeepValue(deep_json::parse(&nested_arrays(MAX_VALIDATED_DEPTH, "1")).unwrap());
        assert!(matches!(
            schema_check::check_contract(
                Some(&schema),
                Some(JsonDoc::from_value(&valid).root()),
                None
            ),
            ContractCheck::Satisfied { .. }
        ));
        let invalid =
            DeepValue(deep_json::parse(&nested_arrays(MAX_VALIDATED_DEPTH, "\"x\"")).unwrap());
        assert!(
            schema_check::check_contract(
                Some(&schema),
                Some(JsonDoc::from_value(&invalid).root()),
                None
            )
            .is_violated()
        );
        let too_deep =
            DeepValue(deep_json::parse(&nested_arrays(MAX_VALIDATED_DEPTH + 1, "1")).unwrap());
        assert!(
            schema_check::check_contract(
                Some(&schema),
                Some(JsonDoc::from_value(&too_deep).root()),
                None
            )
            .is_too_deep()
        );

        let deep_schema = DeepValue(deep_json::parse(&nested_schema(MAX_VALIDATED_DEPTH)).unwrap());
        let instance = json!({"a": {"a": 1}});
        assert!(
            !schema_check::check_contract(
                Some(&deep_schema),
                Some(JsonDoc::from_value(&instance).root()),
                None
            )
            .is_too_deep()
        );
    });
}

#[test]
fn depth_limit_is_exact() {
    assert!(!deeper_than(&json!(1), 0));
    assert!(deeper_than(&json!([]), 0));
    assert!(!deeper_than(&json!([[1], {"a": [2]}]), 3));
    assert!(deeper_than(&json!([[1], {"a": [[2]]}]), 3));
}
