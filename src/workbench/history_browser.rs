//! The history as the window browses it: the calls a query found (newest first), the one
//! selected, and that call made into a record the result area shows as it was. Model state:
//! changed only by the model's actions and events.

use std::sync::Arc;

use toolscope_core::history::{CallQuery, StoredCall};

use super::CallRecord;

/// The most calls one query lists (the panel scrolls through them all).
pub const MAX_LISTED: usize = 100_000;

#[derive(Debug, Default)]
pub struct HistoryBrowser {
    /// What is listed (server, tool, verdict, text).
    pub query: CallQuery,
    /// Newest first, without their big texts.
    pub calls: Vec<StoredCall>,
    /// A query was sent and its answer has not come.
    pub loading: bool,
    /// The tag of the newest list request: an older answer is dropped.
    pub(super) list_tag: u64,
    pub selected: Option<i64>,
    /// The selected call, read whole.
    pub entry: Option<StoredCall>,
    /// The selected call's result, analysed again, as the panes draw it.
    pub shown: Option<Arc<CallRecord>>,
    /// The selected read or prompt, as the Resources and Prompts tabs draw one.
    pub shown_feature: Option<Arc<super::feature_record::FeatureRecord>>,
    /// Why the selected call cannot be shown (it got no answer, or its text is damaged).
    pub problem: Option<String>,
    /// Calls marked in the list (for Compare, Report and Export), in the order marked.
    pub marked: Vec<i64>,
    /// The list is shown grouped by tool, with each tool's figures (`groups`, once known).
    pub grouped: bool,
    pub groups: Option<Vec<toolscope_core::history::ToolLatency>>,
    /// The calls listed are a team's (each row says who recorded it).
    pub shared: bool,
}

impl HistoryBrowser {
    /// The query as sent to the store (with the list's limit).
    pub(super) fn request(&self) -> CallQuery {
        CallQuery {
            limit: Some(MAX_LISTED),
            before_id: None,
            ..self.query.clone()
        }
    }

    /// Forgets the selected call (a new selection, or a query that no longer lists it).
    pub(super) fn clear_selection(&mut self) {
        self.selected = None;
        self.entry = None;
        self.shown = None;
        self.shown_feature = None;
        self.problem = None;
    }
}
