//! How a caller steers one request: its timeouts, its cancel, who hears its progress.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::session::{config::Timeouts, events::ProgressUpdate};

/// How a caller steers one request.
pub struct RequestControl {
    pub timeouts: Timeouts,
    pub cancel: CancellationToken,
    pub on_progress: Arc<dyn Fn(ProgressUpdate) + Send + Sync>,
    /// Hears each new status of the task a call runs as (either era).
    pub on_task_status: crate::session::tasks::task_status::OnTaskStatus,
}

impl RequestControl {
    pub fn with_timeouts(timeouts: Timeouts) -> Self {
        Self {
            timeouts,
            cancel: CancellationToken::new(),
            on_progress: Arc::new(|_| {}),
            on_task_status: Arc::new(|_, _| {}),
        }
    }
}
