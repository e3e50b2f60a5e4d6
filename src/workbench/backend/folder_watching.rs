//! Restart on change, the backend's side: a server's folder watched on the runtime (each
//! settled burst of changes reported), and the interface after a restart compared with the
//! one before, off the UI thread.

use std::{path::PathBuf, sync::Arc};

use super::{Backend, BackendEvent, since_last_time};
use crate::workbench::ServerId;
use toolscope_core::{
    session::{ServerSummary, ToolCatalog},
    watch::{FolderWatch, SETTLE, written_by_toolscope},
};

/// A folder being watched; dropping it stops the watch.
#[derive(Debug)]
pub struct FolderWatching {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FolderWatching {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Backend {
    /// Watches `folder` for `server`: reports `FolderChanged` after each settled burst of
    /// changes, or `WatchFailed` once when the folder cannot be watched.
    pub fn watch_folder(&self, server: ServerId, folder: PathBuf) -> FolderWatching {
        let emit = self.emitter();
        let task = self.runtime.spawn(async move {
            let mut watch = match FolderWatch::start_ignoring(&folder, written_by_toolscope()) {
                Ok(watch) => watch,
                Err(error) => {
                    emit.send(BackendEvent::WatchFailed {
                        server,
                        problem: error.to_string(),
                    });
                    return;
                }
            };
            while let Some(paths) = watch.next_change(SETTLE).await {
                let root = watch.folder().to_owned();
                let names = paths
                    .iter()
                    .map(|path| {
                        path.strip_prefix(&root)
                            .unwrap_or(path)
                            .display()
                            .to_string()
                    })
                    .collect();
                emit.send(BackendEvent::FolderChanged { server, names });
            }
        });
        FolderWatching { task }
    }

    /// Compares a server's interface after a restart with the one before; reports
    /// `SinceRestart` (with no note when nothing changed).
    pub fn interface_since_restart(
        &self,
        server: ServerId,
        before: (ServerSummary, Arc<ToolCatalog>),
        after: (ServerSummary, Arc<ToolCatalog>),
    ) {
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let note = since_last_time::between((&before.0, &before.1), (&after.0, &after.1));
            emit.send(BackendEvent::SinceRestart { server, note });
        });
    }
}
