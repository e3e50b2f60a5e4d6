//! A live connection to one MCP server: list tools, call tools (in rounds, as tasks), close.
//! How it starts is `start.rs`.

use std::{sync::Arc, time::Instant};

use rmcp::{
    RoleClient,
    model::{
        CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest,
        InputResponses, ListToolsRequest, PaginatedRequestParams,
    },
    service::{PeerRequestOptions, RunningService, ServiceError},
};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::deep_json::drop_value;

use crate::session::{
    asks::answering,
    asks::client_handler::ToolscopeClient,
    asks::client_side::{ClientRoot, ClientSide},
    asks::{AskOrigin, AskReply, Exchange, ExchangeLog, ServerAsk},
    catalog::server_summary::ServerSummary,
    catalog::tool_catalog::ToolCatalog,
    config::Timeouts,
    error::SessionError,
    events::{EventSink, SessionEvent},
    requests::call_outcome::CallOutcome,
    requests::progress_routes::ProgressRoutes,
    requests::raw_response::{RawResponse, rpc_error_text},
    requests::raw_responses::RawResponses,
    requests::request_control::RequestControl,
    requests::request_span,
    tasks::input_rounds::{self, CallRounds, EarlierRound},
    transports::http_auth::SessionAuth,
    transports::http_failure,
    transports::start_errors::STDERR_TAIL,
    transports::stdio::{self, StdioChild},
    transports::tap::{ProtocolTap, id_text},
};

/// How long rmcp may take to hand over a response we already hold raw. Past this, rmcp could
/// not parse it, and the raw message is used. Over stdio rmcp gets a tiny stand-in at once, so
/// this only matters over HTTP, where rmcp parses the message itself.
const PARSE_GRACE: std::time::Duration = std::time::Duration::from_secs(2);
/// How long a finished call waits for rmcp to hand over progress notifications that arrived
/// before its response (rmcp handles each in a task of its own).
const PROGRESS_STRAGGLER_LIMIT: std::time::Duration = std::time::Duration::from_millis(250);
/// A server whose `nextCursor` keeps changing is cut off here.
const MAX_TOOL_PAGES: usize = 1_000;

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

/// A connected server.
pub struct Session {
    pub(super) service: RunningService<RoleClient, ToolscopeClient>,
    pub(super) summary: ServerSummary,
    pub(super) tap: ProtocolTap,
    pub(super) raw: RawResponses,
    pub(super) progress_routes: ProgressRoutes,
    pub(super) child: Option<StdioChild>,
    pub(super) client_side: ClientSide,
    pub(super) exchanges: ExchangeLog,
    /// Where the session reports (answers given in multi-round calls, among others).
    pub(super) events: EventSink,
    /// How many of the server's questions wait for an answer now.
    pub(super) asking: answering::AskingCount,
    /// `notifications/tasks/status` params, as they arrive.
    pub(super) task_statuses: tokio::sync::broadcast::Sender<Value>,
    /// The ids of `notifications/elicitation/complete`, as they arrive.
    pub(super) elicitations_completed: tokio::sync::broadcast::Sender<String>,
    /// Ends the `subscriptions/listen` stream (a server drains it before it exits).
    pub(super) listener: std::sync::Mutex<Option<(CancellationToken, tokio::task::JoinHandle<()>)>>,
    /// The resources subscribed to (`resources/subscribe`, or the listen stream's filter on
    /// 2026-07-28).
    pub(super) subscribed: std::sync::Mutex<std::collections::BTreeSet<String>>,
    /// The log level asked for on 2026-07-28, sent in each request's `_meta`.
    #[allow(
        deprecated,
        reason = "logging is deprecated on 2026-07-28, and still offered"
    )]
    pub(super) log_level: std::sync::Mutex<Option<rmcp::model::LoggingLevel>>,
    /// OAuth, for a server signed into: a refused request signs in again and is sent again.
    pub(super) auth: Option<Arc<SessionAuth>>,
    /// The connection's span when traces are exported: each request's span is its child.
    pub(super) trace: Option<crate::telemetry::SessionSpan>,
}

impl Session {
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

    /// The id of the trace this session's requests are spans of, when traces are exported.
    pub fn trace_id(&self) -> Option<String> {
        self.trace
            .as_ref()
            .map(crate::telemetry::SessionSpan::trace_id)
    }

    /// A server without the tools capability that answers `tools/list` with "method not
    /// found" has no tools: not a failure (one that lists tools without declaring them is
    /// still listed).
    fn offers_no_tools(&self, response: &RawResponse) -> bool {
        let undeclared = self.summary.capabilities.get("tools").is_none();
        undeclared
            && response.rpc_error().is_some_and(|(code, _)| {
                code == i64::from(rmcp::model::ErrorCode::METHOD_NOT_FOUND.0)
            })
    }

    /// The process id of a stdio server Toolscope started (`None` over HTTP).
    pub fn server_pid(&self) -> Option<u32> {
        self.child.as_ref().and_then(StdioChild::pid)
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
            if response.is_rpc_error() && catalog.pages == 0 && self.offers_no_tools(&response) {
                drop_value(page);
                catalog.warnings.push(
                    "this server offers no tools: it does not declare the tools capability \
                     and has no tools/list (it may still offer resources or prompts)"
                        .to_owned(),
                );
                return Ok(catalog);
            }
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
            if response.is_task_handle() {
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
        mut request: ClientRequest,
        label: &str,
        control: &RequestControl,
    ) -> Result<(RawResponse, String, usize), SessionError> {
        // 2026-07-28 has no logging/setLevel: the level asked for rides on every request.
        let log_level = *self
            .log_level
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(level) = log_level {
            use rmcp::model::GetMeta as _;
            request.get_meta_mut().set_log_level(level);
        }
        let mut span = request_span::start(
            self.trace.as_ref(),
            &mut request,
            &self.summary.protocol_version,
            || self.tap.session_id(),
        );
        let timeouts = control.timeouts;
        // The idle timeout is kept here, not by rmcp: it must also wait while a person
        // answers what the server asked (a form may take longer than a minute).
        let options = PeerRequestOptions::with_timeout(timeouts.max_total)
            .with_max_total_timeout(timeouts.max_total);
        let sent = self
            .service
            .peer()
            .send_cancellable_request(request, options)
            .await;
        let handle = match sent {
            Ok(handle) => handle,
            Err(error) => {
                let unsent = Err(self.closed_error(label, &error));
                if let Some(span) = span {
                    request_span::end(span, &unsent);
                }
                return unsent.map(|response| (response, String::new(), 0));
            }
        };
        let id = id_text(&serde_json::to_value(&handle.id).unwrap_or_default());
        if let Some(span) = &mut span {
            span.set_request_id(&id);
        }
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
        if let Some(span) = span {
            request_span::end(span, &result);
        }
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
                reason: crate::error_chain::error_chain(other),
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

    /// Reports the end of the connection as an event.
    pub(super) fn watch_for_close(&self, events: EventSink) {
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
