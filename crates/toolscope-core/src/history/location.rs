//! Where the history lives: a SQLite file in the data folder (`$TOOLSCOPE_DATA_DIR`, else
//! `toolscope` in the platform's data folder: `$XDG_DATA_HOME` or `~/.local/share` on Linux,
//! Application Support on macOS, `%APPDATA%` on Windows), or a PostgreSQL database a team
//! shares (`--history URL`, `TOOLSCOPE_HISTORY_URL`, or the setting, in that order).

use std::path::PathBuf;

/// The variable that points every face at a team's PostgreSQL history.
pub const HISTORY_URL_VARIABLE: &str = "TOOLSCOPE_HISTORY_URL";

/// The folder of Toolscope's data (the history).
pub fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TOOLSCOPE_DATA_DIR") {
        return Some(PathBuf::from(dir));
    }
    directories::BaseDirs::new().map(|dirs| dirs.data_dir().join("toolscope"))
}

/// The local history database.
pub fn history_path() -> Option<PathBuf> {
    data_dir().map(|dir| dir.join("history.sqlite3"))
}

/// A history: a local file or a team's database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryLocation {
    /// A SQLite file (the default; `:memory:` for one held in memory).
    File(PathBuf),
    /// A PostgreSQL database.
    Postgres(PostgresUrl),
}

impl HistoryLocation {
    /// A `--history` value: a `postgres://` URL, else a file.
    pub fn from_argument(value: &str) -> Result<Self, LocationError> {
        if PostgresUrl::looks_like(value) {
            PostgresUrl::parse(value).map(Self::Postgres)
        } else {
            Ok(Self::File(PathBuf::from(value)))
        }
    }

    /// The history a face uses: `flag` (`--history`), else `TOOLSCOPE_HISTORY_URL`, else the
    /// URL set in the settings, else the local file (`None`: no data folder).
    pub fn chosen(
        flag: Option<&str>,
        setting: Option<&str>,
    ) -> Result<Option<Self>, LocationError> {
        if let Some(flag) = flag.map(str::trim).filter(|flag| !flag.is_empty()) {
            return Self::from_argument(flag).map(Some);
        }
        let variable = std::env::var(HISTORY_URL_VARIABLE).ok();
        let from_variable = variable.as_deref().map(str::trim).filter(|v| !v.is_empty());
        if let Some(url) = from_variable {
            return PostgresUrl::parse(url)
                .map(|url| Some(Self::Postgres(url)))
                .map_err(LocationError::in_variable);
        }
        if let Some(url) = setting.map(str::trim).filter(|url| !url.is_empty()) {
            return PostgresUrl::parse(url).map(|url| Some(Self::Postgres(url)));
        }
        Ok(history_path().map(Self::File))
    }

    /// The local file, when it is one.
    pub fn file(&self) -> Option<&std::path::Path> {
        match self {
            Self::File(path) => Some(path),
            Self::Postgres(_) => None,
        }
    }
}

impl std::fmt::Display for HistoryLocation {
    /// The file's path, or the URL without its password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::File(path) => write!(f, "{}", path.display()),
            Self::Postgres(url) => write!(f, "{url}"),
        }
    }
}

/// A `postgres://user[:password]@host[:port]/database[?sslmode=…]` URL. Shown without its
/// password; the password is never written anywhere by Toolscope.
#[derive(Clone, PartialEq, Eq)]
pub struct PostgresUrl {
    url: url::Url,
}

impl PostgresUrl {
    fn looks_like(value: &str) -> bool {
        let lower = value.trim().to_ascii_lowercase();
        lower.starts_with("postgres://") || lower.starts_with("postgresql://")
    }

    pub fn parse(value: &str) -> Result<Self, LocationError> {
        let value = value.trim();
        if !Self::looks_like(value) {
            return Err(LocationError::NotPostgres(
                crate::text_util::terminal_safe(value).into_owned(),
            ));
        }
        let url =
            url::Url::parse(value).map_err(|error| LocationError::Malformed(error.to_string()))?;
        if url.host_str().is_none_or(str::is_empty) {
            return Err(LocationError::Malformed(
                "it names no host (postgres://user@host:5432/database)".to_owned(),
            ));
        }
        Ok(Self { url })
    }

    /// The URL as given (with its password, if it has one): only for connecting.
    pub fn secret_text(&self) -> &str {
        self.url.as_str()
    }

    pub fn host(&self) -> &str {
        self.url.host_str().unwrap_or_default()
    }

    pub fn port(&self) -> u16 {
        self.url.port().unwrap_or(5432)
    }

    /// The user it names (`None`: the OS user, as libpq does).
    pub fn user(&self) -> Option<&str> {
        Some(self.url.username()).filter(|user| !user.is_empty())
    }

    /// The database it names (`None`: the user's name, as libpq does).
    pub fn database(&self) -> Option<&str> {
        Some(self.url.path().trim_start_matches('/')).filter(|name| !name.is_empty())
    }

    pub fn has_password(&self) -> bool {
        self.url.password().is_some()
    }

    /// The password the URL carries.
    pub fn password(&self) -> Option<String> {
        self.url.password().map(|password| {
            percent_encoding::percent_decode_str(password)
                .decode_utf8_lossy()
                .into_owned()
        })
    }

    /// The same URL without a password.
    pub fn without_password(&self) -> Self {
        let mut url = self.url.clone();
        let _ = url.set_password(None);
        Self { url }
    }

    /// The same URL with `password` (for connecting only: it is never shown).
    pub fn with_password(&self, password: &str) -> Self {
        let mut url = self.url.clone();
        let _ = url.set_password(Some(password));
        Self { url }
    }

    /// A query parameter (`sslmode`, `sslrootcert`, …).
    pub fn parameter(&self, name: &str) -> Option<String> {
        self.url
            .query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    }

    /// `host:port`, to name it in a message.
    pub fn server(&self) -> String {
        format!("{}:{}", self.host(), self.port())
    }
}

impl std::fmt::Display for PostgresUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut shown = self.url.clone();
        let _ = shown.set_password(None);
        write!(f, "{shown}")
    }
}

impl std::fmt::Debug for PostgresUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PostgresUrl({self})")
    }
}

/// Why a history location cannot be used as given.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LocationError {
    #[error("\"{0}\" is not a PostgreSQL URL: write postgres://user@host:5432/database")]
    NotPostgres(String),
    #[error("the PostgreSQL URL cannot be read: {0}")]
    Malformed(String),
    #[error("{HISTORY_URL_VARIABLE}: {0}; unset it to use the local history")]
    InVariable(Box<LocationError>),
}

impl LocationError {
    fn in_variable(self) -> Self {
        Self::InVariable(Box::new(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_shown_without_its_password_and_keeps_it_for_connecting() {
        let url = PostgresUrl::parse("postgres://qa:s3cret@db.example:6543/team?sslmode=require")
            .unwrap();
        assert_eq!(
            url.to_string(),
            "postgres://qa@db.example:6543/team?sslmode=require"
        );
        assert!(format!("{url:?}").contains("qa@db.example"));
        assert!(!format!("{url:?}").contains("s3cret"));
        assert!(url.secret_text().contains("s3cret"));
        assert_eq!(url.server(), "db.example:6543");
        assert_eq!((url.user(), url.database()), (Some("qa"), Some("team")));
        assert_eq!(url.parameter("sslmode").as_deref(), Some("require"));
    }

    #[test]
    fn a_history_argument_is_a_url_or_a_file() {
        assert!(matches!(
            HistoryLocation::from_argument("postgresql://h/db").unwrap(),
            HistoryLocation::Postgres(_)
        ));
        assert_eq!(
            HistoryLocation::from_argument("/tmp/h.sqlite3").unwrap(),
            HistoryLocation::File("/tmp/h.sqlite3".into())
        );
        let error = HistoryLocation::from_argument("postgres:///db").unwrap_err();
        assert!(error.to_string().contains("names no host"), "{error}");
    }
}
