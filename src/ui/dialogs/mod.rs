//! The window's dialogs: what a server asks, importing and editing servers, chaining a value into
//! an argument, a resource opened, saving a case, opening a recording, writing marked calls.

pub(crate) mod ask_dialog;
pub(crate) mod chaining;
pub(crate) mod import_dialog;
pub(crate) mod open_recording_dialog;
pub(crate) mod resource_dialog;
pub(crate) mod save_case_dialog;
pub(crate) mod server_editor;
pub(crate) mod write_marked_dialog;
