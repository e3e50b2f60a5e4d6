//! The demo server's log messages (`notifications/message`): which level a client asked for
//! (`logging/setLevel` before 2026-07-28, the request's `_meta` from then on) and whether a
//! message at a level is sent. Logging is deprecated by SEP-2577 but still what chatty servers
//! do, so the demo keeps it to show a client (or `toolscope proxy`) under a flood of them.
#![allow(
    deprecated,
    reason = "logging is deprecated by SEP-2577; the demo still shows it"
)]

use std::sync::{
    Arc,
    atomic::{AtomicU8, Ordering},
};

use rmcp::model::{LoggingLevel, RequestMetaObject};

/// The least severe level the client wants, for the whole session (`logging/setLevel`).
/// None set: every message is sent.
#[derive(Debug, Clone, Default)]
pub struct LogFloor(Arc<AtomicU8>);

impl LogFloor {
    pub fn set(&self, level: LoggingLevel) {
        self.0.store(level as u8, Ordering::Relaxed);
    }

    /// Whether a message at `level` goes to the client of the request with `meta` (its own
    /// `_meta` level wins over the session's).
    pub fn sends(&self, level: LoggingLevel, meta: &RequestMetaObject) -> bool {
        let floor = meta
            .log_level()
            .map_or_else(|| self.0.load(Ordering::Relaxed), |asked| asked as u8);
        level as u8 >= floor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_set_or_asked_for_silences_the_messages_below_it() {
        let floor = LogFloor::default();
        let mut meta = RequestMetaObject::default();
        assert!(floor.sends(LoggingLevel::Debug, &meta), "none set: all");
        floor.set(LoggingLevel::Warning);
        assert!(!floor.sends(LoggingLevel::Info, &meta));
        assert!(floor.sends(LoggingLevel::Error, &meta));
        meta.set_log_level(LoggingLevel::Debug);
        assert!(
            floor.sends(LoggingLevel::Info, &meta),
            "the request's own wins"
        );
    }
}
