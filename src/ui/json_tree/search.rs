//! Case-insensitive search over keys and scalar values.

use super::index::{JsonIndex, KeyRef};
use toolscope_core::json_doc::{JsonKind, JsonRef};

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
/// Each node is read in place in the document (no lookup from the root), so the whole
/// search is one pass. Array indices are not matched: "1" would otherwise light up every
/// tenth row. Numbers match as the server wrote them.
pub(super) fn find_matches(index: &JsonIndex, root: JsonRef<'_>, matcher: &Matcher) -> Vec<u32> {
    let mut matches = Vec::new();
    let mut stack: Vec<u32> = vec![0];
    while let Some(node) = stack.pop() {
        let key_hit = matches!(index.key(node), KeyRef::Name(k) if matcher.matches(k));
        let value_hit = index
            .resolve(root, node)
            .is_some_and(|value| match value.kind() {
                JsonKind::String => value.as_str().is_some_and(|s| matcher.matches(&s)),
                JsonKind::Number | JsonKind::Bool | JsonKind::Null => matcher.matches(value.raw()),
                JsonKind::Object | JsonKind::Array => false,
            });
        if key_hit || value_hit {
            matches.push(node);
        }
        stack.extend(index.children(node).rev());
    }
    matches
}
