//! The history in a team's PostgreSQL database: the same rows and meaning as the local SQLite
//! file, for many writers on many machines at once. Ids come from the database's identity
//! columns (unique whoever writes), every row says which machine and person recorded it, and
//! each change is announced with `NOTIFY`, so a window follows another machine's calls
//! without reading the tables again while nothing moves.
//!
//! The `postgres` client runs its own small runtime; called from a tokio worker it would
//! panic, so [`outside_async`] moves such a call to a thread of its own.

mod calls;
mod connect;
mod pgpass;
mod pushed;
mod schema;
mod sessions;
#[cfg(any(test, feature = "test-support"))]
pub mod test_cluster;
#[cfg(test)]
mod tests;
mod tls;

use std::cell::RefCell;

pub use connect::password_key;

use super::{HistoryError, HistoryLocation, PostgresUrl, RecordedBy};

/// Why a team database cannot be used, in words that say what failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PostgresProblem {
    #[error("sslmode={0} is not one of disable, prefer, require, verify-ca, verify-full")]
    SslMode(String),
    #[error("the URL {url} cannot be used: {reason}")]
    Url { url: String, reason: String },
    #[error("the certificate authorities to trust ({from}): {reason}")]
    TrustedCertificates { from: String, reason: String },
    #[error("cannot reach the PostgreSQL server {server} as {user}: {reason}")]
    Unreachable {
        server: String,
        user: String,
        reason: String,
    },
    #[error(
        "it was upgraded by a newer Toolscope (schema version {0}, this one knows up to {VERSION}); \
         update Toolscope",
        VERSION = schema::VERSION
    )]
    NewerSchema(i64),
    #[error("creating or upgrading Toolscope's tables: {0}")]
    Schema(String),
}

/// The channel every change is announced on (see the schema's triggers).
const CHANGES_CHANNEL: &str = "toolscope_history";

/// The history in PostgreSQL.
pub struct PostgresStore {
    /// `None` only while it is dropped.
    link: RefCell<Option<Link>>,
    url: PostgresUrl,
    location: HistoryLocation,
    recorded_by: Option<RecordedBy>,
    /// Bytes and rows recorded since the size cap was last checked (it is checked now and
    /// then, not in every write: a total kept in one row would make every writer wait on it).
    since_cap_check: (u64, u64),
}

/// How long a connection may sit unused before it is checked first: a database that
/// restarted meanwhile closed it, and a write sent into a closed connection is lost.
const IDLE_CHECK: std::time::Duration = std::time::Duration::from_secs(5);

/// The connection and what the change stamp knows through it.
struct Link {
    client: postgres::Client,
    /// When it was last used.
    used: std::time::Instant,
    /// Whether this connection LISTENs (the watch asked for the stamp once).
    listening: bool,
    /// The stamp last read, and the changes announced since.
    stamp: Option<super::ChangeStamp>,
    announced: Announced,
    /// The id sequences of calls and log lines as last read (`None`: not read yet).
    given_out: Option<(i64, i64)>,
    /// Something moved at the last read: the next one reports again (an id is given out
    /// before its row commits, so a row may land just after the read that saw its id).
    settling: bool,
}

/// How many changes were announced on the channel, by table.
#[derive(Default, Clone, Copy)]
struct Announced {
    calls: u64,
    others: u64,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// Connects to the database at `url`, creating or upgrading Toolscope's tables (in the
    /// schema `toolscope`). Rows recorded are stamped with `recorded_by`.
    pub fn open(url: &PostgresUrl, recorded_by: Option<RecordedBy>) -> Result<Self, HistoryError> {
        let location = HistoryLocation::Postgres(url.clone());
        let failed = |problem: PostgresProblem| HistoryError::Open {
            location: location.clone(),
            reason: problem.to_string(),
        };
        let client = outside_async(|| ready(url)).map_err(failed)?;
        Ok(Self {
            link: RefCell::new(Some(Link {
                client,
                used: std::time::Instant::now(),
                listening: false,
                stamp: None,
                announced: Announced::default(),
                given_out: None,
                settling: false,
            })),
            url: url.clone(),
            location,
            recorded_by,
            since_cap_check: (0, 0),
        })
    }

    /// Runs `work` on the connection, connecting again first if it was lost (the database
    /// restarted); a failure names the database.
    fn with_client<R: Send>(
        &self,
        work: impl FnOnce(&mut postgres::Client) -> Result<R, postgres::Error> + Send,
    ) -> Result<R, HistoryError> {
        self.with_link(|link| work(&mut link.client))
    }

    /// [`Self::with_client`] with what the stamp keeps beside the connection.
    fn with_link<R: Send>(
        &self,
        work: impl FnOnce(&mut Link) -> Result<R, postgres::Error> + Send,
    ) -> Result<R, HistoryError> {
        let mut held = self.link.borrow_mut();
        let Some(link) = held.as_mut() else {
            return Err(self.query_error("the connection is closed"));
        };
        let idle = link.used.elapsed() > IDLE_CHECK;
        let client = &mut link.client;
        let lost = client.is_closed()
            || (idle && !outside_async(move || client.is_valid(IDLE_CHECK).is_ok()));
        if lost {
            let url = &self.url;
            let client = outside_async(|| ready(url)).map_err(|reason| self.query_error(reason))?;
            *link = Link {
                client,
                used: std::time::Instant::now(),
                listening: false,
                stamp: None,
                announced: link.announced,
                given_out: None,
                settling: false,
            };
        }
        link.used = std::time::Instant::now();
        outside_async(move || work(link)).map_err(|error| self.query_error(describe(&error)))
    }

    fn query_error(&self, reason: impl std::fmt::Display) -> HistoryError {
        HistoryError::Query {
            location: self.location.clone(),
            reason: reason.to_string(),
        }
    }
}

impl Drop for PostgresStore {
    /// Closing the connection blocks on the client's runtime: off a tokio worker too.
    fn drop(&mut self) {
        if let Some(link) = self.link.get_mut().take() {
            outside_async(move || drop(link));
        }
    }
}

/// A connection with Toolscope's tables up to date and its schema chosen.
fn ready(url: &PostgresUrl) -> Result<postgres::Client, PostgresProblem> {
    let mut client = connect::connect(url)?;
    schema::migrate(&mut client)?;
    Ok(client)
}

/// Runs `work` where the `postgres` client may block: on this thread, unless it is a tokio
/// worker, then on a scoped thread of its own.
fn outside_async<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    if tokio::runtime::Handle::try_current().is_err() {
        return work();
    }
    std::thread::scope(|scope| match scope.spawn(work).join() {
        Ok(result) => result,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// A PostgreSQL error in words: the server's own message when it sent one.
fn describe(error: &postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{} ({detail})", db.message()),
            None => db.message().to_owned(),
        },
        None => crate::error_chain::error_chain(error),
    }
}

/// PostgreSQL text holds no NUL character (a server may send `\u0000` in a name): it is kept
/// as U+2400 SYMBOL FOR NULL.
fn pg_text(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\0') {
        std::borrow::Cow::Owned(text.replace('\0', "\u{2400}"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

fn pg_opt_text(text: Option<&str>) -> Option<std::borrow::Cow<'_, str>> {
    text.map(pg_text)
}

/// PostgreSQL integers are signed.
fn to_sql(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn from_sql(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}
