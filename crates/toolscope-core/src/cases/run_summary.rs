//! One run of a case file: who was run against, and every case's outcome.

use super::CaseRun;
use crate::session::ServerSummary;

#[derive(Debug, Clone)]
pub struct RunSummary {
    /// The case file's name (the JUnit suite).
    pub suite_name: String,
    /// The server as the history names it (never a secret).
    pub server_label: String,
    /// How the server introduced itself; `None` when it could not be reached.
    pub summary: Option<ServerSummary>,
    /// RFC 3339, UTC.
    pub started_at: String,
    /// Why no case could run.
    pub connect_error: Option<String>,
    pub runs: Vec<CaseRun>,
}

impl RunSummary {
    pub fn passed(&self) -> usize {
        self.runs.iter().filter(|run| run.passed()).count()
    }

    pub fn failed(&self) -> usize {
        self.runs.len() - self.passed()
    }

    /// Every case ran and passed.
    pub fn all_passed(&self) -> bool {
        self.connect_error.is_none() && self.failed() == 0
    }
}
