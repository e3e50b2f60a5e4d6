//! Watch through Toolscope, the backend's side: another client's entry read and its change
//! planned, then written (with the file kept as it was), off the UI thread.

use super::{Backend, BackendEvent};
use toolscope_core::import::{
    FoundServer,
    watch_through::{self, EntryRewrite, WatchRecord, WatchRecords},
};

/// A change to another client's entry, planned and waiting for the person's yes.
#[derive(Debug, Clone)]
pub struct WatchChange {
    pub rewrite: EntryRewrite,
    /// It puts a watched entry back (else it watches one).
    pub unwatch: bool,
}

impl Backend {
    /// Plans watching `found` through this Toolscope, recording into `history` (this window's,
    /// so the Live tab shows what the client does); reports `WatchPlanned`.
    pub fn plan_watch(
        &self,
        found: FoundServer,
        history: Option<toolscope_core::history::HistoryLocation>,
    ) {
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let planned = std::env::current_exe()
                .map_err(|error| format!("where this toolscope is cannot be told: {error}"))
                .and_then(|toolscope| {
                    let launch = watch_through::ProxyLaunch { toolscope, history };
                    watch_through::plan_watch(&found, &launch).map_err(|error| error.to_string())
                })
                .map(|rewrite| WatchChange {
                    rewrite,
                    unwatch: false,
                });
            emit.send(BackendEvent::WatchPlanned(planned));
        });
    }

    /// Plans putting `record`'s entry back; reports `WatchPlanned`.
    pub fn plan_unwatch(&self, record: WatchRecord) {
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let planned = watch_through::plan_unwatch(&record)
                .map_err(|error| error.to_string())
                .map(|rewrite| WatchChange {
                    rewrite,
                    unwatch: true,
                });
            emit.send(BackendEvent::WatchPlanned(planned));
        });
    }

    /// Makes the change; reports `WatchDone` with what to tell the person.
    pub fn apply_watch_change(&self, change: WatchChange, records: WatchRecords) {
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let client = change.rewrite.client.name();
            let name = change.rewrite.name.clone();
            let done = if change.unwatch {
                watch_through::unwatch(&change.rewrite, &records).map(|()| {
                    format!(
                        "\"{name}\" is back as it was in {client}'s configuration; restart \
                         {client} for it to take effect"
                    )
                })
            } else {
                watch_through::watch(&change.rewrite, &records).map(|watched| {
                    format!(
                        "{client} now runs \"{name}\" through Toolscope: restart {client}, and its \
                         calls appear in the Live tab. The file as it was is kept in {}",
                        watched.backup.display()
                    )
                })
            };
            emit.send(BackendEvent::WatchDone {
                result: done.map_err(|error| error.to_string()),
                watched: records.load().unwrap_or_default(),
            });
        });
    }
}
