//! What a server sent, handed back to an agent only within bounds: rmcp writes the answer with
//! `serde_json`, whose printing (and `Value`'s drop) recurse once per level, and an agent's
//! context is no place for 50 MB. What is out of bounds is withheld with a sentence saying
//! why and where to see it whole.

use serde_json::Value;

use crate::{analysis::deeper_than, json_doc::JsonRef};

/// The most bytes of one value handed back (a result's half, a schema, a resource's contents).
pub const HANDED_BYTES: usize = 256 * 1024;
/// The deepest value handed back.
pub const HANDED_DEPTH: usize = 64;
/// The most characters of one of a server's texts handed back (a tool's description, an
/// error's message).
pub const MAX_TEXT_CHARS: usize = 16 * 1024;

/// Why a value is not handed back (`what` names it: `structuredContent`, a tool's schema).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Withheld {
    #[error(
        "{what} is {bytes} bytes, more than the {HANDED_BYTES} handed back here; the history \
         keeps it whole (`toolscope history show ID` in a terminal, or the window)"
    )]
    TooBig { what: String, bytes: usize },
    #[error(
        "{what} nests deeper than {HANDED_DEPTH} levels and is not handed back here; the \
         history keeps it whole (`toolscope history show ID`, or the window)"
    )]
    TooDeep { what: String },
}

/// `json` as a value, or why it is withheld.
pub fn from_json(json: JsonRef<'_>, what: &str) -> Result<Value, Withheld> {
    let bytes = json.raw().len();
    if bytes > HANDED_BYTES {
        return Err(Withheld::TooBig {
            what: what.to_owned(),
            bytes,
        });
    }
    if json.depth() > HANDED_DEPTH {
        return Err(Withheld::TooDeep {
            what: what.to_owned(),
        });
    }
    Ok(json.to_value())
}

/// A copy of `value`, or why it is withheld.
pub fn from_value(value: &Value, what: &str) -> Result<Value, Withheld> {
    if deeper_than(value, HANDED_DEPTH) {
        return Err(Withheld::TooDeep {
            what: what.to_owned(),
        });
    }
    let bytes = serde_json::to_string(value).map_or(0, |text| text.len());
    if bytes > HANDED_BYTES {
        return Err(Withheld::TooBig {
            what: what.to_owned(),
            bytes,
        });
    }
    Ok(value.clone())
}

/// `from_json` for an optional member, the reason pushed to `withheld`.
pub fn member(json: Option<JsonRef<'_>>, what: &str, withheld: &mut Vec<String>) -> Option<Value> {
    match from_json(json?, what) {
        Ok(value) => Some(value),
        Err(why) => {
            withheld.push(why.to_string());
            None
        }
    }
}

/// `from_value` for an optional value, the reason pushed to `withheld`.
pub fn copy(value: Option<&Value>, what: &str, withheld: &mut Vec<String>) -> Option<Value> {
    match from_value(value?, what) {
        Ok(value) => Some(value),
        Err(why) => {
            withheld.push(why.to_string());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_and_big_values_are_withheld_with_a_reason() {
        let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
        let doc = crate::json_doc::JsonDoc::parse(deep).unwrap();
        let why = from_json(doc.root(), "structuredContent").unwrap_err();
        assert!(why.to_string().contains("deeper than 64"), "{why}");
        let big = format!("\"{}\"", "x".repeat(HANDED_BYTES + 1));
        let doc = crate::json_doc::JsonDoc::parse(big).unwrap();
        assert!(matches!(
            from_json(doc.root(), "content"),
            Err(Withheld::TooBig { .. })
        ));
        let small = crate::json_doc::JsonDoc::parse(r#"{"a":[1]}"#.to_owned()).unwrap();
        assert_eq!(
            from_json(small.root(), "x").unwrap(),
            serde_json::json!({"a":[1]})
        );
    }
}
