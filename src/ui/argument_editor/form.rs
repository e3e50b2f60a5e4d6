//! Form widgets for one field: the row layout and the scalar editors.
//!
//! Every field edits an `Option<Value>` slot: `None` means "not set", so the
//! argument is left out. Containers live in `containers.rs`.

use std::cell::Cell;
use std::collections::HashMap;

use egui::{Checkbox, Response, RichText, Ui};
use serde_json::Value;

use super::schema::{FieldSchema, Kind};
use super::values::{fits, hint_line, initial_value};
use super::{containers, scalars};
use toolscope_core::json_pointer::pointer_escape;

/// Edit state that is not part of the arguments: half-typed numbers and JSON,
/// the chosen `anyOf` variant, the name of a key being added.
#[derive(Default)]
pub(super) struct FormState {
    pub buffers: HashMap<String, Buffer>,
    pub variants: HashMap<String, usize>,
    pub new_keys: HashMap<String, String>,
    /// Objects whose schema does not invite extra keys, where the user asked to add one.
    pub adding_keys: std::collections::HashSet<String>,
}

/// Text that may not parse yet. `synced` is the value the text was made from:
/// when the value changes elsewhere (JSON editor, reorder), the text is rebuilt.
pub(super) struct Buffer {
    pub text: String,
    pub synced: Option<Value>,
    pub error: Option<String>,
}

impl FormState {
    /// Drops half-typed text after the arguments were replaced from outside the form,
    /// so no stale "not a number" lingers next to a new value.
    pub(super) fn forget_typing(&mut self) {
        self.buffers.clear();
    }

    pub(super) fn buffer(
        &mut self,
        path: &str,
        slot: &Option<Value>,
        render: fn(&Value) -> String,
    ) -> &mut Buffer {
        let buffer = self
            .buffers
            .entry(path.to_owned())
            .or_insert_with(|| Buffer {
                text: slot.as_ref().map(render).unwrap_or_default(),
                synced: slot.clone(),
                error: None,
            });
        if buffer.synced != *slot {
            buffer.text = slot.as_ref().map(render).unwrap_or_default();
            buffer.synced = slot.clone();
            buffer.error = None;
        }
        buffer
    }
}

/// What the form knows about one field besides its value.
pub(super) struct Field<'s> {
    pub schema: &'s FieldSchema,
    /// JSON Pointer of the value; also salts the widget ids.
    pub path: String,
    pub label: String,
    pub required: bool,
    /// Object properties can go back to "not set"; array items cannot.
    pub can_unset: bool,
    /// Set for array items: draws Up / Down / Remove next to the value.
    pub item: Option<ItemControls<'s>>,
}

#[derive(Clone, Copy)]
pub(super) struct ItemControls<'s> {
    pub index: usize,
    pub len: usize,
    /// The button pressed this frame; the array applies it after drawing.
    pub action: &'s Cell<Option<(usize, ItemAction)>>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum ItemAction {
    Up,
    Down,
    Remove,
}

impl Field<'_> {
    pub fn child<'c>(
        &self,
        schema: &'c FieldSchema,
        key: &str,
        label: String,
        required: bool,
    ) -> Field<'c> {
        Field {
            schema,
            path: format!("{}/{}", self.path, pointer_escape(key)),
            label,
            required,
            can_unset: true,
            item: None,
        }
    }
}

/// Draws one field of any kind. Returns true when the slot changed.
pub(super) fn field(ui: &mut Ui, st: &mut FormState, f: &Field, slot: &mut Option<Value>) -> bool {
    let schema = f.schema;
    let drawable_null = matches!(schema.kind, Kind::Null | Kind::Raw | Kind::Variants(_));
    if schema.nullable && !drawable_null && matches!(slot, Some(Value::Null)) {
        return row(ui, f, slot, |ui, _| ui.label(RichText::new("null").weak()));
    }
    if let Some(value) = slot.as_ref()
        && !fits(schema, value)
    {
        // Typed JSON can hold anything: show the odd value as JSON, never drop it.
        return scalars::raw_field(ui, st, f, slot, Some("does not match the schema"));
    }
    match &schema.kind {
        Kind::String { multiline } => scalars::string_field(ui, f, slot, *multiline),
        Kind::Number { .. } => scalars::number_field(ui, st, f, slot),
        Kind::Boolean => row(ui, f, slot, |ui, slot| {
            let fallback = schema
                .default
                .as_ref()
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let mut checked = slot.as_ref().and_then(Value::as_bool).unwrap_or(fallback);
            // Unset shows as indeterminate, so "false" and "not sent" look different.
            let response =
                ui.add(Checkbox::without_text(&mut checked).indeterminate(slot.is_none()));
            if response.changed() {
                *slot = Some(Value::Bool(checked));
            }
            response
        }),
        Kind::Enum(values) => scalars::enum_field(ui, f, slot, values),
        Kind::Null => row(ui, f, slot, |ui, slot| {
            let mut is_set = slot.is_some();
            let response = ui.checkbox(&mut is_set, "null");
            if response.changed() {
                *slot = is_set.then_some(Value::Null);
            }
            response
        }),
        Kind::Raw => scalars::raw_field(ui, st, f, slot, None),
        Kind::Array(items) => containers::array_field(ui, st, f, slot, items),
        Kind::Object(object) => containers::object_field(ui, st, f, slot, object),
        Kind::Variants(variants) => containers::variants_field(ui, st, f, slot, variants),
    }
}

/// `label [*] widget [null] [Clear]` plus the hint line; the widget is named by the label.
pub(super) fn row(
    ui: &mut Ui,
    f: &Field,
    slot: &mut Option<Value>,
    widget: impl FnOnce(&mut Ui, &mut Option<Value>) -> Response,
) -> bool {
    let mut changed = false;
    // Wrapped: in a narrow column, null and Clear go below the widget, not past the edge.
    ui.horizontal_wrapped(|ui| {
        let label = label(ui, f);
        let response = widget(ui, slot).labelled_by(label.id);
        if super::take_focus_request(ui) {
            response.request_focus();
        }
        changed |= response.changed();
        describe(ui, f, &response);
        changed |= trailing_controls(ui, f, slot);
    });
    hint(ui, f.schema);
    changed
}

/// The field's label, with a separate red star for required fields, so the
/// accessible name stays the plain title.
pub(super) fn label(ui: &mut Ui, f: &Field) -> Response {
    let mut response = ui.label(&f.label);
    if let Some(description) = &f.schema.description {
        response = response.on_hover_text(description);
    }
    if f.required {
        ui.label(RichText::new("*").color(ui.visuals().error_fg_color))
            .on_hover_text("required");
    }
    response
}

/// Hover text and the accessibility "required" flag for an input widget.
pub(super) fn describe(ui: &Ui, f: &Field, response: &Response) {
    if f.required {
        ui.ctx()
            .accesskit_node_builder(response.id, |node| node.set_required());
    }
    if let Some(description) = &f.schema.description {
        response.clone().on_hover_text(description);
    }
}

/// The "null" toggle, the "Clear" button that returns a field to "not set",
/// and the item buttons of array entries.
pub(super) fn trailing_controls(ui: &mut Ui, f: &Field, slot: &mut Option<Value>) -> bool {
    let mut changed = false;
    if let Some(item) = f.item {
        item_buttons(ui, f, item);
    }
    if f.schema.nullable && !matches!(f.schema.kind, Kind::Null) {
        let mut is_null = matches!(slot, Some(Value::Null));
        let response = ui
            .checkbox(&mut is_null, "null")
            .accessible_name(format!("{} is null", f.label));
        if response.changed() {
            *slot = if is_null {
                Some(Value::Null)
            } else {
                non_null_initial(f.schema)
            };
            changed = true;
        }
    }
    if f.can_unset && !f.required && slot.is_some() {
        let response = ui
            .small_button("Clear")
            .accessible_name(format!("Clear {}", f.label))
            .on_hover_text("Leave this argument out");
        if response.clicked() {
            *slot = None;
            changed = true;
        }
    }
    changed
}

fn item_buttons(ui: &mut Ui, f: &Field, item: ItemControls) {
    let buttons = [
        ("Up", "up", ItemAction::Up, item.index > 0),
        ("Down", "down", ItemAction::Down, item.index + 1 < item.len),
        ("Remove", "remove", ItemAction::Remove, true),
    ];
    for (text, verb, action, enabled) in buttons {
        let name = match action {
            ItemAction::Remove => format!("Remove {}", f.label),
            _ => format!("Move {} {verb}", f.label),
        };
        if ui
            .add_enabled(enabled, egui::Button::new(text).small())
            .accessible_name(name)
            .clicked()
        {
            item.action.set(Some((item.index, action)));
        }
    }
}

fn non_null_initial(schema: &FieldSchema) -> Option<Value> {
    initial_value(schema).filter(|v| !v.is_null()).or_else(|| {
        let mut plain = schema.clone();
        plain.default = None;
        initial_value(&plain)
    })
}

pub(super) fn hint(ui: &mut Ui, schema: &FieldSchema) {
    let line = hint_line(schema);
    if !line.is_empty() {
        ui.label(RichText::new(line).weak().small());
    }
}
