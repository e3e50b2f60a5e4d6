//! Every call kept: a local SQLite database (`history.sqlite3` in Toolscope's data folder) of
//! the calls made from the window and the command line, with the arguments, the response
//! exactly as the server sent it, the verdict and the tester's note. Egui-free; the window
//! writes through [`HistoryWriter`] off its thread, the command line and the proxy through a
//! [`HistoryStore`] ([`open_store`]), the one interface to whichever backend keeps it.

mod call_kind;
mod from_call;
mod history_store;
mod latency;
mod location;
mod postgres;
mod proxy_sessions;
mod push;
mod record;
mod recorded_by;
mod recording;
mod schema;
mod store;
mod stored_answer;
mod verdict;
mod writer;

#[cfg(test)]
mod tests;

pub use call_kind::CallKind;
pub use from_call::{CalledServer, started_ago};
#[cfg(test)]
pub(crate) use history_store::open_file;
pub use history_store::{
    CallStore, HistoryStore, OpenedHistory, SessionStore, in_memory_store, open_or_local,
    open_store,
};
pub use latency::{ToolLatency, percentile};
pub use location::{
    HISTORY_URL_VARIABLE, HistoryLocation, LocationError, PostgresUrl, data_dir, history_path,
};
#[cfg(any(test, feature = "test-support"))]
pub use postgres::test_cluster;
pub use postgres::{PostgresStore, password_key};
pub use proxy_sessions::{
    ChangeStamp, LogLine, LogSide, NewLogLine, ProxySession, SessionDescription, SessionEnding,
};
pub use push::{PushReport, push};
pub use record::{CallQuery, NewCall, ResponseText, StoredCall};
pub use recorded_by::{MACHINE_VARIABLE, PERSON_VARIABLE, RecordedBy};
pub use recording::{
    RECORDING_FORMAT, RECORDING_VERSION, RecordingError, read_recording, write_recording,
};
pub use store::SqliteStore;
pub use store::{DEFAULT_CAP_BYTES, HistoryError};
pub use stored_answer::StoredAnswer;
pub use verdict::Verdict;

/// A new history's identity: 128 random bits in hex.
fn new_identity() -> Result<String, getrandom::Error> {
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// The name the built-in demo server is recorded under, by the window and the command line.
pub const DEMO_SERVER_NAME: &str = "Built-in demo";
pub use writer::{HistoryEvent, HistoryWriter, LOG_PAGE_LINES, LoadError, WATCH_PERIOD};
