//! The sidebar: the servers above, the selected server's tools below. One column that folds
//! away (Ctrl+B, or drag its edge shut) and keeps its width, so the result panes get the room.
//! Ctrl+K (or Ctrl+F) jumps to the tool filter.

mod servers;
mod tools;

use super::{actions::Action, view_state::ViewState};
use crate::workbench::Model;

pub fn ui(model: &Model, view: &mut ViewState, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    if ui.input_mut(|input| input.consume_key(egui::Modifiers::COMMAND, egui::Key::B)) {
        view.layout.sidebar_open = !view.layout.sidebar_open;
    }
    let find_tool = ui.input_mut(|input| {
        input.consume_key(egui::Modifiers::COMMAND, egui::Key::K)
            || input.consume_key(egui::Modifiers::COMMAND, egui::Key::F)
    });
    if find_tool {
        view.layout.sidebar_open = true;
        view.focus_tool_filter = true;
    }
    let mut open = view.layout.sidebar_open;
    let shown = egui::Panel::left("sidebar")
        .resizable(true)
        .default_size(view.layout.sidebar_width)
        .min_size(170.0)
        .max_size(560.0)
        .show_collapsible(ui, &mut open, |ui| {
            // The servers take what they need up to 40 %; the tools list has the rest.
            let servers_max = ui.available_height() * 0.4;
            servers::section(model, ui, servers_max, actions);
            ui.separator();
            tools::section(model, view, ui, actions);
        });
    view.layout.sidebar_open = open;
    if let Some(shown) = shown {
        super::layout_memory::note_width(
            ui,
            "sidebar",
            open,
            shown.response.rect.width(),
            &mut view.layout.sidebar_width,
        );
    }
}
