//! One tool's call as the model tracks it: idle, running (with progress), done or failed, and
//! the last finished record, which stays on screen while a new call runs.

use std::{sync::Arc, time::Instant};

use tokio_util::sync::CancellationToken;

use super::{
    CallId, CallRecord, ServerId, call_failure::CallFailure, compact_record::CompactRecord,
};
use toolscope_core::session::ProgressUpdate;

/// A tool of a server. Calls go by name, so two listed tools with one name share their runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolKey {
    pub server: ServerId,
    pub name: String,
}

impl ToolKey {
    pub fn new(server: ServerId, name: impl Into<String>) -> Self {
        Self {
            server,
            name: name.into(),
        }
    }
}

/// The task a running call became, and where it stands.
#[derive(Debug, Clone)]
pub struct RunningTask {
    pub id: String,
    pub status: toolscope_core::session::tasks::TaskStatus,
}

/// Where the current call of a tool stands.
#[derive(Debug)]
pub enum CallState {
    Idle,
    Running {
        id: CallId,
        started: Instant,
        progress: Option<ProgressUpdate>,
        /// The task the call runs as, with its latest status.
        task: Option<RunningTask>,
        cancel: CancellationToken,
    },
    /// Finished; the record is in [`ToolRun::last_record`].
    Done,
    /// Ended without a record: cancelled, timed out, or failed.
    Failed(CallFailure),
}

/// Per tool: its call and the last result.
#[derive(Debug)]
pub struct ToolRun {
    pub call: CallState,
    pub last_record: Option<Arc<CallRecord>>,
    /// The last result kept small while the tool is not shown (`last_record` is `None` then).
    pub stored: Option<Arc<CompactRecord>>,
    /// A result on its way to `stored` or back to `last_record`.
    pub settling: Option<Settling>,
    /// A note shown above the arguments, e.g. after chaining filled one in.
    pub note: Option<String>,
}

impl Default for ToolRun {
    fn default() -> Self {
        Self {
            call: CallState::Idle,
            last_record: None,
            stored: None,
            settling: None,
            note: None,
        }
    }
}

/// Where a result is moving between its whole and its small form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settling {
    Compacting(CallId),
    Restoring(CallId),
}

impl ToolRun {
    pub fn is_running(&self) -> bool {
        matches!(self.call, CallState::Running { .. })
    }

    /// A finished result exists but is not ready to draw (it is being compacted or restored).
    pub fn result_pending(&self) -> bool {
        self.last_record.is_none() && (self.stored.is_some() || self.settling.is_some())
    }
}
