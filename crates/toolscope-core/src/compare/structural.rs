//! The structural diff of two JSON values read in place from their documents.
//!
//! - Objects are compared by key, key order ignored; a repeated key compares by its last value
//!   (every `JsonRef` reader sees each key once, as serde_json does).
//! - Arrays of the same length are compared by index. Arrays whose lengths differ are aligned
//!   first (Myers, `similar`) on their items' exact text, so one item inserted at the front is
//!   one added item, not every item changed; items the alignment pairs up are then compared
//!   structurally. The alignment shares one time budget per diff ([`ALIGNMENT_BUDGET`]); past it
//!   arrays are compared by index (trailing items added or removed), and an alignment cut short
//!   by it may pair items less well (still a correct diff, with more changes listed).
//! - Numbers compare by value as parsed, as the text mirror compares them: `1 == 1.0`, and
//!   integers exactly beyond `f64` precision. (A serde_json `Value` would call `1` and `1.0`
//!   different; a server switching between them is not a change in the data.) Strings compare
//!   by value (`"a"` == `"\u0061"`).
//! - Subtrees whose texts are byte-identical are skipped with one comparison of their text.
//! - The walk is iterative (a stack of frames on the heap): any nesting depth is safe.
//!
//! Changes are listed in document order (an object's keys in the old value's order, its keys
//! only in the new value after them), at most [`MAX_LISTED_CHANGES`] by default; all are
//! counted, and every changed node of either side is marked (see [`SideMarks`]).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::json_doc::{Items, JsonKind, JsonRef, KeyRef, Members};
use crate::json_pointer::push_token;
use crate::text_util::count_noun;

use super::align::aligned_steps;
use super::marks::{Mark, SideMarks, SideMarksBuilder};

/// How many changes a diff lists by default (all are counted).
pub const MAX_LISTED_CHANGES: usize = 10_000;
/// The longest preview of a value, in characters ("…" included).
pub const PREVIEW_CHARS: usize = 80;
/// Time one diff may spend aligning arrays whose lengths differ.
pub const ALIGNMENT_BUDGET: Duration = Duration::from_millis(250);

/// What happened to one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// Only in the new value.
    Added,
    /// Only in the old value.
    Removed,
    /// A scalar of the same kind with another value.
    Changed,
    /// Another kind of value (a string became a number, an object an array…).
    TypeChanged,
}

impl ChangeKind {
    pub fn label(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Changed => "changed",
            ChangeKind::TypeChanged => "type changed",
        }
    }
}

/// One side of a change: where the node is in its document and a short look at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSummary {
    /// Its tape id in its document ([`JsonRef::id`]; `JsonDoc::by_id` finds it again).
    pub id: u32,
    pub kind: JsonKind,
    /// The value's text on one line, at most [`PREVIEW_CHARS`] characters, read from the
    /// document (a 50 MB string previews as fast as a short one).
    pub preview: String,
}

impl NodeSummary {
    fn of(value: JsonRef<'_>) -> Self {
        Self {
            id: value.id(),
            kind: value.kind(),
            preview: value.one_line(PREVIEW_CHARS - 1),
        }
    }
}

/// One listed difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// RFC 6901 pointer from the compared root: into the new value, or into the old one for
    /// [`ChangeKind::Removed`].
    pub pointer: String,
    /// The pointer into the old value when it is another one (an item that an array alignment
    /// moved: `/items/3` now, `/items/2` before).
    pub old_pointer: Option<String>,
    pub kind: ChangeKind,
    /// The node in the old value (`None` when added).
    pub old: Option<NodeSummary>,
    /// The node in the new value (`None` when removed).
    pub new: Option<NodeSummary>,
}

impl Change {
    /// The pointer into the old value (the same as [`Self::pointer`] unless an item moved).
    pub fn old_pointer(&self) -> &str {
        self.old_pointer.as_deref().unwrap_or(&self.pointer)
    }

    /// One line for a list: `/a/b: changed 1 → 2`.
    pub fn describe(&self) -> String {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        match (&self.old, &self.new) {
            (Some(old), Some(new)) => {
                format!(
                    "{at}: {} {} → {}",
                    self.kind.label(),
                    old.preview,
                    new.preview
                )
            }
            (Some(one), None) | (None, Some(one)) => {
                format!("{at}: {} {}", self.kind.label(), one.preview)
            }
            (None, None) => format!("{at}: {}", self.kind.label()),
        }
    }
}

/// How many changes of each kind, listed or not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChangeCounts {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub type_changed: usize,
}

impl ChangeCounts {
    pub fn total(&self) -> usize {
        self.added + self.removed + self.changed + self.type_changed
    }

    fn count(&mut self, kind: ChangeKind) {
        match kind {
            ChangeKind::Added => self.added += 1,
            ChangeKind::Removed => self.removed += 1,
            ChangeKind::Changed => self.changed += 1,
            ChangeKind::TypeChanged => self.type_changed += 1,
        }
    }
}

/// The differences between two JSON values.
#[derive(Debug, Clone, Default)]
pub struct StructuralDiff {
    /// The first changes in document order (at most the cap the diff was made with).
    pub changes: Vec<Change>,
    /// All changes, listed or not.
    pub counts: ChangeCounts,
    /// What happened at each node of the old value (every change, listed or not).
    pub old_marks: SideMarks,
    /// What happened at each node of the new value.
    pub new_marks: SideMarks,
    /// Arrays of different lengths that were compared by index because the alignment budget
    /// was spent (or aligned with it running out).
    pub arrays_not_aligned: usize,
}

impl StructuralDiff {
    /// The diff of `old` and `new`, listing at most [`MAX_LISTED_CHANGES`] changes.
    pub fn compute(old: JsonRef<'_>, new: JsonRef<'_>) -> Self {
        Self::compute_capped(old, new, MAX_LISTED_CHANGES)
    }

    /// The diff of `old` and `new`, listing at most `max_listed` changes (all are counted).
    pub fn compute_capped(old: JsonRef<'_>, new: JsonRef<'_>, max_listed: usize) -> Self {
        Walker::new(max_listed).run(old, new)
    }

    /// The diff of two values either of which may be absent: both absent is no change, one
    /// absent is one change at the root (added or removed).
    pub fn compute_optional(old: Option<JsonRef<'_>>, new: Option<JsonRef<'_>>) -> Self {
        match (old, new) {
            (Some(old), Some(new)) => Self::compute(old, new),
            (None, None) => Self::default(),
            (old, new) => {
                let mut walker = Walker::new(MAX_LISTED_CHANGES);
                let kind = match old {
                    Some(_) => ChangeKind::Removed,
                    None => ChangeKind::Added,
                };
                walker.record(kind, Token::Root, old, new);
                walker.finish()
            }
        }
    }

    /// No difference at all.
    pub fn is_empty(&self) -> bool {
        self.counts.total() == 0
    }

    /// Changes counted but not listed.
    pub fn more(&self) -> usize {
        self.counts.total() - self.changes.len()
    }

    /// One sentence: "no differences", or "3 changes: 1 added, 2 changed", and how many are
    /// not listed.
    pub fn summary(&self) -> String {
        let counts = self.counts;
        if counts.total() == 0 {
            return "no differences".to_owned();
        }
        let parts: Vec<String> = [
            (counts.added, "added"),
            (counts.removed, "removed"),
            (counts.changed, "changed"),
            (counts.type_changed, "type changed"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, label)| format!("{n} {label}"))
        .collect();
        let mut line = format!(
            "{}: {}",
            count_noun(counts.total(), "change", "changes"),
            parts.join(", ")
        );
        if self.more() > 0 {
            line.push_str(&format!(
                "; the first {} are listed, and {} more",
                self.changes.len(),
                self.more()
            ));
        }
        if self.arrays_not_aligned > 0 {
            line.push_str(&format!(
                "; {} compared by index for lack of time to align them",
                count_noun(self.arrays_not_aligned, "array", "arrays")
            ));
        }
        line
    }
}

/// Where a child is in its parent, on each side.
#[derive(Clone, Copy)]
pub(super) enum Token<'d> {
    /// The compared root itself.
    Root,
    /// An object member: the same key on both sides.
    Key(KeyRef<'d>),
    /// An array item, at `old` in the old array and `new` in the new one.
    Index { old: usize, new: usize },
}

/// One thing to compare within a container pair.
pub(super) enum Step<'d> {
    Pair(Token<'d>, JsonRef<'d>, JsonRef<'d>),
    Removed(Token<'d>, JsonRef<'d>),
    Added(Token<'d>, JsonRef<'d>),
}

/// The children of a container pair still to compare.
enum Steps<'d> {
    /// Arrays by index; the longer one's tail is added or removed.
    ByIndex {
        old: Items<'d>,
        new: Items<'d>,
        index: usize,
    },
    /// Objects with the same keys in the same order.
    SameKeys { old: Members<'d>, new: Members<'d> },
    /// Anything else, planned when the frame was opened.
    Planned(std::vec::IntoIter<Step<'d>>),
}

impl<'d> Steps<'d> {
    fn next(&mut self) -> Option<Step<'d>> {
        match self {
            Steps::ByIndex { old, new, index } => {
                let at = *index;
                *index += 1;
                let token = Token::Index { old: at, new: at };
                match (old.next(), new.next()) {
                    (Some(o), Some(n)) => Some(Step::Pair(token, o, n)),
                    (Some(o), None) => Some(Step::Removed(token, o)),
                    (None, Some(n)) => Some(Step::Added(token, n)),
                    (None, None) => None,
                }
            }
            Steps::SameKeys { old, new } => {
                let ((key, o), (_, n)) = (old.next()?, new.next()?);
                Some(Step::Pair(Token::Key(key), o, n))
            }
            Steps::Planned(steps) => steps.next(),
        }
    }
}

/// A container pair being compared.
struct Frame<'d> {
    old: JsonRef<'d>,
    new: JsonRef<'d>,
    steps: Steps<'d>,
    /// The path lengths to go back to when this frame closes.
    old_path_before: usize,
    new_path_before: usize,
    /// Something below it changed.
    changed: bool,
}

/// What comparing a pair found.
enum Outcome {
    Equal,
    Different(ChangeKind),
    Descend,
}

struct Walker<'d> {
    max_listed: usize,
    changes: Vec<Change>,
    counts: ChangeCounts,
    old_marks: SideMarksBuilder,
    new_marks: SideMarksBuilder,
    /// Pointers of the current frame on each side (they differ only below an aligned array).
    old_path: String,
    new_path: String,
    stack: Vec<Frame<'d>>,
    alignment_deadline: Instant,
    arrays_not_aligned: usize,
}

impl<'d> Walker<'d> {
    fn new(max_listed: usize) -> Self {
        Self {
            max_listed,
            changes: Vec::new(),
            counts: ChangeCounts::default(),
            old_marks: SideMarksBuilder::default(),
            new_marks: SideMarksBuilder::default(),
            old_path: String::new(),
            new_path: String::new(),
            stack: Vec::new(),
            alignment_deadline: Instant::now() + ALIGNMENT_BUDGET,
            arrays_not_aligned: 0,
        }
    }

    fn run(mut self, old: JsonRef<'d>, new: JsonRef<'d>) -> StructuralDiff {
        self.pair(Token::Root, old, new);
        while let Some(frame) = self.stack.last_mut() {
            match frame.steps.next() {
                Some(Step::Pair(token, o, n)) => self.pair(token, o, n),
                Some(Step::Removed(token, o)) => {
                    self.record(ChangeKind::Removed, token, Some(o), None);
                }
                Some(Step::Added(token, n)) => self.record(ChangeKind::Added, token, None, Some(n)),
                None => self.close_frame(),
            }
        }
        self.finish()
    }

    fn finish(self) -> StructuralDiff {
        StructuralDiff {
            changes: self.changes,
            counts: self.counts,
            old_marks: self.old_marks.build(),
            new_marks: self.new_marks.build(),
            arrays_not_aligned: self.arrays_not_aligned,
        }
    }

    fn close_frame(&mut self) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        self.old_path.truncate(frame.old_path_before);
        self.new_path.truncate(frame.new_path_before);
        if frame.changed {
            self.old_marks
                .mark(frame.old.id(), Mark::ChangesInside, None);
            self.new_marks
                .mark(frame.new.id(), Mark::ChangesInside, None);
            if let Some(parent) = self.stack.last_mut() {
                parent.changed = true;
            }
        }
    }

    fn pair(&mut self, token: Token<'d>, old: JsonRef<'d>, new: JsonRef<'d>) {
        match compare(old, new) {
            Outcome::Equal => {}
            Outcome::Different(kind) => self.record(kind, token, Some(old), Some(new)),
            Outcome::Descend => {
                let steps = self.steps(old, new);
                let (old_path_before, new_path_before) = (self.old_path.len(), self.new_path.len());
                push_path(&mut self.old_path, token, Side::Old);
                push_path(&mut self.new_path, token, Side::New);
                self.stack.push(Frame {
                    old,
                    new,
                    steps,
                    old_path_before,
                    new_path_before,
                    changed: false,
                });
            }
        }
    }

    /// Plans the comparison of two containers of the same kind.
    fn steps(&mut self, old: JsonRef<'d>, new: JsonRef<'d>) -> Steps<'d> {
        if old.is_object() {
            return object_steps(old, new);
        }
        let (old_len, new_len) = (old.len(), new.len());
        if old_len != new_len {
            if Instant::now() < self.alignment_deadline {
                let (steps, in_time) = aligned_steps(old, new, self.alignment_deadline);
                if !in_time {
                    self.arrays_not_aligned += 1;
                }
                return Steps::Planned(steps.into_iter());
            }
            self.arrays_not_aligned += 1;
        }
        Steps::ByIndex {
            old: old.items(),
            new: new.items(),
            index: 0,
        }
    }

    /// Counts and marks a change at `token` under the current frame, and lists it while
    /// there is room.
    fn record(
        &mut self,
        kind: ChangeKind,
        token: Token<'d>,
        old: Option<JsonRef<'d>>,
        new: Option<JsonRef<'d>>,
    ) {
        self.counts.count(kind);
        let listed = (self.changes.len() < self.max_listed).then(|| {
            let index = self.changes.len();
            let mut old_pointer = self.old_path.clone();
            push_path(&mut old_pointer, token, Side::Old);
            let pointer = if new.is_some() {
                let mut pointer = self.new_path.clone();
                push_path(&mut pointer, token, Side::New);
                pointer
            } else {
                std::mem::take(&mut old_pointer)
            };
            let old_pointer =
                (old.is_some() && new.is_some() && old_pointer != pointer).then_some(old_pointer);
            self.changes.push(Change {
                pointer,
                old_pointer,
                kind,
                old: old.map(NodeSummary::of),
                new: new.map(NodeSummary::of),
            });
            index
        });
        if let Some(old) = old {
            self.old_marks.mark(old.id(), Mark::Change(kind), listed);
        }
        if let Some(new) = new {
            self.new_marks.mark(new.id(), Mark::Change(kind), listed);
        }
        if let Some(frame) = self.stack.last_mut() {
            frame.changed = true;
        }
    }
}

#[derive(Clone, Copy)]
enum Side {
    Old,
    New,
}

/// Appends `token`'s reference token on `side` to `path`.
fn push_path(path: &mut String, token: Token<'_>, side: Side) {
    match token {
        Token::Root => {}
        Token::Key(key) => push_token(path, &key.text()),
        Token::Index { old, new } => {
            let index = match side {
                Side::Old => old,
                Side::New => new,
            };
            let _ = write!(path, "/{index}");
        }
    }
}

/// Compares two values without descending: equal, different (how), or containers of the same
/// kind to compare child by child.
fn compare(old: JsonRef<'_>, new: JsonRef<'_>) -> Outcome {
    let (old_raw, new_raw) = (old.raw(), new.raw());
    if old_raw == new_raw {
        return Outcome::Equal;
    }
    let kind = old.kind();
    if kind != new.kind() {
        return Outcome::Different(ChangeKind::TypeChanged);
    }
    let equal = match kind {
        JsonKind::Object | JsonKind::Array => return Outcome::Descend,
        JsonKind::Null => true,
        JsonKind::Bool => old.as_bool() == new.as_bool(),
        JsonKind::Number => match (old.as_number(), new.as_number()) {
            (Some(a), Some(b)) => crate::analysis::numbers_equal(&a, &b),
            _ => false,
        },
        // Unescaped strings with different texts differ; escapes need reading.
        JsonKind::String => match (old.as_plain_str(), new.as_plain_str()) {
            (Some(_), Some(_)) => false,
            _ => old.as_str() == new.as_str(),
        },
    };
    if equal {
        Outcome::Equal
    } else {
        Outcome::Different(ChangeKind::Changed)
    }
}

/// Objects with the same keys in the same order are walked side by side; otherwise each old
/// key is looked up in the new object.
fn object_steps<'d>(old: JsonRef<'d>, new: JsonRef<'d>) -> Steps<'d> {
    let same_order = old.len() == new.len()
        && old
            .members()
            .zip(new.members())
            .all(|((a, _), (b, _))| a.text() == b.text());
    if same_order {
        return Steps::SameKeys {
            old: old.members(),
            new: new.members(),
        };
    }
    let news: Vec<(KeyRef<'d>, JsonRef<'d>)> = new.members().collect();
    let index: std::collections::HashMap<std::borrow::Cow<'d, str>, usize> = news
        .iter()
        .enumerate()
        .map(|(at, (key, _))| (key.text(), at))
        .collect();
    let mut matched = vec![false; news.len()];
    let mut steps = Vec::with_capacity(news.len().max(old.len()));
    for (key, value) in old.members() {
        match index.get(&key.text()) {
            Some(&at) => {
                matched[at] = true;
                steps.push(Step::Pair(Token::Key(key), value, news[at].1));
            }
            None => steps.push(Step::Removed(Token::Key(key), value)),
        }
    }
    for ((key, value), matched) in news.into_iter().zip(matched) {
        if !matched {
            steps.push(Step::Added(Token::Key(key), value));
        }
    }
    Steps::Planned(steps.into_iter())
}
