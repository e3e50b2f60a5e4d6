use serde_json::{Value, json};

use super::*;
use crate::interface::snapshot::ServerIdentity;

fn tool(raw: Value) -> ToolSnapshot {
    ToolSnapshot::of(&crate::session::ToolEntry::from_raw(raw, 0, true))
}

fn snapshot(version: &str, tools: Vec<Value>) -> InterfaceSnapshot {
    InterfaceSnapshot::of_tools(
        ServerIdentity {
            name: Some("demo".to_owned()),
            version: Some(version.to_owned()),
            ..ServerIdentity::default()
        },
        tools.into_iter().map(tool).collect(),
    )
}

fn kinds(diff: &ToolDiff) -> Vec<(Severity, ChangeKind, &str)> {
    diff.changes
        .iter()
        .map(|c| (c.severity, c.kind, c.location.as_str()))
        .collect()
}

const INPUT: fn() -> Value = || json!({"type": "object"});

#[test]
fn the_same_snapshot_has_no_changes() {
    let old = snapshot("1", vec![json!({"name": "a", "inputSchema": INPUT()})]);
    let diff = diff(&old, &old.clone());
    assert!(diff.is_empty());
    assert_eq!(diff.summary(), "no changes");
    assert_eq!((diff.breaking_count(), diff.compatible_count()), (0, 0));
}

#[test]
fn a_removed_tool_breaks_an_added_one_does_not_and_a_rename_is_both() {
    let old = snapshot("1", vec![json!({"name": "search", "inputSchema": INPUT()})]);
    let new = snapshot("1", vec![json!({"name": "find", "inputSchema": INPUT()})]);
    let diff = diff(&old, &new);
    assert_eq!(diff.tools.len(), 2);
    assert_eq!(
        (diff.tools[0].name.as_str(), diff.tools[0].status),
        ("search", ToolStatus::Removed)
    );
    assert_eq!(
        kinds(&diff.tools[0]),
        vec![(Severity::Breaking, ChangeKind::ToolRemoved, "")]
    );
    assert_eq!(
        (diff.tools[1].name.as_str(), diff.tools[1].status),
        ("find", ToolStatus::Added)
    );
    assert_eq!(
        kinds(&diff.tools[1]),
        vec![(Severity::Compatible, ChangeKind::ToolAdded, "")]
    );
    assert_eq!(diff.summary(), "1 breaking, 1 compatible change in 2 tools");
    assert!(diff.has_breaking());
}

#[test]
fn title_description_and_annotations_are_compatible_and_breaking_changes_come_first() {
    let old = snapshot(
        "1",
        vec![
            json!({"name": "t", "title": "T", "description": "old", "inputSchema": INPUT(),
                    "annotations": {"readOnlyHint": true}, "outputSchema": {"type": "object"}}),
        ],
    );
    let new = snapshot(
        "1",
        vec![
            json!({"name": "t", "title": "T2", "description": "new", "inputSchema": INPUT(),
                    "annotations": {"readOnlyHint": false, "destructiveHint": true}}),
        ],
    );
    let diff = diff(&old, &new);
    assert_eq!(
        kinds(&diff.tools[0]),
        vec![
            (
                Severity::Breaking,
                ChangeKind::OutputSchemaRemoved,
                "/outputSchema"
            ),
            (Severity::Compatible, ChangeKind::TitleChanged, "/title"),
            (
                Severity::Compatible,
                ChangeKind::DescriptionChanged,
                "/description"
            ),
            (
                Severity::Compatible,
                ChangeKind::AnnotationChanged,
                "/annotations/readOnlyHint"
            ),
            (
                Severity::Compatible,
                ChangeKind::AnnotationChanged,
                "/annotations/destructiveHint"
            ),
        ]
    );
    assert_eq!(
        diff.tools[0].changes[3].message,
        "annotation `readOnlyHint` changed from true to false"
    );
    assert_eq!(diff.summary(), "1 breaking, 4 compatible changes in 1 tool");
}

#[test]
fn an_output_schema_added_is_compatible() {
    let old = snapshot("1", vec![json!({"name": "t", "inputSchema": INPUT()})]);
    let new = snapshot(
        "1",
        vec![json!({"name": "t", "inputSchema": INPUT(), "outputSchema": {"type": "object"}})],
    );
    let diff = diff(&old, &new);
    assert_eq!(
        kinds(&diff.tools[0]),
        vec![(
            Severity::Compatible,
            ChangeKind::OutputSchemaAdded,
            "/outputSchema"
        )]
    );
    assert!(!diff.has_breaking());
}

#[test]
fn a_name_listed_twice_is_diffed_once_and_noted() {
    let old = snapshot(
        "1",
        vec![
            json!({"name": "t", "inputSchema": INPUT()}),
            json!({"name": "t", "inputSchema": INPUT(), "description": "second"}),
        ],
    );
    let new = snapshot("1", vec![json!({"name": "t", "inputSchema": INPUT()})]);
    let diff = diff(&old, &new);
    assert!(diff.tools.is_empty(), "{:?}", diff.tools);
    assert_eq!(
        diff.notes,
        vec!["`t` is listed 2 times in the old interface; its first definition was compared"]
    );
}

#[test]
fn a_new_server_version_is_a_compatible_identity_change() {
    let old = snapshot("1.0", vec![]);
    let new = snapshot("1.1", vec![]);
    let diff = diff(&old, &new);
    assert_eq!(diff.server.len(), 1);
    assert_eq!(diff.server[0].location, "/server/version");
    assert_eq!(
        diff.server[0].message,
        "server version changed from \"1.0\" to \"1.1\""
    );
    assert_eq!(
        diff.summary(),
        "0 breaking, 1 compatible change in the server's identity"
    );
}
