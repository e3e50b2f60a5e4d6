//! Presentation mode, for teaching in front of a room: the sidebar and the request column
//! fold away, the zoom goes to at least 1.5×, text gets full contrast and headings grow. F5,
//! the top bar's button or `toolscope --present`; leaving it restores the layout before.

use crate::ui::{theme, view_state::Stage};
use toolscope_core::settings::Layout;

/// The smallest zoom of presentation mode.
pub const PRESENTATION_ZOOM: f32 = 1.5;

/// Switches presentation mode on or off.
pub fn toggle(ctx: &egui::Context, layout: &mut Layout, stage: &mut Stage) {
    match stage.presenting.take() {
        Some(before) => {
            layout.sidebar_open = before.sidebar_open;
            layout.request_open = before.request_open;
            layout.zoom = before.zoom;
            ctx.set_zoom_factor(before.zoom);
            // egui applies a new zoom on the next frame: until then the context still reports
            // the presentation zoom, which must not be taken for the user's.
            stage.zoom_pending = true;
            theme::apply_presentation(ctx, false);
        }
        None => {
            stage.presenting = Some(*layout);
            layout.sidebar_open = false;
            layout.request_open = false;
            // From the layout, not the context: at start the saved zoom is not applied yet.
            let zoom = layout.zoom.max(PRESENTATION_ZOOM);
            layout.zoom = zoom;
            ctx.set_zoom_factor(zoom);
            stage.zoom_pending = true;
            theme::apply_presentation(ctx, true);
        }
    }
}

/// F5 switches presentation mode.
pub fn handle_shortcut(ctx: &egui::Context, layout: &mut Layout, stage: &mut Stage) {
    if ctx.input_mut(|input| input.consume_key(egui::Modifiers::NONE, egui::Key::F5)) {
        toggle(ctx, layout, stage);
    }
}
