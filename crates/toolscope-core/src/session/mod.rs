//! Sessions with MCP servers: transports, the handshake in both protocol eras, tool listing,
//! calls with progress and cancellation, and the protocol tap. Knows nothing of any UI.

pub mod asks;
pub mod catalog;
pub mod config;
pub mod connect_options;
pub mod connection;
pub mod error;
pub mod events;
pub mod requests;
pub mod tasks;
pub mod transports;

pub use asks::client_side::{ClientRoot, ClientSettings, ClientSide, DeclaredCapabilities};
pub use asks::{AnswerAsks, AnsweredBy, AskOrigin, AskReply, Asker, Exchange, ServerAsk, asker_fn};
pub use catalog::server_summary::ServerSummary;
pub use catalog::tool_catalog::{ToolCatalog, ToolEntry};
pub use config::{ServerConfig, Timeouts};
pub use connect_options::ConnectOptions;
pub use connection::Session;
pub use error::SessionError;
pub use events::{EventSink, ProgressUpdate, SessionEvent};
pub use requests::call_outcome::CallOutcome;
pub use requests::raw_response::RawResponse;
pub use requests::request_control::RequestControl;
pub use transports::http_redirect::RefusalReason;
/// SIGTERM for a child of ours (the proxy ends its server as a session does).
pub(crate) use transports::stdio::{server_command, terminate};
pub use transports::tap::ProtocolTap;
