//! A tool that comes and goes: `toggle_bonus_tool` adds or removes `bonus_echo` and tells the
//! client with `notifications/tools/list_changed` (on a `subscriptions/listen` stream for
//! 2026-07-28 clients), so a client's refresh of the tool list can be watched.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use tokio::sync::watch;

pub const NAME: &str = "bonus_echo";

/// Whether the bonus tool is listed; listeners wake when it changes.
#[derive(Debug, Clone)]
pub struct BonusSwitch(Arc<watch::Sender<bool>>);

impl Default for BonusSwitch {
    fn default() -> Self {
        Self(Arc::new(watch::Sender::new(false)))
    }
}

impl BonusSwitch {
    pub fn is_on(&self) -> bool {
        *self.0.borrow()
    }

    /// Flips the switch; returns the new state.
    pub fn toggle(&self) -> bool {
        let mut now = false;
        self.0.send_modify(|on| {
            *on = !*on;
            now = *on;
        });
        now
    }

    pub fn subscribe(&self) -> watch::Receiver<bool> {
        self.0.subscribe()
    }
}

pub fn tool() -> Tool {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let mut tool = Tool::new(
        NAME,
        "Appears when toggle_bonus_tool is called, and echoes its arguments.",
        Arc::new(schema.as_object().cloned().unwrap_or_default()),
    );
    let mut hints = ToolAnnotations::default();
    hints.read_only_hint = Some(true);
    tool.annotations = Some(hints);
    tool
}

pub fn call(arguments: Option<JsonObject>) -> CallToolResult {
    let echoed = Value::Object(arguments.unwrap_or_default());
    let mut result = CallToolResult::success(vec![ContentBlock::text(echoed.to_string())]);
    result.structured_content = Some(echoed);
    result
}
