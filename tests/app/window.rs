//! The real window (egui_kittest, wgpu) against the real demo server and third-party peers, one
//! file per panel or workflow, each opening its window through [`harness::Window::setup`]. A few
//! image snapshots of the main screens (`tests/snapshots/{name}.png`, whatever the module).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

mod harness;

mod apps;
mod asks;
mod calls;
mod cases;
mod compare_and_report;
mod deep_answers;
mod file_dialog;
mod history;
mod import;
mod keyboard;
mod layout;
mod live;
mod load;
mod restart;
mod result_panes;
mod server_features;
mod servers;
mod skills;
mod tasks;
mod team_history;
mod tool_list;
mod tour_and_presentation;
