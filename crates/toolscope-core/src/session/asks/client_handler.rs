//! Our side of the MCP conversation: who we say we are, where server notifications go, and
//! how the server's requests (elicitation, sampling, roots) are answered.

#[allow(deprecated)]
use rmcp::{
    ClientHandler, ErrorData as McpError,
    model::{
        ClientConfig, CreateMessageRequestParams, CreateMessageResult, CustomNotification,
        ElicitRequestParams, ElicitResult, ErrorCode, Implementation, ListRootsResult,
        LoggingMessageNotificationParam, ProgressNotificationParam, ProtocolVersion, RequestId,
        ResourceUpdatedNotificationParam,
    },
    service::{NotificationContext, RequestContext, RoleClient},
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::session::{
    asks::answering,
    asks::client_side::ClientSide,
    asks::{
        AskOrigin, AskReply, ELICITATION, ExchangeLog, MAX_ASK_DEPTH, ROOTS, SAMPLING, ServerAsk,
    },
    events::{EventSink, ProgressUpdate, SessionEvent},
    requests::progress_routes::ProgressRoutes,
    requests::raw_responses::RawResponses,
};

/// The rmcp client handler of a session.
pub struct ToolscopeClient {
    pub sink: EventSink,
    pub progress_routes: ProgressRoutes,
    /// Offer 2025-11-25 in `initialize` (as rmcp's `Auto` does when it falls back).
    pub legacy_initialize: bool,
    pub side: ClientSide,
    /// Where the server's requests are kept as sent.
    pub raw: RawResponses,
    pub exchanges: ExchangeLog,
    /// Where `notifications/tasks/status` go (the params), for the calls following a task.
    pub task_statuses: tokio::sync::broadcast::Sender<Value>,
    /// Where the ids of `notifications/elicitation/complete` go, for the calls running.
    pub elicitations_completed: tokio::sync::broadcast::Sender<String>,
    pub asking: answering::AskingCount,
}

impl ToolscopeClient {
    /// Answers one server request: its params as sent (rmcp's typed ones when the raw copy is
    /// gone), answered as every ask is, the exchange kept for the call that is running, and
    /// the reply made into rmcp's result type.
    async fn answer_request<T: DeserializeOwned>(
        &self,
        method: &str,
        typed_params: Value,
        context: &RequestContext<RoleClient>,
    ) -> Result<T, McpError> {
        let id = request_id_text(&context.id);
        let raw_params = self.raw.take_request(&id);
        let raw_params = raw_params
            .as_ref()
            .and_then(|message| message.root().get("params"));
        if raw_params.is_some_and(|params| params.depth() > MAX_ASK_DEPTH) {
            return Err(McpError::invalid_params(
                format!("the {method} request nests deeper than {MAX_ASK_DEPTH} levels"),
                None,
            ));
        }
        let params = raw_params.map_or(typed_params, |params| params.to_value());
        let ask = ServerAsk {
            method: method.to_owned(),
            params,
            origin: AskOrigin::Request { id },
        };
        let mut exchange =
            answering::answer(ask, &self.side, &self.asking, context.ct.cancelled()).await;
        // Made into rmcp's type first, so what is logged is what the server gets.
        let sent = match &exchange.reply {
            AskReply::Result { result } => {
                serde_json::from_value::<T>(result.clone()).map_err(|error| {
                    let message = format!("the answer is not a valid {method} result: {error}");
                    exchange.reply = AskReply::refused(INTERNAL_ERROR_CODE, message.clone());
                    McpError::internal_error(message, None)
                })
            }
            AskReply::Refused { code, message } => {
                Err(McpError::new(ErrorCode(*code), message.clone(), None))
            }
        };
        (self.sink)(SessionEvent::Answered(Box::new(exchange.clone())));
        self.exchanges.push(exchange);
        sent
    }
}

/// JSON-RPC "internal error": an answer that is not a valid result of its request.
const INTERNAL_ERROR_CODE: i32 = -32603;

/// How Toolscope names itself to a server (the handshake, the doctor's probe).
pub(crate) fn toolscope_identity() -> Implementation {
    Implementation::new("toolscope", env!("CARGO_PKG_VERSION")).with_title("Toolscope")
}

fn request_id_text(id: &RequestId) -> String {
    crate::session::transports::tap::id_text(&serde_json::to_value(id).unwrap_or_default())
}

// Sampling and roots are deprecated by SEP-2577, but servers of both eras still use them.
#[allow(deprecated)]
impl ClientHandler for ToolscopeClient {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let typed = serde_json::to_value(&request).unwrap_or_default();
        self.answer_request(ELICITATION, typed, &context).await
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        let typed = serde_json::to_value(&params).unwrap_or_default();
        self.answer_request(SAMPLING, typed, &context).await
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, McpError> {
        self.answer_request(ROOTS, Value::Object(Default::default()), &context)
            .await
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == "notifications/tasks/status" {
            if let Some(params) = notification.params {
                // Nobody listening (no task running) is fine.
                let _ = self.task_statuses.send(params);
            }
            return;
        }
        if notification.method == "notifications/elicitation/complete" {
            let elicitation_id = notification
                .params
                .as_ref()
                .and_then(|params| params.get("elicitationId"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if !elicitation_id.is_empty() {
                let _ = self.elicitations_completed.send(elicitation_id.clone());
            }
            (self.sink)(SessionEvent::ElicitationComplete { elicitation_id });
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let token = crate::session::transports::tap::id_text(
            &serde_json::to_value(&params.progress_token).unwrap_or_default(),
        );
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

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        (self.sink)(SessionEvent::ResourceUpdated { uri: params.uri });
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.sink)(SessionEvent::OtherListChanged { list: "prompts" });
    }

    fn get_info(&self) -> ClientConfig {
        let config = ClientConfig::new(self.side.declared.to_rmcp(), toolscope_identity());
        if self.legacy_initialize {
            config.with_protocol_version(ProtocolVersion::V_2025_11_25)
        } else {
            config
        }
    }
}
