//! Rows pushed from another history (`toolscope history push`): each keeps who recorded it
//! and carries its origin (the history it came from and its id there), so a row pushed twice
//! is found, not doubled.

use std::collections::HashMap;

use super::{PostgresStore, pg_opt_text, pg_text, to_sql};
use crate::history::{HistoryError, LogLine, ProxySession, RecordedBy, StoredCall};

impl PostgresStore {
    /// A proxied session from another history: its id here, and whether it is new.
    pub(crate) fn push_session(
        &mut self,
        origin: &str,
        session: &ProxySession,
        by: &RecordedBy,
    ) -> Result<(i64, bool), HistoryError> {
        let text = |value: &str| pg_text(value).into_owned();
        let opt = |value: &Option<String>| pg_opt_text(value.as_deref()).map(|t| t.into_owned());
        let values = (
            text(&session.started_at),
            opt(&session.ended_at),
            text(&session.server),
            opt(&session.server_name),
            opt(&session.client),
            opt(&session.protocol_version),
            opt(&session.server_version),
            opt(&session.ending),
            opt(&session.stderr_tail),
            to_sql(session.log_dropped),
            text(session.machine.as_deref().unwrap_or(&by.machine)),
            text(session.person.as_deref().unwrap_or(&by.person)),
        );
        let origin = text(origin);
        self.with_client(|client| {
            let row = client.query_one(
                "INSERT INTO proxy_sessions (started_at, ended_at, server, server_name, client, \
                 protocol_version, server_version, ending, stderr_tail, log_dropped, machine, \
                 person, origin) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
                 ON CONFLICT (origin) DO UPDATE SET origin = EXCLUDED.origin \
                 RETURNING id, (xmax = 0)",
                &[
                    &values.0, &values.1, &values.2, &values.3, &values.4, &values.5, &values.6,
                    &values.7, &values.8, &values.9, &values.10, &values.11, &origin,
                ],
            )?;
            Ok((row.get(0), row.get(1)))
        })
    }

    /// A call from another history (read whole), in the session `session` here: its id
    /// here, and whether it is new. A call pushed again brings its note and repeats.
    pub(crate) fn push_call(
        &mut self,
        origin: &str,
        call: &StoredCall,
        session: Option<i64>,
        by: &RecordedBy,
    ) -> Result<(i64, bool), HistoryError> {
        let text = |value: &str| pg_text(value).into_owned();
        let opt = |value: &Option<String>| pg_opt_text(value.as_deref()).map(|t| t.into_owned());
        let strings = [
            text(call.kind.as_str()),
            text(&call.started_at),
            text(&call.server),
            text(&call.tool),
            text(&call.arguments),
            text(call.verdict.as_str()),
            text(&call.note),
            text(call.machine.as_deref().unwrap_or(&by.machine)),
            text(call.person.as_deref().unwrap_or(&by.person)),
            text(origin),
        ];
        let optional = [
            opt(&call.server_version),
            opt(&call.protocol_version),
            opt(&call.server_info),
            opt(&call.request_id),
            opt(&call.output_schema),
            opt(&call.failure),
            opt(&call.rounds),
            opt(&call.client),
        ];
        let numbers = (
            call.duration_ms.map(to_sql),
            to_sql(call.duplicate_responses),
            to_sql(call.bytes),
            to_sql(call.repeats),
        );
        let response = call.response.as_deref().map(str::as_bytes);
        let (id, new) = self.with_client(|client| {
            let row = client.query_one(
                "INSERT INTO calls (kind, started_at, server, tool, arguments, verdict, note, \
                 machine, person, origin, server_version, protocol_version, server_info, \
                 request_id, output_schema, failure, rounds, client, duration_ms, \
                 duplicate_responses, bytes, repeats, listed, response, session_id) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, \
                 $17, $18, $19, $20, $21, $22, $23, $24, $25) \
                 ON CONFLICT (origin) DO UPDATE SET note = EXCLUDED.note, \
                 repeats = EXCLUDED.repeats RETURNING id, (xmax = 0)",
                &[
                    &strings[0],
                    &strings[1],
                    &strings[2],
                    &strings[3],
                    &strings[4],
                    &strings[5],
                    &strings[6],
                    &strings[7],
                    &strings[8],
                    &strings[9],
                    &optional[0],
                    &optional[1],
                    &optional[2],
                    &optional[3],
                    &optional[4],
                    &optional[5],
                    &optional[6],
                    &optional[7],
                    &numbers.0,
                    &numbers.1,
                    &numbers.2,
                    &numbers.3,
                    &call.listed,
                    &response,
                    &session,
                ],
            )?;
            Ok((row.get::<_, i64>(0), row.get::<_, bool>(1)))
        })?;
        if new {
            self.recorded(call.bytes)?;
        }
        Ok((id, new))
    }

    /// A pushed session's log lines, their calls named by their ids here (`calls`: the other
    /// history's ids to these).
    pub(crate) fn push_log(
        &mut self,
        session: i64,
        lines: &[LogLine],
        calls: &HashMap<i64, i64>,
    ) -> Result<(), HistoryError> {
        let new_lines: Vec<crate::history::NewLogLine> = lines
            .iter()
            .map(|line| crate::history::NewLogLine {
                at_ms: line.at_ms,
                side: line.side,
                text: line.text.clone(),
                flag: line.flag.clone(),
                call_id: line.call_id.and_then(|id| calls.get(&id).copied()),
            })
            .collect();
        crate::history::SessionStore::append_proxy_log(self, session, &new_lines)
    }
}
