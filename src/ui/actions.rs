//! What the panels ask for: a change of the model, or of the window itself (a dialog, a
//! selection in a tree, a file to save). Applied after the frame's layout.

use std::path::PathBuf;

use serde_json::Value;

use crate::{
    ui::{
        dialogs::OpenDialog,
        files::{FilePurpose, FileRequest},
    },
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
    /// Ask the person for a file (or folder): the platform's dialog where one answers, else
    /// the window's own.
    ChooseFile(FileRequest),
    /// A file was chosen for `purpose`.
    FileChosen { purpose: FilePurpose, path: PathBuf },
    /// Select a node of a tool's structured result (a clicked violation).
    SelectPointer { tool: ToolKey, pointer: String },
    /// Load a history call's arguments into its tool's form and go there.
    EditHistoryCall { id: i64 },
}

/// What the top bar, the shortcuts and the lists change in the window's layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewChange {
    ToggleSidebar,
    ToggleLogs,
    /// The logs panel, open on the server's log messages.
    ShowServerLog,
    /// A call from the history in the two panes (the History tab picked).
    ShowHistoryCall(i64),
    /// Presentation mode on or off (F5).
    TogglePresentation,
    /// The guided tour started or stopped.
    ToggleTour,
    /// The next colour scheme: the system's, light, dark.
    NextAppearance,
    /// The tool's first argument takes the focus when its form is next drawn.
    FocusArguments(ToolKey),
    /// Open a file Toolscope wrote with the desktop's program for it.
    OpenFile(PathBuf),
    /// Open the folder a file Toolscope wrote is in.
    ShowInFolder(PathBuf),
}

impl From<FileRequest> for Action {
    fn from(request: FileRequest) -> Self {
        Self::ChooseFile(request)
    }
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
    AppAction => Apps,
    SelectionAction => Selection,
    CaseAction => Cases,
    FeatureAction => Features,
    LoadAction => Load,
}

impl From<workbench::Action> for Action {
    fn from(action: workbench::Action) -> Self {
        Self::Model(action)
    }
}
