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
pub async fn serve_stdio(extra_tools: usize) -> Result<(), String> {
    let transport = (tokio::io::stdin(), tokio::io::stdout());
    let running = DemoServer::with_extra_tools(extra_tools)
        .serve(transport)
        .await
        .map_err(|error| format!("the demo server could not start: {error}"))?;
    running
        .waiting()
        .await
        .map_err(|error| format!("the demo server stopped: {error}"))?;
    Ok(())
}
