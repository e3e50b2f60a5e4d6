//! Restart on change for a server being written: the folder watched, the restart under way
//! (what the server listed before, the call to make again and its result before), and what
//! the last restart found. Model state: changed only by the model's actions and events.

use std::{path::PathBuf, sync::Arc};

use serde_json::{Map, Value};

use super::{CallRecord, ToolKey, backend::FolderWatching};
use toolscope_core::session::{ServerSummary, ToolCatalog};

#[derive(Debug)]
pub struct RestartOnChange {
    pub folder: PathBuf,
    /// Restarts so far.
    pub restarts: u64,
    /// What the last restart was for ("server.py"), and what it found ("the interface is the
    /// same; add called again: see the comparison").
    pub last_change: Option<String>,
    pub report: Option<String>,
    /// Why the folder is not watched (it went away, too many watches…).
    pub problem: Option<String>,
    pub(super) _watching: FolderWatching,
    pub(super) pending: Option<PendingRestart>,
}

impl RestartOnChange {
    pub(super) fn new(folder: PathBuf, watching: FolderWatching) -> Self {
        Self {
            folder,
            restarts: 0,
            last_change: None,
            report: None,
            problem: None,
            _watching: watching,
            pending: None,
        }
    }

    /// A restart is under way (reconnecting, listing, or calling again).
    pub fn is_restarting(&self) -> bool {
        self.pending.is_some()
    }
}

/// A restart under way.
#[derive(Debug)]
pub(super) struct PendingRestart {
    /// What the server said and listed before (to say what the restart changed).
    pub before: Option<(ServerSummary, Arc<ToolCatalog>)>,
    /// The last call on the server: called again once the tools are listed.
    pub again: Option<CallAgain>,
    pub stage: RestartStage,
}

#[derive(Debug)]
pub(super) struct CallAgain {
    pub tool: ToolKey,
    pub arguments: Map<String, Value>,
    /// Its result before the restart (compared with the one after).
    pub before: Option<Arc<CallRecord>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RestartStage {
    /// Reconnected; waiting for the tool list.
    Relisting,
    /// Waiting for the call made again.
    Calling,
}
