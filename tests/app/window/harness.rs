//! The one way a window test opens its window ([`Window::setup`] and its shortcuts), and the
//! steps the tests take in it: click, type, wait for what the window shows.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use egui_kittest::{Harness, kittest::Queryable as _};
use toolscope::{
    ui::{AppOptions, ToolscopeApp},
    workbench::HistoryStatus,
};
use toolscope_core::{
    session::ServerConfig,
    settings::{SavedServer, Settings},
};

/// The real window on a kittest harness, with the runtime its sessions run on.
pub(super) struct Window {
    pub(super) harness: Harness<'static, ToolscopeApp>,
    // Keeps the sessions' tasks alive for as long as the window.
    pub(super) _runtime: tokio::runtime::Runtime,
    pub(super) _config: TempDir,
}

/// The window's settings folder, removed when the window is dropped.
pub(super) struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How a window opens: its settings folder, its size, its frames and its options. Made by
/// [`Window::setup`], opened by [`Setup::open`] or [`Setup::connected`].
pub(super) struct Setup {
    dir: PathBuf,
    options: AppOptions,
    size: egui::Vec2,
    zoom: f32,
    step_dt: f32,
    foreign_text: bool,
}

impl Window {
    /// A window named `name` (its settings in a fresh folder of its own, removed when the
    /// window is dropped), 1400×900 at zoom 1, a quarter second a frame, the built-in demo
    /// server connecting as it starts. Change any of these before [`Setup::open`].
    pub(super) fn setup(name: &str) -> Setup {
        let dir =
            std::env::temp_dir().join(format!("toolscope-window-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Setup::reopen(dir)
    }

    /// [`Window::setup`]'s window, opened: the demo server may still be connecting.
    pub(super) fn open(name: &str) -> Self {
        Self::setup(name).open()
    }

    /// [`Window::setup`]'s window, once the demo server is connected.
    pub(super) fn connected(name: &str) -> Self {
        Self::setup(name).connected()
    }

    /// A window on the official Python SDK peer (tests/peers/python), connected and selected;
    /// `None` when the peer is not installed.
    pub(super) fn on_python_peer(name: &str) -> Option<Self> {
        let root = crate::support::repo_root();
        let python = root.join("tests/peers/python/.venv/bin/python");
        if !crate::support::peer_available(&python, "the Python `mcp` peer") {
            return None;
        }
        let server = saved_stdio(
            "python peer",
            &python.display().to_string(),
            &[root
                .join("tests/peers/python/server.py")
                .display()
                .to_string()],
        );
        let mut window = Self::setup(name).servers(vec![server]).open();
        window.step_until("the Python peer to connect", |h| {
            has_text(h, "Connected: toolscope-python-peer")
        });
        window.harness.get_by_label("python peer").click();
        window.harness.run_ok();
        Some(window)
    }

    /// A window on server-everything (a saved server besides the demo), connected and selected;
    /// `None` when the npm peer is not installed.
    pub(super) fn on_everything(name: &str) -> Option<Self> {
        let entry = crate::support::everything_entry()?;
        let server = saved_stdio("everything", "node", &[entry.display().to_string()]);
        let mut window = Self::setup(name).servers(vec![server]).open();
        window.step_until("server-everything to connect", |h| {
            has_text(h, "Connected: mcp-servers/everything")
        });
        window.harness.get_by_label("everything").click();
        window.harness.run_ok();
        Some(window)
    }

    /// A window on tests/fixtures/wide_server.py (a 10,000-character tool name, a 9000×2
    /// image), connected and selected.
    pub(super) fn on_wide_server(name: &str) -> Self {
        let script = crate::support::repo_root().join("tests/fixtures/wide_server.py");
        let server = saved_stdio("wide", "python3", &[script.display().to_string()]);
        let mut window = Self::setup(name).servers(vec![server]).open();
        window.step_until("the wide server's tools", |h| {
            has_text(h, "Connected: wide")
        });
        window.harness.get_by_label("wide").click();
        window.harness.run_ok();
        window.step_until("its tools", |h| has_text(h, "2 tools"));
        window
    }

    /// The window's settings folder (settings.json is written there).
    pub(super) fn dir(&self) -> &Path {
        &self._config.0
    }
}

impl Setup {
    /// A window whose settings are in `dir` as they are (a window again on what the last one
    /// left there). Removed when the window is dropped.
    pub(super) fn reopen(dir: PathBuf) -> Self {
        let options = AppOptions::new(
            ServerConfig::Stdio {
                command: crate::support::binary().to_owned(),
                args: vec!["demo-server".to_owned()],
                env: Default::default(),
                cwd: None,
            },
            Some(dir.join("settings.json")),
        );
        Self {
            dir,
            options,
            size: egui::vec2(1400.0, 900.0),
            zoom: 1.0,
            step_dt: 0.25,
            foreign_text: false,
        }
    }

    /// The settings folder, for what a test puts there before the window opens.
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The window's size in physical pixels (in points it is `size / zoom`).
    pub(super) fn size(mut self, size: egui::Vec2) -> Self {
        self.size = size;
        self
    }

    /// Pixels per point: 1.5 is a projector's zoom.
    pub(super) fn zoom(mut self, zoom: f32) -> Self {
        self.zoom = zoom;
        self
    }

    /// Seconds of simulated time per frame (kittest feeds one input event per frame: a double
    /// click needs short frames).
    pub(super) fn step_dt(mut self, seconds: f32) -> Self {
        self.step_dt = seconds;
        self
    }

    /// Changes the window's options (another demo server, a history on disk, …).
    pub(super) fn options(mut self, adjust: impl FnOnce(&mut AppOptions)) -> Self {
        adjust(&mut self.options);
        self
    }

    /// Settings that hold `servers` besides the demo (each connects at start; the last one is
    /// selected). Third-party servers send emoji: characters no installed font has are drawn
    /// as boxes (the demo's own text must all render).
    pub(super) fn servers(mut self, servers: Vec<SavedServer>) -> Self {
        std::fs::create_dir_all(&self.dir).unwrap();
        let settings = Settings {
            servers,
            ..Settings::default()
        };
        std::fs::write(
            self.dir.join("settings.json"),
            serde_json::to_string(&settings).unwrap(),
        )
        .unwrap();
        self.foreign_text = true;
        self
    }

    /// Opens the window; the demo server may still be connecting.
    pub(super) fn open(self) -> Window {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let handle = runtime.handle().clone();
        let options = self.options;
        let mut builder = Harness::builder();
        if self.foreign_text {
            builder = builder.allow_missing_glyphs();
        }
        let harness = builder
            .with_size(self.size / self.zoom)
            .with_pixels_per_point(self.zoom)
            .with_step_dt(self.step_dt)
            .with_max_steps(20)
            .with_context_setup(|ctx| {
                toolscope::ui::fonts::install_system_fallback(ctx);
                egui_extras::install_image_loaders(ctx);
            })
            .wgpu()
            .build_eframe(move |cc| ToolscopeApp::new(&cc.egui_ctx, handle, options));
        Window {
            harness,
            _runtime: runtime,
            _config: TempDir(self.dir),
        }
    }

    /// Opens the window and waits for the demo server to connect.
    pub(super) fn connected(self) -> Window {
        let mut window = self.open();
        window.step_until("the demo server to connect", |h| {
            has_text(h, "Connected: toolscope-demo")
        });
        window
    }
}

/// A saved server run as `command args…`, connected at start.
pub(super) fn saved_stdio(name: &str, command: &str, args: &[String]) -> SavedServer {
    SavedServer {
        name: name.to_owned(),
        config: ServerConfig::Stdio {
            command: command.to_owned(),
            args: args.to_vec(),
            env: Default::default(),
            cwd: None,
        },
        connect_at_start: true,
        client: Default::default(),
    }
}

/// Whether some widget's label holds `text`.
pub(super) fn has_text(harness: &Harness<'static, ToolscopeApp>, text: &str) -> bool {
    harness.query_all_by_label_contains(text).next().is_some()
}

/// What a test does in the window once it is open.
impl Window {
    /// Picks a sidebar tab (its name is also elsewhere: the tabs are drawn after the servers,
    /// so the last match), clicking again until it is the one shown: a click lands where the
    /// tab was drawn, and a server connecting between frames can move it.
    pub(super) fn tab(&mut self, name: &str) {
        let shown = |harness: &Harness<'static, ToolscopeApp>| {
            harness.query_all_by_label(name).last().is_some_and(|tab| {
                use egui_kittest::kittest::NodeT as _;
                tab.accesskit_node().toggled() == Some(egui::accesskit::Toggled::True)
            })
        };
        for _ in 0..5 {
            self.harness
                .query_all_by_label(name)
                .last()
                .unwrap_or_else(|| panic!("no tab {name:?}"))
                .click();
            self.harness.run_ok();
            if shown(&self.harness) {
                return;
            }
        }
        panic!(
            "the {name} tab is not shown after five clicks{}",
            shown_labels(&self.harness)
        );
    }

    /// Clicks `label` until `done` holds (again while the button is still there: a click
    /// lands where the button was drawn, and the layout can move under a loaded machine).
    pub(super) fn click_until(
        &mut self,
        label: &str,
        what: &str,
        mut done: impl FnMut(&Harness<'static, ToolscopeApp>) -> bool,
    ) {
        for _ in 0..5 {
            if let Some(button) = self.harness.query_by_label(label) {
                button.click();
            }
            self.harness.run_ok();
            if done(&self.harness) {
                return;
            }
        }
        self.step_until(what, done);
    }

    /// Picks `item` in the menu `menu` (opened again if a click was lost or closed it).
    pub(super) fn menu_item(&mut self, menu: &str, item: &str) {
        self.click_until(menu, &format!("{item} in {menu}"), |h| {
            h.query_by_label(item).is_some()
        });
        self.click(item);
    }

    /// Clicks `label`, once it is drawn (a dialog may open a frame later on a loaded machine).
    pub(super) fn click(&mut self, label: &str) {
        if self.harness.query_by_label(label).is_none() {
            self.step_until(&format!("{label} to show"), |h| {
                h.query_by_label(label).is_some()
            });
        }
        self.harness.get_by_label(label).click();
        self.harness.run_ok();
    }

    /// Clicks the first widget whose label contains `text` (a row of a list or table).
    pub(super) fn click_containing(&mut self, text: &str) {
        self.harness
            .query_all_by_label_contains(text)
            .next()
            .unwrap_or_else(|| panic!("nothing labelled with {text:?}"))
            .click();
        self.harness.run_ok();
    }

    /// Steps frames (in real time: the server answers on its own schedule) until `done` holds.
    /// On a timeout it saves a screenshot of what the window showed, then fails.
    pub(super) fn step_until(
        &mut self,
        what: &str,
        mut done: impl FnMut(&Harness<'static, ToolscopeApp>) -> bool,
    ) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done(&self.harness) {
            if Instant::now() > deadline {
                let path = std::env::temp_dir()
                    .join(format!("toolscope-timeout-{}.png", what.replace(' ', "_")));
                if let Ok(image) = self.harness.render() {
                    let _ = image.save(&path);
                }
                panic!(
                    "timed out waiting for {what}; screenshot: {}{}",
                    path.display(),
                    shown_labels(&self.harness)
                );
            }
            self.harness.step();
            std::thread::sleep(Duration::from_millis(20));
        }
        self.harness.run_ok();
    }

    /// Finds the tool with the filter (the list shows only what fits) and clicks it.
    pub(super) fn select_tool(&mut self, name: &str) {
        self.step_until("the tool list", |h| has_text(h, " tools"));
        self.harness
            .get_by_label("Filter")
            .set_text_value_accesskit(name);
        self.harness.run_ok();
        self.step_until("the tool in the list", |h| {
            h.query_all_by_label(name).next().is_some()
        });
        // The tools panel is drawn before the tool's own heading.
        self.harness
            .query_all_by_label(name)
            .next()
            .unwrap()
            .click();
        self.harness.run_ok();
    }

    /// Picks one of the demo server's tools through the model, once it is listed (for a window
    /// whose sidebar is folded, as presenting folds it).
    pub(super) fn pick_demo_tool(&mut self, name: &str) {
        self.step_until("the demo server's tools", |h| {
            h.state()
                .model()
                .server(toolscope::ui::DEMO_SERVER)
                .is_some_and(|server| server.catalog.is_some())
        });
        let index = self
            .harness
            .state()
            .model()
            .server(toolscope::ui::DEMO_SERVER)
            .and_then(|server| server.catalog.as_ref())
            .and_then(|catalog| catalog.tools.iter().position(|tool| tool.name == name))
            .unwrap_or_else(|| panic!("the demo server lists {name}"));
        self.harness
            .state_mut()
            .act(toolscope::workbench::Action::Calls(
                toolscope::workbench::CallAction::SelectTool {
                    server: toolscope::ui::DEMO_SERVER,
                    index,
                },
            ));
        self.harness.run_ok();
    }

    /// Finds a tool listed by its title (the list shows titles) with the filter, and picks it.
    pub(super) fn select_tool_titled(&mut self, name: &str, title: &str) {
        self.harness
            .get_by_label("Filter")
            .set_text_value_accesskit(name);
        self.harness.run_ok();
        self.step_until("the tool in the list", |h| has_text(h, title));
        self.harness
            .query_all_by_label(title)
            .next()
            .unwrap()
            .click();
        self.harness.run_ok();
    }

    pub(super) fn type_into(&mut self, field: &str, text: &str) {
        self.harness.get_by_label(field).focus();
        self.harness.run_ok();
        self.harness.get_by_label(field).type_text(text);
        self.harness.run_ok();
    }

    /// Waits until the history holds `calls` calls.
    pub(super) fn until_recorded(&mut self, what: &str, calls: u64) {
        self.step_until(what, |h| {
            matches!(
                h.state().model().history_status(),
                HistoryStatus::Open { calls: held, .. } if *held == calls
            )
        });
    }

    /// The demo's `tool`'s latency from the history ("p50 6 ms · … over 1 call"), which comes a
    /// moment after the call is kept: a snapshot waits for it, or it races it.
    pub(super) fn until_latency_known(&mut self, tool: &str) {
        self.step_until("the tool's latency from the history", |h| {
            h.state()
                .model()
                .tool_latency(
                    toolscope_core::history::DEMO_SERVER_NAME,
                    toolscope_core::history::CallKind::Call,
                    tool,
                )
                .is_some()
        });
    }

    pub(super) fn call(&mut self) {
        self.harness.get_by_label("Call").click();
        self.harness.run_ok();
    }

    /// The History tab, once it lists call #`newest`.
    pub(super) fn open_history(&mut self, newest: u64) {
        self.harness.get_by_label("History").click();
        self.harness.run_ok();
        let mark = format!("Mark call #{newest}");
        self.step_until("the history list", |h| has_text(h, &mark));
    }

    /// Ticks (or unticks) a call in the history list.
    pub(super) fn mark(&mut self, id: u64) {
        self.harness
            .get_by_label(&format!("Mark call #{id}"))
            .click();
        self.harness.run_ok();
    }

    /// Types `folder` in the window's own file dialog and goes there (Enter).
    pub(super) fn go_to_folder(&mut self, folder: &Path) {
        self.harness
            .get_by_label("Folder")
            .set_text_value_accesskit(&folder.display().to_string());
        self.harness.run_ok();
        self.harness.get_by_label("Folder").focus();
        self.harness.key_press(egui::Key::Enter);
        self.harness.run_ok();
    }

    /// Hides what changes from run to run (durations) before an image snapshot.
    pub(super) fn mask_durations(&mut self) {
        let rects: Vec<egui::Rect> = self
            .harness
            .query_all_by_label_contains(" ms · protocol")
            // Wide enough for any duration, whatever this run's text width.
            .map(|node| {
                egui::Rect::from_min_size(node.rect().min, egui::vec2(420.0, node.rect().height()))
            })
            // The tool's latency from the history ("p50 6 ms · … over 1 call").
            .chain(
                self.harness
                    .query_all_by_label_contains(" ms over ")
                    // One line; to past the column's edge, whatever this run's figures' width.
                    .map(|node| {
                        egui::Rect::from_min_size(
                            node.rect().min,
                            egui::vec2(260.0, node.rect().height()),
                        )
                    }),
            )
            .collect();
        for rect in rects {
            self.harness.mask(rect);
        }
    }
}

/// What the window shows, as its widgets' labels (for a failure far from its screenshot: CI
/// keeps only the log).
fn shown_labels(harness: &Harness<'static, ToolscopeApp>) -> String {
    use egui_kittest::kittest::NodeT as _;
    let labels: Vec<String> = harness
        .root()
        .children_recursive()
        .filter_map(|node| node.accesskit_node().label())
        .filter(|label| !label.trim().is_empty())
        .take(80)
        .map(|label| label.chars().take(80).collect())
        .collect();
    format!("\nthe window showed: {}", labels.join(" | "))
}
