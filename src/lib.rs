//! Toolscope: an MCP tool explorer. The library holds everything below the window: sessions
//! with servers, the analysis of results, the demo server, and the headless command line.

pub mod analysis;
pub mod cli;
pub mod compare;
pub mod deep_json;
pub mod demo_server;
pub mod history;
pub mod json_doc;
pub mod json_pointer;
pub mod session;
pub mod text_util;
pub mod ui;
pub mod workbench;
