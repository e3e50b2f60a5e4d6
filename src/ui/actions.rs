//! What the panels ask for. They return actions; the app applies them after the frame's
//! layout, so no panel mutates shared state while another is drawing.

use serde_json::Value;

use crate::{session::ServerConfig, workbench::ServerId};

#[derive(Debug, Clone)]
pub enum Action {
    SelectServer(ServerId),
    Connect(ServerId),
    Disconnect(ServerId),
    /// Open the server editor: `None` adds a new server.
    EditServer(Option<ServerId>),
    RemoveServer(ServerId),
    SaveServer {
        id: Option<ServerId>,
        name: String,
        config: ServerConfig,
    },
    SelectTool(ServerId, String),
    RefreshTools(ServerId),
    Call(ServerId, String),
    Cancel(ServerId, String),
    /// "Use as argument of…" on a node of a result.
    StartChaining {
        server: ServerId,
        from_tool: String,
        pointer: String,
        value: Value,
    },
    /// Fill `argument` of `to_tool` with `value`, and go there.
    CompleteChaining {
        server: ServerId,
        to_tool: String,
        argument: String,
        value: Value,
        from: String,
    },
    SetTimeout(f64),
    /// Save the decoded bytes of an image, audio or blob block to a file the user picks.
    SaveMedia {
        bytes: std::sync::Arc<[u8]>,
        file_name: String,
    },
    /// Select a node of a tool's structured result (a clicked violation).
    SelectPointer {
        server: ServerId,
        tool: String,
        pointer: String,
    },
}
