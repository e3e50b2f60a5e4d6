//! The application model under the window: servers and their sessions, calls, settings.
//! Runs everything on tokio and reports through events; knows nothing of egui.

pub mod backend;
pub mod media;
pub mod secrets;
pub mod settings;

pub use backend::{Backend, BackendEvent, CallId, CallRecord, CallRequest, ServerId};
pub use settings::{SavedServer, Settings};
