//! What a gate judges, read back from the history: a proxied session (its row, its calls and
//! its protocol log), the sessions started since a time, or a recording's calls.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::log_reading::{LogReader, LogReading};
use crate::{
    analysis::ProtocolEra,
    history::{CallQuery, HistoryError, HistoryStore, StoredCall},
};

/// Where the calls judged come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// A session a real client ran through `toolscope proxy`.
    Session {
        id: i64,
        /// How the proxy named the server.
        server: String,
        client: Option<String>,
        started_at: String,
        /// `false` while it runs (or when its proxy was killed before it could say).
        ended: bool,
    },
    /// A recording file (`toolscope history export`): calls only, no protocol log.
    Recording { path: String },
}

impl Source {
    /// `session #3 (raw-client 1.0 → python3 server.py)`, `recording calls.json`.
    pub fn label(&self) -> String {
        match self {
            Source::Session {
                id, server, client, ..
            } => format!(
                "session #{id} ({} → {server})",
                client.as_deref().unwrap_or("a client not introduced")
            ),
            Source::Recording { path } => format!("recording {path}"),
        }
    }

    /// The SARIF artifact, the same from one CI run to the next (code scanning tracks results
    /// by it, and a job's fresh history numbers its sessions from 1 again): the server a session
    /// reached (its id goes in the result's properties), or the recording's path, each as a
    /// URI (percent-encoded; an absolute path as a `file:` URI).
    pub fn artifact_uri(&self) -> String {
        use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
        const PATH: &AsciiSet = &NON_ALPHANUMERIC
            .remove(b'/')
            .remove(b'-')
            .remove(b'_')
            .remove(b'.')
            .remove(b'~');
        match self {
            Source::Session { server, .. } => {
                format!("toolscope:server/{}", utf8_percent_encode(server, PATH))
            }
            Source::Recording { path } => {
                let path = path.replace('\\', "/");
                let encoded = utf8_percent_encode(&path, PATH).to_string();
                if path.starts_with('/') {
                    format!("file://{encoded}")
                } else if path.as_bytes().get(1) == Some(&b':') {
                    // A Windows drive: `C:/…`, whose colon must not read as a scheme's.
                    format!("file:///{}:{}", &path[..1], &encoded[4..])
                } else {
                    encoded
                }
            }
        }
    }

    /// The server's label, for a fully qualified tool name.
    pub fn server(&self) -> Option<&str> {
        match self {
            Source::Session { server, .. } => Some(server),
            Source::Recording { .. } => None,
        }
    }
}

/// A session (or a recording) read back for a gate or a diff.
#[derive(Debug, Clone)]
pub struct RecordedSession {
    pub source: Source,
    pub protocol_version: Option<String>,
    /// The server's own name and version, as its handshake said.
    pub server_name: Option<String>,
    pub server_version: Option<String>,
    /// Its calls, reads and prompts, oldest first, as a list has them: without their arguments
    /// and responses (a gate reads whole only the few it reports on; a diff reads the
    /// arguments it matches calls by). A session of big calls is not read whole to be judged.
    pub calls: Vec<StoredCall>,
    /// What its protocol log says; `None` for a recording, which has none.
    pub log: Option<LogReading>,
}

/// Why a gate or a diff has nothing to read.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error("there is no session #{0} in the history (`toolscope history sessions` lists them)")]
    NoSession(i64),
    #[error(
        "`{0}` is not a time: give an RFC 3339 time (2026-12-05T09:00:00Z), a date \
         (2026-12-05, midnight UTC) or an age (30m, 2h, 1d)"
    )]
    NotATime(String),
    #[error(
        "no session through `toolscope proxy` started since {0} (`toolscope history sessions` \
         lists them)"
    )]
    NothingSince(String),
    #[error(transparent)]
    History(#[from] HistoryError),
}

impl RecordedSession {
    /// Proxied session `id` with its calls and log.
    pub fn from_session(store: &dyn HistoryStore, id: i64) -> Result<Self, GateError> {
        let session = store.proxy_session(id)?.ok_or(GateError::NoSession(id))?;
        let calls = calls_oldest_first(
            store,
            &CallQuery {
                session: Some(id),
                ..CallQuery::default()
            },
        )?;
        let answered: HashMap<i64, String> = calls
            .iter()
            .filter_map(|call| Some((call.id, call.request_id.clone()?)))
            .collect();
        let modern = session
            .protocol_version
            .as_deref()
            .is_some_and(|version| ProtocolEra::from_version(version) == ProtocolEra::Modern);
        Ok(Self {
            source: Source::Session {
                id,
                server: session.server,
                client: session.client,
                started_at: session.started_at,
                ended: session.ended_at.is_some(),
            },
            protocol_version: session.protocol_version,
            server_name: session.server_name,
            server_version: session.server_version,
            calls,
            log: Some({
                let mut log = read_session_log(store, id, &answered, modern)?;
                // Lines past the log's cap are counted, not marked in it: what it says of
                // answers is incomplete all the same.
                log.gaps |= session.log_dropped > 0;
                log
            }),
        })
    }

    /// Every call of a recording read into `store` (a history of its own).
    pub fn from_recording(store: &dyn HistoryStore, path: &str) -> Result<Self, GateError> {
        let calls = calls_oldest_first(store, &CallQuery::default())?;
        Ok(Self {
            source: Source::Recording {
                path: path.to_owned(),
            },
            protocol_version: calls.iter().find_map(|call| call.protocol_version.clone()),
            server_name: None,
            server_version: calls.iter().find_map(|call| call.server_version.clone()),
            calls,
            log: None,
        })
    }
}

/// Lines of a log read at a time.
const LOG_PAGE: usize = 10_000;

/// Session `id`'s log, read a page at a time.
fn read_session_log(
    store: &dyn HistoryStore,
    id: i64,
    answered: &HashMap<i64, String>,
    modern: bool,
) -> Result<LogReading, HistoryError> {
    let mut reader = LogReader::new(modern);
    let mut after = 0;
    loop {
        let lines = store.proxy_log(id, after, LOG_PAGE)?;
        reader.feed(&lines, answered);
        match lines.last() {
            Some(last) if lines.len() == LOG_PAGE => after = last.id,
            _ => return Ok(reader.finish()),
        }
    }
}

fn calls_oldest_first(
    store: &dyn HistoryStore,
    query: &CallQuery,
) -> Result<Vec<StoredCall>, HistoryError> {
    let mut calls = store.list(query)?;
    calls.reverse();
    Ok(calls)
}

/// The ids of the proxied sessions started at `since` or later, oldest first.
pub fn sessions_since(
    store: &dyn HistoryStore,
    since: DateTime<Utc>,
) -> Result<Vec<i64>, GateError> {
    let mut ids: Vec<i64> = store
        .proxy_sessions(usize::MAX)?
        .into_iter()
        .filter(|session| {
            DateTime::parse_from_rfc3339(&session.started_at).is_ok_and(|started| started >= since)
        })
        .map(|session| session.id)
        .collect();
    if ids.is_empty() {
        return Err(GateError::NothingSince(
            since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        ));
    }
    ids.reverse();
    Ok(ids)
}

/// [`parse_since`] from now.
pub fn parse_since_now(text: &str) -> Result<DateTime<Utc>, GateError> {
    parse_since(text, Utc::now())
}

/// A time as `--since` takes it: RFC 3339, a date (midnight UTC), or an age before `now`
/// (`90s`, `30m`, `2h`, `1d`).
pub fn parse_since(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, GateError> {
    let text = text.trim();
    let not_a_time = || GateError::NotATime(crate::text_util::clip_chars(text, 60));
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Ok(time.with_timezone(&Utc));
    }
    if let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return date
            .and_hms_opt(0, 0, 0)
            .map(|midnight| midnight.and_utc())
            .ok_or_else(not_a_time);
    }
    let unit_at = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(not_a_time)?;
    let (count, unit) = text.split_at(unit_at);
    let count: i64 = count.parse().map_err(|_| not_a_time())?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(not_a_time()),
    };
    let age = count
        .checked_mul(seconds)
        .and_then(chrono::TimeDelta::try_seconds)
        .ok_or_else(not_a_time)?;
    now.checked_sub_signed(age).ok_or_else(not_a_time)
}
