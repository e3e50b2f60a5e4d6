//! Compiles an output schema (offline) and validates structuredContent against it.

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ReferencingError, ValidationError};
use serde_json::Value;

use super::contract::{ContractCheck, Dialect, MAX_LISTED_VIOLATIONS, SkipReason, Violation};
use super::deep::{MAX_VALIDATED_DEPTH, deeper_than};
use super::error_kind::clip;
use crate::json_doc::{DocJson, JsonRef};

/// Checks `structured` against `schema`; the validator is compiled once per call, offline.
pub(crate) fn check_contract(
    schema: Option<&Value>,
    structured: Option<JsonRef<'_>>,
    skip: Option<SkipReason>,
) -> ContractCheck {
    let Some(schema) = schema else {
        return ContractCheck::NoSchema {
            has_structured_content: structured.is_some(),
        };
    };
    if let Some(reason) = skip {
        return ContractCheck::NotChecked { reason };
    }
    // jsonschema compiles and validates recursively, once per level.
    if deeper_than(schema, MAX_VALIDATED_DEPTH) {
        return ContractCheck::NotChecked {
            reason: SkipReason::SchemaTooDeep,
        };
    }
    // Offline: never fetch a `$ref` (no I/O here), even if another crate enables HTTP features.
    // The instance is validated in place in its compact document: no tree is built for it.
    let validator = match jsonschema::options_for::<DocJson>().offline().build(schema) {
        Ok(v) => v,
        Err(e) => {
            return ContractCheck::SchemaInvalid {
                error: compile_error_text(schema, &e),
            };
        }
    };
    let dialect = Dialect::from_draft(validator.draft());
    let Some(instance) = structured else {
        return ContractCheck::Violated {
            dialect,
            violations: vec![Violation {
                pointer: String::new(),
                keyword: "structuredContent".to_owned(),
                message: "the tool declares an output schema but the result has no \
                          structuredContent"
                    .to_owned(),
                schema_path: String::new(),
                evaluation_path: String::new(),
                missing_property: None,
            }],
            omitted: 0,
        };
    };
    if instance.deeper_than(MAX_VALIDATED_DEPTH) {
        return ContractCheck::NotChecked {
            reason: SkipReason::ValueTooDeep,
        };
    }
    // The boolean check is much cheaper than collecting errors; most results are valid.
    if validator.is_valid(instance) {
        return ContractCheck::Satisfied { dialect };
    }
    let mut violations = Vec::new();
    let mut omitted = 0;
    for error in validator.iter_errors(instance) {
        if violations.len() < MAX_LISTED_VIOLATIONS {
            violations.push(to_violation(&error));
        } else {
            omitted += 1;
        }
    }
    ContractCheck::Violated {
        dialect,
        violations,
        omitted,
    }
}

fn to_violation(error: &ValidationError<'_>) -> Violation {
    // Quoted values are previews, so a failing 1M-node subtree is not printed into it.
    let message = super::violation_text::sentence(error, "structuredContent");
    Violation {
        pointer: error.instance_path().as_str().to_owned(),
        keyword: error.kind().keyword().to_owned(),
        message: clip(&message, 300),
        schema_path: error.schema_path().as_str().to_owned(),
        evaluation_path: error.evaluation_path().as_str().to_owned(),
        missing_property: match error.kind() {
            ValidationErrorKind::Required { property } => Some(
                property
                    .as_str()
                    .map_or_else(|| property.to_string(), str::to_owned),
            ),
            _ => None,
        },
    }
}

/// Explains a compile failure, naming the dialect and where in the schema it went wrong.
fn compile_error_text(schema: &Value, error: &ValidationError<'_>) -> String {
    let declared = schema
        .get("$schema")
        .and_then(Value::as_str)
        .map(|s| format!(" (declared $schema \"{s}\")"))
        .unwrap_or_default();
    let location = error.instance_path().as_str();
    let at = if location.is_empty() {
        String::new()
    } else {
        format!(" at schema location {location}")
    };
    let hint = match error.kind() {
        ValidationErrorKind::Referencing(ReferencingError::Unretrievable { .. }) => {
            ". Remote (http/file) references are never fetched here; inline them or use $defs"
        }
        _ => "",
    };
    let message = if matches!(
        error.instance().as_ref(),
        Value::Array(_) | Value::Object(_)
    ) {
        error.masked_with("the schema value").to_string()
    } else {
        error.to_string()
    };
    format!("{}{at}{declared}{hint}", clip(&message, 400))
}

/// Whether `value` satisfies `schema` (a tool argument's schema, say): false when the schema
/// cannot be compiled. Nothing is fetched (remote `$ref`s fail to compile).
pub fn fits_schema(schema: &Value, value: &Value) -> bool {
    if deeper_than(schema, MAX_VALIDATED_DEPTH) || deeper_than(value, MAX_VALIDATED_DEPTH) {
        return false;
    }
    jsonschema::options()
        .build(schema)
        .is_ok_and(|validator| validator.is_valid(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DRAFT7: &str = "http://json-schema.org/draft-07/schema#";

    fn check(schema: Value, instance: Value) -> ContractCheck {
        let doc = crate::json_doc::JsonDoc::from_value(&instance);
        check_contract(Some(&schema), Some(doc.root()), None)
    }

    fn violations(c: ContractCheck) -> (Dialect, Vec<Violation>) {
        match c {
            ContractCheck::Violated {
                dialect,
                violations,
                ..
            } => (dialect, violations),
            other => panic!("expected violations, got {other:?}"),
        }
    }

    fn keyed(v: &[Violation]) -> Vec<(&str, &str)> {
        v.iter()
            .map(|v| (v.pointer.as_str(), v.keyword.as_str()))
            .collect()
    }

    #[test]
    fn default_dialect_is_2020_12_and_draft7_is_honoured() {
        let schema = json!({"type": "object"});
        assert_eq!(
            check(schema, json!({})),
            ContractCheck::Satisfied {
                dialect: Dialect::Draft2020_12
            }
        );
        let c = check(json!({"$schema": DRAFT7, "type": "object"}), json!({}));
        assert_eq!(
            c,
            ContractCheck::Satisfied {
                dialect: Dialect::Draft7
            }
        );
        assert_eq!(
            c.describe(),
            "Contract satisfied: structuredContent matches the output schema (JSON Schema draft-07)"
        );
    }

    #[test]
    fn tuple_items_depend_on_dialect() {
        let tuple = json!([{"type": "integer"}, {"type": "string"}]);
        // draft-07: array-form `items` is a tuple.
        let (dialect, v) = violations(check(
            json!({"$schema": DRAFT7, "items": tuple}),
            json!([1, 2]),
        ));
        assert_eq!(dialect, Dialect::Draft7);
        assert_eq!(keyed(&v), vec![("/1", "type")]);
        assert_eq!(v[0].schema_path, "/items/1/type");
        // 2020-12: array-form `items` is not allowed at all; `prefixItems` replaces it.
        match check(json!({"items": tuple}), json!([1, 2])) {
            ContractCheck::SchemaInvalid { error } => {
                assert!(error.contains("at schema location /items"), "{error}");
            }
            other => panic!("{other:?}"),
        }
        let (_, v) = violations(check(json!({"prefixItems": tuple}), json!([1, 2])));
        assert_eq!(v[0].schema_path, "/prefixItems/1/type");
    }

    #[test]
    fn ref_siblings_depend_on_dialect() {
        let props = json!({"a": {"$ref": "#/definitions/int", "type": "string"}});
        let d7 = json!({"$schema": DRAFT7, "definitions": {"int": {"type": "integer"}}, "properties": props});
        // draft-07 ignores keywords beside $ref.
        assert_eq!(
            check(d7, json!({"a": 1})),
            ContractCheck::Satisfied {
                dialect: Dialect::Draft7
            }
        );
        let modern = json!({"$defs": {"int": {"type": "integer"}},
            "properties": {"a": {"$ref": "#/$defs/int", "type": "string"}}});
        let (_, v) = violations(check(modern, json!({"a": 1})));
        assert_eq!(keyed(&v), vec![("/a", "type")]);
        assert_eq!(v[0].schema_path, "/properties/a/type");
    }

    #[test]
    fn refs_into_defs_and_definitions() {
        let s = json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/point"}},
            "$defs": {"point": {"type": "object", "required": ["x"], "properties": {"x": {"type": "number"}}}}});
        let (_, v) = violations(check(s, json!({"p": {"x": "one"}})));
        assert_eq!(keyed(&v), vec![("/p/x", "type")]);
        assert_eq!(v[0].schema_path, "/$defs/point/properties/x/type");
        assert_eq!(v[0].evaluation_path, "/properties/p/$ref/properties/x/type");
        let s = json!({"$schema": DRAFT7, "properties": {"p": {"$ref": "#/definitions/point"}},
            "definitions": {"point": {"required": ["x"]}}});
        let (_, v) = violations(check(s, json!({"p": {}})));
        assert_eq!(keyed(&v), vec![("/p", "required")]);
    }

    #[test]
    fn network_and_broken_refs_are_schema_invalid() {
        for schema in [
            json!({"$ref": "https://example.com/schema.json"}),
            json!({"properties": {"a": {"$ref": "http://example.com/defs.json#/a"}}}),
            json!({"$ref": "file:///etc/schema.json"}),
        ] {
            match check(schema, json!({"a": 1})) {
                ContractCheck::SchemaInvalid { error } => {
                    assert!(error.contains("never fetched"), "{error}");
                }
                other => panic!("{other:?}"),
            }
        }
        let c = check(json!({"$ref": "#/$defs/missing"}), json!(1));
        assert!(matches!(c, ContractCheck::SchemaInvalid { .. }), "{c:?}");
        assert!(c.describe().starts_with("Output schema cannot be compiled"));
        let c = check(
            json!({"$schema": "https://example.com/custom", "type": "object"}),
            json!({}),
        );
        match c {
            ContractCheck::SchemaInvalid { error } => assert!(error.contains("custom"), "{error}"),
            other => panic!("{other:?}"),
        }
        assert!(check(json!({"type": "strng"}), json!(1)).is_violated());
    }

    #[test]
    fn multiple_violations_each_located() {
        let s = json!({"type": "object", "required": ["id", "name"], "additionalProperties": false,
            "properties": {"id": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}},
                           "score": {"minimum": 0}}});
        let (_, v) = violations(check(
            s,
            json!({"tags": ["a", 2], "score": -1, "extra": {"big": [1, 2]}}),
        ));
        let mut got = keyed(&v);
        got.sort();
        assert_eq!(
            got,
            vec![
                ("", "additionalProperties"),
                ("", "required"),
                ("", "required"),
                ("/score", "minimum"),
                ("/tags/1", "type")
            ]
        );
        assert!(
            v.iter()
                .all(|v| !v.message.is_empty() && !v.schema_path.is_empty())
        );
        let c = check(json!({"type": "string"}), json!({"k": "v"}));
        let (_, v) = violations(c.clone());
        assert_eq!(
            v[0].message,
            "structuredContent should be a string, but it is an object with 1 key"
        );
        assert!(
            c.describe()
                .contains("in 1 place; first: structuredContent should be a string"),
            "{}",
            c.describe()
        );
    }

    #[test]
    fn missing_structured_content_is_a_violation() {
        let c = check_contract(Some(&json!({"type": "object"})), None, None);
        let (_, v) = violations(c);
        assert_eq!(keyed(&v), vec![("", "structuredContent")]);
    }

    #[test]
    fn skipped_and_schemaless_cases() {
        let schema = json!({"type": "object", "required": ["x"]});
        let empty = crate::json_doc::JsonDoc::from_value(&json!({}));
        let c = check_contract(
            Some(&schema),
            Some(empty.root()),
            Some(SkipReason::ToolError),
        );
        assert_eq!(
            c,
            ContractCheck::NotChecked {
                reason: SkipReason::ToolError
            }
        );
        assert!(!c.is_violated());
        let c = check_contract(None, None, None);
        assert_eq!(
            c.describe(),
            "No output schema and no structuredContent: an application only gets text"
        );
        let empty = crate::json_doc::JsonDoc::from_value(&json!({}));
        let c = check_contract(None, Some(empty.root()), None);
        assert_eq!(
            c,
            ContractCheck::NoSchema {
                has_structured_content: true
            }
        );
    }

    #[test]
    fn violations_are_capped_but_counted() {
        let items: Vec<Value> = (0..MAX_LISTED_VIOLATIONS + 5).map(|_| json!("x")).collect();
        let c = check(json!({"items": {"type": "integer"}}), Value::Array(items));
        match c {
            ContractCheck::Violated {
                violations,
                omitted,
                ..
            } => {
                assert_eq!((violations.len(), omitted), (MAX_LISTED_VIOLATIONS, 5));
            }
            other => panic!("{other:?}"),
        }
    }
}
