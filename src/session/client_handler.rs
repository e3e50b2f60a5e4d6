//! Our side of the MCP conversation: who we say we are, and where server notifications go.

#[allow(deprecated)]
use rmcp::{
    ClientHandler,
    model::{
        ClientCapabilities, ClientConfig, Implementation, LoggingMessageNotificationParam,
        ProgressNotificationParam, ProtocolVersion,
    },
    service::{NotificationContext, RoleClient},
};

use super::{
    events::{EventSink, ProgressUpdate, SessionEvent},
    progress_routes::ProgressRoutes,
};

/// The rmcp client handler of a session.
pub struct ToolscopeClient {
    pub sink: EventSink,
    pub progress_routes: ProgressRoutes,
    /// Offer 2025-11-25 in `initialize` (as rmcp's `Auto` does when it falls back).
    pub legacy_initialize: bool,
}

impl ClientHandler for ToolscopeClient {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let token =
            super::tap::id_text(&serde_json::to_value(&params.progress_token).unwrap_or_default());
        let update = ProgressUpdate {
            progress: params.progress,
            total: params.total,
            message: params.message,
        };
        self.progress_routes.deliver(&token, &update);
        (self.sink)(SessionEvent::Progress { token, update });
    }

    // Logging is deprecated in 2026-07-28, but 2025-11-25 servers still send it.
    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|level| level.as_str().map(str::to_owned))
            .unwrap_or_else(|| "info".to_owned());
        (self.sink)(SessionEvent::Log {
            level,
            logger: params.logger,
            data: params.data,
        });
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.sink)(SessionEvent::ToolListChanged);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.sink)(SessionEvent::OtherListChanged { list: "resources" });
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.sink)(SessionEvent::OtherListChanged { list: "prompts" });
    }

    fn get_info(&self) -> ClientConfig {
        let identity =
            Implementation::new("toolscope", env!("CARGO_PKG_VERSION")).with_title("Toolscope");
        let config = ClientConfig::new(ClientCapabilities::default(), identity);
        if self.legacy_initialize {
            config.with_protocol_version(ProtocolVersion::V_2025_11_25)
        } else {
            config
        }
    }
}
