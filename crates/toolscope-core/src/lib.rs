//! Toolscope's engine, egui-free: sessions with MCP servers (stdio and Streamable HTTP, both
//! protocol eras, OAuth), the analysis of results, what servers ask and how it is answered,
//! the history, cases, comparisons, interface snapshots, reports, other clients' configurations,
//! the settings and their secrets, and the built-in demo server. The window and the command
//! line (the `toolscope` crate) are two faces over it.

pub mod agent_server;
pub mod analysis;
pub mod answers;
pub mod apps;
pub mod atomic_file;
pub mod auth;
pub mod cases;
pub mod compare;
pub mod deep_json;
pub mod demo_server;
pub mod doctor;
pub mod engine;
pub mod error_chain;
pub mod gates;
pub mod history;
pub mod import;
pub mod interface;
pub mod json_doc;
pub mod json_pointer;
pub mod load;
pub mod proxy;
pub mod report;
pub mod secret_store;
pub mod secrets;
pub mod session;
pub mod settings;
pub mod skills;
pub mod telemetry;
pub mod text_util;
pub mod tls;
pub mod uri_template;
pub mod watch;

/// The application id, the same everywhere: the window's Wayland app id and X11 class, the
/// `.desktop` file, the AppStream id, the icon's name (packaging/linux/) and the keyring's
/// service name.
pub const APP_ID: &str = "io.github.toolscope.Toolscope";
