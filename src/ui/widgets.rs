//! Small pieces used in several places: chips and annotation badges.

use crate::session::tool_catalog::ToolHints;

/// A small rounded label in a colour.
pub fn chip(ui: &mut egui::Ui, text: &str, color: egui::Color32) -> egui::Response {
    egui::Frame::new()
        .stroke(egui::Stroke::new(1.0, color))
        .corner_radius(6.0)
        .inner_margin(egui::Margin::symmetric(4, 0))
        .show(ui, |ui| {
            ui.label(egui::RichText::new(text).small().color(color));
        })
        .response
}

/// The behaviour hints as chips; a hint the server did not send shows its spec default,
/// marked as a default.
pub fn hint_badges(ui: &mut egui::Ui, hints: &ToolHints, compact: bool) {
    let read_only = hints.read_only.unwrap_or(false);
    for (label, value, sent) in hints.effective() {
        // The spec gives destructive and idempotent meaning only for tools that write.
        if compact && read_only && matches!(label, "destructive" | "idempotent") {
            continue;
        }
        let text = match (compact, value) {
            (true, true) => label.to_owned(),
            (true, false) => continue,
            (false, true) => format!("{label}: yes"),
            (false, false) => format!("{label}: no"),
        };
        let visuals = ui.visuals();
        let color = if !sent {
            visuals.weak_text_color()
        } else if label == "destructive" && value {
            visuals.error_fg_color
        } else {
            visuals.text_color()
        };
        let response = chip(ui, &text, color);
        if !sent {
            response.on_hover_text(format!(
                "{label}: not sent by the server; the spec default applies"
            ));
        }
    }
}
