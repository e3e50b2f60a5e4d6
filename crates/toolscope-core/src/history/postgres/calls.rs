//! The calls in PostgreSQL: recorded (stamped with who recorded them), listed, read,
//! annotated, and kept under the size cap.

use postgres::types::ToSql;

use super::{PostgresStore, from_sql, pg_opt_text, pg_text, to_sql};
use crate::history::{
    CallKind, CallQuery, CallStore, HistoryError, HistoryLocation, NewCall, ResponseText,
    StoredCall, Verdict, latency::TimedCall,
};

/// The columns a list reads (the big texts stay in the database), in [`read_call`]'s order.
const LIST_COLUMNS: &str = "id, started_at, duration_ms, server, server_version, \
     protocol_version, tool, request_id, duplicate_responses, listed, verdict, failure, note, \
     bytes, kind, client, session_id, repeats, machine, person";
/// Every column.
const ALL_COLUMNS: &str = "id, started_at, duration_ms, server, server_version, \
     protocol_version, tool, request_id, duplicate_responses, listed, verdict, failure, note, \
     bytes, kind, client, session_id, repeats, machine, person, server_info, arguments, \
     response, output_schema, rounds";

/// The cap is checked after this many bytes or rows recorded (by this writer): it sums every
/// row's size, which a team's large history makes slow.
const CAP_CHECK_BYTES: u64 = 16 * 1024 * 1024;
const CAP_CHECK_ROWS: u64 = 2_000;
/// The advisory lock one trimming writer holds, so two never trim for each other.
const CAP_LOCK: i64 = 0x7001_5c0ca;

/// A value bound to a statement.
type Bound = Box<dyn ToSql + Sync + Send>;

impl CallStore for PostgresStore {
    fn location(&self) -> &HistoryLocation {
        &self.location
    }

    fn record(&mut self, call: &NewCall) -> Result<i64, HistoryError> {
        let response = call.response.as_ref().map(ResponseText::as_str);
        let bytes = call.text_bytes();
        let (machine, person) = self.stamp();
        let id = self.with_client(|client| {
            let row = client.query_one(
                "INSERT INTO calls (kind, started_at, duration_ms, server, server_version, \
                 protocol_version, server_info, tool, arguments, request_id, \
                 duplicate_responses, output_schema, listed, verdict, failure, bytes, \
                 response, rounds, client, machine, person) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, \
                 $16, $17, $18, $19, $20, $21) RETURNING id",
                &[
                    &call.kind.as_str(),
                    &pg_text(&call.started_at),
                    &call.duration_ms.map(to_sql),
                    &pg_text(&call.server),
                    &pg_opt_text(call.server_version.as_deref()),
                    &pg_opt_text(call.protocol_version.as_deref()),
                    &pg_opt_text(call.server_info.as_deref()),
                    &pg_text(&call.tool),
                    &pg_text(&call.arguments),
                    &pg_opt_text(call.request_id.as_deref()),
                    &to_sql(call.duplicate_responses),
                    &pg_opt_text(call.output_schema.as_deref()),
                    &call.listed,
                    &call.verdict.as_str(),
                    &pg_opt_text(call.failure.as_deref()),
                    &to_sql(bytes as u64),
                    &response.map(str::as_bytes),
                    &pg_opt_text(call.rounds.as_deref()),
                    &pg_opt_text(call.client.as_deref()),
                    &machine,
                    &person,
                ],
            )?;
            Ok(row.get::<_, i64>(0))
        })?;
        self.recorded(bytes as u64)?;
        Ok(id)
    }

    fn list(&self, query: &CallQuery) -> Result<Vec<StoredCall>, HistoryError> {
        let (filter, mut values) = conditions(query);
        let limit = match query.limit {
            Some(limit) => {
                values.push(Box::new(to_sql(limit as u64)));
                format!(" LIMIT ${}", values.len())
            }
            None => String::new(),
        };
        let sql = format!("SELECT {LIST_COLUMNS} FROM calls {filter} ORDER BY id DESC{limit}");
        self.with_client(move |client| {
            let bound: Vec<&(dyn ToSql + Sync)> =
                values.iter().map(|value| value.as_ref() as _).collect();
            let rows = client.query(&sql, &bound)?;
            Ok(rows.iter().map(|row| read_call(row, false)).collect())
        })
    }

    fn latency(&self, query: &CallQuery) -> Result<Vec<crate::history::ToolLatency>, HistoryError> {
        let mut narrowed = query.clone();
        narrowed.limit = None;
        narrowed.before_id = None;
        narrowed.after_id = None;
        let (filter, values) = conditions(&narrowed);
        let sql = format!(
            "SELECT server, kind, tool, duration_ms, verdict FROM calls {filter} \
             ORDER BY server, tool"
        );
        let calls = self.with_client(move |client| {
            let bound: Vec<&(dyn ToSql + Sync)> =
                values.iter().map(|value| value.as_ref() as _).collect();
            let rows = client.query(&sql, &bound)?;
            Ok(rows
                .iter()
                .map(|row| TimedCall {
                    server: row.get(0),
                    kind: row.get(1),
                    tool: row.get(2),
                    duration_ms: row.get::<_, Option<i64>>(3).map(from_sql),
                    verdict: row.get(4),
                })
                .collect::<Vec<_>>())
        })?;
        Ok(crate::history::latency::by_tool(calls))
    }

    fn get(&self, id: i64) -> Result<Option<StoredCall>, HistoryError> {
        self.with_client(|client| {
            let sql = format!("SELECT {ALL_COLUMNS} FROM calls WHERE id = $1");
            let row = client.query_opt(&sql, &[&id])?;
            Ok(row.map(|row| read_call(&row, true)))
        })
    }

    fn set_note(&mut self, id: i64, note: &str) -> Result<bool, HistoryError> {
        let note = pg_text(note);
        self.with_client(|client| {
            let changed =
                client.execute("UPDATE calls SET note = $1 WHERE id = $2", &[&note, &id])?;
            Ok(changed > 0)
        })
    }

    fn add_repeat(&mut self, id: i64) -> Result<Option<u64>, HistoryError> {
        self.with_client(|client| {
            let row = client.query_opt(
                "UPDATE calls SET repeats = repeats + 1 WHERE id = $1 RETURNING repeats",
                &[&id],
            )?;
            Ok(row.map(|row| from_sql(row.get(0))))
        })
    }

    fn count(&self) -> Result<u64, HistoryError> {
        self.with_client(|client| {
            Ok(from_sql(
                client.query_one("SELECT count(*) FROM calls", &[])?.get(0),
            ))
        })
    }

    fn total_bytes(&self) -> Result<u64, HistoryError> {
        self.with_client(total_bytes)
    }

    fn cap_bytes(&self) -> Result<u64, HistoryError> {
        self.with_client(cap_bytes)
    }

    fn set_cap_bytes(&mut self, cap: u64) -> Result<(), HistoryError> {
        let value = cap.to_string();
        self.with_client(|client| {
            client.execute(
                "INSERT INTO settings (key, value) VALUES ('cap_bytes', $1) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&value],
            )?;
            keep_under_cap(client)
        })
    }

    fn identity(&mut self) -> Result<String, HistoryError> {
        let made = crate::history::new_identity().map_err(|error| self.query_error(error))?;
        self.with_client(|client| {
            client.execute(
                "INSERT INTO settings (key, value) VALUES ('identity', $1) \
                 ON CONFLICT (key) DO NOTHING",
                &[&made],
            )?;
            let row = client.query_one("SELECT value FROM settings WHERE key = 'identity'", &[])?;
            Ok(row.get(0))
        })
    }
}

impl PostgresStore {
    /// The machine and person this store stamps on its rows.
    pub(super) fn stamp(&self) -> (Option<String>, Option<String>) {
        match &self.recorded_by {
            Some(by) => (
                Some(pg_text(&by.machine).into_owned()),
                Some(pg_text(&by.person).into_owned()),
            ),
            None => (None, None),
        }
    }

    /// Counts what was written; the cap is checked once enough has been.
    pub(super) fn recorded(&mut self, bytes: u64) -> Result<(), HistoryError> {
        let (since_bytes, since_rows) = &mut self.since_cap_check;
        *since_bytes += bytes;
        *since_rows += 1;
        if *since_bytes < CAP_CHECK_BYTES && *since_rows < CAP_CHECK_ROWS {
            return Ok(());
        }
        self.since_cap_check = (0, 0);
        self.with_client(keep_under_cap)
    }
}

/// The WHERE clause of `query`'s filters (empty when none) and the values it binds.
fn conditions(query: &CallQuery) -> (String, Vec<Bound>) {
    let mut conditions: Vec<String> = Vec::new();
    let mut values: Vec<Bound> = Vec::new();
    let mut bind = |value: Bound| {
        values.push(value);
        format!("${}", values.len())
    };
    let text = |value: &str| -> Bound { Box::new(pg_text(value).into_owned()) };
    if let Some(server) = &query.server {
        conditions.push(format!("server = {}", bind(text(server))));
    }
    if let Some(kind) = query.kind {
        conditions.push(format!("kind = {}", bind(text(kind.as_str()))));
    }
    if let Some(tool) = &query.tool {
        conditions.push(format!("tool = {}", bind(text(tool))));
    }
    if let Some(verdict) = query.verdict {
        conditions.push(format!("verdict = {}", bind(text(verdict.as_str()))));
    }
    if let Some(found) = query.text.as_deref().filter(|found| !found.is_empty()) {
        let n = bind(text(&found.to_lowercase()));
        conditions.push(format!(
            "(strpos(lower(tool), {n}) > 0 OR strpos(lower(server), {n}) > 0 \
             OR strpos(lower(note), {n}) > 0 OR strpos(lower(arguments), {n}) > 0)"
        ));
    }
    if let Some(session) = query.session {
        conditions.push(format!("session_id = {}", bind(Box::new(session))));
    } else if query.through_proxy {
        conditions.push("session_id IS NOT NULL".to_owned());
    }
    if let Some(before) = query.before_id {
        conditions.push(format!("id < {}", bind(Box::new(before))));
    }
    if let Some(after) = query.after_id {
        conditions.push(format!("id > {}", bind(Box::new(after))));
    }
    if let Some(machine) = &query.machine {
        conditions.push(format!("machine = {}", bind(text(machine))));
    }
    if let Some(person) = &query.person {
        conditions.push(format!("person = {}", bind(text(person))));
    }
    let filter = if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    };
    (filter, values)
}

/// Drops the oldest calls until the history fits its cap (the newest call always stays); an
/// ended proxied session goes with its log once its calls have gone, and when only logs are
/// left to drop, the oldest ended session goes. One writer trims at a time.
fn keep_under_cap(client: &mut postgres::Client) -> Result<(), postgres::Error> {
    let mut transaction = client.transaction()?;
    transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&CAP_LOCK])?;
    let cap = cap_bytes(&mut transaction)?;
    let mut total = total_bytes(&mut transaction)?;
    while total > cap {
        let oldest = transaction.query(
            "SELECT id, bytes FROM calls WHERE id < (SELECT max(id) FROM calls) \
             ORDER BY id LIMIT 256",
            &[],
        )?;
        if oldest.is_empty() {
            let dropped = transaction.execute(
                "DELETE FROM proxy_sessions WHERE id = \
                 (SELECT min(id) FROM proxy_sessions WHERE ended_at IS NOT NULL)",
                &[],
            )?;
            if dropped == 0 {
                break;
            }
        } else {
            let mut last = 0_i64;
            for row in &oldest {
                last = row.get(0);
                total = total.saturating_sub(from_sql(row.get(1)));
                if total <= cap {
                    break;
                }
            }
            transaction.execute("DELETE FROM calls WHERE id <= $1", &[&last])?;
            transaction.execute(
                "DELETE FROM proxy_sessions WHERE ended_at IS NOT NULL AND NOT EXISTS \
                 (SELECT 1 FROM calls WHERE calls.session_id = proxy_sessions.id)",
                &[],
            )?;
        }
        total = total_bytes(&mut transaction)?;
    }
    transaction.commit()
}

fn cap_bytes(client: &mut impl postgres::GenericClient) -> Result<u64, postgres::Error> {
    let stored = client.query_opt("SELECT value FROM settings WHERE key = 'cap_bytes'", &[])?;
    Ok(stored
        .and_then(|row| row.get::<_, String>(0).parse().ok())
        .unwrap_or(crate::history::DEFAULT_CAP_BYTES))
}

/// The calls' text and the logs' lines, in bytes.
fn total_bytes(client: &mut impl postgres::GenericClient) -> Result<u64, postgres::Error> {
    let row = client.query_one(
        "SELECT (SELECT coalesce(sum(bytes), 0) FROM calls)::BIGINT, \
         (SELECT coalesce(sum(octet_length(text)), 0) FROM proxy_log)::BIGINT",
        &[],
    )?;
    Ok(from_sql(row.get(0)).saturating_add(from_sql(row.get(1))))
}

/// A call from a row of [`LIST_COLUMNS`] (or [`ALL_COLUMNS`] when `whole`).
fn read_call(row: &postgres::Row, whole: bool) -> StoredCall {
    let verdict: String = row.get(10);
    let kind: String = row.get(14);
    StoredCall {
        id: row.get(0),
        kind: CallKind::parse(&kind).unwrap_or_default(),
        client: row.get(15),
        session: row.get(16),
        started_at: row.get(1),
        duration_ms: row.get::<_, Option<i64>>(2).map(from_sql),
        server: row.get(3),
        server_version: row.get(4),
        protocol_version: row.get(5),
        tool: row.get(6),
        request_id: row.get(7),
        duplicate_responses: from_sql(row.get(8)),
        listed: row.get(9),
        verdict: Verdict::parse(&verdict).unwrap_or(Verdict::Failed),
        failure: row.get(11),
        note: row.get(12),
        bytes: from_sql(row.get(13)),
        repeats: from_sql(row.get(17)),
        machine: row.get(18),
        person: row.get(19),
        server_info: if whole { row.get(20) } else { None },
        arguments: if whole { row.get(21) } else { String::new() },
        response: if whole {
            row.get::<_, Option<Vec<u8>>>(22).map(|bytes| {
                String::from_utf8(bytes)
                    .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
            })
        } else {
            None
        },
        output_schema: if whole { row.get(23) } else { None },
        rounds: if whole { row.get(24) } else { None },
    }
}
