//! What changed between two interface snapshots, tool by tool (matched by name: a renamed
//! tool is one removed and one added), each change breaking or compatible.

use std::collections::HashMap;

use serde::Serialize;

use super::{
    change::{Change, ChangeKind, Severity},
    schema_changes::{SchemaRole, compare_schemas, deep_equal},
    snapshot::{InterfaceSnapshot, ServerIdentity, ToolSnapshot},
};
use crate::{json_pointer::push_token, text_util::clip_chars};

/// What happened to one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    Added,
    Removed,
    Changed,
}

/// The changes of one tool, breaking ones first.
#[derive(Debug, Clone, Serialize)]
pub struct ToolDiff {
    pub name: String,
    pub status: ToolStatus,
    pub changes: Vec<Change>,
}

impl ToolDiff {
    pub fn breaking_count(&self) -> usize {
        self.changes
            .iter()
            .filter(|c| c.severity.is_breaking())
            .count()
    }
}

/// Every change between two interfaces. Tools that did not change are not listed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct InterfaceDiff {
    /// Changes of the server's identity (name, title, version, protocol): all compatible.
    pub server: Vec<Change>,
    /// Tools in the old interface's order, then the added ones in the new one's.
    pub tools: Vec<ToolDiff>,
    /// What the comparison could not do (a name listed twice, a schema too big to compare).
    pub notes: Vec<String>,
}

impl InterfaceDiff {
    /// Every change, the server's first.
    pub fn changes(&self) -> impl Iterator<Item = &Change> {
        self.server
            .iter()
            .chain(self.tools.iter().flat_map(|tool| &tool.changes))
    }

    pub fn breaking_count(&self) -> usize {
        self.changes().filter(|c| c.severity.is_breaking()).count()
    }

    pub fn compatible_count(&self) -> usize {
        self.changes()
            .filter(|c| c.severity == Severity::Compatible)
            .count()
    }

    pub fn has_breaking(&self) -> bool {
        self.changes().any(|c| c.severity.is_breaking())
    }

    pub fn is_empty(&self) -> bool {
        self.server.is_empty() && self.tools.is_empty()
    }

    /// "2 breaking, 3 compatible changes in 4 tools", or "no changes".
    pub fn summary(&self) -> String {
        if self.is_empty() {
            return "no changes".to_owned();
        }
        let compatible = self.compatible_count();
        let plural = if compatible == 1 { "" } else { "s" };
        let tools = crate::text_util::count_noun(self.tools.len(), "tool", "tools");
        let place = match (self.tools.is_empty(), self.server.is_empty()) {
            (false, true) => tools,
            (false, false) => format!("{tools} and the server's identity"),
            (true, _) => "the server's identity".to_owned(),
        };
        format!(
            "{} breaking, {compatible} compatible change{plural} in {place}",
            self.breaking_count()
        )
    }
}

/// Compares two snapshots of one server.
pub fn diff(old: &InterfaceSnapshot, new: &InterfaceSnapshot) -> InterfaceDiff {
    let mut result = InterfaceDiff {
        server: server_changes(&old.server, &new.server),
        ..InterfaceDiff::default()
    };
    let before = by_name(&old.tools, "old", &mut result.notes);
    let after = by_name(&new.tools, "new", &mut result.notes);
    for tool in first_of_each(&old.tools, &before) {
        match after.get(tool.name.as_str()) {
            None => result.tools.push(ToolDiff {
                name: tool.name.clone(),
                status: ToolStatus::Removed,
                changes: vec![Change::breaking(
                    ChangeKind::ToolRemoved,
                    "",
                    format!("tool `{}` was removed: calls to it fail", tool.name),
                )],
            }),
            Some(now) => {
                let mut changes = tool_changes(tool, now, &mut result.notes);
                if !changes.is_empty() {
                    changes.sort_by_key(|change| change.severity);
                    result.tools.push(ToolDiff {
                        name: tool.name.clone(),
                        status: ToolStatus::Changed,
                        changes,
                    });
                }
            }
        }
    }
    for tool in first_of_each(&new.tools, &after) {
        if !before.contains_key(tool.name.as_str()) {
            result.tools.push(ToolDiff {
                name: tool.name.clone(),
                status: ToolStatus::Added,
                changes: vec![Change::compatible(
                    ChangeKind::ToolAdded,
                    "",
                    format!("new tool `{}`", tool.name),
                )],
            });
        }
    }
    result
}

/// Each name's first tool; a name listed more than once gets a note.
fn by_name<'a>(
    tools: &'a [ToolSnapshot],
    side: &str,
    notes: &mut Vec<String>,
) -> HashMap<&'a str, &'a ToolSnapshot> {
    let mut first = HashMap::with_capacity(tools.len());
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for tool in tools {
        first.entry(tool.name.as_str()).or_insert(tool);
        *counts.entry(tool.name.as_str()).or_default() += 1;
    }
    let mut repeated: Vec<(&str, usize)> = counts.into_iter().filter(|(_, n)| *n > 1).collect();
    repeated.sort_unstable();
    for (name, count) in repeated {
        notes.push(format!(
            "`{name}` is listed {count} times in the {side} interface; its first definition \
             was compared"
        ));
    }
    first
}

/// The tools in their order, each name once (the first).
fn first_of_each<'a>(
    tools: &'a [ToolSnapshot],
    first: &'a HashMap<&str, &ToolSnapshot>,
) -> impl Iterator<Item = &'a ToolSnapshot> {
    tools.iter().filter(move |tool| {
        first
            .get(tool.name.as_str())
            .is_some_and(|kept| std::ptr::eq(*kept, *tool))
    })
}

fn quoted(text: Option<&str>) -> String {
    text.map_or_else(
        || "none".to_owned(),
        |text| format!("\"{}\"", clip_chars(text, 60)),
    )
}

fn server_changes(old: &ServerIdentity, new: &ServerIdentity) -> Vec<Change> {
    [
        ("name", &old.name, &new.name),
        ("title", &old.title, &new.title),
        ("version", &old.version, &new.version),
        (
            "protocol_version",
            &old.protocol_version,
            &new.protocol_version,
        ),
    ]
    .into_iter()
    .filter(|(_, before, after)| before != after)
    .map(|(field, before, after)| {
        Change::compatible(
            ChangeKind::ServerIdentityChanged,
            format!("/server/{field}"),
            format!(
                "server {} changed from {} to {}",
                field.replace('_', " "),
                quoted(before.as_deref()),
                quoted(after.as_deref())
            ),
        )
    })
    .collect()
}

fn tool_changes(old: &ToolSnapshot, new: &ToolSnapshot, notes: &mut Vec<String>) -> Vec<Change> {
    let mut changes = Vec::new();
    if old.title != new.title {
        changes.push(Change::compatible(
            ChangeKind::TitleChanged,
            "/title",
            format!(
                "title changed from {} to {}",
                quoted(old.title.as_deref()),
                quoted(new.title.as_deref())
            ),
        ));
    }
    if old.description != new.description {
        let words = match (&old.description, &new.description) {
            (None, Some(_)) => "description added",
            (Some(_), None) => "description removed",
            _ => "description changed",
        };
        changes.push(Change::compatible(
            ChangeKind::DescriptionChanged,
            "/description",
            words,
        ));
    }
    annotation_changes(old, new, &mut changes);
    match (&old.input_schema, &new.input_schema) {
        (Some(before), Some(after)) => {
            let found = compare_schemas(before, after, SchemaRole::Input, "/inputSchema");
            changes.extend(found.changes);
            notes.extend(
                found
                    .notes
                    .into_iter()
                    .map(|n| format!("`{}`: {n}", old.name)),
            );
        }
        (Some(_), None) => changes.push(Change::breaking(
            ChangeKind::InputSchemaRemoved,
            "/inputSchema",
            "the input schema is gone (or is no longer a schema object): clients cannot tell \
             what to send",
        )),
        (None, Some(_)) => changes.push(Change::compatible(
            ChangeKind::InputSchemaAdded,
            "/inputSchema",
            "the tool now has an input schema",
        )),
        (None, None) => {}
    }
    match (&old.output_schema, &new.output_schema) {
        (Some(before), Some(after)) => {
            let found = compare_schemas(before, after, SchemaRole::Output, "/outputSchema");
            changes.extend(found.changes);
            notes.extend(
                found
                    .notes
                    .into_iter()
                    .map(|n| format!("`{}`: {n}", old.name)),
            );
        }
        (Some(_), None) => changes.push(Change::breaking(
            ChangeKind::OutputSchemaRemoved,
            "/outputSchema",
            "the output schema was removed: structuredContent is no longer promised",
        )),
        (None, Some(_)) => changes.push(Change::compatible(
            ChangeKind::OutputSchemaAdded,
            "/outputSchema",
            "new output schema: results now promise structuredContent",
        )),
        (None, None) => {}
    }
    changes
}

/// Each behaviour hint (and other annotation) that changed: compatible, since hints are
/// advice a client may not trust, but worth a sentence (a tool that became destructive).
fn annotation_changes(old: &ToolSnapshot, new: &ToolSnapshot, changes: &mut Vec<Change>) {
    let empty = serde_json::Map::new();
    let (before, after) = match (&old.annotations, &new.annotations) {
        (None, None) => return,
        (Some(a), Some(b)) if deep_equal(a, b) => return,
        (a, b) => (
            a.as_ref().and_then(|v| v.as_object()).unwrap_or(&empty),
            b.as_ref().and_then(|v| v.as_object()).unwrap_or(&empty),
        ),
    };
    let keys = before
        .keys()
        .chain(after.keys().filter(|key| !before.contains_key(*key)));
    for key in keys {
        let (was, is) = (before.get(key), after.get(key));
        if was.zip(is).is_some_and(|(a, b)| deep_equal(a, b)) {
            continue;
        }
        let text = |value: Option<&serde_json::Value>| {
            value.map_or_else(
                || "absent".to_owned(),
                |value| clip_chars(&crate::deep_json::to_string(value), 60),
            )
        };
        let mut location = "/annotations".to_owned();
        push_token(&mut location, key);
        changes.push(Change::compatible(
            ChangeKind::AnnotationChanged,
            location,
            format!(
                "annotation `{key}` changed from {} to {}",
                text(was),
                text(is)
            ),
        ));
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
