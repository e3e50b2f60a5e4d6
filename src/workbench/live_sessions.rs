//! The sessions seen through `toolscope proxy`, as the window's Live tab follows them: another
//! process records them into the history database, so the window asks again every moment and
//! lists again only when the history's change stamp moved. A session's log may be long: the
//! window holds one page of it, the part it shows, and reads another when the view moves.
//! Model state: changed only by the model's actions and events.

use std::ops::Range;

use std::sync::Arc;

use toolscope_core::{
    gates::{GateError, SessionDiff},
    history::{LogLine, ProxySession},
};

/// How many sessions the Live tab lists, newest first.
pub const LIVE_SESSIONS: usize = 200;

#[derive(Debug, Default)]
pub struct LiveSessions {
    /// Newest first.
    pub sessions: Vec<ProxySession>,
    /// The history's change stamp when the sessions were read (`None`: not read yet).
    pub stamp: Option<toolscope_core::history::ChangeStamp>,
    /// The history is watched (the History or the Live tab is open).
    pub watching: bool,
    /// The session whose calls are listed (`None`: every proxied session's).
    pub selected: Option<i64>,
    /// The page of the selected session's protocol log last read.
    pub log: Option<LogPage>,
    /// A page is being read (one at a time: a view scrolled fast asks for where it ends up).
    pub(super) reading_log: bool,
    /// The sessions ticked to be compared, in the order they were ticked (at most two).
    pub marked: Vec<i64>,
    /// Two sessions compared, while the comparison is open.
    pub comparison: Option<SessionComparison>,
    /// The tag of the last comparison asked for (a late answer to an earlier one is dropped).
    pub(super) comparison_tag: u64,
}

/// Two sessions compared: the older first.
#[derive(Debug)]
pub struct SessionComparison {
    pub old: i64,
    pub new: i64,
    /// `None` while it is being computed; why it could not be, in words.
    pub result: Option<Result<Arc<SessionDiff>, GateError>>,
}

/// Consecutive lines of one session's log.
#[derive(Debug)]
pub struct LogPage {
    pub session: i64,
    /// The position of its first line in the session's log (0: the log's first line).
    pub first: u64,
    pub lines: Vec<LogLine>,
}

impl LogPage {
    /// The line at `position` in the session's log, when this page holds it.
    pub fn line(&self, position: u64) -> Option<&LogLine> {
        let index = usize::try_from(position.checked_sub(self.first)?).ok()?;
        self.lines.get(index)
    }

    /// Whether it holds every line of `positions` in `session`'s log.
    pub fn holds(&self, session: i64, positions: &Range<u64>) -> bool {
        self.session == session
            && self.first <= positions.start
            && positions.end <= self.first + self.lines.len() as u64
    }
}

impl LiveSessions {
    /// The selected session, while it is listed.
    pub fn selected_session(&self) -> Option<&ProxySession> {
        let id = self.selected?;
        self.sessions.iter().find(|session| session.id == id)
    }
}
