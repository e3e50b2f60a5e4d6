//! Keeps the window's layout (`settings::Layout`) in step with what the user did: panel
//! widths as dragged, folded parts, the zoom. The view holds a working copy; it is handed to
//! the model to be saved once the mouse is up, not on every frame of a drag.

use crate::ui::{actions::Action, view_state::Stage};
use crate::workbench::{self, Model};
use toolscope_core::settings::Layout;

/// A left panel that folds away (or is dragged shut) and remembers its width: takes whether it
/// is open and the width the user chose, returns them as the user left them, and the width
/// drawn. The width is taken only from a drag of the panel's edge, once the panel is fully
/// open: a wide form drawn inside it is not the user's choice (and sliding open or shut it is
/// narrower than the width chosen).
pub fn folding_panel(
    ui: &mut egui::Ui,
    panel: &'static str,
    (open, width): (bool, f32),
    sizes: std::ops::RangeInclusive<f32>,
    contents: impl FnOnce(&mut egui::Ui),
) -> Folded {
    let mut open = open;
    let mut width = width;
    // egui's id of the panel's resize handle (`Panel::resize_id`).
    let handle = ui.scope_id().with(panel).with("__resize");
    let shown = egui::Panel::left(panel)
        .resizable(true)
        .default_size(width.clamp(*sizes.start(), *sizes.end()))
        .size_range(sizes)
        .show_collapsible(ui, &mut open, contents);
    let how_open = ui
        .ctx()
        .animate_bool(egui::Id::unique(("layout_memory", panel)), open);
    let dragged = ui
        .ctx()
        .read_response(handle)
        .is_some_and(|edge| edge.dragged() || edge.drag_stopped());
    let drawn = shown.as_ref().map(|shown| shown.response.rect.width());
    if let Some(drawn) = drawn
        && open
        && how_open >= 1.0
        && dragged
    {
        width = drawn;
    }
    Folded {
        open,
        width,
        drawn: drawn.filter(|_| open),
    }
}

/// A folding panel as the user left it.
pub struct Folded {
    pub open: bool,
    /// The width the user chose (by dragging the edge).
    pub width: f32,
    /// The width drawn this frame, when open.
    pub drawn: Option<f32>,
}

/// Applies the saved zoom once, at start.
pub fn restore(ctx: &egui::Context, layout: &Layout, stage: &mut Stage) {
    ctx.set_zoom_factor(layout.zoom);
    stage.zoom_pending = true;
}

/// Asks the model to save the layout when it changed and no drag is under way.
pub fn persist(
    model: &Model,
    (layout, stage): (&mut Layout, &mut Stage),
    ctx: &egui::Context,
    actions: &mut Vec<Action>,
) {
    // A zoom set this frame shows in the context only from the next one.
    if std::mem::take(&mut stage.zoom_pending) {
        return;
    }
    layout.zoom = ctx.zoom_factor();
    // Presentation mode's folded sidebars and big zoom are not the user's everyday layout.
    if stage.presenting.is_some() || ctx.input(|input| input.pointer.any_down()) {
        return;
    }
    let sanitized = layout.sanitized();
    *layout = sanitized;
    if sanitized != model.layout() {
        actions.push(workbench::Action::SetLayout(sanitized).into());
    }
}
