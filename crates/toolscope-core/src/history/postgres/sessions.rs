//! The proxied sessions in PostgreSQL, their protocol logs, and the change stamp a window
//! follows: read again only when the database announced a change (`LISTEN`), so a window
//! watching a quiet team history sends it nothing.

use postgres::fallible_iterator::FallibleIterator as _;

use super::{Announced, CHANGES_CHANNEL, PostgresStore, from_sql, pg_opt_text, pg_text, to_sql};
use crate::history::{
    ChangeStamp, HistoryError, LogLine, LogSide, NewLogLine, ProxySession, SessionDescription,
    SessionEnding, SessionStore,
};

/// How long a stamp read waits for announcements already on their way.
const ANNOUNCEMENT_WAIT: std::time::Duration = std::time::Duration::from_millis(5);

/// The sessions' columns a list reads, in [`read_session`]'s order.
const SESSION_COLUMNS: &str = "id, started_at, ended_at, server, client, protocol_version, \
     server_version, ending, stderr_tail, log_dropped, \
     (SELECT count(*) FROM calls WHERE calls.session_id = proxy_sessions.id), \
     (SELECT count(*) FROM proxy_log WHERE proxy_log.session_id = proxy_sessions.id), \
     server_name, machine, person";

impl SessionStore for PostgresStore {
    fn begin_proxy_session(&mut self, server: &str, started_at: &str) -> Result<i64, HistoryError> {
        let (machine, person) = self.stamp();
        let (server, started_at) = (pg_text(server), pg_text(started_at));
        self.with_client(|client| {
            let row = client.query_one(
                "INSERT INTO proxy_sessions (started_at, server, machine, person) \
                 VALUES ($1, $2, $3, $4) RETURNING id",
                &[&started_at, &server, &machine, &person],
            )?;
            Ok(row.get(0))
        })
    }

    fn describe_proxy_session(
        &mut self,
        session: i64,
        described: &SessionDescription,
    ) -> Result<(), HistoryError> {
        let client_name = pg_opt_text(described.client.as_deref());
        let protocol = pg_opt_text(described.protocol_version.as_deref());
        let version = pg_opt_text(described.server_version.as_deref());
        let name = pg_opt_text(described.server_name.as_deref());
        self.with_client(|client| {
            client.execute(
                "UPDATE proxy_sessions SET client = coalesce($2, client), \
                 protocol_version = coalesce($3, protocol_version), \
                 server_version = coalesce($4, server_version), \
                 server_name = coalesce($5, server_name) WHERE id = $1",
                &[&session, &client_name, &protocol, &version, &name],
            )?;
            Ok(())
        })
    }

    fn link_call_to_session(&mut self, call: i64, session: i64) -> Result<(), HistoryError> {
        self.with_client(|client| {
            client.execute(
                "UPDATE calls SET session_id = $2 WHERE id = $1",
                &[&call, &session],
            )?;
            Ok(())
        })
    }

    /// The lines in one statement (arrays unnested): a flood of 100,000 lines is a few
    /// round trips, not 100,000.
    fn append_proxy_log(&mut self, session: i64, lines: &[NewLogLine]) -> Result<(), HistoryError> {
        if lines.is_empty() {
            return Ok(());
        }
        let at: Vec<i64> = lines.iter().map(|line| to_sql(line.at_ms)).collect();
        let sides: Vec<&str> = lines.iter().map(|line| line.side.as_str()).collect();
        let texts: Vec<&[u8]> = lines.iter().map(|line| line.text.as_bytes()).collect();
        let flags: Vec<Option<String>> = lines
            .iter()
            .map(|line| line.flag.as_deref().map(|flag| pg_text(flag).into_owned()))
            .collect();
        let calls: Vec<Option<i64>> = lines.iter().map(|line| line.call_id).collect();
        let bytes: u64 = lines.iter().map(|line| line.text.len() as u64).sum();
        self.with_client(|client| {
            client.execute(
                "INSERT INTO proxy_log (session_id, at_ms, side, text, flag, call_id) \
                 SELECT $1, * FROM unnest($2::BIGINT[], $3::TEXT[], $4::BYTEA[], $5::TEXT[], \
                 $6::BIGINT[])",
                &[&session, &at, &sides, &texts, &flags, &calls],
            )?;
            Ok(())
        })?;
        self.recorded(bytes)
    }

    fn end_proxy_session(
        &mut self,
        session: i64,
        ended_at: &str,
        ending: &SessionEnding,
    ) -> Result<(), HistoryError> {
        let ended_at = pg_text(ended_at);
        let words = pg_text(&ending.ending);
        let tail = pg_text(&ending.stderr_tail);
        let dropped = to_sql(ending.log_dropped);
        self.with_client(|client| {
            client.execute(
                "UPDATE proxy_sessions SET ended_at = $2, ending = $3, stderr_tail = $4, \
                 log_dropped = $5 WHERE id = $1",
                &[&session, &ended_at, &words, &tail, &dropped],
            )?;
            Ok(())
        })
    }

    fn proxy_sessions(&self, limit: usize) -> Result<Vec<ProxySession>, HistoryError> {
        let limit = to_sql(limit as u64);
        self.with_client(|client| {
            let sql =
                format!("SELECT {SESSION_COLUMNS} FROM proxy_sessions ORDER BY id DESC LIMIT $1");
            let rows = client.query(&sql, &[&limit])?;
            Ok(rows.iter().map(read_session).collect())
        })
    }

    fn proxy_session(&self, session: i64) -> Result<Option<ProxySession>, HistoryError> {
        self.with_client(|client| {
            let sql = format!("SELECT {SESSION_COLUMNS} FROM proxy_sessions WHERE id = $1");
            Ok(client
                .query_opt(&sql, &[&session])?
                .as_ref()
                .map(read_session))
        })
    }

    fn proxy_log(
        &self,
        session: i64,
        after: i64,
        limit: usize,
    ) -> Result<Vec<LogLine>, HistoryError> {
        let limit = to_sql(limit as u64);
        self.read_log(
            "SELECT id, at_ms, side, text, flag, call_id FROM proxy_log \
             WHERE session_id = $1 AND id > $2 ORDER BY id LIMIT $3",
            (session, after, limit),
        )
    }

    fn proxy_log_from(
        &self,
        session: i64,
        first: u64,
        limit: usize,
    ) -> Result<Vec<LogLine>, HistoryError> {
        let limit = to_sql(limit as u64);
        self.read_log(
            "SELECT id, at_ms, side, text, flag, call_id FROM proxy_log \
             WHERE session_id = $1 ORDER BY id OFFSET $2 LIMIT $3",
            (session, to_sql(first), limit),
        )
    }

    /// The stamp, read again only when something moved since it was last read: a change
    /// announced on the channel (sessions, notes), or an id given out for a call or a log
    /// line (their sequences are read, not their tables: a row added makes no announcement,
    /// which would make every writer's commit wait on the others'). The first read starts
    /// listening.
    fn change_stamp(&self) -> Result<ChangeStamp, HistoryError> {
        self.with_link(|link| {
            if !link.listening {
                link.client
                    .batch_execute(&format!("LISTEN {CHANGES_CHANNEL}"))?;
                link.listening = true;
            }
            let mut heard = Announced::default();
            {
                // A short wait, not `iter()`: the client's runtime must turn for the socket's
                // news to be read at all.
                let mut notifications = link.client.notifications();
                let mut pending = notifications.timeout_iter(ANNOUNCEMENT_WAIT);
                while let Some(notification) = pending.next()? {
                    match notification.payload() {
                        "calls" => heard.calls += 1,
                        _ => heard.others += 1,
                    }
                }
            }
            let given_out = link.client.query_one(
                "SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END \
                 FROM calls_id_seq), (SELECT CASE WHEN is_called THEN last_value ELSE 0 END \
                 FROM proxy_log_id_seq)",
                &[],
            )?;
            let given_out = (given_out.get(0), given_out.get(1));
            if let Some(before) = link.given_out.replace(given_out) {
                if given_out.0 != before.0 {
                    heard.calls += 1;
                }
                if given_out.1 != before.1 {
                    heard.others += 1;
                }
            }
            let moved = heard.calls + heard.others > 0;
            if !moved && link.settling {
                // Once more after a move: what committed since is listed too.
                heard.calls += 1;
                heard.others += 1;
            }
            link.settling = moved;
            link.announced.calls += heard.calls;
            link.announced.others += heard.others;
            let quiet = heard.calls == 0 && heard.others == 0;
            if let Some(stamp) = link.stamp.filter(|_| quiet) {
                return Ok(stamp);
            }
            let row = link.client.query_one(
                "SELECT (SELECT coalesce(max(id), 0) FROM calls), \
                 (SELECT coalesce(max(id), 0) FROM proxy_sessions), \
                 (SELECT count(*) FROM proxy_sessions WHERE ended_at IS NOT NULL), \
                 (SELECT count(*) FROM proxy_sessions WHERE client IS NOT NULL), \
                 (SELECT coalesce(max(id), 0) FROM proxy_log)",
                &[],
            )?;
            let stamp = ChangeStamp {
                newest_call: row.get(0),
                sessions: [row.get(1), row.get(2), row.get(3)],
                newest_log_line: row.get(4),
                calls_announced: link.announced.calls,
                others_announced: link.announced.others,
            };
            link.stamp = Some(stamp);
            Ok(stamp)
        })
    }
}

impl PostgresStore {
    fn read_log(
        &self,
        sql: &'static str,
        (session, from, limit): (i64, i64, i64),
    ) -> Result<Vec<LogLine>, HistoryError> {
        self.with_client(|client| {
            let rows = client.query(sql, &[&session, &from, &limit])?;
            Ok(rows
                .iter()
                .map(|row| LogLine {
                    id: row.get(0),
                    at_ms: from_sql(row.get(1)),
                    side: LogSide::parse(row.get(2)),
                    text: String::from_utf8(row.get::<_, Vec<u8>>(3)).unwrap_or_else(|error| {
                        String::from_utf8_lossy(error.as_bytes()).into_owned()
                    }),
                    flag: row.get(4),
                    call_id: row.get(5),
                })
                .collect())
        })
    }
}

fn read_session(row: &postgres::Row) -> ProxySession {
    ProxySession {
        id: row.get(0),
        started_at: row.get(1),
        ended_at: row.get(2),
        server: row.get(3),
        server_name: row.get(12),
        client: row.get(4),
        protocol_version: row.get(5),
        server_version: row.get(6),
        ending: row.get(7),
        stderr_tail: row.get(8),
        log_dropped: from_sql(row.get(9)),
        calls: from_sql(row.get(10)),
        log_lines: from_sql(row.get(11)),
        machine: row.get(13),
        person: row.get(14),
    }
}
