//! Two results compared, as the window shows them: each side's record (drawn as any result
//! is), what it is (a history call or a tool's live result), and the comparison. Model state.

use std::sync::Arc;

use super::{CallRecord, ToolKey};
use toolscope_core::{compare::CallComparison, history::Verdict};

/// One side of a comparison, as asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompareSide {
    /// A call kept in the history.
    History(i64),
    /// A tool's result on screen now.
    Live(ToolKey),
}

/// One side, made ready.
#[derive(Debug)]
pub struct ComparedCall {
    /// "#12 · add · 18:08:47" or "add · live result".
    pub label: String,
    /// The server that answered: its name and version.
    pub server: Option<String>,
    pub verdict: Verdict,
    /// `None` when the call got no answer (then `problem` says why).
    pub record: Option<Arc<CallRecord>>,
    pub problem: Option<String>,
}

#[derive(Debug)]
pub struct ComparisonView {
    pub old: ComparedCall,
    pub new: ComparedCall,
    pub comparison: CallComparison,
}

/// The comparison the window shows, from asking to done.
#[derive(Debug, Default)]
pub enum ComparisonState {
    #[default]
    None,
    /// Reading and comparing (off the UI thread).
    Preparing {
        tag: u64,
    },
    Ready(Arc<ComparisonView>),
    Failed(String),
}

impl ComparisonState {
    pub fn is_shown(&self) -> bool {
        !matches!(self, ComparisonState::None)
    }
}
