//! The application model: servers and their connections, tools and their calls, settings.
//! It knows nothing of egui. It changes only through [`Model::apply`] (what the user asks) and
//! [`Model::on_event`] (what the backend reports); a window or a test reads it between.

use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{Arc, mpsc},
    time::{Duration, Instant},
};

use serde_json::{Map, Value};

mod app_runs;
mod asks;
mod calls;
mod cases;
mod diagnosis;
mod features;
mod history;
mod import_found;
mod live;
mod load_runs;
pub mod resources;
mod restarts;
mod selection;
mod servers;
mod skills;
mod team_history;
pub use app_runs::AppAction;
pub use calls::CallAction;
pub use cases::{CaseAction, CaseSource};
pub use features::FeatureAction;
pub use history::HistoryAction;
pub use import_found::ImportAction;
pub use load_runs::LoadAction;
pub use resources::ResourceAction;
pub use selection::SelectionAction;
pub use servers::ServerAction;
pub use team_history::TeamHistoryChoice;

use super::{
    Action, Backend, BackendEvent, CallId, ServerId,
    case_book::CaseBook,
    history_browser::HistoryBrowser,
    server_state::{ConnectionStatus, ServerState},
    settings_writer::SettingsWriter,
    tool_run::{ToolKey, ToolRun},
};
use toolscope_core::{
    engine::CallPlan,
    history::HistoryWriter,
    session::{ServerConfig, Timeouts},
    settings::{SavedServer, Settings},
};

/// The texture side every GPU egui runs on supports, until the window says more.
const DEFAULT_MAX_IMAGE_SIDE: u32 = 2048;

/// The id of the built-in demo server, always first in the list.
pub const DEMO_SERVER: ServerId = 0;

/// The server of a history call made on a server the window does not have (no server has it).
pub const NO_SERVER: ServerId = ServerId::MAX;

/// How the model starts: the demo server's command and where settings live.
pub struct ModelOptions {
    pub demo: ServerConfig,
    /// `None` keeps settings in memory only (tests).
    pub settings_path: Option<PathBuf>,
    /// Connect the demo server at start, so a newcomer sees tools at once.
    pub connect_at_start: bool,
    /// The history (a file, or a team's database); `None` keeps it in memory only (tests).
    pub history: Option<toolscope_core::history::HistoryLocation>,
    /// Where each server's last interface is kept, to say what changed since; `None` keeps
    /// none (tests).
    pub interfaces_dir: Option<PathBuf>,
    /// Other clients' configuration files to offer servers from; `None` looks nowhere.
    pub import_files: Option<Vec<toolscope_core::import::ConfigFile>>,
    /// Where OAuth tokens are kept; `None`: servers that ask for a sign-in fail (tests).
    pub secrets: Option<toolscope_core::settings::SecretsPlace>,
}

/// A call on its way: which tool it belongs to (so late or cancelled results find their
/// place) and what it was sent with (so the history can record it however it ends).
struct PendingCall {
    tool: ToolKey,
    arguments: Value,
    /// How it was sent (the engine's plan): listed or not, its output schema, as a task.
    plan: CallPlan,
    started: Instant,
}

/// Every tool's durations over the history, and whether a newer answer is awaited.
#[derive(Debug, Default)]
struct LatencyFigures {
    figures: Vec<toolscope_core::history::ToolLatency>,
    /// A request is out; `stale`: the history changed since it was sent.
    asking: bool,
    stale: bool,
}

/// A recording browsed in place of the history.
#[derive(Debug, Clone)]
pub struct OpenRecording {
    pub path: PathBuf,
    /// How many calls it holds (`None`: still being read).
    pub calls: Option<u64>,
}

/// The history as the window knows it.
#[derive(Debug, Clone, Default)]
pub enum HistoryStatus {
    #[default]
    Opening,
    Open {
        location: toolscope_core::history::HistoryLocation,
        calls: u64,
        cap_bytes: u64,
    },
    /// It cannot be used; calls are not recorded in this session.
    Unavailable(String),
}

pub struct Model {
    backend: Backend,
    events: mpsc::Receiver<BackendEvent>,
    settings: Settings,
    settings_writer: Option<SettingsWriter>,
    /// A message at the top until dismissed (a broken settings file, a failed save…).
    banner: Option<String>,
    /// The file the banner says was written.
    written_file: Option<PathBuf>,
    servers: Vec<ServerState>,
    selected_server: ServerId,
    next_id: u64,
    calls: HashMap<CallId, PendingCall>,
    history: HistoryWriter,
    history_status: HistoryStatus,
    /// A recording opened in place of the history (its file and calls, once read).
    recording: Option<(HistoryWriter, OpenRecording)>,
    /// Bumped for each recording opened or closed: what an older one reports is dropped.
    recording_generation: u64,
    history_browser: HistoryBrowser,
    /// The sessions seen through `toolscope proxy` (the Live tab).
    live: super::LiveSessions,
    cases: CaseBook,
    comparison: super::ComparisonState,
    /// History calls being read whole, by tag, and what for.
    wanted: HashMap<u64, selection::Wanted>,
    runs: HashMap<ToolKey, ToolRun>,
    /// Bumped when a tool's definition changes or it leaves: views built on it start over.
    revisions: HashMap<ToolKey, u64>,
    /// The largest image side the screen can draw (the GPU's texture limit).
    max_image_side: u32,
    /// What servers asked and the person has not answered yet.
    asks: super::PendingAsks,
    /// A resource opened from a result, until closed.
    opened_resource: Option<super::OpenedResource>,
    /// Each tool's MCP App run from the window.
    app_runs: HashMap<ToolKey, super::app_run_view::AppRunView>,
    /// A server card's Diagnose, until closed.
    diagnosis: Option<super::server_diagnosis::ServerDiagnosis>,
    diagnosis_generation: u64,
    /// The Server tab's load run, until the next one or Close.
    load_run: Option<super::load_run::LoadRunView>,
    load_generation: u64,
    /// Each tool's last MCP App check.
    app_checks: HashMap<ToolKey, resources::AppCheckState>,
    resource_generation: u64,
    /// Other clients' servers, offered for import, and where to look for them.
    found_servers: super::found_servers::FoundServers,
    /// The entries of other clients watched through Toolscope, where they are remembered,
    /// and a change to one planned and waiting for the person's yes.
    watched: Vec<toolscope_core::import::watch_through::WatchRecord>,
    watch_records: Option<toolscope_core::import::watch_through::WatchRecords>,
    /// The history this window records into and reads (a watched client's entry names it).
    history_location: Option<toolscope_core::history::HistoryLocation>,
    /// The local file this window goes back to from a team's history (`None`: in memory).
    local_history: Option<toolscope_core::history::HistoryLocation>,
    watch_change: Option<super::backend::WatchChange>,
    import_files: Option<Vec<toolscope_core::import::ConfigFile>>,
    /// Text waiting to be put on the clipboard (the window takes it).
    clipboard: Option<String>,
    /// `${input:…}` values the user entered, by server and input id (kept for this run only).
    input_values: HashMap<(ServerId, String), String>,
    /// Every tool's p50, p95 and slowest over the history (refreshed as calls are kept).
    latency: LatencyFigures,
    /// The completion request each field waits on, cancelled when a newer one supersedes it.
    /// Reads made again on a subscribed resource's update, each with the read whose history
    /// row counts it (the first read of the chain), and that history row once recorded.
    repeats: super::repeated_reads::RepeatedReads,
    completion_cancels: HashMap<
        (ServerId, super::server_features::CompletionField),
        tokio_util::sync::CancellationToken,
    >,
}

impl Model {
    /// `waker` is called whenever an event is waiting (a window requests a repaint).
    pub fn new(
        runtime: tokio::runtime::Handle,
        waker: Arc<dyn Fn() + Send + Sync>,
        options: ModelOptions,
    ) -> Self {
        let (mut backend, events) = Backend::new(runtime, waker);
        backend.keep_interfaces(
            options
                .interfaces_dir
                .map(toolscope_core::interface::InterfaceStore::in_dir),
        );
        let secrets_kept = options.secrets.is_some();
        backend.keep_secrets(options.secrets.clone());
        // What watching through Toolscope remembers lives beside the history (a team's
        // history: in the data folder).
        let watch_records = options
            .history
            .as_ref()
            .and_then(|history| match history {
                toolscope_core::history::HistoryLocation::File(path) => {
                    path.parent().map(std::path::Path::to_owned)
                }
                toolscope_core::history::HistoryLocation::Postgres(_) => {
                    toolscope_core::history::data_dir()
                }
            })
            .map(|dir| toolscope_core::import::watch_through::WatchRecords::in_dir(&dir));
        let (settings, banner) = match &options.settings_path {
            Some(path) => Settings::load(path),
            None => (Settings::default(), None),
        };
        let history_location = options.history.clone();
        let local_history = match &options.history {
            Some(toolscope_core::history::HistoryLocation::Postgres(_)) => {
                toolscope_core::history::history_path()
                    .map(toolscope_core::history::HistoryLocation::File)
            }
            local => local.clone(),
        };
        let history = HistoryWriter::start(
            options.history,
            toolscope_core::history::RecordedBy::here(settings.person.as_deref()),
            backend.history_listener(),
        );
        let settings_writer = options
            .settings_path
            .map(|path| SettingsWriter::spawn(path, backend.notifier(), options.secrets));
        let mut model = Self {
            backend,
            events,
            settings,
            settings_writer,
            banner,
            written_file: None,
            servers: Vec::new(),
            selected_server: DEMO_SERVER,
            next_id: 1,
            calls: HashMap::new(),
            history,
            history_status: HistoryStatus::Opening,
            recording: None,
            recording_generation: 0,
            history_browser: HistoryBrowser::default(),
            live: super::LiveSessions::default(),
            cases: CaseBook::default(),
            comparison: super::ComparisonState::None,
            wanted: HashMap::new(),
            runs: HashMap::new(),
            revisions: HashMap::new(),
            max_image_side: DEFAULT_MAX_IMAGE_SIDE,
            asks: super::PendingAsks::default(),
            opened_resource: None,
            diagnosis: None,
            diagnosis_generation: 0,
            load_run: None,
            load_generation: 0,
            app_runs: HashMap::new(),
            app_checks: HashMap::new(),
            resource_generation: 0,
            found_servers: super::found_servers::FoundServers::NotLooked,
            watched: Vec::new(),
            watch_records,
            history_location,
            local_history,
            watch_change: None,
            import_files: options.import_files,
            clipboard: None,
            input_values: HashMap::new(),
            repeats: super::repeated_reads::RepeatedReads::default(),
            completion_cancels: HashMap::new(),
            latency: LatencyFigures::default(),
        };
        let demo = ServerState::new(
            DEMO_SERVER,
            toolscope_core::history::DEMO_SERVER_NAME.to_owned(),
            options.demo,
            true,
        );
        model.servers.push(demo);
        let mut at_start = vec![DEMO_SERVER];
        for saved in model.settings.servers.clone() {
            let id = model.fresh_id();
            let mut server = ServerState::new(id, saved.name, saved.config, false);
            server.connect_at_start = saved.connect_at_start;
            server.client = saved.client.clone();
            if saved.connect_at_start {
                at_start.push(id);
            }
            model.servers.push(server);
        }
        if options.connect_at_start {
            for id in at_start {
                model.apply(Action::Servers(ServerAction::Connect(id)));
            }
            model.selected_server = DEMO_SERVER;
        }
        model.apply(Action::Import(ImportAction::LookForServers));
        // Settings from before secrets moved to the keyring: saving them moves them.
        if secrets_kept
            && toolscope_core::settings::kept_secrets::any_in_the_clear(&model.settings.servers)
        {
            model.save_settings();
        }
        model
    }

    /// Text for the clipboard, once (the window puts it there).
    pub fn take_clipboard(&mut self) -> Option<String> {
        self.clipboard.take()
    }

    // ---- Reading ----

    /// Two results compared, when the window shows a comparison.
    pub fn comparison(&self) -> &super::ComparisonState {
        &self.comparison
    }

    /// The open case file and its cases' outcomes.
    pub fn case_book(&self) -> &CaseBook {
        &self.cases
    }

    pub fn history_browser(&self) -> &HistoryBrowser {
        &self.history_browser
    }

    pub fn servers(&self) -> &[ServerState] {
        &self.servers
    }

    pub fn server(&self, id: ServerId) -> Option<&ServerState> {
        self.servers.iter().find(|server| server.id == id)
    }

    pub fn selected_server_id(&self) -> ServerId {
        self.selected_server
    }

    pub fn selected_server(&self) -> Option<&ServerState> {
        self.server(self.selected_server)
    }

    /// The selected server's selected tool.
    pub fn selected_tool(&self) -> Option<(&ServerState, &toolscope_core::session::ToolEntry)> {
        let server = self.selected_server()?;
        Some((server, server.selected_tool_entry()?))
    }

    pub fn run(&self, tool: &ToolKey) -> Option<&ToolRun> {
        self.runs.get(tool)
    }

    /// Changes whenever the tool's definition changed or it left the list.
    pub fn tool_revision(&self, tool: &ToolKey) -> u64 {
        self.revisions.get(tool).copied().unwrap_or(0)
    }

    pub fn banner(&self) -> Option<&str> {
        self.banner.as_deref()
    }

    /// The window's layout, in usable ranges.
    /// The trace viewer's page pattern the settings name (`…{trace_id}`).
    pub fn trace_viewer(&self) -> Option<&str> {
        self.settings.telemetry.trace_viewer.as_deref()
    }

    pub fn layout(&self) -> toolscope_core::settings::Layout {
        self.settings.layout.sanitized()
    }

    /// The folder a file was last saved in or opened from, if any.
    pub fn last_folder(&self) -> Option<&std::path::Path> {
        self.settings.last_folder.as_deref()
    }

    pub fn timeout_seconds(&self) -> f64 {
        self.settings.timeout_seconds
    }

    pub fn timeouts(&self) -> Timeouts {
        let seconds = self.settings.timeout_seconds.clamp(1.0, 3600.0);
        Timeouts::with_request(Duration::from_secs_f64(seconds))
    }

    /// The arguments last sent to a tool (kept across restarts).
    pub fn remembered_arguments(&self, tool: &ToolKey) -> Option<&Map<String, Value>> {
        let server = self.server(tool.server)?;
        self.settings.remembered_arguments(&server.name, &tool.name)
    }

    /// Whether something is in flight that the screen shows as time passing.
    pub fn is_busy(&self) -> bool {
        self.runs.values().any(ToolRun::is_running)
            || self
                .servers
                .iter()
                .any(|server| matches!(server.status, ConnectionStatus::Connecting { .. }))
    }

    /// A way for background work (saving a file) to put a message in the banner.
    pub fn notifier(&self) -> impl Fn(String) + Send + Sync + 'static {
        self.backend.notifier()
    }

    /// Where background work says it wrote a file (the banner offers to open it).
    pub fn file_notifier(&self) -> impl Fn(String, PathBuf) + Send + Sync + 'static {
        self.backend.file_notifier()
    }

    /// The file the banner is about (just written), to open or show in its folder.
    pub fn written_file(&self) -> Option<&std::path::Path> {
        self.written_file.as_deref()
    }

    // ---- Changing ----

    /// Tells the model the largest texture the screen can draw; images are prepared to fit.
    pub fn set_max_image_side(&mut self, pixels: u32) {
        self.max_image_side = pixels;
    }

    /// Closes every session and waits (at most `grace`) for their servers to exit.
    pub async fn close_all(&mut self, grace: Duration) {
        for server in &mut self.servers {
            server.status = ConnectionStatus::Disconnected;
        }
        self.backend.close_all(grace).await;
    }

    /// Applies the pending backend events, for at most `budget`; returns whether some remain.
    pub fn drain_events(&mut self, budget: Duration) -> bool {
        let started = Instant::now();
        self.drop_withdrawn_asks();
        while let Ok(event) = self.events.try_recv() {
            self.on_event(event);
            if started.elapsed() > budget {
                return true;
            }
        }
        false
    }

    /// Carries out what the user asked for.
    pub fn apply(&mut self, action: Action) {
        match action {
            Action::Servers(action) => self.server_action(action),
            Action::Import(action) => self.import_action(action),
            Action::Calls(action) => self.call_action(action),
            Action::History(action) => self.history_action(action),
            Action::Resources(action) => self.resource_action(action),
            Action::Apps(action) => self.app_action(action),
            Action::Features(action) => self.feature_action(action),
            Action::Selection(action) => self.selection_action(action),
            Action::Cases(action) => self.case_action(action),
            Action::Load(action) => self.load_action(action),
            Action::AnswerAsk { id, reply } => self.answer_ask(id, reply),
            Action::SetTimeout(seconds) => {
                self.settings.timeout_seconds = seconds;
                self.save_settings();
            }
            Action::SetLayout(layout) => {
                let layout = layout.sanitized();
                if layout != self.settings.layout {
                    self.settings.layout = layout;
                    self.save_settings();
                }
            }
            Action::SetLastFolder(folder) => {
                if self.settings.last_folder.as_ref() != Some(&folder) {
                    self.settings.last_folder = Some(folder);
                    self.save_settings();
                }
            }
            Action::ShowBanner(message) => self.show_banner(message, None),
            Action::DismissBanner => self.show_banner(String::new(), None),
        }
    }

    /// Takes in one thing the backend reported, in the part of the model it is about.
    pub fn on_event(&mut self, event: BackendEvent) {
        match event {
            BackendEvent::Connected {
                server,
                summary,
                tap,
            } => self.connected(server, summary, tap),
            BackendEvent::ConnectFailed { server, message } => {
                self.connect_failed(server, message);
            }
            BackendEvent::SignInWaiting { server, page, tap } => {
                self.sign_in_waiting(server, page, tap);
            }
            BackendEvent::SignInEnded { server } => self.sign_in_ended(server),
            BackendEvent::Tools { server, result } => self.tools_listed(server, result),
            BackendEvent::Session { server, event } => self.session_event(server, event),
            BackendEvent::Feature { server, event } => self.feature_event(server, event),
            BackendEvent::SinceLastTime { server, note } => self.since_last_time(server, note),
            BackendEvent::FolderChanged { server, names } => self.folder_changed(server, names),
            BackendEvent::WatchFailed { server, problem } => self.watch_failed(server, problem),
            BackendEvent::SinceRestart { server, note } => self.since_restart(server, note),
            BackendEvent::ServersFound {
                servers,
                unreadable,
                watched,
            } => self.servers_found(servers, unreadable, watched),
            BackendEvent::WatchPlanned(planned) => self.watch_planned(planned),
            BackendEvent::WatchDone { result, watched } => self.watch_done(result, watched),
            BackendEvent::CallProgress { call, update } => self.call_progress(call, update),
            BackendEvent::CallTaskStatus { call, task } => self.call_task_status(call, task),
            BackendEvent::CallDone { call, result } => self.call_done(call, result),
            BackendEvent::Compacted { tool, compact } => self.compacted(&tool, compact),
            BackendEvent::Restored { tool, record } => self.restored(&tool, record),
            BackendEvent::Asked { server, ask, reply } => self.asked(server, ask, reply),
            BackendEvent::AppChecked { tool, result } => self.app_checked(tool, result),
            BackendEvent::App { tool, update } => self.app_update(tool, update),
            BackendEvent::Diagnosed {
                generation,
                diagnosis,
            } => self.diagnosed(generation, diagnosis),
            BackendEvent::Load { generation, event } => self.load_event(generation, event),
            BackendEvent::ResourceRead { generation, result } => {
                self.resource_read(generation, result);
            }
            BackendEvent::History(event) => self.history_event(event),
            BackendEvent::Recording { generation, event } => {
                if generation == self.recording_generation && self.recording.is_some() {
                    self.recording_event(event);
                }
            }
            BackendEvent::HistoryRecord { entry, result } => self.history_record(entry, result),
            BackendEvent::HistoryFeature { entry, result } => {
                let browser = &mut self.history_browser;
                if browser.selected == Some(entry) {
                    match result {
                        Ok(record) => browser.shown_feature = Some(record),
                        Err(problem) => browser.problem = Some(problem),
                    }
                }
            }
            BackendEvent::Cases { batch, event } => self.cases_event(batch, event),
            BackendEvent::Compared { tag, view } => self.compared(tag, view),
            BackendEvent::SessionsCompared { tag, result } => self.sessions_compared(tag, result),
            BackendEvent::CaseFileRead { path, result } => self.case_file_read(path, result),
            BackendEvent::CaseFileChanged { path } => {
                if self.cases.path.as_ref() == Some(&path) {
                    self.cases.changed_on_disk = true;
                }
            }
            BackendEvent::CaseSaved { path, result } => self.case_saved(path, result),
            BackendEvent::Notice(message) => self.show_banner(message, None),
            BackendEvent::Wrote { message, path } => self.show_banner(message, Some(path)),
            BackendEvent::CopyText { text, what } => {
                self.clipboard = Some(text);
                self.show_banner(format!("Copied {what}"), None);
            }
        }
    }

    // ---- Internals ----

    /// Shows `message` at the top (an empty one puts the banner away), about `file` when it
    /// says a file was written.
    pub(super) fn show_banner(&mut self, message: String, file: Option<PathBuf>) {
        self.banner = (!message.is_empty()).then_some(message);
        self.written_file = file.filter(|_| self.banner.is_some());
    }

    fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn server_mut(&mut self, id: ServerId) -> Option<&mut ServerState> {
        self.servers.iter_mut().find(|server| server.id == id)
    }

    /// Queues the settings for the writer; only the user's servers are saved.
    fn save_settings(&mut self) {
        self.settings.servers = self
            .servers
            .iter()
            .filter(|server| !server.builtin)
            .map(|server| SavedServer {
                name: server.name.clone(),
                config: server.config.clone(),
                connect_at_start: server.connect_at_start,
                client: server.client.clone(),
            })
            .collect();
        if let Some(writer) = &self.settings_writer {
            writer.save(self.settings.clone());
        }
    }
}
