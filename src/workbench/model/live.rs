//! The model's side of the Live tab: poll the proxied sessions, pick one, read its log.

use super::Model;
use crate::workbench::live_sessions::LIVE_SESSIONS;
use toolscope_core::history::{ChangeStamp, LogLine, ProxySession, SESSION_LOG_LINES};

impl Model {
    /// Watches the history on its thread (the sessions reported when it moves), or stops.
    pub(super) fn watch_sessions(&mut self, on: bool) {
        self.live.watching = on;
        self.history.watch_sessions(on.then_some(LIVE_SESSIONS));
    }

    /// Lists the calls of one session (or of all of them) and reads its log.
    pub(super) fn select_session(&mut self, session: Option<i64>) {
        self.live.selected = session;
        self.live.log = None;
        if let Some(session) = session {
            self.history.session_log(session, 0);
        }
    }

    /// Where the history stands, and the sessions when they moved: the selected session's
    /// new log lines are read, and every tool's figures when a call was added (a proxied
    /// call counts in them).
    pub(super) fn sessions_read(
        &mut self,
        stamp: ChangeStamp,
        sessions: Option<Vec<ProxySession>>,
    ) {
        let before = self.live.stamp.replace(stamp);
        if let Some(sessions) = sessions {
            self.live.sessions = sessions;
        }
        let Some(before) = before else {
            return;
        };
        if before.newest_log_line != stamp.newest_log_line
            && let Some(session) = self.live.selected
        {
            self.read_more_log(session);
        }
        if before.newest_call != stamp.newest_call {
            self.refresh_latency();
        }
    }

    /// Reads the lines of `session`'s log after those held (up to the window's limit).
    fn read_more_log(&self, session: i64) {
        let held = match &self.live.log {
            Some((id, lines)) if *id == session => lines.as_slice(),
            _ => &[],
        };
        if held.len() < SESSION_LOG_LINES {
            let after = held.last().map_or(0, |line| line.id);
            self.history.session_log(session, after);
        }
    }

    /// Lines of a session's log after line `after`: the start of the log, or more of it.
    pub(super) fn session_log_read(&mut self, session: i64, after: i64, lines: Vec<LogLine>) {
        if self.live.selected != Some(session) {
            return;
        }
        match &mut self.live.log {
            Some((id, held))
                if *id == session && held.last().map_or(0, |line| line.id) == after =>
            {
                let room = SESSION_LOG_LINES.saturating_sub(held.len());
                held.extend(lines.into_iter().take(room));
            }
            _ if after == 0 => self.live.log = Some((session, lines)),
            // An answer to an older ask (the log read meanwhile): the next poll asks again.
            _ => {}
        }
    }

    /// The sessions seen through `toolscope proxy`, as last read.
    pub fn live_sessions(&self) -> &crate::workbench::live_sessions::LiveSessions {
        &self.live
    }
}
