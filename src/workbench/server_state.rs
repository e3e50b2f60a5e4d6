//! One server as the model knows it: its settings, where its connection stands, its tools.

use std::{collections::VecDeque, sync::Arc, time::Instant};

use super::ServerId;
use toolscope_core::session::{ProtocolTap, ServerConfig, ServerSummary, ToolCatalog, ToolEntry};

/// How many server log messages are kept per server.
pub const MAX_LOG_MESSAGES: usize = 1_000;

/// Where a server's connection stands.
#[derive(Debug, Clone)]
pub enum ConnectionStatus {
    Disconnected,
    Connecting {
        since: Instant,
    },
    Connected {
        summary: Box<ServerSummary>,
    },
    Failed {
        message: String,
    },
    /// It was connected and the connection ended.
    Closed {
        reason: String,
    },
}

#[derive(Debug)]
pub struct ServerState {
    pub id: ServerId,
    pub name: String,
    pub config: ServerConfig,
    /// The built-in demo server: cannot be edited or removed.
    pub builtin: bool,
    /// Connect this server when Toolscope starts (the user's choice, saved).
    pub connect_at_start: bool,
    /// The client capabilities declared to it and the roots offered.
    pub client: toolscope_core::session::ClientSettings,
    pub status: ConnectionStatus,
    /// The page a connection under way waits on for the user to sign in.
    pub sign_in: Option<super::backend::SignInPage>,
    /// The `${input:…}` ids its settings use that the window asks the user for (the
    /// connection waits for them).
    pub asked_inputs: Vec<String>,
    pub tap: Option<ProtocolTap>,
    /// Shared, so drawing a frame or opening a dialog never copies the list.
    pub catalog: Option<Arc<ToolCatalog>>,
    pub tools_error: Option<String>,
    /// What the last `tools/list_changed` refresh changed, in words.
    pub change_note: Option<String>,
    /// How the server's interface changed since the last time it was listed (another
    /// connection, another run of Toolscope); `None` when it did not, or it is dismissed.
    pub since_last_time: Option<crate::workbench::InterfaceNote>,
    /// The selected tool's position in the catalog (names may repeat).
    pub selected_tool: Option<usize>,
    /// Server log messages (`notifications/message`), newest last, bounded.
    pub log_messages: VecDeque<String>,
    /// How many log messages ever arrived: a cheap key for views that cache what they show.
    pub log_count: u64,
    /// Its resources, prompts, log level and round trips (new with each connection).
    pub features: super::server_features::ServerFeatures,
    /// The last call made on it (tool and arguments): what a restart on change calls again.
    pub last_call: Option<(String, serde_json::Map<String, serde_json::Value>)>,
    /// Restart on change, when on (a stdio server being written).
    pub restart_on_change: Option<super::restart_on_change::RestartOnChange>,
}

impl ServerState {
    pub fn new(id: ServerId, name: String, config: ServerConfig, builtin: bool) -> Self {
        Self {
            id,
            name,
            config,
            builtin,
            connect_at_start: true,
            client: toolscope_core::session::ClientSettings::default(),
            status: ConnectionStatus::Disconnected,
            sign_in: None,
            asked_inputs: Vec::new(),
            tap: None,
            catalog: None,
            tools_error: None,
            change_note: None,
            since_last_time: None,
            features: super::server_features::ServerFeatures::default(),
            selected_tool: None,
            log_messages: VecDeque::new(),
            log_count: 0,
            last_call: None,
            restart_on_change: None,
        }
    }

    pub fn is_connected(&self) -> bool {
        matches!(self.status, ConnectionStatus::Connected { .. })
    }

    pub fn summary(&self) -> Option<&ServerSummary> {
        match &self.status {
            ConnectionStatus::Connected { summary } => Some(summary),
            _ => None,
        }
    }

    pub fn selected_tool_entry(&self) -> Option<&ToolEntry> {
        self.catalog.as_ref()?.tools.get(self.selected_tool?)
    }

    pub(super) fn push_log(&mut self, line: String) {
        self.log_messages.push_back(line);
        self.log_count += 1;
        while self.log_messages.len() > MAX_LOG_MESSAGES {
            self.log_messages.pop_front();
        }
    }
}
