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
            search_ui(ui, tree_id, state, true);
        });
    } else {
        ui.horizontal_wrapped(|ui| expansion_buttons(ui, state));
        // Wraps, like the row above: in a narrow pane Prev and Next go to the next line
        // instead of pushing the pane past its edge.
        ui.horizontal_wrapped(|ui| search_ui(ui, tree_id, state, false));
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

/// The search box, its count and Prev/Next; `compact`: the count as "i/n" and the box as wide
/// as the line leaves it.
fn search_ui(ui: &mut Ui, tree_id: Id, state: &mut JsonTreeState, compact: bool) {
    let label = ui.label("Search:");
    let count = state.match_count();
    let searching = !state.search_query().is_empty();
    // What follows the box on its line: Prev, Next (and in a compact line, the short count).
    let em = ui.text_style_height(&egui::TextStyle::Button);
    let spacing = ui.spacing().item_spacing.x;
    let button = 2.6 * em + 2.0 * ui.spacing().button_padding.x + spacing;
    let after = if compact {
        2.0 * button + spacing + if searching { 3.0 * em } else { 0.0 }
    } else {
        80.0
    };
    let width = if compact {
        (ui.available_width() - after).max(60.0)
    } else {
        200.0_f32.min(ui.available_width() - after).max(80.0)
    };
    let edit = TextEdit::singleline(&mut state.search_input)
        .id(tree_id.with("search"))
        .hint_text("key or value")
        .desired_width(width);
    // labelled_by ties the box to its visible label for screen readers (and kittest).
    let response = ui.add(edit).labelled_by(label.id);
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
    if searching {
        let text = match (count, state.current_match, compact) {
            (n, Some(i), true) if n > 0 => format!("{}/{n}", i + 1),
            (n, _, true) => format!("0/{n}"),
            (1, _, false) => "1 match".to_owned(),
            (n, Some(i), false) if n > 1 => format!("{n} matches ({} / {n})", i + 1),
            (n, _, false) => format!("{n} matches"),
        };
        ui.label(text);
    }
    if ui.add_enabled(count > 0, Button::new("Prev")).clicked() {
        state.goto_match(false);
    }
    if ui.add_enabled(count > 0, Button::new("Next")).clicked() {
        state.goto_match(true);
    }
}
