//! Server-sent values of any depth in the analysis: what is copied into the report, and how
//! deep the contract check goes. Everything else in `analysis/` walks values iteratively or
//! only looks at their top level.

use serde_json::Value;

use crate::deep_json::{self, SHOWN_DEPTH};

/// Deepest structuredContent (or output schema) validated against a schema: `jsonschema`
/// recurses once per level of both, and must not overflow a 2 MiB worker stack.
pub const MAX_VALIDATED_DEPTH: usize = 128;

/// A copy of `value` for the report, or `None` when it nests deeper than [`SHOWN_DEPTH`]
/// (`Value`'s clone, drop and printing recurse once per level).
pub(crate) fn bounded_copy(value: &Value) -> Option<Value> {
    (!deeper_than(value, SHOWN_DEPTH)).then(|| value.clone())
}

/// Whether `value` nests more than `limit` levels (`[]` is 1 level). Iterative, and stops at
/// the first path past the limit; memory is O(limit), not O(size).
pub fn deeper_than(value: &Value, limit: usize) -> bool {
    let mut open: Vec<Children<'_>> = Vec::new();
    open.extend(Children::of(value));
    while !open.is_empty() {
        if open.len() > limit {
            return true;
        }
        let next = open.last_mut().and_then(Children::next);
        match next {
            Some(child) => open.extend(Children::of(child)),
            None => {
                open.pop();
            }
        }
    }
    false
}

enum Children<'a> {
    Array(std::slice::Iter<'a, Value>),
    Object(serde_json::map::Values<'a>),
}

impl<'a> Children<'a> {
    fn of(value: &'a Value) -> Option<Self> {
        match value {
            Value::Array(items) => Some(Children::Array(items.iter())),
            Value::Object(map) => Some(Children::Object(map.values())),
            _ => None,
        }
    }

    fn next(&mut self) -> Option<&'a Value> {
        match self {
            Children::Array(items) => items.next(),
            Children::Object(values) => values.next(),
        }
    }
}

/// Compact JSON of `value` for a one-line message, clipped to `max_chars`, at any depth. Stops
/// writing soon after `max_chars`, so a huge value costs no more than a small one.
pub(crate) fn one_line(value: &Value, max_chars: usize) -> String {
    // A character is at most 4 bytes; one more tells that something was cut.
    let mut head = deep_json::Head::new(max_chars.saturating_add(1).saturating_mul(4));
    // The writer refuses bytes past its limit: an error here only means "cut".
    let _ = deep_json::write(value, &mut head, false);
    crate::text_util::clip_chars(&head.into_text(), max_chars)
}

/// The note for a value that was not copied into the report.
pub(crate) fn too_deep_note(what: &str) -> String {
    format!(
        "{what} is nested deeper than {SHOWN_DEPTH} levels; it is not copied into this report \
         (the raw response has it whole)"
    )
}
