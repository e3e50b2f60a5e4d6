//! Argument editor for calling an MCP tool: a form generated from the tool's
//! `inputSchema`, a raw JSON view kept in sync with it, and schema warnings.
//!
//! The arguments map is the single source of truth; the form and the JSON text
//! are two views of it. Values the form does not know are kept, never dropped.

mod containers;
mod form;
mod json_text;
mod parse;
mod scalars;
mod schema;
mod validation;
mod values;

#[cfg(test)]
mod tests_model;
#[cfg(test)]
mod tests_ui;

use egui::{RichText, Ui};
use serde_json::{Map, Value};

use form::{Field, FormState};
use schema::{FieldSchema, Kind, ObjectSchema};
use validation::SchemaValidator;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Form,
    Json,
}

pub struct ArgumentEditor {
    /// The root of the parsed schema; a non-object root is edited as free keys.
    root: ObjectSchema,
    arguments: Map<String, Value>,
    form_state: FormState,
    mode: Mode,
    json_text: String,
    /// Parse error of `json_text`; while set, the form keeps the last good arguments.
    json_error: Option<String>,
    validator: SchemaValidator,
    warnings: Vec<String>,
    /// Bumped on every change of the arguments; validation runs once per revision.
    revision: u64,
    validated_revision: Option<u64>,
    /// Nobody has edited the arguments yet (a fresh form): missing required values are not
    /// warned about until then.
    untouched: bool,
}

impl ArgumentEditor {
    pub fn new(input_schema: &Value) -> Self {
        let parsed = parse::parse(input_schema);
        let root = match parsed.kind {
            Kind::Object(object) => object,
            _ => ObjectSchema::default(),
        };
        let arguments = values::initial_object(&root);
        let mut editor = Self {
            root,
            json_text: json_text::pretty(&arguments),
            arguments,
            form_state: FormState::default(),
            mode: Mode::Form,
            json_error: None,
            validator: SchemaValidator::new(input_schema),
            warnings: Vec::new(),
            revision: 0,
            validated_revision: None,
            untouched: true,
        };
        editor.validate();
        editor
    }

    /// Replace the arguments (remembered arguments, or a value chained from another tool's result).
    pub fn set_arguments(&mut self, arguments: &Map<String, Value>) {
        self.arguments = arguments.clone();
        self.form_state.forget_typing();
        self.arguments_changed();
    }

    pub fn arguments(&self) -> Map<String, Value> {
        self.arguments.clone()
    }

    /// Whether the form holds exactly `arguments` (compared in place, nothing copied).
    pub fn holds(&self, arguments: &Value) -> bool {
        arguments.as_object() == Some(&self.arguments)
    }

    /// Set one top-level argument (chaining: "use this value as argument X").
    pub fn set_argument(&mut self, name: &str, value: Value) {
        self.arguments.insert(name.to_owned(), value);
        self.form_state.forget_typing();
        self.arguments_changed();
    }

    /// Top-level property names with their display label and schema type, for a picker:
    /// `(name, "Label (type)")`.
    pub fn argument_names(&self) -> Vec<(String, String)> {
        self.root
            .properties
            .iter()
            .map(|p| {
                let label = p.schema.title.as_deref().unwrap_or(&p.name);
                (
                    p.name.clone(),
                    format!("{label} ({})", p.schema.type_name()),
                )
            })
            .collect()
    }

    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Asks the next drawing of an editor to put the keyboard focus on its first field (after a
    /// tool was picked, typing goes straight into its arguments).
    pub fn focus_first_field(ctx: &egui::Context) {
        ctx.data_mut(|data| data.insert_temp(focus_request_id(), true));
    }

    /// Draws the switch, the form or the JSON editor, and the warnings. Returns true when the arguments changed.
    pub fn ui(&mut self, ui: &mut Ui, id_salt: &str) -> bool {
        let mut changed = false;
        ui.push_id(id_salt, |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut self.mode, Mode::Form, "Form");
                ui.selectable_value(&mut self.mode, Mode::Json, "JSON");
            });
            ui.separator();
            changed = match self.mode {
                Mode::Form => self.form_ui(ui),
                Mode::Json => self.json_ui(ui),
            };
            self.warnings_ui(ui);
        });
        // A form without fields leaves the request unused: it must not reach another tool's.
        take_focus_request(ui);
        changed
    }

    fn form_ui(&mut self, ui: &mut Ui) -> bool {
        if self.json_error.is_some() {
            ui.label(
                RichText::new(
                    "The JSON text has an error: the form shows the last valid arguments, \
                     and editing the form replaces the JSON text.",
                )
                .color(ui.visuals().warn_fg_color),
            );
        }
        let raw = FieldSchema::raw();
        let root = Field {
            schema: &raw,
            path: String::new(),
            label: "arguments".to_owned(),
            required: true,
            can_unset: false,
            item: None,
        };
        let changed = containers::object_body(
            ui,
            &mut self.form_state,
            &root,
            &mut self.arguments,
            &self.root,
        );
        if changed {
            self.arguments_changed();
        } else if self.untouched && self.form_state.buffers.values().any(|b| b.error.is_some()) {
            // Typed, if not yet a value (a number half typed): the form is being filled in.
            self.untouched = false;
            self.validated_revision = None;
            self.validate();
        }
        changed
    }

    fn json_ui(&mut self, ui: &mut Ui) -> bool {
        if !json_text::json_editor_ui(ui, &mut self.json_text, self.json_error.as_deref()) {
            return false;
        }
        self.apply_json_text()
    }

    /// Takes the edited JSON text into the arguments when it parses as an object;
    /// otherwise records the error and leaves arguments (and text) alone.
    fn apply_json_text(&mut self) -> bool {
        match json_text::parse_arguments(&self.json_text) {
            Ok(arguments) => {
                self.json_error = None;
                if arguments == self.arguments {
                    return false;
                }
                self.arguments = arguments;
                self.untouched = false;
                self.form_state.forget_typing();
                // Keep the user's text as typed; only the other views follow.
                self.revision += 1;
                self.validate();
                true
            }
            Err(error) => {
                self.json_error = Some(error);
                false
            }
        }
    }

    fn warnings_ui(&self, ui: &mut Ui) {
        if self.warnings.is_empty() {
            return;
        }
        ui.separator();
        for warning in &self.warnings {
            ui.label(RichText::new(warning).color(ui.visuals().warn_fg_color));
        }
    }

    /// After a change from the form or the API: the JSON text follows.
    fn arguments_changed(&mut self) {
        self.untouched = false;
        self.json_text = json_text::pretty(&self.arguments);
        self.json_error = None;
        self.revision += 1;
        self.validate();
    }

    fn validate(&mut self) {
        if self.validated_revision == Some(self.revision) {
            return;
        }
        self.validated_revision = Some(self.revision);
        self.warnings = self
            .validator
            .note()
            .map(str::to_owned)
            .into_iter()
            .chain(self.validator.check(&self.arguments, self.untouched))
            .collect();
    }
}

fn focus_request_id() -> egui::Id {
    egui::Id::unique("argument_editor_focus_first")
}

/// Whether the first field drawn should take the focus (true once per request).
fn take_focus_request(ui: &Ui) -> bool {
    ui.ctx()
        .data_mut(|data| data.remove_temp::<bool>(focus_request_id()))
        .unwrap_or(false)
}
