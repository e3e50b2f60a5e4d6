//! Runs sessions on tokio for the window and reports back through events. Every method returns
//! at once; the work happens in tasks, and each event wakes the window.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, mpsc},
};

use serde_json::Value;
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use super::{
    ToolKey, call_failure::CallFailure, compact_record::CompactRecord, free_memory,
    tool_changes::ToolChanges, tool_run::RunningTask,
};
use toolscope_core::{
    analysis::ProtocolEra,
    engine,
    secret_store::SecretStoreError,
    session::{
        ConnectOptions, ProgressUpdate, ProtocolTap, RequestControl, ServerConfig, ServerSummary,
        Session, SessionEvent, Timeouts, ToolCatalog,
    },
};

use super::call_record::history_record;
use super::{
    call_record::CallRecord,
    ids::{CallId, ServerId},
};

/// What the backend reports.
#[derive(Debug)]
pub enum BackendEvent {
    /// What the history thread reports.
    History(toolscope_core::history::HistoryEvent),
    /// What the thread of an opened recording reports.
    Recording {
        generation: u64,
        event: toolscope_core::history::HistoryEvent,
    },
    Connected {
        server: ServerId,
        summary: ServerSummary,
        tap: ProtocolTap,
    },
    ConnectFailed {
        server: ServerId,
        message: String,
    },
    /// A connection waits for the user to sign in on `page`; its log so far is `tap`.
    SignInWaiting {
        server: ServerId,
        page: SignInPage,
        tap: ProtocolTap,
    },
    /// That sign-in is over (signed in, failed or cancelled).
    SignInEnded {
        server: ServerId,
    },
    Tools {
        server: ServerId,
        result: Result<ToolListUpdate, String>,
    },
    /// A notification from the server, or the session's end.
    Session {
        server: ServerId,
        event: SessionEvent,
    },
    CallProgress {
        call: CallId,
        update: ProgressUpdate,
    },
    /// Other clients' configurations were read (see [`Backend::look_for_servers`]).
    ServersFound {
        servers: Vec<toolscope_core::import::FoundServer>,
        unreadable: Vec<(std::path::PathBuf, String)>,
        /// The entries watched through Toolscope now.
        watched: Vec<toolscope_core::import::watch_through::WatchRecord>,
    },
    /// A change to another client's entry, planned (or why it cannot be made).
    WatchPlanned(Result<WatchChange, String>),
    /// The change was made (what to say), or why not; the entries watched now.
    WatchDone {
        result: Result<String, String>,
        watched: Vec<toolscope_core::import::watch_through::WatchRecord>,
    },
    /// The task a call runs as has a new status.
    CallTaskStatus {
        call: CallId,
        task: RunningTask,
    },
    CallDone {
        call: CallId,
        result: Result<Arc<CallRecord>, CallFailure>,
    },
    /// A tool's MCP App run: its page served, a message over its bridge, a link it asks for
    /// (see [`Backend::run_app`]).
    App {
        tool: ToolKey,
        update: AppUpdate,
    },
    /// The connection doctor walked a server's connection (see [`Backend::diagnose`]).
    Diagnosed {
        generation: u64,
        diagnosis: toolscope_core::doctor::Diagnosis,
    },
    /// A load run moved on or ended (see [`Backend::load`]).
    Load {
        generation: u64,
        event: LoadEvent,
    },
    /// A tool's MCP App resource was read and checked (see [`Backend::check_app`]).
    AppChecked {
        tool: ToolKey,
        result: Result<toolscope_core::interface::mcp_app::AppCheck, String>,
    },
    /// A resource listed, read or subscribed to, a prompt got, a completion, the log level,
    /// a round trip (see `backend/features.rs`).
    Feature {
        server: ServerId,
        event: FeatureEvent,
    },
    /// A resource was read (see [`Backend::read_resource`]).
    ResourceRead {
        generation: u64,
        result: Result<Vec<super::ReadContent>, String>,
    },
    /// A server asks the person something (elicitation, sampling); `reply` takes the answer
    /// back to the session, which stops waiting when it is dropped.
    Asked {
        server: ServerId,
        ask: toolscope_core::session::ServerAsk,
        reply: tokio::sync::oneshot::Sender<toolscope_core::session::AskReply>,
    },
    /// A message from background work that is not a session (a failed settings save, a saved
    /// file), for the banner.
    Notice(String),
    /// A file was written where the user asked (a report, a recording, a media block): the
    /// banner says so, with Open and Show in folder.
    Wrote {
        message: String,
        path: std::path::PathBuf,
    },
    /// Text for the clipboard, and what it is (said in the banner).
    CopyText {
        text: String,
        what: String,
    },
    /// A result that left the screen, made small (see [`Backend::compact`]).
    Compacted {
        tool: ToolKey,
        compact: Arc<CompactRecord>,
    },
    /// A compacted result made whole again (see [`Backend::restore`]).
    Restored {
        tool: ToolKey,
        record: Arc<CallRecord>,
    },
    /// A call from the history made into a record (see [`Backend::show_history_call`]).
    HistoryRecord {
        entry: i64,
        result: Result<Arc<CallRecord>, String>,
    },
    /// A read or a prompt from the history made into a record (see
    /// [`Backend::show_history_call`]).
    HistoryFeature {
        entry: i64,
        result: Result<Arc<super::feature_record::FeatureRecord>, String>,
    },
    /// The server's interface changed since it was last listed (another connection or run).
    SinceLastTime {
        server: ServerId,
        note: InterfaceNote,
    },
    /// A watched server folder changed (these files, relative to it), once it settled.
    FolderChanged {
        server: ServerId,
        names: Vec<String>,
    },
    /// A server's folder cannot be watched.
    WatchFailed {
        server: ServerId,
        problem: String,
    },
    /// A restarted server's interface against the one before (`None`: the same).
    SinceRestart {
        server: ServerId,
        note: Option<InterfaceNote>,
    },
    /// Two calls compared (see [`Backend::compare`]).
    Compared {
        tag: u64,
        view: Arc<super::comparison::ComparisonView>,
    },
    /// Two proxied sessions compared (see [`Backend::compare_sessions`]).
    SessionsCompared {
        tag: u64,
        result: Result<Arc<toolscope_core::gates::SessionDiff>, toolscope_core::gates::GateError>,
    },
    /// A run of cases moved on (see [`Backend::run_cases`]).
    Cases {
        batch: u64,
        event: CasesEvent,
    },
    /// A case file was read (see [`Backend::read_case_file`]).
    /// The open case file changed on disk since it was read.
    CaseFileChanged {
        path: std::path::PathBuf,
    },
    CaseFileRead {
        path: std::path::PathBuf,
        result: Result<toolscope_core::cases::CaseFile, String>,
    },
    /// A case was saved (see [`Backend::save_case`]).
    CaseSaved {
        path: std::path::PathBuf,
        result: Result<(), String>,
    },
}

mod calls;
pub use calls::CallRequest;
pub mod app_runs;
mod case_runs;
mod comparing;
mod diagnosing;
mod folder_watching;
mod load_runs;
mod session_diffing;
pub use folder_watching::FolderWatching;
pub use load_runs::LoadEvent;
mod watch_through;
pub use watch_through::WatchChange;
mod features;
pub use app_runs::AppUpdate;
pub use comparing::SideInput;
pub use features::FeatureEvent;
mod sign_ins;
pub use sign_ins::SignInPage;
mod since_last_time;
mod tool_listing;
pub use case_runs::{CaseReport, CasesEvent, CasesOn, CasesRequest, SavedCase};
pub use since_last_time::InterfaceNote;

/// A new tool list and what changed since the one before (compared off the UI thread).
#[derive(Debug)]
pub struct ToolListUpdate {
    pub catalog: Arc<ToolCatalog>,
    /// `None` for the first list of a server.
    pub changes: Option<ToolChanges>,
}

type Waker = Arc<dyn Fn() + Send + Sync>;

/// The window's handle on all sessions.
pub struct Backend {
    runtime: Handle,
    sender: mpsc::Sender<BackendEvent>,
    waker: Waker,
    sessions: Arc<Mutex<HashMap<ServerId, Arc<Session>>>>,
    /// The current connection attempt of each server: events of an older one are dropped, so
    /// a session closed by a reconnect cannot mark the new one as closed.
    epochs: Arc<Mutex<HashMap<ServerId, u64>>>,
    /// The last tool list of each server, to tell what a refresh changed.
    catalogs: Catalogs,
    /// Lists each server's tools, one list at a time, and keeps its last interface.
    lister: tool_listing::ToolLister,
    /// Where OAuth tokens go; `None`: servers are not signed into (tests).
    secrets: Option<toolscope_core::settings::SecretsPlace>,
    /// The MCP Apps being run, by tool.
    apps: app_runs::RunningApps,
    /// Which case file read is the current one (its watcher stops when another is read).
    case_file_generation: Arc<std::sync::atomic::AtomicU64>,
    /// Stops each connection under way (a sign-in waiting for the browser) on disconnect.
    connecting: Arc<Mutex<HashMap<ServerId, (u64, CancellationToken)>>>,
}

/// How long a disconnected server gets to exit before it is killed (stdin, SIGTERM, SIGKILL).
const DISCONNECT_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

type Catalogs = Arc<Mutex<HashMap<ServerId, Arc<ToolCatalog>>>>;

impl Backend {
    /// `waker` is called after every event (the window requests a repaint).
    pub fn new(runtime: Handle, waker: Waker) -> (Self, mpsc::Receiver<BackendEvent>) {
        // Results come and go all session long: keep the memory they free returnable.
        free_memory::map_big_blocks_on_their_own();
        let (sender, receiver) = mpsc::channel();
        let (sessions, epochs, catalogs) = (Arc::default(), Arc::default(), Arc::default());
        let emit = Emitter {
            sender: sender.clone(),
            waker: waker.clone(),
        };
        let backend = Self {
            runtime,
            sender,
            waker,
            lister: tool_listing::ToolLister::new(
                Arc::clone(&sessions),
                Arc::clone(&epochs),
                Arc::clone(&catalogs),
                emit,
            ),
            sessions,
            epochs,
            catalogs,
            secrets: None,
            apps: Arc::default(),
            case_file_generation: Arc::default(),
            connecting: Arc::default(),
        };
        (backend, receiver)
    }

    /// A way for background work to put a message in the banner.
    /// Where the history thread reports: into the window's events.
    pub fn history_listener(
        &self,
    ) -> impl Fn(toolscope_core::history::HistoryEvent) + Send + 'static {
        let emit = self.emitter();
        move |event| emit.send(BackendEvent::History(event))
    }

    /// Where the thread of recording `generation` reports: into the window's events, apart
    /// from the history's (the model drops what an earlier recording still says).
    pub fn recording_listener(
        &self,
        generation: u64,
    ) -> impl Fn(toolscope_core::history::HistoryEvent) + Send + 'static {
        let emit = self.emitter();
        move |event| emit.send(BackendEvent::Recording { generation, event })
    }

    /// Where background work says it wrote a file (the banner then offers to open it).
    pub fn file_notifier(&self) -> impl Fn(String, std::path::PathBuf) + Send + Sync + 'static {
        let emit = self.emitter();
        move |message, path| emit.send(BackendEvent::Wrote { message, path })
    }

    pub fn notifier(&self) -> impl Fn(String) + Send + Sync + 'static {
        let emit = self.emitter();
        move |message| emit.send(BackendEvent::Notice(message))
    }

    /// Keeps each server's last interface in `store`, to say on the next connection what
    /// changed since.
    pub fn keep_interfaces(&mut self, store: Option<toolscope_core::interface::InterfaceStore>) {
        self.lister.interfaces = store;
    }

    /// Forgets a removed server's last tool list.
    pub fn forget(&self, server: ServerId) {
        self.disconnect(server);
        lock(&self.catalogs).remove(&server);
    }

    fn emitter(&self) -> Emitter {
        Emitter {
            sender: self.sender.clone(),
            waker: self.waker.clone(),
        }
    }

    /// Connects, then lists the tools. A connection already open for `server` is closed first.
    /// `known_era` is the era the server spoke last time, if remembered.
    pub fn connect(
        &self,
        server: ServerId,
        label: String,
        config: ServerConfig,
        client: toolscope_core::session::ClientSettings,
        timeouts: Timeouts,
        known_era: Option<ProtocolEra>,
    ) {
        self.disconnect(server);
        let epoch = {
            let mut epochs = lock(&self.epochs);
            let epoch = epochs.get(&server).map_or(1, |epoch| epoch + 1);
            epochs.insert(server, epoch);
            epoch
        };
        let emit = self.emitter();
        let sessions = self.sessions.clone();
        let epochs = self.epochs.clone();
        let lister = self.lister.clone();
        let secrets = self.secrets.clone();
        let cancel = CancellationToken::new();
        if let Some((_, earlier)) = lock(&self.connecting).insert(server, (epoch, cancel.clone())) {
            earlier.cancel();
        }
        let connecting = self.connecting.clone();
        self.runtime.spawn(async move {
            let events = {
                let emit = emit.clone();
                let epochs = epochs.clone();
                let (lister, label) = (lister.clone(), label.clone());
                Arc::new(move |event| {
                    if lock(&epochs).get(&server) != Some(&epoch) {
                        return;
                    }
                    // Taken up here, where it is told: a burst costs one more list.
                    if let SessionEvent::ToolListChanged = event {
                        lister.request(server, epoch, label.clone(), timeouts);
                    }
                    emit.send(BackendEvent::Session { server, event });
                })
            };
            let mut options = ConnectOptions::new(timeouts, events);
            options.known_era = known_era;
            options.client_side = toolscope_core::session::ClientSide {
                declared: client.declared,
                roots: toolscope_core::session::asks::client_side::RootsList::new(client.roots),
                asker: Some(Arc::new(PersonAsker {
                    server,
                    emit: emit.clone(),
                })),
            };
            let waker = emit.waker.clone();
            options.tap_waker = Some(waker.clone());
            if let ServerConfig::Http { .. } = &config {
                let tap = ProtocolTap::new(options.tap_limits, Some(waker));
                options.auth = Self::auth_options(secrets.as_ref(), server, &emit, &tap).await;
                options.tap = Some(tap);
            }
            options.cancel = cancel.clone();
            let open_secrets = window_secrets(secrets);
            let connected = engine::connect(&label, &config, open_secrets, options).await;
            {
                let mut connecting = lock(&connecting);
                if connecting.get(&server).is_some_and(|(of, _)| *of == epoch) {
                    connecting.remove(&server);
                }
            }
            let current = || lock(&epochs).get(&server) == Some(&epoch);
            let session = match connected {
                Ok(session) => Arc::new(session),
                Err(error) => {
                    if current() {
                        let message = error.to_string();
                        emit.send(BackendEvent::ConnectFailed { server, message });
                    }
                    return;
                }
            };
            if !current() {
                // Disconnected or reconnected while this attempt was under way.
                session.shutdown();
                return;
            }
            // The first list is under way before a change can be told to the window's lister.
            lister.begin(server, epoch);
            lock(&sessions).insert(server, session.clone());
            emit.send(BackendEvent::Connected {
                server,
                summary: session.summary().clone(),
                tap: session.tap().clone(),
            });
            lister
                .list_until_settled(&session, server, epoch, label, timeouts, true)
                .await;
        });
    }

    /// Closes every session and waits (at most `grace`) until their servers have exited.
    pub async fn close_all(&self, grace: std::time::Duration) {
        // The apps first: each is asked to tear down while its server is still there.
        let apps: Vec<_> = lock(&self.apps)
            .drain()
            .map(|(_, app)| app.close())
            .collect();
        futures::future::join_all(apps).await;
        for epoch in lock(&self.epochs).values_mut() {
            *epoch += 1;
        }
        let sessions: Vec<Arc<Session>> = lock(&self.sessions).drain().map(|(_, s)| s).collect();
        let closing = sessions.iter().map(|session| session.close_and_wait(grace));
        futures::future::join_all(closing).await;
    }

    /// Reads a tool's MCP App resource and checks it as a host would (`tool` is the tool as
    /// listed, raw).
    pub fn check_app(&self, key: ToolKey, tool: Value, timeouts: Timeouts) {
        let session = lock(&self.sessions).get(&key.server).cloned();
        let emit = self.emitter();
        self.runtime.spawn(async move {
            let Some(session) = session else {
                emit.send(BackendEvent::AppChecked {
                    tool: key,
                    result: Err("the server is not connected".to_owned()),
                });
                return;
            };
            let Some(uri) = toolscope_core::interface::mcp_app::ui_resource_uri(&tool) else {
                emit.send(BackendEvent::AppChecked {
                    tool: key,
                    result: Err("the tool names no ui:// resource".to_owned()),
                });
                return;
            };
            let control = RequestControl::with_timeouts(timeouts);
            let read = match session.read_resource(&uri, &control).await {
                Ok(response) => toolscope_core::session::requests::resources::contents(&response)
                    .map_err(String::from),
                Err(error) => Err(error.to_string()),
            };
            // Its resources/list entry may carry the CSP instead; the list is optional.
            let listed = session
                .list_resources_page(&control)
                .await
                .ok()
                .and_then(|page| {
                    page.member()
                        .to_value()
                        .get("resources")?
                        .as_array()?
                        .iter()
                        .find(|entry| entry.get("uri").and_then(Value::as_str) == Some(&uri))
                        .cloned()
                });
            let capabilities = session.summary().capabilities.clone();
            let result = toolscope_core::interface::mcp_app::check(
                &tool,
                &capabilities,
                read.as_deref().map_err(String::as_str),
                listed.as_ref(),
            )
            .ok_or_else(|| "the tool names no ui:// resource".to_owned());
            emit.send(BackendEvent::AppChecked { tool: key, result });
        });
    }

    /// Reads `uri` from `server`, decodes its blobs and prepares its images, off the UI thread.
    pub fn read_resource(
        &self,
        server: ServerId,
        uri: String,
        timeouts: Timeouts,
        max_image_side: u32,
        generation: u64,
    ) {
        let session = lock(&self.sessions).get(&server).cloned();
        let emit = self.emitter();
        self.runtime.spawn(async move {
            let Some(session) = session else {
                emit.send(BackendEvent::ResourceRead {
                    generation,
                    result: Err("the server is not connected".to_owned()),
                });
                return;
            };
            let answer = session
                .read_resource(&uri, &RequestControl::with_timeouts(timeouts))
                .await;
            let result = match answer {
                Ok(response) => tokio::task::spawn_blocking(move || {
                    toolscope_core::session::requests::resources::contents(&response)
                        .map(|contents| {
                            contents
                                .into_iter()
                                .map(|content| super::ReadContent::prepare(content, max_image_side))
                                .collect()
                        })
                        .map_err(String::from)
                })
                .await
                .unwrap_or_else(|_| Err("reading the contents failed".to_owned())),
                Err(error) => Err(error.to_string()),
            };
            emit.send(BackendEvent::ResourceRead { generation, result });
        });
    }

    /// Offers other roots to a connected server (it is told they changed).
    pub fn set_roots(&self, server: ServerId, roots: Vec<toolscope_core::session::ClientRoot>) {
        let Some(session) = lock(&self.sessions).get(&server).cloned() else {
            return;
        };
        let emit = self.emitter();
        self.runtime.spawn(async move {
            if let Err(error) = session.set_roots(roots).await {
                emit.send(BackendEvent::Notice(format!(
                    "The server was not told that the roots changed: {error}"
                )));
            }
        });
    }

    pub fn disconnect(&self, server: ServerId) {
        if let Some(epoch) = lock(&self.epochs).get_mut(&server) {
            *epoch += 1;
        }
        if let Some((_, connecting)) = lock(&self.connecting).remove(&server) {
            connecting.cancel();
        }
        if let Some(session) = lock(&self.sessions).remove(&server) {
            // Closed the spec's way in the background; running requests end as closed.
            self.runtime.spawn(async move {
                session.close_and_wait(DISCONNECT_GRACE).await;
            });
        }
    }

    /// Lists a server's tools again; the new list is kept as its last interface (what changed
    /// within a connection is told by [`ToolChanges`], not as "since last time").
    pub fn refresh_tools(&self, server: ServerId, label: String, timeouts: Timeouts) {
        let Some(epoch) = lock(&self.epochs).get(&server).copied() else {
            return;
        };
        let _entered = self.runtime.enter();
        self.lister.request(server, epoch, label, timeouts);
    }

    /// Makes a result that left the screen small, off the UI thread: its response becomes
    /// text, and the parsed tree and what was drawn from it are freed there too.
    pub fn compact(&self, tool: ToolKey, record: Arc<CallRecord>) {
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let Ok(record) = Arc::try_unwrap(record) else {
                // Still shown somewhere: keep it whole.
                return;
            };
            let compact = Arc::new(CompactRecord::from_record(record));
            emit.send(BackendEvent::Compacted { tool, compact });
            free_memory::return_to_system();
        });
    }

    /// Frees a record in the background: dropping a big tree takes a while, and a deep one
    /// must not be dropped recursively.
    pub fn release(&self, record: Arc<CallRecord>) {
        self.runtime.spawn_blocking(move || {
            if let Ok(record) = Arc::try_unwrap(record) {
                drop(record);
                free_memory::return_to_system();
            }
        });
    }

    /// Reads other clients' configuration files off the UI thread (a file may sit on a slow
    /// disk or be big).
    pub fn look_for_servers(
        &self,
        files: Vec<toolscope_core::import::ConfigFile>,
        records: Option<toolscope_core::import::watch_through::WatchRecords>,
    ) {
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let (servers, unreadable) = toolscope_core::import::discover(&files);
            let watched = records
                .and_then(|records| records.load().ok())
                .unwrap_or_default();
            emit.send(BackendEvent::ServersFound {
                servers,
                unreadable,
                watched,
            });
        });
    }

    /// Drops `value` off the UI thread and hands the freed memory back: a comparison's two
    /// records, or a list of 100,000 history calls (~15 ms to free).
    /// Keeps `value` under `key` in the secret store, off the UI thread; a failure is said
    /// (`what` names the secret).
    pub fn keep_secret(&self, key: String, value: String, what: &'static str) {
        let secrets = self.secrets.clone();
        let notify = self.notifier();
        self.runtime.spawn_blocking(move || {
            let kept = secrets
                .ok_or_else(|| "this window keeps no secrets".to_owned())
                .and_then(|place| place.store_blocking().map_err(|error| error.to_string()))
                .and_then(|store| store.set(&key, &value).map_err(|error| error.to_string()));
            if let Err(problem) = kept {
                notify(format!("{what} was not kept for next time: {problem}"));
            }
        });
    }

    pub fn drop_in_background(&self, value: impl Send + 'static) {
        self.runtime.spawn_blocking(move || {
            drop(value);
            free_memory::return_to_system();
        });
    }

    /// Parses and analyses a compacted result again, off the UI thread.
    pub fn restore(&self, tool: ToolKey, compact: Arc<CompactRecord>, max_image_side: u32) {
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let record = Arc::new(compact.restore(max_image_side));
            emit.send(BackendEvent::Restored { tool, record });
        });
    }

    /// Makes a call from the history into a record the panes draw (parsed and analysed again,
    /// as the call first showed it), off the UI thread.
    pub fn show_history_call(
        &self,
        id: CallId,
        server: ServerId,
        call: toolscope_core::history::StoredCall,
        max_image_side: u32,
    ) {
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let entry = call.id;
            if call.kind != toolscope_core::history::CallKind::Call {
                let result = super::feature_record::FeatureRecord::from_history(
                    (id, server),
                    &call,
                    max_image_side,
                )
                .map(Arc::new);
                emit.send(BackendEvent::HistoryFeature { entry, result });
                return;
            }
            let result = history_record(id, server, call, max_image_side).map(Arc::new);
            emit.send(BackendEvent::HistoryRecord { entry, result });
        });
    }
}

#[derive(Clone)]
struct Emitter {
    sender: mpsc::Sender<BackendEvent>,
    waker: Waker,
}

impl Emitter {
    fn send(&self, event: BackendEvent) {
        // The window may be gone while a task finishes: nothing to tell then.
        if self.sender.send(event).is_ok() {
            (self.waker)();
        }
    }
}

/// The window's asker: each ask goes to the model as an event and waits there for the
/// person's answer; a question the window drops unanswered is refused.
struct PersonAsker {
    server: ServerId,
    emit: Emitter,
}

#[async_trait::async_trait]
impl toolscope_core::session::AnswerAsks for PersonAsker {
    async fn answer(
        &self,
        ask: toolscope_core::session::ServerAsk,
    ) -> toolscope_core::session::AskReply {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.emit.send(BackendEvent::Asked {
            server: self.server,
            ask,
            reply,
        });
        answer.await.unwrap_or_else(|_| {
            toolscope_core::session::AskReply::refused(
                toolscope_core::session::asks::REFUSED_CODE,
                "the question was closed in Toolscope without an answer",
            )
        })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A saved server's kept secret values, read from the store the window uses (none: its
/// values cannot be filled, said in words).
fn window_secrets(secrets: Option<toolscope_core::settings::SecretsPlace>) -> engine::OpenSecrets {
    Box::new(move || {
        secrets
            .ok_or_else(|| {
                SecretStoreError::Unavailable(
                    "its secret values are kept in a secret store this window does not use"
                        .to_owned(),
                )
            })
            .and_then(|place| place.store_blocking())
    })
}
