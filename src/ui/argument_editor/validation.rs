//! Checks the arguments against the tool's input schema.
//!
//! Violations are warnings, never a block: calling a tool with bad arguments is a
//! legitimate way to test the server's own validation.

use serde_json::{Map, Value};

use toolscope_core::analysis::{self, MAX_VALIDATED_DEPTH};

/// Listing hundreds of violations helps nobody; the first few point at the problem.
const MAX_WARNINGS: usize = 20;

pub(super) struct SchemaValidator {
    validator: Option<jsonschema::Validator>,
    /// Why the schema could not be compiled; reported once, as a note.
    note: Option<String>,
}

impl SchemaValidator {
    pub fn new(schema: &Value) -> Self {
        // jsonschema compiles and validates recursively, once per level.
        if analysis::deeper_than(schema, MAX_VALIDATED_DEPTH) {
            return Self {
                validator: None,
                note: Some(format!(
                    "Note: the input schema is nested deeper than {MAX_VALIDATED_DEPTH} levels, \
                     too deep to compile safely; arguments are not checked"
                )),
            };
        }
        // Offline: a tool schema must never make the explorer fetch URLs.
        // The draft comes from `$schema` (draft-07 from many servers), 2020-12 otherwise.
        match jsonschema::options().offline().build(schema) {
            Ok(validator) => Self {
                validator: Some(validator),
                note: None,
            },
            Err(error) => Self {
                validator: None,
                note: Some(format!(
                    "Note: the input schema cannot be compiled, arguments are not checked ({error})"
                )),
            },
        }
    }

    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Violations in plain words, naming the offending value by its JSON Pointer; with
    /// `untouched` (a form nobody edited yet), not the required values still missing: an
    /// empty form is no mistake to point at.
    pub fn check(&self, arguments: &Map<String, Value>, untouched: bool) -> Vec<String> {
        let Some(validator) = &self.validator else {
            return Vec::new();
        };
        let instance = Value::Object(arguments.clone());
        if analysis::deeper_than(&instance, MAX_VALIDATED_DEPTH) {
            toolscope_core::deep_json::drop_value(instance);
            return vec![format!(
                "The arguments are nested deeper than {MAX_VALIDATED_DEPTH} levels; they are not \
                 checked against the schema"
            )];
        }
        let mut warnings: Vec<String> = validator
            .iter_errors(&instance)
            .filter(|error| {
                !(untouched
                    && matches!(
                        error.kind(),
                        jsonschema::error::ValidationErrorKind::Required { .. }
                    ))
            })
            .take(MAX_WARNINGS + 1)
            .map(|error| analysis::violation_sentence(&error, "the arguments"))
            .collect();
        if warnings.len() > MAX_WARNINGS {
            warnings.truncate(MAX_WARNINGS);
            warnings.push("... more problems not shown".to_owned());
        }
        warnings
    }
}
