//! The model's side of the Live tab: poll the proxied sessions, pick one, read its log.

use super::Model;
use crate::{
    history::{LogLine, ProxySession},
    workbench::live_sessions::LIVE_SESSIONS,
};

impl Model {
    /// Reads the sessions again, unless a read is still out.
    pub(super) fn poll_sessions(&mut self) {
        if self.live.asking {
            return;
        }
        self.live.asking = true;
        self.history.sessions(LIVE_SESSIONS);
    }

    /// Lists the calls of one session (or of all of them) and reads its log.
    pub(super) fn select_session(&mut self, session: Option<i64>) {
        self.live.selected = session;
        self.live.log = None;
        if let Some(session) = session {
            self.history.session_log(session);
        }
    }

    /// The sessions as read: when the history moved, the selected session's log is read
    /// again and every tool's figures too (a proxied call counts in them).
    pub(super) fn sessions_read(&mut self, stamp: [i64; 4], sessions: Vec<ProxySession>) {
        self.live.asking = false;
        let moved = self.live.stamp.is_some_and(|before| before != stamp);
        self.live.stamp = Some(stamp);
        self.live.sessions = sessions;
        if moved {
            if let Some(session) = self.live.selected {
                self.history.session_log(session);
            }
            self.refresh_latency();
        }
    }

    pub(super) fn session_log_read(&mut self, session: i64, lines: Vec<LogLine>) {
        if self.live.selected == Some(session) {
            self.live.log = Some((session, lines));
        }
    }

    /// The sessions seen through `toolscope proxy`, as last read.
    pub fn live_sessions(&self) -> &crate::workbench::live_sessions::LiveSessions {
        &self.live
    }
}
