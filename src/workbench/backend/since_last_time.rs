//! "Since last time": a server's interface compared with the one kept from its last listing
//! (an earlier connection, or an earlier run of Toolscope), then kept in its place.

use toolscope_core::{
    interface::{self, InterfaceSnapshot, InterfaceStore},
    session::{ServerSummary, ToolCatalog},
};

/// What changed in a server's interface since it was last seen, for the sidebar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceNote {
    /// Since when: "last time" (an earlier connection or run) or "the restart".
    pub since: &'static str,
    /// "1 breaking, 2 compatible changes in 3 tools".
    pub summary: String,
    pub breaking: usize,
    /// Each change in words, breaking ones first: "breaking · add: …".
    pub changes: Vec<String>,
}

/// The note of what changed, when something did and an earlier interface was kept. The new
/// interface is kept either way (a store that cannot be written is not worth an error here:
/// the next connection just has less to say).
pub fn compare_and_keep(
    store: &InterfaceStore,
    label: &str,
    summary: &ServerSummary,
    catalog: &ToolCatalog,
) -> Option<InterfaceNote> {
    let now = InterfaceSnapshot::from_catalog(summary, catalog);
    let before = store.load_last(label).ok().flatten();
    let _ = store.save_last(label, &now);
    note_of(&before?, &now, "last time")
}

/// What changed between two listings of a server (before and after a restart); `None` when
/// nothing did.
pub fn between(
    before: (&ServerSummary, &ToolCatalog),
    after: (&ServerSummary, &ToolCatalog),
) -> Option<InterfaceNote> {
    let before = InterfaceSnapshot::from_catalog(before.0, before.1);
    let after = InterfaceSnapshot::from_catalog(after.0, after.1);
    note_of(&before, &after, "the restart")
}

fn note_of(
    before: &InterfaceSnapshot,
    now: &InterfaceSnapshot,
    since: &'static str,
) -> Option<InterfaceNote> {
    let diff = interface::diff(before, now);
    if diff.is_empty() {
        return None;
    }
    let mut changes: Vec<(bool, String)> = diff
        .server
        .iter()
        .map(|change| (change.severity.is_breaking(), change.message.clone()))
        .chain(diff.tools.iter().flat_map(|tool| {
            tool.changes.iter().map(move |change| {
                (
                    change.severity.is_breaking(),
                    format!("{}: {}", tool.name, change.message),
                )
            })
        }))
        .collect();
    changes.sort_by_key(|(breaking, _)| !breaking);
    Some(InterfaceNote {
        since,
        summary: diff.summary(),
        breaking: diff.breaking_count(),
        changes: changes
            .into_iter()
            .map(|(breaking, text)| {
                let severity = if breaking { "breaking" } else { "compatible" };
                format!("{severity} · {text}")
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn catalog(tools: serde_json::Value) -> ToolCatalog {
        let mut catalog = ToolCatalog::default();
        catalog.add_page(&json!({ "tools": tools }), true);
        catalog
    }

    fn summary() -> ServerSummary {
        ServerSummary {
            protocol_version: "2026-07-28".to_owned(),
            lifecycle: "server/discover",
            lifecycle_reason: None,
            name: Some("srv".to_owned()),
            title: None,
            version: Some("1".to_owned()),
            capabilities: json!({}),
            instructions: None,
        }
    }

    #[test]
    fn a_reconnection_says_what_broke_since_last_time() {
        let folder = tempfile::tempdir().unwrap();
        let store = InterfaceStore::in_dir(folder.path());
        let object = json!({"type": "object"});
        let before = catalog(json!([
            {"name": "add", "inputSchema": object},
            {"name": "echo", "inputSchema": object},
        ]));
        assert_eq!(
            compare_and_keep(&store, "srv", &summary(), &before),
            None,
            "nothing kept yet"
        );
        assert_eq!(
            compare_and_keep(&store, "srv", &summary(), &before),
            None,
            "no change"
        );
        let after = catalog(json!([
            {"name": "add", "inputSchema": object, "description": "now documented"},
        ]));
        let note = compare_and_keep(&store, "srv", &summary(), &after).unwrap();
        assert_eq!(note.breaking, 1);
        assert!(note.changes[0].starts_with("breaking · echo:"), "{note:?}");
        assert!(note.changes[1].starts_with("compatible · add:"), "{note:?}");
        assert_eq!(
            compare_and_keep(&store, "other", &summary(), &after),
            None,
            "per server"
        );
    }
}
