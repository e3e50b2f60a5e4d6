//! The history behind one interface, so a face never names a backend: what every face and the
//! proxy's recorder keep and read (calls; proxied sessions, their logs and the change stamp
//! the Live view polls) is asked of a `dyn HistoryStore`. SQLite (`store.rs`,
//! `proxy_sessions.rs`) keeps the local file, PostgreSQL (`postgres/`) a team's database;
//! [`open_store`] picks one by its [`HistoryLocation`].

use super::{
    CallQuery, ChangeStamp, HistoryError, HistoryLocation, LogLine, NewCall, NewLogLine,
    ProxySession, RecordedBy, SessionEnding, StoredCall, ToolLatency, postgres::PostgresStore,
    store::SqliteStore,
};

/// The calls kept: recorded, listed, read, annotated, and kept under the size cap.
pub trait CallStore {
    /// Where the history lives (its file, or its database).
    fn location(&self) -> &HistoryLocation;
    /// Records a call and returns its id; the oldest calls go if the history is over its cap.
    fn record(&mut self, call: &NewCall) -> Result<i64, HistoryError>;
    /// The calls `query` selects, newest first, without their big texts.
    fn list(&self, query: &CallQuery) -> Result<Vec<StoredCall>, HistoryError>;
    /// Each tool's p50, p95 and slowest over the calls `query` selects.
    fn latency(&self, query: &CallQuery) -> Result<Vec<ToolLatency>, HistoryError>;
    /// One call, whole.
    fn get(&self, id: i64) -> Result<Option<StoredCall>, HistoryError>;
    /// The tester's note on a call; whether the call is there.
    fn set_note(&mut self, id: i64, note: &str) -> Result<bool, HistoryError>;
    /// The call was made once more on its own (a subscribed resource read again on its
    /// update): counted on its row instead of a row of its own. The count now, or `None` when
    /// the call is not there.
    fn add_repeat(&mut self, id: i64) -> Result<Option<u64>, HistoryError>;
    fn count(&self) -> Result<u64, HistoryError>;
    /// The bytes of call text kept, which the cap limits.
    fn total_bytes(&self) -> Result<u64, HistoryError>;
    fn cap_bytes(&self) -> Result<u64, HistoryError>;
    fn set_cap_bytes(&mut self, cap: u64) -> Result<(), HistoryError>;
    /// A name of this history that stays (made on first use): what a row pushed from it to
    /// a team's history is known by, with its id.
    fn identity(&mut self) -> Result<String, HistoryError>;
}

/// The sessions real clients ran through `toolscope proxy`, and the rest of their traffic.
pub trait SessionStore {
    /// A session starts; its id.
    fn begin_proxy_session(&mut self, server: &str, started_at: &str) -> Result<i64, HistoryError>;
    /// What the session's row says of it, as the handshake told it.
    fn describe_proxy_session(
        &mut self,
        session: i64,
        described: &super::SessionDescription,
    ) -> Result<(), HistoryError>;
    fn link_call_to_session(&mut self, call: i64, session: i64) -> Result<(), HistoryError>;
    /// Lines of the session's protocol log, in the order they passed.
    fn append_proxy_log(&mut self, session: i64, lines: &[NewLogLine]) -> Result<(), HistoryError>;
    fn end_proxy_session(
        &mut self,
        session: i64,
        ended_at: &str,
        ending: &SessionEnding,
    ) -> Result<(), HistoryError>;
    /// The newest sessions first.
    fn proxy_sessions(&self, limit: usize) -> Result<Vec<ProxySession>, HistoryError>;
    fn proxy_session(&self, session: i64) -> Result<Option<ProxySession>, HistoryError>;
    /// The session's log lines after line `after`, at most `limit`.
    fn proxy_log(
        &self,
        session: i64,
        after: i64,
        limit: usize,
    ) -> Result<Vec<LogLine>, HistoryError>;
    /// The session's log lines from its `first`-th (0: its first), at most `limit`: a view
    /// reads the part of a long log it shows.
    fn proxy_log_from(
        &self,
        session: i64,
        first: u64,
        limit: usize,
    ) -> Result<Vec<LogLine>, HistoryError>;
    /// What changed last (a call, a session, a log line): a view polls it and reads again
    /// only when it moved.
    fn change_stamp(&self) -> Result<ChangeStamp, HistoryError>;
}

/// A history: its calls and its proxied sessions. Sent to the thread that writes it.
pub trait HistoryStore: CallStore + SessionStore + Send + std::fmt::Debug {}

impl<T: CallStore + SessionStore + Send + std::fmt::Debug> HistoryStore for T {}

/// Opens the history at `location` (a file created with its folder if needed, or a database
/// connected to), its tables brought up to date. The rows it records are stamped with
/// `recorded_by`.
pub fn open_store(
    location: &HistoryLocation,
    recorded_by: &RecordedBy,
) -> Result<Box<dyn HistoryStore>, HistoryError> {
    Ok(match location {
        HistoryLocation::File(path) => {
            Box::new(SqliteStore::open(path, Some(recorded_by.clone()))?)
        }
        HistoryLocation::Postgres(url) => {
            Box::new(PostgresStore::open(url, Some(recorded_by.clone()))?)
        }
    })
}

/// A history that lives as long as it is held (a recording opened to browse, tests).
pub fn in_memory_store() -> Result<Box<dyn HistoryStore>, HistoryError> {
    Ok(Box::new(SqliteStore::in_memory()?))
}

/// The history file at `path`, recorded by "a machine" and "a tester" (tests).
#[cfg(test)]
pub(crate) fn open_file(path: &std::path::Path) -> Result<Box<dyn HistoryStore>, HistoryError> {
    open_store(
        &HistoryLocation::File(path.to_owned()),
        &RecordedBy::tester(),
    )
}

/// A history opened for recording, and why it is not the one chosen, when it is not.
pub struct OpenedHistory {
    pub store: Box<dyn HistoryStore>,
    /// The team database could not be reached: what failed, and that the local file keeps
    /// the rows meanwhile.
    pub fell_back: Option<String>,
}

/// Opens `location` to record into; a team database that cannot be reached gives way to the
/// local file (the rows are kept there, to push once it is back).
pub fn open_or_local(
    location: &HistoryLocation,
    recorded_by: &RecordedBy,
) -> Result<OpenedHistory, HistoryError> {
    let error = match open_store(location, recorded_by) {
        Ok(store) => {
            return Ok(OpenedHistory {
                store,
                fell_back: None,
            });
        }
        Err(error) => error,
    };
    let (HistoryLocation::Postgres(_), Some(local)) = (location, super::history_path()) else {
        return Err(error);
    };
    let local = HistoryLocation::File(local);
    let store = open_store(&local, recorded_by)?;
    Ok(OpenedHistory {
        store,
        fell_back: Some(format!(
            "{error}; kept in the local history ({local}) instead: `toolscope history push` \
             copies it to the team's once it is back"
        )),
    })
}
