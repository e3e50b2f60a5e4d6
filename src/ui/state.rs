//! What the window remembers between frames about servers, tools and calls.

use std::{sync::Arc, time::Instant};

use tokio_util::sync::CancellationToken;

use super::{argument_editor::ArgumentEditor, json_tree::JsonTreeState};
use crate::{
    session::{ProgressUpdate, ProtocolTap, ServerConfig, ServerSummary, ToolCatalog, ToolEntry},
    workbench::{CallId, CallRecord, ServerId},
};

/// Where a server's connection stands.
#[derive(Debug, Clone)]
pub enum ConnectionStatus {
    Disconnected,
    Connecting {
        since: Instant,
    },
    Connected {
        summary: Box<ServerSummary>,
    },
    Failed {
        message: String,
    },
    /// It was connected and the connection ended.
    Closed {
        reason: String,
    },
}

/// One server in the servers panel.
pub struct ServerView {
    pub id: ServerId,
    pub name: String,
    pub config: ServerConfig,
    /// The built-in demo server: cannot be edited or removed.
    pub builtin: bool,
    pub status: ConnectionStatus,
    pub tap: Option<ProtocolTap>,
    pub catalog: Option<ToolCatalog>,
    pub tools_error: Option<String>,
    /// What the last `tools/list_changed` refresh changed, in words.
    pub change_note: Option<String>,
    pub selected_tool: Option<String>,
    pub tool_filter: String,
    /// Server log messages (`notifications/message`), newest last.
    pub log_messages: Vec<String>,
    /// Indices of the tools matching `tool_filter`, for the filter they were computed for.
    pub filtered_tools: Option<(String, Vec<usize>)>,
}

impl ServerView {
    pub fn new(id: ServerId, name: String, config: ServerConfig, builtin: bool) -> Self {
        Self {
            id,
            name,
            config,
            builtin,
            status: ConnectionStatus::Disconnected,
            tap: None,
            catalog: None,
            tools_error: None,
            change_note: None,
            selected_tool: None,
            tool_filter: String::new(),
            log_messages: Vec::new(),
            filtered_tools: None,
        }
    }

    pub fn is_connected(&self) -> bool {
        matches!(self.status, ConnectionStatus::Connected { .. })
    }

    /// The tools matching the filter (name, title or description, ignoring case), cached.
    pub fn filtered_tool_indices(&mut self) -> &[usize] {
        let stale = self
            .filtered_tools
            .as_ref()
            .is_none_or(|(filter, _)| *filter != self.tool_filter);
        if stale {
            let needle = self.tool_filter.to_lowercase();
            let indices = self.catalog.as_ref().map_or_else(Vec::new, |catalog| {
                catalog
                    .tools
                    .iter()
                    .enumerate()
                    .filter(|(_, tool)| needle.is_empty() || tool_matches(tool, &needle))
                    .map(|(index, _)| index)
                    .collect()
            });
            self.filtered_tools = Some((self.tool_filter.clone(), indices));
        }
        self.filtered_tools
            .as_ref()
            .map_or(&[], |(_, indices)| indices.as_slice())
    }

    pub fn selected_tool_entry(&self) -> Option<&ToolEntry> {
        let name = self.selected_tool.as_deref()?;
        self.catalog.as_ref()?.find(name)
    }
}

fn tool_matches(tool: &ToolEntry, needle: &str) -> bool {
    let contains = |text: &str| text.to_lowercase().contains(needle);
    contains(&tool.name)
        || tool.title.as_deref().is_some_and(contains)
        || tool.annotations.title.as_deref().is_some_and(contains)
        || tool.description.as_deref().is_some_and(contains)
}

/// Where the current call of a tool stands.
pub enum CallState {
    Idle,
    Running {
        id: CallId,
        started: Instant,
        progress: Option<ProgressUpdate>,
        cancel: CancellationToken,
    },
    /// Finished; the record is in `ToolState::last_record`.
    Done,
    Failed {
        message: String,
    },
}

/// Per tool: its argument editor, its call, and the view of its result.
pub struct ToolState {
    pub editor: ArgumentEditor,
    pub call: CallState,
    /// The last finished result stays on screen while a new call runs.
    pub last_record: Option<Arc<CallRecord>>,
    pub tree: JsonTreeState,
    /// A note shown above the arguments, e.g. after chaining filled one in.
    pub note: Option<String>,
}

/// Words for what changed between two tool lists.
pub fn describe_tool_changes(old: &ToolCatalog, new: &ToolCatalog) -> Option<String> {
    let names = |catalog: &ToolCatalog| -> Vec<String> {
        catalog.tools.iter().map(|t| t.name.clone()).collect()
    };
    let (old_names, new_names) = (names(old), names(new));
    let added: Vec<&str> = new_names
        .iter()
        .filter(|n| !old_names.contains(n))
        .map(String::as_str)
        .collect();
    let removed: Vec<&str> = old_names
        .iter()
        .filter(|n| !new_names.contains(n))
        .map(String::as_str)
        .collect();
    let changed: Vec<&str> = new
        .tools
        .iter()
        .filter(|tool| {
            old.find(&tool.name)
                .is_some_and(|before| before.raw != tool.raw)
        })
        .map(|tool| tool.name.as_str())
        .collect();
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("added {}", added.join(", ")));
    }
    if !removed.is_empty() {
        parts.push(format!("removed {}", removed.join(", ")));
    }
    if !changed.is_empty() {
        parts.push(format!("changed {}", changed.join(", ")));
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!("The tool list changed: {}", parts.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalog(tools: serde_json::Value) -> ToolCatalog {
        let mut catalog = ToolCatalog::default();
        catalog.add_page(&json!({ "tools": tools }), true);
        catalog
    }

    #[test]
    fn tool_changes_are_described() {
        let old = catalog(
            json!([{"name": "a", "inputSchema": {"type": "object"}}, {"name": "b", "inputSchema": {"type": "object"}}]),
        );
        let new = catalog(
            json!([{"name": "a", "description": "new", "inputSchema": {"type": "object"}}, {"name": "c", "inputSchema": {"type": "object"}}]),
        );
        assert_eq!(
            describe_tool_changes(&old, &new).unwrap(),
            "The tool list changed: added c; removed b; changed a"
        );
        assert!(describe_tool_changes(&old, &old).is_none());
    }
}
