//! What the user asks of the model. The window's panels return these; the model applies them
//! after the frame's layout, so nothing changes while a panel is drawing.

use serde_json::{Map, Value};

use super::{ServerId, tool_run::ToolKey};
use crate::session::ServerConfig;

#[derive(Debug, Clone)]
pub enum Action {
    SelectServer(ServerId),
    Connect(ServerId),
    Disconnect(ServerId),
    RemoveServer(ServerId),
    /// Values for a server's `${input:…}` placeholders (input id, value), then connect it.
    GiveInputs {
        server: ServerId,
        values: Vec<(String, String)>,
    },
    /// Open the page a server's sign-in waits on in the browser again.
    OpenSignInPage(ServerId),
    /// Forget a server's OAuth tokens and client registration (and disconnect it).
    SignOut(ServerId),
    /// Put a server on the clipboard as another client's configuration entry (secret values
    /// as placeholders unless `include_secrets`).
    CopyServerAs {
        name: String,
        config: ServerConfig,
        client: crate::import::Client,
        include_secrets: bool,
    },
    /// Add (`id: None`) or change a server.
    /// Saving connects it (again, when it was connected: a changed command or URL takes effect).
    SaveServer {
        id: Option<ServerId>,
        name: String,
        config: ServerConfig,
        connect_at_start: bool,
        client: crate::session::ClientSettings,
    },
    /// Look (again) for servers in other clients' configurations.
    LookForServers,
    /// Save the found server at this index of `Model::found_servers` (and connect it).
    ImportFound(usize),
    /// Replace the server imported earlier from the found one at this index with what it is
    /// now (see `Model::earlier_import`), and connect it.
    UpdateFromFound(usize),
    /// Read a resource a result links to, and show it.
    OpenResource {
        server: ServerId,
        uri: String,
    },
    CloseResource,
    /// Read a tool's MCP App resource (`_meta.ui.resourceUri`) and check it.
    CheckApp(ToolKey),
    /// Answer a question a server asked (elicitation, sampling).
    AnswerAsk {
        id: super::AskId,
        reply: crate::session::AskReply,
    },
    /// Select a tool by its position in the server's list (two tools may share a name).
    SelectTool {
        server: ServerId,
        index: usize,
    },
    RefreshTools(ServerId),
    /// Call a tool with these arguments. A call of the same tool still running is cancelled.
    Call {
        tool: ToolKey,
        arguments: Map<String, Value>,
        /// Send it even though the tool is flagged (e.g. not in `tools/list`).
        force: bool,
    },
    Cancel(ToolKey),
    /// A note shown above a tool's arguments (e.g. "`data` was filled in from query_db /rows").
    SetToolNote {
        tool: ToolKey,
        note: Option<String>,
    },
    SetTimeout(f64),
    /// The user moved or folded a part of the window, or zoomed.
    SetLayout(crate::settings::Layout),
    /// Show a message at the top until dismissed.
    ShowBanner(String),
    DismissBanner,
    /// List the history's calls that match (newest first).
    QueryHistory(crate::history::CallQuery),
    /// Show a call from the history as it was (`None`: back to the live result).
    SelectHistoryCall(Option<i64>),
    /// Go to a tool: its server and, when the server lists it, the tool selected, the live
    /// result shown (the one way the window goes to a tool: from a history call, to run or
    /// edit it, and when a value is chained into an argument).
    GoToTool(ToolKey),
    /// Keep a note on a call in the history.
    SetHistoryNote {
        id: i64,
        note: String,
    },
    /// Call the selected history call's tool again, on the same server, with the same
    /// arguments (or these, when they were edited).
    RunHistoryCall {
        id: i64,
        arguments: Option<Map<String, Value>>,
    },
    /// Put away the note of what changed in a server's interface since last time.
    DismissSinceLastTime(ServerId),
    /// Mark history calls; compare two results; write marked calls as a report or recording.
    Selection(super::model::SelectionAction),
    /// How much call text the history keeps (bytes); the oldest calls go first.
    SetHistoryCap(u64),
    /// Browse a recording (made by Export) in place of the history.
    OpenRecording(std::path::PathBuf),
    /// Back to the history.
    CloseRecording,
    /// Open, run or write cases.
    Cases(super::model::CaseAction),
}
