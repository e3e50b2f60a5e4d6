//! The sessions seen through `toolscope proxy`, as the window's Live tab follows them: another
//! process records them into the history database, so the window asks again every moment and
//! lists again only when the history's change stamp moved. Model state: changed only by the
//! model's actions and events.

use toolscope_core::history::{LogLine, ProxySession};

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
    /// The selected session's protocol log, once read.
    pub log: Option<(i64, Vec<LogLine>)>,
}

impl LiveSessions {
    /// The selected session, while it is listed.
    pub fn selected_session(&self) -> Option<&ProxySession> {
        let id = self.selected?;
        self.sessions.iter().find(|session| session.id == id)
    }
}
