//! Editors for single values: text, numbers, enums, and inline JSON.

use egui::{ComboBox, RichText, TextEdit, Ui};
use serde_json::Value;

use super::form::{Field, FormState, row};
use super::schema::FieldSchema;
use super::values::{parse_number, scalar_label};

/// Placeholder text for an empty field: an example, else the default, else the format.
fn placeholder(schema: &FieldSchema) -> String {
    schema
        .examples
        .first()
        .or(schema.default.as_ref())
        .map(scalar_label)
        .or_else(|| {
            schema
                .hints
                .iter()
                .find(|h| h.starts_with("format: "))
                .cloned()
        })
        .unwrap_or_default()
}

pub(super) fn string_field(
    ui: &mut Ui,
    f: &Field,
    slot: &mut Option<Value>,
    multiline: bool,
) -> bool {
    row(ui, f, slot, |ui, slot| {
        let mut text = slot
            .as_ref()
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let long = multiline || text.contains('\n') || text.chars().count() > 80;
        let edit = if long {
            TextEdit::multiline(&mut text).desired_rows(3)
        } else {
            TextEdit::singleline(&mut text)
        };
        let response = ui.add(edit.id_salt(&f.path).hint_text(placeholder(f.schema)));
        if response.changed() {
            *slot = Some(Value::String(text));
        }
        response
    })
}

pub(super) fn number_field(
    ui: &mut Ui,
    st: &mut FormState,
    f: &Field,
    slot: &mut Option<Value>,
) -> bool {
    let mut error = None;
    let changed = row(ui, f, slot, |ui, slot| {
        let buffer = st.buffer(&f.path, slot, |v| v.to_string());
        let response = ui.add(
            TextEdit::singleline(&mut buffer.text)
                .id_salt(&f.path)
                .desired_width(120.0)
                .hint_text(placeholder(f.schema)),
        );
        if response.changed() {
            let text = buffer.text.trim();
            if text.is_empty() && f.can_unset {
                *slot = None;
                buffer.error = None;
            } else if let Some(number) = parse_number(text) {
                *slot = Some(Value::Number(number));
                buffer.error = None;
            } else {
                // Keep the text so nothing typed is lost; the value stays as it was.
                buffer.error = Some(format!("\"{text}\" is not a number; not applied"));
            }
            buffer.synced = slot.clone();
        }
        error = buffer.error.clone();
        response
    });
    error_line(ui, error.as_deref());
    changed
}

pub(super) fn enum_field(
    ui: &mut Ui,
    f: &Field,
    slot: &mut Option<Value>,
    values: &[Value],
) -> bool {
    // With mixed types, quote strings so "3" and 3 look different.
    let mixed = values.iter().any(|v| !v.is_string());
    let show = |v: &Value| {
        if mixed {
            v.to_string()
        } else {
            scalar_label(v)
        }
    };
    row(ui, f, slot, |ui, slot| {
        let selected = match slot.as_ref() {
            None => "(not set)".to_owned(),
            Some(v) if values.contains(v) => show(v),
            Some(v) => format!("{} (not allowed)", show(v)),
        };
        let mut picked = None;
        let mut response = ComboBox::from_id_salt(&f.path)
            .selected_text(selected)
            .show_ui(ui, |ui| {
                if f.can_unset
                    && !f.required
                    && ui.selectable_label(slot.is_none(), "(not set)").clicked()
                {
                    picked = Some(None);
                }
                for value in values {
                    let is_current = slot.as_ref() == Some(value);
                    if ui.selectable_label(is_current, show(value)).clicked() {
                        picked = Some(Some(value.clone()));
                    }
                }
            })
            .response;
        if let Some(value) = picked
            && value != *slot
        {
            *slot = value;
            response.mark_changed();
        }
        response
    })
}

/// Inline JSON for values the form cannot draw. Bad JSON stays in the box with
/// its error; the value keeps its last good state.
pub(super) fn raw_field(
    ui: &mut Ui,
    st: &mut FormState,
    f: &Field,
    slot: &mut Option<Value>,
    note: Option<&str>,
) -> bool {
    let mut error = None;
    let changed = row(ui, f, slot, |ui, slot| {
        let buffer = st.buffer(&f.path, slot, |v| {
            serde_json::to_string_pretty(v).unwrap_or_default()
        });
        let rows = buffer.text.lines().count().clamp(1, 8);
        let response = ui.add(
            TextEdit::multiline(&mut buffer.text)
                .id_salt(&f.path)
                // Monospace without `code_editor()`: its focus lock would trap Tab.
                .font(egui::TextStyle::Monospace)
                .desired_rows(rows)
                .hint_text("JSON value"),
        );
        if response.changed() {
            if buffer.text.trim().is_empty() && f.can_unset {
                *slot = None;
                buffer.error = None;
            } else {
                match serde_json::from_str::<Value>(&buffer.text) {
                    Ok(value) => {
                        *slot = Some(value);
                        buffer.error = None;
                    }
                    Err(e) => buffer.error = Some(format!("invalid JSON: {e}")),
                }
            }
            buffer.synced = slot.clone();
        }
        error = buffer.error.clone();
        response
    });
    if let Some(note) = note {
        ui.label(RichText::new(note).weak().small());
    }
    error_line(ui, error.as_deref());
    changed
}

pub(super) fn error_line(ui: &mut Ui, error: Option<&str>) {
    if let Some(error) = error {
        ui.label(
            RichText::new(error)
                .color(ui.visuals().error_fg_color)
                .small(),
        );
    }
}
