//! Toolscope as an MCP server for coding agents (`toolscope mcp`): what a person asks the
//! window, an agent asks over stdio. Its tools list the servers Toolscope may reach and their
//! tools, call a tool and give back both halves of its result with the analysis in the
//! window's words, search and show the history, run a case file, diff an interface snapshot
//! against a server now, read a resource and get a prompt. Everything goes through the engine
//! (`engine::named_server`, `reach`, `make`, `feature`), the history, `cases/` and
//! `interface/`; each call an agent makes is kept in the history with the agent's client name.
//!
//! Safe by default: only servers saved in Toolscope or found in another client's configuration
//! (or `demo`) are reached ([`reachable`]); a new command line or URL needs
//! `allow_new_servers`.

mod bounded_json;
mod call_out;
mod checks;
mod kept;
mod outputs;
mod reachable;
mod server_work;
mod toolscope_tools;

pub use reachable::{NotReachable, Reachable};
pub use toolscope_tools::ToolscopeAgent;

use rmcp::ServiceExt;

use crate::{
    engine::ServerSources,
    history::{HistoryLocation, RecordedBy},
    secret_store::{SecretStore, SecretStoreError},
    session::Timeouts,
};

/// What `toolscope mcp` was started with.
#[derive(Debug, Clone)]
pub struct AgentSettings {
    /// Where saved and imported servers are looked for.
    pub sources: ServerSources,
    /// Whether a command line or URL nobody saved may be started or reached.
    pub allow_new_servers: bool,
    /// How long each request to a server may wait.
    pub timeouts: Timeouts,
    /// The history calls are kept in and searched.
    pub history: HistoryLocation,
    pub recorded_by: RecordedBy,
    /// Whether calls are kept (`--no-history` turns it off).
    pub record: bool,
    /// Opens the secret store (kept secrets of saved servers, OAuth tokens of HTTP ones).
    pub open_secrets: fn() -> Result<SecretStore, SecretStoreError>,
}

/// Why the agent server stopped.
#[derive(Debug, thiserror::Error)]
pub enum AgentServerError {
    #[error("the MCP server could not start on stdio: {0}")]
    Start(String),
    #[error("the MCP server stopped: {0}")]
    Stopped(String),
}

/// Serves Toolscope's tools over stdio until the agent hangs up.
pub async fn serve_stdio(settings: AgentSettings) -> Result<(), AgentServerError> {
    let transport = (tokio::io::stdin(), tokio::io::stdout());
    let running = ToolscopeAgent::new(settings)
        .serve(transport)
        .await
        .map_err(|error| AgentServerError::Start(error.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|error| AgentServerError::Stopped(error.to_string()))?;
    Ok(())
}
