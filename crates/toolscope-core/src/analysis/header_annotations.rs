//! SEP-2243 (protocol 2026-07-28): a tool's `inputSchema` may mark arguments with
//! `x-mcp-header: <Name>` so that a Streamable HTTP client mirrors them into
//! `Mcp-Param-<Name>` headers. A client must exclude a tool whose annotations break the rules;
//! a debugger shows it flagged instead. The walk uses its own stack, so any depth is safe.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// The annotation keyword.
pub const HEADER_KEYWORD: &str = "x-mcp-header";
/// Schema levels examined (a property's schema is one level below its parent's); annotations
/// deeper than this are not seen.
pub const MAX_CHECKED_DEPTH: usize = 256;
/// The most reasons one verdict lists.
const MAX_REASONS: usize = 5;

/// What the check found in one `inputSchema`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeaderCheck {
    /// Why the annotations are invalid; empty when they are valid (or absent).
    pub reasons: Vec<String>,
    /// The schema nests deeper than [`MAX_CHECKED_DEPTH`], so part of it was not examined.
    pub cut_at_depth: bool,
}

impl HeaderCheck {
    pub fn is_valid(&self) -> bool {
        self.reasons.is_empty()
    }
}

/// Checks every `x-mcp-header` of an `inputSchema`: a non-empty RFC 9110 token, unique
/// case-insensitively, on a property of type string, integer or boolean (a `number` has no
/// single text form to put in a header, so it does not qualify) reached from the root through
/// `properties` alone.
pub fn check_header_annotations(input_schema: &Value) -> HeaderCheck {
    let mut check = HeaderCheck::default();
    let Value::Object(root) = input_schema else {
        return check;
    };
    if root.contains_key(HEADER_KEYWORD) {
        check
            .reasons
            .push("x-mcp-header is on the schema root, not on a property".to_owned());
    }
    // Lower-cased header name → the property that first used it.
    let mut seen: HashMap<String, String> = HashMap::new();
    // (schema, path from the root, whether only `properties` led here, depth)
    let mut stack: Vec<(&Map<String, Value>, String, bool, usize)> =
        vec![(root, String::new(), true, 1)];
    while let Some((schema, path, on_chain, depth)) = stack.pop() {
        // The root's own annotation was reported above.
        if let Some(header) = schema.get(HEADER_KEYWORD).filter(|_| depth > 1) {
            let reason = if on_chain {
                annotation_problem(header, schema, &path, &mut seen)
            } else {
                Some(format!(
                    "{path}: x-mcp-header is only allowed on a property reached through \
                     `properties` alone"
                ))
            };
            check.reasons.extend(reason);
        }
        if depth >= MAX_CHECKED_DEPTH {
            check.cut_at_depth |= schema.values().any(|v| v.is_object() || v.is_array());
            continue;
        }
        for (keyword, value) in schema.iter().rev() {
            let child_path = |name: &str| {
                if path.is_empty() {
                    name.to_owned()
                } else {
                    format!("{path}.{name}")
                }
            };
            match keyword.as_str() {
                // The annotation itself, instance data, or property names: not subschemas.
                HEADER_KEYWORD | "default" | "const" | "enum" | "examples"
                | "dependentRequired" | "required" => {}
                "properties" | "$defs" | "definitions" | "dependencies" | "dependentSchemas"
                | "patternProperties" => {
                    let along = on_chain && keyword == "properties";
                    for (name, sub) in value.as_object().into_iter().flatten().rev() {
                        if let Value::Object(sub) = sub {
                            let sub_path = child_path(&format!("{keyword}.{name}"));
                            stack.push((sub, sub_path, along, depth + 1));
                        }
                    }
                }
                _ => match value {
                    Value::Object(sub) => stack.push((sub, child_path(keyword), false, depth + 1)),
                    Value::Array(items) => {
                        for (n, item) in items.iter().enumerate().rev() {
                            if let Value::Object(sub) = item {
                                let sub_path = child_path(&format!("{keyword}[{n}]"));
                                stack.push((sub, sub_path, false, depth + 1));
                            }
                        }
                    }
                    _ => {}
                },
            }
        }
    }
    if check.reasons.len() > MAX_REASONS {
        let more = check.reasons.len() - MAX_REASONS;
        check.reasons.truncate(MAX_REASONS);
        check.reasons.push(format!("and {more} more"));
    }
    check
}

/// The problem with one annotation on the `properties` chain, if any.
fn annotation_problem(
    header: &Value,
    schema: &Map<String, Value>,
    path: &str,
    seen: &mut HashMap<String, String>,
) -> Option<String> {
    let Value::String(header) = header else {
        return Some(format!(
            "{path}: x-mcp-header is {}, not a string",
            crate::text_util::json_type_phrase(header)
        ));
    };
    if header.is_empty() {
        return Some(format!("{path}: x-mcp-header is empty"));
    }
    if let Some(bad) = header.chars().find(|&c| !is_tchar(c)) {
        return Some(format!(
            "{path}: x-mcp-header {header:?} is not an HTTP token (it contains {bad:?})"
        ));
    }
    if let Some(first) = seen.get(&header.to_ascii_lowercase()) {
        return Some(format!(
            "{path}: x-mcp-header {header:?} repeats the one on {first} (names are \
             case-insensitive)"
        ));
    }
    seen.insert(header.to_ascii_lowercase(), path.to_owned());
    let primitive = |t: &Value| matches!(t.as_str(), Some("string" | "integer" | "boolean"));
    let ok = match schema.get("type") {
        Some(Value::Array(types)) => {
            types.iter().all(|t| primitive(t) || t == "null") && types.iter().any(primitive)
        }
        Some(single) => primitive(single),
        None => false,
    };
    (!ok).then(|| {
        let found = match schema.get("type") {
            None => "not given".to_owned(),
            Some(Value::String(t)) => format!("{t:?}"),
            Some(Value::Array(types)) if types.iter().all(Value::is_string) => {
                let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
                format!("{names:?}")
            }
            Some(other) => crate::text_util::json_type_phrase(other).to_owned(),
        };
        format!(
            "{path}: x-mcp-header {header:?} is on a property whose type is {found}, not \
             string, integer or boolean"
        )
    })
}

/// RFC 9110 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reasons(schema: Value) -> Vec<String> {
        check_header_annotations(&schema).reasons
    }

    #[test]
    fn valid_annotations_pass() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "Count_1"},
            "flag": {"type": ["boolean", "null"], "x-mcp-header": "Flag"},
            "nested": {"type": "object", "properties": {
                "tenant": {"type": "string", "x-mcp-header": "Tenant"}
            }},
            "x-mcp-header": {"type": "string"},
            "plain": {"type": "string", "default": {"x-mcp-header": "ignored data"}}
        }});
        assert_eq!(reasons(schema), Vec::<String>::new());
    }

    #[test]
    fn a_number_property_does_not_qualify() {
        let found = reasons(json!({"type": "object", "properties": {
            "ratio": {"type": "number", "x-mcp-header": "Ratio"}
        }}));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("\"number\", not string, integer or boolean"),
            "{found:?}"
        );
    }

    #[test]
    fn each_rule_is_enforced() {
        let bad_token = reasons(
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Bad Name:"}}}),
        );
        assert!(bad_token[0].contains("not an HTTP token"), "{bad_token:?}");
        let empty = reasons(
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
        );
        assert!(empty[0].contains("empty"));
        let crlf = reasons(
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A\r\nB"}}}),
        );
        assert!(crlf[0].contains("not an HTTP token"));
        let duplicate = reasons(json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "Region"},
            "b": {"type": "string", "x-mcp-header": "REGION"}
        }}));
        assert!(duplicate[0].contains("properties.a"), "{duplicate:?}");
        let object = reasons(
            json!({"type": "object", "properties": {"a": {"type": "object", "x-mcp-header": "A"}}}),
        );
        assert!(object[0].contains("type is \"object\""), "{object:?}");
        let untyped =
            reasons(json!({"type": "object", "properties": {"a": {"x-mcp-header": "A"}}}));
        assert!(untyped[0].contains("not given"));
        let not_string = reasons(
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": 5}}}),
        );
        assert!(not_string[0].contains("a number"));
        let root = reasons(json!({"type": "object", "x-mcp-header": "Root"}));
        assert!(root[0].contains("root"));
    }

    #[test]
    fn annotations_off_the_properties_chain_are_invalid() {
        for keyword in ["anyOf", "oneOf", "allOf"] {
            let found = reasons(json!({"type": "object", "properties": {"a":
                {(keyword): [{"type": "string", "x-mcp-header": "A"}]}}}));
            assert!(
                found[0].contains(&format!("properties.a.{keyword}[0]")),
                "{found:?}"
            );
        }
        for keyword in ["items", "additionalProperties", "if", "then", "else", "not"] {
            let found = reasons(json!({"type": "object", "properties": {"a":
                {(keyword): {"type": "string", "x-mcp-header": "A"}}}}));
            assert!(
                found[0].contains("through `properties` alone"),
                "{keyword}: {found:?}"
            );
        }
        let defs = reasons(json!({"type": "object", "$defs": {"d": {"type": "object",
            "properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}}));
        assert!(defs[0].contains("$defs.d.properties.a"), "{defs:?}");
    }

    #[test]
    fn a_10000_deep_schema_is_cut_not_overflowed() {
        let worker = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let mut text = String::new();
                for _ in 0..10_000 {
                    text.push_str(r#"{"type":"object","properties":{"p":"#);
                }
                text.push_str(r#"{"type":"string","x-mcp-header":"Deep"}"#);
                text.push_str(&"}}".repeat(10_000));
                let schema = crate::deep_json::parse(&text).unwrap();
                let check = check_header_annotations(&schema);
                assert!(check.cut_at_depth);
                assert!(check.is_valid());
                crate::deep_json::drop_value(schema);
            })
            .unwrap();
        worker.join().unwrap();
    }
}
