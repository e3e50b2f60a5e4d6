//! What the panels ask for: a change of the model, or of the window itself (a dialog, a
//! selection in a tree, a file to save). Applied after the frame's layout.

use std::sync::Arc;

use serde_json::Value;

use crate::workbench::{self, ServerId, ToolKey};

#[derive(Debug, Clone)]
pub enum Action {
    /// A change of the application model.
    Model(workbench::Action),
    /// Open the server editor: `None` adds a new server.
    EditServer(Option<ServerId>),
    /// Open "Import servers" (other clients' servers, or one pasted).
    OpenImport,
    /// "Use as argument of…" on a node of a result.
    StartChaining {
        from_tool: ToolKey,
        pointer: String,
        value: Value,
    },
    /// Fill `argument` of `to_tool` with `value`, and go there.
    CompleteChaining {
        to_tool: ToolKey,
        argument: String,
        value: Value,
        from: String,
    },
    /// Save the decoded bytes of an image, audio or blob block to a file the user picks.
    SaveMedia { bytes: Arc<[u8]>, file_name: String },
    /// Select a node of a tool's structured result (a clicked violation).
    SelectPointer { tool: ToolKey, pointer: String },
    /// Load a history call's arguments into its tool's form and go there.
    EditHistoryCall { id: i64 },
    /// Pick a folder (off the UI thread) and put it in `into` (the server editor's roots).
    PickFolder {
        into: Arc<std::sync::Mutex<Vec<std::path::PathBuf>>>,
    },
}

impl From<workbench::Action> for Action {
    fn from(action: workbench::Action) -> Self {
        Self::Model(action)
    }
}
