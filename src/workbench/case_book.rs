//! The open case file as the window's Cases panel uses it: its cases, each one's last outcome
//! (with its result, to show), the run under way, and where cases are run. Model state.

use std::{collections::HashMap, path::PathBuf, sync::Arc, time::Duration};

use tokio_util::sync::CancellationToken;

use super::{CallRecord, ServerId};
use toolscope_core::{cases::CaseFile, history::Verdict};

/// How a case did the last time it ran in this window.
#[derive(Debug, Clone)]
pub enum CaseOutcome {
    Waiting,
    Done {
        passed: bool,
        failures: Vec<String>,
        verdict: Verdict,
        duration: Duration,
        record: Option<Arc<CallRecord>>,
        /// A read's or a prompt's answer (its case has no call record).
        feature: Option<Arc<super::feature_record::FeatureRecord>>,
    },
}

/// Where the panel runs cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CasesTarget {
    /// The file's own `[server]`.
    FileServer,
    /// One of the window's servers.
    Server(ServerId),
}

#[derive(Debug, Default)]
pub struct CaseBook {
    /// The file open (or being opened).
    pub path: Option<PathBuf>,
    pub file: Option<Arc<CaseFile>>,
    /// Why the file cannot be used.
    pub problem: Option<String>,
    /// The file changed on disk since it was read (Reload reads it again).
    pub changed_on_disk: bool,
    /// By case name.
    pub outcomes: HashMap<String, CaseOutcome>,
    /// `None`: the file's server when it has one, else the selected server.
    pub target: Option<CasesTarget>,
    /// The case whose result is shown.
    pub selected: Option<String>,
    /// The run under way, and how to stop it.
    pub(super) running: Option<(u64, CancellationToken)>,
    pub(super) batch: u64,
    /// What the last run said when it stopped early.
    pub run_problem: Option<String>,
}

impl CaseBook {
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// How many of the file's cases passed and failed the last time they ran.
    pub fn tally(&self) -> (usize, usize) {
        self.outcomes
            .values()
            .fold((0, 0), |(passed, failed), outcome| match outcome {
                CaseOutcome::Done { passed: true, .. } => (passed + 1, failed),
                CaseOutcome::Done { passed: false, .. } => (passed, failed + 1),
                CaseOutcome::Waiting => (passed, failed),
            })
    }

    /// The selected case's outcome.
    pub fn selected_outcome(&self) -> Option<(&str, &CaseOutcome)> {
        let name = self.selected.as_deref()?;
        Some((name, self.outcomes.get(name)?))
    }
}
