//! A server card's Diagnose: the connection doctor's walk under way or done, for one server at
//! a time (a new one replaces it).

use std::time::Instant;

use toolscope_core::doctor::Diagnosis;

use super::ServerId;

#[derive(Debug)]
pub struct ServerDiagnosis {
    pub server: ServerId,
    /// The server's name when it was asked.
    pub name: String,
    /// Which request a report answers (an older one's is dropped).
    pub generation: u64,
    pub state: DiagnosisState,
}

#[derive(Debug)]
pub enum DiagnosisState {
    Walking { since: Instant },
    Done(Diagnosis),
}
