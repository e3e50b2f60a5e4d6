//! A schema violation as a sentence a person reads: `the property "a" is required`,
//! `/value should be an integer, but it is the string "three"`, rather than the validator's
//! `"a" is a required property`. Used for the output-schema contract and the argument form.

use jsonschema::{
    ValidationError,
    error::{TypeKind, ValidationErrorKind},
};
use serde_json::Value;

use super::deep::one_line;
use crate::text_util::{count_noun, json_type_phrase};

/// How much of a value a sentence quotes.
const QUOTE_CHARS: usize = 40;

/// The sentence for `error`; `root` names the whole value ("structuredContent", "the
/// arguments") when the problem is at its top.
pub fn sentence(error: &ValidationError<'_>, root: &str) -> String {
    let pointer = error.instance_path().as_str();
    let subject = if pointer.is_empty() {
        root.to_owned()
    } else {
        pointer.to_owned()
    };
    // Read only by the kinds that quote it: building it may mean reading a big subtree.
    let is = || it_is(error.instance().as_ref());
    let predicate = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let property = one_line(property, QUOTE_CHARS);
            return if pointer.is_empty() {
                format!("the property {property} is required")
            } else {
                format!("the property {property} is required in {pointer}")
            };
        }
        ValidationErrorKind::Type { kind } => {
            format!("should be {}, but it is {}", type_phrase(kind), is())
        }
        ValidationErrorKind::Enum { options } => format!(
            "should be one of {}, but it is {}",
            one_line(options, QUOTE_CHARS * 2),
            is()
        ),
        ValidationErrorKind::Constant { expected_value } => format!(
            "should be exactly {}, but it is {}",
            one_line(expected_value, QUOTE_CHARS),
            is()
        ),
        ValidationErrorKind::Minimum { limit } => {
            format!("should be at least {limit}, but it is {}", is())
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("should be at most {limit}, but it is {}", is())
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("should be more than {limit}, but it is {}", is())
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("should be less than {limit}, but it is {}", is())
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("should be a multiple of {multiple_of}, but it is {}", is())
        }
        ValidationErrorKind::MinLength { limit } => format!(
            "should have at least {}, but it is {}",
            count_noun(
                usize::try_from(*limit).unwrap_or(usize::MAX),
                "character",
                "characters"
            ),
            is()
        ),
        ValidationErrorKind::MaxLength { limit } => format!(
            "should have at most {}, but it is {}",
            count_noun(
                usize::try_from(*limit).unwrap_or(usize::MAX),
                "character",
                "characters"
            ),
            is()
        ),
        ValidationErrorKind::MinItems { limit } => format!(
            "should have at least {}",
            count_noun(
                usize::try_from(*limit).unwrap_or(usize::MAX),
                "item",
                "items"
            )
        ),
        ValidationErrorKind::MaxItems { limit } => format!(
            "should have at most {}",
            count_noun(
                usize::try_from(*limit).unwrap_or(usize::MAX),
                "item",
                "items"
            )
        ),
        ValidationErrorKind::MinProperties { limit } => format!(
            "should have at least {}",
            count_noun(
                usize::try_from(*limit).unwrap_or(usize::MAX),
                "property",
                "properties"
            )
        ),
        ValidationErrorKind::MaxProperties { limit } => format!(
            "should have at most {}",
            count_noun(
                usize::try_from(*limit).unwrap_or(usize::MAX),
                "property",
                "properties"
            )
        ),
        ValidationErrorKind::Pattern { pattern } => {
            format!("should match the pattern {pattern:?}, but it is {}", is())
        }
        ValidationErrorKind::Format { format } => {
            format!("should be a valid {format}, but it is {}", is())
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let (noun, verb) = if unexpected.len() == 1 {
                ("property", "is")
            } else {
                ("properties", "are")
            };
            let place = if pointer.is_empty() {
                String::new()
            } else {
                format!(" in {pointer}")
            };
            return format!(
                "the {noun} {} {verb} not allowed{place}",
                quoted_list(unexpected)
            );
        }
        ValidationErrorKind::AdditionalItems { limit } => {
            format!(
                "should have at most {}",
                count_noun(*limit, "item", "items")
            )
        }
        ValidationErrorKind::UnevaluatedItems { unexpected } => format!(
            "has {} the schema does not allow",
            count_noun(unexpected.len(), "item", "items")
        ),
        ValidationErrorKind::UniqueItems => "should not repeat an item".to_owned(),
        ValidationErrorKind::Contains => {
            "should contain at least one item of the required shape".to_owned()
        }
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            format!(
                "matches none of the shapes the schema allows, it is {}",
                is()
            )
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            "matches more than one of the shapes in oneOf; exactly one is allowed".to_owned()
        }
        ValidationErrorKind::Not { .. } => "matches a shape the schema forbids (not)".to_owned(),
        ValidationErrorKind::FalseSchema => "is not allowed here at all".to_owned(),
        _ => return format!("{subject}: {error}"),
    };
    format!("{subject} {predicate}")
}

/// "the string \"three\"", "the number 7", "an object with 2 keys", "null".
fn it_is(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            let kind = json_type_phrase(value)
                .trim_start_matches("an ")
                .trim_start_matches("a ");
            format!("the {kind} {}", one_line(value, QUOTE_CHARS))
        }
        other => crate::text_util::json_shape_phrase(other),
    }
}

fn type_phrase(kind: &TypeKind) -> String {
    let names: Vec<&str> = match kind {
        TypeKind::Single(single) => vec![single.as_str()],
        TypeKind::Multiple(set) => set.iter().map(|t| t.as_str()).collect(),
    };
    let phrases: Vec<String> = names.iter().map(|name| with_article(name)).collect();
    match phrases.as_slice() {
        [] => "something else".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn with_article(name: &str) -> String {
    match name {
        "null" => "null".to_owned(),
        "integer" | "object" | "array" => format!("an {name}"),
        other => format!("a {other}"),
    }
}

fn quoted_list(names: &[String]) -> String {
    let shown: Vec<String> = names.iter().take(5).map(|n| format!("{n:?}")).collect();
    let more = names.len().saturating_sub(5);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sentences(schema: Value, instance: Value) -> Vec<String> {
        let validator = jsonschema::validator_for(&schema).unwrap();
        validator
            .iter_errors(&instance)
            .map(|error| sentence(&error, "structuredContent"))
            .collect()
    }

    #[test]
    fn violations_read_as_sentences() {
        let schema = json!({
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "operation": {"type": "string", "enum": ["add", "sub"]},
                "tags": {"type": "array", "minItems": 2},
                "name": {"type": "string", "maxLength": 3},
                "n": {"type": ["integer", "null"], "minimum": 1}
            },
            "required": ["is_success"],
            "additionalProperties": false
        });
        let found = sentences(
            schema,
            json!({"value": "three", "operation": "mul", "tags": [1], "name": "long", "n": 0, "x": 1}),
        );
        for expected in [
            "the property \"is_success\" is required",
            "/value should be an integer, but it is the string \"three\"",
            "/operation should be one of [\"add\",\"sub\"], but it is the string \"mul\"",
            "/tags should have at least 2 items",
            "/name should have at most 3 characters, but it is the string \"long\"",
            "/n should be at least 1, but it is the number 0",
            "the property \"x\" is not allowed",
        ] {
            assert!(
                found.iter().any(|s| s == expected),
                "{expected:?} in {found:#?}"
            );
        }
        let nested = sentences(
            json!({"properties": {"item": {"required": ["id"]}}}),
            json!({"item": {}}),
        );
        assert_eq!(nested, vec!["the property \"id\" is required in /item"]);
        let types = sentences(json!({"type": ["string", "number", "null"]}), json!([1]));
        assert_eq!(
            types,
            vec![
                "structuredContent should be null, a number or a string, but it is an array of 1 item"
            ]
        );
    }
}
