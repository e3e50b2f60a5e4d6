//! The built-in demo server: tools that teach the split between `content` (what a model reads)
//! and `structuredContent` (what an application reads). Written with rmcp's server API.

mod bonus_tool;
mod http;
pub mod lessons;
mod png;
mod query_engine;
mod synthetic_tools;
mod tools;

pub use http::serve_http;
pub use tools::DemoServer;

use rmcp::ServiceExt;

/// Serves the demo tools (plus `extra_tools` generated ones) over stdio until the client
/// hangs up.
pub async fn serve_stdio(extra_tools: usize) -> Result<(), DemoServerError> {
    let transport = (tokio::io::stdin(), tokio::io::stdout());
    let running = DemoServer::with_extra_tools(extra_tools)
        .serve(transport)
        .await
        .map_err(|error| DemoServerError::Start(error.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|error| DemoServerError::Stopped(error.to_string()))?;
    Ok(())
}

/// Why the demo server did not serve.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DemoServerError {
    #[error("the demo server could not start: {0}")]
    Start(String),
    #[error("the demo server stopped: {0}")]
    Stopped(String),
    #[error("cannot listen on {address}: {reason}")]
    Listen {
        address: std::net::SocketAddr,
        reason: String,
    },
    #[error("cannot read the bound address: {0}")]
    Address(String),
}
