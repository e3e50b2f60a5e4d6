//! QA cases: a TOML file of calls with expectations, run against a server (by `toolscope run`
//! and the window's Cases panel), reported as lines, JUnit XML or a report. Egui-free.

mod case_asker;
mod case_file;
mod case_server;
mod case_writer;
mod expectation;
mod junit;
mod run_summary;
mod runner;

#[cfg(test)]
mod tests;

pub use case_asker::CaseAsker;
pub use case_file::{Case, CaseAnswers, CaseFile, CaseFileError};
pub use case_server::{CaseServer, CaseTarget, ExpandError, expand};
pub use case_writer::{ExpectFrom, SaveCaseError, append_case, case_toml, server_toml};
pub use expectation::{Answered, ContractExpect, Expect, Failure, MirrorExpect};
pub use junit::junit_xml;
pub use run_summary::RunSummary;
pub use runner::{CaseResult, CaseRun, run_case};
