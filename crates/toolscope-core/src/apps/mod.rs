//! MCP Apps run for real (SEP-1865, `io.modelcontextprotocol/ui`): a tool's `ui://` HTML
//! served on loopback behind a sandbox proxy on another origin, under the Content Security
//! Policy its resource declares, with the host's side of the bridge and a log of every message.
//! The window and `toolscope app` open it in the system browser.

mod app_requests;
pub mod app_resource;
pub mod bridge;
pub mod bridge_log;
pub mod csp;
pub mod host;
pub mod host_checks;
mod host_http;
mod pages;

pub use app_resource::{AppResource, AppResourceError, read_app};
pub use bridge_log::{BridgeEntry, Direction};
pub use host::{
    AppEvent, AppEvents, AppHostError, AppRun, PageState, RunningApp, ToolOutcome, start,
};
