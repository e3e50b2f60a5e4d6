//! Unit tests of the index, pointers, expansion, search, selection and keyboard moves.

use serde_json::{Value, json};

use super::index::{JsonIndex, KeyRef, Kind};
use super::preview::{copy_text, scalar_preview, type_label};
use super::{JsonTreeState, pointer_escape, pointer_unescape};
use toolscope_core::json_doc::{JsonDoc, JsonRef};
use toolscope_core::json_pointer::{parse_array_index, parse_pointer};

fn sample() -> Value {
    json!({
        "name": "Alice",
        "age": 42,
        "tags": ["admin", "ops"],
        "a/b": {"c~d": null, "deep": {"flag": true}},
        "empty": {}
    })
}

/// The value as a document that lives for the test (indexes built again from the same value
/// find the same places in it).
fn r(value: &Value) -> JsonRef<'static> {
    Box::leak(Box::new(JsonDoc::from_value(value))).root()
}

fn state_for(value: &Value) -> JsonTreeState {
    let mut state = JsonTreeState::new();
    state.sync(1, r(value));
    state
}

#[test]
fn index_layout() {
    let v = sample();
    let index = JsonIndex::build(r(&v));
    // root + 5 keys + 2 tags + 2 in "a/b" + 1 in "deep"
    assert_eq!(index.len(), 11);
    let root = index.get(0).unwrap();
    assert_eq!(root.kind, Kind::Object);
    assert_eq!(root.child_count, 5);
    let children: Vec<_> = index.children(0).map(|c| index.key(c)).collect();
    assert_eq!(
        children,
        vec![
            KeyRef::Name("name"),
            KeyRef::Name("age"),
            KeyRef::Name("tags"),
            KeyRef::Name("a/b"),
            KeyRef::Name("empty"),
        ]
    );
    let tags = index.child_by_token(0, "tags").unwrap();
    assert_eq!(index.get(tags).unwrap().kind, Kind::Array);
    let ops = index.child_by_token(tags, "1").unwrap();
    assert_eq!(index.key(ops), KeyRef::Index(1));
    assert_eq!(index.get(ops).unwrap().depth, 2);
    assert_eq!(index.parent(ops), Some(tags));
    assert_eq!(
        index.resolve(r(&v), ops).map(|v| v.to_value()),
        Some(json!("ops"))
    );
}

#[test]
fn index_of_scalar_root_and_deep_value() {
    let index = JsonIndex::build(r(&json!(3)));
    assert_eq!(index.len(), 1);
    assert_eq!(index.pointer(0), "");

    // Deeper than any recursion limit would allow: the build must be iterative.
    let mut deep = json!(0);
    for _ in 0..50_000 {
        deep = Value::Array(vec![deep]);
    }
    let index = JsonIndex::build(r(&deep));
    assert_eq!(index.len(), 50_001);
    let leaf = (index.len() - 1) as u32;
    assert_eq!(index.get(leaf).unwrap().depth, 50_000);
    assert_eq!(
        index.resolve(r(&deep), leaf).map(|v| v.to_value()),
        Some(json!(0))
    );
    // serde_json's Drop is recursive; leak the test value instead of overflowing.
    std::mem::forget(deep);
}

#[test]
fn pointer_escaping() {
    assert_eq!(pointer_escape("plain"), "plain");
    assert_eq!(pointer_escape("a/b"), "a~1b");
    assert_eq!(pointer_escape("c~d"), "c~0d");
    assert_eq!(pointer_escape("~/"), "~0~1");
    assert_eq!(pointer_unescape("~01").as_deref(), Some("~1"));
    assert_eq!(pointer_unescape("a~1b").as_deref(), Some("a/b"));
    assert_eq!(pointer_unescape("bad~2"), None);
    assert_eq!(parse_pointer(""), Some(vec![]));
    assert_eq!(parse_pointer("/"), Some(vec![String::new()]));
    assert_eq!(
        parse_pointer("/a~1b/c~0d"),
        Some(vec!["a/b".to_owned(), "c~d".to_owned()])
    );
    assert_eq!(parse_pointer("no-slash"), None);
    assert_eq!(parse_array_index("0"), Some(0));
    assert_eq!(parse_array_index("12"), Some(12));
    assert_eq!(parse_array_index("01"), None);
    assert_eq!(parse_array_index("-"), None);
}

#[test]
fn pointer_building_round_trips() {
    let v = sample();
    let index = JsonIndex::build(r(&v));
    for node in 0..index.len() as u32 {
        let pointer = index.pointer(node);
        // serde_json implements RFC 6901 too: both must agree on every node.
        assert_eq!(
            v.pointer(&pointer).cloned(),
            index.resolve(r(&v), node).map(|v| v.to_value()),
            "{pointer}"
        );
    }
    let ab = index.child_by_token(0, "a/b").unwrap();
    let cd = index.child_by_token(ab, "c~d").unwrap();
    assert_eq!(index.pointer(cd), "/a~1b/c~0d");
}

#[test]
fn default_and_level_expansion() {
    let v = sample();
    let mut state = state_for(&v);
    // Level 2 by default: root, its 5 children, 2 tags, 2 entries of "a/b".
    assert_eq!(state.visible_row_count(), 10);
    state.expand_to_level(0);
    assert_eq!(state.visible_row_count(), 1);
    state.expand_to_level(1);
    assert_eq!(state.visible_row_count(), 6);
    state.expand_to_level(3);
    assert_eq!(state.visible_row_count(), 11);
    state.collapse_all();
    assert_eq!(state.visible_row_count(), 1);
    state.expand_all();
    assert_eq!(state.visible_row_count(), 11);
}

#[test]
fn new_generation_rebuilds_and_same_generation_does_not() {
    let v = sample();
    let mut state = state_for(&v);
    state.expand_all();
    state.sync(1, r(&v));
    assert_eq!(state.visible_row_count(), 11);
    let other = json!({"x": [1, 2, 3]});
    state.sync(2, r(&other));
    assert_eq!(state.visible_row_count(), 5);
}

#[test]
fn search_counts_and_opens_ancestors() {
    let v = sample();
    let mut state = state_for(&v);
    state.collapse_all();
    state.set_search("FLAG");
    state.sync(1, r(&v));
    assert_eq!(state.match_count(), 1);
    // root, its 5 children, "a/b"'s 2 children, "deep"'s child: the match is shown.
    assert_eq!(state.visible_row_count(), 9);

    // Keys and values, case-insensitively; numbers, bools and null by their JSON text.
    for (query, expected) in [
        // name (key; "Alice" is the same row), age, tags, admin, a/b, flag
        ("a", 6),
        ("42", 1),
        ("true", 1),
        ("null", 1),
        ("ADMIN", 1),
        ("", 0),
        ("zzz", 0),
    ] {
        state.set_search(query);
        state.sync(1, r(&v));
        assert_eq!(state.match_count(), expected, "query {query:?}");
    }
}

#[test]
fn search_non_ascii() {
    let v = json!({"Straße": "ÉCOLE", "other": 1});
    let mut state = state_for(&v);
    state.set_search("école");
    state.sync(1, r(&v));
    assert_eq!(state.match_count(), 1);
    state.set_search("STRASSE");
    state.sync(1, r(&v));
    assert_eq!(state.match_count(), 0);
    state.set_search("straß");
    state.sync(1, r(&v));
    assert_eq!(state.match_count(), 1);
}

#[test]
fn match_navigation_wraps() {
    let v = json!({"x1": 1, "x2": {"x3": 3}});
    let mut state = state_for(&v);
    state.set_search("x");
    state.sync(1, r(&v));
    assert_eq!(state.match_count(), 3);
    assert_eq!(state.current_match, Some(0));
    state.goto_match(true);
    state.goto_match(true);
    assert_eq!(state.current_match, Some(2));
    state.goto_match(true);
    assert_eq!(state.current_match, Some(0));
    state.goto_match(false);
    assert_eq!(state.current_match, Some(2));
    let index = state.index.as_ref().unwrap();
    assert_eq!(index.pointer(state.current_match_node().unwrap()), "/x2/x3");
    assert_eq!(state.scroll_to, state.current_match_node());
}

#[test]
fn select_pointer_exact_and_fallback() {
    let v = sample();
    let mut state = state_for(&v);
    state.collapse_all();
    assert!(state.select_pointer("/a~1b/deep/flag"));
    assert_eq!(state.selected_pointer().as_deref(), Some("/a~1b/deep/flag"));
    assert_eq!(
        state.selected_value(r(&v)).map(|v| v.to_value()),
        Some(json!(true))
    );
    // Ancestors were opened so the row is visible, and a scroll is pending.
    let node = state.selected.unwrap();
    assert!(state.row_of(node).is_some());
    assert_eq!(state.scroll_to, Some(node));

    assert!(!state.select_pointer("/a~1b/deep/missing/more"));
    assert_eq!(state.selected_pointer().as_deref(), Some("/a~1b/deep"));
    assert!(state.fallback_note.is_some());

    assert!(!state.select_pointer("/tags/7"));
    assert_eq!(state.selected_pointer().as_deref(), Some("/tags"));
    assert!(state.select_pointer("/tags/1"));
    assert!(state.fallback_note.is_none());
    assert!(state.select_pointer(""));
    assert_eq!(state.selected_pointer().as_deref(), Some(""));
    assert!(!state.select_pointer("garbage"));
    assert_eq!(state.selected_pointer().as_deref(), Some(""));
}

#[test]
fn select_pointer_before_any_value_is_applied_later() {
    let v = sample();
    let mut state = JsonTreeState::new();
    assert!(state.select_pointer("/tags/0"));
    assert_eq!(state.selected_pointer(), None);
    state.sync(7, r(&v));
    assert_eq!(state.selected_pointer().as_deref(), Some("/tags/0"));
}

#[test]
fn selection_survives_new_value_when_node_exists() {
    let v = sample();
    let mut state = state_for(&v);
    state.select_pointer("/tags/1");
    state.sync(2, r(&json!({"tags": ["x", "y", "z"]})));
    assert_eq!(state.selected_pointer().as_deref(), Some("/tags/1"));
    state.sync(3, r(&json!({"other": 1})));
    assert_eq!(state.selected_pointer(), None);
}

#[test]
fn keyboard_moves() {
    let v = json!({"a": {"b": 1}, "c": 2});
    let mut state = state_for(&v);
    // Rows: (root), a, b, c
    state.move_selection(1);
    assert_eq!(state.selected_pointer().as_deref(), Some(""));
    state.move_selection(1);
    assert_eq!(state.selected_pointer().as_deref(), Some("/a"));
    state.collapse_or_parent(); // closes "a"
    assert_eq!(state.visible_row_count(), 3);
    state.collapse_or_parent(); // already closed: go to parent
    assert_eq!(state.selected_pointer().as_deref(), Some(""));
    state.move_selection(1);
    state.expand_or_child(); // opens "a"
    assert_eq!(state.visible_row_count(), 4);
    state.expand_or_child(); // already open: first child
    assert_eq!(state.selected_pointer().as_deref(), Some("/a/b"));
    state.move_selection(10); // clamps at the last row
    assert_eq!(state.selected_pointer().as_deref(), Some("/c"));
    state.move_selection(-10);
    assert_eq!(state.selected_pointer().as_deref(), Some(""));
}

#[test]
fn previews_and_copy_text() {
    assert_eq!(type_label(Kind::Object, 3), "object {3}");
    assert_eq!(type_label(Kind::Array, 2), "array [2]");
    assert_eq!(scalar_preview(r(&json!("hi\nthere"))), "\"hi\\nthere\"");
    let long = "x".repeat(500);
    let preview = scalar_preview(r(&json!(long)));
    assert!(preview.ends_with("…\""));
    assert!(preview.chars().count() < 130);
    assert_eq!(copy_text(r(&json!(long))), long);
    assert_eq!(copy_text(r(&json!("raw"))), "raw");
    assert_eq!(copy_text(r(&json!(1.5))), "1.5");
    assert_eq!(copy_text(r(&json!({"a": 1}))), "{\n  \"a\": 1\n}");
}

#[test]
fn mismatched_value_for_same_generation_does_not_panic() {
    let v = sample();
    let mut state = state_for(&v);
    let other = json!([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    state.set_search("1");
    state.sync(1, r(&other));
    assert!(
        state
            .selected_value(r(&other))
            .map(|v| v.to_value())
            .is_none()
    );
}

/// The whole tree state on values 10,000 and 100,000 levels deep, on a thread with a tokio
/// worker's 2 MiB stack: index, expansion, selection by pointer, search and copy.
#[test]
fn deep_values_on_a_worker_stack() {
    for levels in [10_000, 100_000] {
        std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(move || {
                let text = format!("{}\"leaf\"{}", "[".repeat(levels), "]".repeat(levels));
                let value = toolscope_core::deep_json::DeepValue(
                    toolscope_core::deep_json::parse(&text).unwrap(),
                );
                let mut state = state_for(&value);
                state.expand_all();
                assert_eq!(state.visible_row_count(), levels + 1);
                let deepest = "/0".repeat(levels);
                assert!(state.select_pointer(&deepest));
                assert_eq!(
                    state.selected_value(r(&value)).map(|v| v.to_value()),
                    Some(json!("leaf"))
                );
                assert_eq!(state.selected_pointer(), Some(deepest));
                state.set_search("leaf");
                state.sync(1, r(&value));
                assert_eq!(state.match_count(), 1);
                // Too deep for pretty text (it grows with the square of the depth): compact.
                assert_eq!(copy_text(r(&value)), text);
                state.collapse_all();
                assert_eq!(state.visible_row_count(), 1);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}

#[test]
fn marks_land_on_their_nodes_or_the_nearest_ancestor() {
    use super::{MarkTone, NodeMark};
    let v = sample();
    let mut state = state_for(&v);
    let mark = |pointer: &str, text: &str| NodeMark {
        pointer: pointer.to_owned(),
        text: text.to_owned(),
        tone: MarkTone::Problem,
        missing_key: None,
    };
    let mut made = 0;
    let mut set = |state: &mut JsonTreeState, generation| {
        state.set_marks(generation, || {
            made += 1;
            vec![
                mark("/age", "should be a string"),
                mark("/a~1b/missing", "the property \"missing\" is required"),
                mark("", "root note"),
            ]
        });
    };
    set(&mut state, 1);
    set(&mut state, 1);
    assert_eq!(made, 1, "made once per value");
    let index = state.index.as_ref().unwrap();
    let age = index.child_by_token(0, "age").unwrap();
    let ab = index.child_by_token(0, "a/b").unwrap();
    let texts = |node| -> Vec<String> { state.marks_of(node).map(|m| m.text.clone()).collect() };
    assert_eq!(texts(age), vec!["should be a string"]);
    assert_eq!(texts(ab), vec!["the property \"missing\" is required"]);
    assert_eq!(texts(0), vec!["root note"]);
    // A new value gets the same marks placed on it until the caller sets new ones.
    let other = json!({"age": 1});
    state.sync(2, r(&other));
    let age = state
        .index
        .as_ref()
        .unwrap()
        .child_by_token(0, "age")
        .unwrap();
    assert_eq!(texts_of(&state, age), vec!["should be a string"]);
}

fn texts_of(state: &JsonTreeState, node: u32) -> Vec<String> {
    state.marks_of(node).map(|m| m.text.clone()).collect()
}

#[test]
fn a_missing_property_is_a_ghost_row_after_the_objects_children() {
    use super::state::is_ghost;
    use super::{MarkTone, NodeMark};
    let v = json!({"value": "three", "operation": 7});
    let mut state = state_for(&v);
    state.set_marks(1, || {
        vec![NodeMark {
            pointer: String::new(),
            text: "missing, required".to_owned(),
            tone: MarkTone::Problem,
            missing_key: Some("is_success".to_owned()),
        }]
    });
    // root, value, operation, then the ghost.
    assert_eq!(state.visible_row_count(), 4);
    let ghost = *state.visible.last().unwrap();
    assert!(is_ghost(ghost));
    assert_eq!(
        state.ghost(ghost).and_then(|m| m.missing_key.as_deref()),
        Some("is_success")
    );
    assert_eq!(state.ghost_parent(ghost), Some(0));
    assert!(
        state.marks_of(0).next().is_none(),
        "a ghost is not also a mark"
    );
    // The keyboard steps over it.
    let operation = state
        .index
        .as_ref()
        .unwrap()
        .child_by_token(0, "operation")
        .unwrap();
    state.select_node(operation);
    state.move_selection(1);
    assert_eq!(state.selected, Some(operation));
    // Collapsed, the object hides its ghost too.
    state.collapse_all();
    assert_eq!(state.visible_row_count(), 1);
}

#[test]
fn an_index_released_while_hidden_is_built_again_with_the_selection() {
    let v = sample();
    let mut state = state_for(&v);
    state.select_pointer("/tags/1");
    state.release_index();
    assert!(
        !state.is_built(),
        "nothing that grows with the value is held"
    );
    state.sync(1, r(&v));
    assert!(state.is_built());
    assert_eq!(state.selected_pointer().as_deref(), Some("/tags/1"));
}
