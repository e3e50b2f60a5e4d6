//! The window's look and small pieces used in several places: the theme (palette, type scale,
//! icons), fonts, image textures, presentation mode, the layout kept in step, chips and badges.

pub(crate) mod capped_markdown;
pub mod fonts;
pub(crate) mod image_textures;
pub(crate) mod layout_memory;
pub(crate) mod presentation;
pub mod theme;

use super::theme::icons;
use toolscope_core::session::catalog::tool_catalog::ToolHints;

/// A warning line: the warning icon and the text, in the warning colour, wrapped.
pub fn warning(ui: &mut egui::Ui, text: &str) {
    iconed_line(ui, icons::ICON_WARNING, ui.visuals().warn_fg_color, text);
}

/// A note worth knowing: the info icon and the text, in the link colour, wrapped.
pub fn note(ui: &mut egui::Ui, text: &str) {
    iconed_line(ui, icons::ICON_INFO, ui.visuals().hyperlink_color, text);
}

fn iconed_line(
    ui: &mut egui::Ui,
    icon: egui_material_icons::MaterialIcon,
    color: egui::Color32,
    text: &str,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label(icon.rich_text().color(color));
        ui.add(egui::Label::new(egui::RichText::new(text).color(color)).wrap());
    });
}

/// A section that opens to show `code`, monospaced and selectable. Long lines wrap: a column
/// must not grow to the longest line.
pub fn code_section(ui: &mut egui::Ui, title: &str, id_salt: impl egui::AsIdSalt, code: &str) {
    egui::CollapsingHeader::new(title)
        .id_salt(id_salt)
        .show(ui, |ui| {
            ui.add(
                egui::Label::new(egui::RichText::new(code).monospace())
                    .selectable(true)
                    .wrap(),
            );
        });
}

/// A small rounded label in a colour, on one line: where a row has too little room left it
/// goes to the next (wrapped, "idempotent: no" stood one syllable a line).
pub fn chip(ui: &mut egui::Ui, text: &str, color: egui::Color32) -> egui::Response {
    let font = egui::TextStyle::Small.resolve(ui.style());
    let width = ui
        .fonts_mut(|fonts| fonts.layout_no_wrap(text.to_owned(), font, color))
        .size()
        .x
        + 10.0;
    let row_started = ui.cursor().min.x > ui.max_rect().min.x + 1.0;
    if width > ui.available_width() && ui.layout().main_wrap && row_started {
        ui.end_row();
    }
    egui::Frame::new()
        .stroke(egui::Stroke::new(1.0, color))
        .corner_radius(6.0)
        .inner_margin(egui::Margin::symmetric(4, 0))
        .show(ui, |ui| {
            ui.add(egui::Label::new(egui::RichText::new(text).small().color(color)).extend());
        })
        .response
}

/// The behaviour hints the server declared, as chips. Destructive and idempotent mean
/// something only for a tool that writes, so they are left out beside read-only. Hints the
/// server did not send are not shown as if it had: their spec defaults are in a tooltip.
pub fn hint_badges(ui: &mut egui::Ui, hints: &ToolHints) {
    let read_only = hints.read_only.unwrap_or(false);
    let mut defaults = Vec::new();
    for (label, value, sent) in hints.effective() {
        if read_only && matches!(label, "destructive" | "idempotent") {
            continue;
        }
        let yes_no = if value { "yes" } else { "no" };
        if !sent {
            defaults.push(format!("{label}: {yes_no}"));
            continue;
        }
        let visuals = ui.visuals();
        let color = if label == "destructive" && value {
            visuals.error_fg_color
        } else {
            visuals.text_color()
        };
        chip(ui, &format!("{label}: {yes_no}"), color);
    }
    if !defaults.is_empty() {
        let weak = ui.visuals().weak_text_color();
        ui.label(icons::ICON_INFO.rich_text().color(weak));
        ui.weak("defaults").on_hover_text(format!(
            "Not declared by the server, so the spec defaults apply: {}",
            defaults.join(", ")
        ));
    }
}

#[cfg(test)]
mod tests {
    use egui_kittest::{Harness, kittest::Queryable as _};

    use super::*;

    /// In a narrow column, a chip that does not fit goes to the next row whole.
    #[test]
    fn a_chip_goes_to_the_next_row_whole() {
        let hints = ToolHints {
            read_only: Some(false),
            destructive: Some(false),
            idempotent: Some(false),
            open_world: Some(false),
            ..ToolHints::default()
        };
        let mut harness = Harness::builder()
            .with_size(egui::vec2(200.0, 300.0))
            .build_ui(move |ui| {
                ui.horizontal_wrapped(|ui| hint_badges(ui, &hints));
            });
        harness.run();
        let row = harness.get_by_label("read-only: no").rect().height();
        let chip = harness.get_by_label("idempotent: no").rect();
        assert!(
            chip.height() < row * 1.5,
            "on one line: {chip:?}, a row is {row}"
        );
    }
}
