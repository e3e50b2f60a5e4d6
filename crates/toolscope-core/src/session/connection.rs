//! A live connection to one MCP server: connect (either protocol era), list tools, call tools.

use std::{sync::Arc, time::Instant};

use rmcp::{
    RoleClient, ServiceExt as _,
    model::{
        CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest,
        InputResponses, ListToolsRequest, PaginatedRequestParams, ServerNotification,
        SubscriptionFilter,
    },
    service::{
        ClientLifecycleMode, ClientServiceExt, PeerRequestOptions, RunningService, ServiceError,
    },
    transport::async_rw::AsyncRwTransport,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::{
    analysis::ProtocolEra,
    deep_json::drop_value,
    json_doc::{JsonDoc, JsonRef},
};

use super::{
    answering,
    asks::{AskOrigin, AskReply, Exchange, ExchangeLog, ServerAsk},
    client_handler::ToolscopeClient,
    client_side::{ClientRoot, ClientSide},
    config::{ServerConfig, Timeouts},
    discover_probe,
    error::SessionError,
    events::{EventSink, ProgressUpdate, SessionEvent},
    http,
    http_auth::{self, SessionAuth},
    http_discover_probe, http_failure,
    input_rounds::{self, CallRounds, EarlierRound},
    progress_routes::ProgressRoutes,
    raw_responses::RawResponses,
    start_errors::{error_chain, http_start_error, stdio_start_error, stdio_timeout_error},
    stdio::{self, MAX_LINE_BYTES, StdioChild},
    tap::{ProtocolTap, TapLimits, id_text},
    task_extension,
    tool_catalog::ToolCatalog,
};

/// How many stderr lines an error message quotes.
pub(super) const STDERR_TAIL: usize = 12;
/// How long rmcp may take to hand over a response we already hold raw. Past this, rmcp could
/// not parse it, and the raw message is used. Over stdio rmcp gets a tiny stand-in at once, so
/// this only matters over HTTP, where rmcp parses the message itself.
const PARSE_GRACE: std::time::Duration = std::time::Duration::from_secs(2);
/// How long a finished call waits for rmcp to hand over progress notifications that arrived
/// before its response (rmcp handles each in a task of its own).
const PROGRESS_STRAGGLER_LIMIT: std::time::Duration = std::time::Duration::from_millis(250);
/// A server whose `nextCursor` keeps changing is cut off here.
const MAX_TOOL_PAGES: usize = 1_000;

/// What the server said about itself when we connected.
#[derive(Debug, Clone, Serialize)]
pub struct ServerSummary {
    pub protocol_version: String,
    /// `server/discover` (2026-07-28 and later) or `initialize` (older).
    pub lifecycle: &'static str,
    /// Why `initialize` was used although `server/discover` was tried or skipped.
    pub lifecycle_reason: Option<String>,
    pub name: Option<String>,
    pub title: Option<String>,
    pub version: Option<String>,
    pub capabilities: Value,
    pub instructions: Option<String>,
}

impl ServerSummary {
    pub fn is_modern_era(&self) -> bool {
        ProtocolEra::from_version(&self.protocol_version) == ProtocolEra::Modern
    }
}

/// A response exactly as the server sent it: the whole message as a compact document (its
/// text as received), and which member answers (`result`, or `error` for a JSON-RPC error).
#[derive(Debug, Clone)]
pub struct RawResponse {
    message: Arc<JsonDoc>,
    /// Tape position of the answering member; `None` when the message has neither (it then
    /// reads as a `null` result, which the analysis flags).
    member: Option<u32>,
    is_rpc_error: bool,
}

/// What a response without `result` and `error` answers.
static NO_MEMBER: std::sync::LazyLock<JsonDoc> = std::sync::LazyLock::new(JsonDoc::null);

impl RawResponse {
    /// The response in `message`: its `error` member if it has one, else its `result`.
    pub fn from_message(message: Arc<JsonDoc>) -> Self {
        let root = message.root();
        let (member, is_rpc_error) = match (root.get("error"), root.get("result")) {
            (Some(error), _) => (Some(error.id()), true),
            (None, Some(result)) => (Some(result.id()), false),
            (None, None) => (None, false),
        };
        Self {
            message,
            member,
            is_rpc_error,
        }
    }

    /// A response to request `id` whose `result` is `value` (rmcp's parse, tests).
    pub fn new_result(id: &str, value: &Value) -> Self {
        Self::new_message(id, "result", value)
    }

    /// A JSON-RPC error response to request `id` whose `error` is `value`.
    pub fn new_rpc_error(id: &str, value: &Value) -> Self {
        Self::new_message(id, "error", value)
    }

    /// A response to request `id` whose `member` (`result` or `error`) is `part`, its text
    /// exactly as sent (a 2026-07-28 task's result arrives inside a `tasks/get` answer).
    pub fn embedded(id: &str, member: &str, part: JsonRef<'_>) -> Self {
        Self::with_member_text(id, member, part.raw())
    }

    /// A response whose `member` is the JSON `text` (of any depth: nothing is copied into a
    /// `Value`).
    fn with_member_text(id: &str, member: &str, text: &str) -> Self {
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":{},"{member}":{text}}}"#,
            id_value(id)
        );
        let message = JsonDoc::parse(message)
            .unwrap_or_else(|_| JsonDoc::from_value(&json!({"jsonrpc": "2.0"})));
        Self::from_message(Arc::new(message))
    }

    fn new_message(id: &str, member: &str, value: &Value) -> Self {
        let message = json!({"jsonrpc": "2.0", "id": id_value(id), member: value});
        Self::from_message(Arc::new(JsonDoc::from_value(&message)))
    }

    /// The whole message as received (without its line ending).
    pub fn text(&self) -> &str {
        self.message.text().trim()
    }

    pub fn is_rpc_error(&self) -> bool {
        self.is_rpc_error
    }

    /// The answering member: the result, or the JSON-RPC error object.
    pub fn member(&self) -> JsonRef<'_> {
        self.member
            .and_then(|id| self.message.by_id(id))
            .unwrap_or_else(|| NO_MEMBER.root())
    }

    /// The `result` member; `None` for a JSON-RPC error.
    pub fn result_ref(&self) -> Option<JsonRef<'_>> {
        (!self.is_rpc_error).then(|| self.member())
    }

    /// The `result` as a `serde_json::Value` (a copy: for small results and tests).
    pub fn result_to_value(&self) -> Option<Value> {
        self.result_ref().map(JsonRef::to_value)
    }

    /// The whole message, as its compact document.
    pub fn message(&self) -> &Arc<JsonDoc> {
        &self.message
    }

    pub fn into_message(self) -> Arc<JsonDoc> {
        self.message
    }
}

/// `{"kind": "result" | "rpc_error", "value": …}`, read from the document (serialize it
/// through `deep_json::serialize_to_writer`: serde recurses once per level).
impl Serialize for RawResponse {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut state = serializer.serialize_struct("RawResponse", 2)?;
        state.serialize_field("kind", self.kind())?;
        state.serialize_field("value", &self.member())?;
        state.end()
    }
}

/// Read back from its `{"kind", "value"}` form (a call's rounds kept in the history): the
/// value as it was, in a message of its own without the original text or id.
impl<'de> Deserialize<'de> for RawResponse {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Kept {
            kind: String,
            value: Value,
        }
        let kept = Kept::deserialize(deserializer)?;
        let member = if kept.kind == "rpc_error" {
            "error"
        } else {
            "result"
        };
        let response =
            Self::with_member_text("", member, &crate::deep_json::to_string(&kept.value));
        drop_value(kept.value);
        Ok(response)
    }
}

/// A completion the server sent just before its result may be handled a moment after it
/// (rmcp handles each notification on a task of its own): wait briefly for those still
/// missing of the call's URL elicitations.
async fn late_completions(
    rounds: &mut CallRounds,
    receiver: &std::sync::Mutex<tokio::sync::broadcast::Receiver<String>>,
) {
    const LATE: std::time::Duration = std::time::Duration::from_millis(100);
    let missing = |rounds: &CallRounds| {
        rounds.exchanges.iter().any(|exchange| {
            // Only an accepted page with an id can be completed.
            let accepted = matches!(&exchange.reply, AskReply::Result { result }
                    if result.get("action").and_then(Value::as_str) == Some("accept"));
            accepted
                && exchange.ask.is_url_elicitation()
                && exchange.ask.params.get("elicitationId").is_some()
                && !rounds.completed(exchange)
        })
    };
    if !missing(rounds) {
        return;
    }
    let deadline = tokio::time::Instant::now() + LATE;
    while missing(rounds) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        rounds.keep_completions(drain(receiver));
    }
}

/// A JSON-RPC error object in words (`JSON-RPC error -32602: unknown task`), read in place and
/// clipped: the error may be as big or as deep as the server makes it.
pub(super) fn rpc_error_words(error: JsonRef<'_>) -> String {
    let code = error
        .get("code")
        .and_then(JsonRef::number_text)
        .map_or_else(
            || "?".to_owned(),
            |code| crate::text_util::clip_chars(code, 24),
        );
    let message = error
        .get("message")
        .and_then(|message| message.str_prefix(300))
        .map(|(prefix, cut)| {
            let line = crate::text_util::one_line(&prefix, 300);
            if cut { format!("{line}…") } else { line }
        })
        .unwrap_or_default();
    format!("JSON-RPC error {code}: {message}")
}

/// What a broadcast receiver holds now (what it missed while lagging is lost).
pub(super) fn drain<T: Clone>(
    receiver: &std::sync::Mutex<tokio::sync::broadcast::Receiver<T>>,
) -> Vec<T> {
    let mut receiver = receiver
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut items = Vec::new();
    loop {
        match receiver.try_recv() {
            Ok(item) => items.push(item),
            Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => {}
            Err(_) => return items,
        }
    }
}

/// A request id as JSON: a number when it reads as one (rmcp's ids are numbers).
fn id_value(id: &str) -> Value {
    id.parse::<i64>()
        .map_or_else(|_| Value::String(id.to_owned()), Value::from)
}

impl RawResponse {
    /// `result` or `rpc_error`, as the `--json` report names it.
    pub fn kind(&self) -> &'static str {
        if self.is_rpc_error {
            "rpc_error"
        } else {
            "result"
        }
    }
}

/// One finished tool call.
#[derive(Debug, Clone, Serialize)]
pub struct CallOutcome {
    pub tool: String,
    pub arguments: Value,
    pub request_id: String,
    pub response: RawResponse,
    pub duration: std::time::Duration,
    /// Further responses the server sent to the same id; the first one is `response`.
    pub duplicate_responses: usize,
    /// What the server asked along the way, and the `input_required` rounds before this one.
    pub rounds: Box<CallRounds>,
}

impl CallOutcome {
    /// The analysis of this call: the one mapping from a raw response to what Toolscope says
    /// about it, for the window and the command line alike.
    pub fn analyze(
        &self,
        output_schema: Option<&Value>,
        protocol_version: &str,
    ) -> crate::analysis::CallAnalysis {
        let era = ProtocolEra::from_version(protocol_version);
        let member = self.response.member();
        let response = if self.response.is_rpc_error() {
            crate::analysis::CallResponse::RpcError(member)
        } else {
            crate::analysis::CallResponse::Result(member)
        };
        let mut analysis = crate::analysis::analyze_call(response, output_schema, era);
        crate::analysis::note_duplicate_responses(&mut analysis, self.duplicate_responses);
        analysis
    }
}

/// How a caller steers one request.
pub struct RequestControl {
    pub timeouts: Timeouts,
    pub cancel: CancellationToken,
    pub on_progress: Arc<dyn Fn(ProgressUpdate) + Send + Sync>,
    /// Hears each new status of the task a call runs as (either era).
    pub on_task_status: super::tasks::OnTaskStatus,
}

impl RequestControl {
    pub fn with_timeouts(timeouts: Timeouts) -> Self {
        Self {
            timeouts,
            cancel: CancellationToken::new(),
            on_progress: Arc::new(|_| {}),
            on_task_status: Arc::new(|_, _| {}),
        }
    }
}

/// Options for [`Session::connect`].
#[derive(Clone)]
pub struct ConnectOptions {
    pub timeouts: Timeouts,
    pub events: EventSink,
    pub tap_limits: TapLimits,
    /// A tap of the caller's to log into (the window shows a sign-in's timeline while the
    /// connection is still under way); `None`: the session makes one.
    pub tap: Option<ProtocolTap>,
    /// Called whenever the tap records something (the window repaints).
    pub tap_waker: Option<Arc<dyn Fn() + Send + Sync>>,
    /// The era this server spoke last time: a legacy server skips the `server/discover` probe.
    pub known_era: Option<ProtocolEra>,
    /// What Toolscope declares, the roots it offers, and who answers the server's requests.
    pub client_side: ClientSide,
    /// OAuth for HTTP servers: where tokens are kept and how to sign in. `None`: no OAuth (a
    /// 401 fails the connection with its challenge). Not used when the server's settings carry
    /// their own Authorization header.
    pub auth: Option<crate::auth::AuthOptions>,
    /// Stops a connection under way (a sign-in waiting for the browser).
    pub cancel: CancellationToken,
}

impl ConnectOptions {
    pub fn new(timeouts: Timeouts, events: EventSink) -> Self {
        Self {
            timeouts,
            events,
            tap_limits: TapLimits::default(),
            tap: None,
            tap_waker: None,
            known_era: None,
            client_side: ClientSide::default(),
            auth: None,
            cancel: CancellationToken::new(),
        }
    }
}

/// A connected server.
pub struct Session {
    service: RunningService<RoleClient, ToolscopeClient>,
    summary: ServerSummary,
    tap: ProtocolTap,
    raw: RawResponses,
    progress_routes: ProgressRoutes,
    child: Option<StdioChild>,
    client_side: ClientSide,
    exchanges: ExchangeLog,
    /// Where the session reports (answers given in multi-round calls, among others).
    events: EventSink,
    /// How many of the server's questions wait for an answer now.
    asking: answering::AskingCount,
    /// `notifications/tasks/status` params, as they arrive.
    task_statuses: tokio::sync::broadcast::Sender<Value>,
    /// The ids of `notifications/elicitation/complete`, as they arrive.
    elicitations_completed: tokio::sync::broadcast::Sender<String>,
    /// Ends the `subscriptions/listen` stream (a server drains it before it exits).
    listener: std::sync::Mutex<Option<(CancellationToken, tokio::task::JoinHandle<()>)>>,
    /// OAuth, for a server signed into: a refused request signs in again and is sent again.
    auth: Option<Arc<SessionAuth>>,
}

impl Session {
    /// Connects and negotiates: `server/discover` first, `initialize` as the fallback.
    pub async fn connect(
        config: &ServerConfig,
        options: ConnectOptions,
    ) -> Result<Self, SessionError> {
        let tap = options
            .tap
            .clone()
            .unwrap_or_else(|| ProtocolTap::new(options.tap_limits, options.tap_waker.clone()));
        let raw = RawResponses::default();
        let progress_routes = ProgressRoutes::default();
        let exchanges = ExchangeLog::default();
        let (task_statuses, _) = tokio::sync::broadcast::channel(256);
        let (elicitations_completed, _) = tokio::sync::broadcast::channel(64);
        let asking = answering::AskingCount::default();
        let client = |legacy_initialize| ToolscopeClient {
            asking: asking.clone(),
            task_statuses: task_statuses.clone(),
            elicitations_completed: elicitations_completed.clone(),
            sink: options.events.clone(),
            progress_routes: progress_routes.clone(),
            legacy_initialize,
            side: options.client_side.clone(),
            raw: raw.clone(),
            exchanges: exchanges.clone(),
        };
        let limit = options.timeouts.request;
        let mut session_auth = None;
        let (service, child, lifecycle_reason) = match config {
            ServerConfig::Stdio { .. } => {
                let ((read, mut write), child) = stdio::spawn(config, &tap, &raw)?;
                let choice = match options.known_era {
                    Some(era) => discover_probe::for_known_era(era),
                    None => {
                        let info = rmcp::ClientHandler::get_info(&client(false));
                        discover_probe::probe(
                            &mut write,
                            &raw,
                            &info.client_info,
                            &info.capabilities,
                            options.timeouts.discover,
                            async {
                                child.wait_for_exit(limit).await;
                            },
                        )
                        .await
                    }
                };
                let discover_probe::Choice {
                    lifecycle,
                    reason,
                    still_waiting,
                } = choice;
                let transport =
                    AsyncRwTransport::new_client(read, write).with_max_line_length(MAX_LINE_BYTES);
                let start = start_service(client, transport, lifecycle);
                match tokio::time::timeout(limit, start).await {
                    Ok(Ok(service)) => (service, Some(child), reason),
                    failed => {
                        let error = match failed {
                            Ok(Err(error)) => stdio_start_error(&error, &child, &tap).await,
                            _ => stdio_timeout_error(limit, &child, &tap).await,
                        };
                        child.close().await;
                        if still_waiting && discover_probe::answered_late(&raw) {
                            return Box::pin(Self::start_again_as_modern(config, options)).await;
                        }
                        return Err(error);
                    }
                }
            }
            ServerConfig::Http {
                url,
                headers,
                oauth_client_id,
            } => {
                let auth = options
                    .auth
                    .as_ref()
                    .filter(|_| {
                        !headers
                            .keys()
                            .any(|name| name.eq_ignore_ascii_case("authorization"))
                    })
                    .map(|auth| {
                        Arc::new(SessionAuth::new(
                            url,
                            oauth_client_id.as_ref(),
                            auth,
                            &tap,
                            options.cancel.clone(),
                        ))
                    });
                let mut signed_in = false;
                loop {
                    let tokens = match &auth {
                        Some(auth) => auth.token_source().await?,
                        None => http_auth::no_tokens(url).await?,
                    };
                    let transport = http::transport(config, &tap, &raw, tokens)?;
                    if !signed_in {
                        http::preflight(url).await?;
                    }
                    let sign_ins = auth.as_ref().map_or(0, |auth| auth.sign_ins());
                    let choice = match options.known_era {
                        Some(era) => discover_probe::for_known_era(era),
                        None => {
                            let info = rmcp::ClientHandler::get_info(&client(false));
                            let mut probe_headers = http::custom_headers(headers)?;
                            if let Some(auth) = &auth
                                && let Some(token) = auth.kept_access_token().await
                                && let Ok(value) =
                                    ::http::HeaderValue::try_from(format!("Bearer {token}"))
                            {
                                probe_headers.insert(::http::header::AUTHORIZATION, value);
                            }
                            http_discover_probe::probe(
                                &http::client()?,
                                url,
                                &probe_headers,
                                &tap,
                                (&info.client_info, &info.capabilities),
                                options.timeouts.discover,
                            )
                            .await
                        }
                    };
                    let discover_probe::Choice {
                        lifecycle, reason, ..
                    } = choice;
                    let start = start_service(client, transport, lifecycle);
                    match tokio::time::timeout(limit, start).await {
                        Ok(Ok(service)) => {
                            session_auth = auth;
                            break (service, None, reason);
                        }
                        Ok(Err(error)) => {
                            let error = http_start_error(url, &error);
                            if let (SessionError::Unauthorized { challenge, .. }, Some(auth)) =
                                (&error, &auth)
                                && !signed_in
                            {
                                auth.sign_in(challenge.as_deref(), sign_ins).await?;
                                signed_in = true;
                                continue;
                            }
                            return Err(error);
                        }
                        Err(_) => {
                            return Err(SessionError::HandshakeTimeout {
                                after: limit,
                                non_json_lines: 0,
                                first_non_json: None,
                                stderr_tail: Vec::new(),
                            });
                        }
                    }
                }
            }
        };
        let mut summary = summarize(&service);
        if summary.lifecycle == "initialize" {
            summary.lifecycle_reason = lifecycle_reason;
        }
        let mut session = Self {
            service,
            summary,
            tap,
            raw,
            progress_routes,
            child,
            client_side: options.client_side.clone(),
            exchanges,
            events: options.events.clone(),
            task_statuses,
            elicitations_completed,
            asking,
            listener: std::sync::Mutex::new(None),
            auth: session_auth,
        };
        session.watch_for_close(options.events.clone());
        *session
            .listener
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            session.listen_for_tool_changes(options.events);
        Ok(session)
    }

    /// A second start of a server that answered the `server/discover` probe only after it gave
    /// up (Python takes seconds to import on a loaded machine) and so refused the fallback
    /// `initialize`: started afresh, it is known to speak 2026-07-28.
    async fn start_again_as_modern(
        config: &ServerConfig,
        mut options: ConnectOptions,
    ) -> Result<Self, SessionError> {
        let waited = options.timeouts.discover.as_secs_f64();
        options.known_era = Some(ProtocolEra::Modern);
        let mut session = Self::connect(config, options).await?;
        session.summary.lifecycle_reason = Some(format!(
            "server/discover was answered after the {waited:.1} s probe gave up and initialize \
             was refused: started the server again with 2026-07-28"
        ));
        Ok(session)
    }

    /// The client capabilities declared to this server.
    pub fn declared(&self) -> super::DeclaredCapabilities {
        self.client_side.declared
    }

    pub fn summary(&self) -> &ServerSummary {
        &self.summary
    }

    pub fn tap(&self) -> &ProtocolTap {
        &self.tap
    }

    /// Lists every tool, following `nextCursor` and stopping on a cursor seen before.
    pub async fn list_tools(&self, timeouts: Timeouts) -> Result<ToolCatalog, SessionError> {
        let mut catalog = ToolCatalog::default();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        loop {
            let params = PaginatedRequestParams::default().with_cursor(cursor.clone());
            let request = ClientRequest::ListToolsRequest(ListToolsRequest {
                method: Default::default(),
                params: Some(params),
                extensions: Default::default(),
            });
            let control = RequestControl::with_timeouts(timeouts);
            let (response, _, duplicates) =
                self.request_raw(request, "tools/list", &control).await?;
            if duplicates > 0 {
                catalog.warnings.push(format!(
                    "the server sent {duplicates} extra response(s) to one tools/list request; \
                     the first was used"
                ));
            }
            let page = response.member().to_value();
            if response.is_rpc_error() {
                let reason = rpc_error_text(&page);
                drop_value(page);
                return Err(SessionError::Protocol {
                    request: "tools/list".to_owned(),
                    reason,
                });
            }
            let next = catalog.add_page(&page, self.summary.is_modern_era());
            drop_value(page);
            let Some(next) = next else {
                break;
            };
            if !seen.insert(next.clone()) {
                catalog.warnings.push(format!(
                    "the server returned the cursor {next:?} twice: its pagination does not \
                     advance, so listing stopped after {} page(s)",
                    catalog.pages
                ));
                break;
            }
            if catalog.pages >= MAX_TOOL_PAGES {
                catalog.warnings.push(format!(
                    "listing stopped after {MAX_TOOL_PAGES} pages: the server keeps returning a \
                     next cursor"
                ));
                break;
            }
            cursor = Some(next);
        }
        Ok(catalog)
    }

    /// Calls a tool and returns the raw response, whatever rmcp made of it. Whatever the
    /// server asks on the way is answered (see `answering`); an `input_required` answer
    /// (2026-07-28) is followed round by round until the final result, each round kept.
    pub async fn call_tool(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        control: &RequestControl,
    ) -> Result<CallOutcome, SessionError> {
        let started = Instant::now();
        let mark = self.exchanges.mark();
        let completions = std::sync::Mutex::new(self.elicitation_completions());
        let label = format!("tools/call {tool}");
        let mut rounds = CallRounds::default();
        // This call's own input_required answers (the session's log also holds other calls').
        let mut answered_rounds: Vec<Exchange> = Vec::new();
        let mut retry: Option<(InputResponses, Option<String>)> = None;
        loop {
            let mut params =
                CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments.clone());
            if let Some((responses, state)) = retry.take() {
                params.input_responses = Some(responses);
                params.request_state = state;
            }
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            let round_started = Instant::now();
            let (response, request_id, duplicate_responses) =
                self.request_raw(request, &label, control).await?;
            // The server's time for this round, not the person's time answering it.
            let answered_after = round_started.elapsed();
            let finish = |mut rounds: CallRounds, request_id, response, answered: &[Exchange]| {
                rounds.exchanges = self.exchanges_of_call(mark, answered);
                rounds.keep_completions(drain(&completions));
                CallOutcome {
                    tool: tool.to_owned(),
                    arguments: Value::Object(arguments.clone()),
                    request_id,
                    response,
                    duration: started.elapsed(),
                    duplicate_responses,
                    rounds: Box::new(rounds),
                }
            };
            if task_extension::is_task_handle(&response) {
                let followed = self.follow_task(response, &label, control, started).await?;
                answered_rounds.extend(followed.exchanges);
                rounds.task = Some(followed.track);
                return Ok(finish(
                    rounds,
                    request_id,
                    followed.response,
                    &answered_rounds,
                ));
            }
            let Some(asked) = input_rounds::input_required(&response) else {
                let mut outcome = finish(rounds, request_id, response, &answered_rounds);
                late_completions(&mut outcome.rounds, &completions).await;
                return Ok(outcome);
            };
            let round = rounds.earlier.len() + 1;
            if round > input_rounds::MAX_ROUNDS {
                rounds.stopped = Some(format!(
                    "the server still asked for input after {} rounds: Toolscope stopped \
                     answering, and this is its last answer",
                    input_rounds::MAX_ROUNDS
                ));
                return Ok(finish(rounds, request_id, response, &answered_rounds));
            }
            let asked_count = asked.requests.len();
            let mut responses = InputResponses::new();
            let mut problems = asked.problems;
            let mut requests = asked.requests;
            if requests.len() > input_rounds::MAX_ASKS_PER_ROUND {
                problems.push(format!(
                    "the server asked {} things in one round: the first {} were answered, the \
                     rest left out",
                    requests.len(),
                    input_rounds::MAX_ASKS_PER_ROUND
                ));
                requests.truncate(input_rounds::MAX_ASKS_PER_ROUND);
            }
            for (key, method, params) in requests {
                if control.cancel.is_cancelled() {
                    break;
                }
                let ask = ServerAsk {
                    method,
                    params,
                    origin: AskOrigin::InputRequired {
                        round,
                        key: key.clone(),
                    },
                };
                let exchange = self.answer_ask(ask, control).await;
                if let AskReply::Result { result } = &exchange.reply {
                    responses.insert(key, result.clone());
                }
                answered_rounds.push(exchange);
            }
            if control.cancel.is_cancelled() {
                return Err(SessionError::Cancelled { request: label });
            }
            if asked_count > 0 && responses.is_empty() {
                // Sending the call again with no answers would only be asked the same again.
                rounds.stopped = Some(format!(
                    "nothing the server asked in round {round} was answered, so the call \
                     stops at its input_required answer"
                ));
                return Ok(finish(rounds, request_id, response, &answered_rounds));
            }
            rounds.earlier.push(EarlierRound {
                request_id,
                response,
                duration: answered_after,
                problems,
            });
            retry = Some((responses, asked.request_state));
        }
    }

    /// Answers one thing the server asked within a call (by the declared capabilities and the
    /// asker) and tells the session's listeners.
    pub(super) async fn answer_ask(&self, ask: ServerAsk, control: &RequestControl) -> Exchange {
        let exchange = answering::answer(
            ask,
            &self.client_side,
            &self.asking,
            control.cancel.cancelled(),
        )
        .await;
        (self.events)(SessionEvent::Answered(Box::new(exchange.clone())));
        exchange
    }

    /// The URL elicitations the server says are complete, from now on.
    pub(super) fn elicitation_completions(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.elicitations_completed.subscribe()
    }

    /// The task status notifications that arrive from now on.
    pub(super) fn task_statuses(&self) -> tokio::sync::broadcast::Receiver<Value> {
        self.task_statuses.subscribe()
    }

    /// The exchanges of one call: the server requests made while it ran (by time: a
    /// concurrent call on the same server may share them) and its own rounds' answers, in
    /// the order they were asked.
    fn exchanges_of_call(&self, mark: u64, rounds: &[Exchange]) -> Vec<Exchange> {
        let mut exchanges: Vec<Exchange> = self
            .exchanges
            .since(mark)
            .into_iter()
            .filter(|exchange| matches!(exchange.ask.origin, AskOrigin::Request { .. }))
            .chain(rounds.iter().cloned())
            .collect();
        exchanges.sort_by_key(|exchange| exchange.asked_at);
        exchanges
    }

    pub(super) fn exchange_mark(&self) -> u64 {
        self.exchanges.mark()
    }

    pub(super) fn exchanges_since(&self, mark: u64) -> Vec<Exchange> {
        self.exchanges.since(mark)
    }

    /// Replaces the roots offered to the server and, when they changed and roots are
    /// declared, tells it (`notifications/roots/list_changed`).
    pub async fn set_roots(&self, roots: Vec<ClientRoot>) -> Result<bool, SessionError> {
        let changed = self.client_side.roots.set(roots);
        if changed && self.client_side.declared.roots {
            self.service
                .peer()
                .notify_roots_list_changed()
                .await
                .map_err(|error| self.closed_error("notifications/roots/list_changed", &error))?;
        }
        Ok(changed)
    }

    /// Ends the session: closes the transport, then closes a stdio server the way the spec
    /// says (stdin, then SIGTERM, then SIGKILL, a grace period apart) and reaps it.
    pub async fn close(mut self) {
        self.stop_signing_in();
        self.stop_listening().await;
        let _ = self
            .service
            .close_with_timeout(std::time::Duration::from_secs(3))
            .await;
        if let Some(child) = &self.child {
            child.close().await;
        }
    }

    /// Ends the session from a shared handle: running requests fail as closed, and a stdio
    /// server is closed in the background, as in [`Session::close`].
    pub fn shutdown(&self) {
        self.stop_signing_in();
        self.service.cancellation_token().cancel();
        if let Some(child) = &self.child {
            child.start_close();
        }
    }

    /// A sign-in waiting for the browser ends with the session (its listener closes).
    fn stop_signing_in(&self) {
        if let Some(auth) = &self.auth {
            auth.cancel();
        }
    }

    /// Ends the session from a shared handle and waits (at most `grace`) for a stdio server
    /// to exit.
    pub async fn close_and_wait(&self, grace: std::time::Duration) {
        self.stop_listening().await;
        self.shutdown();
        if let Some(child) = &self.child {
            let _ = tokio::time::timeout(grace, child.close()).await;
        }
    }

    /// Ends the `subscriptions/listen` stream, if one is open: a server may wait on it and so
    /// not exit when its stdin closes.
    async fn stop_listening(&self) {
        let listener = self
            .listener
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some((stop, task)) = listener {
            stop.cancel();
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), task).await;
        }
    }

    /// Waits until every stdio server this process started has exited and been reaped, or
    /// `limit` passed; returns whether all were. A CLI calls this before it exits.
    pub async fn wait_for_closing_servers(limit: std::time::Duration) -> bool {
        stdio::wait_for_all_children(limit).await
    }

    /// Sends a request rmcp has no type for (or whose typed params would drop a field), and
    /// answers with its raw response.
    pub(super) async fn request_custom(
        &self,
        method: &str,
        params: Value,
        label: &str,
        control: &RequestControl,
    ) -> Result<(RawResponse, String, usize), SessionError> {
        let request =
            ClientRequest::CustomRequest(rmcp::model::CustomRequest::new(method, Some(params)));
        self.request_raw(request, label, control).await
    }

    /// Resolves once the session has been idle for `limit`: no progress arrived and no
    /// question of the server waited for an answer in that time.
    async fn idle_for(&self, limit: std::time::Duration) {
        let mut deadline = tokio::time::Instant::now() + limit;
        let mut progress = self.raw.progress_seen();
        loop {
            tokio::time::sleep_until(deadline).await;
            let now = self.raw.progress_seen();
            if now != progress || self.asking.is_asking() {
                progress = now;
                deadline = tokio::time::Instant::now() + limit;
                continue;
            }
            return;
        }
    }

    /// Sends a request and waits for its raw response. A request the server refuses as
    /// unauthorized after a sign-in (an expired grant, a revoked token, a scope the token
    /// lacks) signs in again and is sent once more.
    pub(super) async fn request_raw(
        &self,
        request: ClientRequest,
        label: &str,
        control: &RequestControl,
    ) -> Result<(RawResponse, String, usize), SessionError> {
        let Some(auth) = &self.auth else {
            return self.request_raw_once(request, label, control).await;
        };
        let sign_ins = auth.sign_ins();
        match self.request_raw_once(request.clone(), label, control).await {
            // A 401, or a 403 that names a missing scope: a plain 403 (a permission the user
            // lacks) is not helped by a sign-in, and must not open the browser on every call.
            Err(SessionError::AuthRejected {
                status,
                challenge: Some(challenge),
                ..
            }) if status == 401 || challenge.contains("insufficient_scope") => {
                auth.sign_in(Some(&challenge), sign_ins).await?;
                self.request_raw_once(request, label, control).await
            }
            other => other,
        }
    }

    async fn request_raw_once(
        &self,
        request: ClientRequest,
        label: &str,
        control: &RequestControl,
    ) -> Result<(RawResponse, String, usize), SessionError> {
        let timeouts = control.timeouts;
        // The idle timeout is kept here, not by rmcp: it must also wait while a person
        // answers what the server asked (a form may take longer than a minute).
        let options = PeerRequestOptions::with_timeout(timeouts.max_total)
            .with_max_total_timeout(timeouts.max_total);
        let handle = self
            .service
            .peer()
            .send_cancellable_request(request, options)
            .await
            .map_err(|error| self.closed_error(label, &error))?;
        let id = id_text(&serde_json::to_value(&handle.id).unwrap_or_default());
        let token = id_text(&serde_json::to_value(&handle.progress_token).unwrap_or_default());
        self.progress_routes
            .add(token.clone(), control.on_progress.clone());
        let peer = handle.peer.clone();
        let request_id = handle.id.clone();

        let held_raw = async {
            self.raw.arrival(&id).await;
            tokio::time::sleep(PARSE_GRACE).await;
        };
        let idle = self.idle_for(timeouts.request);
        let result = tokio::select! {
            () = idle => {
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(
                        Some(request_id.clone()),
                        Some(format!("no answer within {:.0} s", timeouts.request.as_secs_f64())),
                    ))
                    .await;
                Err(SessionError::Timeout { request: label.to_owned(), after: timeouts.request })
            }
            typed = handle.await_response() => match typed {
                Ok(parsed) => Ok(self.raw.take(&id).map_or_else(
                    || RawResponse::new_result(&id, &serde_json::to_value(parsed).unwrap_or_default()),
                    RawResponse::from_message,
                )),
                Err(ServiceError::McpError(error)) => Ok(self.raw.take(&id).map_or_else(
                    || RawResponse::new_rpc_error(&id, &serde_json::to_value(error).unwrap_or_default()),
                    RawResponse::from_message,
                )),
                Err(ServiceError::UnexpectedResponse) => self.raw.take(&id).map(RawResponse::from_message).ok_or_else(|| {
                    SessionError::Protocol { request: label.to_owned(), reason: "the response was not a result of the expected kind".to_owned() }
                }),
                Err(ServiceError::Timeout { timeout }) => Err(SessionError::Timeout { request: label.to_owned(), after: timeout }),
                Err(ServiceError::Cancelled { .. }) => Err(SessionError::Cancelled { request: label.to_owned() }),
                // rmcp gave up on a response it could not read (over HTTP it closes the
                // stream): the raw copy, when it arrived, is the answer.
                Err(other) => self
                    .raw
                    .take(&id)
                    .map(RawResponse::from_message)
                    .ok_or_else(|| self.closed_error(label, &other)),
            },
            () = held_raw => self.raw.take(&id).map(RawResponse::from_message).ok_or_else(|| SessionError::Protocol {
                request: label.to_owned(),
                reason: "the response vanished".to_owned(),
            }),
            () = control.cancel.cancelled() => {
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(
                        Some(request_id),
                        Some("cancelled by the user in Toolscope".to_owned()),
                    ))
                    .await;
                Err(SessionError::Cancelled { request: label.to_owned() })
            }
        };
        if result.is_ok() {
            self.progress_routes
                .wait_until_handled(self.raw.progress_seen(), PROGRESS_STRAGGLER_LIMIT)
                .await;
        }
        self.progress_routes.remove(&token);
        let duplicates = self.raw.duplicates(&id);
        if result.is_err() {
            self.raw.release(&id);
        }
        let result = match result {
            Err(SessionError::ConnectionClosed { request, .. }) => {
                Err(self.connection_closed(request).await)
            }
            other => other,
        };
        result.map(|response| (response, id, duplicates))
    }

    fn closed_error(&self, label: &str, error: &ServiceError) -> SessionError {
        if let Some(error) = http_failure::request_error(label, error) {
            return error;
        }
        match error {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                SessionError::ConnectionClosed {
                    request: label.to_owned(),
                    exit: None,
                    stderr_tail: Vec::new(),
                }
            }
            other => SessionError::Protocol {
                request: label.to_owned(),
                reason: error_chain(other),
            },
        }
    }

    /// Fills in how the child ended and what it last said.
    async fn connection_closed(&self, request: String) -> SessionError {
        let exit = match &self.child {
            Some(child) => {
                child
                    .wait_for_exit(std::time::Duration::from_millis(500))
                    .await
            }
            None => None,
        };
        SessionError::ConnectionClosed {
            request,
            exit,
            stderr_tail: self.tap.stderr_tail(STDERR_TAIL),
        }
    }

    /// On 2026-07-28 and later, `tools/list_changed` only arrives on a `subscriptions/listen`
    /// stream: open one when the server says its tool list can change.
    fn listen_for_tool_changes(
        &self,
        events: EventSink,
    ) -> Option<(CancellationToken, tokio::task::JoinHandle<()>)> {
        let can_change = self.summary.capabilities["tools"]["listChanged"] == Value::Bool(true);
        if !self.summary.is_modern_era() || !can_change {
            return None;
        }
        let peer = self.service.peer().clone();
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        let task = tokio::spawn(async move {
            let filter = SubscriptionFilter::builder().tools_list_changed().build();
            let Ok(mut subscription) = peer.listen(filter).await else {
                return;
            };
            loop {
                let next = tokio::select! {
                    next = subscription.next() => next,
                    () = stopped.cancelled() => {
                        let _ = subscription.cancel().await;
                        return;
                    }
                };
                let Ok(Some(notification)) = next else { return };
                if matches!(
                    notification,
                    ServerNotification::ToolListChangedNotification(_)
                ) {
                    events(SessionEvent::ToolListChanged);
                }
            }
        });
        Some((stop, task))
    }

    /// Reports the end of the connection as an event.
    fn watch_for_close(&self, events: EventSink) {
        let peer = self.service.peer().clone();
        let tap = self.tap.clone();
        let exit = self.child.as_ref().map(StdioChild::exit_record);
        tokio::spawn(async move {
            // rmcp has no close notification for a peer, so poll the transport state: cheap,
            // and only while the session lives (the peer closes when the session is dropped).
            while !peer.is_transport_closed() {
                tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            }
            // Let the process watcher and the stderr reader catch up.
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            let how = exit
                .and_then(|exit| exit.lock().ok().and_then(|status| status.clone()))
                .map_or_else(
                    || "the server closed the connection".to_owned(),
                    |status| format!("the server exited ({status})"),
                );
            let tail = tap.stderr_tail(3).join(" | ");
            let reason = if tail.is_empty() {
                how
            } else {
                format!("{how}; its last stderr lines: {tail}")
            };
            events(SessionEvent::Closed { reason });
        });
    }
}

/// Starts rmcp over `transport`: `initialize` alone for a server known to be legacy (rmcp's
/// plain `serve`), else the chosen lifecycle.
async fn start_service<T, E, A>(
    client: impl Fn(bool) -> ToolscopeClient,
    transport: T,
    lifecycle: ClientLifecycleMode,
) -> Result<RunningService<RoleClient, ToolscopeClient>, rmcp::service::ClientInitializeError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    if lifecycle == ClientLifecycleMode::Initialize {
        client(true).serve(transport).await
    } else {
        client(false)
            .serve_with_lifecycle(transport, lifecycle)
            .await
    }
}

/// `-32602: Unknown tool` from a JSON-RPC error object.
pub fn rpc_error_text(error: &Value) -> String {
    let code = error.get("code").map(Value::to_string).unwrap_or_default();
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("(no message)");
    format!("JSON-RPC error {code}: {message}")
}

fn summarize(service: &RunningService<RoleClient, ToolscopeClient>) -> ServerSummary {
    let info = service.peer().peer_info();
    let Some(info) = info else {
        return ServerSummary {
            protocol_version: "unknown".to_owned(),
            lifecycle: "initialize",
            lifecycle_reason: None,
            name: None,
            title: None,
            version: None,
            capabilities: json!({}),
            instructions: None,
        };
    };
    let protocol_version = info.protocol_version.to_string();
    let lifecycle = if ProtocolEra::from_version(&protocol_version) == ProtocolEra::Modern {
        "server/discover"
    } else {
        "initialize"
    };
    ServerSummary {
        protocol_version,
        lifecycle,
        lifecycle_reason: None,
        name: info.server_info.as_ref().map(|s| s.name.clone()),
        title: info.server_info.as_ref().and_then(|s| s.title.clone()),
        version: info.server_info.as_ref().map(|s| s.version.clone()),
        capabilities: serde_json::to_value(&info.capabilities).unwrap_or_default(),
        instructions: info.instructions.clone(),
    }
}
