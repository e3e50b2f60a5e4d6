//! The form of a form-mode elicitation: one field per property of `requestedSchema` (a flat
//! object of primitives, as the spec restricts it), with defaults pre-filled, required marks,
//! and validation before the content is sent back.

use serde_json::{Map, Value};

/// The `ElicitResult` sent back: `accept` (with the content), `decline` or `cancel`.
pub fn elicit_result(action: &str, content: Option<Value>) -> Value {
    let mut result = Map::new();
    result.insert("action".to_owned(), Value::String(action.to_owned()));
    if let Some(content) = content {
        result.insert("content".to_owned(), content);
    }
    Value::Object(result)
}

/// A string format the form checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextFormat {
    Email,
    Uri,
    Date,
    DateTime,
    /// A format the spec does not name: shown, not checked.
    Other(String),
}

impl TextFormat {
    /// A value of the format, to show as the field's hint and in what a wrong value is told.
    pub fn example(&self) -> &'static str {
        match self {
            Self::Email => "name@example.com",
            Self::Uri => "https://example.com",
            Self::Date => "2026-12-01",
            Self::DateTime => "2026-12-01T09:30:00Z",
            Self::Other(_) => "",
        }
    }
}

/// One option of a select.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The option as sent back: the enum's value as it is (a string, mostly; a number for a
    /// numeric enum).
    pub value: Value,
    /// The label shown (`oneOf`/`anyOf` `title`, or the legacy `enumNames`).
    pub title: Option<String>,
}

impl Choice {
    pub fn label(&self) -> String {
        self.title
            .clone()
            .unwrap_or_else(|| scalar_text(&self.value))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    Text {
        format: Option<TextFormat>,
        min_length: Option<u64>,
        max_length: Option<u64>,
    },
    Number {
        integer: bool,
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    Boolean,
    SingleSelect {
        options: Vec<Choice>,
    },
    MultiSelect {
        options: Vec<Choice>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
    /// A property the spec does not allow in an elicitation (an object, a nested array):
    /// typed as JSON.
    Json {
        reason: String,
    },
}

impl FieldKind {
    /// What the empty field shows: an example of the format, or the range of a number.
    pub fn hint(&self) -> String {
        match self {
            Self::Text { format, .. } => format.as_ref().map_or("", TextFormat::example).to_owned(),
            Self::Number {
                integer,
                minimum,
                maximum,
            } => match (minimum, maximum) {
                (Some(min), Some(max)) => format!("{min} to {max}"),
                (Some(min), None) => format!("at least {min}"),
                (None, Some(max)) => format!("at most {max}"),
                (None, None) if *integer => "a whole number".to_owned(),
                (None, None) => "a number".to_owned(),
            },
            _ => String::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    pub key: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
    pub kind: FieldKind,
    pub default: Option<Value>,
}

impl FormField {
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.key)
    }
}

/// What the person has entered in one field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    /// Text, numbers and JSON, as typed.
    Text(String),
    /// A checkbox; `None` is "not answered" (an optional boolean left alone).
    Bool(Option<bool>),
    /// The index of the chosen option.
    Choice(Option<usize>),
    /// Whether each option is ticked.
    Choices(Vec<bool>),
}

/// The form of one elicitation request.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationForm {
    pub message: String,
    pub fields: Vec<FormField>,
    /// What in the schema could not be followed, in words.
    pub problems: Vec<String>,
}

impl ElicitationForm {
    /// The form for the params of an `elicitation/create` (form mode).
    pub fn from_params(params: &Value) -> Self {
        let message = params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let mut problems = Vec::new();
        let schema = params.get("requestedSchema");
        let required: Vec<&str> = schema
            .and_then(|schema| schema.get("required"))
            .and_then(Value::as_array)
            .map(|keys| keys.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        match schema.and_then(|schema| schema.get("properties")) {
            Some(Value::Object(properties)) => {
                for (key, property) in properties {
                    fields.push(field(key, property, required.contains(&key.as_str())));
                }
            }
            Some(_) => problems.push("requestedSchema.properties is not an object".to_owned()),
            None if schema.is_none() => {
                problems.push("the request has no requestedSchema".to_owned());
            }
            None => {}
        }
        for key in required {
            if !fields.iter().any(|field| field.key == key) {
                problems.push(format!("{key:?} is required but not among the properties"));
            }
        }
        Self {
            message,
            fields,
            problems,
        }
    }

    /// The values the form opens with: each field's default, or empty.
    pub fn initial_values(&self) -> Vec<FieldValue> {
        self.fields.iter().map(initial_value).collect()
    }

    /// The content to accept with, or what is wrong, by field index.
    pub fn content(&self, values: &[FieldValue]) -> Result<Value, Vec<(usize, String)>> {
        let mut content = Map::new();
        let mut errors = Vec::new();
        for (index, field) in self.fields.iter().enumerate() {
            let value = values
                .get(index)
                .cloned()
                .unwrap_or_else(|| initial_value(field));
            match field_content(field, &value) {
                Ok(Some(value)) => {
                    content.insert(field.key.clone(), value);
                }
                Ok(None) if field.required => {
                    errors.push((index, format!("{} is required", field.label())));
                }
                Ok(None) => {}
                Err(error) => errors.push((index, format!("{}: {error}", field.label()))),
            }
        }
        if errors.is_empty() {
            Ok(Value::Object(content))
        } else {
            Err(errors)
        }
    }

    /// The content of the defaults alone (`--elicit accept-defaults`), or what is missing.
    pub fn default_content(&self) -> Result<Value, DefaultsIncomplete> {
        self.content(&self.initial_values()).map_err(|errors| {
            DefaultsIncomplete(errors.into_iter().map(|(_, error)| error).collect())
        })
    }
}

/// Why the defaults alone cannot be sent: what is wrong with each field, in words ("String is
/// required"), shown joined by "; ".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.join("; "))]
pub struct DefaultsIncomplete(pub Vec<String>);

/// Why one field's value cannot be sent, in the words shown beside the field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum FieldError {
    #[error("at least {0} characters")]
    TooShort(u64),
    #[error("at most {0} characters")]
    TooLong(u64),
    #[error("a whole number")]
    NotWholeNumber,
    #[error("a number")]
    NotNumber,
    #[error("a finite number")]
    NotFinite,
    #[error("at least {0}")]
    BelowMinimum(f64),
    #[error("at most {0}")]
    AboveMaximum(f64),
    #[error("choose at least {0}")]
    TooFewChosen(u64),
    #[error("choose at most {0}")]
    TooManyChosen(u64),
    #[error("not JSON ({0})")]
    NotJson(String),
    #[error("the value does not fit the field")]
    DoesNotFit,
    /// Not of the field's format: what the format is called and an example of it.
    #[error("{0}, like {1}")]
    Format(&'static str, &'static str),
}

fn field(key: &str, property: &Value, required: bool) -> FormField {
    let text = |name: &str| {
        property
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let number = |name: &str| property.get(name).and_then(Value::as_f64);
    let count = |name: &str| property.get(name).and_then(Value::as_u64);
    let kind = match property.get("type").and_then(Value::as_str) {
        Some("string") => match choices(property) {
            Some(options) => FieldKind::SingleSelect { options },
            None => FieldKind::Text {
                format: text("format").map(|format| match format.as_str() {
                    "email" => TextFormat::Email,
                    "uri" => TextFormat::Uri,
                    "date" => TextFormat::Date,
                    "date-time" => TextFormat::DateTime,
                    _ => TextFormat::Other(format),
                }),
                min_length: count("minLength"),
                max_length: count("maxLength"),
            },
        },
        Some(kind @ ("number" | "integer")) => FieldKind::Number {
            integer: kind == "integer",
            minimum: number("minimum"),
            maximum: number("maximum"),
        },
        Some("boolean") => FieldKind::Boolean,
        Some("array") => match property.get("items").and_then(choices) {
            Some(options) => FieldKind::MultiSelect {
                options,
                min_items: count("minItems"),
                max_items: count("maxItems"),
            },
            None => FieldKind::Json {
                reason: "an array without enum items".to_owned(),
            },
        },
        Some(other) => FieldKind::Json {
            reason: format!("type {other:?} is not one elicitation allows"),
        },
        None => match choices(property) {
            Some(options) => FieldKind::SingleSelect { options },
            None => FieldKind::Json {
                reason: "no type".to_owned(),
            },
        },
    };
    FormField {
        key: key.to_owned(),
        title: text("title"),
        description: text("description"),
        required,
        kind,
        default: property.get("default").cloned(),
    }
}

/// The options of an enum: `enum` (with the legacy `enumNames` as titles) or `oneOf`/`anyOf`
/// of `{const, title}`.
fn choices(schema: &Value) -> Option<Vec<Choice>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .map(|(index, value)| Choice {
                    value: value.clone(),
                    title: names
                        .and_then(|names| names.get(index))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                })
                .collect(),
        );
    }
    let listed = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let options: Vec<Choice> = listed
        .iter()
        .filter_map(|option| {
            Some(Choice {
                value: option.get("const")?.clone(),
                title: option
                    .get("title")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })
        })
        .collect();
    (!options.is_empty()).then_some(options)
}

fn scalar_text(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_owned)
}

fn initial_value(field: &FormField) -> FieldValue {
    let default = field.default.as_ref();
    match &field.kind {
        FieldKind::Text { .. } => FieldValue::Text(
            default
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        ),
        FieldKind::Number { integer, .. } => FieldValue::Text(
            default
                .and_then(Value::as_f64)
                .map(|number| {
                    // 42.0 as the default of an integer reads as 42.
                    if *integer && number.fract() == 0.0 && number.abs() < 9e15 {
                        format!("{}", number as i64)
                    } else {
                        default.map(Value::to_string).unwrap_or_default()
                    }
                })
                .unwrap_or_default(),
        ),
        FieldKind::Json { .. } => {
            FieldValue::Text(default.map(Value::to_string).unwrap_or_default())
        }
        FieldKind::Boolean => FieldValue::Bool(default.and_then(Value::as_bool)),
        FieldKind::SingleSelect { options } => FieldValue::Choice(
            default.and_then(|default| options.iter().position(|option| option.value == *default)),
        ),
        FieldKind::MultiSelect { options, .. } => {
            let chosen: Vec<Value> = default
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            FieldValue::Choices(
                options
                    .iter()
                    .map(|option| chosen.contains(&option.value))
                    .collect(),
            )
        }
    }
}

/// The value sent for one field (`None`: left empty), or why it cannot be sent.
fn field_content(field: &FormField, value: &FieldValue) -> Result<Option<Value>, FieldError> {
    match (&field.kind, value) {
        (
            FieldKind::Text {
                format,
                min_length,
                max_length,
            },
            FieldValue::Text(text),
        ) => {
            if text.is_empty() {
                return Ok(None);
            }
            let length = text.chars().count() as u64;
            if let Some(min) = min_length
                && length < *min
            {
                return Err(FieldError::TooShort(*min));
            }
            if let Some(max) = max_length
                && length > *max
            {
                return Err(FieldError::TooLong(*max));
            }
            if let Some(format) = format {
                check_format(format, text)?;
            }
            Ok(Some(Value::String(text.clone())))
        }
        (
            FieldKind::Number {
                integer,
                minimum,
                maximum,
            },
            FieldValue::Text(text),
        ) => {
            let text = text.trim();
            if text.is_empty() {
                return Ok(None);
            }
            let number: Value = if *integer {
                text.parse::<i64>()
                    .map(Value::from)
                    .map_err(|_| FieldError::NotWholeNumber)?
            } else {
                let parsed: f64 = text.parse().map_err(|_| FieldError::NotNumber)?;
                if !parsed.is_finite() {
                    return Err(FieldError::NotFinite);
                }
                serde_json::from_str(text).unwrap_or_else(|_| Value::from(parsed))
            };
            let as_f64 = number.as_f64().unwrap_or_default();
            if let Some(min) = minimum
                && as_f64 < *min
            {
                return Err(FieldError::BelowMinimum(*min));
            }
            if let Some(max) = maximum
                && as_f64 > *max
            {
                return Err(FieldError::AboveMaximum(*max));
            }
            Ok(Some(number))
        }
        (FieldKind::Boolean, FieldValue::Bool(answer)) => Ok(answer.map(Value::Bool)),
        (FieldKind::SingleSelect { options }, FieldValue::Choice(chosen)) => Ok(chosen
            .and_then(|index| options.get(index))
            .map(|option| option.value.clone())),
        (
            FieldKind::MultiSelect {
                options,
                min_items,
                max_items,
            },
            FieldValue::Choices(ticked),
        ) => {
            let chosen: Vec<Value> = options
                .iter()
                .zip(ticked)
                .filter(|(_, on)| **on)
                .map(|(option, _)| option.value.clone())
                .collect();
            if chosen.is_empty() && !field.required {
                return Ok(None);
            }
            let count = chosen.len() as u64;
            if let Some(min) = min_items
                && count < *min
            {
                return Err(FieldError::TooFewChosen(*min));
            }
            if let Some(max) = max_items
                && count > *max
            {
                return Err(FieldError::TooManyChosen(*max));
            }
            Ok(Some(Value::Array(chosen)))
        }
        (FieldKind::Json { .. }, FieldValue::Text(text)) => {
            if text.trim().is_empty() {
                return Ok(None);
            }
            crate::deep_json::parse(text)
                .map(Some)
                .map_err(|error| FieldError::NotJson(error.to_string()))
        }
        _ => Err(FieldError::DoesNotFit),
    }
}

fn check_format(format: &TextFormat, text: &str) -> Result<(), FieldError> {
    let wrong = |what| FieldError::Format(what, format.example());
    match format {
        TextFormat::Email => {
            let (local, domain) = text.split_once('@').unwrap_or_default();
            if local.is_empty() || !domain.contains('.') || text.contains(char::is_whitespace) {
                return Err(wrong("an email address"));
            }
        }
        TextFormat::Uri => {
            url::Url::parse(text).map_err(|_| wrong("a URI"))?;
        }
        TextFormat::Date => {
            chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| wrong("a date"))?;
        }
        TextFormat::DateTime => {
            chrono::DateTime::parse_from_rfc3339(text).map_err(|_| wrong("a date and time"))?;
        }
        TextFormat::Other(_) => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The schema server-everything's trigger-elicitation-request sends (shortened).
    fn everything() -> ElicitationForm {
        ElicitationForm::from_params(&json!({
            "message": "Please provide inputs",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "title": "String"},
                    "check": {"type": "boolean"},
                    "firstLine": {"type": "string", "default": "It was a dark and stormy night."},
                    "email": {"type": "string", "format": "email"},
                    "birthdate": {"type": "string", "format": "date"},
                    "integer": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
                    "number": {"type": "number", "minimum": 0, "maximum": 1000, "default": 2.5},
                    "friend": {"type": "string", "enum": ["Monica", "Rachel"], "default": "Monica"},
                    "instruments": {"type": "array", "minItems": 1, "maxItems": 3,
                        "items": {"type": "string", "enum": ["Guitar", "Piano"]}, "default": ["Guitar"]},
                    "hero": {"type": "string", "oneOf": [{"const": "hero-1", "title": "Superman"}], "default": "hero-1"},
                    "fish": {"type": "array", "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}]}},
                    "pet": {"type": "string", "enum": ["pet-1", "pet-2"], "enumNames": ["Cat", "Dog"]}
                },
                "required": ["name"]
            }
        }))
    }

    #[test]
    fn every_kind_of_field_is_read_with_its_default() {
        let form = everything();
        assert!(form.problems.is_empty(), "{:?}", form.problems);
        assert_eq!(form.fields.len(), 12);
        assert!(form.fields[0].required);
        assert!(matches!(
            form.fields[7].kind,
            FieldKind::SingleSelect { .. }
        ));
        assert!(matches!(form.fields[8].kind, FieldKind::MultiSelect { .. }));
        let FieldKind::SingleSelect { options } = &form.fields[11].kind else {
            panic!("pet is a select");
        };
        assert_eq!(options[1].label(), "Dog");
        let values = form.initial_values();
        assert_eq!(values[5], FieldValue::Text("42".to_owned()));
        assert_eq!(values[8], FieldValue::Choices(vec![true, false]));
        assert_eq!(values[9], FieldValue::Choice(Some(0)));
    }

    #[test]
    fn the_defaults_need_the_required_fields_and_a_filled_form_is_checked() {
        let form = everything();
        assert_eq!(
            form.default_content()
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("String is required")
        );
        let mut values = form.initial_values();
        values[0] = FieldValue::Text("Ada".to_owned());
        let content = form.content(&values).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            content,
            json!({"name": "Ada", "firstLine": "It was a dark and stormy night.", "integer": 42,
                   "number": 2.5, "friend": "Monica", "instruments": ["Guitar"], "hero": "hero-1"})
        );
        values[3] = FieldValue::Text("not-an-email".to_owned());
        values[4] = FieldValue::Text("1.12.2026".to_owned());
        values[5] = FieldValue::Text("101".to_owned());
        values[8] = FieldValue::Choices(vec![false, false]);
        let errors = form.content(&values).err().unwrap_or_default();
        let fields: Vec<usize> = errors.iter().map(|(index, _)| *index).collect();
        assert_eq!(
            fields,
            vec![3, 4, 5],
            "an optional select left empty is left out: {errors:?}"
        );
        assert!(errors[2].1.contains("at most 100"));
    }

    #[test]
    fn a_required_multi_select_counts_its_choices() {
        let form = ElicitationForm::from_params(&json!({
            "message": "?",
            "requestedSchema": {"type": "object", "required": ["pick"], "properties": {
                "pick": {"type": "array", "minItems": 1, "maxItems": 1,
                         "items": {"type": "string", "enum": ["a", "b"]}}}}
        }));
        let errors = |ticked: Vec<bool>| form.content(&[FieldValue::Choices(ticked)]).err();
        assert!(errors(vec![false, false]).is_some_and(|e| e[0].1.contains("at least 1")));
        assert!(errors(vec![true, true]).is_some_and(|e| e[0].1.contains("at most 1")));
        assert_eq!(
            form.content(&[FieldValue::Choices(vec![false, true])]),
            Ok(json!({"pick": ["b"]}))
        );
    }

    #[test]
    fn a_schema_elicitation_does_not_allow_is_typed_as_json() {
        let form = ElicitationForm::from_params(&json!({
            "message": "?",
            "requestedSchema": {"type": "object", "properties": {"o": {"type": "object"}},
                                "required": ["missing"]}
        }));
        assert!(matches!(form.fields[0].kind, FieldKind::Json { .. }));
        assert_eq!(form.problems.len(), 1);
        let content = form.content(&[FieldValue::Text(r#"{"a": 1}"#.to_owned())]);
        assert_eq!(content, Ok(json!({"o": {"a": 1}})));
    }
}
