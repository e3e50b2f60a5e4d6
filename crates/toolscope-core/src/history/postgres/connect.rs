//! Connecting as libpq would: the URL's user, database and options; the password from the URL,
//! else `PGPASSWORD`, else `~/.pgpass` (or `PGPASSFILE`), else the secret store; TLS as
//! `sslmode` says. A failure names the server and what failed.

use std::time::Duration;

use super::{PostgresProblem, PostgresUrl, pgpass, tls};

/// How long connecting may take before it is said to have failed (`PGCONNECT_TIMEOUT` sets
/// another): a window never waits longer than this on a database that is down.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The secret store's key for a database's password.
pub fn password_key(url: &PostgresUrl) -> String {
    format!(
        "history:postgres://{}@{}/{}",
        url.user().unwrap_or_default(),
        url.server(),
        url.database().unwrap_or_default()
    )
}

pub(super) fn connect(url: &PostgresUrl) -> Result<postgres::Client, PostgresProblem> {
    let mode = tls::Mode::of(url)?;
    let mut config: postgres::Config =
        tls::without_tls_parameters(url)
            .parse()
            .map_err(|error: postgres::Error| PostgresProblem::Url {
                url: url.to_string(),
                reason: super::describe(&error),
            })?;
    let user = match url.user() {
        Some(user) => user.to_owned(),
        None => whoami::username().unwrap_or_else(|_| "postgres".to_owned()),
    };
    config.user(&user);
    if !url.has_password()
        && let Some(password) = password_for(url, &user)
    {
        config.password(password);
    }
    config.application_name("toolscope");
    config.connect_timeout(connect_timeout());
    let connected = match mode.client_config(url)? {
        None => config.connect(postgres::NoTls),
        Some(client_config) => {
            config.ssl_mode(mode.library_mode());
            config.connect(tokio_postgres_rustls::MakeRustlsConnect::new(client_config))
        }
    };
    connected.map_err(|error| PostgresProblem::Unreachable {
        server: url.server(),
        user,
        reason: super::describe(&error),
    })
}

fn connect_timeout() -> Duration {
    std::env::var("PGCONNECT_TIMEOUT")
        .ok()
        .and_then(|seconds| seconds.trim().parse::<u64>().ok())
        .filter(|&seconds| seconds > 0)
        .map_or(CONNECT_TIMEOUT, Duration::from_secs)
}

/// The password when the URL has none: `PGPASSWORD`, the password file, the secret store.
fn password_for(url: &PostgresUrl, user: &str) -> Option<String> {
    if let Ok(password) = std::env::var("PGPASSWORD")
        && !password.is_empty()
    {
        return Some(password);
    }
    let database = url.database().unwrap_or(user);
    if let Some(password) = pgpass::lookup(url.host(), url.port(), database, user) {
        return Some(password);
    }
    let preference = crate::secret_store::Preference::from_environment().ok()?;
    crate::secret_store::SecretStore::open(preference, crate::settings::config_dir()?)
        .ok()?
        .get(&password_key(url))
        .ok()
        .flatten()
}
