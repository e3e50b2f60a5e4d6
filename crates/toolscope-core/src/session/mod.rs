//! Sessions with MCP servers: transports, the handshake in both protocol eras, tool listing,
//! calls with progress and cancellation, and the protocol tap. Knows nothing of any UI.

mod answering;
pub mod asks;
mod client_handler;
pub mod client_side;
pub mod config;
pub mod connection;
mod discover_probe;
pub mod error;
pub mod events;
mod http;
mod http_auth;
mod http_capture;
mod http_discover_probe;
mod http_failure;
mod http_redirect;
mod http_resume;
pub mod input_rounds;
mod progress_routes;
pub mod raw_responses;
pub mod resources;
mod start_errors;
mod stdio;
pub mod tap;
mod task_extension;
pub mod tasks;
pub mod tool_catalog;

pub use asks::{AnswerAsks, AnsweredBy, AskOrigin, AskReply, Asker, Exchange, ServerAsk, asker_fn};
pub use client_side::{ClientRoot, ClientSettings, ClientSide, DeclaredCapabilities};
pub use config::{ServerConfig, Timeouts};
pub use connection::{
    CallOutcome, ConnectOptions, RawResponse, RequestControl, ServerSummary, Session,
};
pub use error::SessionError;
pub use events::{EventSink, ProgressUpdate, SessionEvent};
pub use http_redirect::RefusalReason;
pub use tap::ProtocolTap;
pub use tool_catalog::{ToolCatalog, ToolEntry};
