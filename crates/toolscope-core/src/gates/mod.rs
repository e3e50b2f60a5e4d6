//! Recorded sessions judged and compared, egui-free: a gate (`toolscope check`) reads a
//! proxied session (its calls, its protocol log, the tool lists it was given) or a
//! recording's calls and finds what a CI job fails on, written as lines, SARIF 2.1.0 or JUnit;
//! a session diff (`toolscope history diff`, the Live tab's Compare) sets two sessions side by
//! side: their tools, then their calls matched by tool and arguments.

mod finding;
mod judge;
mod junit;
mod log_reading;
mod recorded;
mod sarif;
mod session_diff;

#[cfg(test)]
mod tests;

pub use finding::{Finding, Level, Rule};
pub use judge::{GateOptions, Judgement, judge};
pub use junit::junit_xml;
pub use log_reading::{
    BadLine, DeprecatedUse, LogReader, LogReading, LoggedRequest, RejectedRequest, SeenToolList,
    read_log,
};
pub use recorded::{
    GateError, RecordedSession, Source, parse_since, parse_since_now, sessions_since,
};
pub use sarif::{MAX_SARIF_RESULTS, SARIF_SCHEMA, SARIF_VERSION, sarif_log};
pub use session_diff::{CallBrief, CallPair, SessionDiff, diff_sessions};
