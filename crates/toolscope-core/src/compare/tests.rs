use std::time::Duration;

use serde_json::json;

use super::*;
use crate::analysis::{CallResponse, ProtocolEra, analyze_call};
use crate::history::Verdict;
use crate::json_doc::{JsonDoc, JsonKind};

fn doc(text: &str) -> JsonDoc {
    JsonDoc::parse(text.to_owned()).unwrap()
}

fn diff(old: &str, new: &str) -> StructuralDiff {
    StructuralDiff::compute(doc(old).root(), doc(new).root())
}

/// Each listed change as `(kind, pointer)`.
fn listed(diff: &StructuralDiff) -> Vec<(ChangeKind, &str)> {
    diff.changes
        .iter()
        .map(|change| (change.kind, change.pointer.as_str()))
        .collect()
}

#[test]
fn equal_documents_have_no_changes() {
    let text = r#"{"a": [1, 2, {"b": null}], "c": "x", "d": true}"#;
    let found = diff(text, text);
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(found.summary(), "no differences");
    // The same value written differently is equal too: whitespace, escapes, 1.0.
    let found = diff(
        r#"{"a":[1,2,{"b":null}],"c":"x","d":true,"n":1}"#,
        r#"{ "a" : [ 1 , 2 , { "b" : null } ] , "c" : "\u0078", "d": true, "n": 1.0 }"#,
    );
    assert!(found.is_empty(), "{found:?}");
    assert!(found.old_marks.is_empty() && found.new_marks.is_empty());
}

#[test]
fn key_order_is_ignored() {
    let found = diff(
        r#"{"a": 1, "b": {"x": 1, "y": 2}}"#,
        r#"{"b": {"y": 2, "x": 1}, "a": 1}"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn added_removed_and_changed_keys_have_exact_pointers() {
    let found = diff(
        r#"{"keep": 1, "gone": true, "a/b": {"m~n": 1, "s": "old"}, "n": 2}"#,
        r#"{"keep": 1, "a/b": {"m~n": 2, "s": "new"}, "n": 2.5, "new key": [1]}"#,
    );
    assert_eq!(
        listed(&found),
        vec![
            (ChangeKind::Removed, "/gone"),
            (ChangeKind::Changed, "/a~1b/m~0n"),
            (ChangeKind::Changed, "/a~1b/s"),
            (ChangeKind::Changed, "/n"),
            (ChangeKind::Added, "/new key"),
        ]
    );
    let counts = found.counts;
    assert_eq!((counts.added, counts.removed, counts.changed), (1, 1, 3));
    let s = &found.changes[2];
    assert_eq!(s.old.as_ref().unwrap().preview, "\"old\"");
    assert_eq!(s.new.as_ref().unwrap().preview, "\"new\"");
    assert_eq!(s.describe(), "/a~1b/s: changed \"old\" → \"new\"");
    assert!(found.changes[0].new.is_none() && found.changes[4].old.is_none());
    assert_eq!(found.summary(), "5 changes: 1 added, 1 removed, 3 changed");
}

#[test]
fn marks_find_each_change_by_tape_id() {
    let old = doc(r#"{"a": {"b": 1, "c": 2}, "d": [true]}"#);
    let new = doc(r#"{"a": {"b": 1, "c": 3}, "d": [true], "e": null}"#);
    let found = StructuralDiff::compute(old.root(), new.root());
    let old_c = old.root().pointer("/a/c").unwrap().id();
    let new_c = new.root().pointer("/a/c").unwrap().id();
    let new_e = new.root().pointer("/e").unwrap().id();
    assert_eq!(
        found.old_marks.at(old_c),
        Some(Mark::Change(ChangeKind::Changed))
    );
    assert_eq!(
        found.new_marks.at(new_c),
        Some(Mark::Change(ChangeKind::Changed))
    );
    assert_eq!(
        found.new_marks.at(new_e),
        Some(Mark::Change(ChangeKind::Added))
    );
    assert_eq!(found.new_marks.change_at(new_e), Some(1));
    // The containers above a change say so; untouched nodes carry nothing.
    let new_a = new.root().pointer("/a").unwrap().id();
    assert_eq!(found.new_marks.at(new_a), Some(Mark::ChangesInside));
    assert_eq!(
        found.new_marks.at(new.root().id()),
        Some(Mark::ChangesInside)
    );
    let new_b = new.root().pointer("/a/b").unwrap().id();
    let new_d = new.root().pointer("/d").unwrap().id();
    assert_eq!(found.new_marks.at(new_b), None);
    assert_eq!(found.new_marks.at(new_d), None);
    // Stepping through the changes in document order.
    assert_eq!(found.new_marks.next_change_after(0), Some(new_c));
    assert_eq!(found.new_marks.next_change_after(new_c), Some(new_e));
    assert_eq!(found.new_marks.next_change_after(new_e), None);
    assert_eq!(found.new_marks.previous_change_before(new_e), Some(new_c));
}

#[test]
fn arrays_grown_and_shrunk_add_and_remove_trailing_items() {
    let grown = diff("[1, 2]", "[1, 2, 3, {\"a\": 1}]");
    assert_eq!(
        listed(&grown),
        vec![(ChangeKind::Added, "/2"), (ChangeKind::Added, "/3")]
    );
    let shrunk = diff("[1, 2, 3]", "[1]");
    assert_eq!(
        listed(&shrunk),
        vec![(ChangeKind::Removed, "/1"), (ChangeKind::Removed, "/2")]
    );
    let same_length = diff("[1, 2, 3]", "[1, 5, 3]");
    assert_eq!(listed(&same_length), vec![(ChangeKind::Changed, "/1")]);
}

#[test]
fn an_item_inserted_at_the_front_is_one_addition() {
    let found = diff(
        r#"{"items": [{"id": 1}, {"id": 2}, {"id": 3}]}"#,
        r#"{"items": [{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3, "x": 1}]}"#,
    );
    assert_eq!(
        listed(&found),
        vec![
            (ChangeKind::Added, "/items/0"),
            (ChangeKind::Added, "/items/3/x")
        ]
    );
    // An addition has only its new pointer.
    assert_eq!(found.changes[1].old_pointer, None);
    let changed = diff(
        r#"[{"id": 1}, "anchor", {"id": 2}]"#,
        r#"[0, {"id": 1}, "anchor", {"id": 3}]"#,
    );
    assert_eq!(
        listed(&changed),
        vec![(ChangeKind::Added, "/0"), (ChangeKind::Changed, "/3/id")]
    );
    let moved = changed
        .changes
        .iter()
        .find(|change| change.pointer == "/3/id")
        .unwrap();
    // The item moved from /2 to /3: both pointers are kept.
    assert_eq!(moved.old_pointer(), "/2/id");
    assert_eq!(moved.old_pointer.as_deref(), Some("/2/id"));
}

#[test]
fn a_type_change_is_its_own_kind() {
    let found = diff(
        r#"{"a": "1", "b": [1], "c": null}"#,
        r#"{"a": 1, "b": {"0": 1}, "c": false}"#,
    );
    assert_eq!(
        listed(&found),
        vec![
            (ChangeKind::TypeChanged, "/a"),
            (ChangeKind::TypeChanged, "/b"),
            (ChangeKind::TypeChanged, "/c"),
        ]
    );
    let b = &found.changes[1];
    assert_eq!(b.old.as_ref().unwrap().kind, JsonKind::Array);
    assert_eq!(b.new.as_ref().unwrap().kind, JsonKind::Object);
    let root = diff("[1]", "1");
    assert_eq!(listed(&root), vec![(ChangeKind::TypeChanged, "")]);
}

#[test]
fn nesting_ten_thousand_deep_does_not_overflow() {
    let depth = 10_000;
    let nested = |leaf: &str| format!("{}{leaf}{}", "{\"k\":[".repeat(depth), "]}".repeat(depth));
    let found = diff(&nested("1"), &nested("2"));
    assert_eq!(found.counts.changed, 1);
    let pointer = &found.changes[0].pointer;
    assert_eq!(pointer, &"/k/0".repeat(depth));
    let equal = diff(&nested("1"), &nested("1.0"));
    assert!(equal.is_empty());
}

#[test]
fn a_repeated_key_compares_by_its_last_value() {
    assert!(diff(r#"{"a": 1, "a": 2}"#, r#"{"a": 2}"#).is_empty());
    let found = diff(r#"{"a": 1, "a": 2}"#, r#"{"a": 1}"#);
    assert_eq!(listed(&found), vec![(ChangeKind::Changed, "/a")]);
    assert_eq!(found.changes[0].old.as_ref().unwrap().preview, "2");
}

#[test]
fn the_cap_lists_the_first_changes_and_counts_the_rest() {
    let old: Vec<usize> = (0..50).collect();
    let new: Vec<usize> = (100..150).collect();
    let old = JsonDoc::from_value(&json!(old));
    let new = JsonDoc::from_value(&json!(new));
    let found = StructuralDiff::compute_capped(old.root(), new.root(), 10);
    assert_eq!(found.changes.len(), 10);
    assert_eq!(found.counts.changed, 50);
    assert_eq!(found.more(), 40);
    assert_eq!(found.changes[9].pointer, "/9");
    assert_eq!(
        found.summary(),
        "50 changes: 50 changed; the first 10 are listed, and 40 more"
    );
    // Unlisted changes are marked all the same, without an index into the list.
    let last = new.root().at_index(49).unwrap().id();
    assert_eq!(
        found.new_marks.at(last),
        Some(Mark::Change(ChangeKind::Changed))
    );
    assert_eq!(found.new_marks.change_at(last), None);
}

#[test]
fn previews_are_short_and_read_from_the_document() {
    let long = "x".repeat(10_000);
    let found = diff(&format!("[\"{long}\"]"), "[\"short\"]");
    let preview = &found.changes[0].old.as_ref().unwrap().preview;
    assert_eq!(preview.chars().count(), PREVIEW_CHARS);
    assert!(preview.ends_with('…'));
}

#[test]
fn one_side_absent_is_one_change_at_the_root() {
    let value = doc(r#"{"a": 1}"#);
    let added = StructuralDiff::compute_optional(None, Some(value.root()));
    assert_eq!(listed(&added), vec![(ChangeKind::Added, "")]);
    let removed = StructuralDiff::compute_optional(Some(value.root()), None);
    assert_eq!(listed(&removed), vec![(ChangeKind::Removed, "")]);
    assert!(StructuralDiff::compute_optional(None, None).is_empty());
}

#[test]
fn text_diff_hunks_are_exact() {
    let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let new = old
        .replace("line 3\n", "line three\n")
        .replace("line 18\n", "");
    let found = LineDiff::compute(&old, &new);
    assert_eq!((found.inserted, found.deleted), (1, 2));
    type Shown<'a> = (LineTag, Option<usize>, Option<usize>, &'a str);
    let shown: Vec<Vec<Shown<'_>>> = found
        .hunks
        .iter()
        .map(|hunk| {
            hunk.lines
                .iter()
                .map(|l| (l.tag, l.old_line, l.new_line, l.text.as_str()))
                .collect()
        })
        .collect();
    use LineTag::{Deleted, Inserted, Unchanged};
    assert_eq!(
        shown,
        vec![
            vec![
                (Unchanged, Some(1), Some(1), "line 1"),
                (Unchanged, Some(2), Some(2), "line 2"),
                (Deleted, Some(3), None, "line 3"),
                (Inserted, None, Some(3), "line three"),
                (Unchanged, Some(4), Some(4), "line 4"),
                (Unchanged, Some(5), Some(5), "line 5"),
                (Unchanged, Some(6), Some(6), "line 6"),
            ],
            vec![
                (Unchanged, Some(15), Some(15), "line 15"),
                (Unchanged, Some(16), Some(16), "line 16"),
                (Unchanged, Some(17), Some(17), "line 17"),
                (Deleted, Some(18), None, "line 18"),
                (Unchanged, Some(19), Some(18), "line 19"),
                (Unchanged, Some(20), Some(19), "line 20"),
            ],
        ]
    );
    assert_eq!(found.hunks[0].header(), "@@ -1,6 +1,6 @@");
    assert_eq!(found.hunks[1].header(), "@@ -15,6 +15,5 @@");
    assert_eq!(found.summary(), "1 line inserted, 2 deleted (of 20 → 19)");
    // Changes closer than twice the context share a hunk.
    let near = LineDiff::compute("a\nb\nc\nd\n", "a\nB\nc\nD\n");
    assert_eq!(near.hunks.len(), 1);
    assert_eq!(near.hunks[0].header(), "@@ -1,4 +1,4 @@");
    let same = LineDiff::compute(&old, &old);
    assert!(same.is_identical() && same.hunks.is_empty());
    assert_eq!(same.summary(), "the texts are the same");
}

#[test]
fn a_huge_text_diff_lists_only_its_first_lines() {
    let old: String = (0..30_000).map(|i| format!("line {i}\n")).collect();
    let new: String = (0..30_000).map(|i| format!("line {}\n", i * 7)).collect();
    let found = LineDiff::compute(&old, &new);
    assert_eq!(found.listed_lines(), MAX_LISTED_LINES);
    assert!(found.inserted + found.deleted > MAX_LISTED_LINES);
    // Dense changes make one hunk over the whole text: every old line plus the inserted ones.
    assert_eq!(found.hunks.len(), 1);
    assert_eq!(
        found.listed_lines() + found.unlisted_lines,
        found.old_lines + found.inserted
    );
    assert!(
        found.summary().contains("the first 10000 lines are listed"),
        "{}",
        found.summary()
    );
}

fn result_doc(value: serde_json::Value) -> JsonDoc {
    JsonDoc::from_value(&json!({"jsonrpc": "2.0", "id": 1, "result": value}))
}

#[test]
fn call_comparison_says_what_changed_in_plain_sentences() {
    let ok = result_doc(json!({
        "content": [{"type": "text", "text": "{\"n\":1}"}],
        "structuredContent": {"n": 1},
    }));
    let failed = result_doc(json!({
        "content": [{"type": "text", "text": "boom"}],
        "isError": true,
    }));
    let analyse = |message: &JsonDoc| {
        analyze_call(
            CallResponse::Result(message.root().get("result").unwrap()),
            None,
            ProtocolEra::Modern,
        )
    };
    let (ok_analysis, failed_analysis) = (analyse(&ok), analyse(&failed));
    let old = CallSide::from_message(
        &ok,
        &ok_analysis,
        Verdict::Ok,
        Some(Duration::from_millis(12)),
    );
    let new = CallSide::from_message(
        &failed,
        &failed_analysis,
        Verdict::ToolError,
        Some(Duration::from_millis(340)),
    );
    let compared = CallComparison::new(&old, &new);
    assert!(
        compared
            .differences
            .contains(&"isError: false → true".to_owned()),
        "{:?}",
        compared.differences
    );
    assert!(
        compared
            .differences
            .contains(&"verdict: ok → tool_error".to_owned())
    );
    assert!(
        compared
            .differences
            .contains(&"structuredContent: an object with 1 key → absent".to_owned())
    );
    assert_eq!(
        compared.differences.last().map(String::as_str),
        Some("duration 12 ms → 340 ms (28× slower)")
    );
    assert_eq!(
        listed(&compared.structured),
        vec![(ChangeKind::Removed, "")]
    );
    assert_eq!((compared.text.inserted, compared.text.deleted), (1, 1));
    assert!(!compared.is_same_result());

    let again = CallComparison::new(&old, &old);
    assert!(again.differences.is_empty(), "{:?}", again.differences);
    assert!(again.is_same_result());

    let timed_out = CallSide::unanswered(Verdict::Timeout, None);
    let lost = CallComparison::new(&old, &timed_out);
    assert!(
        lost.differences
            .contains(&"response: a result → no answer".to_owned())
    );
    assert!(
        lost.differences
            .contains(&"verdict: ok → timeout".to_owned())
    );
}

#[test]
fn what_differs_in_the_calls_is_said_first_and_apart() {
    let message = |n: i64| {
        JsonDoc::from_value(&json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": n.to_string()}],
            "structuredContent": {"result": n},
        }}))
    };
    let (three, nine) = (message(3), message(9));
    let analyse = |doc: &JsonDoc| {
        analyze_call(
            CallResponse::Result(doc.root().get("result").unwrap()),
            None,
            ProtocolEra::Modern,
        )
    };
    let (a, b) = (analyse(&three), analyse(&nine));
    let (args_old, args_new) = (json!({"a": 1, "b": 2}), json!({"a": 4, "b": 5}));
    let old = CallSide::from_message(&three, &a, Verdict::Ok, None).with_context(CallContext {
        server: Some("demo 0.1.0"),
        protocol: Some("2026-07-28"),
        tool: Some("add"),
        arguments: Some(&args_old),
    });
    let new = CallSide::from_message(&nine, &b, Verdict::Ok, None).with_context(CallContext {
        server: Some("python peer 1.2"),
        protocol: Some("2025-11-25"),
        tool: Some("add"),
        arguments: Some(&args_new),
    });
    let compared = CallComparison::new(&old, &new);
    assert_eq!(
        compared.calls,
        vec![
            "server: demo 0.1.0 → python peer 1.2".to_owned(),
            "protocol: 2026-07-28 → 2025-11-25".to_owned(),
            "arguments: /a: changed 1 → 4; /b: changed 2 → 5".to_owned(),
        ]
    );
    assert!(compared.summary_lines()[0].starts_with("server:"));
    // The same call on the same server says nothing of it.
    let same = CallComparison::new(&old, &old);
    assert!(same.calls.is_empty());
    assert!(same.is_same_result());
}
