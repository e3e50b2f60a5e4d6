//! The sessions seen through `toolscope proxy`: who connected to which server, when, how it
//! ended, the calls it made (rows of `calls` linked to it) and the rest of its traffic, its
//! protocol log. Written by the proxy's recorder, read by `history --sessions` and the
//! window's Live view (another process: the database is the meeting point).

use rusqlite::{OptionalExtension as _, params};
use serde::Serialize;

use super::{HistoryError, SessionStore, SqliteStore};

/// Which way a logged line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LogSide {
    /// From the client to the server.
    ToServer,
    /// From the server to the client.
    ToClient,
    /// A line the server wrote on its stderr.
    Stderr,
}

impl LogSide {
    pub fn as_str(self) -> &'static str {
        match self {
            LogSide::ToServer => "to_server",
            LogSide::ToClient => "to_client",
            LogSide::Stderr => "stderr",
        }
    }

    pub(super) fn parse(word: &str) -> Self {
        match word {
            "to_server" => LogSide::ToServer,
            "to_client" => LogSide::ToClient,
            _ => LogSide::Stderr,
        }
    }

    /// An arrow for a log line: `→` to the server, `←` from it, `!` its stderr.
    pub fn arrow(self) -> &'static str {
        match self {
            LogSide::ToServer => "→",
            LogSide::ToClient => "←",
            LogSide::Stderr => "!",
        }
    }
}

/// A line of a session's log to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLogLine {
    /// Milliseconds since the session started.
    pub at_ms: u64,
    pub side: LogSide,
    /// The line as relayed, without its line ending (invalid UTF-8 replaced); for a line
    /// kept whole as a call's response, empty (`call_id` says where it is).
    pub text: String,
    /// Why the line stands out (`not JSON`, …), when it does.
    pub flag: Option<String>,
    /// The call this line asked for or answered, when it was kept as one.
    pub call_id: Option<i64>,
}

/// A line of a session's log read back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogLine {
    pub id: i64,
    pub at_ms: u64,
    pub side: LogSide,
    pub text: String,
    pub flag: Option<String>,
    pub call_id: Option<i64>,
}

/// How a proxied session ended.
#[derive(Debug, Clone, Default)]
pub struct SessionEnding {
    /// In words: who ended it and the server's exit status.
    pub ending: String,
    /// The server's last stderr lines.
    pub stderr_tail: String,
    /// Log lines not kept (the log's cap, or the queue to the recorder full).
    pub log_dropped: u64,
}

/// What a proxied session learnt of its client and server, as the handshake told it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionDescription {
    /// The client, as it named itself (`name version`).
    pub client: Option<String>,
    pub protocol_version: Option<String>,
    /// The server's `serverInfo.name`.
    pub server_name: Option<String>,
    pub server_version: Option<String>,
}

/// A proxied session read back (newest first in a list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProxySession {
    pub id: i64,
    /// RFC 3339, UTC.
    pub started_at: String,
    /// `None` while it runs (or when its proxy was killed before it could say).
    pub ended_at: Option<String>,
    /// How the proxy names the server (`--name`, a saved name, or its command line).
    pub server: String,
    /// The server's own name from its handshake (`serverInfo.name`), once it said.
    pub server_name: Option<String>,
    /// The client, as it named itself (`name version`), once it said.
    pub client: Option<String>,
    pub protocol_version: Option<String>,
    pub server_version: Option<String>,
    /// The calls, reads and prompts it made that the history still keeps.
    pub calls: u64,
    /// Lines in its protocol log.
    pub log_lines: u64,
    pub ending: Option<String>,
    pub stderr_tail: Option<String>,
    pub log_dropped: u64,
    /// The machine whose proxy recorded it, and the person running it.
    pub machine: Option<String>,
    pub person: Option<String>,
}

/// Where the history stands, cheap to read: what a window polling it compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChangeStamp {
    /// The newest call's id (calls are listed again when it moves).
    pub newest_call: i64,
    /// The newest session's id, how many ended, how many named their client.
    pub sessions: [i64; 3],
    /// The newest protocol log line's id (a running session's log grows).
    pub newest_log_line: i64,
    /// Changes to the calls a shared database announced (its ids are not given out in the
    /// order writers commit, so the newest id alone can miss a call); 0 for a local file.
    pub calls_announced: u64,
    /// Changes to the sessions and their logs it announced.
    pub others_announced: u64,
}

impl ChangeStamp {
    /// What moves when a call is added, whoever added it: a list of calls is read again when
    /// this changed.
    pub fn calls_mark(&self) -> (i64, u64) {
        (self.newest_call, self.calls_announced)
    }
}

/// The sessions' columns a list reads.
const SESSION_COLUMNS: &str = "id, started_at, ended_at, server, client, protocol_version, \
     server_version, ending, stderr_tail, log_dropped, \
     (SELECT count(*) FROM call_sessions WHERE session_id = proxy_sessions.id), \
     (SELECT count(*) FROM proxy_log WHERE session_id = proxy_sessions.id), server_name, \
     machine, person";

impl SessionStore for SqliteStore {
    /// A proxied session starts: its row, to which its calls and log lines are tied.
    fn begin_proxy_session(&mut self, server: &str, started_at: &str) -> Result<i64, HistoryError> {
        let (machine, person) = match &self.recorded_by {
            Some(by) => (Some(&by.machine), Some(&by.person)),
            None => (None, None),
        };
        self.connection
            .execute(
                "INSERT INTO proxy_sessions (started_at, server, machine, person) \
                 VALUES (?1, ?2, ?3, ?4)",
                params![started_at, server, machine, person],
            )
            .map_err(|error| self.query_error(error))?;
        Ok(self.connection.last_insert_rowid())
    }

    /// What the session learnt of its client and server (on `initialize`).
    fn describe_proxy_session(
        &mut self,
        session: i64,
        described: &SessionDescription,
    ) -> Result<(), HistoryError> {
        self.connection
            .execute(
                "UPDATE proxy_sessions SET client = coalesce(?2, client), \
                 protocol_version = coalesce(?3, protocol_version), \
                 server_version = coalesce(?4, server_version), \
                 server_name = coalesce(?5, server_name) WHERE id = ?1",
                params![
                    session,
                    described.client,
                    described.protocol_version,
                    described.server_version,
                    described.server_name
                ],
            )
            .map(drop)
            .map_err(|error| self.query_error(error))
    }

    /// Ties a recorded call to the session it came through.
    fn link_call_to_session(&mut self, call: i64, session: i64) -> Result<(), HistoryError> {
        self.connection
            .execute(
                "INSERT OR REPLACE INTO call_sessions (call_id, session_id) VALUES (?1, ?2)",
                params![call, session],
            )
            .map(drop)
            .map_err(|error| self.query_error(error))
    }

    /// Adds lines to the session's log, in one transaction.
    fn append_proxy_log(&mut self, session: i64, lines: &[NewLogLine]) -> Result<(), HistoryError> {
        if lines.is_empty() {
            return Ok(());
        }
        let location = self.location.clone();
        let failed = |error: rusqlite::Error| HistoryError::Query {
            location: location.clone(),
            reason: error.to_string(),
        };
        let transaction = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(failed)?;
        {
            let mut insert = transaction
                .prepare_cached(
                    "INSERT INTO proxy_log (session_id, at_ms, side, text, flag, call_id) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(failed)?;
            for line in lines {
                insert
                    .execute(params![
                        session,
                        i64::try_from(line.at_ms).unwrap_or(i64::MAX),
                        line.side.as_str(),
                        line.text,
                        line.flag,
                        line.call_id,
                    ])
                    .map_err(failed)?;
            }
        }
        transaction.commit().map_err(failed)
    }

    /// The session ended: when and how.
    fn end_proxy_session(
        &mut self,
        session: i64,
        ended_at: &str,
        ending: &SessionEnding,
    ) -> Result<(), HistoryError> {
        self.connection
            .execute(
                "UPDATE proxy_sessions SET ended_at = ?2, ending = ?3, stderr_tail = ?4, \
                 log_dropped = ?5 WHERE id = ?1",
                params![
                    session,
                    ended_at,
                    ending.ending,
                    ending.stderr_tail,
                    i64::try_from(ending.log_dropped).unwrap_or(i64::MAX)
                ],
            )
            .map(drop)
            .map_err(|error| self.query_error(error))
    }

    /// The newest `limit` proxied sessions, newest first.
    fn proxy_sessions(&self, limit: usize) -> Result<Vec<ProxySession>, HistoryError> {
        let sql = format!("SELECT {SESSION_COLUMNS} FROM proxy_sessions ORDER BY id DESC LIMIT ?1");
        let mut statement = self
            .connection
            .prepare_cached(&sql)
            .map_err(|error| self.query_error(error))?;
        let rows = statement
            .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], read_session)
            .map_err(|error| self.query_error(error))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|error| self.query_error(error))
    }

    /// One proxied session.
    fn proxy_session(&self, session: i64) -> Result<Option<ProxySession>, HistoryError> {
        self.connection
            .query_row(
                &format!("SELECT {SESSION_COLUMNS} FROM proxy_sessions WHERE id = ?1"),
                [session],
                read_session,
            )
            .optional()
            .map_err(|error| self.query_error(error))
    }

    /// A session's log lines after line `after` (0: from the start), at most `limit`.
    fn proxy_log(
        &self,
        session: i64,
        after: i64,
        limit: usize,
    ) -> Result<Vec<LogLine>, HistoryError> {
        self.read_log(
            "SELECT id, at_ms, side, text, flag, call_id FROM proxy_log \
             WHERE session_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
            params![session, after, i64::try_from(limit).unwrap_or(i64::MAX)],
        )
    }

    /// A session's log lines from its `first`-th (0: its first line), at most `limit`.
    fn proxy_log_from(
        &self,
        session: i64,
        first: u64,
        limit: usize,
    ) -> Result<Vec<LogLine>, HistoryError> {
        self.read_log(
            "SELECT id, at_ms, side, text, flag, call_id FROM proxy_log \
             WHERE session_id = ?1 ORDER BY id LIMIT ?3 OFFSET ?2",
            params![
                session,
                i64::try_from(first).unwrap_or(i64::MAX),
                i64::try_from(limit).unwrap_or(i64::MAX)
            ],
        )
    }

    /// What changes when anything is recorded: a window polls it and reads again only what
    /// moved.
    fn change_stamp(&self) -> Result<ChangeStamp, HistoryError> {
        self.connection
            .query_row(
                "SELECT coalesce((SELECT max(id) FROM calls), 0), \
                 coalesce((SELECT max(id) FROM proxy_sessions), 0), \
                 (SELECT count(*) FROM proxy_sessions WHERE ended_at IS NOT NULL), \
                 (SELECT count(*) FROM proxy_sessions WHERE client IS NOT NULL), \
                 coalesce((SELECT max(id) FROM proxy_log), 0)",
                [],
                |row| {
                    Ok(ChangeStamp {
                        newest_call: row.get(0)?,
                        sessions: [row.get(1)?, row.get(2)?, row.get(3)?],
                        newest_log_line: row.get(4)?,
                        // One writer at a time: the newest ids say it all.
                        calls_announced: 0,
                        others_announced: 0,
                    })
                },
            )
            .map_err(|error| self.query_error(error))
    }
}

impl SqliteStore {
    /// The log lines `sql` selects with `values`, in order.
    fn read_log(
        &self,
        sql: &str,
        values: impl rusqlite::Params,
    ) -> Result<Vec<LogLine>, HistoryError> {
        let mut statement = self
            .connection
            .prepare_cached(sql)
            .map_err(|error| self.query_error(error))?;
        let rows = statement
            .query_map(values, |row| {
                Ok(LogLine {
                    id: row.get(0)?,
                    at_ms: u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                    side: LogSide::parse(&row.get::<_, String>(2)?),
                    text: row.get(3)?,
                    flag: row.get(4)?,
                    call_id: row.get(5)?,
                })
            })
            .map_err(|error| self.query_error(error))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|error| self.query_error(error))
    }
}

fn read_session(row: &rusqlite::Row<'_>) -> rusqlite::Result<ProxySession> {
    let count = |at: usize| -> rusqlite::Result<u64> {
        Ok(u64::try_from(row.get::<_, i64>(at)?).unwrap_or(0))
    };
    Ok(ProxySession {
        id: row.get(0)?,
        started_at: row.get(1)?,
        ended_at: row.get(2)?,
        server: row.get(3)?,
        server_name: row.get(12)?,
        client: row.get(4)?,
        protocol_version: row.get(5)?,
        server_version: row.get(6)?,
        ending: row.get(7)?,
        stderr_tail: row.get(8)?,
        log_dropped: count(9)?,
        calls: count(10)?,
        log_lines: count(11)?,
        machine: row.get(13)?,
        person: row.get(14)?,
    })
}
