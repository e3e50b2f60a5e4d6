//! The raw JSON view of the arguments.

use egui::{RichText, TextEdit, Ui};
use serde_json::{Map, Value};

/// Pretty JSON with serde_json's 2-space indent.
pub(super) fn pretty(arguments: &Map<String, Value>) -> String {
    serde_json::to_string_pretty(arguments).unwrap_or_default()
}

/// Parses the text of the JSON view. Blank text means "no arguments".
pub(super) fn parse_arguments(text: &str) -> Result<Map<String, Value>, String> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!(
            "The arguments must be a JSON object, not {}",
            json_type(&other)
        )),
        Err(error) => {
            let message = error.to_string();
            // serde_json appends the position; we lead with it instead.
            let suffix = format!(" at line {} column {}", error.line(), error.column());
            let message = message.strip_suffix(&suffix).unwrap_or(&message);
            Err(format!(
                "Invalid JSON at line {}, column {}: {message}",
                error.line(),
                error.column()
            ))
        }
    }
}

use toolscope_core::text_util::json_type_phrase as json_type;

/// The editor and its parse error. Returns true when the text was edited.
pub(super) fn json_editor_ui(ui: &mut Ui, text: &mut String, error: Option<&str>) -> bool {
    let label = ui.label("Arguments (JSON)");
    let response = ui
        .add(
            TextEdit::multiline(text)
                .id_salt("arguments json")
                // Monospace without `code_editor()`: its focus lock would trap Tab.
                .font(egui::TextStyle::Monospace)
                .desired_rows(8)
                .desired_width(f32::INFINITY),
        )
        .labelled_by(label.id);
    if let Some(error) = error {
        ui.label(RichText::new(error).color(ui.visuals().error_fg_color));
    }
    response.changed()
}
