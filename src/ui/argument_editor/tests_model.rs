//! Schema -> form model, sync and validation, without drawing.

use serde_json::{Map, Value, json};

use super::ArgumentEditor;
use super::parse::parse;
use super::schema::{Additional, FieldSchema, Kind};
use super::values::{best_variant, parse_number, prefill};

fn obj(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn prop(schema: &FieldSchema, name: &str) -> FieldSchema {
    let Kind::Object(object) = &schema.kind else {
        panic!("not an object schema: {schema:?}");
    };
    object
        .properties
        .iter()
        .find(|p| p.name == name)
        .map_or_else(|| panic!("no property {name}"), |p| p.schema.clone())
}

#[test]
fn each_type_maps_to_a_widget_kind() {
    let schema = parse(&json!({
        "type": "object",
        "properties": {
            "s": {"type": "string", "format": "email", "minLength": 3},
            "long": {"type": "string", "maxLength": 5000},
            "n": {"type": "number", "minimum": 0, "maximum": 1.5},
            "i": {"type": "integer"},
            "b": {"type": "boolean"},
            "e": {"enum": ["a", 1, true]},
            "c": {"const": "fixed"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "points": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}}}},
            "nested": {"type": "object", "properties": {"deep": {"type": "string"}}},
            "tuple": {"type": "array", "prefixItems": [{"type": "string"}]},
            "free": {"type": "object", "additionalProperties": {"type": "integer"}},
            "weird": {"not": {"type": "string"}}
        }
    }));
    assert_eq!(prop(&schema, "s").kind, Kind::String { multiline: false });
    assert!(
        prop(&schema, "s")
            .hints
            .contains(&"format: email".to_owned())
    );
    assert_eq!(prop(&schema, "long").kind, Kind::String { multiline: true });
    let n = prop(&schema, "n");
    assert_eq!(n.kind, Kind::Number { integer: false });
    assert_eq!(n.hints, vec!["min 0".to_owned(), "max 1.5".to_owned()]);
    assert_eq!(prop(&schema, "i").kind, Kind::Number { integer: true });
    assert_eq!(prop(&schema, "b").kind, Kind::Boolean);
    assert_eq!(
        prop(&schema, "e").kind,
        Kind::Enum(vec![json!("a"), json!(1), json!(true)])
    );
    assert_eq!(prop(&schema, "c").kind, Kind::Enum(vec![json!("fixed")]));
    assert!(
        matches!(prop(&schema, "tags").kind, Kind::Array(items) if items.kind == Kind::String { multiline: false })
    );
    assert!(
        matches!(prop(&schema, "points").kind, Kind::Array(items) if matches!(items.kind, Kind::Object(_)))
    );
    assert!(matches!(prop(&schema, "nested").kind, Kind::Object(_)));
    assert_eq!(prop(&schema, "tuple").kind, Kind::Raw);
    let Kind::Object(free) = prop(&schema, "free").kind else {
        panic!("free is an object");
    };
    assert!(
        matches!(free.additional, Additional::Schema(s) if s.kind == Kind::Number { integer: true })
    );
    assert_eq!(prop(&schema, "weird").kind, Kind::Raw);
}

#[test]
fn refs_resolve_into_defs_and_definitions() {
    let schema = parse(&json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Point", "description": "where"},
            "b": {"$ref": "#/definitions/Color"},
            "c": {"$ref": "https://example.com/remote.json"}
        },
        "$defs": {"Point": {"type": "object", "title": "Point", "properties": {"x": {"type": "number"}}}},
        "definitions": {"Color": {"enum": ["red", "green"]}}
    }));
    let a = prop(&schema, "a");
    assert!(matches!(a.kind, Kind::Object(_)));
    assert_eq!(a.title.as_deref(), Some("Point"));
    assert_eq!(a.description.as_deref(), Some("where"));
    assert_eq!(
        prop(&schema, "b").kind,
        Kind::Enum(vec![json!("red"), json!("green")])
    );
    assert_eq!(prop(&schema, "c").kind, Kind::Raw);
}

#[test]
fn recursive_refs_stop_at_the_depth_limit() {
    let schema = parse(&json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}, "self": {"$ref": "#"}},
        "$defs": {"Node": {"type": "object", "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        }}}
    }));
    // Walk down the children until the guard turns the rest into inline JSON.
    let mut node = prop(&schema, "tree");
    let mut levels = 0;
    while let Kind::Object(_) = node.kind {
        let Kind::Array(items) = prop(&node, "children").kind else {
            panic!("children is an array");
        };
        node = *items;
        levels += 1;
        assert!(levels < 10, "recursion was not cut");
    }
    assert_eq!(node.kind, Kind::Raw);
    assert!(node.hints[0].contains("recursive"));
    // The editor still builds and accepts deep values as JSON.
    let mut editor = ArgumentEditor::new(&json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}
    }));
    editor.set_argument("tree", json!({"next": {"next": {"next": {}}}}));
    assert_eq!(
        editor.arguments()["tree"]["next"]["next"]["next"],
        json!({})
    );
}

#[test]
fn nullable_in_all_three_spellings() {
    let schema = parse(&json!({
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "c": {"type": "boolean", "nullable": true},
            "d": {"enum": ["x", null]}
        }
    }));
    let a = prop(&schema, "a");
    assert!(a.nullable);
    assert_eq!(a.kind, Kind::String { multiline: false });
    let b = prop(&schema, "b");
    assert!(b.nullable);
    assert_eq!(b.kind, Kind::Number { integer: true });
    let c = prop(&schema, "c");
    assert!(c.nullable);
    assert_eq!(c.kind, Kind::Boolean);
    let d = prop(&schema, "d");
    assert!(d.nullable);
    assert_eq!(d.kind, Kind::Enum(vec![json!("x")]));
}

#[test]
fn any_of_becomes_variants_and_picks_the_matching_one() {
    let schema = parse(&json!({
        "type": "object",
        "properties": {
            "shape": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}},
                {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}}
            ]},
            "id": {"type": ["string", "integer"]}
        }
    }));
    let Kind::Variants(shapes) = prop(&schema, "shape").kind else {
        panic!("shape has variants");
    };
    assert_eq!(
        best_variant(&shapes, &json!({"kind": "square", "side": 2})),
        Some(1)
    );
    assert_eq!(best_variant(&shapes, &json!({"kind": "circle"})), Some(0));
    let Kind::Variants(ids) = prop(&schema, "id").kind else {
        panic!("id has variants");
    };
    assert_eq!(best_variant(&ids, &json!(7)), Some(1));
    assert_eq!(best_variant(&ids, &json!("x")), Some(0));
}

#[test]
fn defaults_are_prefilled_and_untouched_optionals_omitted() {
    let mut editor = ArgumentEditor::new(&json!({
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "default": 10},
            "verbose": {"type": "boolean"},
            "note": {"type": "string"},
            "count": {"type": "integer"},
            "flag": {"type": "boolean"},
            "mode": {"enum": ["fast", "slow"]},
            "opts": {"type": "object", "properties": {"x": {"type": "string"}}}
        },
        "required": ["query", "flag", "mode", "count"]
    }));
    // Required: present (numbers without a default are left for the user to type).
    // Optional: only the one with a default.
    assert_eq!(
        Value::Object(editor.arguments()),
        json!({"query": "", "limit": 10, "flag": false, "mode": "fast"})
    );
    // A fresh form is not a mistake: what is still missing is said once it is edited.
    let count_missing = |editor: &ArgumentEditor| {
        editor
            .warnings()
            .iter()
            .any(|w| w.contains("\"count\" is required"))
    };
    assert!(!count_missing(&editor), "{:?}", editor.warnings());
    editor.set_argument("query", json!("rust"));
    assert!(count_missing(&editor), "{:?}", editor.warnings());
    assert_eq!(prefill(&parse(&json!({"type": "string"})), false), None);
}

#[test]
fn extra_keys_are_preserved() {
    let mut editor = ArgumentEditor::new(&json!({
        "type": "object",
        "properties": {"a": {"type": "string"}}
    }));
    editor.set_arguments(&obj(json!({"a": "x", "unknown": {"deep": [1, 2]}})));
    assert_eq!(editor.arguments()["unknown"], json!({"deep": [1, 2]}));
    editor.set_argument("a", json!("y"));
    assert_eq!(
        Value::Object(editor.arguments()),
        json!({"a": "y", "unknown": {"deep": [1, 2]}})
    );
}

#[test]
fn json_form_json_round_trip() {
    let mut editor = ArgumentEditor::new(&json!({
        "type": "object",
        "properties": {"名前": {"type": "string"}, "n": {"type": "number"}, "tags": {"type": "array"}}
    }));
    let text = "{\n  \"名前\": \"李雷\",\n  \"n\": 1.25,\n  \"tags\": [\n    1,\n    \"x\"\n  ],\n  \"extra\": [\n    true\n  ]\n}";
    editor.json_text = text.to_owned();
    assert!(editor.apply_json_text());
    assert_eq!(editor.arguments()["名前"], json!("李雷"));
    assert_eq!(editor.arguments()["extra"], json!([true]));
    // Back from the form side: same arguments give the same pretty text, key order kept.
    editor.set_arguments(&editor.arguments());
    assert_eq!(editor.json_text, text);
}

#[test]
fn invalid_json_keeps_the_form_and_the_text() {
    let mut editor = ArgumentEditor::new(&json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}}
    }));
    editor.set_argument("a", json!(5));
    let broken = "{\n  \"a\": 6,\n  oops\n}";
    editor.json_text = broken.to_owned();
    assert!(!editor.apply_json_text());
    let error = editor.json_error.clone().unwrap_or_default();
    assert!(
        error.starts_with("Invalid JSON at line 3, column 3"),
        "{error}"
    );
    assert_eq!(editor.arguments()["a"], json!(5));
    assert_eq!(editor.json_text, broken);
    editor.json_text = "[1]".to_owned();
    assert!(!editor.apply_json_text());
    assert_eq!(
        editor.json_error.as_deref(),
        Some("The arguments must be a JSON object, not an array")
    );
}

#[test]
fn warnings_name_the_pointer() {
    let mut editor = ArgumentEditor::new(&json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "list": {"type": "array", "items": {"type": "string"}}},
        "required": ["a"]
    }));
    editor.set_arguments(&obj(json!({"a": "x", "list": ["ok", 3]})));
    let warnings = editor.warnings().to_vec();
    assert!(
        warnings.contains(&"/a should be an integer, but it is the string \"x\"".to_owned()),
        "{warnings:?}"
    );
    assert!(
        warnings.contains(&"/list/1 should be a string, but it is the number 3".to_owned()),
        "{warnings:?}"
    );
    // Cached per revision: nothing changed, nothing recomputed.
    let revision = editor.revision;
    editor.validate();
    assert_eq!(editor.revision, revision);
    editor.set_argument("a", json!(1));
    editor.set_argument("list", json!([]));
    assert!(editor.warnings().is_empty(), "{:?}", editor.warnings());
}

#[test]
fn draft_07_schema_is_honoured() {
    let mut editor = ArgumentEditor::new(&json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "n": {"type": "number", "exclusiveMaximum": 10},
            "t": {"type": "array", "items": [{"type": "string"}], "additionalItems": false}
        },
        "required": ["n"],
        "additionalProperties": false
    }));
    assert!(!editor.warnings().iter().any(|w| w.contains("required")));
    editor.set_arguments(&obj(json!({})));
    assert!(editor.warnings().iter().any(|w| w.contains("required")));
    editor.set_arguments(&obj(json!({"n": 12, "t": ["a", "b"], "x": 1})));
    let warnings = editor.warnings().join("\n");
    assert!(
        warnings.contains("/n should be less than 10, but it is the number 12"),
        "{warnings}"
    );
    assert!(warnings.contains("/t"), "{warnings}");
    assert!(
        warnings.contains("'x' was unexpected") || warnings.contains("\"x\""),
        "{warnings}"
    );
    assert!(!warnings.contains("Note:"), "{warnings}");
}

#[test]
fn uncompilable_schema_is_a_single_note() {
    let mut editor = ArgumentEditor::new(&json!({
        "type": "object",
        "properties": {"a": {"type": "wibble"}}
    }));
    assert_eq!(editor.warnings().len(), 1);
    assert!(
        editor.warnings()[0].starts_with("Note:"),
        "{:?}",
        editor.warnings()
    );
    editor.set_argument("a", json!(1));
    assert_eq!(editor.warnings().len(), 1);
}

#[test]
fn numbers_parse_any_decimal_without_clamping() {
    assert_eq!(parse_number("42"), Some(42.into()));
    assert_eq!(parse_number(" -7 "), Some((-7).into()));
    assert_eq!(parse_number("18446744073709551615"), Some(u64::MAX.into()));
    assert_eq!(parse_number("1.5").and_then(|n| n.as_f64()), Some(1.5));
    assert_eq!(parse_number("1e3"), Some(1000.into()));
    assert_eq!(parse_number("abc"), None);
    assert_eq!(parse_number("NaN"), None);
}

#[test]
fn argument_names_for_the_picker() {
    let editor = ArgumentEditor::new(&json!({
        "type": "object",
        "properties": {
            "q": {"type": "string", "title": "查询"},
            "n": {"type": ["integer", "null"]}
        }
    }));
    assert_eq!(
        editor.argument_names(),
        vec![
            ("q".to_owned(), "查询 (string)".to_owned()),
            ("n".to_owned(), "n (integer | null)".to_owned())
        ]
    );
}

/// A tool whose inputSchema nests 10,000 and 100,000 levels deep (properties, a default, an
/// enum member): the form and its checks build on a worker's 2 MiB stack and say what they
/// left out.
#[test]
fn deep_input_schemas_build_on_a_worker_stack() {
    for levels in [10_000, 100_000] {
        std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(move || {
                let nested = format!(
                    "{}{{}}{}",
                    r#"{"type":"object","properties":{"a":"#.repeat(levels / 2),
                    "}}".repeat(levels / 2)
                );
                let deep = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
                let text = format!(
                    r#"{{"type":"object","properties":{{"tree":{nested},
                        "d":{{"type":"array","default":{deep}}},"e":{{"enum":[{deep}]}},
                        "m":{{"type":"string","minLength":{deep}}}}}}}"#
                );
                let schema = toolscope_core::deep_json::DeepValue(
                    toolscope_core::deep_json::parse(&text).unwrap(),
                );
                let editor = ArgumentEditor::new(&schema);
                assert_eq!(editor.warnings().len(), 1, "{:?}", editor.warnings());
                assert!(
                    editor.warnings()[0].contains("nested deeper than 128 levels"),
                    "{:?}",
                    editor.warnings()
                );
                assert!(!editor.arguments().contains_key("d"));
                let form = parse(&schema);
                let d = prop(&form, "d");
                assert_eq!(d.default, None);
                assert!(d.hints.iter().any(|h| h.contains("default nested deeper")));
                let e = prop(&form, "e");
                assert_eq!(e.kind, Kind::Raw);
                assert!(e.hints[0].contains("enum nested deeper"), "{:?}", e.hints);
                let hint = &prop(&form, "m").hints[0];
                assert!(
                    hint.starts_with("min length [[[[") && hint.len() < 300,
                    "{hint}"
                );
                // The form stops at its own depth limit: inline JSON below.
                let mut node = prop(&form, "tree");
                let mut shown = 0;
                while let Kind::Object(_) = node.kind {
                    node = prop(&node, "a");
                    shown += 1;
                }
                assert!(shown < 30, "{shown}");
                assert_eq!(node.kind, Kind::Raw);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
