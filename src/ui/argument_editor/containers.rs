//! Form widgets that hold other fields: objects, arrays and `anyOf` variants.

use std::cell::Cell;

use egui::{Button, CollapsingHeader, ComboBox, RichText, TextEdit, Ui};
use serde_json::{Map, Value};

use super::form::{
    Field, FormState, ItemAction, ItemControls, field, hint, row, trailing_controls,
};
use super::schema::{Additional, FieldSchema, Kind, ObjectSchema};
use super::values::{
    best_variant, initial_object, placeholder_value, variant_accepts, variant_label,
};

/// A nested object: a collapsible group. An unset optional object shows its
/// fields anyway; editing one of them creates the object.
pub(super) fn object_field(
    ui: &mut Ui,
    st: &mut FormState,
    f: &Field,
    slot: &mut Option<Value>,
    object: &ObjectSchema,
) -> bool {
    let is_set = slot.is_some();
    let mut changed = false;
    CollapsingHeader::new(header_text(f, is_set, ""))
        .id_salt(&f.path)
        // Shown open even when unset: typing into a field is how the object gets created.
        // Deep levels start closed so recursive schemas stay short.
        .default_open(f.path.matches('/').count() <= 2)
        .show(ui, |ui| {
            body_header(ui, f);
            changed |= trailing_controls(ui, f, slot);
            let mut map = match slot.take() {
                Some(Value::Object(map)) => map,
                _ => initial_object(object),
            };
            let edited = object_body(ui, st, f, &mut map, object);
            if edited || is_set {
                *slot = Some(Value::Object(map));
            }
            changed |= edited;
        });
    changed
}

/// The properties of an object, then its extra keys, then "add property".
/// A property's label: its title when the title says more than its name; else the name, as
/// it goes in the arguments and as the warnings say it (Pydantic titles `max_results` "Max
/// Results", and a form labelled "A" warned about "a").
fn field_label(name: &str, title: Option<&str>) -> String {
    let plain = |text: &str| {
        text.chars()
            .map(|c| if c == '_' || c == '-' { ' ' } else { c })
            .collect::<String>()
            .to_lowercase()
    };
    match title {
        Some(title) if plain(title).trim() != plain(name).trim() => title.to_owned(),
        _ => name.to_owned(),
    }
}

pub(super) fn object_body(
    ui: &mut Ui,
    st: &mut FormState,
    f: &Field,
    map: &mut Map<String, Value>,
    object: &ObjectSchema,
) -> bool {
    let mut changed = false;
    for property in &object.properties {
        let label = field_label(&property.name, property.schema.title.as_deref());
        let child = f.child(&property.schema, &property.name, label, property.required);
        changed |= edit_entry(ui, st, &child, map, &property.name);
    }

    let extra: Vec<String> = map
        .keys()
        .filter(|k| !object.properties.iter().any(|p| &p.name == *k))
        .cloned()
        .collect();
    let raw = FieldSchema::raw();
    let value_schema = match &object.additional {
        Additional::Schema(schema) => schema.as_ref(),
        _ => &raw,
    };
    // Extra keys are invited where the schema says so (a map), offered on request where it
    // says nothing (a tool without arguments shows no key editor), and never where forbidden.
    let open = match object.additional {
        Additional::Any | Additional::Schema(_) => true,
        Additional::Unspecified => st.adding_keys.contains(&f.path),
        Additional::Forbidden => false,
    };
    if !extra.is_empty() && !object.properties.is_empty() {
        let title = if open {
            "Additional properties"
        } else {
            "Not in the schema"
        };
        ui.label(RichText::new(title).weak());
    }
    for key in extra {
        let child = f.child(value_schema, &key, key.clone(), false);
        changed |= edit_entry(ui, st, &child, map, &key);
    }
    if open {
        changed |= add_property(ui, st, f, map, value_schema);
    } else if object.additional == Additional::Unspecified
        && object.properties.is_empty()
        && ui
            .small_button("Add a property…")
            .on_hover_text("The schema does not list more properties; a server may still take them")
            .clicked()
    {
        st.adding_keys.insert(f.path.clone());
    }
    changed
}

/// Edits `map[key]` in place, keeping the key's position in the map.
fn edit_entry(
    ui: &mut Ui,
    st: &mut FormState,
    f: &Field,
    map: &mut Map<String, Value>,
    key: &str,
) -> bool {
    let mut slot = map.get_mut(key).map(std::mem::take);
    let existed = slot.is_some();
    let changed = field(ui, st, f, &mut slot);
    match slot {
        Some(value) => match map.get_mut(key) {
            Some(entry) => *entry = value,
            None => {
                map.insert(key.to_owned(), value);
            }
        },
        None if existed => {
            map.shift_remove(key);
        }
        None => {}
    }
    changed
}

fn add_property(
    ui: &mut Ui,
    st: &mut FormState,
    f: &Field,
    map: &mut Map<String, Value>,
    value_schema: &FieldSchema,
) -> bool {
    let mut added = false;
    ui.horizontal(|ui| {
        let key = st.new_keys.entry(f.path.clone()).or_default();
        let response = ui
            .add(
                TextEdit::singleline(key)
                    .id_salt((&f.path, "new key"))
                    .desired_width(140.0)
                    .hint_text("new key"),
            )
            .accessible_name(format!("New key in {}", f.label));
        let valid = !key.is_empty() && !map.contains_key(key.as_str());
        let entered = response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let clicked = ui
            .add_enabled(valid, Button::new("Add property"))
            .accessible_name(format!("Add property to {}", f.label))
            .clicked();
        if valid && (clicked || entered) {
            map.insert(std::mem::take(key), placeholder_value(value_schema));
            added = true;
        }
    });
    added
}

/// An array: one row per item with Up / Down / Remove, and "Add item".
pub(super) fn array_field(
    ui: &mut Ui,
    st: &mut FormState,
    f: &Field,
    slot: &mut Option<Value>,
    items: &FieldSchema,
) -> bool {
    let count = slot.as_ref().and_then(Value::as_array).map(Vec::len);
    let suffix = count.map(|n| format!(" [{n}]")).unwrap_or_default();
    let mut changed = false;
    CollapsingHeader::new(header_text(f, count.is_some(), &suffix))
        .id_salt(&f.path)
        .default_open(f.path.matches('/').count() <= 2)
        .show(ui, |ui| {
            body_header(ui, f);
            changed |= trailing_controls(ui, f, slot);
            let was_set = slot.is_some();
            let mut list = match slot.take() {
                Some(Value::Array(list)) => list,
                _ => Vec::new(),
            };
            let action = Cell::new(None);
            let len = list.len();
            for (index, entry) in list.iter_mut().enumerate() {
                let item = Field {
                    schema: items,
                    path: format!("{}/{index}", f.path),
                    label: format!("{} #{}", f.label, index + 1),
                    required: false,
                    can_unset: false,
                    item: Some(ItemControls {
                        index,
                        len,
                        action: &action,
                    }),
                };
                let mut item_slot = Some(std::mem::take(entry));
                changed |= field(ui, st, &item, &mut item_slot);
                *entry = item_slot.unwrap_or(Value::Null);
            }
            match action.get() {
                Some((i, ItemAction::Up)) if i > 0 => list.swap(i, i - 1),
                Some((i, ItemAction::Down)) if i + 1 < list.len() => list.swap(i, i + 1),
                Some((i, ItemAction::Remove)) if i < list.len() => {
                    list.remove(i);
                }
                _ => {}
            }
            changed |= action.get().is_some();
            if ui
                .button("Add item")
                .accessible_name(format!("Add item to {}", f.label))
                .clicked()
            {
                list.push(placeholder_value(items));
                changed = true;
            }
            if was_set || changed {
                *slot = Some(Value::Array(list));
            }
        });
    changed
}

/// `anyOf` / `oneOf`: a picker for the shape, then the editor for that shape.
pub(super) fn variants_field(
    ui: &mut Ui,
    st: &mut FormState,
    f: &Field,
    slot: &mut Option<Value>,
    variants: &[FieldSchema],
) -> bool {
    let current = current_variant(st, f, variants, slot);
    let mut changed = row(ui, f, slot, |ui, slot| {
        let selected = match (slot.as_ref(), current) {
            (None, _) => "(not set)".to_owned(),
            (Some(Value::Null), None) => "null".to_owned(),
            (Some(_), Some(i)) => variant_label(i, &variants[i]),
            (Some(_), None) => "(no match)".to_owned(),
        };
        let mut picked = None;
        let mut response = ComboBox::from_id_salt(&f.path)
            .selected_text(selected)
            .show_ui(ui, |ui| {
                for (i, variant) in variants.iter().enumerate() {
                    if ui
                        .selectable_label(current == Some(i), variant_label(i, variant))
                        .clicked()
                    {
                        picked = Some(i);
                    }
                }
            })
            .response;
        if let Some(i) = picked
            && current != Some(i)
        {
            *slot = Some(placeholder_value(&variants[i]));
            st.variants.insert(f.path.clone(), i);
            response.mark_changed();
        }
        response
    });
    // The pick may have changed the value: look again.
    let current = current_variant(st, f, variants, slot);
    let Some(index) = current else {
        return changed;
    };
    let variant = &variants[index];
    ui.indent((&f.path, "variant"), |ui| {
        if let (Kind::Object(object), Some(Value::Object(map))) = (&variant.kind, slot.as_mut()) {
            changed |= object_body(ui, st, f, map, object);
        } else {
            let inner = Field {
                schema: variant,
                path: f.path.clone(),
                label: format!("{} value", f.label),
                required: true,
                can_unset: false,
                item: None,
            };
            changed |= field(ui, st, &inner, slot);
        }
    });
    changed
}

/// The variant the value is shown with: the user's pick while the value still
/// fits it (shapes can overlap), else the best match. `None` for unset or null.
fn current_variant(
    st: &FormState,
    f: &Field,
    variants: &[FieldSchema],
    slot: &Option<Value>,
) -> Option<usize> {
    let value = slot.as_ref()?;
    if value.is_null() && f.schema.nullable {
        return None;
    }
    st.variants
        .get(&f.path)
        .copied()
        .filter(|&i| i < variants.len() && variant_accepts(&variants[i], value))
        .or_else(|| best_variant(variants, value))
}

/// Group header: "label *", then the size or "(not set)".
fn header_text(f: &Field, is_set: bool, suffix: &str) -> String {
    let mut text = f.label.clone();
    if f.required {
        text.push_str(" *");
    }
    text.push_str(if is_set { suffix } else { " (not set)" });
    text
}

fn body_header(ui: &mut Ui, f: &Field) {
    if let Some(description) = &f.schema.description {
        ui.label(RichText::new(description).weak());
    }
    hint(ui, f.schema);
}
