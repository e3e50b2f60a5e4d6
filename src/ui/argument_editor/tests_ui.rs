//! Drives the real widgets through egui_kittest (which also checks that every
//! input has an accessible name).

use egui::Key;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use serde_json::{Value, json};

use super::ArgumentEditor;

fn harness(schema: Value) -> Harness<'static, ArgumentEditor> {
    Harness::builder()
        .with_size(egui::vec2(800.0, 1200.0))
        .build_ui_state(
            |ui, editor: &mut ArgumentEditor| {
                editor.ui(ui, "args");
            },
            ArgumentEditor::new(&schema),
        )
}

fn ab_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"]
    })
}

#[test]
fn typing_into_labelled_fields_sets_the_arguments() {
    let mut h = harness(ab_schema());
    h.get_by_label("a").focus();
    h.run();
    h.get_by_label("a").type_text("1");
    h.run();
    h.get_by_label("b").focus();
    h.run();
    h.get_by_label("b").type_text("2");
    h.run();
    assert_eq!(
        Value::Object(h.state().arguments()),
        json!({"a": 1, "b": 2})
    );
    assert!(
        h.state().warnings().is_empty(),
        "{:?}",
        h.state().warnings()
    );

    h.get_by_label("JSON").click();
    h.run();
    let text = h.get_by_label("Arguments (JSON)").value();
    assert_eq!(text.as_deref(), Some("{\n  \"a\": 1,\n  \"b\": 2\n}"));
}

#[test]
fn tab_moves_to_the_next_field() {
    let mut h = harness(ab_schema());
    h.get_by_label("a").focus();
    h.run();
    h.get_by_label("a").type_text("7");
    h.key_press(Key::Tab);
    h.run();
    assert!(h.get_by_label("b").is_focused());
    h.get_by_label("b").type_text("8");
    h.run();
    assert_eq!(
        Value::Object(h.state().arguments()),
        json!({"a": 7, "b": 8})
    );
}

#[test]
fn missing_required_values_warn_with_a_pointer() {
    let mut h = harness(ab_schema());
    h.get_by_label("a").focus();
    h.run();
    h.get_by_label("a").type_text("x");
    h.run();
    // Not a number: the text stays, the argument is not applied, and the user is told.
    assert!(h.query_by_label_contains("is not a number").is_some());
    assert!(
        h.state()
            .warnings()
            .iter()
            .any(|w| w.contains("the property \"a\" is required"))
    );
}

#[test]
fn chinese_labels_and_values() {
    // egui's bundled fonts have no CJK glyphs, so draw them as tofu here.
    let mut h = Harness::builder().allow_missing_glyphs().build_ui_state(
        |ui, editor: &mut ArgumentEditor| {
            editor.ui(ui, "args");
        },
        ArgumentEditor::new(&json!({
            "type": "object",
            "properties": {"q": {"type": "string", "title": "查询", "description": "搜索词"}},
            "required": ["q"]
        })),
    );
    h.get_by_label("查询").focus();
    h.run();
    h.get_by_label("查询").type_text("你好，世界");
    h.run();
    assert_eq!(h.state().arguments()["q"], json!("你好，世界"));
}

#[test]
fn optional_fields_can_be_cleared_and_arrays_edited() {
    let mut h = harness(json!({
        "type": "object",
        "properties": {
            "note": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}}
        }
    }));
    assert!(h.state().arguments().is_empty());
    h.get_by_label("note").focus();
    h.run();
    h.get_by_label("note").type_text("hi");
    h.run();
    assert_eq!(h.state().arguments()["note"], json!("hi"));
    h.get_by_label("Clear note").click();
    h.run();
    assert!(!h.state().arguments().contains_key("note"));

    h.get_by_label("Add item to tags").click();
    h.run();
    h.get_by_label("Add item to tags").click();
    h.run();
    h.get_by_label("tags #1").focus();
    h.run();
    h.get_by_label("tags #1").type_text("first");
    h.run();
    h.get_by_label("tags #2").focus();
    h.run();
    h.get_by_label("tags #2").type_text("second");
    h.run();
    assert_eq!(h.state().arguments()["tags"], json!(["first", "second"]));
    h.get_by_label("Move tags #2 up").click();
    h.run();
    assert_eq!(h.state().arguments()["tags"], json!(["second", "first"]));
    h.get_by_label("Remove tags #1").click();
    h.run();
    assert_eq!(h.state().arguments()["tags"], json!(["first"]));
}

#[test]
fn json_view_edits_the_form_and_keeps_bad_text() {
    let mut h = harness(ab_schema());
    h.get_by_label("JSON").click();
    h.run();
    h.get_by_label("Arguments (JSON)")
        .set_text_value_accesskit("{\"a\": 3, \"b\": 4, \"extra\": \"kept\"}");
    h.run();
    assert_eq!(
        Value::Object(h.state().arguments()),
        json!({"a": 3, "b": 4, "extra": "kept"})
    );
    h.get_by_label("Arguments (JSON)")
        .set_text_value_accesskit("{\"a\": 5,");
    h.run();
    assert!(
        h.query_by_label_contains("Invalid JSON at line 1")
            .is_some()
    );
    assert_eq!(h.state().arguments()["a"], json!(3));
    assert_eq!(h.state().json_text, "{\"a\": 5,");

    // The form shows the last good arguments, extra key included.
    h.get_by_label("Form").click();
    h.run();
    assert_eq!(h.get_by_label("a").value().as_deref(), Some("3"));
    assert!(h.query_by_label("extra").is_some());
}

#[test]
fn a_rich_schema_draws_with_named_inputs() {
    let mut h = harness(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to find", "examples": ["cats"]},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
            "exact": {"type": "boolean"},
            "mode": {"enum": ["fast", "slow", 3, null]},
            "kind": {"const": "search"},
            "when": {"type": ["string", "null"], "format": "date-time"},
            "maybe": {"anyOf": [{"type": "number"}, {"type": "null"}]},
            "legacy": {"type": "string", "nullable": true},
            "filter": {"$ref": "#/definitions/Filter"},
            "shape": {"oneOf": [
                {"type": "object", "properties": {"type": {"const": "circle"}, "r": {"type": "number"}}},
                {"type": "object", "properties": {"type": {"const": "box"}, "w": {"type": "number"}}}
            ]},
            "points": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}}}},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}},
            "tree": {"$ref": "#/definitions/Node"},
            "odd": {"not": {"type": "string"}}
        },
        "required": ["query", "mode", "shape", "filter", "points"],
        "definitions": {
            "Filter": {"type": "object", "properties": {"field": {"type": "string"}}, "required": ["field"]},
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/definitions/Node"}}}
        }
    }));
    h.state_mut().set_arguments(&match json!({
        "query": "x", "mode": null, "shape": {"type": "box", "w": 2},
        "filter": {"field": "f"}, "points": [{"x": 1}, {"x": 2}],
        "headers": {"Accept": "text/plain"}, "when": null,
        "tree": {"next": {"next": {"next": {}}}}, "surprise": 1
    }) {
        Value::Object(map) => map,
        _ => unreachable!(),
    });
    h.run();
    assert!(h.query_by_label("points #2").is_some());
    assert!(h.query_by_label("Accept").is_some());
    assert!(h.query_by_label("surprise").is_some());
    assert!(h.query_by_label("when is null").is_some());
    // Switch the variant of `shape`: a fresh circle replaces the box.
    h.get_by_label("shape").click();
    h.run();
    h.get_by_label("circle").click();
    h.run();
    assert_eq!(h.state().arguments()["shape"], json!({"type": "circle"}));
    // Add a header entry.
    h.get_by_label("New key in headers").focus();
    h.run();
    h.get_by_label("New key in headers").type_text("X-Id");
    h.run();
    h.get_by_label("Add property to headers").click();
    h.run();
    assert_eq!(h.state().arguments()["headers"]["X-Id"], json!(""));
}

#[test]
fn null_toggle_checkbox_and_enum_report_changes() {
    let schema = json!({
        "type": "object",
        "properties": {
            "when": {"type": ["string", "null"]},
            "on": {"type": "boolean"},
            "mode": {"enum": ["fast", "slow"]}
        }
    });
    let mut h = Harness::builder().build_ui_state(
        |ui, (editor, changes): &mut (ArgumentEditor, usize)| {
            if editor.ui(ui, "args") {
                *changes += 1;
            }
        },
        (ArgumentEditor::new(&schema), 0),
    );
    assert_eq!(h.state().1, 0);
    h.get_by_label("when is null").click();
    h.run();
    assert_eq!(h.state().0.arguments()["when"], Value::Null);
    h.get_by_label("when is null").click();
    h.run();
    assert_eq!(h.state().0.arguments()["when"], json!(""));
    h.get_by_label("on").click();
    h.run();
    assert_eq!(h.state().0.arguments()["on"], json!(true));
    h.get_by_label("mode").click();
    h.run();
    h.get_by_label("slow").click();
    h.run();
    assert_eq!(h.state().0.arguments()["mode"], json!("slow"));
    assert_eq!(h.state().1, 4);
}

#[test]
fn a_tool_without_arguments_shows_no_key_editor_until_asked() {
    let mut h = harness(json!({"type": "object", "properties": {}}));
    h.run();
    assert!(h.query_by_label_contains("New key").is_none());
    h.get_by_label("Add a property…").click();
    h.run();
    h.get_by_label_contains("New key").focus();
    h.run();
    h.get_by_label_contains("New key").type_text("extra");
    h.run();
    h.get_by_label_contains("Add property").click();
    h.run();
    assert!(h.state().arguments().contains_key("extra"));
    // Where the schema forbids more, there is nothing to ask for.
    let mut h = harness(json!({"type": "object", "additionalProperties": false}));
    h.run();
    assert!(h.query_by_label_contains("Add a property").is_none());
}
