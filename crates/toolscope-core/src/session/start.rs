//! How a session starts: the transport (a child process over stdio, or Streamable HTTP with
//! OAuth), the `server/discover` probe and rmcp's lifecycle (either era), and the session's
//! listeners once it runs.

use std::sync::Arc;

use rmcp::{
    RoleClient, ServiceExt as _,
    service::{ClientLifecycleMode, ClientServiceExt, RunningService},
    transport::async_rw::AsyncRwTransport,
};

use crate::analysis::ProtocolEra;

use super::{
    answering,
    asks::ExchangeLog,
    client_handler::ToolscopeClient,
    config::ServerConfig,
    connect_options::ConnectOptions,
    connection::Session,
    discover_probe,
    error::SessionError,
    http,
    http_auth::{self, SessionAuth},
    http_discover_probe,
    progress_routes::ProgressRoutes,
    raw_responses::RawResponses,
    server_summary::summarize,
    start_errors::{http_start_error, stdio_start_error, stdio_timeout_error},
    stdio::{self, MAX_LINE_BYTES},
    tap::ProtocolTap,
};

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
