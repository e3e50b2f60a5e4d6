//! `toolscope mcp`: Toolscope as an MCP server over stdio, for a coding agent's configuration
//! (`toolscope_core::agent_server`). Standard output carries the protocol only; what goes
//! wrong before it starts is said on stderr.

use clap::Args;

use super::{CliError, EXIT_OK};
use toolscope_core::{
    agent_server::{self, AgentSettings},
    engine::ServerSources,
    session::Timeouts,
};

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Let the agent name a command line or URL nobody saved (by default only `demo`, the
    /// servers saved in Toolscope and those in other clients' configurations)
    #[arg(long)]
    pub allow_new_servers: bool,
    /// Seconds each request to a server may wait (restarted by progress notifications)
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
    /// Do not keep the agent's calls in the history
    #[arg(long, conflicts_with = "history")]
    pub no_history: bool,
    #[command(flatten)]
    pub history: super::history_flag::HistoryFlag,
}

pub async fn run(args: McpArgs) -> Result<u8, CliError> {
    let timeouts = Timeouts::seconds(args.timeout)
        .map(Timeouts::with_request)
        .map_err(|problem| format!("--timeout: {problem}"))?;
    let chosen = args.history.chosen()?;
    let settings = AgentSettings {
        sources: ServerSources::here(),
        allow_new_servers: args.allow_new_servers,
        timeouts,
        history: chosen.location,
        recorded_by: chosen.recorded_by,
        record: !args.no_history,
        open_secrets: super::sign_in_flags::secret_store,
    };
    agent_server::serve_stdio(settings)
        .await
        .map_err(|error| CliError::Failure(error.to_string()))?;
    Ok(EXIT_OK)
}
