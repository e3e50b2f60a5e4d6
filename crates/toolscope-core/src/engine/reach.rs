//! A server reached for calls, the same for every face that calls tools on a server it connects
//! itself (`toolscope call`, `toolscope run`, the window's run of a case file on the file's
//! own server): the session started through [`connect`], then its tools listed with one
//! policy. A server that answers `tools/list` with a JSON-RPC error still takes calls (they go
//! without their definitions, said as a warning); one that cannot be listed at all is not
//! reached.

use super::connect::{ConnectError, OpenSecrets, connect};
use crate::session::{ConnectOptions, ServerConfig, Session, SessionError, Timeouts, ToolCatalog};

/// A session and the tool list calls are planned on.
pub struct Reached {
    pub session: Session,
    /// `None` when the server answered `tools/list` with an error: see `warning`.
    pub catalog: Option<ToolCatalog>,
    /// Why calls go without their tools' definitions, when they do.
    pub warning: Option<SessionError>,
}

/// Why a server was not reached.
#[derive(Debug, thiserror::Error)]
pub enum ReachError {
    #[error(transparent)]
    Connect(#[from] ConnectError),
    #[error("listing tools failed: {0}")]
    List(SessionError),
}

/// The tools calls are planned on, and why there are none when the server would not list them.
#[derive(Debug)]
pub struct ToolsForCalls {
    pub catalog: Option<ToolCatalog>,
    pub warning: Option<SessionError>,
}

/// Lists `session`'s tools for calls: the one policy. The server answered, just not with a
/// tool list (a protocol error): the calls may still work, so they go without definitions.
/// Anything else (a timeout, a closed connection, a cancel) is an error.
pub async fn tools_for_calls(
    session: &Session,
    timeouts: Timeouts,
) -> Result<ToolsForCalls, SessionError> {
    match session.list_tools(timeouts).await {
        Ok(catalog) => Ok(ToolsForCalls {
            catalog: Some(catalog),
            warning: None,
        }),
        Err(error @ SessionError::Protocol { .. }) => Ok(ToolsForCalls {
            catalog: None,
            warning: Some(error),
        }),
        Err(error) => Err(error),
    }
}

/// Connects to `name` (its secrets read through `open_secrets`) and lists its tools; a session
/// whose tools cannot be listed is closed (its process ended and reaped) before the error.
pub async fn reach(
    name: &str,
    config: &ServerConfig,
    open_secrets: OpenSecrets,
    options: ConnectOptions,
) -> Result<Reached, ReachError> {
    let timeouts = options.timeouts;
    let session = connect(name, config, open_secrets, options).await?;
    match tools_for_calls(&session, timeouts).await {
        Ok(ToolsForCalls { catalog, warning }) => Ok(Reached {
            session,
            catalog,
            warning,
        }),
        Err(error) => {
            session.close().await;
            Err(ReachError::List(error))
        }
    }
}
