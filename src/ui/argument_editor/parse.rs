//! Turns a tool's JSON Schema into the form's shape model: resolves local
//! `$ref`s (with a recursion guard), folds the three spellings of "nullable",
//! and turns `anyOf` / `oneOf` / multi-type into variants.

use serde_json::{Map, Value};

use super::schema::{Additional, FieldSchema, Kind, ObjectSchema, Property, compact};
use toolscope_core::analysis::deeper_than;
use toolscope_core::deep_json::SHOWN_DEPTH;
use toolscope_core::json_pointer::resolve_local_ref;

/// Deeper nesting than this is drawn as inline JSON (guards pathological schemas).
const MAX_DEPTH: usize = 24;
/// How often one `$ref` may be open on the current path before we stop expanding it.
const MAX_SAME_REF: usize = 2;

/// Parses `schema`, resolving local `$ref`s against `root`.
pub(super) fn parse(root: &Value) -> FieldSchema {
    let mut parser = Parser {
        root,
        ref_stack: Vec::new(),
    };
    parser.parse(root, 0)
}

struct Parser<'a> {
    root: &'a Value,
    ref_stack: Vec<String>,
}

impl<'a> Parser<'a> {
    fn parse(&mut self, node: &'a Value, depth: usize) -> FieldSchema {
        let Some(obj) = node.as_object() else {
            // `true`, `false` or garbage: nothing to draw but JSON.
            return FieldSchema::raw();
        };
        if depth > MAX_DEPTH {
            return annotate(FieldSchema::raw(), obj);
        }
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            return self.parse_ref(reference, obj, depth);
        }
        let mut schema = self.parse_body(obj, depth);
        schema = annotate(schema, obj);
        if obj.get("nullable").and_then(Value::as_bool) == Some(true) {
            schema.nullable = true;
        }
        schema
    }

    fn parse_ref(
        &mut self,
        reference: &str,
        obj: &'a Map<String, Value>,
        depth: usize,
    ) -> FieldSchema {
        let open = self.ref_stack.iter().filter(|r| *r == reference).count();
        let target = resolve_local_ref(self.root, reference);
        let mut schema = match target {
            Some(target) if open < MAX_SAME_REF => {
                self.ref_stack.push(reference.to_owned());
                let parsed = self.parse(target, depth + 1);
                self.ref_stack.pop();
                parsed
            }
            Some(_) => {
                let mut raw = FieldSchema::raw();
                raw.hints
                    .push(format!("recursive {reference}: edit as JSON"));
                raw
            }
            None => {
                let mut raw = FieldSchema::raw();
                raw.hints
                    .push(format!("unresolved {reference}: edit as JSON"));
                raw
            }
        };
        // Siblings of `$ref` (title, description, default) override the target's.
        schema = annotate(schema, obj);
        if obj.get("nullable").and_then(Value::as_bool) == Some(true) {
            schema.nullable = true;
        }
        schema
    }

    fn parse_body(&mut self, obj: &'a Map<String, Value>, depth: usize) -> FieldSchema {
        if let Some(value) = obj.get("const") {
            return match shown_copy(value) {
                Some(value) => enum_schema(vec![value]),
                None => too_deep("const"),
            };
        }
        if let Some(values) = obj.get("enum").and_then(Value::as_array) {
            return match values.iter().map(shown_copy).collect() {
                Some(values) => enum_schema(values),
                None => too_deep("enum"),
            };
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(options) = obj.get(keyword).and_then(Value::as_array) {
                return self.parse_alternatives(options, depth);
            }
        }
        if let Some(parts) = obj.get("allOf").and_then(Value::as_array) {
            return self.parse_all_of(parts, depth);
        }
        let types: Vec<&str> = match obj.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => infer_type(obj).into_iter().collect(),
        };
        let nullable = types.contains(&"null");
        let non_null: Vec<&str> = types.into_iter().filter(|t| *t != "null").collect();
        let mut schema = match non_null.as_slice() {
            [] if nullable => FieldSchema::of(Kind::Null),
            [] => FieldSchema::raw(),
            [single] => self.parse_typed(single, obj, depth),
            several => FieldSchema::of(Kind::Variants(
                several
                    .iter()
                    .map(|t| self.parse_typed(t, obj, depth))
                    .collect(),
            )),
        };
        schema.nullable |= nullable && !matches!(schema.kind, Kind::Null);
        schema
    }

    fn parse_typed(&mut self, ty: &str, obj: &'a Map<String, Value>, depth: usize) -> FieldSchema {
        let mut hints = Vec::new();
        let hint = |hints: &mut Vec<String>, label: &str, key: &str| {
            if let Some(v) = obj.get(key) {
                hints.push(format!("{label} {}", compact(v)));
            }
        };
        let kind = match ty {
            "string" => {
                if let Some(format) = obj.get("format").and_then(Value::as_str) {
                    hints.push(format!("format: {format}"));
                }
                hint(&mut hints, "min length", "minLength");
                hint(&mut hints, "max length", "maxLength");
                hint(&mut hints, "pattern", "pattern");
                let long_format = matches!(
                    obj.get("format").and_then(Value::as_str),
                    Some("textarea" | "markdown" | "multiline")
                );
                let long_max = obj
                    .get("maxLength")
                    .and_then(Value::as_u64)
                    .is_some_and(|max| max > 200);
                Kind::String {
                    multiline: long_format || long_max || obj.contains_key("contentMediaType"),
                }
            }
            "integer" | "number" => {
                hint(&mut hints, "min", "minimum");
                hint(&mut hints, "max", "maximum");
                hint(&mut hints, "greater than", "exclusiveMinimum");
                hint(&mut hints, "less than", "exclusiveMaximum");
                hint(&mut hints, "multiple of", "multipleOf");
                Kind::Number {
                    integer: ty == "integer",
                }
            }
            "boolean" => Kind::Boolean,
            "null" => Kind::Null,
            "array" => {
                hint(&mut hints, "min items", "minItems");
                hint(&mut hints, "max items", "maxItems");
                if obj.get("uniqueItems").and_then(Value::as_bool) == Some(true) {
                    hints.push("unique items".to_owned());
                }
                match obj.get("items") {
                    // Tuples (`items: [..]`, `prefixItems`) are edited as JSON.
                    Some(items) if items.is_object() && !obj.contains_key("prefixItems") => {
                        Kind::Array(Box::new(self.parse(items, depth + 1)))
                    }
                    None if !obj.contains_key("prefixItems") => {
                        Kind::Array(Box::new(FieldSchema::raw()))
                    }
                    _ => Kind::Raw,
                }
            }
            "object" => Kind::Object(self.parse_object(obj, depth)),
            _ => Kind::Raw,
        };
        let mut schema = FieldSchema::of(kind);
        schema.hints = hints;
        schema
    }

    fn parse_object(&mut self, obj: &'a Map<String, Value>, depth: usize) -> ObjectSchema {
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let properties = obj
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .map(|(name, sub)| Property {
                        name: name.clone(),
                        required: required.contains(&name.as_str()),
                        schema: self.parse(sub, depth + 1),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let additional = match obj.get("additionalProperties") {
            None if obj.contains_key("patternProperties") => Additional::Any,
            None => Additional::Unspecified,
            Some(Value::Bool(false)) => Additional::Forbidden,
            Some(Value::Bool(true)) => Additional::Any,
            Some(sub) if sub.as_object().is_some_and(Map::is_empty) => Additional::Any,
            Some(sub) => Additional::Schema(Box::new(self.parse(sub, depth + 1))),
        };
        ObjectSchema {
            properties,
            additional,
        }
    }

    fn parse_alternatives(&mut self, options: &'a [Value], depth: usize) -> FieldSchema {
        let (nulls, rest): (Vec<&Value>, Vec<&Value>) =
            options.iter().partition(|o| is_null_schema(o));
        let nullable = !nulls.is_empty();
        let mut schema = match rest.as_slice() {
            [] if nullable => FieldSchema::of(Kind::Null),
            [] => FieldSchema::raw(),
            [single] => self.parse(single, depth + 1),
            several => FieldSchema::of(Kind::Variants(
                several.iter().map(|o| self.parse(o, depth + 1)).collect(),
            )),
        };
        schema.nullable |= nullable && !matches!(schema.kind, Kind::Null);
        schema
    }

    fn parse_all_of(&mut self, parts: &'a [Value], depth: usize) -> FieldSchema {
        let parsed: Vec<FieldSchema> = parts.iter().map(|p| self.parse(p, depth + 1)).collect();
        if parsed.len() == 1 {
            return parsed.into_iter().next().unwrap_or_else(FieldSchema::raw);
        }
        // The common `allOf` of object schemas merges into one object; anything else is JSON.
        let mut merged = ObjectSchema::default();
        for part in parsed {
            let Kind::Object(object) = part.kind else {
                return FieldSchema::raw();
            };
            for property in object.properties {
                match merged
                    .properties
                    .iter_mut()
                    .find(|p| p.name == property.name)
                {
                    Some(existing) => existing.required |= property.required,
                    None => merged.properties.push(property),
                }
            }
            if object.additional != Additional::Unspecified {
                merged.additional = object.additional;
            }
        }
        FieldSchema::of(Kind::Object(merged))
    }
}

fn enum_schema(mut values: Vec<Value>) -> FieldSchema {
    let had_null = values.iter().any(Value::is_null);
    values.retain(|v| !v.is_null());
    let mut schema = if values.is_empty() {
        FieldSchema::of(Kind::Null)
    } else {
        FieldSchema::of(Kind::Enum(values))
    };
    schema.nullable = had_null && !matches!(schema.kind, Kind::Null);
    schema
}

/// `{type: null}`, `{const: null}`, `{enum: [null]}`.
fn is_null_schema(schema: &Value) -> bool {
    let Some(obj) = schema.as_object() else {
        return false;
    };
    obj.get("type").and_then(Value::as_str) == Some("null")
        || obj.get("const").is_some_and(Value::is_null)
        || obj
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.len() == 1 && e[0].is_null())
}

fn infer_type(obj: &Map<String, Value>) -> Option<&'static str> {
    if obj.contains_key("properties")
        || obj.contains_key("additionalProperties")
        || obj.contains_key("required")
    {
        Some("object")
    } else if obj.contains_key("items") || obj.contains_key("prefixItems") {
        Some("array")
    } else {
        None
    }
}

fn annotate(mut schema: FieldSchema, obj: &Map<String, Value>) -> FieldSchema {
    if let Some(title) = obj.get("title").and_then(Value::as_str) {
        schema.title = Some(title.to_owned());
    }
    if let Some(description) = obj.get("description").and_then(Value::as_str) {
        schema.description = Some(description.to_owned());
    }
    if let Some(default) = obj.get("default") {
        schema.default = shown_copy(default);
        if schema.default.is_none() {
            schema.hints.push(too_deep_hint("default"));
        }
    }
    let examples: &[Value] = match obj.get("examples").or_else(|| obj.get("example")) {
        Some(Value::Array(examples)) if obj.contains_key("examples") => examples,
        Some(example) => std::slice::from_ref(example),
        None => &[],
    };
    if !examples.is_empty() {
        schema.examples = examples.iter().filter_map(shown_copy).collect();
        if schema.examples.len() < examples.len() {
            schema.hints.push(too_deep_hint("an example"));
        }
    }
    schema
}

/// A copy of a value from the schema (default, example, enum member) for the form, unless it
/// nests deeper than [`SHOWN_DEPTH`]: copying, printing and dropping it would recurse per level.
fn shown_copy(value: &Value) -> Option<Value> {
    (!deeper_than(value, SHOWN_DEPTH)).then(|| value.clone())
}

fn too_deep_hint(what: &str) -> String {
    format!("{what} nested deeper than {SHOWN_DEPTH} levels is not used")
}

fn too_deep(what: &str) -> FieldSchema {
    let mut raw = FieldSchema::raw();
    raw.hints
        .push(format!("{}: edit as JSON", too_deep_hint(what)));
    raw
}
