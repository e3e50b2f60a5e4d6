//! Value rules of the form: what a field starts with, which shape a value has,
//! and how text turns into numbers.

use serde_json::{Map, Number, Value};

use super::schema::{FieldSchema, Kind, ObjectSchema, compact};

/// The value a property starts with. Optional properties start unset unless the
/// schema gives a `default`; required ones always get a value where one can be
/// derived without inventing data (numbers without a default stay empty).
pub(super) fn prefill(schema: &FieldSchema, required: bool) -> Option<Value> {
    if let Some(default) = &schema.default {
        return Some(default.clone());
    }
    if required {
        initial_value(schema)
    } else {
        None
    }
}

/// A fresh value for a field the user just switched on (required, new variant, ...).
pub(super) fn initial_value(schema: &FieldSchema) -> Option<Value> {
    if let Some(default) = &schema.default {
        return Some(default.clone());
    }
    match &schema.kind {
        Kind::String { .. } => Some(Value::String(String::new())),
        Kind::Number { .. } | Kind::Raw => None,
        Kind::Boolean => Some(Value::Bool(false)),
        Kind::Enum(values) => values.first().cloned(),
        Kind::Array(_) => Some(Value::Array(Vec::new())),
        Kind::Object(object) => Some(Value::Object(initial_object(object))),
        Kind::Variants(variants) => variants.first().and_then(initial_value),
        Kind::Null => Some(Value::Null),
    }
}

/// Like [`initial_value`], but always yields something: for "add item" and
/// variant switches, where the user explicitly asked for a value.
pub(super) fn placeholder_value(schema: &FieldSchema) -> Value {
    if let (Kind::Object(object), None) = (&schema.kind, &schema.default) {
        // A fresh variant object carries its `const` tags ("type": "circle"),
        // otherwise it would not be told apart from its siblings.
        let mut map = initial_object(object);
        for property in &object.properties {
            if let Kind::Enum(values) = &property.schema.kind
                && values.len() == 1
                && !map.contains_key(&property.name)
            {
                map.insert(property.name.clone(), values[0].clone());
            }
        }
        return Value::Object(map);
    }
    initial_value(schema).unwrap_or_else(|| match &schema.kind {
        Kind::Number { .. } => Value::from(0),
        _ => Value::Null,
    })
}

pub(super) fn initial_object(object: &ObjectSchema) -> Map<String, Value> {
    object
        .properties
        .iter()
        .filter_map(|p| Some((p.name.clone(), prefill(&p.schema, p.required)?)))
        .collect()
}

/// Whether the form can draw `value` with the widget for `schema` (ignoring `null`).
pub(super) fn fits(schema: &FieldSchema, value: &Value) -> bool {
    match &schema.kind {
        Kind::String { .. } => value.is_string(),
        Kind::Number { .. } => value.is_number(),
        Kind::Boolean => value.is_boolean(),
        Kind::Enum(_) | Kind::Raw | Kind::Variants(_) => true,
        Kind::Array(_) => value.is_array(),
        Kind::Object(_) => value.is_object(),
        Kind::Null => value.is_null(),
    }
}

/// Picks the variant that best describes `value`: the right JSON type first,
/// then for objects the one whose `const` tags and property names match.
pub(super) fn best_variant(variants: &[FieldSchema], value: &Value) -> Option<usize> {
    variants
        .iter()
        .enumerate()
        .filter_map(|(i, v)| Some((i, variant_score(v, value)?)))
        .max_by_key(|(i, score)| (*score, std::cmp::Reverse(*i)))
        .map(|(i, _)| i)
}

/// Whether `value` can be shown with `variant`'s editor.
pub(super) fn variant_accepts(variant: &FieldSchema, value: &Value) -> bool {
    variant_score(variant, value).is_some()
}

fn variant_score(schema: &FieldSchema, value: &Value) -> Option<i64> {
    if value.is_null() {
        return (schema.nullable || matches!(schema.kind, Kind::Null)).then_some(1);
    }
    match (&schema.kind, value) {
        (Kind::Enum(values), v) => values.contains(v).then_some(10),
        (Kind::Number { integer: true }, Value::Number(n)) => {
            Some(if is_integral(n) { 5 } else { 0 })
        }
        (Kind::Object(object), Value::Object(map)) => {
            let mut score = 1;
            for property in &object.properties {
                match (map.get(&property.name), &property.schema.kind) {
                    (Some(v), Kind::Enum(allowed)) if allowed.len() == 1 => {
                        if allowed[0] != *v {
                            return None;
                        }
                        score += 100;
                    }
                    (Some(_), _) => score += 2,
                    (None, _) if property.required => score -= 3,
                    (None, _) => {}
                }
            }
            score -= map
                .keys()
                .filter(|k| !object.properties.iter().any(|p| &p.name == *k))
                .count() as i64;
            Some(score)
        }
        (Kind::Raw, _) => Some(0),
        (kind, v) => fits(&FieldSchema::with_kind(kind.clone()), v).then_some(3),
    }
}

fn is_integral(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// Parses what the user typed into a number field: any JSON or Rust decimal.
/// Integers stay exact (no trip through `f64`); no clamping, the validator warns.
pub(super) fn parse_number(text: &str) -> Option<Number> {
    let text = text.trim();
    if let Ok(n) = text.parse::<i64>() {
        return Some(n.into());
    }
    if let Ok(n) = text.parse::<u64>() {
        return Some(n.into());
    }
    let float: f64 = text.parse().ok()?;
    let has_exponent = text.contains(['e', 'E']);
    if has_exponent && float.fract() == 0.0 && float.abs() < 9.0e15 {
        // "1e3" is the integer 1000, which an integer field needs.
        return Some((float as i64).into());
    }
    if let Ok(Value::Number(n)) = serde_json::from_str::<Value>(text) {
        // Keeps what was typed ("1.0" stays a float, exact where serde_json is).
        return Some(n);
    }
    Number::from_f64(float)
}

/// How a scalar shows in a combo box or hint: strings bare, the rest as JSON.
pub(super) fn scalar_label(value: &Value) -> String {
    match value {
        Value::String(s) if s.is_empty() => "\"\"".to_owned(),
        other => compact(other),
    }
}

/// Label for a variant in the picker.
pub(super) fn variant_label(index: usize, variant: &FieldSchema) -> String {
    if let Some(title) = &variant.title {
        return title.clone();
    }
    match &variant.kind {
        Kind::Object(object) => {
            // A `const` tag ("type": "circle") names a tagged-union variant best.
            let tag = object.properties.iter().find_map(|p| match &p.schema.kind {
                Kind::Enum(values) if values.len() == 1 => Some(scalar_label(&values[0])),
                _ => None,
            });
            match tag {
                Some(tag) => tag,
                None if object.properties.is_empty() => format!("{}: object", index + 1),
                None => {
                    let names: Vec<&str> = object
                        .properties
                        .iter()
                        .take(3)
                        .map(|p| p.name.as_str())
                        .collect();
                    format!("{}: object ({})", index + 1, names.join(", "))
                }
            }
        }
        Kind::Enum(values) if values.len() == 1 => scalar_label(&values[0]),
        _ => variant.type_name(),
    }
}

/// The hint line under a field: constraints, default, examples.
pub(super) fn hint_line(schema: &FieldSchema) -> String {
    let mut parts = schema.hints.clone();
    if let Some(default) = &schema.default {
        parts.push(format!("default: {}", default_text(default)));
    }
    if !schema.examples.is_empty() {
        let examples: Vec<String> = schema.examples.iter().take(3).map(default_text).collect();
        parts.push(format!("e.g. {}", examples.join(", ")));
    }
    parts.join(" · ")
}

fn default_text(value: &Value) -> String {
    toolscope_core::text_util::clip_chars(&value.to_string(), 60)
}

impl FieldSchema {
    fn with_kind(kind: Kind) -> Self {
        let mut schema = Self::raw();
        schema.kind = kind;
        schema
    }
}
