//! A sampling request (`sampling/createMessage`) as the person reads it, and the reply they
//! write in place of a model: text, or a `tool_use` of one of the offered tools.

use serde_json::{Value, json};

/// One block of a sampling message, in words a person can read.
#[derive(Debug, Clone, PartialEq)]
pub enum MessageBlock {
    Text(String),
    /// An image or audio clip: its MIME type and the size of its data.
    Media {
        kind: String,
        mime_type: String,
        bytes: usize,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        content: Value,
    },
    /// A block of another type, as JSON.
    Other(Value),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SamplingMessage {
    pub role: String,
    pub blocks: Vec<MessageBlock>,
}

/// A tool the server offers the model.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedTool {
    pub name: String,
    pub description: Option<String>,
    pub input_schema: Option<Value>,
}

/// The request, read leniently from its params.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    pub messages: Vec<SamplingMessage>,
    pub system_prompt: Option<String>,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    /// The hinted model names and the priorities, as the server sent them.
    pub model_preferences: Option<Value>,
    pub tools: Vec<OfferedTool>,
    /// `auto`, `required`, `none`, or a named tool.
    pub tool_choice: Option<Value>,
}

impl SamplingRequest {
    pub fn from_params(params: &Value) -> Self {
        let messages = params
            .get("messages")
            .and_then(Value::as_array)
            .map(|messages| messages.iter().map(message).collect())
            .unwrap_or_default();
        let tools = params
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|tool| {
                        Some(OfferedTool {
                            name: tool.get("name")?.as_str()?.to_owned(),
                            description: tool
                                .get("description")
                                .and_then(Value::as_str)
                                .map(str::to_owned),
                            input_schema: tool.get("inputSchema").cloned(),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self {
            messages,
            system_prompt: params
                .get("systemPrompt")
                .and_then(Value::as_str)
                .map(str::to_owned),
            max_tokens: params.get("maxTokens").and_then(Value::as_u64),
            temperature: params.get("temperature").and_then(Value::as_f64),
            model_preferences: params.get("modelPreferences").cloned(),
            tools,
            tool_choice: params.get("toolChoice").cloned(),
        }
    }

    /// The model names the server hints at, first choice first.
    pub fn model_hints(&self) -> Vec<String> {
        self.model_preferences
            .as_ref()
            .and_then(|preferences| preferences.get("hints"))
            .and_then(Value::as_array)
            .map(|hints| {
                hints
                    .iter()
                    .filter_map(|hint| hint.get("name").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn message(value: &Value) -> SamplingMessage {
    let role = value
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_owned();
    let blocks = match value.get("content") {
        Some(Value::Array(blocks)) => blocks.iter().map(block).collect(),
        Some(one) => vec![block(one)],
        None => Vec::new(),
    };
    SamplingMessage { role, blocks }
}

fn block(value: &Value) -> MessageBlock {
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match value.get("type").and_then(Value::as_str) {
        Some("text") => MessageBlock::Text(text("text")),
        Some(kind @ ("image" | "audio")) => MessageBlock::Media {
            kind: kind.to_owned(),
            mime_type: text("mimeType"),
            // base64: three bytes in four characters.
            bytes: value
                .get("data")
                .and_then(Value::as_str)
                .map_or(0, |data| data.len() / 4 * 3),
        },
        Some("tool_use") => MessageBlock::ToolUse {
            id: text("id"),
            name: text("name"),
            input: value.get("input").cloned().unwrap_or(Value::Null),
        },
        Some("tool_result") => MessageBlock::ToolResult {
            tool_use_id: text("toolUseId"),
            content: value.get("content").cloned().unwrap_or(Value::Null),
        },
        _ => MessageBlock::Other(value.clone()),
    }
}

/// The reply the person writes, as a model would have answered.
#[derive(Debug, Clone, PartialEq)]
pub enum SamplingReply {
    Text {
        text: String,
        model: String,
        stop_reason: String,
    },
    ToolUse {
        name: String,
        input: Value,
        model: String,
    },
}

impl SamplingReply {
    /// A text reply that ended its turn.
    pub fn text(text: impl Into<String>, model: impl Into<String>) -> Self {
        Self::Text {
            text: text.into(),
            model: model.into(),
            stop_reason: "endTurn".to_owned(),
        }
    }

    /// The `CreateMessageResult` sent back.
    pub fn to_result(&self) -> Value {
        match self {
            Self::Text {
                text,
                model,
                stop_reason,
            } => json!({
                "role": "assistant",
                "content": {"type": "text", "text": text},
                "model": model,
                "stopReason": stop_reason,
            }),
            Self::ToolUse { name, input, model } => json!({
                "role": "assistant",
                "content": [{
                    "type": "tool_use",
                    "id": format!("toolscope-{}", short_id()),
                    "name": name,
                    "input": input,
                }],
                "model": model,
                "stopReason": "toolUse",
            }),
        }
    }
}

/// An id for a tool_use block, unique enough within a conversation.
fn short_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.subsec_nanos());
    format!("{nanos:08x}")
}

/// The model name a reply carries unless the person writes another.
pub const DEFAULT_MODEL: &str = "toolscope-person";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_read_with_its_blocks_tools_and_hints() {
        let request = SamplingRequest::from_params(&json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Hi"}},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Oslo"}},
                    {"type": "image", "mimeType": "image/png", "data": "AAAA"}]},
                {"role": "user", "content": [{"type": "tool_result", "toolUseId": "t1", "content": []}]}
            ],
            "systemPrompt": "Be brief",
            "maxTokens": 100,
            "modelPreferences": {"hints": [{"name": "claude-3"}], "speedPriority": 0.5},
            "tools": [{"name": "weather", "inputSchema": {"type": "object"}}],
            "toolChoice": {"mode": "auto"}
        }));
        assert_eq!(request.messages.len(), 3);
        assert_eq!(
            request.messages[0].blocks,
            vec![MessageBlock::Text("Hi".to_owned())]
        );
        assert!(matches!(
            request.messages[1].blocks[1],
            MessageBlock::Media { bytes: 3, .. }
        ));
        assert_eq!(request.model_hints(), vec!["claude-3".to_owned()]);
        assert_eq!(request.tools[0].name, "weather");
        assert_eq!(request.max_tokens, Some(100));
    }

    #[test]
    fn replies_are_create_message_results() {
        let text = SamplingReply::text("Hello", DEFAULT_MODEL).to_result();
        assert_eq!(text["content"], json!({"type": "text", "text": "Hello"}));
        assert_eq!(text["stopReason"], "endTurn");
        let tool = SamplingReply::ToolUse {
            name: "weather".to_owned(),
            input: json!({"city": "Oslo"}),
            model: "m".to_owned(),
        }
        .to_result();
        assert_eq!(tool["content"][0]["type"], "tool_use");
        assert_eq!(tool["stopReason"], "toolUse");
    }
}
