//! Toolscope: an MCP tool explorer. The library holds everything below the window: sessions
//! with servers, the analysis of results, the demo server, and the headless command line.

pub mod analysis;
pub mod answers;
pub mod atomic_file;
pub mod auth;
pub mod cases;
pub mod cli;
pub mod compare;
pub mod deep_json;
pub mod demo_server;
pub mod history;
pub mod import;
pub mod interface;
pub mod json_doc;
pub mod json_pointer;
pub mod report;
pub mod secret_store;
pub mod secrets;
pub mod session;
pub mod text_util;
pub mod tls;
pub mod ui;
pub mod workbench;

/// The application id, the same everywhere: the window's Wayland app id and X11 class, the
/// `.desktop` file, the AppStream id and the icon's name (packaging/linux/).
pub const APP_ID: &str = "io.github.toolscope.Toolscope";
