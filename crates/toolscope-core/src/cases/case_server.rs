//! A case file's `[server]`: the demo, a stdio command line, or a URL. Values may name
//! environment variables (`${API_TOKEN}`), so secrets stay out of the file.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    time::Duration,
};

use super::case_file::{CaseFileError, ServerToml};
use crate::session::{ServerConfig, Timeouts};

/// Which server a case file runs against, as written (variables not yet expanded).
#[derive(Debug, Clone, PartialEq)]
pub struct CaseServer {
    pub target: CaseTarget,
    /// `timeout_seconds`: how long each call may wait (default 60 s).
    pub timeout: Option<Duration>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseTarget {
    Demo,
    Stdio {
        command_line: String,
        env: BTreeMap<String, String>,
        /// Relative to the case file's folder; the folder itself when absent.
        cwd: Option<PathBuf>,
    },
    Url {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

fn string_table(table: toml::Table, what: &str) -> Result<BTreeMap<String, String>, CaseFileError> {
    table
        .into_iter()
        .map(|(key, value)| match value {
            toml::Value::String(text) => Ok((key, text)),
            other => Err(CaseFileError(format!(
                "[server] {what}.{key} must be a string, not {}",
                other.type_str()
            ))),
        })
        .collect()
}

impl CaseServer {
    pub(super) fn from_toml(server: ServerToml) -> Result<Self, CaseFileError> {
        let chosen = usize::from(server.demo)
            + usize::from(server.stdio.is_some())
            + usize::from(server.url.is_some());
        if chosen != 1 {
            return Err(CaseFileError(
                "[server] needs exactly one of demo = true, stdio = \"<command line>\" or \
                 url = \"<URL>\""
                    .to_owned(),
            ));
        }
        let timeout = match server.timeout_seconds {
            None => None,
            Some(seconds) => match Timeouts::seconds(seconds) {
                Ok(duration) => Some(duration),
                Err(problem) => {
                    return Err(CaseFileError(format!(
                        "[server] timeout_seconds: {problem}"
                    )));
                }
            },
        };
        let is_url = server.url.is_some();
        if is_url && (!server.env.is_empty() || server.cwd.is_some()) {
            return Err(CaseFileError(
                "[server] env and cwd apply to stdio servers, not to a url".to_owned(),
            ));
        }
        if !is_url && !server.headers.is_empty() {
            return Err(CaseFileError(
                "[server] headers apply to a url, not to a stdio server".to_owned(),
            ));
        }
        let target = if let Some(url) = server.url {
            CaseTarget::Url {
                url,
                headers: string_table(server.headers, "headers")?,
            }
        } else if let Some(command_line) = server.stdio {
            CaseTarget::Stdio {
                command_line,
                env: string_table(server.env, "env")?,
                cwd: server.cwd,
            }
        } else {
            if !server.env.is_empty() || server.cwd.is_some() {
                return Err(CaseFileError(
                    "[server] env and cwd apply to a stdio server, not to the demo".to_owned(),
                ));
            }
            CaseTarget::Demo
        };
        Ok(Self { target, timeout })
    }

    /// The demo server with the default timeout.
    pub fn demo() -> Self {
        Self {
            target: CaseTarget::Demo,
            timeout: None,
        }
    }

    /// How to reach it: variables expanded from `lookup`, a relative `cwd` joined to `folder`.
    pub fn config(
        &self,
        folder: &Path,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ServerConfig, ExpandError> {
        match &self.target {
            CaseTarget::Demo => Ok(ServerConfig::demo()),
            CaseTarget::Stdio {
                command_line,
                env,
                cwd,
            } => {
                // Split as written, then fill in each word: a value with spaces or quotes stays
                // one argument, and never shows up in a message about the line's quoting.
                let mut config = ServerConfig::stdio_from_command_line(command_line)?;
                if let ServerConfig::Stdio {
                    command,
                    args,
                    env: config_env,
                    cwd: config_cwd,
                } = &mut config
                {
                    *command = expand(command, lookup)?;
                    for arg in args.iter_mut() {
                        *arg = expand(arg, lookup)?;
                    }
                    for (key, value) in env {
                        config_env.insert(key.clone(), expand(value, lookup)?);
                    }
                    *config_cwd = Some(match cwd {
                        Some(cwd) => folder.join(cwd),
                        None => folder.to_owned(),
                    });
                }
                Ok(config)
            }
            CaseTarget::Url { url, headers } => Ok(ServerConfig::Http {
                oauth_client_id: None,
                oauth_client_secret: None,
                oauth: Default::default(),
                url: expand(url, lookup)?,
                headers: headers
                    .iter()
                    .map(|(name, value)| Ok((name.clone(), expand(value, lookup)?)))
                    .collect::<Result<_, ExpandError>>()?,
            }),
        }
    }

    /// How reports and the history name it: never an environment or header value.
    pub fn label(&self) -> String {
        match &self.target {
            CaseTarget::Demo => crate::history::DEMO_SERVER_NAME.to_owned(),
            CaseTarget::Stdio { command_line, .. } => command_line.clone(),
            CaseTarget::Url { url, .. } => crate::session::config::url_label(url),
        }
    }

    pub fn timeouts(&self) -> Timeouts {
        Timeouts::with_request(self.timeout.unwrap_or(Duration::from_secs(60)))
    }
}

/// Why a case file's server cannot be reached as written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExpandError {
    #[error("{0:?} has a ${{ without its closing }}")]
    Unclosed(String),
    #[error("the environment variable {0} is not set (the case file uses ${{{0}}})")]
    Unset(String),
    #[error(transparent)]
    CommandLine(#[from] crate::session::config::ConfigError),
}

/// `${NAME}` → the variable's value; `$$` → `$`. An unset variable is an error that names it.
pub fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(inner) = after.strip_prefix('{') {
            let Some(end) = inner.find('}') else {
                return Err(ExpandError::Unclosed(text.to_owned()));
            };
            let name = &inner[..end];
            let value = lookup(name).ok_or_else(|| ExpandError::Unset(name.to_owned()))?;
            out.push_str(&value);
            rest = &inner[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn variables_are_expanded_and_an_unset_one_is_named() {
        let lookup = |name: &str| (name == "TOKEN").then(|| "s3cret".to_owned());
        assert_eq!(
            expand("Bearer ${TOKEN}", &lookup).as_deref(),
            Ok("Bearer s3cret")
        );
        assert_eq!(expand("a $$ b $c", &lookup).as_deref(), Ok("a $ b $c"));
        let error = expand("${MISSING}", &lookup).unwrap_err();
        assert_eq!(error, super::ExpandError::Unset("MISSING".to_owned()));
        assert!(expand("${OPEN", &lookup).is_err());
    }
}
