//! The explorer window: a servers panel, a tools panel, the selected tool with its arguments,
//! and the result in two panes. Reads like a table of contents; the parts live beside it.

use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{Arc, mpsc},
    time::{Duration, Instant},
};

mod events;

use super::{
    actions::Action,
    argument_editor::ArgumentEditor,
    chaining::ChainingDialog,
    json_tree::JsonTreeState,
    logs_panel::{self, LogsTab},
    server_editor::ServerEditor,
    servers_panel,
    state::{CallState, ConnectionStatus, ServerView, ToolState},
    tool_view, tools_panel,
};
use crate::{
    session::{ServerConfig, Timeouts},
    workbench::{Backend, BackendEvent, CallId, CallRequest, SavedServer, ServerId, Settings},
};

/// How long one frame may spend applying backend events before it draws.
const EVENT_BUDGET: Duration = Duration::from_millis(10);
/// How many server log messages are kept per server.
const MAX_LOG_MESSAGES: usize = 1_000;

/// The id of the built-in demo server, always first in the list.
pub const DEMO_SERVER: ServerId = 0;

/// How the app is started: the demo server command and where settings live.
pub struct AppOptions {
    pub demo: ServerConfig,
    pub settings_path: Option<PathBuf>,
    /// Connect the demo server at start, so a newcomer sees tools at once.
    pub connect_demo: bool,
}

pub struct ToolscopeApp {
    backend: Backend,
    events: mpsc::Receiver<BackendEvent>,
    runtime: tokio::runtime::Handle,
    settings: Settings,
    settings_path: Option<PathBuf>,
    /// A message at the top until dismissed (a broken settings file, a failed save, a saved file).
    pub(super) banner: Option<String>,
    /// Messages from background work that is not a session (saving files and settings).
    notices: (mpsc::Sender<String>, mpsc::Receiver<String>),
    ctx: egui::Context,
    pub(super) servers: Vec<ServerView>,
    pub(super) selected_server: ServerId,
    next_id: u64,
    /// Which tool each running call belongs to, so late or cancelled results find their place.
    calls: HashMap<CallId, (ServerId, String)>,
    pub(super) tools: HashMap<(ServerId, String), ToolState>,
    server_editor: Option<ServerEditor>,
    chaining: Option<ChainingDialog>,
    pub(super) logs_tab: LogsTab,
    pub(super) logs_open: bool,
    pub(super) log_filter: String,
    pub(super) log_rows: logs_panel::LogRows,
    pub(super) markdown: egui_commonmark::CommonMarkCache,
    /// The share of the central area given to the tool and its arguments (the rest: the result).
    pub(super) tool_area_fraction: f32,
}

impl ToolscopeApp {
    pub fn new(ctx: &egui::Context, runtime: tokio::runtime::Handle, options: AppOptions) -> Self {
        let waker = {
            let ctx = ctx.clone();
            Arc::new(move || ctx.request_repaint())
        };
        let (backend, events) = Backend::new(runtime.clone(), waker);
        // A blinking text cursor repaints twice a second forever; on a software renderer that
        // alone costs a fifth of a core. A steady cursor keeps an idle window idle.
        ctx.all_styles_mut(|style| style.visuals.text_cursor.blink = false);
        let (settings, banner) = match &options.settings_path {
            Some(path) => Settings::load(path),
            None => (Settings::default(), None),
        };
        let mut app = Self {
            backend,
            events,
            runtime,
            settings_path: options.settings_path,
            banner,
            notices: mpsc::channel(),
            ctx: ctx.clone(),
            servers: Vec::new(),
            selected_server: 0,
            next_id: 1,
            calls: HashMap::new(),
            tools: HashMap::new(),
            server_editor: None,
            chaining: None,
            logs_tab: LogsTab::Protocol,
            logs_open: false,
            log_filter: String::new(),
            log_rows: logs_panel::LogRows::default(),
            markdown: egui_commonmark::CommonMarkCache::default(),
            tool_area_fraction: 0.5,
            settings: Settings::default(),
        };
        let demo = ServerView::new(DEMO_SERVER, "Built-in demo".to_owned(), options.demo, true);
        app.servers.push(demo);
        for saved in settings.servers.clone() {
            let id = app.fresh_id();
            app.servers
                .push(ServerView::new(id, saved.name, saved.config, false));
        }
        app.settings = settings;
        if options.connect_demo {
            app.apply(Action::Connect(DEMO_SERVER));
        }
        app
    }

    /// The JSON Pointer selected in a tool's result tree (for tests and automation).
    pub fn selected_pointer(&self, server: ServerId, tool: &str) -> Option<String> {
        self.tools
            .get(&(server, tool.to_owned()))?
            .tree
            .selected_pointer()
    }

    /// A server's protocol tap, once connected.
    pub fn tap(&self, server: ServerId) -> Option<crate::session::ProtocolTap> {
        self.server(server)?.tap.clone()
    }

    /// The arguments a tool's editor holds now.
    pub fn arguments(
        &self,
        server: ServerId,
        tool: &str,
    ) -> Option<serde_json::Map<String, serde_json::Value>> {
        Some(
            self.tools
                .get(&(server, tool.to_owned()))?
                .editor
                .arguments(),
        )
    }

    fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    pub(super) fn timeouts(&self) -> Timeouts {
        let seconds = self.settings.timeout_seconds.clamp(1.0, 3600.0);
        Timeouts::with_request(Duration::from_secs_f64(seconds))
    }

    pub(super) fn timeout_seconds(&self) -> f64 {
        self.settings.timeout_seconds
    }

    pub(super) fn server(&self, id: ServerId) -> Option<&ServerView> {
        self.servers.iter().find(|server| server.id == id)
    }

    fn server_mut(&mut self, id: ServerId) -> Option<&mut ServerView> {
        self.servers.iter_mut().find(|server| server.id == id)
    }

    /// The tool's state, created with its remembered arguments on first use.
    pub(super) fn tool_state(&mut self, server: ServerId, tool: &str) -> Option<&mut ToolState> {
        let key = (server, tool.to_owned());
        if !self.tools.contains_key(&key) {
            let view = self.server(server)?;
            let entry = view.catalog.as_ref()?.find(tool)?;
            let empty = serde_json::json!({"type": "object"});
            let mut editor = ArgumentEditor::new(entry.input_schema.as_ref().unwrap_or(&empty));
            if let Some(remembered) = self.settings.remembered_arguments(&view.name, tool) {
                editor.set_arguments(remembered);
            }
            self.tools.insert(
                key.clone(),
                ToolState {
                    editor,
                    call: CallState::Idle,
                    last_record: None,
                    tree: JsonTreeState::new(),
                    note: None,
                },
            );
        }
        self.tools.get_mut(&key)
    }

    /// Carries out what a panel asked for.
    pub(super) fn apply(&mut self, action: Action) {
        let timeouts = self.timeouts();
        match action {
            Action::SelectServer(id) => self.selected_server = id,
            Action::Connect(id) => {
                if let Some(view) = self.server_mut(id) {
                    view.status = ConnectionStatus::Connecting {
                        since: Instant::now(),
                    };
                    view.tools_error = None;
                    view.change_note = None;
                    let config = view.config.clone();
                    self.backend.connect(id, config, timeouts);
                }
                self.selected_server = id;
            }
            Action::Disconnect(id) => {
                self.backend.disconnect(id);
                if let Some(view) = self.server_mut(id) {
                    view.status = ConnectionStatus::Disconnected;
                }
            }
            Action::EditServer(id) => {
                let existing = id.and_then(|id| self.server(id));
                self.server_editor = Some(ServerEditor::new(
                    id,
                    existing.map(|s| (s.name.as_str(), &s.config)),
                ));
            }
            Action::RemoveServer(id) => {
                self.backend.disconnect(id);
                self.servers
                    .retain(|server| server.id != id || server.builtin);
                self.tools.retain(|(server, _), _| *server != id);
                if self.selected_server == id {
                    self.selected_server = 0;
                }
                self.save_settings();
            }
            Action::SaveServer { id, name, config } => self.save_server(id, name, config),
            Action::SelectTool(server, tool) => {
                if let Some(view) = self.server_mut(server) {
                    view.selected_tool = Some(tool);
                }
            }
            Action::RefreshTools(server) => self.backend.refresh_tools(server, timeouts),
            Action::Call(server, tool) => self.start_call(server, &tool),
            Action::Cancel(server, tool) => {
                if let Some(state) = self.tools.get_mut(&(server, tool))
                    && let CallState::Running { cancel, .. } = &state.call
                {
                    cancel.cancel();
                }
            }
            Action::StartChaining {
                server,
                from_tool,
                pointer,
                value,
            } => {
                let tools = self
                    .server(server)
                    .and_then(|view| view.catalog.clone())
                    .unwrap_or_default();
                self.chaining = Some(ChainingDialog::new(
                    server, from_tool, pointer, value, tools,
                ));
            }
            Action::CompleteChaining {
                server,
                to_tool,
                argument,
                value,
                from,
            } => {
                self.apply(Action::SelectTool(server, to_tool.clone()));
                if let Some(state) = self.tool_state(server, &to_tool) {
                    state.editor.set_argument(&argument, value);
                    state.note = Some(format!("`{argument}` was filled in from {from}"));
                }
            }
            Action::SaveMedia { bytes, file_name } => self.save_media(bytes, file_name),
            Action::SelectPointer {
                server,
                tool,
                pointer,
            } => {
                if let Some(state) = self.tools.get_mut(&(server, tool)) {
                    state.tree.select_pointer(&pointer);
                }
            }
            Action::SetTimeout(seconds) => {
                self.settings.timeout_seconds = seconds;
                self.save_settings();
            }
        }
    }

    fn save_server(&mut self, id: Option<ServerId>, name: String, config: ServerConfig) {
        match id.and_then(|id| self.server_mut(id)) {
            Some(view) => {
                view.name = name;
                view.config = config;
            }
            None => {
                let id = self.fresh_id();
                self.servers.push(ServerView::new(id, name, config, false));
                self.selected_server = id;
            }
        }
        self.save_settings();
    }

    fn start_call(&mut self, server: ServerId, tool: &str) {
        let timeouts = self.timeouts();
        let Some(view) = self.server(server) else {
            return;
        };
        let server_name = view.name.clone();
        let output_schema = view
            .catalog
            .as_ref()
            .and_then(|c| c.find(tool))
            .and_then(|t| t.output_schema.clone());
        let id = self.fresh_id();
        let Some(state) = self.tool_state(server, tool) else {
            return;
        };
        if let CallState::Running { cancel, .. } = &state.call {
            cancel.cancel();
        }
        let arguments = state.editor.arguments();
        state.note = None;
        let cancel = self.backend.call(CallRequest {
            id,
            server,
            tool: tool.to_owned(),
            arguments: arguments.clone(),
            output_schema,
            timeouts,
            max_image_side: u32::try_from(self.ctx.input(|i| i.max_texture_side))
                .unwrap_or(u32::MAX),
        });
        if let Some(state) = self.tool_state(server, tool) {
            state.call = CallState::Running {
                id,
                started: Instant::now(),
                progress: None,
                cancel,
            };
        }
        self.calls.insert(id, (server, tool.to_owned()));
        self.settings
            .remember_arguments(&server_name, tool, arguments);
        self.save_settings();
    }

    /// Asks where to save a media block, then writes it, all off the UI thread.
    fn save_media(&mut self, bytes: Arc<[u8]>, file_name: String) {
        let notify = self.notifier();
        self.runtime.spawn(async move {
            let Some(file) = rfd::AsyncFileDialog::new()
                .set_file_name(&file_name)
                .save_file()
                .await
            else {
                return;
            };
            let path = file.path().to_owned();
            match tokio::fs::write(&path, &bytes).await {
                Ok(()) => notify(format!("Saved {} bytes to {}", bytes.len(), path.display())),
                Err(error) => notify(format!("Could not save to {}: {error}", path.display())),
            }
        });
    }

    /// A way for background work to put a message in the banner.
    fn notifier(&self) -> impl Fn(String) + Send + 'static {
        let sender = self.notices.0.clone();
        let ctx = self.ctx.clone();
        move |message| {
            if sender.send(message).is_ok() {
                ctx.request_repaint();
            }
        }
    }

    /// Writes the settings off the UI thread; only the user's servers are saved.
    fn save_settings(&mut self) {
        self.settings.servers = self
            .servers
            .iter()
            .filter(|server| !server.builtin)
            .map(|server| SavedServer {
                name: server.name.clone(),
                config: server.config.clone(),
            })
            .collect();
        let Some(path) = self.settings_path.clone() else {
            return;
        };
        let settings = self.settings.clone();
        let notify = self.notifier();
        self.runtime.spawn_blocking(move || {
            if let Err(problem) = settings.save(&path) {
                notify(problem);
            }
        });
    }

    /// Whether something is in flight that the screen shows as time passing.
    fn is_busy(&self) -> bool {
        self.tools
            .values()
            .any(|state| matches!(state.call, CallState::Running { .. }))
            || self
                .servers
                .iter()
                .any(|server| matches!(server.status, ConnectionStatus::Connecting { .. }))
    }
}

impl eframe::App for ToolscopeApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.drain_events(ctx);
        while let Ok(notice) = self.notices.1.try_recv() {
            self.banner = Some(notice);
        }
        // Elapsed times tick while something runs; an idle window does not repaint at all.
        if self.is_busy() {
            ctx.request_repaint_after(Duration::from_millis(100));
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let mut actions = Vec::new();
        super::top_bar::ui(self, ui, &mut actions);
        if self.logs_open {
            logs_panel::ui(self, ui);
        }
        servers_panel::ui(self, ui, &mut actions);
        tools_panel::ui(self, ui, &mut actions);
        egui::CentralPanel::default().show(ui, |ui| tool_view::ui(self, ui, &mut actions));
        if let Some(editor) = &mut self.server_editor {
            let (keep_open, action) = editor.ui(ui.ctx());
            actions.extend(action);
            if !keep_open {
                self.server_editor = None;
            }
        }
        if let Some(dialog) = &mut self.chaining {
            let (keep_open, action) = dialog.ui(ui.ctx());
            actions.extend(action);
            if !keep_open {
                self.chaining = None;
            }
        }
        for action in actions {
            self.apply(action);
        }
    }
}
