//! Toolscope: an MCP tool explorer. This crate is its two faces, the eframe/egui window
//! (`ui`, over the egui-free application model in `workbench`) and the headless command line
//! (`cli`). Everything below them is the engine, `toolscope_core`, which the faces name as such
//! (no re-export: a reader sees at each path which side of the boundary it is on).

pub mod cli;
pub mod ui;
pub mod workbench;
