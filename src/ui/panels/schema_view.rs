//! A JSON Schema shown two ways: a readable tree of its properties, or its raw JSON.

use serde_json::Value;

use crate::ui::widgets;
use toolscope_core::deep_json::SHOWN_DEPTH;

/// How deep the readable tree follows nested schemas and `$ref`s.
const MAX_DEPTH: usize = 8;

/// `pretty` gives the schema's pretty JSON, made once and kept by the caller.
pub fn ui<'a>(
    ui: &mut egui::Ui,
    id_salt: impl egui::AsIdSalt,
    schema: &Value,
    pretty: impl FnOnce() -> &'a str,
) {
    let id = ui.make_persistent_id(id_salt);
    let mut raw = ui.data(|data| data.get_temp::<bool>(id).unwrap_or(false));
    let (copy, raw) = ui
        .horizontal(|ui| {
            ui.selectable_value(&mut raw, false, "Tree");
            ui.selectable_value(&mut raw, true, "Raw JSON");
            (ui.small_button("Copy").clicked(), raw)
        })
        .inner;
    ui.data_mut(|data| data.insert_temp(id, raw));
    let text = (copy || raw).then(pretty).unwrap_or_default();
    if copy {
        ui.ctx().copy_text(text.to_owned());
    }
    if raw {
        ui.add(egui::Label::new(egui::RichText::new(text).monospace()).selectable(true));
    } else {
        if let Some(dialect) = schema.get("$schema").and_then(Value::as_str) {
            ui.weak(format!("dialect: {dialect}"));
        }
        node_ui(ui, schema, schema, 0);
    }
}

/// The schema as text: pretty, or compact past [`SHOWN_DEPTH`] levels (pretty text grows with
/// the square of the depth), printed without recursion either way.
/// The schema as text: pretty, or compact when it nests too deep for indentation to help.
pub(crate) fn schema_text(schema: &Value) -> String {
    if toolscope_core::analysis::deeper_than(schema, SHOWN_DEPTH) {
        toolscope_core::deep_json::to_string(schema)
    } else {
        toolscope_core::deep_json::to_string_pretty(schema)
    }
}

fn node_ui(ui: &mut egui::Ui, root: &Value, schema: &Value, depth: usize) {
    if depth > MAX_DEPTH {
        ui.weak("… (nested too deep to show; see the raw JSON)");
        return;
    }
    let schema = resolve(root, schema);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        ui.horizontal_wrapped(|ui| {
            ui.monospace(type_text(root, schema));
            description_ui(ui, schema);
        });
        if let Some(items) = schema.get("items").filter(|items| items.is_object()) {
            ui.indent("items", |ui| {
                ui.weak("each item:");
                node_ui(ui, root, items, depth + 1);
            });
        }
        return;
    };
    if properties.is_empty() {
        ui.weak("an object with no declared properties");
    }
    for (name, property) in properties {
        let property = resolve(root, property);
        let nested = property.get("properties").is_some()
            || property
                .get("items")
                .and_then(|i| resolve(root, i).get("properties"))
                .is_some();
        ui.horizontal_wrapped(|ui| {
            let marker = if required.contains(&name.as_str()) {
                " *"
            } else {
                ""
            };
            ui.strong(format!("{name}{marker}"));
            ui.monospace(type_text(root, property));
            if let Some(default) = property.get("default") {
                widgets::chip(
                    ui,
                    &format!("default {default}"),
                    ui.visuals().weak_text_color(),
                );
            }
            description_ui(ui, property);
        });
        if nested {
            ui.indent(name, |ui| {
                if let Some(items) = property.get("items") {
                    ui.weak("each item:");
                    node_ui(ui, root, items, depth + 1);
                } else {
                    node_ui(ui, root, property, depth + 1);
                }
            });
        }
    }
    if !required.is_empty() {
        ui.weak("* required");
    }
}

fn description_ui(ui: &mut egui::Ui, schema: &Value) {
    if let Some(description) = schema.get("description").and_then(Value::as_str) {
        ui.weak(description);
    }
}

/// Follows local `$ref`s (`#/$defs/x`, `#/definitions/x`); anything else, and a chain that
/// loops, is shown as is.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    toolscope_core::json_pointer::follow_refs(root, schema, MAX_DEPTH).unwrap_or(schema)
}

/// `integer`, `string | null`, `enum: "a" | "b"`, `array of integer`, `$ref → #/$defs/Item`.
pub fn type_text(root: &Value, schema: &Value) -> String {
    type_text_at(root, schema, 0)
}

/// `depth` bounds the recursion: `$ref` cycles and deeply nested schemas end in "…".
fn type_text_at(root: &Value, schema: &Value, depth: usize) -> String {
    if depth > MAX_DEPTH {
        return "…".to_owned();
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return match toolscope_core::json_pointer::follow_refs(root, schema, MAX_DEPTH) {
            None => format!("… ({reference} loops)"),
            Some(target) if std::ptr::eq(target, schema) => {
                format!("$ref {reference} (not resolvable here)")
            }
            Some(target) => format!("{} ({reference})", type_text_at(root, target, depth + 1)),
        };
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(short_json).collect();
        return format!("enum: {}", values.join(" | "));
    }
    if let Some(value) = schema.get("const") {
        return format!("const {}", short_json(value));
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if let Some(options) = schema.get(keyword).and_then(Value::as_array) {
            let parts: Vec<String> = options
                .iter()
                .map(|option| type_text_at(root, option, depth + 1))
                .collect();
            let joiner = if keyword == "allOf" { " & " } else { " | " };
            return parts.join(joiner);
        }
    }
    let base = match schema.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ if schema.get("properties").is_some() => "object".to_owned(),
        _ => "any".to_owned(),
    };
    if base == "array"
        && let Some(items) = schema.get("items")
    {
        return format!("array of {}", type_text_at(root, items, depth + 1));
    }
    match schema.get("format").and_then(Value::as_str) {
        Some(format) => format!("{base} ({format})"),
        None => base,
    }
}

/// One-line JSON of a value of any depth, clipped.
fn short_json(value: &Value) -> String {
    toolscope_core::text_util::clip_chars(&toolscope_core::deep_json::to_string(value), 80)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn type_texts() {
        let root = json!({"$defs": {"Item": {"type": "object", "properties": {}}}});
        assert_eq!(
            type_text(&root, &json!({"type": ["string", "null"]})),
            "string | null"
        );
        assert_eq!(
            type_text(
                &root,
                &json!({"anyOf": [{"type": "integer"}, {"type": "null"}]})
            ),
            "integer | null"
        );
        assert_eq!(
            type_text(
                &root,
                &json!({"type": "array", "items": {"type": "integer"}})
            ),
            "array of integer"
        );
        assert_eq!(
            type_text(&root, &json!({"$ref": "#/$defs/Item"})),
            "object (#/$defs/Item)"
        );
        assert_eq!(
            type_text(&root, &json!({"enum": ["a", "b"]})),
            r#"enum: "a" | "b""#
        );
        assert_eq!(
            type_text(&root, &json!({"$ref": "https://x/y"})),
            "$ref https://x/y (not resolvable here)"
        );
    }

    #[test]
    fn ref_cycles_and_deep_nesting_end_in_an_ellipsis() {
        let root = json!({"$defs": {
            "a": {"$ref": "#/$defs/b"},
            "b": {"$ref": "#/$defs/c"},
            "c": {"$ref": "#/$defs/a"},
            "a b": {"type": "integer"}
        }});
        let text = type_text(&root, &json!({"$ref": "#/$defs/a"}));
        assert!(text.contains('…'), "{text}");
        assert_eq!(
            type_text(&root, &json!({"$ref": "#/$defs/a%20b"})),
            "integer (#/$defs/a%20b)"
        );
        let mut deep = json!({"type": "integer"});
        for _ in 0..1_000 {
            deep = json!({"type": "array", "items": deep});
        }
        assert!(type_text(&root, &deep).ends_with("array of …"));
        toolscope_core::deep_json::drop_value(deep);
    }
}
