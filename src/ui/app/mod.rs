//! The explorer window: a servers panel, a tools panel, the selected tool with its arguments,
//! and the result in two panes. The state that matters is the workbench's [`Model`]; the window
//! keeps only its view state, draws from both, and applies what the panels ask after layout.

use std::{sync::Arc, time::Duration};

mod file_flow;

use super::{
    actions::{Action, ViewChange},
    files::native::{NativeAnswer, NativeDialogs},
    layout_memory, logs_panel, presentation,
    sidebar::{self, SidebarTab},
    theme, tool_view, top_bar, tour,
    view_state::ViewState,
};
use crate::workbench::{self, Model, ModelOptions, ServerId};
use toolscope_core::session::ServerConfig;

pub use crate::workbench::DEMO_SERVER;

/// How long one frame may spend applying backend events before it draws.
const EVENT_BUDGET: Duration = Duration::from_millis(10);

/// How long servers get to exit when the window closes.
/// (Closing stdin, then SIGTERM, then SIGKILL, two seconds apart, fits.)
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// How the app is started: the demo server command and where settings live.
pub struct AppOptions {
    pub demo: ServerConfig,
    pub settings_path: Option<std::path::PathBuf>,
    /// Connect the demo server at start, so a newcomer sees tools at once.
    pub connect_at_start: bool,
    /// Start in presentation mode (`toolscope --present`).
    pub present: bool,
    /// Start the guided tour (`toolscope --tour`).
    pub tour: bool,
    /// Offer the tour when there were no settings yet (a first start).
    pub offer_tour_on_first_start: bool,
    /// The history (a file, or a team's database); `None` keeps it in memory (tests; it then
    /// holds every response).
    pub history: Option<toolscope_core::history::HistoryLocation>,
    /// Where each server's last interface is kept (`None`: nowhere, so no "since last time").
    pub interfaces_dir: Option<std::path::PathBuf>,
    /// Other clients' configuration files, whose servers are offered for import (`None`:
    /// none are looked for).
    pub import_files: Option<Vec<toolscope_core::import::ConfigFile>>,
    /// Where OAuth tokens are kept (`None`: servers that ask for a sign-in fail).
    pub secrets: Option<toolscope_core::settings::SecretsPlace>,
    /// Use the platform's file dialog where one answers (else always the window's own).
    pub native_file_dialogs: bool,
}

impl AppOptions {
    /// A window on `demo` that connects it at start, with no presentation mode, no tour and a
    /// history in memory (what tests and benchmarks want; the binary turns on what its flags
    /// ask for and keeps the history on disk).
    pub fn new(demo: ServerConfig, settings_path: Option<std::path::PathBuf>) -> Self {
        Self {
            demo,
            settings_path,
            connect_at_start: true,
            present: false,
            tour: false,
            offer_tour_on_first_start: false,
            history: None,
            interfaces_dir: None,
            import_files: None,
            secrets: None,
            native_file_dialogs: false,
        }
    }
}

pub struct ToolscopeApp {
    model: Model,
    view: ViewState,
    runtime: tokio::runtime::Handle,
    /// For work that finishes off the UI thread and must wake the window (a picked folder).
    ctx: egui::Context,
    /// Whether the platform's file dialog answers, and what it answered.
    native_dialogs: NativeDialogs,
    native_answers: Arc<std::sync::Mutex<Vec<NativeAnswer>>>,
}

impl ToolscopeApp {
    pub fn new(ctx: &egui::Context, runtime: tokio::runtime::Handle, options: AppOptions) -> Self {
        let waker = {
            let ctx = ctx.clone();
            Arc::new(move || ctx.request_repaint())
        };
        theme::install(ctx);
        let first_start = options
            .settings_path
            .as_ref()
            .is_some_and(|path| !path.exists());
        let model = Model::new(
            runtime.clone(),
            waker,
            ModelOptions {
                demo: options.demo,
                settings_path: options.settings_path,
                connect_at_start: options.connect_at_start,
                history: options.history,
                interfaces_dir: options.interfaces_dir,
                import_files: options.import_files,
                secrets: options.secrets,
            },
        );
        let mut view = ViewState {
            layout: model.layout(),
            ..Default::default()
        };
        layout_memory::restore(ctx, &view.layout, &mut view.stage);
        theme::apply_appearance(ctx, view.layout.appearance);
        if options.present {
            presentation::toggle(ctx, &mut view.layout, &mut view.stage);
        }
        if options.tour {
            view.stage.tour = Some(tour::Tour::default());
        } else if options.offer_tour_on_first_start && first_start {
            view.stage.tour_offered = true;
        }
        Self {
            model,
            view,
            runtime,
            ctx: ctx.clone(),
            native_dialogs: if options.native_file_dialogs {
                NativeDialogs::probe()
            } else {
                NativeDialogs::off()
            },
            native_answers: Arc::default(),
        }
    }

    /// The application model (for tests and automation).
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Carries out a model action as if a panel had asked (for tests, benchmarks, automation).
    pub fn act(&mut self, action: workbench::Action) {
        self.apply(Action::Model(action));
    }

    /// Where the result area and its two panes (content, structuredContent) were drawn in the
    /// last frame, if a result was (for tests and automation).
    pub fn result_layout(&self) -> Option<ResultLayout> {
        let panes = self.view.result.panes?;
        Some(ResultLayout {
            area: self.view.result.area?,
            content: panes.first,
            structured: panes.second,
            side_by_side: panes.arrangement == super::pane_split::Arrangement::SideBySide,
        })
    }

    /// What the guided tour outlined in the last frame, if it runs and outlined something.
    pub fn tour_outline(&self) -> Option<egui::Rect> {
        self.view.stage.tour.as_ref()?.outlined()
    }

    /// The request column's width as drawn in the last frame, in points (0 when folded).
    pub fn request_column_width(&self) -> f32 {
        self.view.request.drawn_width.unwrap_or(0.0)
    }

    /// The JSON Pointer selected in a tool's result tree (for tests and automation).
    pub fn selected_pointer(&self, server: ServerId, tool: &str) -> Option<String> {
        self.view
            .result
            .existing_tree(&workbench::ToolKey::new(server, tool))?
            .selected_pointer()
    }

    /// A server's protocol tap, once connected.
    pub fn tap(&self, server: ServerId) -> Option<toolscope_core::session::ProtocolTap> {
        self.model.server(server)?.tap.clone()
    }

    /// The arguments a tool's editor holds now.
    pub fn arguments(
        &self,
        server: ServerId,
        tool: &str,
    ) -> Option<serde_json::Map<String, serde_json::Value>> {
        Some(
            self.view
                .request
                .existing_editor(&workbench::ToolKey::new(server, tool))?
                .arguments(),
        )
    }

    /// Carries out what a panel asked for.
    fn apply(&mut self, action: Action) {
        match action {
            Action::Model(action) => {
                if let workbench::Action::Servers(workbench::ServerAction::Remove(id)) = &action {
                    self.view.forget_server(*id);
                }
                self.model.apply(action);
            }
            Action::Open(request) => {
                if let Some(action) = self.view.dialogs.open(&self.model, request) {
                    self.model.apply(action);
                }
            }
            Action::View(change) => self.change_view(change),
            Action::CallWithForm { tool, force } => {
                // A column that gave way to the panes was shown to fill in: the result now.
                self.view.request.shown_anyway = false;
                let Some(catalog) = self
                    .model
                    .server(tool.server)
                    .and_then(|server| server.catalog.clone())
                else {
                    return;
                };
                let Some(definition) = catalog.find(&tool.name) else {
                    return;
                };
                let arguments = self
                    .view
                    .request
                    .editor(&self.model, &tool, definition)
                    .arguments();
                self.model.apply(
                    workbench::CallAction::Call {
                        tool,
                        arguments,
                        force,
                    }
                    .into(),
                );
            }
            Action::CompleteChaining {
                to_tool,
                argument,
                value,
                from,
            } => self.complete_chaining(to_tool, &argument, value, &from),
            Action::ChooseFile(request) => self.choose_file(request),
            Action::FileChosen { purpose, path } => self.file_chosen(purpose, path),
            Action::SelectPointer { tool, pointer } => {
                // A violation clicked in a call shown from the history is about its tree.
                let from_history = match self.view.sidebar.tab {
                    SidebarTab::History | SidebarTab::Live => {
                        self.model.history_browser().selected.is_some()
                    }
                    SidebarTab::Cases => self.model.case_book().selected.is_some(),
                    _ => false,
                };
                self.view
                    .result
                    .tree_of(&tool, from_history)
                    .select_pointer(&pointer);
            }
            Action::EditHistoryCall { id } => self.edit_history_call(id),
        }
    }

    /// Changes the window's layout as a panel or shortcut asked.
    fn change_view(&mut self, change: ViewChange) {
        let view = &mut self.view;
        match change {
            ViewChange::ToggleSidebar => sidebar::toggle(&mut view.sidebar, &mut view.layout),
            ViewChange::ToggleLogs => view.logs.open = !view.logs.open,
            ViewChange::ShowServerLog => {
                view.logs.open = true;
                view.logs.tab = logs_panel::LogsTab::ServerLog;
            }
            ViewChange::ShowHistoryCall(id) => {
                view.sidebar.tab = SidebarTab::History;
                self.model
                    .apply(workbench::HistoryAction::Select(Some(id)).into());
            }
            ViewChange::TogglePresentation => {
                presentation::toggle(&self.ctx, &mut view.layout, &mut view.stage);
            }
            ViewChange::ToggleTour => {
                view.stage.tour = match view.stage.tour {
                    Some(_) => None,
                    None => Some(tour::Tour::default()),
                };
            }
            ViewChange::NextAppearance => {
                view.layout.appearance = view.layout.appearance.next();
                theme::apply_appearance(&self.ctx, view.layout.appearance);
            }
            ViewChange::FocusArguments(key) => view.request.focus_arguments_of = Some(key),
            ViewChange::OpenFile(path) => self.open_local(path.clone(), path),
            ViewChange::ShowInFolder(path) => {
                let folder = path
                    .parent()
                    .map_or(path.clone(), std::path::Path::to_owned);
                self.open_local(folder, path);
            }
        }
    }

    /// Opens a file or folder Toolscope wrote (`path`, for `file`), off the UI thread; a
    /// failure goes to the banner, which keeps the file (its path can still be copied).
    fn open_local(&self, path: std::path::PathBuf, file: std::path::PathBuf) {
        let notify = self.model.file_notifier();
        std::thread::spawn(move || {
            if let Err(error) = toolscope_core::auth::browser::open_local(&path) {
                notify(
                    format!(
                        "Could not open {}: {error}. The file is {}",
                        path.display(),
                        file.display()
                    ),
                    file,
                );
            }
        });
    }

    /// Goes to a history call's tool with its arguments in the form, ready to change and run.
    fn edit_history_call(&mut self, id: i64) {
        let Some(entry) = self
            .model
            .history_browser()
            .entry
            .clone()
            .filter(|entry| entry.id == id)
        else {
            return;
        };
        let target = self
            .model
            .servers()
            .iter()
            .find(|server| server.name == entry.server)
            .map(|server| workbench::ToolKey::new(server.id, entry.tool.clone()));
        let arguments = match toolscope_core::deep_json::parse(&entry.arguments) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let Some(editor) = target.as_ref().and_then(|key| self.go_to_tool(key)) else {
            self.model.apply(workbench::Action::ShowBanner(format!(
                "Call #{id} was made on \"{}\" with `{}`, which is not among your connected \
                 servers' tools: connect that server (the same name) to edit and run it",
                entry.server, entry.tool
            )));
            return;
        };
        editor.set_arguments(&arguments);
        self.view.request.focus_arguments_of = target;
    }

    /// Goes to a tool, the one way the window does (the model's `GoToTool`, then the Tools
    /// tab), and returns its form; `None` when its server does not list it.
    fn go_to_tool(
        &mut self,
        key: &workbench::ToolKey,
    ) -> Option<&mut crate::ui::argument_editor::ArgumentEditor> {
        let catalog = self.model.server(key.server)?.catalog.clone()?;
        let entry = catalog.find(&key.name)?;
        self.model
            .apply(workbench::CallAction::GoToTool(key.clone()).into());
        self.view.sidebar.tab = SidebarTab::Tools;
        Some(self.view.request.editor(&self.model, key, entry))
    }

    /// Selects the target tool and fills the argument in its form.
    fn complete_chaining(
        &mut self,
        to_tool: workbench::ToolKey,
        argument: &str,
        value: serde_json::Value,
        from: &str,
    ) {
        let Some(editor) = self.go_to_tool(&to_tool) else {
            return;
        };
        editor.set_argument(argument, value);
        self.model.apply(
            workbench::CallAction::SetNote {
                tool: to_tool,
                note: Some(format!("`{argument}` was filled in from {from}")),
            }
            .into(),
        );
    }
}

/// Where a result was drawn, in points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResultLayout {
    /// The result area: its header, the analysis and the panes.
    pub area: egui::Rect,
    pub content: egui::Rect,
    pub structured: egui::Rect,
    pub side_by_side: bool,
}

impl eframe::App for ToolscopeApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        let max_side = ctx.input(|input| input.max_texture_side);
        self.model
            .set_max_image_side(u32::try_from(max_side).unwrap_or(u32::MAX));
        if self.model.drain_events(EVENT_BUDGET) {
            ctx.request_repaint();
        }
        if let Some(text) = self.model.take_clipboard() {
            ctx.copy_text(text);
        }
        // Elapsed times tick while something runs; an idle window does not repaint at all.
        if self.model.is_busy() {
            ctx.request_repaint_after(Duration::from_millis(100));
        }
    }

    /// Closes every server (stdin closed, then SIGTERM, then SIGKILL) before the process ends.
    fn on_exit(&mut self) {
        self.runtime.block_on(self.model.close_all(EXIT_GRACE));
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let mut actions = self.take_native_answers();
        let (model, view) = (&self.model, &mut self.view);
        presentation::handle_shortcut(ui.ctx(), &mut view.layout, &mut view.stage);
        // On a fresh start, typing goes straight into the first tool's arguments (as after a
        // tool is picked), unless the tour drives the form.
        if !view.stage.first_tool_focused
            && let Some((server, tool)) = model.selected_tool()
        {
            view.stage.first_tool_focused = true;
            if view.stage.tour.is_none() {
                view.request.focus_arguments_of =
                    Some(workbench::ToolKey::new(server.id, tool.name.clone()));
            }
        }
        if view.result.trace_viewer.as_deref() != model.trace_viewer() {
            view.result.trace_viewer = model.trace_viewer().map(str::to_owned);
        }
        // Whatever draws the result this frame says where.
        view.result.area = None;
        view.result.panes = None;
        top_bar::ui(model, view, ui, &mut actions);
        top_bar::banner_ui(model, ui, &mut actions);
        if view.stage.tour_offered {
            tour_offer_ui(ui, &mut view.stage);
        }
        if view.logs.open {
            logs_panel::ui(model, &mut view.logs, ui);
        }
        sidebar::ui(model, &mut view.sidebar, &mut view.layout, ui, &mut actions);
        let area = tool_view::ToolArea {
            layout: &mut view.layout,
            request: &mut view.request,
            result: &mut view.result,
            sidebar_tab: view.sidebar.tab,
            dialog_open: view.dialogs.any_open(),
            features: &mut view.features,
        };
        egui::CentralPanel::default().show(ui, |ui| tool_view::ui(model, area, ui, &mut actions));
        view.dialogs.ui(model, ui.ctx(), &mut actions);
        layout_memory::persist(
            model,
            (&mut view.layout, &mut view.stage),
            ui.ctx(),
            &mut actions,
        );
        let parts = (&mut view.request, &mut view.result);
        tour::ui(model, &mut view.stage.tour, parts, ui.ctx(), &mut actions);
        for action in actions {
            self.apply(action);
        }
        let shown = self
            .model
            .selected_tool()
            .map(|(server, tool)| workbench::ToolKey::new(server.id, tool.name.clone()));
        self.view.result.release_hidden(shown.as_ref());
    }
}

/// On a first start: an invitation to the guided tour, in a strip along the bottom of the
/// window (it takes room from the panes, never covers them). Escape puts it away.
fn tour_offer_ui(ui: &mut egui::Ui, stage: &mut super::view_state::Stage) {
    if ui.input_mut(|input| input.consume_key(egui::Modifiers::NONE, egui::Key::Escape)) {
        stage.tour_offered = false;
        return;
    }
    egui::Panel::bottom("tour_offer").show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            ui.strong("Welcome to Toolscope");
            ui.label(
                "Every MCP tool result has two halves: the content a model reads and the \
                 structuredContent an application reads. Seven short steps on the built-in demo \
                 server show how they differ, and why.",
            );
            if ui.button("Take the tour").clicked() {
                stage.tour_offered = false;
                stage.tour = Some(tour::Tour::default());
            }
            if ui.button("Not now").on_hover_text("Escape").clicked() {
                stage.tour_offered = false;
            }
        });
    });
}
