//! What a task is as the rest of Toolscope sees it, in either era: its statuses, the track of
//! one call's task, and who hears a new status. A leaf: it depends on no session code but the
//! raw response, so a request's control and a call's rounds can name it without the session.

use std::{sync::Arc, time::Duration};

use serde::{Deserialize, Serialize};

use crate::session::RawResponse;

/// Statuses kept of one task: the first and the last ones (a server may put a counter in
/// its status message for half an hour).
pub const MAX_STATUSES: usize = 200;

/// Hears each new status of a task: its id and the status.
pub type OnTaskStatus = Arc<dyn Fn(&str, &TaskStatus) + Send + Sync>;

/// One status of a task, as `tasks/get` (or the created task) told it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatus {
    pub status: String,
    pub status_message: Option<String>,
    /// Since the call started.
    #[serde(
        rename = "at_ms",
        serialize_with = "crate::session::asks::millis",
        deserialize_with = "crate::session::asks::from_millis"
    )]
    pub at: Duration,
}

impl TaskStatus {
    /// `working: Gathering sources…`, the same in the window and the command line.
    pub fn describe(&self) -> String {
        match &self.status_message {
            Some(message) => format!("{}: {message}", self.status),
            None => self.status.clone(),
        }
    }
}

/// A call's task: its id and every status it went through.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskTrack {
    pub task_id: String,
    /// The `tools/call` answer that created it.
    pub created: RawResponse,
    pub statuses: Vec<TaskStatus>,
    /// Statuses left out between the first and the last [`MAX_STATUSES`].
    pub statuses_left_out: usize,
    /// Why `tasks/get` failed, when it did (the task is followed by `tasks/result` anyway).
    pub problem: Option<String>,
    /// The id of the `tasks/get` whose answer carried the result (2026-07-28: the call's
    /// answer is the result found there); `None` when `tasks/result` answered it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_from: Option<String>,
}

impl TaskTrack {
    /// A task whose first status is `first`, created by the `created` answer.
    pub(in crate::session) fn new(task_id: String, created: RawResponse) -> Self {
        Self {
            task_id,
            created,
            statuses: Vec::new(),
            statuses_left_out: 0,
            problem: None,
            result_from: None,
        }
    }

    /// Keeps `status` when it differs from the last one; says whether it did.
    pub(in crate::session) fn note(&mut self, status: TaskStatus) -> bool {
        let changed = self.statuses.last().is_none_or(|last| {
            last.status != status.status || last.status_message != status.status_message
        });
        if changed {
            if self.statuses.len() >= MAX_STATUSES {
                self.statuses.remove(1);
                self.statuses_left_out += 1;
            }
            self.statuses.push(status);
        }
        changed
    }

    pub(in crate::session) fn note_problem(&mut self, failures: u32, what: &str) {
        self.problem = Some(format!(
            "tasks/get failed {failures} time(s), last: {}",
            crate::text_util::one_line(what, 200)
        ));
    }
}
