//! Running an MCP App for real: its host page and sandbox served on loopback (see
//! `host_http`), the bridge's protocol (`bridge`) driven by what the app sends, the app's own
//! requests answered through Toolscope (its `tools/call` through the one call pipeline, kept
//! as a history row with the app's name as the client), what it asks of the person (a link to
//! open) handed to the face, and every message logged (`bridge_log`).

use std::{
    net::{Ipv4Addr, SocketAddr},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::{
    app_resource::AppResource,
    bridge::{self, Bridge, FromView, HostSide, REFUSED, ViewAsk, ViewNotice, refusal, reply},
    bridge_log::{BridgeEntry, Direction},
    host_http::{Arrived, Door, serve},
    pages::{HostPage, host_page, sandbox_page},
};
use crate::{
    engine::{self, CallWish},
    history::{CalledServer, NewCall},
    session::{RequestControl, Session, Timeouts, ToolCatalog, ToolEntry},
};

/// How long the app has to answer `ui/resource-teardown` before its page is let go (a
/// command interrupted has two seconds to end).
const TEARDOWN_WAIT: Duration = Duration::from_secs(1);
/// How long a link the app asks to open waits for the person.
const LINK_WAIT: Duration = Duration::from_secs(300);

/// How the tool the app shows ended, as the app is told.
#[derive(Debug, Clone)]
pub enum ToolOutcome {
    /// The `CallToolResult`, as received.
    Result(Value),
    /// No result: why (`ui/notifications/tool-cancelled`).
    Cancelled(String),
}

/// What it takes to run one app.
pub struct AppRun {
    /// How the history names the server (`CalledServer::label`).
    pub server_label: String,
    pub session: Arc<Session>,
    pub catalog: Option<Arc<ToolCatalog>>,
    /// The tool whose app it is, as listed.
    pub tool: ToolEntry,
    pub arguments: Map<String, Value>,
    pub outcome: ToolOutcome,
    pub app: AppResource,
    pub timeouts: Timeouts,
    pub theme: &'static str,
    /// Where the host page listens (loopback only); a free port when `None`.
    pub listen: Option<SocketAddr>,
    /// How a link the person agreed to open is opened (the browser; the face's own opener).
    pub opener: crate::settings::PageOpener,
}

/// Where the app's page stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageState {
    /// Served, no page has opened it yet.
    Waiting,
    /// A page opened it; the app is loading.
    Opened,
    /// The app initialized (its name and version).
    Running(String),
    /// The page closed (or the run ended).
    Closed,
}

/// What a running app tells its face.
#[derive(Debug)]
pub enum AppEvent {
    Logged(BridgeEntry),
    Page(PageState),
    /// The app asks to open `url`: answer true to open it in the system browser.
    OpenLink {
        url: String,
        answer: oneshot::Sender<bool>,
    },
    /// A call the app made, for the history (the client is the app).
    Called(Box<NewCall>),
}

pub type AppEvents = Arc<dyn Fn(AppEvent) + Send + Sync>;

/// Why an app's host did not start.
#[derive(Debug, thiserror::Error)]
pub enum AppHostError {
    #[error("{0} is not a loopback address: an app's host listens on this machine only")]
    NotLoopback(SocketAddr),
    #[error("cannot listen on {address}: {source}")]
    Listen {
        address: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("no random token could be made: {0}")]
    NoRandom(getrandom::Error),
}

/// An app being run; [`RunningApp::close`] tears it down.
pub struct RunningApp {
    /// The host page's address, token included: what to open in a browser.
    pub url: String,
    stop: CancellationToken,
    teardown: mpsc::UnboundedSender<oneshot::Sender<()>>,
}

impl RunningApp {
    /// Asks the app to tear down (`ui/resource-teardown`), waits a moment for its answer,
    /// then stops serving it.
    pub async fn close(self) {
        let (done, wait) = oneshot::channel();
        if self.teardown.send(done).is_ok() {
            let _ = tokio::time::timeout(TEARDOWN_WAIT + Duration::from_millis(200), wait).await;
        }
        self.stop.cancel();
    }

    /// Stops at once (the app is not asked).
    pub fn stop(&self) {
        self.stop.cancel();
    }
}

/// Starts serving the app; the page is at [`RunningApp::url`].
pub async fn start(run: AppRun, events: AppEvents) -> Result<RunningApp, AppHostError> {
    let listen = run
        .listen
        .unwrap_or(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)));
    if !listen.ip().is_loopback() {
        return Err(AppHostError::NotLoopback(listen));
    }
    let bind = |address: SocketAddr| async move {
        tokio::net::TcpListener::bind(address)
            .await
            .map_err(|source| AppHostError::Listen { address, source })
    };
    let host_listener = bind(listen).await?;
    let sandbox_address = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
    let sandbox_listener = bind(sandbox_address).await?;
    let host_port = host_listener.local_addr().map_or(0, |a| a.port());
    let sandbox_port = sandbox_listener.local_addr().map_or(0, |a| a.port());
    let token = token()?;
    // Two sites: the page's on 127.0.0.1, the sandbox's on localhost.
    let host_authority = format!("127.0.0.1:{host_port}");
    let host_origin = format!("http://{host_authority}");
    let sandbox_authority = format!("localhost:{sandbox_port}");
    let sandbox_origin = format!("http://{sandbox_authority}");
    let sandbox_url = format!("{sandbox_origin}/{token}/sandbox.html");
    // The server by the name it gives itself (a command line says less).
    let server_name = run
        .session
        .summary()
        .name
        .clone()
        .unwrap_or_else(|| run.server_label.clone());
    let page = host_page(&HostPage {
        tool: &run.tool.name,
        server: &server_name,
        token: &token,
        sandbox_origin: &sandbox_origin,
        sandbox_url: &sandbox_url,
        allow: &run.app.allow,
        border: run.app.prefers_border.unwrap_or(true),
    });
    let sandbox_csp = run
        .app
        .csp
        .header(&host_origin, &format!("{host_origin}/{token}/csp-report"));
    let host_csp = format!(
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
         connect-src 'self'; img-src 'self' data:; frame-src {sandbox_origin}"
    );
    let (arrived, arrivals) = mpsc::unbounded_channel();
    let door = Arc::new(Door::new(
        token.clone(),
        host_origin.clone(),
        host_authority,
        sandbox_authority,
        page,
        sandbox_page(&host_origin),
        sandbox_csp,
        host_csp,
        arrived,
    ));
    let stop = CancellationToken::new();
    tokio::spawn(serve(Arc::clone(&door), host_listener, false, stop.clone()));
    tokio::spawn(serve(
        Arc::clone(&door),
        sandbox_listener,
        true,
        stop.clone(),
    ));
    let (teardown, teardowns) = mpsc::unbounded_channel();
    let host = Host::new(run, door, events, stop.clone());
    tokio::spawn(host.run(arrivals, teardowns));
    Ok(RunningApp {
        url: format!("{host_origin}/{token}/"),
        stop,
        teardown,
    })
}

/// 128 random bits in hex.
fn token() -> Result<String, AppHostError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(AppHostError::NoRandom)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// The host's state, owned by its one task.
struct Host {
    shared: Arc<Shared>,
    bridge: Bridge,
    side: HostSide,
    html: String,
    allow: String,
    stop: CancellationToken,
    teardown_id: Option<Value>,
    teardown_done: Option<oneshot::Sender<()>>,
    /// A page holds the app now (nothing to tear down otherwise).
    page_open: bool,
}

/// What the host's request handlers share.
struct Shared {
    run: AppRun,
    door: Arc<Door>,
    events: AppEvents,
    started: Instant,
    app_name: Mutex<Option<String>>,
}

impl Shared {
    fn log(&self, direction: Direction, message: &Value, note: Option<String>) {
        (self.events)(AppEvent::Logged(BridgeEntry::of(
            self.started.elapsed(),
            direction,
            message,
            note,
        )));
    }

    fn note(&self, method: &str, note: String) {
        (self.events)(AppEvent::Logged(BridgeEntry::host(
            self.started.elapsed(),
            method,
            note,
        )));
    }

    /// Posts `message` to the app, logged.
    fn to_app(&self, message: Value, note: Option<String>) {
        self.log(Direction::ToApp, &message, note);
        self.door.to_page(json!({"post": message}).to_string());
    }

    fn state(&self, state: &str) {
        self.door.to_page(json!({"state": state}).to_string());
    }
}

impl Host {
    fn new(run: AppRun, door: Arc<Door>, events: AppEvents, stop: CancellationToken) -> Self {
        let side = HostSide {
            tool: run.tool.raw.clone(),
            theme: run.theme,
            csp: serde_json::to_value(&run.app.csp).unwrap_or(Value::Null),
            permissions: json!({}),
            locale: locale(),
            time_zone: time_zone(),
        };
        let mut bridge = Bridge::default();
        // Held until the app says it is initialized: the input, then how the tool ended.
        bridge.notify(
            "ui/notifications/tool-input",
            json!({"arguments": run.arguments}),
        );
        match &run.outcome {
            ToolOutcome::Result(result) => {
                bridge.notify("ui/notifications/tool-result", result.clone());
            }
            ToolOutcome::Cancelled(reason) => {
                bridge.notify("ui/notifications/tool-cancelled", json!({"reason": reason}));
            }
        }
        let (html, allow) = (run.app.html.clone(), run.app.allow.clone());
        Self {
            shared: Arc::new(Shared {
                run,
                door,
                events,
                started: Instant::now(),
                app_name: Mutex::new(None),
            }),
            bridge,
            side,
            html,
            allow,
            stop,
            teardown_id: None,
            teardown_done: None,
            page_open: false,
        }
    }

    async fn run(
        mut self,
        mut arrivals: mpsc::UnboundedReceiver<Arrived>,
        mut teardowns: mpsc::UnboundedReceiver<oneshot::Sender<()>>,
    ) {
        (self.shared.events)(AppEvent::Page(PageState::Waiting));
        for finding in lint(&self.shared.run) {
            self.shared.note("lint", finding);
        }
        let mut deadline: Option<tokio::time::Instant> = None;
        loop {
            let waiting = async {
                match deadline {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                arrived = arrivals.recv() => match arrived {
                    Some(arrived) => self.arrived(arrived),
                    None => break,
                },
                done = teardowns.recv() => {
                    let Some(done) = done else { break };
                    if !self.page_open {
                        let _ = done.send(());
                        continue;
                    }
                    let request = self.bridge.request("ui/resource-teardown", json!({}));
                    self.teardown_id = request.get("id").cloned();
                    self.teardown_done = Some(done);
                    self.shared.to_app(request, Some("the run ends: the app may save its state".into()));
                    deadline = Some(tokio::time::Instant::now() + TEARDOWN_WAIT);
                }
                () = waiting => {
                    self.shared.note("teardown", "the app did not answer ui/resource-teardown in time".into());
                    self.finish();
                    deadline = None;
                }
                () = self.stop.cancelled() => break,
            }
            if self.teardown_done.is_none() && self.teardown_id.is_some() {
                deadline = None;
            }
        }
        (self.shared.events)(AppEvent::Page(PageState::Closed));
    }

    fn finish(&mut self) {
        self.shared.state("closed by Toolscope");
        if let Some(done) = self.teardown_done.take() {
            let _ = done.send(());
        }
    }

    fn arrived(&mut self, arrived: Arrived) {
        let shared = &self.shared;
        match arrived {
            Arrived::PageOpened => {
                self.page_open = true;
                shared.note("page", "a page opened the app's host".into());
                (shared.events)(AppEvent::Page(PageState::Opened));
            }
            Arrived::PageClosed => {
                self.page_open = false;
                shared.note("page", "the page was closed".into());
                (shared.events)(AppEvent::Page(PageState::Closed));
            }
            Arrived::Refused(why) => shared.note("refused", why),
            Arrived::CspReport(report) => {
                let mut note = csp_words(&report);
                if tool_declares_csp(&shared.run.tool.raw) {
                    note.push_str(
                        "; the tool declares a csp of its own, which hosts ignore: it belongs on \
                         the resource's _meta.ui",
                    );
                }
                shared.log(
                    Direction::Host,
                    &json!({"method": "blocked", "report": report}),
                    Some(note),
                );
            }
            Arrived::FromApp(message) => self.app_sent(message),
        }
    }

    fn app_sent(&mut self, message: Value) {
        let shared = Arc::clone(&self.shared);
        if message.get("method").and_then(Value::as_str)
            == Some("ui/notifications/sandbox-proxy-ready")
        {
            shared.log(
                Direction::FromApp,
                &message,
                Some("the sandbox is ready".into()),
            );
            shared.state("loading the app");
            shared.to_app(
                json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-resource-ready",
                       "params": {"html": self.html, "allow": self.allow}}),
                Some(format!(
                    "the app's HTML ({} bytes) into the sandbox",
                    self.html.len()
                )),
            );
            return;
        }
        match self.bridge.read(&message, &self.side) {
            FromView::Reply(answer) => {
                shared.log(Direction::FromApp, &message, None);
                let initialize = bridge::method_of(&message) == "ui/initialize";
                shared.to_app(answer, None);
                if initialize {
                    let name = self
                        .bridge
                        .app_name()
                        .unwrap_or_else(|| "the app".to_owned());
                    *shared
                        .app_name
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(name.clone());
                    shared.state("running");
                    (shared.events)(AppEvent::Page(PageState::Running(name)));
                }
            }
            FromView::Initialized(held) => {
                shared.log(
                    Direction::FromApp,
                    &message,
                    Some("the app is ready for its data".into()),
                );
                for notification in held {
                    shared.to_app(notification, None);
                }
            }
            FromView::Ask { id, ask } => {
                shared.log(Direction::FromApp, &message, None);
                tokio::spawn(async move {
                    let answer = answer(&shared, &id, ask).await;
                    shared.to_app(answer, None);
                });
            }
            FromView::Told(notice) => {
                let note = match notice {
                    ViewNotice::SizeChanged { width, height } => format!(
                        "the app is {} × {} px",
                        width.map_or("?".to_owned(), |w| format!("{w:.0}")),
                        height.map_or("?".to_owned(), |h| format!("{h:.0}"))
                    ),
                    ViewNotice::Log { level, data } => format!(
                        "the app logs ({level}): {}",
                        data.as_str()
                            .map_or_else(|| data.to_string(), str::to_owned)
                    ),
                    ViewNotice::RequestTeardown => {
                        "the app asks to be closed: close its page when done".to_owned()
                    }
                };
                shared.log(Direction::FromApp, &message, Some(note));
            }
            FromView::Answer { id } => {
                shared.log(Direction::FromApp, &message, None);
                if self.teardown_id.as_ref() == Some(&id) {
                    self.finish();
                }
            }
            FromView::Ignored(why) => shared.log(
                Direction::FromApp,
                &message,
                Some(format!("ignored: {why}")),
            ),
        }
    }
}

/// The answer to what the app asked.
async fn answer(shared: &Shared, id: &Value, ask: ViewAsk) -> Value {
    let run = &shared.run;
    match ask {
        ViewAsk::CallTool { name, arguments } => call_tool(shared, id, &name, arguments).await,
        ViewAsk::ReadResource { uri } => {
            let control = RequestControl::with_timeouts(run.timeouts);
            let request = json!({"method": "resources/read", "params": {"uri": uri}});
            shared.log(Direction::ToServer, &request, None);
            match run.session.read_resource(&uri, &control).await {
                Ok(response) => server_answer(shared, id, &response),
                Err(error) => refusal(id, REFUSED, &error.to_string()),
            }
        }
        ViewAsk::ListTools => {
            let tools: Vec<Value> = run
                .catalog
                .iter()
                .flat_map(|catalog| catalog.tools.iter())
                .filter(|tool| visible_to_apps(&tool.raw))
                .map(|tool| tool.raw.clone())
                .collect();
            reply(id, json!({"tools": tools}))
        }
        ViewAsk::ListResources => {
            let control = RequestControl::with_timeouts(run.timeouts);
            shared.log(
                Direction::ToServer,
                &json!({"method": "resources/list"}),
                None,
            );
            match run.session.list_resources_page(&control).await {
                Ok(response) => server_answer(shared, id, &response),
                Err(error) => refusal(id, REFUSED, &error.to_string()),
            }
        }
        ViewAsk::OpenLink { url } => open_link(shared, id, &url).await,
        ViewAsk::Message { role, content } => {
            let text = content
                .iter()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n");
            shared.note(
                "ui/message",
                format!("the model would receive, as the {role}: {text}"),
            );
            reply(id, json!({}))
        }
        ViewAsk::UpdateModelContext { params } => {
            shared.note(
                "ui/update-model-context",
                format!(
                    "the model's context would now hold: {}",
                    crate::text_util::one_line(&params.to_string(), 400)
                ),
            );
            reply(id, json!({}))
        }
        ViewAsk::RequestDisplayMode { mode } => {
            if mode != "inline" {
                shared.note(
                    "ui/request-display-mode",
                    format!("the app asked for {mode}; this host shows apps inline only"),
                );
            }
            reply(id, json!({"mode": "inline"}))
        }
    }
}

/// The app's own `tools/call`, through the one call pipeline, refused for a tool the app
/// may not see or its server does not list.
async fn call_tool(
    shared: &Shared,
    id: &Value,
    name: &str,
    arguments: Map<String, Value>,
) -> Value {
    let run = &shared.run;
    let listed = run
        .catalog
        .as_deref()
        .and_then(|catalog| catalog.find(name));
    match listed {
        None if run.catalog.is_some() => {
            let why = format!("{name} is not a tool of this app's server");
            shared.note("tools/call", format!("refused: {why}"));
            return refusal(id, REFUSED, &why);
        }
        Some(tool) if !visible_to_apps(&tool.raw) => {
            let why = format!("{name} is not visible to apps (its _meta.ui.visibility)");
            shared.note("tools/call", format!("refused: {why}"));
            return refusal(id, REFUSED, &why);
        }
        _ => {}
    }
    shared.log(
        Direction::ToServer,
        &json!({"method": "tools/call", "params": {"name": name, "arguments": arguments}}),
        None,
    );
    let control = RequestControl::with_timeouts(run.timeouts);
    let made = match engine::call(
        &run.session,
        run.catalog.as_deref(),
        name,
        arguments,
        CallWish::default(),
        &control,
    )
    .await
    {
        Ok(made) => made,
        Err(refused) => return refusal(id, REFUSED, &refused.to_string()),
    };
    let mut row = made.history_row(CalledServer {
        label: &run.server_label,
        summary: Some(run.session.summary()),
    });
    row.client = shared
        .app_name
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
        .or_else(|| Some("an MCP App".to_owned()));
    (shared.events)(AppEvent::Called(Box::new(row)));
    match &made.ended {
        Ok(answered) => server_answer(shared, id, &answered.outcome.response),
        Err(error) => refusal(id, REFUSED, &error.to_string()),
    }
}

/// The server's answer, passed on to the app under the app's id.
fn server_answer(shared: &Shared, id: &Value, response: &crate::session::RawResponse) -> Value {
    if let Some((code, message)) = response.rpc_error() {
        shared.log(
            Direction::FromServer,
            &json!({"error": {"code": code, "message": message}}),
            None,
        );
        return refusal(id, code, &message);
    }
    let result = response.member().to_value();
    shared.log(Direction::FromServer, &json!({"result": result}), None);
    reply(id, result)
}

/// Whether a tool's `_meta.ui.visibility` lets an app call it (absent: model and app).
fn visible_to_apps(tool: &Value) -> bool {
    match tool
        .pointer("/_meta/ui/visibility")
        .and_then(Value::as_array)
    {
        Some(visibility) => visibility.iter().any(|who| who == "app"),
        None => true,
    }
}

/// A link the app asks to open: the person decides; nothing but http(s) is offered.
async fn open_link(shared: &Shared, id: &Value, url: &str) -> Value {
    let web = url::Url::parse(url).is_ok_and(|parsed| matches!(parsed.scheme(), "http" | "https"));
    if !web {
        shared.note(
            "ui/open-link",
            format!("refused: {url} is not an http(s) link"),
        );
        return reply(id, json!({"isError": true}));
    }
    let (answer, decided) = oneshot::channel();
    (shared.events)(AppEvent::OpenLink {
        url: url.to_owned(),
        answer,
    });
    let yes = matches!(tokio::time::timeout(LINK_WAIT, decided).await, Ok(Ok(true)));
    if !yes {
        shared.note(
            "ui/open-link",
            format!("not opened: the person said no to {url}"),
        );
        return reply(id, json!({"isError": true}));
    }
    match (shared.run.opener)(url) {
        Ok(how) => {
            shared.note("ui/open-link", format!("{url} opened ({how})"));
            reply(id, json!({}))
        }
        Err(error) => {
            shared.note(
                "ui/open-link",
                format!("{url} could not be opened: {error}"),
            );
            reply(id, json!({"isError": true}))
        }
    }
}

/// This machine's language as BCP 47 (`en_US.UTF-8` → `en-US`); none for `C` or `POSIX`.
fn locale() -> Option<String> {
    let raw = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|value| !value.is_empty()))?;
    let tag = raw.split(['.', '@']).next()?.replace('_', "-");
    (tag.len() >= 2 && tag != "C" && tag != "POSIX").then_some(tag)
}

/// This machine's time zone by its IANA name: `TZ`, else where `/etc/localtime` points.
fn time_zone() -> Option<String> {
    if let Ok(zone) = std::env::var("TZ")
        && zone.contains('/')
    {
        return Some(zone.trim_start_matches(':').to_owned());
    }
    let target = std::fs::read_link("/etc/localtime").ok()?;
    let text = target.to_string_lossy();
    text.split_once("zoneinfo/")
        .map(|(_, zone)| zone.to_owned())
}

/// What a host would object to before the app runs, said first in the log so what goes wrong
/// later reads against it: the extension not declared, a CSP on the tool, the resource's own
/// warnings (its MIME type), domains refused from its CSP.
fn lint(run: &AppRun) -> Vec<String> {
    let mut findings = Vec::new();
    let declared = run
        .session
        .summary()
        .capabilities
        .pointer(&format!(
            "/extensions/{}",
            crate::interface::mcp_app::UI_EXTENSION.replace('/', "~1")
        ))
        .is_some();
    if !declared {
        findings.push(format!(
            "the server does not declare the {} extension: a host that negotiates extensions \
             would not show this app (Toolscope runs it anyway)",
            crate::interface::mcp_app::UI_EXTENSION
        ));
    }
    if tool_declares_csp(&run.tool.raw) {
        findings.push(
            "the tool declares a csp: hosts read the CSP from the resource's _meta.ui, so this \
             one is ignored"
                .to_owned(),
        );
    }
    findings.extend(run.app.warnings.iter().cloned());
    for refused in &run.app.csp.refused {
        findings.push(format!(
            "the resource's CSP entry {refused:?} cannot be a source (a separator, quote or \
             space in it): left out"
        ));
    }
    findings
}

fn tool_declares_csp(tool: &Value) -> bool {
    tool.pointer("/_meta/ui/csp").is_some()
}

/// A CSP report in words: what was blocked, under which directive, and what would allow it.
fn csp_words(report: &Value) -> String {
    let report = report.get("csp-report").unwrap_or(report);
    let text = |key: &str| report.get(key).and_then(Value::as_str).unwrap_or("?");
    let directive = text("effective-directive");
    let blocked = text("blocked-uri");
    if blocked == "eval" {
        return format!(
            "blocked: eval under {directive} (many apps' libraries probe eval once at start; \
             harmless when the app goes on)"
        );
    }
    let key = match directive {
        "connect-src" => Some("connectDomains"),
        "frame-src" => Some("frameDomains"),
        "base-uri" => Some("baseUriDomains"),
        "script-src" | "script-src-elem" | "style-src" | "style-src-elem" | "img-src"
        | "font-src" | "media-src" => Some("resourceDomains"),
        _ => None,
    };
    match key {
        Some(key) => format!(
            "blocked: {blocked} under {directive}: the resource's _meta.ui.csp does not declare \
             it (its {key} would)"
        ),
        None => format!("blocked: {blocked} under {directive}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blocked_fetch_is_said_with_the_field_that_would_allow_it() {
        let words = csp_words(&json!({"csp-report": {
            "effective-directive": "connect-src",
            "blocked-uri": "https://undeclared.example/data"
        }}));
        assert!(words.contains("https://undeclared.example/data"), "{words}");
        assert!(words.contains("connectDomains"), "{words}");
    }

    #[test]
    fn visibility_without_app_keeps_a_tool_from_apps() {
        assert!(visible_to_apps(&json!({"name": "a"})));
        assert!(!visible_to_apps(
            &json!({"_meta": {"ui": {"visibility": ["model"]}}})
        ));
        assert!(visible_to_apps(
            &json!({"_meta": {"ui": {"visibility": ["model", "app"]}}})
        ));
    }
}
