//! What the panels ask for: a change of the model, or of the window itself (a dialog, a
//! selection in a tree, a file to save). Applied after the frame's layout.

use std::sync::Arc;

use serde_json::Value;

use crate::{
    ui::dialogs::OpenDialog,
    workbench::{self, ToolKey},
};

#[derive(Debug, Clone)]
pub enum Action {
    /// A change of the application model.
    Model(workbench::Action),
    /// Open a dialog.
    Open(OpenDialog),
    /// A change of how the window is laid out.
    View(ViewChange),
    /// Call a tool with the arguments its form holds once this frame is drawn (`force`: even
    /// though the tool is flagged).
    CallWithForm { tool: ToolKey, force: bool },
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

/// What the top bar, the shortcuts and the lists change in the window's layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewChange {
    ToggleSidebar,
    ToggleLogs,
    /// Presentation mode on or off (F5).
    TogglePresentation,
    /// The guided tour started or stopped.
    ToggleTour,
    /// The next colour scheme: the system's, light, dark.
    NextAppearance,
    /// The tool's first argument takes the focus when its form is next drawn.
    FocusArguments(ToolKey),
    /// Open a file Toolscope wrote with the desktop's program for it.
    OpenFile(std::path::PathBuf),
    /// Open the folder a file Toolscope wrote is in.
    ShowInFolder(std::path::PathBuf),
}

impl From<OpenDialog> for Action {
    fn from(request: OpenDialog) -> Self {
        Self::Open(request)
    }
}

/// Each part of the model's actions is a window action as it is (`ServerAction::Connect(id).into()`).
macro_rules! model_part {
    ($($part:ident => $variant:ident),* $(,)?) => {$(
        impl From<workbench::$part> for Action {
            fn from(action: workbench::$part) -> Self {
                Self::Model(action.into())
            }
        }
    )*};
}

model_part! {
    ServerAction => Servers,
    ImportAction => Import,
    CallAction => Calls,
    HistoryAction => History,
    ResourceAction => Resources,
    SelectionAction => Selection,
    CaseAction => Cases,
}

impl From<workbench::Action> for Action {
    fn from(action: workbench::Action) -> Self {
        Self::Model(action)
    }
}
