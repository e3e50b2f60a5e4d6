//! The built-in demo server: tools that teach the split between `content` (what a model reads)
//! and `structuredContent` (what an application reads). Written with rmcp's server API.

mod bonus_tool;
mod http;
pub mod lessons;
mod log_level;
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
    let transport = (tokio::io::stdin(), stdout());
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

/// Standard output as the demo writes its messages: straight to the pipe when it is one (a
/// write per message, woken by the reactor), else through tokio's stdout, which hands every
/// write to a blocking thread (tens of microseconds a message: a flood of `slow_task`'s log
/// messages would measure that, not the client or a proxy in front of it).
fn stdout() -> Box<dyn tokio::io::AsyncWrite + Send + Unpin> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd as _;
        let pipe = std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .and_then(|fd| tokio::net::unix::pipe::Sender::from_owned_fd(fd).ok());
        if let Some(pipe) = pipe {
            return Box::new(pipe);
        }
    }
    Box::new(tokio::io::stdout())
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
