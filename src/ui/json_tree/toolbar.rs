//! Toolbar above the tree: expansion buttons and the search box.

use egui::{Button, Id, Key, RichText, TextEdit, Ui};

use super::state::JsonTreeState;

/// Deepest level offered as a button; deeper trees use "Expand all".
const MAX_LEVEL_BUTTON: usize = 4;

pub(super) fn toolbar(ui: &mut Ui, tree_id: Id, state: &mut JsonTreeState) {
    ui.horizontal_wrapped(|ui| {
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
    });

    // Wraps, like the row above: in a narrow pane Prev and Next go to the next line instead of
    // pushing the pane past its edge.
    ui.horizontal_wrapped(|ui| {
        let label = ui.label("Search:");
        let edit = TextEdit::singleline(&mut state.search_input)
            .id(tree_id.with("search"))
            .hint_text("key or value")
            .desired_width(200.0_f32.min(ui.available_width() - 80.0).max(80.0));
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

        let count = state.match_count();
        if !state.search_query().is_empty() {
            let text = match (count, state.current_match) {
                (1, _) => "1 match".to_owned(),
                (n, Some(i)) if n > 1 => format!("{n} matches ({} / {n})", i + 1),
                (n, _) => format!("{n} matches"),
            };
            ui.label(text);
        }
        if ui.add_enabled(count > 0, Button::new("Prev")).clicked() {
            state.goto_match(false);
        }
        if ui.add_enabled(count > 0, Button::new("Next")).clicked() {
            state.goto_match(true);
        }
    });

    if let Some((requested, shown)) = &state.fallback_note {
        let shown = if shown.is_empty() { "(root)" } else { shown };
        let text = format!("{requested} does not exist; showing its nearest ancestor {shown}");
        ui.label(RichText::new(text).color(ui.visuals().warn_fg_color));
    }
}
