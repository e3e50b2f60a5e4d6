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

mod asks;
mod cases;
pub mod resources;
mod selection;
pub use cases::{CaseAction, CaseSource};
pub use selection::SelectionAction;

use super::{
    Action, Backend, BackendEvent, CallId, CallRecord, CallRequest, ServerId,
    backend::ToolListUpdate,
    call_failure::CallFailure,
    case_book::CaseBook,
    history_browser::HistoryBrowser,
    server_state::{ConnectionStatus, ServerState},
    settings_writer::SettingsWriter,
    tool_run::{CallState, Settling, ToolKey, ToolRun},
};
use crate::{
    analysis::ProtocolEra,
    engine::{self, CallEnd, CallPlan, CallRefused, CallWish, ServerView},
    history::{CalledServer, HistoryEvent, HistoryWriter},
    session::{ServerConfig, SessionEvent, Timeouts},
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
    /// The history database; `None` keeps the history in memory only (tests).
    pub history_path: Option<PathBuf>,
    /// Where each server's last interface is kept, to say what changed since; `None` keeps
    /// none (tests).
    pub interfaces_dir: Option<PathBuf>,
    /// Other clients' configuration files to offer servers from; `None` looks nowhere.
    pub import_files: Option<Vec<crate::import::ConfigFile>>,
    /// Where OAuth tokens are kept; `None`: servers that ask for a sign-in fail (tests).
    pub secrets: Option<crate::settings::SecretsPlace>,
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
        path: PathBuf,
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
    /// Each tool's last MCP App check.
    app_checks: HashMap<ToolKey, resources::AppCheckState>,
    resource_generation: u64,
    /// Other clients' servers, offered for import, and where to look for them.
    found_servers: super::found_servers::FoundServers,
    import_files: Option<Vec<crate::import::ConfigFile>>,
    /// Text waiting to be put on the clipboard (the window takes it).
    clipboard: Option<String>,
    /// `${input:…}` values the user entered, by server and input id (kept for this run only).
    input_values: HashMap<(ServerId, String), String>,
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
                .map(crate::interface::InterfaceStore::in_dir),
        );
        let secrets_kept = options.secrets.is_some();
        backend.keep_secrets(options.secrets.clone());
        let history = HistoryWriter::start(options.history_path, backend.history_listener());
        let (settings, banner) = match &options.settings_path {
            Some(path) => Settings::load(path),
            None => (Settings::default(), None),
        };
        let settings_writer = options
            .settings_path
            .map(|path| SettingsWriter::spawn(path, backend.notifier(), options.secrets));
        let mut model = Self {
            backend,
            events,
            settings,
            settings_writer,
            banner,
            servers: Vec::new(),
            selected_server: DEMO_SERVER,
            next_id: 1,
            calls: HashMap::new(),
            history,
            history_status: HistoryStatus::Opening,
            recording: None,
            recording_generation: 0,
            history_browser: HistoryBrowser::default(),
            cases: CaseBook::default(),
            comparison: super::ComparisonState::None,
            wanted: HashMap::new(),
            runs: HashMap::new(),
            revisions: HashMap::new(),
            max_image_side: DEFAULT_MAX_IMAGE_SIDE,
            asks: super::PendingAsks::default(),
            opened_resource: None,
            app_checks: HashMap::new(),
            resource_generation: 0,
            found_servers: super::found_servers::FoundServers::NotLooked,
            import_files: options.import_files,
            clipboard: None,
            input_values: HashMap::new(),
        };
        let demo = ServerState::new(
            DEMO_SERVER,
            crate::history::DEMO_SERVER_NAME.to_owned(),
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
                model.apply(Action::Connect(id));
            }
            model.selected_server = DEMO_SERVER;
        }
        model.apply(Action::LookForServers);
        // Settings from before secrets moved to the keyring: saving them moves them.
        if secrets_kept && crate::settings::kept_secrets::any_in_the_clear(&model.settings.servers)
        {
            model.save_settings();
        }
        model
    }

    /// Text for the clipboard, once (the window puts it there).
    pub fn take_clipboard(&mut self) -> Option<String> {
        self.clipboard.take()
    }

    /// Other clients' servers (found, being looked for, or not looked for).
    pub fn found_servers(&self) -> &super::found_servers::FoundServers {
        &self.found_servers
    }

    /// Whether a found server is saved here already (the same command or URL).
    pub fn is_imported(&self, found: &crate::import::FoundServer) -> bool {
        found.entry.as_ref().is_ok_and(|entry| {
            self.servers
                .iter()
                // Compared as a re-import compares: a secret kept in the keyring (a
                // reference in the saved settings) is not a difference.
                .any(|server| {
                    !server.builtin
                        && crate::import::config_changes(&server.config, &entry.config).is_empty()
                })
        })
    }

    /// The saved server a found one was imported as earlier (its name, or the name with the
    /// client's added), when the found one now differs from it: its id, name and the changes.
    pub fn earlier_import(
        &self,
        found: &crate::import::FoundServer,
    ) -> Option<(ServerId, &str, Vec<String>)> {
        let entry = found.entry.as_ref().ok()?;
        if self.is_imported(found) {
            return None;
        }
        let with_client = format!("{} ({}", found.name, found.client.name());
        self.servers
            .iter()
            .filter(|server| !server.builtin)
            .find(|server| server.name == found.name || server.name.starts_with(&with_client))
            .map(|server| {
                let changes = crate::import::config_changes(&server.config, &entry.config);
                (server.id, server.name.as_str(), changes)
            })
            .filter(|(_, _, changes)| !changes.is_empty())
    }

    /// How many found servers could be imported and are not saved yet.
    pub fn importable_count(&self) -> usize {
        self.found_servers
            .servers()
            .iter()
            .filter(|found| found.entry.is_ok() && !self.is_imported(found))
            .count()
    }

    /// Replaces the saved server a found one was imported as with what its client says now
    /// (its name, capabilities and whether it connects at start stay), and connects it.
    fn update_from_found(&mut self, index: usize) {
        let Some(found) = self.found_servers.servers().get(index) else {
            return;
        };
        let (Some((id, _, _)), Ok(entry)) = (self.earlier_import(found), &found.entry) else {
            return;
        };
        let mut config = entry.config.clone();
        let Some(saved) = self.server(id) else {
            return;
        };
        // A client id given in Toolscope is Toolscope's own setting: it stays.
        if let (
            ServerConfig::Http {
                oauth_client_id: kept,
                ..
            },
            ServerConfig::Http {
                oauth_client_id, ..
            },
        ) = (&saved.config, &mut config)
            && oauth_client_id.is_none()
        {
            oauth_client_id.clone_from(kept);
        }
        let (name, connect_at_start, client) = (
            saved.name.clone(),
            saved.connect_at_start,
            saved.client.clone(),
        );
        self.save_server(Some(id), name, config, connect_at_start, client);
    }

    fn import_found(&mut self, index: usize) {
        let Some(found) = self.found_servers.servers().get(index) else {
            return;
        };
        let Ok(entry) = &found.entry else {
            return;
        };
        let taken: Vec<&str> = self
            .servers
            .iter()
            .map(|server| server.name.as_str())
            .collect();
        let name = super::found_servers::unique_name(&found.name, found.client.name(), &taken);
        let config = entry.config.clone();
        self.save_server(
            None,
            name,
            config,
            true,
            crate::session::ClientSettings::default(),
        );
    }

    // ---- Reading ----

    /// The history: open (where, how many calls), or why it cannot be used.
    pub fn history_status(&self) -> &HistoryStatus {
        &self.history_status
    }

    /// The history as the window browses it.
    /// The recording browsed in place of the history, if one is open.
    pub fn open_recording(&self) -> Option<&OpenRecording> {
        self.recording.as_ref().map(|(_, open)| open)
    }

    /// Where the history browser reads: the open recording, else the history.
    fn browsed(&self) -> &HistoryWriter {
        self.recording
            .as_ref()
            .map_or(&self.history, |(writer, _)| writer)
    }

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
    pub fn selected_tool(&self) -> Option<(&ServerState, &crate::session::ToolEntry)> {
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
    pub fn layout(&self) -> crate::settings::Layout {
        self.settings.layout.sanitized()
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
            Action::SelectServer(id) => {
                self.selected_server = id;
                self.settle_results();
            }
            Action::Connect(id) => self.connect(id),
            Action::Disconnect(id) => {
                self.asks.drop_server(id);
                self.backend.disconnect(id);
                if let Some(server) = self.server_mut(id) {
                    server.status = ConnectionStatus::Disconnected;
                    server.sign_in = None;
                }
            }
            Action::RemoveServer(id) => self.remove_server(id),
            Action::OpenSignInPage(id) => {
                if let Some(page) = self.server(id).and_then(|server| server.sign_in.clone()) {
                    self.backend.open_page(page.page);
                }
            }
            Action::UpdateFromFound(index) => self.update_from_found(index),
            Action::GiveInputs { server, values } => {
                for (input, value) in values {
                    self.input_values.insert((server, input), value);
                }
                self.connect(server);
            }
            Action::CopyServerAs {
                name,
                config,
                client,
                include_secrets,
            } => self.backend.copy_as(name, config, client, include_secrets),
            Action::SignOut(id) => {
                if let Some(server) = self.server(id)
                    && let ServerConfig::Http { url, .. } = &server.config
                {
                    let (name, url) = (server.name.clone(), url.clone());
                    self.apply(Action::Disconnect(id));
                    self.backend.sign_out(name, url);
                }
            }
            Action::SaveServer {
                id,
                name,
                config,
                connect_at_start,
                client,
            } => self.save_server(id, name, config, connect_at_start, client),
            Action::AnswerAsk { id, reply } => self.answer_ask(id, reply),
            Action::OpenResource { server, uri } => self.open_resource(server, uri),
            Action::CloseResource => self.close_resource(),
            Action::CheckApp(tool) => self.check_app(tool),
            Action::LookForServers => {
                if let Some(files) = self.import_files.clone() {
                    self.found_servers = super::found_servers::FoundServers::Looking;
                    self.backend.look_for_servers(files);
                }
            }
            Action::ImportFound(index) => self.import_found(index),
            Action::SelectTool { server, index } => {
                if let Some(state) = self.server_mut(server) {
                    state.selected_tool = Some(index);
                }
                self.settle_results();
            }
            Action::RefreshTools(server) => self.refresh_tools(server),
            Action::Call {
                tool,
                arguments,
                force,
            } => self.start_call(tool, arguments, force),
            Action::Cancel(tool) => {
                if let Some(ToolRun {
                    call: CallState::Running { cancel, .. },
                    ..
                }) = self.runs.get(&tool)
                {
                    cancel.cancel();
                }
            }
            Action::SetToolNote { tool, note } => self.runs.entry(tool).or_default().note = note,
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
            Action::ShowBanner(message) => self.banner = Some(message),
            Action::DismissBanner => self.banner = None,
            Action::QueryHistory(query) => {
                self.history_browser.query = query;
                self.list_history();
            }
            Action::GoToTool(tool) => self.go_to_tool(&tool),
            Action::SelectHistoryCall(id) => {
                self.history_browser.clear_selection();
                self.history_browser.selected = id;
                if let Some(id) = id {
                    self.browsed().get(id);
                }
            }
            Action::SetHistoryNote { id, note } => {
                let browser = &mut self.history_browser;
                for call in browser.calls.iter_mut().chain(browser.entry.as_mut()) {
                    if call.id == id {
                        call.note.clone_from(&note);
                    }
                }
                self.browsed().set_note(id, note);
            }
            Action::RunHistoryCall { id, arguments } => self.run_history_call(id, arguments),
            Action::Cases(action) => self.case_action(action),
            Action::SetHistoryCap(bytes) => self.history.set_cap(bytes),
            Action::OpenRecording(path) => {
                self.recording_generation += 1;
                let listener = self.backend.recording_listener(self.recording_generation);
                let writer = HistoryWriter::start_recording(path.clone(), listener);
                self.recording = Some((writer, OpenRecording { path, calls: None }));
                self.switch_browsed();
            }
            Action::CloseRecording => {
                self.recording_generation += 1;
                self.recording = None;
                self.switch_browsed();
            }
            Action::Selection(action) => self.selection_action(action),
            Action::DismissSinceLastTime(id) => {
                if let Some(server) = self.server_mut(id) {
                    server.since_last_time = None;
                }
            }
        }
    }

    /// Takes in one thing the backend reported.
    pub fn on_event(&mut self, event: BackendEvent) {
        match event {
            BackendEvent::Connected {
                server,
                summary,
                tap,
            } => {
                let era = ProtocolEra::from_version(&summary.protocol_version);
                let Some(state) = self.server_mut(server) else {
                    return;
                };
                state.status = ConnectionStatus::Connected {
                    summary: Box::new(summary),
                };
                state.sign_in = None;
                state.tap = Some(tap);
                let name = state.name.clone();
                if self.settings.protocol_eras.get(&name) != Some(&era) {
                    self.settings.protocol_eras.insert(name, era);
                    self.save_settings();
                }
            }
            BackendEvent::ConnectFailed { server, message } => {
                self.asks.drop_server(server);
                if let Some(state) = self.server_mut(server) {
                    state.status = ConnectionStatus::Failed { message };
                    state.sign_in = None;
                }
            }
            // A connection's sign-in, or a later one (a token refused mid-session).
            BackendEvent::SignInWaiting { server, page, tap } => {
                if let Some(state) = self.server_mut(server) {
                    state.sign_in = Some(page);
                    if state.tap.is_none() || !state.is_connected() {
                        state.tap = Some(tap);
                    }
                }
            }
            BackendEvent::SignInEnded { server } => {
                if let Some(state) = self.server_mut(server) {
                    state.sign_in = None;
                }
            }
            BackendEvent::Tools { server, result } => match result {
                Ok(update) => self.tools_arrived(server, update),
                Err(message) => {
                    if let Some(state) = self.server_mut(server) {
                        state.tools_error = Some(message);
                    }
                }
            },
            BackendEvent::Session { server, event } => self.session_event(server, event),
            BackendEvent::ServersFound {
                servers,
                unreadable,
            } => {
                self.found_servers = super::found_servers::FoundServers::Found {
                    servers,
                    unreadable,
                };
            }
            BackendEvent::SinceLastTime { server, note } => {
                if let Some(state) = self.server_mut(server) {
                    state.since_last_time = Some(note);
                }
            }
            BackendEvent::CallProgress { call, update } => {
                if let Some(ToolRun {
                    call: CallState::Running { progress, .. },
                    ..
                }) = self.running_call(call)
                {
                    *progress = Some(update);
                }
            }
            BackendEvent::CallTaskStatus { call, task } => {
                if let Some(ToolRun {
                    call: CallState::Running { task: running, .. },
                    ..
                }) = self.running_call(call)
                {
                    *running = Some(task);
                }
            }
            BackendEvent::CallDone { call, result } => {
                self.record_in_history(call, &result);
                let Some(run) = self.running_call(call) else {
                    return;
                };
                let replaced = match result {
                    Ok(record) => {
                        // The old record is freed now, in the background (a big tree takes a
                        // while to free), not kept until the next frame draws.
                        let old = run.last_record.replace(record);
                        run.stored = None;
                        run.settling = None;
                        run.call = CallState::Done;
                        old
                    }
                    Err(failure) => {
                        run.call = CallState::Failed(failure);
                        None
                    }
                };
                if let Some(old) = replaced {
                    self.backend.release(old);
                }
                self.calls.remove(&call);
                // A result that arrives for a tool no longer shown is made small at once.
                self.settle_results();
            }
            BackendEvent::Notice(message) => self.banner = Some(message),
            BackendEvent::CopyText { text, what } => {
                self.clipboard = Some(text);
                self.banner = Some(format!("Copied {what}"));
            }
            BackendEvent::Asked { server, ask, reply } => self.asked(server, ask, reply),
            BackendEvent::AppChecked { tool, result } => self.app_checked(tool, result),
            BackendEvent::ResourceRead { generation, result } => {
                self.resource_read(generation, result);
            }
            BackendEvent::History(event) => self.history_event(event),
            BackendEvent::Recording { generation, event } => {
                if generation == self.recording_generation && self.recording.is_some() {
                    self.recording_event(event);
                }
            }
            BackendEvent::HistoryRecord { entry, result } => {
                let browser = &mut self.history_browser;
                if browser.selected == Some(entry) {
                    match result {
                        Ok(record) => browser.shown = Some(record),
                        Err(problem) => browser.problem = Some(problem),
                    }
                }
            }
            BackendEvent::Cases { batch, event } => self.cases_event(batch, event),
            BackendEvent::Compared { tag, view } => self.compared(tag, view),
            BackendEvent::CaseFileRead { path, result } => self.case_file_read(path, result),
            BackendEvent::CaseSaved { path, result } => self.case_saved(path, result),
            BackendEvent::Compacted { tool, compact } => {
                let Some(run) = self.runs.get_mut(&tool) else {
                    return;
                };
                if run.settling == Some(Settling::Compacting(compact.id()))
                    && run.last_record.is_none()
                {
                    run.stored = Some(compact);
                    run.settling = None;
                    // Shown again while it was being compacted: bring it back.
                    self.settle_results();
                }
            }
            BackendEvent::Restored { tool, record } => {
                let Some(run) = self.runs.get_mut(&tool) else {
                    return;
                };
                if run.settling == Some(Settling::Restoring(record.id)) && run.last_record.is_none()
                {
                    run.last_record = Some(record);
                    run.settling = None;
                    // Left again while it was being restored: make it small again.
                    self.settle_results();
                }
            }
        }
    }

    // ---- Internals ----

    /// The browser starts over on another source (the history or a recording).
    fn switch_browsed(&mut self) {
        self.history_browser.clear_selection();
        self.history_browser.marked.clear();
        self.history_browser.calls.clear();
        self.list_history();
    }

    fn recording_event(&mut self, event: HistoryEvent) {
        match event {
            HistoryEvent::Opened { calls, .. } => {
                if let Some((_, open)) = &mut self.recording {
                    open.calls = Some(calls);
                }
                self.list_history();
            }
            HistoryEvent::Failed(problem) => {
                self.recording = None;
                self.banner = Some(format!("The recording cannot be opened: {problem}"));
                self.switch_browsed();
            }
            other => self.history_event(other),
        }
    }

    fn list_history(&mut self) {
        let browser = &mut self.history_browser;
        browser.list_tag += 1;
        browser.loading = true;
        let request = browser.request();
        let tag = browser.list_tag;
        self.browsed().list(request, tag);
    }

    /// Calls a history call's tool again on the server it was made on (by its saved name).
    fn run_history_call(&mut self, id: i64, arguments: Option<Map<String, Value>>) {
        let Some(entry) = self
            .history_browser
            .entry
            .as_ref()
            .filter(|entry| entry.id == id)
        else {
            return;
        };
        let Some(server) = self
            .servers
            .iter()
            .find(|server| server.name == entry.server)
        else {
            self.banner = Some(format!(
                "Call #{id} was made on \"{}\", which is not one of your servers: add it (the \
                 same name) to run the call again",
                entry.server
            ));
            return;
        };
        let arguments =
            arguments.unwrap_or_else(|| match crate::deep_json::parse(&entry.arguments) {
                Ok(Value::Object(map)) => map,
                _ => Map::new(),
            });
        let tool = ToolKey::new(server.id, entry.tool.clone());
        self.go_to_tool(&tool);
        self.apply(Action::Call {
            tool,
            arguments,
            force: false,
        });
    }

    /// Selects `tool`'s server and, when the server lists it, the tool; a history call shown
    /// gives way to the live result.
    fn go_to_tool(&mut self, tool: &ToolKey) {
        let index = self.server(tool.server).and_then(|server| {
            server
                .catalog
                .as_ref()?
                .tools
                .iter()
                .position(|t| t.name == tool.name)
        });
        self.apply(Action::SelectHistoryCall(None));
        self.apply(Action::SelectServer(tool.server));
        if let Some(index) = index {
            self.apply(Action::SelectTool {
                server: tool.server,
                index,
            });
        }
    }

    /// Records a finished call (answered or not) in the history, off this thread.
    fn record_in_history(&mut self, call: CallId, result: &Result<Arc<CallRecord>, CallFailure>) {
        let Some(input) = self.calls.get(&call) else {
            return;
        };
        let tool = &input.tool;
        let Some(server) = self.server(tool.server) else {
            return;
        };
        let summary = match &server.status {
            ConnectionStatus::Connected { summary } => Some(&**summary),
            _ => None,
        };
        let called = CalledServer {
            label: &server.name,
            summary,
        };
        let failure = result.as_ref().err().map(ToString::to_string);
        let end = match (result, &failure) {
            (Ok(record), _) => CallEnd::Answered {
                outcome: &record.outcome,
                analysis: &record.analysis,
            },
            (Err(failed), Some(failure)) => CallEnd::NoAnswer {
                arguments: &input.arguments,
                waited: input.started.elapsed(),
                verdict: failed.verdict(),
                failure,
            },
            (Err(_), None) => return,
        };
        let entry = input.plan.history_row(called, end);
        self.history.record(entry, call);
    }

    fn history_event(&mut self, event: HistoryEvent) {
        match event {
            HistoryEvent::Opened {
                path,
                calls,
                cap_bytes,
            } => {
                self.history_status = HistoryStatus::Open {
                    path,
                    calls,
                    cap_bytes,
                };
            }
            HistoryEvent::Recorded { .. } => {
                if let HistoryStatus::Open { calls, .. } = &mut self.history_status {
                    *calls += 1;
                }
            }
            HistoryEvent::Listed { tag, calls } => {
                let browser = &mut self.history_browser;
                if tag == browser.list_tag {
                    let old = std::mem::replace(&mut browser.calls, calls);
                    browser.loading = false;
                    self.backend.drop_in_background(old);
                }
            }
            HistoryEvent::Loaded(call) => {
                if self.history_browser.selected == Some(call.id) {
                    let server = self
                        .servers
                        .iter()
                        .find(|server| server.name == call.server)
                        .map_or(NO_SERVER, |server| server.id);
                    let id = self.fresh_id();
                    let mut listed = (*call).clone();
                    listed.response = None;
                    self.history_browser.entry = Some(listed);
                    self.backend
                        .show_history_call(id, server, *call, self.max_image_side);
                }
            }
            HistoryEvent::Failed(message) => {
                if !matches!(self.history_status, HistoryStatus::Open { .. }) {
                    self.history_status = HistoryStatus::Unavailable(message.clone());
                }
                self.banner = Some(format!("History: {message}"));
            }
            HistoryEvent::NotLoaded { id, reason } => {
                if self.history_browser.selected == Some(id) {
                    self.history_browser.problem = Some(reason);
                }
            }
            HistoryEvent::NoteSaved { .. } => {}
            HistoryEvent::CapSet {
                cap_bytes: cap,
                calls: left,
            } => {
                if let HistoryStatus::Open {
                    calls, cap_bytes, ..
                } = &mut self.history_status
                {
                    *cap_bytes = cap;
                    *calls = left;
                }
            }
            HistoryEvent::LoadedMany { tag, calls } => self.loaded_many(tag, calls),
        }
    }

    fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn server_mut(&mut self, id: ServerId) -> Option<&mut ServerState> {
        self.servers.iter_mut().find(|server| server.id == id)
    }

    fn connect(&mut self, id: ServerId) {
        let timeouts = self.timeouts();
        let Some(index) = self.servers.iter().position(|server| server.id == id) else {
            return;
        };
        self.asks.drop_server(id);
        let server = &mut self.servers[index];
        server.sign_in = None;
        server.status = ConnectionStatus::Connecting {
            since: Instant::now(),
        };
        server.tools_error = None;
        server.change_note = None;
        server.since_last_time = None;
        let known_era = self.settings.protocol_eras.get(&server.name).copied();
        // An imported server may carry placeholders (`${TOKEN}`, `${input:key}`): filled from
        // the environment here, or the connection says which are missing.
        // `${input:…}` values the user gave in this window come after the environment's.
        let given = &self.input_values;
        let config = match engine::fill_placeholders(
            &server.config,
            std::env::current_dir().ok().as_deref(),
            |input| given.get(&(id, input.to_owned())).cloned(),
        ) {
            Ok(config) => {
                server.asked_inputs.clear();
                config
            }
            Err(missing) => {
                server.asked_inputs = missing.inputs();
                let ask = if server.asked_inputs.is_empty() {
                    ""
                } else {
                    " (the ${input:…} ones can be entered below)"
                };
                server.status = ConnectionStatus::Failed {
                    message: format!(
                        "{missing}. Set them in the environment Toolscope starts in, or edit the \
                         server{ask}"
                    ),
                };
                return;
            }
        };
        self.backend.connect(
            id,
            server.name.clone(),
            config,
            server.client.clone(),
            timeouts,
            known_era,
        );
        self.selected_server = id;
    }

    fn refresh_tools(&mut self, id: ServerId) {
        if let Some(server) = self.server(id) {
            let label = server.name.clone();
            self.backend.refresh_tools(id, label, self.timeouts());
        }
    }

    fn remove_server(&mut self, id: ServerId) {
        if self.server(id).is_none_or(|server| server.builtin) {
            return;
        }
        self.asks.drop_server(id);
        self.backend.forget(id);
        self.servers.retain(|server| server.id != id);
        self.runs.retain(|tool, _| tool.server != id);
        self.calls.retain(|_, call| call.tool.server != id);
        if self.selected_server == id {
            self.selected_server = DEMO_SERVER;
        }
        self.save_settings();
    }

    fn save_server(
        &mut self,
        id: Option<ServerId>,
        name: String,
        config: ServerConfig,
        connect_at_start: bool,
        client: crate::session::ClientSettings,
    ) {
        let mut announce_roots = None;
        let connect = match id.and_then(|id| self.server_mut(id)) {
            Some(server) if !server.builtin => {
                // Another command or URL may speak another era.
                let old_name = std::mem::replace(&mut server.name, name);
                // Other capabilities are declared only in a new connection; other roots are
                // announced to the live one (notifications/roots/list_changed).
                let changed = server.config != config || server.client.declared != client.declared;
                let roots_changed = server.client.roots != client.roots;
                server.config = config;
                server.connect_at_start = connect_at_start;
                server.client = client;
                // A server the user disconnected stays so; a live one picks up the change.
                let live = !matches!(server.status, ConnectionStatus::Disconnected);
                // A connection still being made would start with the old roots: make it again.
                let connecting = matches!(server.status, ConnectionStatus::Connecting { .. });
                let changed = changed || (roots_changed && connecting);
                let reconnect = (changed && live).then_some(server.id);
                if roots_changed && live && !changed {
                    announce_roots = Some((server.id, server.client.roots.clone()));
                }
                self.settings.protocol_eras.remove(&old_name);
                reconnect
            }
            Some(_) => return,
            None => {
                let id = self.fresh_id();
                let mut server = ServerState::new(id, name, config, false);
                server.connect_at_start = connect_at_start;
                server.client = client;
                self.servers.push(server);
                self.selected_server = id;
                Some(id)
            }
        };
        self.save_settings();
        if let Some((id, roots)) = announce_roots {
            self.backend.set_roots(id, roots);
        }
        if let Some(id) = connect {
            self.connect(id);
        }
    }

    /// Starts a call as the engine plans it: a tool whose `x-mcp-header` annotations are
    /// invalid is refused unless forced, and one that can run as a task does (its statuses are
    /// the interesting part; the rule is the command line's with `--task` always on).
    fn start_call(&mut self, tool: ToolKey, arguments: Map<String, Value>, force: bool) {
        let timeouts = self.timeouts();
        let Some(server) = self.server(tool.server) else {
            return;
        };
        let server_name = server.name.clone();
        let catalog = server.catalog.as_deref();
        let view = match &server.status {
            ConnectionStatus::Connected { summary } => {
                ServerView::new(summary, server.client.declared.tasks, catalog)
            }
            // Not connected: the backend says so; nothing is sent.
            _ => ServerView {
                catalog,
                modern_era: false,
                tasks_declared: false,
            },
        };
        let wish = CallWish {
            force,
            prefer_task: true,
        };
        let plan = match engine::plan(view, &tool.name, wish) {
            Ok(plan) => plan,
            Err(CallRefused::InvalidHeaders { reason, .. }) => {
                let run = self.runs.entry(tool).or_default();
                if !run.is_running() {
                    run.call = CallState::Failed(CallFailure::Excluded { reason });
                }
                return;
            }
        };
        let id = self.fresh_id();
        let run = self.runs.entry(tool.clone()).or_default();
        if let CallState::Running { cancel, .. } = &run.call {
            cancel.cancel();
        }
        run.note = None;
        let cancel = self.backend.call(CallRequest {
            id,
            server: tool.server,
            plan: plan.clone(),
            arguments: arguments.clone(),
            timeouts,
            max_image_side: self.max_image_side,
        });
        run.call = CallState::Running {
            id,
            started: Instant::now(),
            progress: None,
            task: None,
            cancel,
        };
        self.settings
            .remember_arguments(&server_name, &tool.name, arguments.clone());
        self.calls.insert(
            id,
            PendingCall {
                tool,
                arguments: Value::Object(arguments),
                plan,
                started: Instant::now(),
            },
        );
        self.save_settings();
    }

    /// The tool on screen: its result is kept whole, every other tool's is made small (its
    /// response as text), so memory does not grow with each tool called.
    fn settle_results(&mut self) {
        let shown = self
            .selected_tool()
            .map(|(server, tool)| ToolKey::new(server.id, tool.name.clone()));
        for (key, run) in &mut self.runs {
            if run.settling.is_some() {
                continue;
            }
            if Some(key) == shown.as_ref() {
                if run.last_record.is_none()
                    && let Some(stored) = &run.stored
                {
                    run.settling = Some(Settling::Restoring(stored.id()));
                    self.backend
                        .restore(key.clone(), stored.clone(), self.max_image_side);
                }
            } else if let Some(record) = run.last_record.take() {
                if run
                    .stored
                    .as_ref()
                    .is_some_and(|stored| stored.id() == record.id)
                {
                    // Restored before: the small form is still there.
                    self.backend.release(record);
                } else {
                    run.settling = Some(Settling::Compacting(record.id));
                    run.stored = None;
                    self.backend.compact(key.clone(), record);
                }
            }
        }
    }

    /// The run of a call still wanted; a call replaced or cancelled is dropped by id.
    fn running_call(&mut self, call: CallId) -> Option<&mut ToolRun> {
        let tool = &self.calls.get(&call)?.tool;
        let run = self.runs.get_mut(tool)?;
        match &run.call {
            CallState::Running { id, .. } if *id == call => Some(run),
            _ => None,
        }
    }

    fn tools_arrived(&mut self, server: ServerId, update: ToolListUpdate) {
        let ToolListUpdate { catalog, changes } = update;
        let Some(state) = self.server_mut(server) else {
            return;
        };
        // A refresh that changed nothing (servers often notify twice) keeps the note of the
        // last real change.
        if let Some(note) = changes.as_ref().and_then(|changes| changes.describe()) {
            state.change_note = Some(note);
        }
        let selected_name = state.selected_tool_entry().map(|tool| tool.name.clone());
        let keep = state.selected_tool.and_then(|index| {
            let tool = catalog.tools.get(index)?;
            (Some(&tool.name) == selected_name.as_ref()).then_some(index)
        });
        state.selected_tool = keep
            .or_else(|| {
                let name = selected_name.as_ref()?;
                catalog.tools.iter().position(|tool| &tool.name == name)
            })
            .or_else(|| catalog.tools.iter().position(|tool| tool.name == "add"))
            .or((!catalog.tools.is_empty()).then_some(0));
        state.catalog = Some(catalog);
        state.tools_error = None;
        // State built on a definition that changed (or a tool that left) starts over; the
        // others keep their arguments and last result.
        let Some(changes) = changes else {
            return;
        };
        let stale: Vec<ToolKey> = self
            .runs
            .iter()
            .filter(|(tool, run)| {
                tool.server == server && !run.is_running() && changes.affects(&tool.name)
            })
            .map(|(tool, _)| tool.clone())
            .collect();
        for tool in stale {
            self.runs.remove(&tool);
        }
        for name in changes.changed.iter().chain(&changes.removed) {
            *self
                .revisions
                .entry(ToolKey::new(server, name.clone()))
                .or_default() += 1;
        }
    }

    fn session_event(&mut self, server: ServerId, event: SessionEvent) {
        match event {
            SessionEvent::ToolListChanged => self.refresh_tools(server),
            SessionEvent::Log {
                level,
                logger,
                data,
            } => {
                let line = crate::session::events::log_line(&level, logger.as_deref(), &data);
                crate::deep_json::drop_value(data);
                if let Some(state) = self.server_mut(server) {
                    state.push_log(line);
                }
            }
            SessionEvent::Closed { reason } => {
                // Nobody will take the answers: the questions go (and their calls fail).
                self.asks.drop_server(server);
                if let Some(state) = self.server_mut(server)
                    && state.is_connected()
                {
                    state.status = ConnectionStatus::Closed { reason };
                }
            }
            SessionEvent::Answered(exchange) => {
                let line = format!(
                    "[client] the server {}; answered: {}",
                    exchange.ask.summary(),
                    exchange.reply.summary()
                );
                if let Some(state) = self.server_mut(server) {
                    state.push_log(line);
                }
            }
            SessionEvent::ElicitationComplete { elicitation_id } => {
                if let Some(state) = self.server_mut(server) {
                    state.push_log(format!(
                        "[client] the server says the URL elicitation {elicitation_id:?} is complete"
                    ));
                }
            }
            SessionEvent::Progress { .. } | SessionEvent::OtherListChanged { .. } => {}
        }
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
