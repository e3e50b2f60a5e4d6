//! Two proxied sessions compared off the UI thread: the history is opened for reading on a
//! blocking thread of its own (the window's history thread keeps recording meanwhile), both
//! sessions are read back and compared as `toolscope history diff` compares them.

use std::sync::Arc;

use super::{Backend, BackendEvent};
use toolscope_core::{
    gates::{GateError, RecordedSession, diff_sessions},
    history::{HistoryLocation, RecordedBy, open_store},
};

impl Backend {
    /// Compares session `old` with `new` of the history at `location`; reports
    /// `BackendEvent::SessionsCompared` with `tag`.
    pub fn compare_sessions(&self, location: HistoryLocation, (old, new): (i64, i64), tag: u64) {
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let result = open_store(&location, &RecordedBy::here(None))
                .map_err(GateError::from)
                .and_then(|store| {
                    let read = |id| RecordedSession::from_session(store.as_ref(), id);
                    let (old, new) = (read(old)?, read(new)?);
                    diff_sessions(&old, &new, store.as_ref()).map(Arc::new)
                });
            emit.send(BackendEvent::SessionsCompared { tag, result });
        });
    }
}
