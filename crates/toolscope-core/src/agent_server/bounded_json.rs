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

/// `json` as a value, or why it is withheld (`what` names it in the sentence).
pub fn from_json(json: JsonRef<'_>, what: &str) -> Result<Value, String> {
    let bytes = json.raw().len();
    if bytes > HANDED_BYTES {
        return Err(too_big(what, bytes));
    }
    if json.depth() > HANDED_DEPTH {
        return Err(too_deep(what));
    }
    Ok(json.to_value())
}

/// A copy of `value`, or why it is withheld.
pub fn from_value(value: &Value, what: &str) -> Result<Value, String> {
    if deeper_than(value, HANDED_DEPTH) {
        return Err(too_deep(what));
    }
    let bytes = serde_json::to_string(value).map_or(0, |text| text.len());
    if bytes > HANDED_BYTES {
        return Err(too_big(what, bytes));
    }
    Ok(value.clone())
}

/// `from_json` for an optional member, the reason pushed to `withheld`.
pub fn member(json: Option<JsonRef<'_>>, what: &str, withheld: &mut Vec<String>) -> Option<Value> {
    match from_json(json?, what) {
        Ok(value) => Some(value),
        Err(why) => {
            withheld.push(why);
            None
        }
    }
}

/// `from_value` for an optional value, the reason pushed to `withheld`.
pub fn copy(value: Option<&Value>, what: &str, withheld: &mut Vec<String>) -> Option<Value> {
    match from_value(value?, what) {
        Ok(value) => Some(value),
        Err(why) => {
            withheld.push(why);
            None
        }
    }
}

fn too_big(what: &str, bytes: usize) -> String {
    format!(
        "{what} is {bytes} bytes, more than the {HANDED_BYTES} handed back here; the history \
         keeps it whole (`toolscope history show ID` in a terminal, or the window)"
    )
}

fn too_deep(what: &str) -> String {
    format!(
        "{what} nests deeper than {HANDED_DEPTH} levels and is not handed back here; the \
         history keeps it whole (`toolscope history show ID`, or the window)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_and_big_values_are_withheld_with_a_reason() {
        let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
        let doc = crate::json_doc::JsonDoc::parse(deep).unwrap();
        let why = from_json(doc.root(), "structuredContent").unwrap_err();
        assert!(why.contains("deeper than 64"), "{why}");
        let big = format!("\"{}\"", "x".repeat(HANDED_BYTES + 1));
        let doc = crate::json_doc::JsonDoc::parse(big).unwrap();
        assert!(
            from_json(doc.root(), "content")
                .unwrap_err()
                .contains("bytes")
        );
        let small = crate::json_doc::JsonDoc::parse(r#"{"a":[1]}"#.to_owned()).unwrap();
        assert_eq!(
            from_json(small.root(), "x").unwrap(),
            serde_json::json!({"a":[1]})
        );
    }
}
