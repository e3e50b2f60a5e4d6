//! `<SERVER>`: which server a command talks to.

use std::path::PathBuf;

use clap::Args;

use toolscope_core::session::{
    ServerConfig, Timeouts,
    config::{parse_header, parse_key_value, url_label},
};

#[derive(Debug, Clone, Args)]
#[group(id = "server", required = true, multiple = false, args = ["demo", "stdio", "url", "saved"])]
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
    /// A server by name: saved in Toolscope, or found in another client's configuration
    /// (`toolscope servers` lists both)
    #[arg(long = "server", value_name = "NAME")]
    pub saved: Option<String>,
}

/// How long a command waits for an answer unless `--timeout` says.
const DEFAULT_TIMEOUT_SECONDS: f64 = 60.0;

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
    /// Seconds to wait for an answer (restarted by progress notifications) [default: 60]
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    #[command(flatten)]
    pub sign_in: super::sign_in_flags::SignInFlags,
}

impl ServerArgs {
    /// How the history names this server: the demo's name, the command line, or the URL
    /// without its user, password, query and fragment (never the environment or the headers,
    /// which may hold secrets).
    pub fn label(&self) -> String {
        if let Some(name) = &self.choice.saved {
            return name.clone();
        }
        match (&self.choice.stdio, &self.choice.url) {
            (Some(line), _) => line.clone(),
            (None, Some(url)) => url_label(url),
            (None, None) => toolscope_core::history::DEMO_SERVER_NAME.to_owned(),
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
        let mut config = if let Some(name) = &choice.saved {
            if !self.headers.is_empty() {
                return Err("--header does not apply to --server: edit the saved server".to_owned());
            }
            toolscope_core::engine::named_server(
                name,
                &toolscope_core::engine::ServerSources::here(),
            )
            .map_err(|error| error.to_string())?
        } else if choice.demo {
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
                oauth_client_id: self.sign_in.oauth_client_id.clone(),
                oauth_client_secret: None,
                oauth: Default::default(),
                url: url.clone(),
                headers,
            }
        } else {
            return Err(
                "choose a server: --demo, --stdio '<command line>', --url <URL> or --server NAME"
                    .to_owned(),
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

    /// Whether a server was named (`--demo`, `--stdio` or `--url`); commands whose server is
    /// optional ask.
    pub fn is_given(&self) -> bool {
        self.choice.demo
            || self.choice.stdio.is_some()
            || self.choice.url.is_some()
            || self.choice.saved.is_some()
    }

    pub fn timeouts(&self) -> Result<Timeouts, String> {
        let seconds = self.timeout.unwrap_or(DEFAULT_TIMEOUT_SECONDS);
        Timeouts::seconds(seconds)
            .map(Timeouts::with_request)
            .map_err(|problem| format!("--timeout: {problem}"))
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
            assert_eq!(toolscope_core::session::config::url_label(url), label);
        }
    }
}
