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

use crate::session::{
    asks::ExchangeLog,
    asks::answering,
    asks::client_handler::ToolscopeClient,
    catalog::server_summary::summarize,
    config::ServerConfig,
    connect_options::ConnectOptions,
    connection::Session,
    error::SessionError,
    requests::progress_routes::ProgressRoutes,
    requests::raw_responses::RawResponses,
    transports::discover_probe,
    transports::http,
    transports::http_auth::{self, OAuthSettings, SessionAuth},
    transports::http_discover_probe,
    transports::http_dpop::DpopPresenter,
    transports::start_errors::{http_start_error, stdio_start_error, stdio_timeout_error},
    transports::stdio::{self, MAX_LINE_BYTES, StdioChild},
    transports::tap::ProtocolTap,
};

/// What the session and its client handler share (the handler fills them as messages come).
struct Shared {
    tap: ProtocolTap,
    raw: RawResponses,
    progress_routes: ProgressRoutes,
    exchanges: ExchangeLog,
    task_statuses: tokio::sync::broadcast::Sender<serde_json::Value>,
    elicitations_completed: tokio::sync::broadcast::Sender<String>,
    asking: answering::AskingCount,
}

impl Shared {
    fn new(options: &ConnectOptions) -> Self {
        Self {
            tap: options
                .tap
                .clone()
                .unwrap_or_else(|| ProtocolTap::new(options.tap_limits, options.tap_waker.clone())),
            raw: RawResponses::default(),
            progress_routes: ProgressRoutes::default(),
            exchanges: ExchangeLog::default(),
            task_statuses: tokio::sync::broadcast::channel(256).0,
            elicitations_completed: tokio::sync::broadcast::channel(64).0,
            asking: answering::AskingCount::default(),
        }
    }

    /// rmcp's handler for this session (`legacy_initialize`: the server is reached with a
    /// plain `initialize`).
    fn client(&self, options: &ConnectOptions, legacy_initialize: bool) -> ToolscopeClient {
        ToolscopeClient {
            asking: self.asking.clone(),
            task_statuses: self.task_statuses.clone(),
            elicitations_completed: self.elicitations_completed.clone(),
            sink: options.events.clone(),
            progress_routes: self.progress_routes.clone(),
            legacy_initialize,
            side: options.client_side.clone(),
            raw: self.raw.clone(),
            exchanges: self.exchanges.clone(),
        }
    }
}

/// A running rmcp service, and what else its start left.
struct Started {
    service: RunningService<RoleClient, ToolscopeClient>,
    child: Option<StdioChild>,
    /// Why `initialize` was used, when it was.
    lifecycle_reason: Option<String>,
    auth: Option<Arc<SessionAuth>>,
}

/// A stdio start that must be made again (the server answered the probe too late).
enum StdioStart {
    Started(Box<Started>),
    AgainAsModern,
}

impl Session {
    /// Connects and negotiates: `server/discover` first, `initialize` as the fallback.
    pub async fn connect(
        config: &ServerConfig,
        options: ConnectOptions,
    ) -> Result<Self, SessionError> {
        let began = std::time::SystemTime::now();
        let shared = Shared::new(&options);
        let started = match config {
            ServerConfig::Stdio { .. } => match start_stdio(config, &options, &shared).await? {
                StdioStart::Started(started) => *started,
                StdioStart::AgainAsModern => {
                    return Box::pin(Self::start_again_as_modern(config, options)).await;
                }
            },
            ServerConfig::Http {
                url,
                headers,
                oauth_client_id,
                oauth_client_secret,
                oauth,
            } => {
                let http = HttpServer {
                    config,
                    url,
                    headers,
                    oauth: OAuthSettings {
                        client_id: oauth_client_id.as_ref(),
                        client_secret: oauth_client_secret.as_ref(),
                        extensions: oauth,
                    },
                };
                start_http(&http, &options, &shared).await?
            }
        };
        let mut session = Self::running(started, shared, options);
        let transport = match config {
            ServerConfig::Stdio { .. } => crate::telemetry::Transport::Pipe,
            ServerConfig::Http { .. } => crate::telemetry::Transport::Tcp,
        };
        session.trace = crate::telemetry::SessionSpan::start(
            began,
            transport,
            Some(&session.summary.protocol_version),
        );
        handshake_span(&session, transport, began);
        Ok(session)
    }

    /// The session around a started service, its listeners running.
    fn running(started: Started, shared: Shared, options: ConnectOptions) -> Self {
        let mut summary = summarize(&started.service);
        if summary.lifecycle == "initialize" {
            summary.lifecycle_reason = started.lifecycle_reason;
        }
        let mut session = Self {
            service: started.service,
            summary,
            tap: shared.tap,
            raw: shared.raw,
            progress_routes: shared.progress_routes,
            child: started.child,
            client_side: options.client_side.clone(),
            exchanges: shared.exchanges,
            events: options.events.clone(),
            task_statuses: shared.task_statuses,
            elicitations_completed: shared.elicitations_completed,
            asking: shared.asking,
            listener: std::sync::Mutex::new(None),
            subscribed: std::sync::Mutex::default(),
            log_level: std::sync::Mutex::new(None),
            auth: started.auth,
            trace: None,
        };
        session.watch_for_close(options.events.clone());
        *session
            .listener
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            session.listen_for_changes(&std::collections::BTreeSet::new());
        session
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
        options.discover_answered = true;
        let mut session = Self::connect(config, options).await?;
        session.summary.lifecycle_reason = Some(format!(
            "server/discover was answered after the {waited:.1} s probe gave up and initialize \
             was refused: started the server again with 2026-07-28"
        ));
        Ok(session)
    }
}

/// Spawns the child, probes `server/discover` (unless the era is known) and starts rmcp on
/// its pipes within the request timeout.
async fn start_stdio(
    config: &ServerConfig,
    options: &ConnectOptions,
    shared: &Shared,
) -> Result<StdioStart, SessionError> {
    let limit = options.timeouts.request;
    let ((read, mut write), child) = stdio::spawn(config, &shared.tap, &shared.raw)?;
    let choice = match options.known_era {
        Some(ProtocolEra::Modern) if options.discover_answered => discover_probe::discover_only(),
        Some(era) => discover_probe::for_known_era(era),
        None => {
            let info = rmcp::ClientHandler::get_info(&shared.client(options, false));
            discover_probe::probe(
                &mut write,
                &shared.raw,
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
    let transport = AsyncRwTransport::new_client(read, write).with_max_line_length(MAX_LINE_BYTES);
    let start = start_service(
        |legacy| shared.client(options, legacy),
        transport,
        lifecycle,
    );
    match tokio::time::timeout(limit, start).await {
        Ok(Ok(service)) => Ok(StdioStart::Started(Box::new(Started {
            service,
            child: Some(child),
            lifecycle_reason: reason,
            auth: None,
        }))),
        failed => {
            let error = match failed {
                Ok(Err(error)) => stdio_start_error(&error, &child, &shared.tap).await,
                _ => stdio_timeout_error(limit, &child, &shared.tap).await,
            };
            child.close().await;
            if still_waiting && discover_probe::answered_late(&shared.raw) {
                return Ok(StdioStart::AgainAsModern);
            }
            Err(error)
        }
    }
}

/// An HTTP server's settings, read out of its `ServerConfig` (which the transport takes whole).
#[derive(Clone, Copy)]
struct HttpServer<'a> {
    config: &'a ServerConfig,
    url: &'a str,
    headers: &'a std::collections::BTreeMap<String, String>,
    /// The OAuth client and extensions of the server's settings.
    oauth: OAuthSettings<'a>,
}

/// Connects over Streamable HTTP: OAuth when the options carry it (and the settings give no
/// Authorization header of their own), the `server/discover` probe, rmcp's start; a 401 signs
/// in once and starts again.
async fn start_http(
    server: &HttpServer<'_>,
    options: &ConnectOptions,
    shared: &Shared,
) -> Result<Started, SessionError> {
    let HttpServer {
        config,
        url,
        headers,
        oauth,
    } = *server;
    let limit = options.timeouts.request;
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
                oauth,
                auth,
                &shared.tap,
                options.cancel.clone(),
            ))
        });
    // One sign-in while starting, and one more only when the authorization server moved.
    let mut signed_in = false;
    let mut moved = false;
    loop {
        let tokens = match &auth {
            Some(auth) => auth.token_source().await?,
            None => http_auth::no_tokens(url).await?,
        };
        let dpop = match &auth {
            Some(auth) => auth.dpop_presenter().await?,
            None => None,
        };
        let transport = http::transport(config, &shared.tap, &shared.raw, tokens, dpop.clone())?;
        if !signed_in {
            http::preflight(url).await?;
        }
        let sign_ins = auth.as_ref().map_or(0, |auth| auth.sign_ins());
        let discover_probe::Choice {
            lifecycle, reason, ..
        } = match options.known_era {
            Some(era) => discover_probe::for_known_era(era),
            None => {
                http_probe(
                    url,
                    headers,
                    (auth.as_deref(), dpop.as_deref()),
                    options,
                    shared,
                )
                .await?
            }
        };
        let start = start_service(
            |legacy| shared.client(options, legacy),
            transport,
            lifecycle,
        );
        match tokio::time::timeout(limit, start).await {
            Ok(Ok(service)) => {
                return Ok(Started {
                    service,
                    child: None,
                    lifecycle_reason: reason,
                    auth,
                });
            }
            Ok(Err(error)) => {
                let error = http_start_error(url, &error);
                if let (SessionError::Unauthorized { challenge, .. }, Some(auth)) = (&error, &auth)
                {
                    let again = !signed_in
                        || (!moved && auth.authorization_server_moved(challenge.as_deref()).await);
                    if again {
                        moved = signed_in;
                        auth.sign_in(challenge.as_deref(), sign_ins).await?;
                        signed_in = true;
                        continue;
                    }
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

/// The `server/discover` probe over HTTP, with the session's headers and a kept token.
async fn http_probe(
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    (auth, dpop): (Option<&SessionAuth>, Option<&DpopPresenter>),
    options: &ConnectOptions,
    shared: &Shared,
) -> Result<discover_probe::Choice, SessionError> {
    let info = rmcp::ClientHandler::get_info(&shared.client(options, false));
    let mut probe_headers = http::custom_headers(headers)?;
    if let Some(auth) = auth
        && let Some(token) = auth.kept_access_token().await
    {
        match dpop {
            // A DPoP-bound token with a proof (a nonce challenge here is left to the requests
            // that follow, which answer it).
            Some(presenter) if presenter.binds(&token).await => {
                let _ = presenter.present("POST", url, &token, &mut probe_headers);
            }
            _ => {
                if let Ok(value) = ::http::HeaderValue::try_from(format!("Bearer {token}")) {
                    probe_headers.insert(::http::header::AUTHORIZATION, value);
                }
            }
        }
    }
    Ok(http_discover_probe::probe(
        &http::client()?,
        url,
        &probe_headers,
        &shared.tap,
        (&info.client_info, &info.capabilities),
        options.timeouts.discover,
    )
    .await)
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

/// The handshake (`server/discover` or `initialize`) as a request span under the session's,
/// from the start to the session being ready. It went out before the session's span existed,
/// so the server got no `traceparent` with it.
fn handshake_span(
    session: &Session,
    transport: crate::telemetry::Transport,
    began: std::time::SystemTime,
) {
    use crate::telemetry::{Answer, McpRequest, Parent, RequestSpan, Target};
    let Some(trace) = &session.trace else {
        return;
    };
    let request = McpRequest {
        method: session.summary.lifecycle,
        target: Target::Nothing,
        protocol_version: Some(&session.summary.protocol_version),
        transport,
    };
    if let Some(span) = RequestSpan::start(Parent::Session(trace), &request, Some(began)) {
        span.end(Answer::Result { tool_error: false }, None);
    }
}
