//! What the user asks of the model. The window's panels return these; the model applies them
//! after the frame's layout, so nothing changes while a panel is drawing. Each part of the
//! model has its own actions and applies them in its file (`model/servers.rs`, `calls.rs`…).

use super::model::{
    AppAction, CallAction, CaseAction, FeatureAction, HistoryAction, ImportAction, LoadAction,
    ResourceAction, SelectionAction, ServerAction,
};

#[derive(Debug, Clone)]
pub enum Action {
    /// Select, connect, save or remove a server.
    Servers(ServerAction),
    /// Other clients' servers: look for them, import one, update one imported earlier.
    Import(ImportAction),
    /// Select a tool, call it, cancel the call.
    Calls(CallAction),
    /// Browse the history (or a recording in its place).
    History(HistoryAction),
    /// A resource a result links to, a tool's MCP App.
    Resources(ResourceAction),
    /// Run a tool's MCP App, stop it, answer what it asks.
    Apps(AppAction),
    /// A server's resources, prompts, log level and round trips.
    Features(FeatureAction),
    /// Mark history calls; compare two results; write marked calls as a report or recording.
    Selection(SelectionAction),
    /// Open, run or write cases.
    Cases(CaseAction),
    /// Start, stop or close a load run (the Server tab).
    Load(LoadAction),
    /// Answer a question a server asked (elicitation, sampling).
    AnswerAsk {
        id: super::AskId,
        reply: toolscope_core::session::AskReply,
    },
    SetTimeout(f64),
    /// The user moved or folded a part of the window, or zoomed.
    SetLayout(toolscope_core::settings::Layout),
    /// A file dialog was answered in this folder (the next one starts there).
    SetLastFolder(std::path::PathBuf),
    /// Show a message at the top until dismissed.
    ShowBanner(String),
    DismissBanner,
}

/// Each part's action is the model's action as it is (`CallAction::Cancel(key).into()`).
macro_rules! part {
    ($($part:ident => $variant:ident),* $(,)?) => {$(
        impl From<$part> for Action {
            fn from(action: $part) -> Self {
                Self::$variant(action)
            }
        }
    )*};
}

part! {
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
