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
    bridge::{self, Bridge, FromView, HostSide, ViewNotice},
    bridge_log::{BridgeEntry, Direction},
    host_checks::{self, HostCheck},
    host_http::{Arrived, Door, serve},
    pages::{HostPage, host_page, sandbox_page},
};
use crate::{
    history::NewCall,
    session::{Session, Timeouts, ToolCatalog, ToolEntry},
};

/// How long the app has to answer `ui/resource-teardown` before its page is let go (a
/// command interrupted has two seconds to end).
const TEARDOWN_WAIT: Duration = Duration::from_secs(1);

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
    /// A call or a read the app made, for the history (the client is the app).
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
    /// What a host checks before the run, said first; later entries point back at them.
    checks: Vec<HostCheck>,
}

/// What the host's request handlers share.
pub(super) struct Shared {
    pub(super) run: AppRun,
    pub(super) door: Arc<Door>,
    pub(super) events: AppEvents,
    pub(super) started: Instant,
    pub(super) app_name: Mutex<Option<String>>,
}

impl Shared {
    pub(super) fn log(&self, direction: Direction, message: &Value, note: Option<String>) {
        self.log_checked(direction, message, note, None);
    }

    /// Logged as bearing out check `check` before the run.
    fn log_checked(
        &self,
        direction: Direction,
        message: &Value,
        note: Option<String>,
        check: Option<usize>,
    ) {
        (self.events)(AppEvent::Logged(
            BridgeEntry::of(self.started.elapsed(), direction, message, note).bearing_out(check),
        ));
    }

    pub(super) fn note(&self, method: &str, note: String) {
        (self.events)(AppEvent::Logged(BridgeEntry::host(
            self.started.elapsed(),
            method,
            note,
        )));
    }

    /// Posts `message` to the app, logged.
    pub(super) fn to_app(&self, message: Value, note: Option<String>) {
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
        let checks = host_checks::checks(&run);
        Self {
            checks,
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
        for check in &self.checks {
            (self.shared.events)(AppEvent::Logged(
                BridgeEntry::host(
                    self.shared.started.elapsed(),
                    "lint",
                    format!("check {}: {}", check.number, check.words),
                )
                .bearing_out(Some(check.number)),
            ));
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
                let blocked = report
                    .get("csp-report")
                    .unwrap_or(&report)
                    .get("blocked-uri")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let bearing =
                    host_checks::bearing_on_blocked(&self.checks, &shared.run.tool.raw, blocked);
                if let Some((_, why)) = &bearing {
                    note.push_str("; ");
                    note.push_str(why);
                }
                shared.log_checked(
                    Direction::Host,
                    &json!({"method": "blocked", "report": report}),
                    Some(note),
                    bearing.map(|(number, _)| number),
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
                let initialize = bridge::method_of(&message) == "ui/initialize";
                let bearing = initialize
                    .then(|| host_checks::bearing_on_initialize(&self.checks))
                    .flatten();
                shared.log_checked(
                    Direction::FromApp,
                    &message,
                    bearing.as_ref().map(|(_, why)| why.clone()),
                    bearing.map(|(check, _)| check.number),
                );
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
                    let answer = super::app_requests::answer(&shared, &id, ask).await;
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
}
