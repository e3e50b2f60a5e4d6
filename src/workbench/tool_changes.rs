//! What changed between two tool lists, found in one pass over each with a map (a server may
//! list tens of thousands of tools), computed in the background before the window sees it.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use toolscope_core::session::ToolCatalog;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolChanges {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Listed before and now, with a different definition.
    pub changed: Vec<String>,
}

impl ToolChanges {
    pub fn between(old: &ToolCatalog, new: &ToolCatalog) -> Self {
        let (before, after) = (definitions(old), definitions(new));
        let mut changes = Self::default();
        let mut seen = HashSet::new();
        for tool in &new.tools {
            if !seen.insert(tool.name.as_str()) {
                continue;
            }
            match before.get(tool.name.as_str()) {
                None => changes.added.push(tool.name.clone()),
                Some(raw) if *raw != &tool.raw => changes.changed.push(tool.name.clone()),
                Some(_) => {}
            }
        }
        let mut gone = HashSet::new();
        for tool in &old.tools {
            if !after.contains_key(tool.name.as_str()) && gone.insert(tool.name.as_str()) {
                changes.removed.push(tool.name.clone());
            }
        }
        changes
    }

    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }

    /// Whether a tool's state built on its old definition is stale.
    pub fn affects(&self, name: &str) -> bool {
        self.removed.iter().chain(&self.changed).any(|n| n == name)
    }

    /// "The tool list changed: added c; removed b; changed a", or `None` when nothing did.
    pub fn describe(&self) -> Option<String> {
        let mut parts = Vec::new();
        for (verb, names) in [
            ("added", &self.added),
            ("removed", &self.removed),
            ("changed", &self.changed),
        ] {
            if names.is_empty() {
                continue;
            }
            let shown: Vec<&str> = names.iter().take(20).map(String::as_str).collect();
            let more = names.len().saturating_sub(shown.len());
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            parts.push(format!("{verb} {}{tail}", shown.join(", ")));
        }
        if parts.is_empty() {
            return None;
        }
        Some(format!("The tool list changed: {}", parts.join("; ")))
    }
}

/// Each name's definition; with two tools of one name, the first is the one a call reaches.
fn definitions(catalog: &ToolCatalog) -> HashMap<&str, &Value> {
    let mut map = HashMap::with_capacity(catalog.tools.len());
    for tool in &catalog.tools {
        map.entry(tool.name.as_str()).or_insert(&tool.raw);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalog(tools: Value) -> ToolCatalog {
        let mut catalog = ToolCatalog::default();
        catalog.add_page(&json!({ "tools": tools }), true);
        catalog
    }

    #[test]
    fn changes_are_found_and_described() {
        let old = catalog(json!([
            {"name": "a", "inputSchema": {"type": "object"}},
            {"name": "b", "inputSchema": {"type": "object"}}
        ]));
        let new = catalog(json!([
            {"name": "a", "description": "new", "inputSchema": {"type": "object"}},
            {"name": "c", "inputSchema": {"type": "object"}}
        ]));
        let changes = ToolChanges::between(&old, &new);
        assert_eq!(
            changes.describe().unwrap(),
            "The tool list changed: added c; removed b; changed a"
        );
        assert!(changes.affects("a") && changes.affects("b") && !changes.affects("c"));
        assert!(ToolChanges::between(&old, &old).is_empty());
    }

    #[test]
    fn big_lists_are_compared_in_one_pass() {
        let tools = |n: usize, flip: usize| {
            let list: Vec<Value> = (0..n)
                .map(|i| {
                    let description = if i == flip { "changed" } else { "same" };
                    json!({"name": format!("t{i}"), "description": description, "inputSchema": {"type": "object"}})
                })
                .collect();
            catalog(Value::Array(list))
        };
        let changes = ToolChanges::between(&tools(50_000, usize::MAX), &tools(50_000, 49_999));
        assert_eq!(changes.changed, vec!["t49999".to_owned()]);
        assert!(changes.added.is_empty() && changes.removed.is_empty());
    }
}
