//! The application model under the window, egui-free: the [`Model`] of servers, tools, calls
//! and settings, changed only through [`Action`]s and [`BackendEvent`]s; the [`Backend`] that
//! runs sessions on tokio; call records prepared off the UI thread; settings and their writer.

pub mod action;
pub mod app_run_view;
pub mod backend;
mod base64_preview;
pub mod call_failure;
pub mod call_record;
pub mod case_book;
pub mod compact_record;
pub mod comparison;
pub mod content_blocks;
pub mod feature_record;
pub mod found_servers;
pub mod free_memory;
pub mod history_browser;
pub mod ids;
pub mod internal_failure;
pub mod live_sessions;
pub mod load_run;
pub mod media;
pub mod model;
pub mod opened_resource;
pub mod pending_asks;
pub mod repeated_reads;
pub mod restart_on_change;
pub mod server_diagnosis;
pub mod server_features;
pub mod server_skills;
pub mod server_state;
pub mod settings_writer;
pub mod tool_changes;
pub mod tool_run;

pub use action::Action;
pub use backend::{Backend, BackendEvent, CallRequest, FeatureEvent, InterfaceNote, SignInPage};
pub use call_failure::CallFailure;
pub use call_record::{CallRecord, DecodedMedia};
pub use case_book::{CaseBook, CaseOutcome, CasesTarget};
pub use comparison::{CompareSide, ComparedCall, ComparisonState, ComparisonView};
pub use content_blocks::ContentBlocks;
pub use history_browser::HistoryBrowser;
pub use ids::{CallId, ServerId};
pub use live_sessions::LiveSessions;
pub use model::{
    AppAction, CallAction, CaseAction, CaseSource, DEMO_SERVER, FeatureAction, HistoryAction,
    HistoryStatus, ImportAction, LoadAction, Model, ModelOptions, OpenRecording, ResourceAction,
    SelectionAction, ServerAction, TeamHistoryChoice,
};
pub use opened_resource::{OpenedResource, ReadContent, ResourceState};
pub use pending_asks::{AskId, PendingAsk, PendingAsks};
pub use server_state::{ConnectionStatus, ServerState};
pub use tool_changes::ToolChanges;
pub use tool_run::{CallState, RunningTask, Settling, ToolKey, ToolRun};

#[cfg(test)]
mod model_tests;
