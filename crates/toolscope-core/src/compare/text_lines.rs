//! A line diff of two texts (`similar`, Myers), as hunks with context and line numbers on both
//! sides. Big texts are compared with a deadline and huge diffs are listed in part: the counts
//! always cover everything that was compared.

use std::time::{Duration, Instant};

use similar::{ChangeTag, TextDiff};

use crate::text_util::count_noun;

/// Unchanged lines shown around each change.
pub const CONTEXT_LINES: usize = 3;
/// Lines listed in hunks at most (changed and context); later hunks are counted only.
pub const MAX_LISTED_LINES: usize = 10_000;
/// A listed line is cut to this many characters (a 20 MB one-line JSON text is one line).
pub const MAX_LINE_CHARS: usize = 1_000;
/// Texts together larger than this are compared with [`LARGE_TEXT_TIMEOUT`].
pub const LARGE_TEXT_BYTES: usize = 4 * 1024 * 1024;
/// How long the line diff of big texts may take; past it `similar` settles for a diff that is
/// correct but may not be the shortest.
pub const LARGE_TEXT_TIMEOUT: Duration = Duration::from_secs(1);

/// Which side a line is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineTag {
    Unchanged,
    Inserted,
    Deleted,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub tag: LineTag,
    /// 1-based line number in the old text (`None` for an inserted line).
    pub old_line: Option<usize>,
    /// 1-based line number in the new text (`None` for a deleted line).
    pub new_line: Option<usize>,
    /// The line without its line ending, at most [`MAX_LINE_CHARS`] characters.
    pub text: String,
    /// The line was longer and `text` is its start.
    pub clipped: bool,
    /// The text ends with this line and no line ending (which makes it differ from the same
    /// line with one).
    pub missing_newline: bool,
}

/// Changed lines with their context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// 1-based number of the hunk's first line in the old text (where it would be, when the
    /// hunk has no old line), and how many old lines it spans.
    pub old_start: usize,
    pub old_len: usize,
    pub new_start: usize,
    pub new_len: usize,
    pub lines: Vec<DiffLine>,
}

impl Hunk {
    /// `@@ -3,4 +3,5 @@`, as a unified diff heads a hunk.
    pub fn header(&self) -> String {
        format!(
            "@@ -{},{} +{},{} @@",
            self.old_start, self.old_len, self.new_start, self.new_len
        )
    }
}

/// The line diff of two texts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineDiff {
    /// The first hunks, with at most [`MAX_LISTED_LINES`] lines in all.
    pub hunks: Vec<Hunk>,
    /// Lines of the hunks (changed and context) not listed: the end of the hunk the cap fell
    /// in and every later hunk.
    pub unlisted_lines: usize,
    /// Lines inserted and deleted in the whole diff, listed or not.
    pub inserted: usize,
    pub deleted: usize,
    pub old_lines: usize,
    pub new_lines: usize,
    /// The texts were big and the diff ran out of its time ([`LARGE_TEXT_TIMEOUT`]): it is
    /// correct but may mark more lines than the shortest diff would.
    pub timed_out: Option<Duration>,
}

impl LineDiff {
    /// The line diff of `old` and `new`.
    pub fn compute(old: &str, new: &str) -> Self {
        let old_lines = line_count(old);
        let new_lines = line_count(new);
        if old == new {
            return Self {
                old_lines,
                new_lines,
                ..Self::default()
            };
        }
        let timeout = (old.len() + new.len() > LARGE_TEXT_BYTES).then_some(LARGE_TEXT_TIMEOUT);
        let started = Instant::now();
        let mut config = TextDiff::configure();
        if let Some(timeout) = timeout {
            config.timeout(timeout);
        }
        let diff = config.diff_lines(old, new);
        let timed_out = timeout.filter(|&timeout| started.elapsed() >= timeout);

        let (mut inserted, mut deleted) = (0, 0);
        for op in diff.ops() {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            match tag {
                similar::DiffTag::Equal => {}
                similar::DiffTag::Delete => deleted += old_range.len(),
                similar::DiffTag::Insert => inserted += new_range.len(),
                similar::DiffTag::Replace => {
                    deleted += old_range.len();
                    inserted += new_range.len();
                }
            }
        }

        let mut hunks = Vec::new();
        let mut unlisted_lines = 0;
        let mut listed_lines = 0;
        for group in diff.grouped_ops(CONTEXT_LINES) {
            let (Some(first), Some(last)) = (group.first(), group.last()) else {
                continue;
            };
            let old_range = first.old_range().start..last.old_range().end;
            let new_range = first.new_range().start..last.new_range().end;
            let span: usize = group.iter().map(op_lines).sum();
            let room = MAX_LISTED_LINES - listed_lines;
            if room == 0 {
                unlisted_lines += span;
                continue;
            }
            let lines: Vec<DiffLine> = group
                .iter()
                .flat_map(|op| diff.iter_changes(op))
                .take(room)
                .map(|change| diff_line(&change))
                .collect();
            listed_lines += lines.len();
            unlisted_lines += span - lines.len();
            hunks.push(Hunk {
                old_start: old_range.start + 1,
                old_len: old_range.len(),
                new_start: new_range.start + 1,
                new_len: new_range.len(),
                lines,
            });
        }
        Self {
            hunks,
            unlisted_lines,
            inserted,
            deleted,
            old_lines,
            new_lines,
            timed_out,
        }
    }

    /// The texts are the same.
    pub fn is_identical(&self) -> bool {
        self.inserted == 0 && self.deleted == 0
    }

    /// Lines listed in hunks.
    pub fn listed_lines(&self) -> usize {
        self.hunks.iter().map(|hunk| hunk.lines.len()).sum()
    }

    /// One sentence: "the texts are the same", or what changed, with what is not listed and
    /// whether the deadline cut the diff short.
    pub fn summary(&self) -> String {
        if self.is_identical() {
            return "the texts are the same".to_owned();
        }
        let mut line = format!(
            "{} inserted, {} deleted (of {} → {})",
            count_noun(self.inserted, "line", "lines"),
            self.deleted,
            self.old_lines,
            self.new_lines
        );
        if self.unlisted_lines > 0 {
            line.push_str(&format!(
                "; the first {} lines are listed, {} more are not",
                self.listed_lines(),
                self.unlisted_lines
            ));
        }
        if let Some(timeout) = self.timed_out {
            line.push_str(&format!(
                "; the texts are big and were compared within {} s, so the diff may mark more \
                 lines than needed",
                timeout.as_secs_f64()
            ));
        }
        line
    }
}

/// Lines an op shows in a hunk (a replacement shows both sides).
fn op_lines(op: &similar::DiffOp) -> usize {
    let (tag, old, new) = op.as_tag_tuple();
    match tag {
        similar::DiffTag::Insert => new.len(),
        similar::DiffTag::Equal | similar::DiffTag::Delete => old.len(),
        similar::DiffTag::Replace => old.len() + new.len(),
    }
}

fn line_count(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    text.bytes().filter(|&b| b == b'\n').count() + usize::from(!text.ends_with('\n'))
}

fn diff_line(change: &similar::Change<&str>) -> DiffLine {
    let value = change.value();
    let bare = value
        .strip_suffix('\n')
        .map_or(value, |rest| rest.strip_suffix('\r').unwrap_or(rest));
    let (text, clipped) = match bare.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => (bare[..at].to_owned(), true),
        None => (bare.to_owned(), false),
    };
    DiffLine {
        tag: match change.tag() {
            ChangeTag::Equal => LineTag::Unchanged,
            ChangeTag::Insert => LineTag::Inserted,
            ChangeTag::Delete => LineTag::Deleted,
        },
        old_line: change.old_index().map(|at| at + 1),
        new_line: change.new_index().map(|at| at + 1),
        text,
        clipped,
        missing_newline: change.missing_newline(),
    }
}
