//! The history database: open, record, list, read, annotate, and keep under its size cap.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension as _, Row, params, params_from_iter, types::Value};

use super::{
    CallKind, CallQuery, CallStore, HistoryLocation, NewCall, RecordedBy, ResponseText, StoredCall,
    Verdict, schema,
};

/// The history's default size cap: 1 GB of call text; the oldest calls go first.
pub const DEFAULT_CAP_BYTES: u64 = 1_000_000_000;

/// How much of a response goes to SQLite at a time.
const RESPONSE_PIECE: usize = 256 * 1024;

/// How long a write waits for another Toolscope (a window and a CLI share the file).
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

#[derive(Debug, Clone, thiserror::Error)]
pub enum HistoryError {
    #[error("the history database {location} cannot be used: {reason}")]
    Open {
        location: HistoryLocation,
        reason: String,
    },
    #[error("the history database {location}: {reason}")]
    Query {
        location: HistoryLocation,
        reason: String,
    },
}

/// The history in a SQLite file (or in memory): the local backend, and the default.
pub struct SqliteStore {
    pub(super) connection: Connection,
    pub(super) location: HistoryLocation,
    /// Who the rows it records are stamped with (`None`: a recording's copy in memory).
    pub(super) recorded_by: Option<RecordedBy>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("location", &self.location)
            .finish()
    }
}

/// A call's kind: a read or a prompt has a row in `call_kinds`, a tool call none.
const KIND: &str = "coalesce((SELECT kind FROM call_kinds WHERE call_id = calls.id), 'call')";
/// The client a call came from through a proxy (none for Toolscope's own).
const CLIENT: &str = "(SELECT client FROM call_clients WHERE call_id = calls.id)";
/// The proxied session a call came through (none for Toolscope's own).
const SESSION: &str = "(SELECT session_id FROM call_sessions WHERE call_id = calls.id)";
/// How many more times the call was made again on its own.
const REPEATS: &str = "coalesce((SELECT times FROM call_repeats WHERE call_id = calls.id), 0)";
/// The machine and the person that recorded the call.
const MACHINE: &str = "(SELECT machine FROM call_origins WHERE call_id = calls.id)";
const PERSON: &str = "(SELECT person FROM call_origins WHERE call_id = calls.id)";

/// The columns a list reads (the big texts stay in the database).
fn list_columns() -> String {
    format!(
        "id, started_at, duration_ms, server, server_version, protocol_version, tool, \
         request_id, duplicate_responses, listed, verdict, failure, note, bytes, {KIND}, {CLIENT}, \
         {SESSION}, {REPEATS}, {MACHINE}, {PERSON}"
    )
}

/// Every column.
fn all_columns() -> String {
    format!(
        "{}, server_info, arguments, response, output_schema",
        list_columns()
    )
}

impl SqliteStore {
    /// Opens (creating it and its folder if needed) and upgrades the database at `path`.
    pub fn open(path: &Path, recorded_by: Option<RecordedBy>) -> Result<Self, HistoryError> {
        let failed = |reason: String| HistoryError::Open {
            location: HistoryLocation::File(path.to_owned()),
            reason,
        };
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder)
                .map_err(|error| failed(format!("its folder cannot be created: {error}")))?;
        }
        create_private(path).map_err(|error| failed(format!("it cannot be created: {error}")))?;
        let connection = Connection::open(path).map_err(|error| failed(error.to_string()))?;
        Self::prepare(connection, path.to_owned(), recorded_by)
            .map_err(|error| failed(error.to_string()))
    }

    /// A database in memory (tests).
    pub fn in_memory() -> Result<Self, HistoryError> {
        let path = PathBuf::from(":memory:");
        let failed = |error: &dyn std::fmt::Display| HistoryError::Open {
            location: HistoryLocation::File(path.clone()),
            reason: error.to_string(),
        };
        let connection = Connection::open_in_memory().map_err(|error| failed(&error))?;
        Self::prepare(connection, path.clone(), None).map_err(|error| failed(&error))
    }

    fn prepare(
        mut connection: Connection,
        path: PathBuf,
        recorded_by: Option<RecordedBy>,
    ) -> Result<Self, schema::SchemaError> {
        connection.busy_timeout(BUSY_TIMEOUT)?;
        // Space freed by the cap goes back to the disk, and the WAL does not stay at the size of
        // the biggest response ever written. auto_vacuum takes on a new file only, and only
        // before it becomes a WAL file.
        when_not_busy(|| {
            connection
                .pragma_update(None, "auto_vacuum", "INCREMENTAL")
                .and_then(|()| {
                    connection.pragma_update(None, "journal_size_limit", 64 * 1024 * 1024)
                })
        })?;
        // Readers (a window) and a writer (a CLI) at once. With WAL, `synchronous = NORMAL`
        // never corrupts the file; a power cut may lose the last calls, and no commit waits on
        // the disk.
        let _: String = when_not_busy(|| {
            connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
        })?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        // SQLite's lower() folds ASCII only: searches fold case as Rust does.
        connection.create_scalar_function(
            "fold_case",
            1,
            rusqlite::functions::FunctionFlags::SQLITE_UTF8
                | rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
            |context| {
                let text: Option<String> = context.get(0)?;
                Ok(text.map(|text| text.to_lowercase()))
            },
        )?;
        schema::migrate(&mut connection)?;
        Ok(Self {
            connection,
            location: HistoryLocation::File(path),
            recorded_by,
        })
    }

    pub(super) fn query_error(&self, error: impl std::fmt::Display) -> HistoryError {
        HistoryError::Query {
            location: self.location.clone(),
            reason: error.to_string(),
        }
    }
}

impl CallStore for SqliteStore {
    fn location(&self) -> &HistoryLocation {
        &self.location
    }

    /// Records a call and returns its id; the oldest calls go if the history is over its cap.
    /// The response is streamed into its row in pieces: a 50 MB response is not copied whole
    /// into SQLite's memory on its way to the file.
    fn record(&mut self, call: &NewCall) -> Result<i64, HistoryError> {
        let response = call.response.as_ref().map(ResponseText::as_str);
        let bytes = call.text_bytes();
        let location = self.location.clone();
        let failed = |error: rusqlite::Error| HistoryError::Query {
            location: location.clone(),
            reason: error.to_string(),
        };
        // The write lock first: the insert and the cap below see every other writer's rows.
        let transaction = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(failed)?;
        // The response's room is made with zeroblob (the record's last column, so SQLite keeps
        // it a zero tail) and filled piece by piece below.
        let room = if response.is_some() {
            "zeroblob(?16)"
        } else {
            "?16"
        };
        transaction
            .execute(
                &format!(
                    "INSERT INTO calls (started_at, duration_ms, server, server_version, \
                     protocol_version, server_info, tool, arguments, request_id, \
                     duplicate_responses, output_schema, listed, verdict, failure, bytes, \
                     response) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, \
                     {room})"
                ),
                params![
                    call.started_at,
                    call.duration_ms.map(to_sql),
                    call.server,
                    call.server_version,
                    call.protocol_version,
                    call.server_info,
                    call.tool,
                    call.arguments,
                    call.request_id,
                    to_sql(call.duplicate_responses),
                    call.output_schema,
                    call.listed,
                    call.verdict.as_str(),
                    call.failure,
                    to_sql(bytes as u64),
                    response.map(|text| to_sql(text.len() as u64)),
                ],
            )
            .map_err(failed)?;
        let id = transaction.last_insert_rowid();
        if let Some(text) = response.filter(|text| !text.is_empty()) {
            let mut blob = transaction
                .blob_open(rusqlite::MAIN_DB, "calls", "response", id, false)
                .map_err(failed)?;
            for piece in text.as_bytes().chunks(RESPONSE_PIECE) {
                std::io::Write::write_all(&mut blob, piece).map_err(|error| {
                    HistoryError::Query {
                        location: location.clone(),
                        reason: format!("writing the response: {error}"),
                    }
                })?;
            }
            blob.close().map_err(failed)?;
        }
        if let Some(client) = &call.client {
            transaction
                .execute(
                    "INSERT INTO call_clients (call_id, client) VALUES (?1, ?2)",
                    params![id, client],
                )
                .map_err(failed)?;
        }
        if call.kind != CallKind::Call {
            transaction
                .execute(
                    "INSERT INTO call_kinds (call_id, kind) VALUES (?1, ?2)",
                    params![id, call.kind.as_str()],
                )
                .map_err(failed)?;
        }
        if let Some(rounds) = &call.rounds {
            transaction
                .execute(
                    "INSERT INTO call_rounds (call_id, rounds) VALUES (?1, ?2)",
                    params![id, rounds],
                )
                .map_err(failed)?;
        }
        if let Some(by) = &self.recorded_by {
            transaction
                .execute(
                    "INSERT INTO call_origins (call_id, machine, person) VALUES (?1, ?2, ?3)",
                    params![id, by.machine, by.person],
                )
                .map_err(failed)?;
        }
        keep_under_cap(&transaction).map_err(failed)?;
        transaction.commit().map_err(failed)?;
        // Best effort: give the pages the cap freed back to the disk.
        let _ = self.connection.execute_batch("PRAGMA incremental_vacuum");
        Ok(id)
    }

    /// The calls `query` asks for, newest first, without their big texts.
    fn list(&self, query: &CallQuery) -> Result<Vec<StoredCall>, HistoryError> {
        let (filter, values) = conditions(query);
        let limit = query
            .limit
            .map(|limit| format!(" LIMIT {limit}"))
            .unwrap_or_default();
        let sql = format!(
            "SELECT {} FROM calls {filter} ORDER BY id DESC{limit}",
            list_columns()
        );
        let mut statement = self
            .connection
            .prepare_cached(&sql)
            .map_err(|error| self.query_error(error))?;
        let rows = statement
            .query_map(params_from_iter(values), |row| read_call(row, false))
            .map_err(|error| self.query_error(error))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|error| self.query_error(error))
    }

    /// Each tool's durations (per server and kind) among the calls `query` selects (its
    /// limit and paging are not used), the most called first.
    fn latency(&self, query: &CallQuery) -> Result<Vec<super::ToolLatency>, HistoryError> {
        let mut narrowed = query.clone();
        narrowed.limit = None;
        narrowed.before_id = None;
        narrowed.after_id = None;
        let (filter, values) = conditions(&narrowed);
        let sql = format!(
            "SELECT server, {KIND}, tool, duration_ms, verdict FROM calls {filter} \
             ORDER BY server, tool"
        );
        let mut statement = self
            .connection
            .prepare_cached(&sql)
            .map_err(|error| self.query_error(error))?;
        let rows = statement
            .query_map(params_from_iter(values), |row| {
                Ok(super::latency::TimedCall {
                    server: row.get(0)?,
                    kind: row.get(1)?,
                    tool: row.get(2)?,
                    duration_ms: row.get::<_, Option<i64>>(3)?.map(from_sql),
                    verdict: row.get(4)?,
                })
            })
            .map_err(|error| self.query_error(error))?;
        let calls = rows
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| self.query_error(error))?;
        Ok(super::latency::by_tool(calls))
    }

    /// One call with everything kept about it.
    fn get(&self, id: i64) -> Result<Option<StoredCall>, HistoryError> {
        let Some(mut call) = self
            .connection
            .query_row(
                &format!("SELECT {} FROM calls WHERE id = ?1", all_columns()),
                [id],
                |row| read_call(row, true),
            )
            .optional()
            .map_err(|error| self.query_error(error))?
        else {
            return Ok(None);
        };
        call.rounds = self
            .connection
            .query_row(
                "SELECT rounds FROM call_rounds WHERE call_id = ?1",
                [id],
                |row| row.get(0),
            )
            .optional()
            .map_err(|error| self.query_error(error))?;
        Ok(Some(call))
    }

    /// Sets the note of call `id`; false when there is no such call.
    fn set_note(&mut self, id: i64, note: &str) -> Result<bool, HistoryError> {
        let changed = self
            .connection
            .execute(
                "UPDATE calls SET note = ?1 WHERE id = ?2",
                params![note, id],
            )
            .map_err(|error| self.query_error(error))?;
        Ok(changed > 0)
    }

    fn add_repeat(&mut self, id: i64) -> Result<Option<u64>, HistoryError> {
        let times = self
            .connection
            .query_row(
                "INSERT INTO call_repeats (call_id, times) SELECT id, 1 FROM calls WHERE id = ?1 \
                 ON CONFLICT (call_id) DO UPDATE SET times = times + 1 RETURNING times",
                params![id],
                |row| row.get::<_, i64>(0),
            )
            .optional()
            .map_err(|error| self.query_error(error))?;
        Ok(times.map(from_sql))
    }

    fn count(&self) -> Result<u64, HistoryError> {
        self.connection
            .query_row("SELECT count(*) FROM calls", [], |row| row.get(0))
            .map(from_sql)
            .map_err(|error| self.query_error(error))
    }

    /// Bytes of call text held.
    fn total_bytes(&self) -> Result<u64, HistoryError> {
        read_total_bytes(&self.connection).map_err(|error| self.query_error(error))
    }

    /// The size cap (bytes of call text), kept in the database so the window and the command
    /// line honour the same one.
    fn cap_bytes(&self) -> Result<u64, HistoryError> {
        read_cap_bytes(&self.connection).map_err(|error| self.query_error(error))
    }

    fn set_cap_bytes(&mut self, cap: u64) -> Result<(), HistoryError> {
        let failed = |error: rusqlite::Error| HistoryError::Query {
            location: self.location.clone(),
            reason: error.to_string(),
        };
        let transaction = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(failed)?;
        transaction
            .execute(
                "INSERT INTO settings (key, value) VALUES ('cap_bytes', ?1) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [cap.to_string()],
            )
            .and_then(|_| keep_under_cap(&transaction))
            .and_then(|()| transaction.commit())
            .map_err(failed)
    }

    fn identity(&mut self) -> Result<String, HistoryError> {
        let made = super::new_identity().map_err(|error| self.query_error(error))?;
        // Another Toolscope may make one at the same moment: the first one stays.
        self.connection
            .execute(
                "INSERT INTO settings (key, value) VALUES ('identity', ?1) \
                 ON CONFLICT (key) DO NOTHING",
                [made],
            )
            .and_then(|_| {
                self.connection.query_row(
                    "SELECT value FROM settings WHERE key = 'identity'",
                    [],
                    |row| row.get(0),
                )
            })
            .map_err(|error| self.query_error(error))
    }
}

/// The WHERE clause of `query`'s filters (empty when none) and the values it binds.
fn conditions(query: &CallQuery) -> (String, Vec<Value>) {
    let mut conditions: Vec<String> = Vec::new();
    let mut values: Vec<Value> = Vec::new();
    // Each value gets the next number; a condition may use its number more than once.
    let mut bind = |value: Value| {
        values.push(value);
        format!("?{}", values.len())
    };
    if let Some(server) = &query.server {
        conditions.push(format!("server = {}", bind(Value::Text(server.clone()))));
    }
    if let Some(kind) = query.kind {
        let word = Value::Text(kind.as_str().to_owned());
        conditions.push(format!("{KIND} = {}", bind(word)));
    }
    if let Some(tool) = &query.tool {
        conditions.push(format!("tool = {}", bind(Value::Text(tool.clone()))));
    }
    if let Some(verdict) = query.verdict {
        let word = Value::Text(verdict.as_str().to_owned());
        conditions.push(format!("verdict = {}", bind(word)));
    }
    if let Some(text) = query.text.as_deref().filter(|text| !text.is_empty()) {
        let n = bind(Value::Text(text.to_lowercase()));
        conditions.push(format!(
            "(instr(fold_case(tool), {n}) OR instr(fold_case(server), {n}) \
             OR instr(fold_case(note), {n}) OR instr(fold_case(arguments), {n}))"
        ));
    }
    if let Some(session) = query.session {
        conditions.push(format!(
            "id IN (SELECT call_id FROM call_sessions WHERE session_id = {})",
            bind(Value::Integer(session))
        ));
    } else if query.through_proxy {
        conditions.push("id IN (SELECT call_id FROM call_sessions)".to_owned());
    }
    if let Some(before) = query.before_id {
        conditions.push(format!("id < {}", bind(Value::Integer(before))));
    }
    if let Some(after) = query.after_id {
        conditions.push(format!("id > {}", bind(Value::Integer(after))));
    }
    if let Some(machine) = &query.machine {
        conditions.push(format!(
            "{MACHINE} = {}",
            bind(Value::Text(machine.clone()))
        ));
    }
    if let Some(person) = &query.person {
        conditions.push(format!("{PERSON} = {}", bind(Value::Text(person.clone()))));
    }
    let filter = if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    };
    (filter, values)
}

/// Drops the oldest calls until the history fits its cap; the newest call always stays. A
/// proxy session goes (with its protocol log) once it has ended and its calls have gone; when
/// only logs are left to drop, the oldest ended session goes. Runs inside the caller's write
/// transaction, so two Toolscopes never trim for each other.
fn keep_under_cap(connection: &Connection) -> rusqlite::Result<()> {
    let cap = read_cap_bytes(connection)?;
    let mut total = read_total_bytes(connection)?;
    while total > cap {
        let oldest: Vec<(i64, u64)> = {
            let mut statement = connection.prepare_cached(
                "SELECT id, bytes FROM calls WHERE id < (SELECT max(id) FROM calls) \
                 ORDER BY id LIMIT 256",
            )?;
            let rows = statement.query_map([], |row| Ok((row.get(0)?, from_sql(row.get(1)?))))?;
            rows.collect::<Result<_, _>>()?
        };
        if let Some(&(first, _)) = oldest.first() {
            let mut last = first;
            for (id, bytes) in oldest {
                last = id;
                total = total.saturating_sub(bytes);
                if total <= cap {
                    break;
                }
            }
            connection.execute("DELETE FROM calls WHERE id <= ?1", [last])?;
            connection.execute(
                "DELETE FROM proxy_sessions WHERE ended_at IS NOT NULL \
                 AND id NOT IN (SELECT session_id FROM call_sessions)",
                [],
            )?;
        } else {
            let dropped = connection.execute(
                "DELETE FROM proxy_sessions WHERE id = \
                 (SELECT min(id) FROM proxy_sessions WHERE ended_at IS NOT NULL)",
                [],
            )?;
            if dropped == 0 {
                break;
            }
        }
        total = read_total_bytes(connection)?;
    }
    Ok(())
}

fn read_cap_bytes(connection: &Connection) -> rusqlite::Result<u64> {
    let stored: Option<String> = connection
        .query_row(
            "SELECT value FROM settings WHERE key = 'cap_bytes'",
            [],
            |row| row.get(0),
        )
        .optional()?;
    Ok(stored
        .and_then(|value| value.parse().ok())
        .unwrap_or(DEFAULT_CAP_BYTES))
}

/// The calls' total size, kept by the schema's triggers (no sum over every call).
fn read_total_bytes(connection: &Connection) -> rusqlite::Result<u64> {
    connection
        .query_row("SELECT bytes FROM totals WHERE id = 1", [], |row| {
            row.get(0)
        })
        .map(from_sql)
}

/// Creates the database file readable by its owner only (it holds arguments and responses);
/// SQLite gives its -wal and -shm files the same permissions.
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path).map(drop)
}

/// Runs `step` again while another connection holds the lock, up to [`BUSY_TIMEOUT`]. Switching
/// a new file to WAL takes a lock SQLite does not wait for (it answers "database is locked" at
/// once when another Toolscope opens the same new file at the same moment).
fn when_not_busy<T>(mut step: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match step() {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if error.code == rusqlite::ErrorCode::DatabaseBusy
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

/// SQLite integers are signed.
fn to_sql(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn from_sql(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

fn read_call(row: &Row<'_>, whole: bool) -> rusqlite::Result<StoredCall> {
    let verdict: String = row.get(10)?;
    let kind: String = row.get(14)?;
    Ok(StoredCall {
        id: row.get(0)?,
        kind: CallKind::parse(&kind).unwrap_or_default(),
        client: row.get(15)?,
        session: row.get(16)?,
        started_at: row.get(1)?,
        duration_ms: row.get::<_, Option<i64>>(2)?.map(from_sql),
        server: row.get(3)?,
        server_version: row.get(4)?,
        protocol_version: row.get(5)?,
        tool: row.get(6)?,
        request_id: row.get(7)?,
        duplicate_responses: from_sql(row.get(8)?),
        listed: row.get(9)?,
        verdict: Verdict::parse(&verdict).unwrap_or(Verdict::Failed),
        failure: row.get(11)?,
        note: row.get(12)?,
        bytes: from_sql(row.get(13)?),
        repeats: from_sql(row.get(17)?),
        machine: row.get(18)?,
        person: row.get(19)?,
        server_info: if whole { row.get(20)? } else { None },
        arguments: if whole { row.get(21)? } else { String::new() },
        // Stored as the bytes it arrived as (streamed in as a blob); it is UTF-8 text.
        response: if whole {
            row.get::<_, Option<Vec<u8>>>(22)?.map(|bytes| {
                String::from_utf8(bytes)
                    .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
            })
        } else {
            None
        },
        output_schema: if whole { row.get(23)? } else { None },
        rounds: None,
    })
}
