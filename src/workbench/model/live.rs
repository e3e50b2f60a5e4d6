//! The model's side of the Live tab: watch the proxied sessions, pick one, read the part of
//! its log the view shows.

use std::ops::Range;

use super::{HistoryStatus, Model};
use crate::workbench::live_sessions::{LIVE_SESSIONS, LogPage, SessionComparison};
use toolscope_core::history::{ChangeStamp, LOG_PAGE_LINES, LogLine, ProxySession};

impl Model {
    /// Watches the history on its thread (the sessions reported when it moves), or stops.
    pub(super) fn watch_sessions(&mut self, on: bool) {
        self.live.watching = on;
        self.history.watch_sessions(on.then_some(LIVE_SESSIONS));
    }

    /// Lists the calls of one session (or of all of them); its log is read as it is shown.
    pub(super) fn select_session(&mut self, session: Option<i64>) {
        self.live.selected = session;
        self.live.log = None;
    }

    /// The view shows the lines at `positions` of the selected session's log: the page
    /// around them is read unless it is held (or a read is out).
    pub(super) fn show_log_lines(&mut self, positions: Range<u64>) {
        let Some(session) = self.live.selected else {
            return;
        };
        let held = self
            .live
            .log
            .as_ref()
            .is_some_and(|page| page.holds(session, &positions));
        if held || self.live.reading_log {
            return;
        }
        // Room on both sides: a scroll of a few lines does not read again.
        let shown = positions.end.saturating_sub(positions.start);
        let margin = (LOG_PAGE_LINES as u64).saturating_sub(shown) / 2;
        self.live.reading_log = true;
        self.history
            .session_log(session, positions.start.saturating_sub(margin));
    }

    /// Where the history stands and its sessions, as the watch reported them when they moved
    /// (with each one's count of log lines, which the view follows); every tool's figures
    /// when a call was added (a proxied call counts in them).
    pub(super) fn sessions_read(&mut self, stamp: ChangeStamp, sessions: Vec<ProxySession>) {
        let before = self.live.stamp.replace(stamp);
        self.live.sessions = sessions;
        if before.is_some_and(|before| before.calls_mark() != stamp.calls_mark()) {
            self.refresh_latency();
        }
    }

    /// A page of a session's log, read.
    pub(super) fn session_log_read(&mut self, session: i64, first: u64, lines: Vec<LogLine>) {
        self.live.reading_log = false;
        if self.live.selected == Some(session) {
            self.live.log = Some(LogPage {
                session,
                first,
                lines,
            });
        }
    }

    /// Ticks or unticks a session for Compare; a third tick replaces the oldest.
    pub(super) fn mark_session(&mut self, session: i64, marked: bool) {
        let ticks = &mut self.live.marked;
        ticks.retain(|&ticked| ticked != session);
        if marked {
            if ticks.len() == 2 {
                ticks.remove(0);
            }
            ticks.push(session);
        }
    }

    /// Compares the two ticked sessions (the older first) in the background.
    pub(super) fn compare_sessions(&mut self) {
        let [a, b] = self.live.marked[..] else {
            return;
        };
        let HistoryStatus::Open { location, .. } = &self.history_status else {
            return;
        };
        let (old, new) = (a.min(b), a.max(b));
        self.live.comparison_tag += 1;
        self.live.comparison = Some(SessionComparison {
            old,
            new,
            result: None,
        });
        self.backend
            .compare_sessions(location.clone(), (old, new), self.live.comparison_tag);
    }

    pub(super) fn close_session_comparison(&mut self) {
        self.live.comparison_tag += 1;
        self.live.comparison = None;
    }

    /// A comparison came back (dropped when another was asked for since, or it was closed).
    pub(super) fn sessions_compared(
        &mut self,
        tag: u64,
        result: Result<
            std::sync::Arc<toolscope_core::gates::SessionDiff>,
            toolscope_core::gates::GateError,
        >,
    ) {
        if tag != self.live.comparison_tag {
            return;
        }
        if let Some(comparison) = &mut self.live.comparison {
            comparison.result = Some(result);
        }
    }

    /// The sessions seen through `toolscope proxy`, as last read.
    pub fn live_sessions(&self) -> &crate::workbench::live_sessions::LiveSessions {
        &self.live
    }
}
