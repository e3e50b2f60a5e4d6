//! A load run asked from the Server tab: one at a time, for one server and tool, under way
//! (its progress as the backend reports it, and how to stop it) or done (its figures, or why
//! it did not run). A new run replaces the one shown.

use std::time::Instant;

use tokio_util::sync::CancellationToken;
use toolscope_core::load::{LoadFigures, LoadProgress};

use super::ServerId;

#[derive(Debug)]
pub struct LoadRunView {
    pub server: ServerId,
    pub tool: String,
    /// Which run the backend's reports are about (an older one's are dropped).
    pub generation: u64,
    /// Sessions it opens (one when they share).
    pub sessions: usize,
    pub planned_calls: u64,
    pub state: LoadRunState,
}

#[derive(Debug)]
pub enum LoadRunState {
    Running {
        since: Instant,
        progress: LoadProgress,
        stop: CancellationToken,
        /// Stop was asked: the calls under way are being cancelled.
        stopping: bool,
    },
    Done(Box<LoadFigures>),
    Failed(String),
}

impl LoadRunView {
    pub fn is_running(&self) -> bool {
        matches!(self.state, LoadRunState::Running { .. })
    }

    /// How far a run under way is, from 0 to 1 (by calls made).
    pub fn fraction(&self) -> f32 {
        match &self.state {
            LoadRunState::Running { progress, .. } if self.planned_calls > 0 => {
                (progress.done as f32 / self.planned_calls as f32).clamp(0.0, 1.0)
            }
            LoadRunState::Running { .. } => 0.0,
            LoadRunState::Done(_) | LoadRunState::Failed(_) => 1.0,
        }
    }
}
