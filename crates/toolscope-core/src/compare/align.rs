//! The alignment of two arrays of different lengths (Myers, `similar`) on their items' exact
//! text: identical items are skipped, the rest paired up, added or removed, so one item
//! inserted at the front is one addition rather than every item changed.

use std::time::Instant;

use similar::{Algorithm, DiffOp};

use crate::json_doc::JsonRef;

use super::structural::{Step, Token};

/// An item's text as an alignment key: equal when the texts are identical; hashed on its
/// length and ends only, so hashing a big item costs nothing.
struct ItemText<'d>(&'d str);

impl PartialEq for ItemText<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for ItemText<'_> {}

impl std::hash::Hash for ItemText<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        const ENDS: usize = 32;
        let bytes = self.0.as_bytes();
        bytes.len().hash(state);
        bytes[..bytes.len().min(ENDS)].hash(state);
        bytes[bytes.len().saturating_sub(ENDS)..].hash(state);
    }
}

/// Two arrays aligned on their items' texts: identical items skipped, the rest paired up,
/// added or removed. Also says whether it finished before `deadline`.
pub(super) fn aligned_steps<'d>(
    old: JsonRef<'d>,
    new: JsonRef<'d>,
    deadline: Instant,
) -> (Vec<Step<'d>>, bool) {
    let olds: Vec<JsonRef<'d>> = old.items().collect();
    let news: Vec<JsonRef<'d>> = new.items().collect();
    let old_texts: Vec<ItemText<'d>> = olds.iter().map(|item| ItemText(item.raw())).collect();
    let new_texts: Vec<ItemText<'d>> = news.iter().map(|item| ItemText(item.raw())).collect();
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &old_texts,
        &new_texts,
        Some(deadline),
    );
    let in_time = Instant::now() < deadline;
    let mut steps = Vec::new();
    let token = |old, new| Token::Index { old, new };
    for op in ops {
        let (old_range, new_range) = match op {
            // Identical texts: nothing to compare.
            DiffOp::Equal { .. } => continue,
            other => (other.old_range(), other.new_range()),
        };
        let paired = old_range.len().min(new_range.len());
        for k in 0..paired {
            let (o, n) = (old_range.start + k, new_range.start + k);
            steps.push(Step::Pair(token(o, n), olds[o], news[n]));
        }
        let removed = old_range.start + paired..old_range.end;
        steps.extend(
            removed
                .clone()
                .zip(&olds[removed])
                .map(|(o, &item)| Step::Removed(token(o, new_range.end), item)),
        );
        let added = new_range.start + paired..new_range.end;
        steps.extend(
            added
                .clone()
                .zip(&news[added])
                .map(|(n, &item)| Step::Added(token(old_range.end, n), item)),
        );
    }
    (steps, in_time)
}
