//! Was the call a success, a tool-reported failure, or a protocol-level error?

use serde::Serialize;
use serde_json::Value;

use super::deep::{bounded_copy, one_line, too_deep_note};

/// How a `tools/call` ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ErrorKind {
    /// A result without `isError: true`.
    Success,
    /// A result with `isError: true`; `message` is the first text block, if any.
    ToolError { message: Option<String> },
    /// `resultType: "input_required"` left unanswered: the server asks for input first.
    InputRequired,
    /// A JSON-RPC error response: the request itself was rejected.
    ProtocolError {
        code: Option<i64>,
        message: Option<String>,
        data: Option<Value>,
    },
}

impl ErrorKind {
    /// Reads a JSON-RPC error; accepts the whole response envelope or just its `error` member.
    pub(crate) fn from_rpc_error(value: &Value) -> Self {
        let error = value
            .get("error")
            .filter(|e| e.is_object())
            .unwrap_or(value);
        ErrorKind::ProtocolError {
            code: error.get("code").and_then(Value::as_i64),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
            data: error.get("data").map(|data| {
                bounded_copy(data).unwrap_or_else(|| Value::String(too_deep_note("the error data")))
            }),
        }
    }

    pub fn is_success(&self) -> bool {
        matches!(self, ErrorKind::Success)
    }

    pub fn describe(&self) -> String {
        match self {
            ErrorKind::Success => "Success: the tool ran and returned a result".to_owned(),
            ErrorKind::InputRequired => "Input required: the server asks the client for input \
                                         before it gives a result, and the call stopped here"
                .to_owned(),
            ErrorKind::ToolError { message } => {
                let base = "Tool error (isError: true): the tool ran and reported a failure; \
                            this is not a protocol error";
                match message {
                    Some(m) => format!("{base}. It said: {}", clip(m, 300)),
                    None => format!("{base}. It gave no text explaining why"),
                }
            }
            ErrorKind::ProtocolError {
                code,
                message,
                data,
            } => {
                let code_part = match code {
                    Some(c) => match rpc_code_name(*c) {
                        Some(name) => format!("JSON-RPC error {c}, {name}"),
                        None => format!("JSON-RPC error {c}"),
                    },
                    None => "JSON-RPC error without a numeric code".to_owned(),
                };
                let msg = message.as_deref().unwrap_or("(no message)");
                let data_part = match data {
                    Some(d) => format!(" Data: {}.", one_line(d, 200)),
                    None => String::new(),
                };
                format!(
                    "Protocol error ({code_part}): {}. The server rejected the request \
                     itself, so the tool may not have run; this is not a tool error.{data_part}",
                    clip(msg, 300)
                )
            }
        }
    }
}

/// Standard JSON-RPC codes, plus MCP's resource-not-found, in plain words.
fn rpc_code_name(code: i64) -> Option<&'static str> {
    Some(match code {
        -32700 => "parse error: the server could not parse the JSON",
        -32600 => "invalid request",
        -32601 => "method not found",
        -32602 => "invalid params, e.g. an unknown tool or bad arguments",
        -32603 => "internal error",
        -32002 => "resource not found",
        -32042 => "URL elicitation required: the person must open a page first",
        -32099..=-32000 => "server error",
        _ => return None,
    })
}

pub(crate) use crate::text_util::{clip_chars as clip, count_noun};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rpc_error_from_envelope_or_bare_object() {
        let env = json!({"jsonrpc": "2.0", "id": 1,
            "error": {"code": -32602, "message": "Unknown tool: foo"}});
        let kind = ErrorKind::from_rpc_error(&env);
        assert!(matches!(
            kind,
            ErrorKind::ProtocolError {
                code: Some(-32602),
                ..
            }
        ));
        let text = kind.describe();
        assert!(
            text.starts_with("Protocol error (JSON-RPC error -32602"),
            "{text}"
        );
        assert!(text.contains("Unknown tool: foo"));

        let bare = json!({"code": -32603, "message": "boom", "data": {"x": 1}});
        let text = ErrorKind::from_rpc_error(&bare).describe();
        assert!(text.contains("internal error") && text.contains("Data: {\"x\":1}"));
    }
}
