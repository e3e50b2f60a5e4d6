//! Recognises SDK wrapping of scalar/list returns as `{"result": …}`.

use serde::Serialize;
use serde_json::Value;

use super::deep::{bounded_copy, one_line};
use crate::json_doc::JsonRef;

/// The schema marker fastmcp adds to a wrapped output schema.
pub const FASTMCP_WRAP_MARKER: &str = "x-fastmcp-wrap-result";

/// Evidence that a result was wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WrapSignal {
    /// The output schema carries `"x-fastmcp-wrap-result": true`.
    SchemaMarker,
    /// The result carries `_meta.fastmcp.wrap_result: true`.
    ResultMetaFlag,
    /// The output schema is an object whose only property is a required `result`.
    ResultOnlySchema,
    /// structuredContent is an object whose only key is `result` (supporting evidence only).
    ResultOnlyStructuredContent,
}

impl WrapSignal {
    pub fn describe(&self) -> &'static str {
        match self {
            WrapSignal::SchemaMarker => "output schema has \"x-fastmcp-wrap-result\": true",
            WrapSignal::ResultMetaFlag => "result _meta has fastmcp.wrap_result: true",
            WrapSignal::ResultOnlySchema => {
                "output schema is an object whose only property is a required \"result\""
            }
            WrapSignal::ResultOnlyStructuredContent => {
                "structuredContent is an object whose only key is \"result\""
            }
        }
    }
}

/// A recognised wrapped result, with the signals seen and a plain-words explanation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wrapping {
    pub signals: Vec<WrapSignal>,
    /// The schema of the wrapped value (`properties.result`), when the schema says.
    pub inner_schema: Option<Value>,
    pub explanation: String,
}

impl Wrapping {
    pub fn describe(&self) -> String {
        format!("Wrapped result: {}", self.explanation)
    }

    fn build(signals: Vec<WrapSignal>, inner_schema: Option<Value>) -> Self {
        let inner = inner_schema
            .as_ref()
            .and_then(|s| s.get("type"))
            .map(|t| match t {
                Value::String(s) => format!(" The wrapped value is declared as {s}."),
                other => format!(" The wrapped value is declared as {}.", one_line(other, 80)),
            })
            .unwrap_or_default();
        let seen: Vec<&str> = signals.iter().map(WrapSignal::describe).collect();
        let explanation = format!(
            "a scalar/list return is wrapped as {{\"result\": …}} because structured output \
             had to be an object (signals: {}).{inner}",
            seen.join("; ")
        );
        Wrapping {
            signals,
            inner_schema,
            explanation,
        }
    }
}

/// Checks a tool's output schema alone for wrapping signals.
pub fn output_schema_wraps(schema: &Value) -> Option<Wrapping> {
    let signals = schema_signals(schema);
    if signals.is_empty() {
        return None;
    }
    Some(Wrapping::build(signals, inner_schema(schema)))
}

/// Combines schema, result `_meta` and structuredContent evidence.
///
/// The `{"result": …}` shape of structuredContent alone is not enough (a model may
/// genuinely have one field named `result`); it only supports another signal.
pub(crate) fn detect_wrapping(
    schema: Option<&Value>,
    result_meta: Option<&Value>,
    structured: Option<JsonRef<'_>>,
) -> Option<Wrapping> {
    let mut signals = schema.map(schema_signals).unwrap_or_default();
    if result_meta.is_some_and(meta_flag) {
        signals.push(WrapSignal::ResultMetaFlag);
    }
    if signals.is_empty() {
        return None;
    }
    if structured.is_some_and(is_result_only_object) {
        signals.push(WrapSignal::ResultOnlyStructuredContent);
    }
    Some(Wrapping::build(signals, schema.and_then(inner_schema)))
}

fn schema_signals(schema: &Value) -> Vec<WrapSignal> {
    let mut signals = Vec::new();
    if schema.get(FASTMCP_WRAP_MARKER) == Some(&Value::Bool(true)) {
        signals.push(WrapSignal::SchemaMarker);
    }
    if is_result_only_schema(schema) {
        signals.push(WrapSignal::ResultOnlySchema);
    }
    signals
}

/// `{"type": "object", "properties": {"result": …}, "required": ["result"]}`, nothing else.
fn is_result_only_schema(schema: &Value) -> bool {
    let declares_object = match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        None => true,
        _ => false,
    };
    let only_result = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.len() == 1 && p.contains_key("result"));
    let requires_result = schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.len() == 1 && r[0] == "result");
    declares_object && only_result && requires_result
}

/// The wrapped value's schema, unless it is too deep to copy into the report.
fn inner_schema(schema: &Value) -> Option<Value> {
    bounded_copy(schema.get("properties")?.get("result")?)
}

fn meta_flag(meta: &Value) -> bool {
    meta.get("fastmcp").and_then(|f| f.get("wrap_result")) == Some(&Value::Bool(true))
}

fn is_result_only_object(v: JsonRef<'_>) -> bool {
    v.is_object() && v.len() == 1 && v.get("result").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(value: &Value) -> crate::json_doc::JsonDoc {
        crate::json_doc::JsonDoc::from_value(value)
    }

    fn python_int_schema() -> Value {
        json!({"type": "object", "properties": {"result": {"type": "integer", "title": "Result"}},
               "required": ["result"], "title": "addOutput"})
    }

    #[test]
    fn python_sdk_schema_shape() {
        let w = output_schema_wraps(&python_int_schema()).unwrap();
        assert_eq!(w.signals, vec![WrapSignal::ResultOnlySchema]);
        assert_eq!(
            w.inner_schema.as_ref().and_then(|s| s.get("type")),
            Some(&json!("integer"))
        );
        assert!(w.describe().starts_with(
            "Wrapped result: a scalar/list return is wrapped as {\"result\": …} because \
             structured output had to be an object (signals: output schema is an object"
        ));
        assert!(w.explanation.contains("declared as integer"));
    }

    #[test]
    fn fastmcp_schema_marker() {
        let mut schema = python_int_schema();
        schema[FASTMCP_WRAP_MARKER] = json!(true);
        let w = output_schema_wraps(&schema).unwrap();
        assert_eq!(
            w.signals,
            vec![WrapSignal::SchemaMarker, WrapSignal::ResultOnlySchema]
        );
        // The marker alone, on an unusual schema, still counts.
        let w = output_schema_wraps(&json!({"type": "object", FASTMCP_WRAP_MARKER: true})).unwrap();
        assert_eq!(w.signals, vec![WrapSignal::SchemaMarker]);
    }

    #[test]
    fn meta_flag_without_schema() {
        let meta = json!({"fastmcp": {"wrap_result": true}});
        let w = detect_wrapping(
            None,
            Some(&meta),
            Some(doc(&json!({"result": [1, 2]})).root()),
        )
        .unwrap();
        assert_eq!(
            w.signals,
            vec![
                WrapSignal::ResultMetaFlag,
                WrapSignal::ResultOnlyStructuredContent
            ]
        );
        assert!(w.explanation.contains("fastmcp.wrap_result"));
    }

    #[test]
    fn model_schemas_are_not_wrapped() {
        let model = json!({"type": "object", "properties": {"result": {"type": "string"},
            "count": {"type": "integer"}}, "required": ["result", "count"]});
        assert!(output_schema_wraps(&model).is_none());
        let optional = json!({"type": "object", "properties": {"result": {}}});
        assert!(output_schema_wraps(&optional).is_none());
        let array = json!({"type": "array", "properties": {"result": {}}, "required": ["result"]});
        assert!(output_schema_wraps(&array).is_none());
        // A {"result": …} structuredContent alone is not a signal.
        assert!(detect_wrapping(None, None, Some(doc(&json!({"result": 1})).root())).is_none());
        assert!(detect_wrapping(None, Some(&json!({"fastmcp": {}})), None).is_none());
    }
}
