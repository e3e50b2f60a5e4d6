//! Headless UI tests with egui_kittest (no rendering, accessibility tree only).

use egui::accesskit::Role;
use egui::{Key, Modifiers, OutputCommand, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use serde_json::{Value, json};

use super::{JsonTreeAction, JsonTreeState, json_tree_ui};
use toolscope_core::json_doc::JsonDoc;

struct App {
    value: JsonDoc,
    tree: JsonTreeState,
    actions: Vec<JsonTreeAction>,
    /// Clipboard writes of every frame: kittest steps several frames per input,
    /// so the last frame's output alone may miss them.
    copied: Vec<String>,
}

fn harness(value: Value) -> Harness<'static, App> {
    let app = App {
        value: JsonDoc::from_value(&value),
        tree: JsonTreeState::new(),
        actions: Vec::new(),
        copied: Vec::new(),
    };
    Harness::builder()
        .with_size(vec2(640.0, 480.0))
        .build_ui_state(
            |ui, app: &mut App| {
                if let Some(action) = json_tree_ui(ui, "result", 1, app.value.root(), &mut app.tree)
                {
                    app.actions.push(action);
                }
                let copied = ui.ctx().output(|o| {
                    o.commands
                        .iter()
                        .filter_map(|c| match c {
                            OutputCommand::CopyText(text) => Some(text.clone()),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                });
                app.copied.extend(copied);
            },
            app,
        )
}

fn sample() -> Value {
    json!({
        "user": {"name": "Alice", "email": "alice@example.com"},
        "count": 42,
        "items": [{"id": 1, "label": "first"}, {"id": 2, "label": "second"}],
        "ok": true
    })
}

#[test]
fn renders_keys_as_tree_items() {
    let mut harness = harness(sample());
    harness.run();
    // Level 2 by default: root, its children and grandchildren are rows.
    harness.get_by_role_and_label(Role::TreeItem, "(root)");
    harness.get_by_role_and_label(Role::TreeItem, "user");
    harness.get_by_role_and_label(Role::TreeItem, "name");
    harness.get_by_role_and_label(Role::TreeItem, "[1]");
    assert!(
        harness.query_by_label("label").is_none(),
        "level 3 is closed"
    );
    assert_eq!(harness.state().tree.visible_row_count(), 9);
    // Toolbar buttons carry text, and the search box its label.
    harness.get_by_label("Expand all");
    harness.get_by_role_and_label(Role::TextInput, "Search:");
}

#[test]
fn clicking_a_row_selects_it() {
    let mut harness = harness(sample());
    harness.run();
    harness.get_by_label("email").click();
    harness.run();
    assert_eq!(
        harness.state().tree.selected_pointer().as_deref(),
        Some("/user/email")
    );
}

#[test]
fn expand_buttons() {
    let mut harness = harness(sample());
    harness.run();
    harness.get_by_label("Expand all").click();
    harness.run();
    assert_eq!(harness.state().tree.visible_row_count(), 13);
    harness.get_all_by_label("label").nth(1).unwrap();
    harness.get_by_label("Collapse all").click();
    harness.run();
    assert_eq!(harness.state().tree.visible_row_count(), 1);
    harness.get_by_label("1").click();
    harness.run();
    assert_eq!(harness.state().tree.visible_row_count(), 5);
}

#[test]
fn typing_a_search_highlights_matches() {
    let mut harness = harness(sample());
    harness.run();
    let search = harness.get_by_role_and_label(Role::TextInput, "Search:");
    search.click();
    harness.run();
    harness
        .get_by_role_and_label(Role::TextInput, "Search:")
        .type_text("LABEL");
    harness.run();
    assert_eq!(harness.state().tree.match_count(), 2);
    harness.get_by_label_contains("2 matches");
    // The matches were at level 3: their parents were opened to show them.
    assert_eq!(harness.get_all_by_label("label").count(), 2);

    harness.get_by_label("Next").click();
    harness.run();
    assert_eq!(harness.state().tree.current_match, Some(1));
}

#[test]
fn context_menu_use_as_argument_returns_an_action() {
    let mut harness = harness(sample());
    harness.run();
    harness.get_by_label("user").click_secondary();
    harness.run();
    harness.get_by_label("Use as argument of…").click();
    harness.run();
    let app = harness.state();
    assert_eq!(
        app.actions,
        vec![JsonTreeAction::UseAsArgument {
            pointer: "/user".to_owned(),
            value: json!({"name": "Alice", "email": "alice@example.com"}),
        }]
    );
    assert_eq!(app.tree.selected_pointer().as_deref(), Some("/user"));
    assert!(
        harness.query_by_label("Copy value").is_none(),
        "menu closed"
    );
}

#[test]
fn a_value_too_deep_to_copy_is_not_offered_as_an_argument() {
    let levels = toolscope_core::deep_json::SHOWN_DEPTH + 1;
    let text = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
    let mut value = serde_json::Map::new();
    value.insert(
        "deep".to_owned(),
        toolscope_core::deep_json::parse(&text).unwrap(),
    );
    let mut harness = harness(Value::Object(value));
    harness.run();
    harness.get_by_label("deep").click_secondary();
    harness.run();
    harness.get_by_label("Copy value").click();
    harness.run();
    assert_eq!(harness.state().copied, vec![text]);
    harness.get_by_label("deep").click_secondary();
    harness.run();
    let button = harness.get_by_label("Use as argument of…");
    assert!(button.accesskit_node().is_disabled());
    button.click();
    harness.run();
    assert!(harness.state().actions.is_empty());
}

#[test]
fn context_menu_copies_value_and_pointer() {
    let mut harness = harness(sample());
    harness.run();
    harness.get_by_label("name").click_secondary();
    harness.run();
    harness.get_by_label("Copy value").click();
    harness.run();
    assert_eq!(harness.state().copied, vec!["Alice".to_owned()]);

    harness.get_by_label("items").click_secondary();
    harness.run();
    harness.get_by_label("Copy JSON Pointer").click();
    harness.run();
    assert_eq!(harness.state().copied[1..], ["/items".to_owned()]);
}

#[test]
fn keyboard_navigation_when_focused() {
    let mut harness = harness(sample());
    harness.run();
    harness.get_by_label("user").click();
    harness.run();
    harness.key_press(Key::ArrowDown);
    harness.run();
    assert_eq!(
        harness.state().tree.selected_pointer().as_deref(),
        Some("/user/name")
    );
    harness.key_press(Key::ArrowLeft);
    harness.run();
    assert_eq!(
        harness.state().tree.selected_pointer().as_deref(),
        Some("/user")
    );
    harness.key_press(Key::ArrowLeft);
    harness.run();
    assert_eq!(harness.state().tree.visible_row_count(), 7);
    harness.key_press(Key::ArrowRight);
    harness.run();
    assert_eq!(harness.state().tree.visible_row_count(), 9);

    harness.key_press_modifiers(Modifiers::COMMAND, Key::C);
    harness.run();
    assert_eq!(
        harness.state().copied,
        vec!["{\n  \"name\": \"Alice\",\n  \"email\": \"alice@example.com\"\n}".to_owned()]
    );
}

#[test]
fn select_pointer_scrolls_far_rows_into_view() {
    let rows: Vec<Value> = (0..2000).map(|i| json!({"n": i})).collect();
    let mut harness = harness(Value::Array(rows));
    harness.run();
    assert!(
        harness.query_by_label("[1500]").is_none(),
        "not rendered yet"
    );
    harness.state_mut().tree.select_pointer("/1500/n");
    harness.run();
    harness.get_by_role_and_label(Role::TreeItem, "[1500]");
    assert_eq!(
        harness.state().tree.selected_pointer().as_deref(),
        Some("/1500/n")
    );
}

#[test]
fn a_selected_long_string_is_shown_whole_below_the_rows() {
    let long = format!("line one\nline two {}", "x".repeat(300));
    let mut harness = harness(json!({"short": "hi", "long": long}));
    harness.run();
    harness
        .get_by_role_and_label(Role::TreeItem, "short")
        .click();
    harness.run();
    assert!(
        harness
            .query_by_label_contains("The selected string in full")
            .is_none(),
        "a short string fits its row"
    );
    harness
        .get_by_role_and_label(Role::TreeItem, "long")
        .click();
    harness.run();
    assert!(
        harness
            .query_by_label_contains("The selected string in full (318 characters)")
            .is_some()
    );
    assert!(harness.query_by_label_contains("line two xxxx").is_some());
}
