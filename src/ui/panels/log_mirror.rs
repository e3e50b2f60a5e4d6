//! The window's own copy of a session's logs. Each frame copies only what is new since the
//! last (the tap's lock is held for that copy, never while laying out), and the rows matching
//! the filter are extended with the new lines instead of re-filtering the whole log.

use std::collections::VecDeque;

use toolscope_core::session::{
    ProtocolTap,
    transports::tap::{StderrLine, TapEntry},
};

/// Lines kept per log, as many as the tap keeps.
const MAX_LINES: usize = 20_000;

/// A bounded log addressed by absolute line numbers (counted since the mirror began), with the
/// line numbers that match the current filter.
#[derive(Debug)]
pub struct MirroredLog<T> {
    pub lines: VecDeque<T>,
    /// The absolute number of `lines[0]`.
    first: u64,
    filter: String,
    /// Absolute numbers of the matching lines, ascending.
    matches: VecDeque<u64>,
    /// Lines before this absolute number were checked against `filter`.
    checked: u64,
    /// Lines the source dropped before we could copy them.
    pub missed: u64,
    /// How many lines the source ever had when last copied.
    seen: u64,
}

impl<T> Default for MirroredLog<T> {
    fn default() -> Self {
        Self {
            lines: VecDeque::new(),
            first: 0,
            filter: String::new(),
            matches: VecDeque::new(),
            checked: 0,
            missed: 0,
            seen: 0,
        }
    }
}

impl<T> MirroredLog<T> {
    fn push(&mut self, line: T) {
        self.lines.push_back(line);
        while self.lines.len() > MAX_LINES {
            self.lines.pop_front();
            self.first += 1;
        }
        while self.matches.front().is_some_and(|&n| n < self.first) {
            self.matches.pop_front();
        }
        self.checked = self.checked.max(self.first);
    }

    /// Copies the lines of `recent` (the newest of the `total` lines the source ever had) that
    /// arrived since the last call; those it no longer holds are counted as missed.
    fn copy_newest(&mut self, recent: &VecDeque<T>, total: u64)
    where
        T: Clone,
    {
        let unseen = total.saturating_sub(self.seen);
        let available = (recent.len() as u64).min(unseen);
        self.missed += unseen - available;
        for line in recent.iter().skip(recent.len() - available as usize) {
            self.push(line.clone());
        }
        self.seen = total;
    }

    /// Brings the matches up to date: everything again when the filter changed, else only the
    /// new lines. `hit` tells whether a line contains the (lower-case) needle.
    pub fn refresh_matches(&mut self, filter: &str, hit: impl Fn(&T, &str) -> bool) {
        let needle = filter.to_lowercase();
        if needle != self.filter {
            self.filter = needle;
            self.matches.clear();
            self.checked = self.first;
        }
        let start = (self.checked - self.first) as usize;
        for (offset, line) in self.lines.iter().enumerate().skip(start) {
            if self.filter.is_empty() || hit(line, &self.filter) {
                self.matches.push_back(self.first + offset as u64);
            }
        }
        self.checked = self.first + self.lines.len() as u64;
    }

    pub fn match_count(&self) -> usize {
        self.matches.len()
    }

    /// The `row`th matching line.
    pub fn matched(&self, row: usize) -> Option<&T> {
        let number = *self.matches.get(row)?;
        self.lines.get((number - self.first) as usize)
    }
}

/// Whether `text` contains `needle` (already lower case), ignoring case.
pub fn contains_ignoring_case(text: &str, needle: &str) -> bool {
    text.to_lowercase().contains(needle)
}

/// A session's protocol messages and stderr, as the window last copied them.
#[derive(Debug, Default)]
pub struct LogMirror {
    tap: Option<ProtocolTap>,
    pub messages: MirroredLog<TapEntry>,
    pub stderr: MirroredLog<StderrLine>,
    /// The server's log messages (`notifications/message`), from the model.
    pub server_log: MirroredLog<String>,
    /// The next protocol message to copy (by the tap's sequence number).
    next_seq: u64,
}

impl LogMirror {
    /// Copies what the tap recorded since the last call. A new session starts a new mirror.
    pub fn sync(&mut self, tap: &ProtocolTap) {
        if !self.tap.as_ref().is_some_and(|known| known.same_as(tap)) {
            *self = Self {
                tap: Some(tap.clone()),
                ..Self::default()
            };
        }
        let logs = tap.logs();
        let new_messages = logs
            .messages
            .items
            .iter()
            .rev()
            .take_while(|entry| entry.seq >= self.next_seq)
            .count();
        let first_new = logs.messages.items.len() - new_messages;
        if let Some(first) = logs.messages.items.get(first_new) {
            self.messages.missed += first.seq - self.next_seq;
        }
        for entry in logs.messages.items.iter().skip(first_new) {
            self.next_seq = entry.seq + 1;
            self.messages.push(entry.clone());
        }
        let stderr_total = logs.stderr.dropped + logs.stderr.items.len() as u64;
        self.stderr.copy_newest(&logs.stderr.items, stderr_total);
    }

    /// Copies the server log messages that arrived since the last call (`total` counts every
    /// message ever received; `recent` holds the newest of them).
    pub fn sync_server_log(&mut self, recent: &VecDeque<String>, total: u64) {
        self.server_log.copy_newest(recent, total);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolscope_core::session::transports::tap::{Direction, Fidelity, TapLimits};

    #[test]
    fn copies_only_new_lines_and_filters_incrementally() {
        let tap = ProtocolTap::new(TapLimits::default(), None);
        let mut mirror = LogMirror::default();
        for i in 0..5 {
            tap.record_message(
                Direction::FromServer,
                Fidelity::Exact,
                &format!("line {i}"),
                None,
            );
            tap.record_stderr(&format!("err {i}"));
        }
        mirror.sync(&tap);
        mirror
            .messages
            .refresh_matches("LINE 3", |e, n| contains_ignoring_case(&e.text, n));
        assert_eq!(mirror.messages.match_count(), 1);
        assert_eq!(&*mirror.messages.matched(0).unwrap().text, "line 3");
        tap.record_message(Direction::FromServer, Fidelity::Exact, "line 33", None);
        mirror.sync(&tap);
        mirror
            .messages
            .refresh_matches("line 3", |e, n| contains_ignoring_case(&e.text, n));
        assert_eq!(mirror.messages.match_count(), 2);
        assert_eq!(mirror.messages.lines.len(), 6);
        assert_eq!(mirror.stderr.lines.len(), 5);
        mirror.sync(&tap);
        assert_eq!(mirror.messages.lines.len(), 6, "nothing is copied twice");
    }

    #[test]
    fn a_full_log_keeps_moving() {
        let tap = ProtocolTap::new(TapLimits::default(), None);
        let mut mirror = LogMirror::default();
        for round in 0..3 {
            for i in 0..15_000 {
                tap.record_message(
                    Direction::ToServer,
                    Fidelity::Exact,
                    &format!("{round}-{i}"),
                    None,
                );
            }
            mirror.sync(&tap);
            mirror
                .messages
                .refresh_matches("", |e, n| contains_ignoring_case(&e.text, n));
        }
        assert_eq!(mirror.messages.lines.len(), MAX_LINES);
        assert_eq!(mirror.messages.match_count(), MAX_LINES);
        assert_eq!(&*mirror.messages.lines.back().unwrap().text, "2-14999");
    }
}
