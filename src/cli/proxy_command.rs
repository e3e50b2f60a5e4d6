//! `toolscope proxy`: run by a real client (Claude Desktop, Cursor, …) in place of its server.
//! Toolscope starts the server and relays every line both ways exactly as it came; the
//! server's stderr goes on to Toolscope's (clients show it). Standard output carries only what
//! the server wrote: Toolscope's own words go to standard error.

use clap::Args;

use super::{CliError, EXIT_FAILURE, output::say};
use toolscope_core::{
    proxy::{NoHistory, Traffic, record, relay_stdio},
    session::{ServerConfig, config::parse_key_value},
    telemetry::Transport,
};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("proxied").required(true).args(["stdio", "saved", "command", "url"])))]
pub struct ProxyArgs {
    /// The server's command line, split like a shell: --stdio 'python server.py'
    #[arg(long, value_name = "COMMAND LINE")]
    pub stdio: Option<String>,
    /// A remote Streamable HTTP server: the proxy serves it on --listen (loopback only)
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// With --url: where the local endpoint listens [default: 127.0.0.1:6277]
    #[arg(long, value_name = "127.0.0.1:PORT", requires = "url")]
    pub listen: Option<std::net::SocketAddr>,
    /// With --url: an HTTP header added to every request (repeatable), e.g. 'X-Team: qa'
    #[arg(long = "header", value_name = "'NAME: VALUE'", requires = "url")]
    pub headers: Vec<String>,
    #[command(flatten)]
    pub sign_in: super::sign_in_flags::SignInFlags,
    /// A stdio server by name: saved in Toolscope, or found in another client's configuration
    #[arg(long = "server", value_name = "NAME")]
    pub saved: Option<String>,
    /// An environment variable for the server (repeatable)
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// The server's working directory
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
    /// How the history names the server [default: its saved name, or its command line]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Do not keep the calls that pass in the history
    #[arg(long, conflicts_with = "history")]
    pub no_history: bool,
    #[command(flatten)]
    pub history: super::history_flag::HistoryFlag,
    /// The server's command and arguments, after `--`: toolscope proxy -- python server.py
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The most bytes of lines waiting for the recorder (a flood of a million small lines fits
/// while it catches up): past that, lines are relayed and the log says where some were not kept.
const RECORDER_QUEUE: usize = 128 * 1024 * 1024;

impl ProxyArgs {
    /// How the history names the server: its saved name or its command line.
    pub(super) fn label(&self) -> String {
        if let Some(name) = self.name.as_ref().or(self.saved.as_ref()) {
            return name.clone();
        }
        match (&self.stdio, &self.url) {
            (Some(line), _) => line.clone(),
            (None, Some(url)) => toolscope_core::session::config::url_label(url),
            (None, None) => self.command.join(" "),
        }
    }

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
            toolscope_core::engine::named_server(
                name,
                &toolscope_core::engine::ServerSources::here(),
            )
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
pub async fn run(args: ProxyArgs) -> Result<u8, CliError> {
    if args.url.is_some() {
        return super::proxy_http::run(args).await;
    }
    let config = args.config()?;
    let (traffic, recorder) = if args.no_history {
        (Traffic::none(), None)
    } else {
        start_recording(args.label(), args.history.clone(), Transport::Pipe)
    };
    let client = (tokio::io::stdin(), tokio::io::stdout());
    let relayed = relay_stdio(&config, client, tokio::io::stderr(), traffic.clone()).await;
    drop(traffic_end(traffic, recorder));
    Ok(relayed?
        .server_code
        .and_then(|code| u8::try_from(code).ok())
        .unwrap_or(EXIT_FAILURE))
}

/// A recorder on a thread of its own for one session, and the relay's side of its queue.
pub(super) fn start_recording(
    label: String,
    history: super::history_flag::HistoryFlag,
    transport: Transport,
) -> (
    Traffic,
    Option<std::thread::JoinHandle<toolscope_core::proxy::RecordingReport>>,
) {
    let (traffic, events) = Traffic::bounded(RECORDER_QUEUE);
    let recorder = std::thread::Builder::new()
        .name("proxy-recorder".to_owned())
        .spawn(move || {
            let store = history.open_to_record().map_err(NoHistory::Unopened);
            record(&events, store, &label, transport)
        })
        .ok();
    (traffic, recorder)
}

/// Waits for the recorder to keep what it was given, then says (on stderr, once) what was
/// not kept.
pub(super) fn traffic_end(
    traffic: Traffic,
    recorder: Option<std::thread::JoinHandle<toolscope_core::proxy::RecordingReport>>,
) -> Option<toolscope_core::proxy::RecordingReport> {
    let dropped = traffic.dropped();
    drop(traffic);
    let report = recorder?.join().ok()?;
    if let Some(problem) = &report.problem {
        say(&format!(
            "toolscope proxy: the calls were not all kept: {problem}"
        ));
    }
    if dropped > 0 {
        say(&format!(
            "toolscope proxy: {dropped} line(s) passed faster than the history could keep them \
             (they were relayed, not kept)"
        ));
    }
    if report.malformed > 0 {
        say(&format!(
            "toolscope proxy: {} line(s) were not JSON (relayed unchanged)",
            report.malformed
        ));
    }
    Some(report)
}
