//! Fonts: egui's defaults plus the system's fonts for scripts they lack (CJK above all), so
//! Chinese tool descriptions and results render.

use std::sync::Arc;

/// Installs the system font fallback on a context (the window gets it from eframe; tests call
/// this themselves).
pub fn install_system_fallback(ctx: &egui::Context) {
    ctx.add_font_provider(Arc::new(
        egui_system_font_provider::SystemFontProvider::new(),
    ));
}
