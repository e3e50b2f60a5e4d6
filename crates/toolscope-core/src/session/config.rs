//! How to reach a server: the part of a session a user types in and the app persists.

use std::{collections::BTreeMap, path::PathBuf, time::Duration};

use serde::{Deserialize, Serialize};

/// One MCP server as the user configured it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "transport", rename_all = "snake_case")]
pub enum ServerConfig {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: BTreeMap<String, String>,
        #[serde(default)]
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        url: String,
        #[serde(default)]
        headers: BTreeMap<String, String>,
        /// A client id registered beforehand with the server's OAuth authorization server
        /// (without one, Toolscope registers itself when the server asks for a sign-in).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        oauth_client_id: Option<String>,
        /// That client's secret (a confidential client). Kept in the secret store like a
        /// secret header: the settings file holds a reference.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        oauth_client_secret: Option<String>,
        /// The OAuth extensions its sign-in uses (the grant, `private_key_jwt`, DPoP); a
        /// private key or client secret in them is kept in the secret store like the above.
        #[serde(default, skip_serializing_if = "crate::auth::extensions::none_chosen")]
        oauth: Box<crate::auth::OAuthExtensions>,
    },
}

impl ServerConfig {
    /// The built-in demo server: this very binary, run as `toolscope demo-server`.
    pub fn demo() -> Self {
        let command = std::env::current_exe().map_or_else(
            |_| "toolscope".to_owned(),
            |path| path.display().to_string(),
        );
        Self::Stdio {
            command,
            args: vec!["demo-server".to_owned()],
            env: BTreeMap::new(),
            cwd: None,
        }
    }

    /// Parses a shell-like command line (`npx -y pkg --flag "a b"`) into a stdio config.
    pub fn stdio_from_command_line(line: &str) -> Result<Self, ConfigError> {
        let words =
            shlex::split(line).ok_or_else(|| ConfigError::UnsplittableLine(line.to_owned()))?;
        let mut words = words.into_iter();
        let command = words.next().ok_or(ConfigError::EmptyLine)?;
        Ok(Self::Stdio {
            command,
            args: words.collect(),
            env: BTreeMap::new(),
            cwd: None,
        })
    }

    /// How a list names the server: the command line with what looks secret in it masked
    /// ([`crate::secrets::shown_arguments`]), or the URL without its credentials and query
    /// (which may hold secrets; see [`url_label`]).
    pub fn listed(&self) -> String {
        match self {
            Self::Http { url, .. } => url_label(url),
            Self::Stdio { command, args, .. } => {
                let args = crate::secrets::shown_arguments(args);
                let mut words = vec![command.as_str()];
                words.extend(args.iter().map(String::as_str));
                shlex::try_join(words.iter().copied()).unwrap_or_else(|_| words.join(" "))
            }
        }
    }

    /// A short human description: the command line or the URL.
    pub fn describe(&self) -> String {
        match self {
            Self::Stdio { command, args, .. } => {
                let mut words = vec![command.as_str()];
                words.extend(args.iter().map(String::as_str));
                shlex::try_join(words.iter().copied()).unwrap_or_else(|_| words.join(" "))
            }
            Self::Http { url, .. } => url.clone(),
        }
    }
}

/// `https://user:pw@host:8080/mcp?api_key=…#x` → `https://host:8080/mcp`.
/// How the history and reports name a URL: without credentials, query or fragment, which may
/// hold secrets.
pub fn url_label(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    if scheme.is_empty() {
        format!("{host}{path}")
    } else {
        format!("{scheme}://{host}{path}")
    }
}

/// What is wrong with a command line, a header, a `KEY=value` or a timeout as written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot split the command line {0:?}: check its quotes")]
    UnsplittableLine(String),
    #[error("the command line is empty: give a program to run")]
    EmptyLine,
    #[error("header {0:?} has no colon: write it as 'Name: value'")]
    HeaderWithoutColon(String),
    #[error("header {0:?} has an empty name")]
    HeaderWithoutName(String),
    #[error("{0:?} has no '=': write it as KEY=value")]
    PairWithoutEquals(String),
    #[error("{0:?} has an empty name before '='")]
    PairWithoutName(String),
    #[error("a timeout must be a positive number of seconds, at most 86400 (a day), not {0}")]
    Timeout(f64),
}

/// The faces say these problems in their own sentences.
impl From<ConfigError> for String {
    fn from(error: ConfigError) -> Self {
        error.to_string()
    }
}

/// Splits `Name: value` (a header) at the first colon.
pub fn parse_header(text: &str) -> Result<(String, String), ConfigError> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| ConfigError::HeaderWithoutColon(text.to_owned()))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(ConfigError::HeaderWithoutName(text.to_owned()));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// Splits `KEY=value` (an environment variable or an argument) at the first `=`.
pub fn parse_key_value(text: &str) -> Result<(String, String), ConfigError> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| ConfigError::PairWithoutEquals(text.to_owned()))?;
    if key.is_empty() {
        return Err(ConfigError::PairWithoutName(text.to_owned()));
    }
    Ok((key.to_owned(), value.to_owned()))
}

/// Time limits for requests. A call's timeout restarts whenever the server reports progress,
/// but never runs past `max_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeouts {
    pub request: Duration,
    pub max_total: Duration,
    /// How long the `server/discover` probe waits before falling back to `initialize`.
    #[serde(default = "Timeouts::default_discover")]
    pub discover: Duration,
}

impl Timeouts {
    pub const DEFAULT_REQUEST: Duration = Duration::from_secs(60);
    pub const DEFAULT_MAX_TOTAL: Duration = Duration::from_secs(30 * 60);
    pub const DEFAULT_DISCOVER: Duration = Duration::from_secs(3);

    fn default_discover() -> Duration {
        Self::DEFAULT_DISCOVER
    }

    /// A single request timeout; the total cap stays at least as long as it.
    /// A request timeout given in seconds: positive, and at most a day (a longer one is a
    /// typo, and would overflow a `Duration`).
    pub fn seconds(seconds: f64) -> Result<Duration, ConfigError> {
        const DAY: f64 = 24.0 * 60.0 * 60.0;
        if !(seconds.is_finite() && seconds > 0.0 && seconds <= DAY) {
            return Err(ConfigError::Timeout(seconds));
        }
        Duration::try_from_secs_f64(seconds).map_err(|_| ConfigError::Timeout(seconds))
    }

    pub fn with_request(request: Duration) -> Self {
        Self {
            request,
            max_total: Self::DEFAULT_MAX_TOTAL.max(request),
            discover: Self::DEFAULT_DISCOVER.min(request),
        }
    }
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            request: Self::DEFAULT_REQUEST,
            max_total: Self::DEFAULT_MAX_TOTAL,
            discover: Self::DEFAULT_DISCOVER,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_is_split_like_a_shell() {
        let config =
            ServerConfig::stdio_from_command_line(r#"python3 -m srv "two words""#).unwrap();
        let ServerConfig::Stdio { command, args, .. } = &config else {
            panic!("stdio expected")
        };
        assert_eq!(command, "python3");
        assert_eq!(args, &["-m", "srv", "two words"]);
        assert_eq!(config.describe(), r#"python3 -m srv 'two words'"#);
    }

    #[test]
    fn bad_command_lines_say_why() {
        assert_eq!(
            ServerConfig::stdio_from_command_line(""),
            Err(ConfigError::EmptyLine)
        );
        assert!(
            ServerConfig::stdio_from_command_line("a \"b")
                .unwrap_err()
                .to_string()
                .contains("quotes")
        );
    }

    #[test]
    fn headers_and_pairs_split_once() {
        assert_eq!(
            parse_header("Authorization: Bearer a:b").unwrap(),
            ("Authorization".into(), "Bearer a:b".into())
        );
        assert!(parse_header("nocolon").is_err());
        assert_eq!(
            parse_key_value("K=a=b").unwrap(),
            ("K".into(), "a=b".into())
        );
        assert!(parse_key_value("=x").is_err());
    }
}
