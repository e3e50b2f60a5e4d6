//! The small shape model the form is drawn from (built by `parse.rs`).
//!
//! Everything the form cannot draw is [`Kind::Raw`]: an inline JSON field,
//! so an exotic schema never blocks the user.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub(super) struct FieldSchema {
    pub kind: Kind,
    /// `null` is an accepted value too (drawn as a "null" toggle).
    pub nullable: bool,
    pub title: Option<String>,
    pub description: Option<String>,
    pub default: Option<Value>,
    pub examples: Vec<Value>,
    /// Constraints in plain words ("min 0", "format: email"), shown next to the field.
    pub hints: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Kind {
    String {
        multiline: bool,
    },
    Number {
        integer: bool,
    },
    Boolean,
    /// `enum` or `const`: the allowed values, any JSON scalar (or not).
    Enum(Vec<Value>),
    Array(Box<FieldSchema>),
    Object(ObjectSchema),
    /// `anyOf` / `oneOf` / multi-type: the user picks one shape.
    Variants(Vec<FieldSchema>),
    Null,
    /// Anything else: edited as inline JSON.
    Raw,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct ObjectSchema {
    pub properties: Vec<Property>,
    pub additional: Additional,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Property {
    pub name: String,
    pub required: bool,
    pub schema: FieldSchema,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(super) enum Additional {
    /// Not stated: extra keys are allowed but the form does not invite them.
    #[default]
    Unspecified,
    Forbidden,
    Any,
    Schema(Box<FieldSchema>),
}

impl FieldSchema {
    pub fn raw() -> Self {
        Self::of(Kind::Raw)
    }

    pub(super) fn of(kind: Kind) -> Self {
        Self {
            kind,
            nullable: false,
            title: None,
            description: None,
            default: None,
            examples: Vec::new(),
            hints: Vec::new(),
        }
    }

    /// Short type name for pickers and variant labels.
    pub fn type_name(&self) -> String {
        let base = match &self.kind {
            Kind::String { .. } => "string".to_owned(),
            Kind::Number { integer: true } => "integer".to_owned(),
            Kind::Number { integer: false } => "number".to_owned(),
            Kind::Boolean => "boolean".to_owned(),
            Kind::Enum(values) if values.len() == 1 => "const".to_owned(),
            Kind::Enum(_) => "enum".to_owned(),
            Kind::Array(items) => format!("array of {}", items.type_name()),
            Kind::Object(_) => "object".to_owned(),
            Kind::Variants(variants) => variants
                .iter()
                .map(FieldSchema::type_name)
                .collect::<Vec<_>>()
                .join(" | "),
            Kind::Null => "null".to_owned(),
            Kind::Raw => "json".to_owned(),
        };
        if self.nullable {
            format!("{base} | null")
        } else {
            base
        }
    }
}

/// One-line JSON for hints and labels, clipped (printed without recursion: a schema keyword
/// may hold a value of any size and depth).
pub(super) fn compact(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => {
            toolscope_core::text_util::clip_chars(&toolscope_core::deep_json::to_string(other), 200)
        }
    }
}
