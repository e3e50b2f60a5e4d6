//! A response exactly as the server sent it, and the words for a JSON-RPC error in it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{
    deep_json::drop_value,
    json_doc::{JsonDoc, JsonRef},
};

/// A response exactly as the server sent it: the whole message as a compact document (its
/// text as received), and which member answers (`result`, or `error` for a JSON-RPC error).
#[derive(Debug, Clone)]
pub struct RawResponse {
    message: Arc<JsonDoc>,
    /// Tape position of the answering member; `None` when the message has neither (it then
    /// reads as a `null` result, which the analysis flags).
    member: Option<u32>,
    is_rpc_error: bool,
}

/// What a response without `result` and `error` answers.
static NO_MEMBER: std::sync::LazyLock<JsonDoc> = std::sync::LazyLock::new(JsonDoc::null);

impl RawResponse {
    /// The response in `message`: its `error` member if it has one, else its `result`.
    pub fn from_message(message: Arc<JsonDoc>) -> Self {
        let root = message.root();
        let (member, is_rpc_error) = match (root.get("error"), root.get("result")) {
            (Some(error), _) => (Some(error.id()), true),
            (None, Some(result)) => (Some(result.id()), false),
            (None, None) => (None, false),
        };
        Self {
            message,
            member,
            is_rpc_error,
        }
    }

    /// A response to request `id` whose `result` is `value` (rmcp's parse, tests).
    pub fn new_result(id: &str, value: &Value) -> Self {
        Self::new_message(id, "result", value)
    }

    /// A JSON-RPC error response to request `id` whose `error` is `value`.
    pub fn new_rpc_error(id: &str, value: &Value) -> Self {
        Self::new_message(id, "error", value)
    }

    /// A response to request `id` whose `member` (`result` or `error`) is `part`, its text
    /// exactly as sent (a 2026-07-28 task's result arrives inside a `tasks/get` answer).
    pub fn embedded(id: &str, member: &str, part: JsonRef<'_>) -> Self {
        Self::with_member_text(id, member, part.raw())
    }

    /// A response whose `member` is the JSON `text` (of any depth: nothing is copied into a
    /// `Value`).
    fn with_member_text(id: &str, member: &str, text: &str) -> Self {
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":{},"{member}":{text}}}"#,
            id_value(id)
        );
        let message = JsonDoc::parse(message)
            .unwrap_or_else(|_| JsonDoc::from_value(&json!({"jsonrpc": "2.0"})));
        Self::from_message(Arc::new(message))
    }

    fn new_message(id: &str, member: &str, value: &Value) -> Self {
        let message = json!({"jsonrpc": "2.0", "id": id_value(id), member: value});
        Self::from_message(Arc::new(JsonDoc::from_value(&message)))
    }

    /// The whole message as received (without its line ending).
    pub fn text(&self) -> &str {
        self.message.text().trim()
    }

    /// A `tools/call` answer that is a 2026-07-28 task handle (`resultType: "task"`) rather
    /// than the call's result.
    pub fn is_task_handle(&self) -> bool {
        !self.is_rpc_error
            && self
                .member()
                .get("resultType")
                .and_then(JsonRef::as_str)
                .as_deref()
                == Some("task")
    }

    pub fn is_rpc_error(&self) -> bool {
        self.is_rpc_error
    }

    /// The answering member: the result, or the JSON-RPC error object.
    pub fn member(&self) -> JsonRef<'_> {
        self.member
            .and_then(|id| self.message.by_id(id))
            .unwrap_or_else(|| NO_MEMBER.root())
    }

    /// A JSON-RPC error answer's code and message (`(no message)` when it has none), read in
    /// place; `None` for a result.
    pub fn rpc_error(&self) -> Option<(i64, String)> {
        if !self.is_rpc_error {
            return None;
        }
        let error = self.member();
        let code = error
            .get("code")
            .and_then(|code| code.number_text())
            .and_then(|code| code.parse().ok())
            .unwrap_or_default();
        let message = error
            .get("message")
            .and_then(|message| message.as_str())
            .map_or_else(|| "(no message)".to_owned(), |message| message.into_owned());
        Some((code, message))
    }

    /// The `result` member; `None` for a JSON-RPC error.
    pub fn result_ref(&self) -> Option<JsonRef<'_>> {
        (!self.is_rpc_error).then(|| self.member())
    }

    /// The `result` as a `serde_json::Value` (a copy: for small results and tests).
    pub fn result_to_value(&self) -> Option<Value> {
        self.result_ref().map(JsonRef::to_value)
    }

    /// The whole message, as its compact document.
    pub fn message(&self) -> &Arc<JsonDoc> {
        &self.message
    }

    pub fn into_message(self) -> Arc<JsonDoc> {
        self.message
    }
}

/// `{"kind": "result" | "rpc_error", "value": …}`, read from the document (serialize it
/// through `deep_json::serialize_to_writer`: serde recurses once per level).
impl Serialize for RawResponse {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut state = serializer.serialize_struct("RawResponse", 2)?;
        state.serialize_field("kind", self.kind())?;
        state.serialize_field("value", &self.member())?;
        state.end()
    }
}

/// Read back from its `{"kind", "value"}` form (a call's rounds kept in the history): the
/// value as it was, in a message of its own without the original text or id.
impl<'de> Deserialize<'de> for RawResponse {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Kept {
            kind: String,
            value: Value,
        }
        let kept = Kept::deserialize(deserializer)?;
        let member = if kept.kind == "rpc_error" {
            "error"
        } else {
            "result"
        };
        let response =
            Self::with_member_text("", member, &crate::deep_json::to_string(&kept.value));
        drop_value(kept.value);
        Ok(response)
    }
}

/// A request id as JSON: a number when it reads as one (rmcp's ids are numbers).
fn id_value(id: &str) -> Value {
    id.parse::<i64>()
        .map_or_else(|_| Value::String(id.to_owned()), Value::from)
}

impl RawResponse {
    /// `result` or `rpc_error`, as the `--json` report names it.
    pub fn kind(&self) -> &'static str {
        if self.is_rpc_error {
            "rpc_error"
        } else {
            "result"
        }
    }
}

/// A JSON-RPC error object in words (`JSON-RPC error -32602: unknown task`), read in place and
/// clipped: the error may be as big or as deep as the server makes it.
pub(in crate::session) fn rpc_error_words(error: JsonRef<'_>) -> String {
    let code = error
        .get("code")
        .and_then(JsonRef::number_text)
        .map_or_else(
            || "?".to_owned(),
            |code| crate::text_util::clip_chars(code, 24),
        );
    let message = error
        .get("message")
        .and_then(|message| message.str_prefix(300))
        .map(|(prefix, cut)| {
            let line = crate::text_util::one_line(&prefix, 300);
            if cut { format!("{line}…") } else { line }
        })
        .unwrap_or_default();
    format!("JSON-RPC error {code}: {message}")
}

/// `-32602: Unknown tool` from a JSON-RPC error object.
pub fn rpc_error_text(error: &Value) -> String {
    let code = error.get("code").map(Value::to_string).unwrap_or_default();
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("(no message)");
    format!("JSON-RPC error {code}: {message}")
}
