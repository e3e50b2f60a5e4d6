//! The look of the window: light and dark themes (the system's unless the user picks one), a
//! type scale where the data reads first and small text stays legible, spacing on a 4-point
//! grid, one colour per meaning (JSON types each their own, every error the same red), and
//! icons from the Material Symbols font. Presentation mode turns the contrast and the headings
//! up for a projector. The choices are written down in docs/design.md.

use egui::{Color32, FontFamily, FontId, Stroke, TextStyle, Theme, Visuals};

use toolscope_core::settings::Appearance;

pub use egui_material_icons::icons;

/// The colours that carry a meaning, for the current theme.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    pub good: Color32,
    pub info: Color32,
    pub warning: Color32,
    pub error: Color32,
    pub json_string: Color32,
    pub json_number: Color32,
    pub json_bool: Color32,
    pub json_null: Color32,
}

const DARK: Palette = Palette {
    good: Color32::from_rgb(92, 200, 120),
    info: Color32::from_rgb(106, 169, 242),
    warning: Color32::from_rgb(232, 176, 75),
    error: Color32::from_rgb(240, 100, 90),
    json_string: Color32::from_rgb(143, 203, 122),
    json_number: Color32::from_rgb(106, 169, 242),
    json_bool: Color32::from_rgb(199, 155, 242),
    json_null: Color32::from_rgb(154, 154, 154),
};

const LIGHT: Palette = Palette {
    good: Color32::from_rgb(46, 133, 64),
    info: Color32::from_rgb(31, 99, 181),
    warning: Color32::from_rgb(168, 104, 0),
    error: Color32::from_rgb(192, 57, 43),
    json_string: Color32::from_rgb(46, 125, 50),
    json_number: Color32::from_rgb(21, 101, 192),
    json_bool: Color32::from_rgb(123, 31, 162),
    json_null: Color32::from_rgb(117, 117, 117),
};

/// The palette for `visuals` (dark or light).
pub fn palette(visuals: &Visuals) -> Palette {
    if visuals.dark_mode { DARK } else { LIGHT }
}

/// Installs the icon font and the styles of both themes; call once at start.
pub fn install(ctx: &egui::Context) {
    ctx.add_font(egui_material_icons::font_insert());
    for theme in [Theme::Dark, Theme::Light] {
        ctx.style_mut_of(theme, |style| {
            style.text_styles = text_styles(false);
            style.spacing.item_spacing = egui::vec2(8.0, 6.0);
            style.spacing.button_padding = egui::vec2(8.0, 3.0);
            style.spacing.interact_size.y = 22.0;
            // A blinking cursor repaints twice a second forever; on a software renderer that
            // alone costs a fifth of a core. A steady cursor keeps an idle window idle.
            style.visuals.text_cursor.blink = false;
            let palette = palette(&style.visuals);
            style.visuals.error_fg_color = palette.error;
            style.visuals.warn_fg_color = palette.warning;
            style.visuals.hyperlink_color = palette.info;
            // Panes sit on a surface a step away from the panel behind them.
            style.visuals.faint_bg_color = if style.visuals.dark_mode {
                Color32::from_gray(32)
            } else {
                Color32::from_gray(246)
            };
        });
    }
}

/// Follows the user's choice of light, dark or the system's.
pub fn apply_appearance(ctx: &egui::Context, appearance: Appearance) {
    ctx.set_theme(match appearance {
        Appearance::System => egui::ThemePreference::System,
        Appearance::Light => egui::ThemePreference::Light,
        Appearance::Dark => egui::ThemePreference::Dark,
    });
}

/// Presentation mode: larger headings, text at full contrast, thicker separators. Turning it
/// off restores the normal styles.
pub fn apply_presentation(ctx: &egui::Context, on: bool) {
    for theme in [Theme::Dark, Theme::Light] {
        ctx.style_mut_of(theme, |style| {
            style.text_styles = text_styles(on);
            let strong = if style.visuals.dark_mode {
                Color32::WHITE
            } else {
                Color32::BLACK
            };
            style.visuals.override_text_color = on.then_some(strong);
            let width = if on { 2.0 } else { 1.0 };
            style.visuals.widgets.noninteractive.bg_stroke =
                Stroke::new(width, style.visuals.widgets.noninteractive.bg_stroke.color);
        });
    }
}

/// The type scale: body 14, data (monospace) 13.5, small 11.5, headings 20. Presenting grows
/// the headings, and the data to 15.5: a monospace glyph is drawn smaller than a proportional
/// one of the same size, and on a projector the values must read as large as the sentence
/// about them (15).
fn text_styles(presenting: bool) -> std::collections::BTreeMap<TextStyle, FontId> {
    let heading_scale = if presenting { 1.3 } else { 1.0 };
    let data = if presenting { 15.5 } else { 13.5 };
    [
        (
            TextStyle::Small,
            FontId::new(11.5, FontFamily::Proportional),
        ),
        (TextStyle::Body, FontId::new(14.0, FontFamily::Proportional)),
        (
            TextStyle::Button,
            FontId::new(14.0, FontFamily::Proportional),
        ),
        (
            TextStyle::Monospace,
            FontId::new(data, FontFamily::Monospace),
        ),
        (
            TextStyle::Heading,
            FontId::new(20.0 * heading_scale, FontFamily::Proportional),
        ),
    ]
    .into()
}

/// A button with an icon before its text. Screen readers (and tests) get the text alone.
pub fn icon_button(
    ui: &mut egui::Ui,
    enabled: bool,
    icon: egui_material_icons::MaterialIcon,
    text: &str,
) -> egui::Response {
    let response = ui.add_enabled(enabled, egui::Button::new((icon.rich_text(), text)));
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, text));
    response
}

/// A button with an icon only; `name` is its accessible label and its hover text.
pub fn icon_only_button(
    ui: &mut egui::Ui,
    icon: egui_material_icons::MaterialIcon,
    name: &str,
) -> egui::Response {
    let response = ui
        .add(egui::Button::new(icon.rich_text().size(16.0)))
        .on_hover_text(name);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, name));
    response
}

/// A toggle with an icon only; `hover` names it (and is its accessible label).
pub fn icon_toggle(
    ui: &mut egui::Ui,
    selected: bool,
    icon: egui_material_icons::MaterialIcon,
    hover: &str,
) -> egui::Response {
    let response = ui.add(egui::Button::selectable(
        selected,
        icon.rich_text().size(18.0),
    ));
    response.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, hover));
    response.on_hover_text(hover)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a projector the values (`3` beside `{"result": 3}`, shown in monospace) read at
    /// least as large as the prose around them, and the headings grow; the prose keeps its size.
    #[test]
    fn presenting_grows_headings_and_values() {
        let (everyday, presenting) = (text_styles(false), text_styles(true));
        let size =
            |styles: &std::collections::BTreeMap<TextStyle, FontId>, style| styles[&style].size;
        assert!(size(&everyday, TextStyle::Monospace) <= size(&everyday, TextStyle::Body));
        assert!(size(&presenting, TextStyle::Monospace) > size(&presenting, TextStyle::Body));
        for styles in [&everyday, &presenting] {
            assert!(size(styles, TextStyle::Heading) > size(styles, TextStyle::Body));
        }
        assert!(size(&presenting, TextStyle::Heading) > size(&everyday, TextStyle::Heading));
        assert_eq!(
            size(&presenting, TextStyle::Body),
            size(&everyday, TextStyle::Body)
        );
    }
}
