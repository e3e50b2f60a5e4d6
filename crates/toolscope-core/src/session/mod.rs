//! Sessions with MCP servers: transports, the handshake in both protocol eras, tool listing,
//! calls with progress and cancellation, and the protocol tap. Knows nothing of any UI.

mod answering;
pub mod asks;
pub mod call_outcome;
pub mod capability_words;
mod client_handler;
pub mod client_side;
pub mod config;
pub mod connect_options;
pub mod connection;
mod discover_probe;
pub mod error;
pub mod events;
pub mod feature_items;
pub(crate) mod http;
pub(crate) mod http_auth;
mod http_capture;
mod http_discover_probe;
mod http_failure;
mod http_redirect;
mod http_resume;
pub mod input_rounds;
mod progress_routes;
pub mod raw_response;
pub mod raw_responses;
pub mod request_control;
pub mod resources;
pub mod server_features;
pub mod server_summary;
mod start;
mod start_errors;
mod stdio;
mod subscriptions;
pub mod tap;
mod task_extension;
pub mod tasks;
pub mod tool_catalog;

pub use asks::{AnswerAsks, AnsweredBy, AskOrigin, AskReply, Asker, Exchange, ServerAsk, asker_fn};
pub use call_outcome::CallOutcome;
pub use client_side::{ClientRoot, ClientSettings, ClientSide, DeclaredCapabilities};
pub use config::{ServerConfig, Timeouts};
pub use connect_options::ConnectOptions;
pub use connection::Session;
pub use error::SessionError;
pub use events::{EventSink, ProgressUpdate, SessionEvent};
pub use http_redirect::RefusalReason;
pub use raw_response::RawResponse;
pub use request_control::RequestControl;
pub use server_summary::ServerSummary;
/// SIGTERM for a child of ours (the proxy ends its server as a session does).
pub(crate) use stdio::{server_command, terminate};
pub use tap::ProtocolTap;
pub use tool_catalog::{ToolCatalog, ToolEntry};
