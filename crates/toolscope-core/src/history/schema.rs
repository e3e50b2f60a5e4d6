//! The database's tables, created and upgraded in numbered steps (`PRAGMA user_version` is the
//! last step applied). Add a step; never edit one that has shipped.

use std::sync::Arc;

use rusqlite::Connection;

/// Step 1 (tests make a history of that version).
#[cfg(test)]
pub const FIRST_STEP: &str = STEPS[0];

const STEPS: &[&str] = &[
    // 1: calls and settings.
    "CREATE TABLE calls (
        id INTEGER PRIMARY KEY,
        started_at TEXT NOT NULL,
        duration_ms INTEGER,
        server TEXT NOT NULL,
        server_version TEXT,
        protocol_version TEXT,
        server_info TEXT,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        request_id TEXT,
        duplicate_responses INTEGER NOT NULL DEFAULT 0,
        output_schema TEXT,
        listed INTEGER NOT NULL DEFAULT 1,
        verdict TEXT NOT NULL,
        failure TEXT,
        note TEXT NOT NULL DEFAULT '',
        bytes INTEGER NOT NULL,
        -- Last, so a zeroblob placeholder stays a zero tail and is never built in memory.
        response TEXT
    );
    CREATE INDEX calls_by_server_tool ON calls (server, tool);
    CREATE INDEX calls_by_verdict ON calls (verdict);
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    // 2: the total size of the calls, kept by triggers (the cap read a sum over every call on
    // each record: 25 ms a call at 100,000 calls).
    "CREATE TABLE totals (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL);
    INSERT INTO totals VALUES (1, (SELECT CAST(total(bytes) AS INTEGER) FROM calls));
    CREATE TRIGGER calls_bytes_added AFTER INSERT ON calls
        BEGIN UPDATE totals SET bytes = bytes + NEW.bytes WHERE id = 1; END;
    CREATE TRIGGER calls_bytes_removed AFTER DELETE ON calls
        BEGIN UPDATE totals SET bytes = bytes - OLD.bytes WHERE id = 1; END;
    CREATE TRIGGER calls_bytes_changed AFTER UPDATE OF bytes ON calls
        BEGIN UPDATE totals SET bytes = bytes - OLD.bytes + NEW.bytes WHERE id = 1; END;",
    // 3: what a call asked of the client and its task (the call's rounds, as JSON), in a
    // table of its own: `calls.response` stays the last column of its record.
    "CREATE TABLE call_rounds (call_id INTEGER PRIMARY KEY, rounds TEXT NOT NULL);
    CREATE TRIGGER calls_rounds_removed AFTER DELETE ON calls
        BEGIN DELETE FROM call_rounds WHERE call_id = OLD.id; END;",
    // 4: what each exchange was when it was not a tool call (a resource read, a prompt got),
    // in a table of its own for the same reason; a call has no row.
    "CREATE TABLE call_kinds (call_id INTEGER PRIMARY KEY, kind TEXT NOT NULL);
    CREATE INDEX call_kinds_by_kind ON call_kinds (kind);
    CREATE TRIGGER calls_kind_removed AFTER DELETE ON calls
        BEGIN DELETE FROM call_kinds WHERE call_id = OLD.id; END;",
    // 5: the client a call passed through a proxy from (`name version` of its clientInfo).
    "CREATE TABLE call_clients (call_id INTEGER PRIMARY KEY, client TEXT NOT NULL);
    CREATE TRIGGER calls_client_removed AFTER DELETE ON calls
        BEGIN DELETE FROM call_clients WHERE call_id = OLD.id; END;",
    // 6: the sessions seen through a proxy (who, what, when, how it ended), the calls each
    // made, and the rest of each session's traffic (its protocol log). A log's text counts
    // toward the cap; a session goes with its log once its last call has gone (the cap).
    "CREATE TABLE proxy_sessions (
        id INTEGER PRIMARY KEY,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        server TEXT NOT NULL,
        client TEXT,
        protocol_version TEXT,
        server_version TEXT,
        ending TEXT,
        stderr_tail TEXT,
        log_dropped INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE proxy_log (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL,
        at_ms INTEGER NOT NULL,
        side TEXT NOT NULL,
        text TEXT NOT NULL,
        flag TEXT,
        call_id INTEGER
    );
    CREATE INDEX proxy_log_by_session ON proxy_log (session_id, id);
    CREATE TABLE call_sessions (call_id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL);
    CREATE INDEX call_sessions_by_session ON call_sessions (session_id);
    CREATE TRIGGER calls_session_removed AFTER DELETE ON calls
        BEGIN DELETE FROM call_sessions WHERE call_id = OLD.id; END;
    CREATE TRIGGER proxy_log_bytes_added AFTER INSERT ON proxy_log
        BEGIN UPDATE totals SET bytes = bytes + length(CAST(NEW.text AS BLOB)) WHERE id = 1; END;
    CREATE TRIGGER proxy_log_bytes_removed AFTER DELETE ON proxy_log
        BEGIN UPDATE totals SET bytes = bytes - length(CAST(OLD.text AS BLOB)) WHERE id = 1; END;
    CREATE TRIGGER proxy_session_removed AFTER DELETE ON proxy_sessions
        BEGIN DELETE FROM proxy_log WHERE session_id = OLD.id; END;",
    // 7: how many more times a read was made again on its own (a subscribed resource's
    // updates): one row with a count instead of a row every few seconds.
    "CREATE TABLE call_repeats (call_id INTEGER PRIMARY KEY, times INTEGER NOT NULL);
    CREATE TRIGGER calls_repeats_removed AFTER DELETE ON calls
        BEGIN DELETE FROM call_repeats WHERE call_id = OLD.id; END;",
    // 8: the server's own name from its handshake (serverInfo), beside the proxy's label for
    // it (often a long command line).
    "ALTER TABLE proxy_sessions ADD COLUMN server_name TEXT;",
    // 9: who recorded each row (the machine and the person), which a team's shared history
    // shows and filters by; a call's in a side table (the response stays last).
    "CREATE TABLE call_origins (call_id INTEGER PRIMARY KEY, machine TEXT NOT NULL, \
        person TEXT NOT NULL);
    CREATE TRIGGER calls_origin_removed AFTER DELETE ON calls
        BEGIN DELETE FROM call_origins WHERE call_id = OLD.id; END;
    ALTER TABLE proxy_sessions ADD COLUMN machine TEXT;
    ALTER TABLE proxy_sessions ADD COLUMN person TEXT;",
];

/// The schema version this build writes.
pub const VERSION: i64 = STEPS.len() as i64;

/// Why the database's schema cannot be brought up to this build's.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SchemaError {
    #[error(
        "it was written by a newer Toolscope (schema version {0}, this one knows up to \
         {VERSION}); update Toolscope or set TOOLSCOPE_DATA_DIR to another folder"
    )]
    Newer(i64),
    #[error("upgrading it to schema version {version}: {source}")]
    Step {
        version: usize,
        source: Arc<rusqlite::Error>,
    },
    #[error("{0}")]
    Sqlite(Arc<rusqlite::Error>),
}

impl From<rusqlite::Error> for SchemaError {
    fn from(error: rusqlite::Error) -> Self {
        Self::Sqlite(Arc::new(error))
    }
}

/// Brings the database up to [`VERSION`]. A database from a newer Toolscope is refused: its
/// tables may mean something this build does not know.
pub fn migrate(connection: &mut Connection) -> Result<(), SchemaError> {
    let version = |connection: &Connection| -> Result<i64, SchemaError> {
        Ok(connection.query_row("PRAGMA user_version", [], |row| row.get(0))?)
    };
    if version(connection)? == VERSION {
        return Ok(());
    }
    // Another Toolscope may be upgrading the same file right now: take the write lock first,
    // then read the version again under it.
    let transaction =
        connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let current = version(&transaction)?;
    if current > VERSION {
        return Err(SchemaError::Newer(current));
    }
    for (at, step) in STEPS
        .iter()
        .enumerate()
        .skip(usize::try_from(current).unwrap_or(0))
    {
        transaction
            .execute_batch(step)
            .and_then(|()| transaction.pragma_update(None, "user_version", at as i64 + 1))
            .map_err(|source| SchemaError::Step {
                version: at + 1,
                source: Arc::new(source),
            })?;
    }
    Ok(transaction.commit()?)
}
