//! Keeps the window's layout (`workbench::Layout`) in step with what the user did: panel
//! widths as dragged, folded parts, the zoom. The view holds a working copy; it is handed to
//! the model to be saved once the mouse is up, not on every frame of a drag.

use super::{actions::Action, view_state::ViewState};
use crate::workbench::{self, Model};

/// Records a panel's width once it is fully open (a panel sliding open or shut is narrower
/// than the width the user chose).
pub fn note_width(ui: &egui::Ui, panel: &str, open: bool, width: f32, stored: &mut f32) {
    let how_open = ui
        .ctx()
        .animate_bool(egui::Id::unique(("layout_memory", panel)), open);
    if open && how_open >= 1.0 && (width - *stored).abs() > 0.5 {
        *stored = width;
    }
}

/// Applies the saved zoom once, at start.
pub fn restore(ctx: &egui::Context, view: &mut ViewState) {
    ctx.set_zoom_factor(view.layout.zoom);
    view.zoom_pending = true;
}

/// Asks the model to save the layout when it changed and no drag is under way.
pub fn persist(
    model: &Model,
    view: &mut ViewState,
    ctx: &egui::Context,
    actions: &mut Vec<Action>,
) {
    // A zoom set this frame shows in the context only from the next one.
    if std::mem::take(&mut view.zoom_pending) {
        return;
    }
    view.layout.zoom = ctx.zoom_factor();
    // Presentation mode's folded sidebars and big zoom are not the user's everyday layout.
    if view.presenting.is_some() || ctx.input(|input| input.pointer.any_down()) {
        return;
    }
    let layout = view.layout.sanitized();
    view.layout = layout;
    if layout != model.layout() {
        actions.push(workbench::Action::SetLayout(layout).into());
    }
}
