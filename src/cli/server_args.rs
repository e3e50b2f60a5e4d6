//! `<SERVER>`: which server a command talks to.

use std::{path::PathBuf, time::Duration};

use clap::Args;

use crate::session::{
    ServerConfig, Timeouts,
    config::{parse_header, parse_key_value},
};

#[derive(Debug, Clone, Args)]
#[group(id = "server", required = true, multiple = false, args = ["demo", "stdio", "url"])]
pub struct ServerChoice {
    /// Use the built-in demo server
    #[arg(long)]
    pub demo: bool,
    /// Start a stdio server from a command line, split like a shell: --stdio 'npx -y pkg'
    #[arg(long, value_name = "COMMAND LINE")]
    pub stdio: Option<String>,
    /// Connect to a Streamable HTTP server
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    #[command(flatten)]
    pub choice: ServerChoice,
    /// With --stdio: an environment variable for the server (repeatable)
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// With --stdio: the server's working directory
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// With --url: an HTTP header (repeatable), e.g. 'Authorization: Bearer …'
    #[arg(long = "header", value_name = "'NAME: VALUE'")]
    pub headers: Vec<String>,
    /// Seconds to wait for an answer (restarted by progress notifications)
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
}

/// `https://user:pw@host:8080/mcp?api_key=…#x` → `https://host:8080/mcp`.
fn url_label(url: &str) -> String {
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

impl ServerArgs {
    /// How the history names this server: the demo's name, the command line, or the URL
    /// without its user, password, query and fragment (never the environment or the headers,
    /// which may hold secrets).
    pub fn label(&self) -> String {
        match (&self.choice.stdio, &self.choice.url) {
            (Some(line), _) => line.clone(),
            (None, Some(url)) => url_label(url),
            (None, None) => crate::history::DEMO_SERVER_NAME.to_owned(),
        }
    }

    pub fn config(&self) -> Result<ServerConfig, String> {
        let choice = &self.choice;
        if choice.url.is_none() && !self.headers.is_empty() {
            return Err("--header only applies to --url servers".to_owned());
        }
        if choice.url.is_some() && (!self.env.is_empty() || self.cwd.is_some()) {
            return Err("--env and --cwd only apply to --stdio and --demo servers".to_owned());
        }
        let mut config = if choice.demo {
            ServerConfig::demo()
        } else if let Some(line) = &choice.stdio {
            ServerConfig::stdio_from_command_line(line)?
        } else if let Some(url) = &choice.url {
            let mut headers = std::collections::BTreeMap::new();
            for header in &self.headers {
                let (name, value) = parse_header(header)?;
                headers.insert(name, value);
            }
            ServerConfig::Http {
                url: url.clone(),
                headers,
            }
        } else {
            return Err(
                "choose a server: --demo, --stdio '<command line>' or --url <URL>".to_owned(),
            );
        };
        if let ServerConfig::Stdio { env, cwd, .. } = &mut config {
            for pair in &self.env {
                let (key, value) = parse_key_value(pair)?;
                env.insert(key, value);
            }
            cwd.clone_from(&self.cwd);
        }
        Ok(config)
    }

    pub fn timeouts(&self) -> Result<Timeouts, String> {
        if !(self.timeout.is_finite() && self.timeout > 0.0) {
            return Err(format!(
                "--timeout must be a positive number of seconds, not {}",
                self.timeout
            ));
        }
        Ok(Timeouts::with_request(Duration::from_secs_f64(
            self.timeout,
        )))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_url_is_recorded_without_its_credentials_query_or_fragment() {
        for (url, label) in [
            (
                "https://user:pw@host:8080/mcp?api_key=s3cret#x",
                "https://host:8080/mcp",
            ),
            ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000/mcp"),
            ("https://token@example.com?k=v", "https://example.com"),
        ] {
            assert_eq!(super::url_label(url), label);
        }
    }
}
