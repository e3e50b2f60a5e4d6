//! The history as the window browses it: the calls a query found (newest first), the one
//! selected, and that call made into a record the result area shows as it was. Model state:
//! changed only by the model's actions and events.

use std::sync::Arc;

use toolscope_core::history::{CallQuery, StoredCall};

use super::CallRecord;

/// The most calls one query lists (the panel scrolls through them all).
pub const MAX_LISTED: usize = 100_000;

/// While calls arrive, the list is brought up to date with only the newer ones, and listed
/// whole again at least this often: a team's history may commit a lower id after a higher.
pub const FULL_LIST_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

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
    /// When the list was last listed whole.
    pub(super) listed_at: Option<std::time::Instant>,
    /// The tag of a request for the calls newer than the list's newest (merged, not replaced).
    pub(super) newer_tag: Option<u64>,
}

impl HistoryBrowser {
    /// The query as sent to the store (with the list's limit).
    pub(super) fn request(&self) -> CallQuery {
        CallQuery {
            limit: Some(MAX_LISTED),
            before_id: None,
            after_id: None,
            ..self.query.clone()
        }
    }

    /// The query for the calls newer than those listed, when the list may be brought up to
    /// date that way (listed whole lately, not grouped, nothing on its way).
    pub(super) fn newer_request(&self) -> Option<CallQuery> {
        let newest = self.calls.first()?.id;
        let lately = self
            .listed_at
            .is_some_and(|at| at.elapsed() < FULL_LIST_EVERY);
        (lately && !self.grouped && !self.loading).then(|| CallQuery {
            after_id: Some(newest),
            ..self.request()
        })
    }

    /// The answer to a request: the newer calls put in front (the oldest let go past the
    /// limit), or the list replaced. Returns what is let go.
    pub(super) fn listed(&mut self, tag: u64, mut calls: Vec<StoredCall>) -> Vec<StoredCall> {
        self.loading = false;
        if self.newer_tag.take() == Some(tag) {
            calls.append(&mut self.calls);
            let gone = calls.split_off(calls.len().min(MAX_LISTED));
            self.calls = calls;
            return gone;
        }
        self.listed_at = Some(std::time::Instant::now());
        std::mem::replace(&mut self.calls, calls)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls 1..=4 as a history lists them.
    fn stored() -> Vec<StoredCall> {
        use toolscope_core::history::{CallKind, CalledServer};
        let mut store = toolscope_core::history::in_memory_store().unwrap();
        for _ in 0..4 {
            let row = CalledServer {
                label: "demo",
                summary: None,
            }
            .row(CallKind::Call, "add", &serde_json::json!({}));
            store.record(&row).unwrap();
        }
        let mut calls = store.list(&CallQuery::default()).unwrap();
        calls.reverse();
        calls
    }

    #[test]
    fn newer_calls_go_in_front_and_a_whole_list_replaces() {
        let mut calls = stored().into_iter();
        let mut next = || calls.next().unwrap();
        let (one, two, three, four) = (next(), next(), next(), next());
        let mut browser = HistoryBrowser::default();
        assert!(browser.newer_request().is_none(), "nothing listed yet");
        browser.listed(1, vec![two, one.clone()]);
        let newer = browser.newer_request().expect("listed whole just now");
        assert_eq!(newer.after_id, Some(2));
        browser.newer_tag = Some(2);
        browser.listed(2, vec![four, three]);
        let ids: Vec<i64> = browser.calls.iter().map(|call| call.id).collect();
        assert_eq!(ids, [4, 3, 2, 1]);
        browser.listed(3, vec![one]);
        assert_eq!(browser.calls.len(), 1, "a whole list replaces");
        browser.grouped = true;
        assert!(browser.newer_request().is_none(), "groups are listed whole");
    }
}
