//! Comparing two call results, egui-free: the structural diff of two JSON values read in place
//! from their documents (`structural`), with per-node marks for two trees (`marks`), the line
//! diff of two texts (`text_lines`), and the comparison of two whole calls (`call_comparison`).
//! Everything here is a pure function; a window runs it off its thread.

mod align;
mod call_comparison;
mod marks;
mod structural;
mod text_lines;

#[cfg(test)]
mod tests;

pub use call_comparison::{CallComparison, CallContext, CallSide};
pub use marks::{Mark, SideMarks};
pub use structural::{
    ALIGNMENT_BUDGET, Change, ChangeCounts, ChangeKind, MAX_LISTED_CHANGES, NodeSummary,
    PREVIEW_CHARS, StructuralDiff,
};
pub use text_lines::{
    CONTEXT_LINES, DiffLine, Hunk, LARGE_TEXT_BYTES, LARGE_TEXT_TIMEOUT, LineDiff, LineTag,
    MAX_LINE_CHARS, MAX_LISTED_LINES,
};
