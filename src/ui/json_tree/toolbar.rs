//! Toolbar above the tree: expansion buttons and the search box.

use egui::{Button, Id, Key, RichText, TextEdit, Ui};

use super::state::JsonTreeState;

/// Deepest level offered as a button; deeper trees use "Expand all".
const MAX_LEVEL_BUTTON: usize = 4;

/// Below this width the toolbar is one line: the expansion buttons in a menu.
const ONE_LINE_BELOW: f32 = 400.0;

pub(super) fn toolbar(ui: &mut Ui, tree_id: Id, state: &mut JsonTreeState) {
    if ui.available_width() < ONE_LINE_BELOW {
        // A narrow pane (a small window, a projector's zoom): one line, so the tree keeps the
        // height; what expands is one click further, in a menu.
        ui.horizontal(|ui| {
            ui.menu_button("Expand", |ui| expansion_buttons(ui, state));
            // The word gives its room to the box; the icon says what the box is for.
            let label = ui
                .label(crate::ui::theme::icons::ICON_SEARCH.rich_text())
                .on_hover_text("Search keys and values");
            // Prev and Next from the right edge, the box in what is left: never past the pane.
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                search_ui(ui, tree_id, state, label.id, true);
            });
        });
    } else {
        ui.horizontal_wrapped(|ui| expansion_buttons(ui, state));
        // Wraps, like the row above: in a narrow pane Prev and Next go to the next line
        // instead of pushing the pane past its edge.
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Search:");
            search_ui(ui, tree_id, state, label.id, false);
        });
    }

    if let Some((requested, shown)) = &state.fallback_note {
        let shown = if shown.is_empty() { "(root)" } else { shown };
        let text = format!("{requested} does not exist; showing its nearest ancestor {shown}");
        ui.label(RichText::new(text).color(ui.visuals().warn_fg_color));
    }
}

fn expansion_buttons(ui: &mut Ui, state: &mut JsonTreeState) {
    if ui.button("Expand all").clicked() {
        state.expand_all();
    }
    if ui.button("Collapse all").clicked() {
        state.collapse_all();
    }
    ui.label("Level:");
    for level in 1..=MAX_LEVEL_BUTTON {
        let clicked = ui
            .button(level.to_string())
            .on_hover_text(format!("Expand to level {level}"))
            .clicked();
        if clicked {
            state.expand_to_level(level);
        }
    }
}

/// The search box (labelled by `label`), its count and Prev/Next; `compact`: in a
/// right-to-left line (Next first), the count as "i/n" and the box as wide as the line leaves.
fn search_ui(ui: &mut Ui, tree_id: Id, state: &mut JsonTreeState, label: Id, compact: bool) {
    let count = state.match_count();
    let searching = !state.search_query().is_empty();
    let count_text = searching.then(|| match (count, state.current_match, compact) {
        (n, Some(i), true) if n > 0 => format!("{}/{n}", i + 1),
        (n, _, true) => format!("0/{n}"),
        (1, _, false) => "1 match".to_owned(),
        (n, Some(i), false) if n > 1 => format!("{n} matches ({} / {n})", i + 1),
        (n, _, false) => format!("{n} matches"),
    });
    if compact {
        steps_ui(ui, state, count, true);
        if let Some(text) = &count_text {
            ui.label(text);
        }
        search_box(ui, tree_id, state, label, ui.available_width().max(40.0));
    } else {
        let width = 200.0_f32.min(ui.available_width() - 80.0).max(80.0);
        search_box(ui, tree_id, state, label, width);
        if let Some(text) = &count_text {
            ui.label(text);
        }
        steps_ui(ui, state, count, false);
    }
}

fn search_box(ui: &mut Ui, tree_id: Id, state: &mut JsonTreeState, label: Id, width: f32) {
    let edit = TextEdit::singleline(&mut state.search_input)
        .id(tree_id.with("search"))
        .hint_text("key or value")
        .desired_width(width);
    // labelled_by ties the box to its visible label for screen readers (and kittest).
    let response = ui.add(edit).labelled_by(label);
    if response.changed() {
        let query = state.search_input.clone();
        state.set_search(&query);
    }
    // Enter / Shift+Enter step through matches without leaving the box.
    if response.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
        let back = ui.input(|i| i.modifiers.shift);
        state.goto_match(!back);
        response.request_focus();
    }
}

/// Prev and Next (`right_to_left`: Next is added first, so it ends the line).
fn steps_ui(ui: &mut Ui, state: &mut JsonTreeState, count: usize, right_to_left: bool) {
    let order = if right_to_left {
        [true, false]
    } else {
        [false, true]
    };
    for forward in order {
        let label = if forward { "Next" } else { "Prev" };
        if ui.add_enabled(count > 0, Button::new(label)).clicked() {
            state.goto_match(forward);
        }
    }
}
