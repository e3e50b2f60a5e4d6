//! The headless command line: the same core as the window, printed to a terminal.

/// Appends a formatted line to a `String` (writing to a String cannot fail).
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        let _ = std::fmt::Write::write_fmt($out, format_args!($($arg)*));
        $out.push('\n');
    }};
}

/// Appends formatted text to a `String`.
macro_rules! outp {
    ($out:expr, $($arg:tt)*) => {{
        let _ = std::fmt::Write::write_fmt($out, format_args!($($arg)*));
    }};
}

mod answer_flags;
mod app_command;
mod arguments;
mod call_command;
mod call_report;
mod check_command;
mod complete_command;
mod diff_command;
mod doctor_command;
mod error;
mod feature_session;
mod history_command;
mod history_diff;
mod history_flag;
mod history_push;
mod history_sessions;
mod json_text;
mod load_command;
mod mcp_command;
mod open_files;
mod output;
mod ping_command;
mod prompts_command;
mod proxy_command;
mod proxy_http;
mod read_command;
mod resources_command;
mod rounds_report;
mod run_command;
mod server_args;
mod servers_command;
mod side_by_side;
mod sign_in_flags;
mod skills_command;
mod snapshot_command;
mod tools_command;
mod watch_through_command;
mod watching;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use call_command::CallArgs;
pub use diff_command::DiffArgs;
pub use error::CliError;
pub use history_flag::HistoryFlag;
pub use output::emit;
pub use server_args::ServerArgs;
pub use snapshot_command::SnapshotArgs;
pub use tools_command::ToolsArgs;

/// Exit status: a conforming success.
pub const EXIT_OK: u8 = 0;
/// Exit status: the tool reported an error, or its result broke its output schema.
pub const EXIT_TOOL_PROBLEM: u8 = 1;
/// Exit status: the connection or the protocol failed, or the command line was wrong (a
/// [`CliError`] says what).
pub const EXIT_FAILURE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "toolscope",
    version,
    about = "Explore MCP servers: list tools, call them, and see what the model reads (content) \
             beside what the application reads (structuredContent).",
    after_help = "With no command, the explorer window opens on the built-in demo server.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Open the window in presentation mode: sidebars folded, 1.5× zoom, high contrast (F5
    /// switches it in the window)
    #[arg(long)]
    pub present: bool,
    /// Open the window on the guided tour of the demo server
    #[arg(long)]
    pub tour: bool,
    #[command(flatten)]
    pub history: HistoryFlag,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List a server's tools with their annotations and input and output schemas
    Tools(ToolsArgs),
    /// Call a tool and show both halves of its result and the analysis
    Call(CallArgs),
    /// List the calls kept in the history, or show one again (`history show ID`)
    History(history_command::HistoryArgs),
    /// Run the cases of a case file (TOML): one line per case, JUnit XML and a report on request
    Run(run_command::RunArgs),
    /// Judge what a client really did: a proxied session, the sessions since a time, or a
    /// recording; one line per finding, JUnit XML and SARIF on request (exit 1 when any)
    Check(check_command::CheckArgs),
    /// Write a server's identity and tools (both schemas, annotations) as a JSON snapshot
    Snapshot(SnapshotArgs),
    /// Compare a snapshot with another or with a server now: each change breaking or
    /// compatible (exit 1 when something breaks)
    Diff(DiffArgs),
    /// Read a resource (a resource_link's URI, say, or a template with --var) and print its
    /// contents
    Read(read_command::ReadArgs),
    /// List a server's resources (every page), or its resource templates
    Resources(resources_command::ResourcesArgs),
    /// List a server's prompts with their arguments
    Prompts(prompts_command::PromptsArgs),
    /// Get a prompt with arguments and print its messages as a conversation
    Prompt(prompts_command::PromptArgs),
    /// List the skills a server serves (SEP-2640): name, description, URI, files with sizes
    Skills(skills_command::SkillsArgs),
    /// Load one skill: SKILL.md and its files, each checked against the listing (size,
    /// digest, frontmatter) before it is shown (exit 1 on a mismatch)
    Skill(skills_command::SkillArgs),
    /// Ask a server to complete an argument of a prompt or a resource template
    Complete(complete_command::CompleteArgs),
    /// Ping a server and print each round trip, then min, median and max
    Ping(ping_command::PingArgs),
    /// Call one tool many times at once (N callers, bounded by --calls or --duration) and
    /// print calls per second, latency percentiles, errors by kind and the server's memory
    Load(load_command::LoadArgs),
    /// Walk a connection step by step (name, connection, start, handshake, tools) and say
    /// where it fails, with what to try
    Doctor(doctor_command::DoctorArgs),
    /// Run a tool's MCP App for real: call the tool, serve its ui:// page on loopback behind
    /// a sandbox, open it in the browser and print every message over the bridge
    App(app_command::AppArgs),
    /// Stand in for a stdio server a client runs: start it and relay every line both ways
    /// exactly as it came (its stderr to ours)
    Proxy(proxy_command::ProxyArgs),
    /// List the servers saved in Toolscope and those found in other clients' configurations
    /// (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI, Codex)
    Servers(servers_command::ServersArgs),
    /// Forget the OAuth tokens and client registration kept for a server
    SignOut(sign_in_flags::SignOutArgs),
    /// Run the built-in demo server (stdio by default)
    DemoServer(DemoServerArgs),
    /// Serve Toolscope's own tools over stdio as an MCP server, for a coding agent: list
    /// servers and tools, call a tool (both halves and the analysis), the history, cases,
    /// interface diffs, reads and prompts
    Mcp(mcp_command::McpArgs),
}

#[derive(Debug, clap::Args)]
pub struct DemoServerArgs {
    /// Serve Streamable HTTP on this address instead of stdio, e.g. 127.0.0.1:8080 (port 0 picks one)
    #[arg(long, value_name = "ADDRESS")]
    pub http: Option<std::net::SocketAddr>,
    /// With --http: require `Authorization: Bearer <TOKEN>` (others get HTTP 401)
    #[arg(long, value_name = "TOKEN", requires = "http")]
    pub token: Option<String>,
    /// Also serve this many generated tools, listed in pages of 500 (for trying big servers)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub extra_tools: usize,
}

/// The tokio runtime every command (and the window) runs on; a failure is reported here.
pub fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| {
            let error = CliError::Failure(format!("cannot start the async runtime: {error}"));
            ExitCode::from(error.exit())
        })
}

/// Runs a command on a fresh tokio runtime.
pub fn run(command: Command) -> ExitCode {
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    // Only the commands that talk to a server make spans (the demo server is one).
    let traced = !matches!(
        command,
        Command::History(_)
            | Command::Check(_)
            | Command::Servers(_)
            | Command::DemoServer(_)
            | Command::Mcp(_)
    );
    if traced {
        let path = toolscope_core::settings::settings_path();
        toolscope_core::telemetry::start(&toolscope_core::telemetry::config::settings_in(
            path.as_deref(),
        ));
    }
    let code = runtime.block_on(async move {
        let command = async move {
            match command {
                Command::Tools(args) => tools_command::run(args).await,
                Command::Call(args) => call_command::run(args).await,
                Command::History(args) => history_command::run(args),
                Command::Run(args) => run_command::run(args).await,
                Command::Check(args) => check_command::run(args),
                Command::Snapshot(args) => snapshot_command::run(args).await,
                Command::Diff(args) => diff_command::run(args).await,
                Command::Read(args) => read_command::run(args).await,
                Command::Resources(args) => resources_command::run(args).await,
                Command::Prompts(args) => prompts_command::list(args).await,
                Command::Prompt(args) => prompts_command::get(args).await,
                Command::Skills(args) => skills_command::list(args).await,
                Command::Skill(args) => skills_command::load(args).await,
                Command::Complete(args) => complete_command::run(args).await,
                Command::Ping(args) => ping_command::run(args).await,
                Command::Load(args) => load_command::run(args).await,
                Command::Doctor(args) => doctor_command::run(args).await,
                Command::App(args) => app_command::run(args).await,
                Command::Proxy(args) => proxy_command::run(args).await,
                Command::Servers(args) => servers_command::run(args),
                Command::SignOut(args) => sign_in_flags::sign_out(args).await,
                Command::Mcp(args) => mcp_command::run(args).await,
                Command::DemoServer(args) => {
                    let served = match args.http {
                        Some(address) => {
                            toolscope_core::demo_server::serve_http(
                                address,
                                args.token,
                                args.extra_tools,
                            )
                            .await
                        }
                        None => toolscope_core::demo_server::serve_stdio(args.extra_tools).await,
                    };
                    served.map(|()| EXIT_OK).map_err(CliError::from)
                }
            }
        };
        let code = until_signal(command).await.unwrap_or_else(CliError::exit);
        // Every exit path closes its stdio servers (stdin, SIGTERM, SIGKILL) and reaps them.
        toolscope_core::session::Session::wait_for_closing_servers(std::time::Duration::from_secs(
            6,
        ))
        .await;
        code
    });
    // The run's spans reach the collector before the process ends, or are given up.
    toolscope_core::telemetry::finish(toolscope_core::telemetry::EXPORT_AT_EXIT_LIMIT);
    // Background tasks must not keep the process alive.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    ExitCode::from(code)
}

#[cfg(not(unix))]
async fn until_signal(command: impl Future<Output = Result<u8, CliError>>) -> Result<u8, CliError> {
    tokio::select! {
        ended = command => ended,
        _ = tokio::signal::ctrl_c() => Err(CliError::Interrupted),
    }
}

/// Runs a command until it ends or SIGINT/SIGTERM arrives. On SIGINT a running call gets up to
/// two seconds to cancel itself politely (it sends notifications/cancelled); then the command
/// is dropped, which closes its session. Exit status 130 or 143, as shells report signals.
#[cfg(unix)]
async fn until_signal(command: impl Future<Output = Result<u8, CliError>>) -> Result<u8, CliError> {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut interrupt), Ok(mut terminate)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return command.await;
    };
    let mut command = std::pin::pin!(command);
    tokio::select! {
        ended = &mut command => ended,
        _ = interrupt.recv() => {
            let wind_down = tokio::time::timeout(std::time::Duration::from_secs(2), &mut command);
            wind_down.await.unwrap_or(Err(CliError::Interrupted))
        }
        _ = terminate.recv() => Err(CliError::Terminated),
    }
}
