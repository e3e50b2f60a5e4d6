//! The main path without the mouse: a tool found, picked, filled in and called from the
//! keyboard (Ctrl+K, arrows, Tab, Ctrl+Enter), and Escape cancelling a running call.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text};

#[test]
fn the_main_path_works_from_the_keyboard() {
    let mut window = Window::connected("keys");
    window.type_4_tab_5_into_add();
    window
        .harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    window.step_until("the result of Ctrl+Enter", |h| {
        has_text(h, "— what the model reads")
    });
    assert!(
        window.harness.query_all_by_label("9").next().is_some(),
        "4 + 5 = 9 is shown"
    );
}

/// Text typed and Ctrl+Enter pressed in the same frame: the call carries what was typed.
#[test]
fn ctrl_enter_in_the_frame_text_was_typed_sends_that_text() {
    let mut window = Window::connected("same_frame");
    window.type_4_tab_5_into_add();
    // b becomes 50 in the very frame Ctrl+Enter is pressed (kittest's queue gives each event
    // a frame of its own, so these go straight into the next frame's input).
    let ctrl = egui::Modifiers::COMMAND;
    let enter = |pressed| egui::Event::Key {
        key: egui::Key::Enter,
        physical_key: None,
        pressed,
        repeat: false,
        modifiers: ctrl,
    };
    let input = window.harness.input_mut();
    input.events.push(egui::Event::Text("0".to_owned()));
    input.events.push(egui::Event::ModifiersChanged(ctrl));
    input.events.push(enter(true));
    input.events.push(enter(false));
    input
        .events
        .push(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    window.harness.step();
    window.step_until("the result of Ctrl+Enter", |h| {
        has_text(h, "— what the model reads")
    });
    assert!(
        window.harness.query_all_by_label("54").next().is_some(),
        "4 + 50 = 54 is shown (4 + 5 = 9 would be the arguments before the frame)"
    );
}

#[test]
fn tools_are_found_picked_and_called_without_the_mouse() {
    let mut window = Window::open("find");
    window.step_until("the demo server's tools", |h| has_text(h, "13 tools"));
    window
        .harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    window.harness.run_ok();
    assert!(
        window.harness.get_by_label("Filter").is_focused(),
        "Ctrl+K focuses the tool filter"
    );
    window.harness.event(egui::Event::Text("add_".to_owned()));
    window.harness.run_ok();
    assert!(has_text(&window.harness, "2 of 13 tools"));
    // add_model, add_text_only: down twice is add_text_only.
    window.harness.key_press(egui::Key::ArrowDown);
    window.harness.key_press(egui::Key::ArrowDown);
    window.harness.key_press(egui::Key::Enter);
    window.harness.run_ok();
    let selected = window
        .harness
        .state()
        .model()
        .selected_tool()
        .map(|(_, tool)| tool.name.clone());
    assert_eq!(selected.as_deref(), Some("add_text_only"));
    assert!(
        window.harness.get_by_label("a").is_focused(),
        "picking a tool puts the focus on its first argument"
    );
    window.harness.event(egui::Event::Text("2".to_owned()));
    window.harness.key_press(egui::Key::Tab);
    window.harness.event(egui::Event::Text("3".to_owned()));
    window.harness.run_ok();
    window
        .harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    assert!(
        has_text(&window.harness, "value=5 operation='add'"),
        "2 + 3 = 5 is shown"
    );
}

#[test]
fn escape_cancels_a_running_call() {
    let mut window = Window::connected("escape");
    window.select_tool("slow_task");
    window.call();
    window.step_until("progress", |h| has_text(h, "step 1 of 10"));
    window.harness.key_press(egui::Key::Escape);
    window.step_until("the call to end", |h| {
        h.query_by_role_and_label(Role::Label, "Cancelled")
            .is_some()
    });
}

impl Window {
    /// On the demo's `add`: 4 typed into a, Tab, 5 typed into b, from the keyboard.
    fn type_4_tab_5_into_add(&mut self) {
        self.select_tool("add");
        self.harness.get_by_label("a").focus();
        self.harness.run_ok();
        self.harness.event(egui::Event::Text("4".to_owned()));
        self.harness.key_press(egui::Key::Tab);
        self.harness.run_ok();
        assert!(
            self.harness.get_by_label("b").is_focused(),
            "Tab moves from a to b"
        );
        self.harness.event(egui::Event::Text("5".to_owned()));
        self.harness.run_ok();
    }
}

/// A fresh start on the demo server: typing goes into `add`'s first argument at once, and the
/// untouched form warns about nothing; once edited, what is still missing is said, by the
/// name the form shows.
#[test]
fn a_fresh_start_puts_the_focus_in_the_first_argument_and_warns_only_once_edited() {
    let mut window = Window::connected("fresh-focus");
    window.step_until("add's form", |h| h.query_by_label("a").is_some());
    window.harness.run_ok();
    assert!(
        window.harness.get_by_label("a").is_focused(),
        "a has the focus"
    );
    assert!(
        !has_text(&window.harness, "is required"),
        "an untouched form"
    );
    window.harness.get_by_label("a").type_text("1");
    window.harness.run_ok();
    window.step_until("b said to be missing", |h| {
        has_text(h, "the property \"b\" is required")
    });
}
