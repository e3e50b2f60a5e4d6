//! Case-insensitive search over keys and scalar values.

use std::fmt::Write as _;

use serde_json::Value;

use super::index::{JsonIndex, KeyRef};

/// A lower-cased query, with a fast path for ASCII queries.
#[derive(Debug)]
pub(super) struct Matcher {
    needle: String,
    ascii: bool,
}

impl Matcher {
    /// `None` for an empty query, which matches nothing (no highlighting).
    pub(super) fn new(query: &str) -> Option<Self> {
        if query.is_empty() {
            return None;
        }
        Some(Self {
            needle: query.to_lowercase(),
            ascii: query.is_ascii(),
        })
    }

    pub(super) fn matches(&self, haystack: &str) -> bool {
        if self.ascii {
            // ASCII bytes never occur inside multi-byte UTF-8 sequences, so a byte
            // search is exact and avoids allocating a lower-cased copy per node.
            let needle = self.needle.as_bytes();
            haystack.len() >= needle.len()
                && haystack
                    .as_bytes()
                    .windows(needle.len())
                    .any(|w| w.eq_ignore_ascii_case(needle))
        } else {
            haystack.to_lowercase().contains(&self.needle)
        }
    }
}

/// All matching nodes in display (depth-first, pre-order) order, so that
/// next/previous navigation goes top to bottom.
///
/// Walks the index and the value side by side instead of resolving each node,
/// so the whole search is one pass. Array indices are not matched: "1" would
/// otherwise light up every tenth row.
pub(super) fn find_matches(index: &JsonIndex, root: &Value, matcher: &Matcher) -> Vec<u32> {
    let mut matches = Vec::new();
    let mut number_buf = String::new();
    let mut stack: Vec<(u32, &Value)> = vec![(0, root)];

    while let Some((node, value)) = stack.pop() {
        let key_hit = matches!(index.key(node), KeyRef::Name(k) if matcher.matches(k));
        let value_hit = match value {
            Value::String(s) => matcher.matches(s),
            Value::Number(n) => {
                number_buf.clear();
                let _ = write!(number_buf, "{n}");
                matcher.matches(&number_buf)
            }
            Value::Bool(b) => matcher.matches(if *b { "true" } else { "false" }),
            Value::Null => matcher.matches("null"),
            Value::Object(_) | Value::Array(_) => false,
        };
        if key_hit || value_hit {
            matches.push(node);
        }

        let children = index.children(node);
        // Guards against a value that does not match the index (same generation
        // passed with a different value): never step outside the child range.
        let child_at = |i: usize| {
            let c = children.start.checked_add(u32::try_from(i).ok()?)?;
            children.contains(&c).then_some(c)
        };
        match value {
            Value::Array(items) => stack.extend(
                items
                    .iter()
                    .enumerate()
                    .rev()
                    .filter_map(|(i, v)| Some((child_at(i)?, v))),
            ),
            Value::Object(map) => stack.extend(
                map.values()
                    .enumerate()
                    .rev()
                    .filter_map(|(i, v)| Some((child_at(i)?, v))),
            ),
            _ => {}
        }
    }
    matches
}
