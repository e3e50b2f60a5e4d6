//! `toolscope proxy`: run by a real client (Claude Desktop, Cursor, …) in place of its server.
//! Toolscope starts the server and relays every line both ways exactly as it came; the
//! server's stderr goes on to Toolscope's (clients show it). Standard output carries only what
//! the server wrote: Toolscope's own words go to standard error.

use clap::Args;

use super::{EXIT_FAILURE, output::say};
use crate::{
    proxy::{Traffic, relay_stdio},
    session::{ServerConfig, config::parse_key_value},
};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("proxied").required(true).args(["stdio", "saved", "command"])))]
pub struct ProxyArgs {
    /// The server's command line, split like a shell: --stdio 'python server.py'
    #[arg(long, value_name = "COMMAND LINE")]
    pub stdio: Option<String>,
    /// A stdio server by name: saved in Toolscope, or found in another client's configuration
    #[arg(long = "server", value_name = "NAME")]
    pub saved: Option<String>,
    /// An environment variable for the server (repeatable)
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// The server's working directory
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
    /// The server's command and arguments, after `--`: toolscope proxy -- python server.py
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

impl ProxyArgs {
    fn config(&self) -> Result<ServerConfig, String> {
        let mut config = if let Some((program, args)) = self.command.split_first() {
            ServerConfig::Stdio {
                command: program.clone(),
                args: args.to_vec(),
                env: Default::default(),
                cwd: None,
            }
        } else if let Some(line) = &self.stdio {
            ServerConfig::stdio_from_command_line(line)?
        } else if let Some(name) = &self.saved {
            crate::engine::named_server(name, &crate::engine::ServerSources::here())
                .map_err(|error| error.to_string())?
        } else {
            return Err(
                "name the server: --stdio '<command line>', --server NAME or -- CMD ARGS…"
                    .to_owned(),
            );
        };
        let ServerConfig::Stdio { env, cwd, .. } = &mut config else {
            return Err("the proxy relays stdio servers: this one is reached over HTTP".to_owned());
        };
        for pair in &self.env {
            let (key, value) = parse_key_value(pair)?;
            env.insert(key, value);
        }
        if self.cwd.is_some() {
            cwd.clone_from(&self.cwd);
        }
        Ok(config)
    }
}

/// Relays until the client or the server ends; exits with the server's exit code (a failure
/// when it had none).
pub async fn run(args: ProxyArgs) -> u8 {
    let config = match args.config() {
        Ok(config) => config,
        Err(error) => {
            say(&format!("error: {error}"));
            return EXIT_FAILURE;
        }
    };
    let client = (tokio::io::stdin(), tokio::io::stdout());
    match relay_stdio(&config, client, tokio::io::stderr(), Traffic::none()).await {
        Ok(end) => end
            .server_code
            .and_then(|code| u8::try_from(code).ok())
            .unwrap_or(EXIT_FAILURE),
        Err(error) => {
            say(&format!("error: {error}"));
            EXIT_FAILURE
        }
    }
}
