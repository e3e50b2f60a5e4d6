//! Toolscope: an MCP tool explorer. This crate is its two faces, the eframe/egui window
//! (`ui`, over the egui-free application model in `workbench`) and the headless command line
//! (`cli`); everything below them is `toolscope-core`, re-exported here under the same names.

pub use toolscope_core::{
    APP_ID, analysis, answers, atomic_file, auth, cases, compare, deep_json, demo_server, engine,
    history, import, interface, json_doc, json_pointer, proxy, report, secret_store, secrets,
    session, settings, text_util, tls, uri_template, watch,
};

pub mod cli;
pub mod ui;
pub mod workbench;
