//! The real window (egui_kittest) against the real demo server: the main path a person takes,
//! the broken contract, cancel, and chaining. A few image snapshots of the main screens.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::{Harness, SnapshotResults, kittest::Queryable as _};
use toolscope::{
    ui::{AppOptions, DEMO_SERVER, ToolscopeApp},
    workbench::{HistoryStatus, ServerAction},
};
use toolscope_core::{
    session::ServerConfig,
    settings::{SavedServer, Settings},
};

mod live;
mod restart;
mod server_features;

struct Window {
    harness: Harness<'static, ToolscopeApp>,
    // Keeps the sessions' tasks alive for as long as the window.
    _runtime: tokio::runtime::Runtime,
    _config: TempDir,
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn open_window(name: &str) -> Window {
    let dir = std::env::temp_dir().join(format!("toolscope-window-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    open_window_in(dir)
}

/// A window whose settings live in `dir` (removed when the window is dropped).
fn open_window_in(dir: std::path::PathBuf) -> Window {
    open_window_sized(dir, egui::vec2(1400.0, 900.0), 1.0)
}

/// A window of `size` physical pixels shown at `zoom` (its size in points is `size / zoom`).
fn open_window_sized(dir: std::path::PathBuf, size: egui::Vec2, zoom: f32) -> Window {
    open_window_stepped(dir, size, zoom, 0.25)
}

/// Like [`open_window_sized`], with `step_dt` seconds of simulated time per frame (kittest
/// feeds one input event per frame: a double click needs short frames).
fn open_window_stepped(
    dir: std::path::PathBuf,
    size: egui::Vec2,
    zoom: f32,
    step_dt: f32,
) -> Window {
    open_window_with(dir, size, zoom, step_dt, |_| {})
}

/// A window with `adjust` applied to its options.
fn open_window_with(
    dir: std::path::PathBuf,
    size: egui::Vec2,
    zoom: f32,
    step_dt: f32,
    adjust: impl FnOnce(&mut AppOptions),
) -> Window {
    open_window_glyphs(dir, size, zoom, step_dt, adjust, false)
}

/// The window of [`open_window_with`]; `foreign_text` lets characters no installed font has
/// be drawn as boxes (third-party servers send emoji; the demo's text must all render).
fn open_window_glyphs(
    dir: std::path::PathBuf,
    size: egui::Vec2,
    zoom: f32,
    step_dt: f32,
    adjust: impl FnOnce(&mut AppOptions),
    foreign_text: bool,
) -> Window {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let options = AppOptions::new(
        ServerConfig::Stdio {
            command: crate::support::binary().to_owned(),
            args: vec!["demo-server".to_owned()],
            env: Default::default(),
            cwd: None,
        },
        Some(dir.join("settings.json")),
    );
    let mut options = options;
    adjust(&mut options);
    let handle = runtime.handle().clone();
    let mut builder = Harness::builder();
    if foreign_text {
        builder = builder.allow_missing_glyphs();
    }
    let harness = builder
        .with_size(size / zoom)
        .with_pixels_per_point(zoom)
        .with_step_dt(step_dt)
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
        _config: TempDir(dir),
    }
}

impl Window {
    /// Goes to a sidebar tab (its name is also elsewhere: the tabs are drawn after the
    /// servers, so the last match).
    fn tab(&mut self, name: &str) {
        self.harness
            .query_all_by_label(name)
            .last()
            .unwrap()
            .click();
        self.harness.run_ok();
    }

    fn click(&mut self, label: &str) {
        self.harness.get_by_label(label).click();
        self.harness.run_ok();
    }

    /// Clicks the first widget whose label contains `text` (a row of a list or table).
    fn click_containing(&mut self, text: &str) {
        self.harness
            .query_all_by_label_contains(text)
            .next()
            .unwrap_or_else(|| panic!("nothing labelled with {text:?}"))
            .click();
        self.harness.run_ok();
    }

    /// Steps frames (in real time: the server answers on its own schedule) until `done` holds.
    /// On a timeout it saves a screenshot of what the window showed, then fails.
    fn step_until(
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
                    "timed out waiting for {what}; screenshot: {}",
                    path.display()
                );
            }
            self.harness.step();
            std::thread::sleep(Duration::from_millis(20));
        }
        self.harness.run_ok();
    }

    /// Finds the tool with the filter (the list shows only what fits) and clicks it.
    fn select_tool(&mut self, name: &str) {
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

    /// Finds a tool listed by its title (the list shows titles) with the filter, and picks it.
    fn select_tool_titled(&mut self, name: &str, title: &str) {
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

    /// On the demo's `add`: 4 typed into a, Tab, 5 typed into b, from the keyboard.
    fn type_4_tab_5_into_add(&mut self) {
        self.step_until("the demo server to connect", |h| {
            has_text(h, "Connected: toolscope-demo")
        });
        self.select_tool("add");
        self.harness.get_by_label("a").focus();
        self.harness.run_ok();
        self.harness.event(egui::Event::Text("4".to_owned()));
        self.harness.key_press(egui::Key::Tab);
        self.harness.run_ok();
        assert!(
            self.harness.get_by_label("b").is_focused(),
            "Tab moves from a to b"
        );
        self.harness.event(egui::Event::Text("5".to_owned()));
        self.harness.run_ok();
    }

    fn type_into(&mut self, field: &str, text: &str) {
        self.harness.get_by_label(field).focus();
        self.harness.run_ok();
        self.harness.get_by_label(field).type_text(text);
        self.harness.run_ok();
    }

    /// Waits until the history holds `calls` calls.
    fn until_recorded(&mut self, what: &str, calls: u64) {
        self.step_until(what, |h| {
            matches!(
                h.state().model().history_status(),
                HistoryStatus::Open { calls: held, .. } if *held == calls
            )
        });
    }

    fn call(&mut self) {
        self.harness.get_by_label("Call").click();
        self.harness.run_ok();
    }

    /// The History tab, once it lists call #`newest`.
    fn open_history(&mut self, newest: u64) {
        self.harness.get_by_label("History").click();
        self.harness.run_ok();
        let mark = format!("Mark call #{newest}");
        self.step_until("the history list", |h| has_text(h, &mark));
    }

    /// Ticks (or unticks) a call in the history list.
    fn mark(&mut self, id: u64) {
        self.harness
            .get_by_label(&format!("Mark call #{id}"))
            .click();
        self.harness.run_ok();
    }

    /// Types `folder` in the window's own file dialog and goes there (Enter).
    fn go_to_folder(&mut self, folder: &std::path::Path) {
        self.harness
            .get_by_label("Folder")
            .set_text_value_accesskit(&folder.display().to_string());
        self.harness.run_ok();
        self.harness.get_by_label("Folder").focus();
        self.harness.key_press(egui::Key::Enter);
        self.harness.run_ok();
    }

    /// Hides what changes from run to run (durations) before an image snapshot.
    fn mask_durations(&mut self) {
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

fn has_text(harness: &Harness<'static, ToolscopeApp>, text: &str) -> bool {
    harness.query_all_by_label_contains(text).next().is_some()
}

#[test]
fn call_add_and_point_at_both_halves() {
    let mut window = open_window("add");
    let mut snapshots = SnapshotResults::new();
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.select_tool("add");
    window.type_into("a", "1");
    window.type_into("b", "2");
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    // The model reads "3"; the application reads {"result": 3}. (A label, not the tree's
    // "expand to level 3" button.)
    assert!(
        window
            .harness
            .query_all_by_role_and_label(Role::Label, "3")
            .next()
            .is_some(),
        "the text block 3 is shown"
    );
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "result")
            .is_some(),
        "the structuredContent tree has `result`"
    );
    // One sentence says why the halves differ; the verdicts are chips.
    assert!(has_text(
        &window.harness,
        "the SDK wrapped a number in {\"result\": …} because structured output had to be an object"
    ));
    for chip in ["contract kept", "wrapped by the SDK", "text mirrors it"] {
        assert!(has_text(&window.harness, chip), "the chip {chip}");
    }
    window.until_recorded("the call in the history", 1);
    window.mask_durations();
    snapshots.add(window.harness.try_snapshot("main_add"));
}

#[test]
fn broken_contract_shows_each_violation() {
    let mut window = open_window("broken");
    let mut snapshots = SnapshotResults::new();
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.select_tool("broken_contract");
    window.call();
    window.step_until("the analysis", |h| has_text(h, "contract broken (3)"));
    assert!(has_text(
        &window.harness,
        "The structuredContent breaks the tool's output schema (3 problems)"
    ));
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "is_success (missing, required)")
            .is_some(),
        "the missing property is a ghost row in the tree"
    );
    for place in [
        "/value should be an integer, but it is the string \"three\"",
        "/operation should be a string, but it is the number 7",
        "the property \"is_success\" is required",
    ] {
        assert!(
            has_text(&window.harness, place),
            "violation {place} is listed"
        );
    }
    // Clicking a violation selects its node in the tree.
    window.click_containing("/value should be");
    let pointer = window
        .harness
        .state()
        .selected_pointer(DEMO_SERVER, "broken_contract");
    assert_eq!(pointer.as_deref(), Some("/value"));
    window.mask_durations();
    snapshots.add(window.harness.try_snapshot("broken_contract"));
}

#[test]
fn cancel_stops_the_long_running_tool() {
    let mut window = open_window("cancel");
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.select_tool("slow_task");
    window.call();
    window.step_until("progress", |h| has_text(h, "step 1 of 10"));
    window.harness.get_by_label("Cancel").click();
    window.step_until("the call to end", |h| {
        h.query_by_role_and_label(Role::Label, "Cancelled")
            .is_some()
    });
    assert!(
        !has_text(&window.harness, "The call failed"),
        "a cancel the user asked for is not a failure"
    );
    assert!(
        window.harness.query_by_label("Call").is_some(),
        "the Call button is back"
    );
    let tap = window.harness.state().tap(DEMO_SERVER).unwrap();
    assert!(
        tap.messages()
            .iter()
            .any(|m| m.label == "notifications/cancelled"),
        "the server was told"
    );
    // A cancelled call is kept in the history too.
    window.until_recorded("the cancelled call in the history", 1);
}

#[test]
fn chaining_fills_format_table_from_query_db_rows() {
    let mut window = open_window("chain");
    let mut snapshots = SnapshotResults::new();
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.select_tool("query_db");
    window.type_into("sql", "SELECT name, city FROM users");
    window.call();
    window.step_until("the rows", |h| {
        h.query_by_role_and_label(Role::TreeItem, "rows").is_some()
    });
    window
        .harness
        .get_by_role_and_label(Role::TreeItem, "rows")
        .click_secondary();
    window.harness.run_ok();
    window.harness.get_by_label("Use as argument of…").click();
    window.harness.run_ok();
    // format_table takes an array, so it is offered first, and chosen already.
    assert!(has_text(
        &window.harness,
        "Tools with an argument that takes an array"
    ));
    window.type_into("Search tools", "format");
    // The dialog's entry is drawn after the tool list's entry of the same name.
    window
        .harness
        .query_all_by_label("format_table")
        .last()
        .unwrap()
        .click();
    window.harness.run_ok();
    window.mask_durations();
    snapshots.add(window.harness.try_snapshot("chaining_dialog"));
    window.harness.get_by_label("Fill in").click();
    window.harness.run_ok();
    assert!(has_text(
        &window.harness,
        "`data` was filled in from query_db /rows"
    ));
    let arguments = window
        .harness
        .state()
        .arguments(DEMO_SERVER, "format_table")
        .unwrap();
    assert_eq!(arguments["data"][0]["name"], "Ada");
    window.call();
    window.step_until("the table", |h| has_text(h, "| name | city |"));
}

#[test]
fn added_servers_connect_and_survive_a_restart() {
    let dir = std::env::temp_dir().join(format!("toolscope-window-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut window = open_window_in(dir.clone());
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.harness.get_by_label("Add server…").click();
    window.harness.run_ok();
    window.type_into("Name", "second demo");
    let command_line = format!("{} demo-server", crate::support::binary());
    window.type_into("Command line", &command_line);
    window.harness.get_by_label("Add env").click();
    window.harness.run_ok();
    window.type_into("Variable", "API_TOKEN");
    window.type_into("Value", "hunter2");
    assert!(
        window.harness.query_all_by_label("Show").next().is_some(),
        "a secret-looking variable is masked, with a Show toggle"
    );
    window.harness.get_by_label("Save").click();
    window.harness.run_ok();
    assert!(has_text(&window.harness, "second demo"));
    // Saving a new server connects it.
    window.step_until("both servers to connect", |h| {
        h.query_all_by_label_contains("Connected: toolscope-demo")
            .count()
            == 2
    });
    // Closing the window writes what is queued (the settings writer flushes when dropped),
    // then a new window starts on the same settings.
    let Window {
        harness,
        _runtime,
        _config,
    } = window;
    drop(harness);
    drop(_runtime);
    std::mem::forget(_config);
    let saved = std::fs::read_to_string(dir.join("settings.json")).unwrap();
    assert!(
        saved.contains("second demo") && saved.contains("API_TOKEN"),
        "{saved}"
    );
    let mut window = open_window_in(dir);
    window.step_until("the saved server, connected again", |h| {
        has_text(h, "second demo")
            && h.query_all_by_label_contains("Connected: toolscope-demo")
                .count()
                == 2
    });
}

#[test]
fn chinese_text_and_images_render() {
    let mut window = open_window("zh");
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    // The tool's title is Chinese; the harness fails on any glyph it cannot draw.
    window.select_tool("天气查询");
    window.type_into("city", "北京");
    window.call();
    window.step_until("the Chinese result", |h| has_text(h, "北京今天"));
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "城市")
            .is_some()
    );
    window.select_tool("chart");
    window.harness.get_by_label("JSON").click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("Arguments (JSON)")
        .set_text_value_accesskit(r#"{"values": [10, 60, 90]}"#);
    window.harness.run_ok();
    window.call();
    window.step_until("the chart", |h| has_text(h, "image block 0 (image/png)"));
}

#[test]
fn the_main_path_works_from_the_keyboard() {
    let mut window = open_window("keys");
    window.type_4_tab_5_into_add();
    window
        .harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    window.step_until("the result of Ctrl+Enter", |h| {
        has_text(h, "— what the model reads")
    });
    assert!(
        window.harness.query_all_by_label("9").next().is_some(),
        "4 + 5 = 9 is shown"
    );
}

/// Text typed and Ctrl+Enter pressed in the same frame: the call carries what was typed.
#[test]
fn ctrl_enter_in_the_frame_text_was_typed_sends_that_text() {
    let mut window = open_window("same_frame");
    window.type_4_tab_5_into_add();
    // b becomes 50 in the very frame Ctrl+Enter is pressed (kittest's queue gives each event
    // a frame of its own, so these go straight into the next frame's input).
    let ctrl = egui::Modifiers::COMMAND;
    let enter = |pressed| egui::Event::Key {
        key: egui::Key::Enter,
        physical_key: None,
        pressed,
        repeat: false,
        modifiers: ctrl,
    };
    let input = window.harness.input_mut();
    input.events.push(egui::Event::Text("0".to_owned()));
    input.events.push(egui::Event::ModifiersChanged(ctrl));
    input.events.push(enter(true));
    input.events.push(enter(false));
    input
        .events
        .push(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    window.harness.step();
    window.step_until("the result of Ctrl+Enter", |h| {
        has_text(h, "— what the model reads")
    });
    assert!(
        window.harness.query_all_by_label("54").next().is_some(),
        "4 + 50 = 54 is shown (4 + 5 = 9 would be the arguments before the frame)"
    );
}

#[test]
fn a_tool_list_change_refreshes_the_list_and_says_what_changed() {
    let mut window = open_window("changes");
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.select_tool("toggle_bonus_tool");
    window.call();
    window.step_until("the refreshed list", |h| {
        has_text(h, "The tool list changed: added bonus_echo")
    });
    assert!(has_text(&window.harness, "14 tools"));
}

/// Calls `add` in a window of `size` pixels at `zoom` and returns where the result went.
fn result_layout_of_add(name: &str, size: egui::Vec2, zoom: f32) -> toolscope::ui::ResultLayout {
    let dir = std::env::temp_dir().join(format!("toolscope-window-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut window = open_window_sized(dir, size, zoom);
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.select_tool("add");
    window.type_into("a", "1");
    window.type_into("b", "2");
    window.call();
    window.step_until("the result", |h| {
        has_text(h, "— what the application reads")
    });
    let layout = window.harness.state().result_layout().unwrap();
    let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, size / zoom);
    for (pane, rect) in [
        ("content", layout.content),
        ("structuredContent", layout.structured),
    ] {
        assert!(
            screen.contains_rect(rect),
            "{name}: the {pane} pane {rect:?} is inside the window {screen:?}"
        );
        assert!(
            rect.width() >= 250.0 && rect.height() >= 150.0,
            "{name}: the {pane} pane {rect:?} is big enough to use"
        );
    }
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "result")
            .is_some(),
        "{name}: the tree shows `result`"
    );
    let mut snapshots = SnapshotResults::new();
    window.mask_durations();
    snapshots.add(window.harness.try_snapshot(format!("layout_{name}")));
    layout
}

fn area(rect: egui::Rect) -> f32 {
    rect.width() * rect.height()
}

#[test]
fn the_result_owns_the_window_at_1280_by_800() {
    let size = egui::vec2(1280.0, 800.0);
    let layout = result_layout_of_add("1280x800", size, 1.0);
    let window = size.x * size.y;
    assert!(layout.side_by_side);
    assert!(
        area(layout.area) >= 0.6 * window,
        "the result area {:?} takes at least 60 % of the window",
        layout.area
    );
    assert!(
        area(layout.content) >= 0.22 * window && area(layout.structured) >= 0.22 * window,
        "each pane gets a fair share: {layout:?}"
    );
}

#[test]
fn both_panes_are_usable_at_900_by_600() {
    let layout = result_layout_of_add("900x600", egui::vec2(900.0, 600.0), 1.0);
    assert!(
        layout.side_by_side,
        "the request column gives way once called: {layout:?}"
    );
}

#[test]
fn both_panes_are_usable_on_a_projector_at_one_and_a_half_zoom() {
    let layout = result_layout_of_add("1600x1000_zoom1.5", egui::vec2(1600.0, 1000.0), 1.5);
    assert!(layout.side_by_side, "{layout:?}");
}

#[test]
fn tools_are_found_picked_and_called_without_the_mouse() {
    let mut window = open_window("find");
    window.step_until("the demo server's tools", |h| has_text(h, "13 tools"));
    window
        .harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    window.harness.run_ok();
    assert!(
        window.harness.get_by_label("Filter").is_focused(),
        "Ctrl+K focuses the tool filter"
    );
    window.harness.event(egui::Event::Text("add_".to_owned()));
    window.harness.run_ok();
    assert!(has_text(&window.harness, "2 of 13 tools"));
    // add_model, add_text_only: down twice is add_text_only.
    window.harness.key_press(egui::Key::ArrowDown);
    window.harness.key_press(egui::Key::ArrowDown);
    window.harness.key_press(egui::Key::Enter);
    window.harness.run_ok();
    let selected = window
        .harness
        .state()
        .model()
        .selected_tool()
        .map(|(_, tool)| tool.name.clone());
    assert_eq!(selected.as_deref(), Some("add_text_only"));
    assert!(
        window.harness.get_by_label("a").is_focused(),
        "picking a tool puts the focus on its first argument"
    );
    window.harness.event(egui::Event::Text("2".to_owned()));
    window.harness.key_press(egui::Key::Tab);
    window.harness.event(egui::Event::Text("3".to_owned()));
    window.harness.run_ok();
    window
        .harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    assert!(
        has_text(&window.harness, "value=5 operation='add'"),
        "2 + 3 = 5 is shown"
    );
}

#[test]
fn escape_cancels_a_running_call() {
    let mut window = open_window("escape");
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.select_tool("slow_task");
    window.call();
    window.step_until("progress", |h| has_text(h, "step 1 of 10"));
    window.harness.key_press(egui::Key::Escape);
    window.step_until("the call to end", |h| {
        h.query_by_role_and_label(Role::Label, "Cancelled")
            .is_some()
    });
}

#[test]
fn the_guided_tour_runs_end_to_end() {
    let lessons = toolscope_core::demo_server::lessons::lessons();
    let dir = std::env::temp_dir().join(format!("toolscope-window-tour-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut window = open_window_in(dir);
    window
        .harness
        .get_by_label(
            "The guided tour of the demo server: seven lessons on content and structuredContent",
        )
        .click();
    window.harness.run_ok();
    for (step, lesson) in lessons.iter().enumerate() {
        let heading = format!("Step {} of {}", step + 1, lessons.len());
        window.step_until(&format!("tour step {}", step + 1), |h| {
            has_text(h, &heading) && has_text(h, lesson.notice)
        });
        let run = window
            .harness
            .state()
            .model()
            .run(&toolscope::workbench::ToolKey::new(
                DEMO_SERVER,
                lesson.tool,
            ))
            .map(|run| run.last_record.is_some());
        assert_eq!(
            run,
            Some(true),
            "step {}: {} was called",
            step + 1,
            lesson.tool
        );
        let selected = window
            .harness
            .state()
            .model()
            .selected_tool()
            .map(|(_, tool)| tool.name.clone());
        assert_eq!(selected.as_deref(), Some(lesson.tool));
        if lesson.shows_output_schema {
            // The evidence is on screen: the output schema is opened, its dialect shown.
            assert!(
                has_text(
                    &window.harness,
                    "dialect: https://json-schema.org/draft/2020-12/schema"
                ),
                "step {}: the output schema is open",
                step + 1
            );
        }
        let next = if step + 1 == lessons.len() {
            "Finish"
        } else {
            "Next"
        };
        // The tree's search has a Next too; the tour's card is drawn last.
        window
            .harness
            .query_all_by_label(next)
            .last()
            .unwrap()
            .click();
        window.harness.run_ok();
    }
    assert!(!has_text(&window.harness, "Step 1 of"), "the tour is over");
}

#[test]
fn presentation_mode_shows_both_panes_big() {
    let dir = std::env::temp_dir().join(format!("toolscope-window-present-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut window = open_window_sized(dir, egui::vec2(1600.0, 1000.0), 1.0);
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.select_tool("add");
    window.type_into("a", "1");
    window.type_into("b", "2");
    window.harness.key_press(egui::Key::F5);
    window.harness.run_ok();
    assert!(
        window.harness.query_by_label("Filter").is_none(),
        "the sidebar folded away"
    );
    window
        .harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    window.step_until("the result", |h| {
        has_text(h, "— what the application reads")
    });
    assert!((window.harness.ctx.zoom_factor() - 1.5).abs() < 0.01);
    let layout = window.harness.state().result_layout().unwrap();
    assert!(layout.side_by_side, "{layout:?}");
    for rect in [layout.content, layout.structured] {
        assert!(
            rect.width() >= 300.0 && rect.height() >= 300.0,
            "{layout:?}"
        );
    }
    let mut snapshots = SnapshotResults::new();
    window.mask_durations();
    snapshots.add(window.harness.try_snapshot("presentation_mode"));
    // F5 again: back to the layout before, which was never saved as the presentation one.
    window.harness.key_press(egui::Key::F5);
    window.harness.run_ok();
    assert!((window.harness.ctx.zoom_factor() - 1.0).abs() < 0.01);
    assert!(window.harness.query_by_label("Filter").is_some());
}

#[test]
fn a_word_double_clicked_in_the_text_is_found_in_the_tree() {
    let dir = std::env::temp_dir().join(format!("toolscope-window-word-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut window = open_window_stepped(dir, egui::vec2(1400.0, 900.0), 1.0, 0.05);
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.select_tool("add");
    window.type_into("a", "40");
    window.type_into("b", "2");
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    let pos = window
        .harness
        .get_by_role_and_label(Role::Label, "42")
        .rect()
        .left_center()
        + egui::vec2(4.0, 0.0);
    window.harness.hover_at(pos);
    // Two clicks in one frame: a double click.
    for pressed in [true, false, true, false] {
        window.harness.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    window.harness.run_ok();
    let search = window.harness.get_by_label("Search:");
    assert_eq!(
        search.value().as_deref(),
        Some("42"),
        "the tree searches for the double-clicked word"
    );
}

#[test]
fn a_call_is_found_in_the_history_shown_as_it_was_noted_and_edited() {
    let mut window = open_window("history");
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.select_tool("add");
    window.type_into("a", "4");
    window.type_into("b", "5");
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    window.until_recorded("the call in the history", 1);
    window.harness.get_by_label("History").click();
    window.harness.run_ok();
    window.step_until("the history list", |h| {
        h.query_all_by_label_contains("add · ok").next().is_some()
    });
    window.click_containing("add · ok");
    window.step_until("the call shown from the history", |h| {
        has_text(h, "History #1") && has_text(h, "— what the application reads")
    });
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "result")
            .is_some(),
        "its structuredContent, as it was"
    );
    window.type_into("Note", "nine, as expected");
    window.harness.get_by_label("Save note").click();
    window.harness.run_ok();
    window.step_until("the note kept", |h| {
        h.state()
            .model()
            .history_browser()
            .calls
            .first()
            .is_some_and(|call| call.note == "nine, as expected")
    });
    // Edit and run: back at the tool, its form holding the arguments of that call.
    window.harness.get_by_label("Edit and run").click();
    window.harness.run_ok();
    window.step_until("the tool's form", |h| h.query_by_label("Call").is_some());
    let arguments = window
        .harness
        .state()
        .model()
        .remembered_arguments(&toolscope::workbench::ToolKey::new(DEMO_SERVER, "add"));
    assert!(arguments.is_some(), "the tool is shown again");
    assert!(
        window.harness.query_all_by_label("4").next().is_some(),
        "the form holds a = 4"
    );
}

#[test]
fn calls_saved_as_cases_run_from_the_cases_tab_with_the_failure_spelled_out() {
    let mut window = open_window("cases");
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("qa.toml");
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    let saves = [
        ("add", &[("a", "4"), ("b", "5")][..], "add 4 5"),
        ("divide", &[("a", "1"), ("b", "0")][..], "divide by zero"),
    ];
    for (at, (tool, arguments, name)) in saves.iter().enumerate() {
        window.select_tool(tool);
        for (field, value) in *arguments {
            window.type_into(field, value);
        }
        window.call();
        window.step_until("the result", |h| has_text(h, "— what the model reads"));
        window.harness.get_by_label("Save as case…").click();
        window.harness.run_ok();
        window
            .harness
            .get_by_label("Case name")
            .set_text_value_accesskit(name);
        window
            .harness
            .get_by_label("Case file")
            .set_text_value_accesskit(&file.display().to_string());
        window.harness.run_ok();
        window.harness.get_by_label("Save").click();
        window.harness.run_ok();
        window.step_until("the case saved and opened", |h| {
            h.state()
                .model()
                .case_book()
                .file
                .as_ref()
                .is_some_and(|file| file.cases.len() == at + 1)
        });
    }
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.starts_with("# Toolscope cases"), "{saved}");
    assert!(saved.contains("demo = true"), "{saved}");
    assert!(saved.contains("name = \"add 4 5\""), "{saved}");
    assert!(saved.contains("is_error = true"), "{saved}");
    // A third case, written by hand, that fails on purpose.
    std::fs::write(
        &file,
        format!(
            "{saved}\n[[case]]\nname = \"add is ten (wrong)\"\ntool = \"add\"\narguments = \
             {{ a = 4, b = 5 }}\n[case.expect]\npointer = {{ \"/result\" = 10 }}\n"
        ),
    )
    .unwrap();
    window.harness.get_by_label("Cases").click();
    window.harness.run_ok();
    // The tab notices the change on disk and offers to read the file again.
    window.step_until("the change noticed", |h| {
        has_text(h, "The file changed on disk since it was read")
    });
    window.harness.get_by_label("Reload it").click();
    window.harness.run_ok();
    window.step_until("three cases listed", |h| {
        has_text(h, "add is ten (wrong) · add")
    });
    window.harness.get_by_label("Run all").click();
    window.harness.run_ok();
    window.step_until("the run's tally", |h| has_text(h, "2 passed, 1 failed"));
    window
        .harness
        .query_all_by_label_contains("add is ten (wrong) · add")
        .next()
        .unwrap()
        .click();
    window.harness.run_ok();
    window.step_until("the failing case shown", |h| {
        has_text(h, "pointer /result: expected 10, got 9")
            && has_text(h, "— what the application reads")
    });
    // The case's calls are in the history too.
    window.until_recorded("the runs recorded", 5);
}

#[test]
fn a_reconnection_says_what_changed_in_the_interface_since_last_time() {
    let dir = std::env::temp_dir().join(format!("toolscope-window-since-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let interfaces = dir.join("interfaces");
    let mut window = open_window_with(dir, egui::vec2(1400.0, 900.0), 1.0, 0.25, |options| {
        options.interfaces_dir = Some(interfaces);
    });
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    // The bonus tool comes and is kept as part of the interface seen last.
    window.select_tool("toggle_bonus_tool");
    window.call();
    window.step_until("the bonus tool listed", |h| {
        h.state()
            .model()
            .server(DEMO_SERVER)
            .and_then(|server| server.catalog.as_ref())
            .is_some_and(|catalog| catalog.find("bonus_echo").is_some())
    });
    // A new demo process has no bonus tool: since last time, a tool was removed.
    window
        .harness
        .state_mut()
        .act(toolscope::workbench::Action::Servers(
            ServerAction::Connect(DEMO_SERVER),
        ));
    window.step_until("the note of what changed", |h| {
        has_text(h, "Since last time: 1 breaking")
    });
    let server = window.harness.state().model().server(DEMO_SERVER).unwrap();
    let note = server.since_last_time.as_ref().unwrap();
    assert!(
        note.changes[0].starts_with("breaking · bonus_echo:"),
        "{note:?}"
    );
}

#[test]
fn two_runs_of_a_tool_are_compared_and_reported_from_the_history() {
    let mut window = open_window("compare");
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.select_tool("add");
    window.type_into("a", "4");
    window.type_into("b", "5");
    window.call();
    window.step_until("the first result", |h| {
        has_text(h, "— what the model reads")
    });
    // Typed after the 5: b is 56 now, and the sum 60.
    window.type_into("b", "6");
    window.call();
    window.until_recorded("both calls in the history", 2);
    window.open_history(2);
    window.mark(1);
    window.mark(2);
    window.harness.get_by_label("Compare").click();
    window.harness.run_ok();
    window.step_until("the comparison", |h| {
        has_text(h, "structuredContent (1 change: 1 changed)")
    });
    assert!(
        has_text(&window.harness, "/result: changed 9 → 60"),
        "the change, with its pointer"
    );
    // The calls differed first of all in their arguments: said before the results.
    assert!(has_text(&window.harness, "These are different calls:"));
    assert!(
        has_text(&window.harness, "• arguments: /b: changed 5 → 56"),
        "the argument that changed"
    );
    window.click_containing("Text (");
    assert!(has_text(&window.harness, "- 9"), "the old text, deleted");
    assert!(has_text(&window.harness, "+ 60"), "the new text, inserted");
    window.harness.get_by_label("Close the comparison").click();
    window.harness.run_ok();

    // Both marked calls as one HTML report.
    let folder = tempfile::tempdir().unwrap();
    let report = folder.path().join("qa.html");
    window.harness.get_by_label("Report…").click();
    window.harness.run_ok();
    // No desktop portal answers in a test: the window's own file dialog opens, in the
    // documents (or home) folder, never where Toolscope happens to run.
    window.step_until("the file dialog", |h| has_text(h, "Write a report"));
    let offered = window
        .harness
        .get_by_label("Folder")
        .value()
        .unwrap_or_default();
    assert!(std::path::Path::new(&offered).is_absolute(), "{offered}");
    assert_eq!(
        window.harness.get_by_label("File name").value().as_deref(),
        Some("toolscope-report.html")
    );
    window
        .harness
        .get_by_label("File name")
        .set_text_value_accesskit(&report.display().to_string());
    window.harness.run_ok();
    window.harness.get_by_label("Save").click();
    window.harness.run_ok();
    window.step_until("the report written", |h| {
        h.state()
            .model()
            .banner()
            .is_some_and(|banner| banner.starts_with("Wrote a report of 2 call(s)"))
    });
    // The banner names the whole path and offers to open the file or its folder.
    window.harness.run_ok();
    assert_eq!(
        window.harness.state().model().written_file(),
        Some(report.as_path())
    );
    assert!(window.harness.query_by_label("Open").is_some());
    assert!(window.harness.query_by_label("Show in folder").is_some());
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("Call #1") && html.contains("Call #2"),
        "both calls"
    );
    assert!(html.contains("&quot;result&quot;: 60"), "the second result");

    // The next file dialog starts where the report went, and lists it there.
    window.harness.get_by_label("Export…").click();
    window.harness.run_ok();
    assert_eq!(
        window.harness.get_by_label("Folder").value().as_deref(),
        Some(folder.path().display().to_string().as_str())
    );
    // A recording lists .json files only: the report is left out, and that is said.
    window.step_until("what was left out said", |h| {
        has_text(
            h,
            "Nothing to list · 1 other entry not listed (hidden, or not .json)",
        )
    });
    // Escape closes it, as it does every dialog.
    window.harness.key_press(egui::Key::Escape);
    window.harness.run_ok();
    assert!(window.harness.query_by_label("Folder").is_none(), "closed");
}

/// Where no desktop portal answers (a bare X server, a test), the window's own file dialog
/// browses folders, keeps to the files that fit, and asks before it replaces a file.
#[test]
fn the_windows_own_file_dialog_browses_folders_and_asks_before_replacing() {
    let folder = tempfile::tempdir().unwrap();
    let sub = folder.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(
        sub.join("cases.toml"),
        "[server]\ndemo = true\n\n[[case]]\nname = \"add\"\ntool = \"add\"\narguments = { a = 1, b = 2 }\n",
    )
    .unwrap();
    std::fs::write(sub.join("notes.txt"), "not a case file").unwrap();
    std::fs::write(sub.join("old.html"), "an old report").unwrap();
    let mut window = open_window("file-dialog");
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });

    // Cases → Browse…: into the folder by its path, into `sub` by a click, the file by a click.
    window.harness.get_by_label("Cases").click();
    window.harness.run_ok();
    window.harness.get_by_label("Browse…").click();
    window.harness.run_ok();
    window.step_until("the dialog", |h| has_text(h, "Open a case file"));
    window.go_to_folder(folder.path());
    window.step_until("the folder listed", |h| h.query_by_label("sub").is_some());
    window.harness.get_by_label("sub").click();
    window.harness.run_ok();
    window.step_until("sub listed", |h| h.query_by_label("cases.toml").is_some());
    assert!(
        window.harness.query_by_label("notes.txt").is_none(),
        "a case file is .toml: other files are not listed"
    );
    assert!(has_text(
        &window.harness,
        "1 entry · 2 other entries not listed"
    ));
    window.harness.get_by_label("cases.toml").click();
    window.harness.run_ok();
    // The dialog's Open (the Cases tab has one too, under the dialog).
    window
        .harness
        .query_all_by_label("Open")
        .last()
        .unwrap()
        .click();
    window.harness.run_ok();
    window.step_until("the case file opened", |h| {
        h.state()
            .model()
            .case_book()
            .file
            .as_ref()
            .is_some_and(|file| file.cases.len() == 1)
    });
    assert_eq!(
        window.harness.state().model().case_book().path.as_deref(),
        Some(sub.join("cases.toml").as_path())
    );

    // A report named like a file there: asked first; kept, then replaced.
    window.harness.get_by_label("Tools").click();
    window.harness.run_ok();
    window.select_tool("add");
    window.call();
    window.until_recorded("the call in the history", 1);
    // Save as case → Choose…: a case is added to the end of a file, so no "replace?".
    window.harness.get_by_label("Save as case…").click();
    window.harness.run_ok();
    window.harness.get_by_label("Choose…").click();
    window.harness.run_ok();
    window.step_until("the case file's folder listed", |h| {
        h.query_by_label("cases.toml").is_some()
    });
    window.harness.get_by_label("cases.toml").click();
    window.harness.run_ok();
    window
        .harness
        .query_all_by_label("Save")
        .last()
        .unwrap()
        .click();
    window.harness.run_ok();
    assert!(!has_text(&window.harness, "exists already."));
    assert_eq!(
        window.harness.get_by_label("Case file").value().as_deref(),
        Some(sub.join("cases.toml").display().to_string().as_str())
    );
    window.harness.key_press(egui::Key::Escape);
    window.harness.run_ok();
    window.open_history(1);
    window.mark(1);
    window.harness.get_by_label("Report…").click();
    window.harness.run_ok();
    window.step_until("the last folder listed", |h| {
        h.query_by_label("old.html").is_some()
    });
    window.harness.get_by_label("old.html").click();
    window.harness.run_ok();
    window.harness.get_by_label("Save").click();
    window.harness.run_ok();
    assert!(has_text(&window.harness, "old.html exists already."));
    window.harness.get_by_label("Keep it").click();
    window.harness.run_ok();
    assert_eq!(
        std::fs::read_to_string(sub.join("old.html")).unwrap(),
        "an old report"
    );
    window.harness.get_by_label("Save").click();
    window.harness.run_ok();
    window.harness.get_by_label("Replace it").click();
    window.harness.run_ok();
    window.step_until("the report written", |h| {
        h.state()
            .model()
            .banner()
            .is_some_and(|banner| banner.starts_with("Wrote a report of 1 call(s)"))
    });
    assert!(
        std::fs::read_to_string(sub.join("old.html"))
            .unwrap()
            .contains("Call #1")
    );
}

#[test]
fn marked_calls_exported_as_a_recording_open_in_another_window_offline() {
    let folder = tempfile::tempdir().unwrap();
    let recording = folder.path().join("session.json");
    {
        let mut window = open_window("export");
        window.step_until("the demo server to connect", |h| {
            has_text(h, "Connected: toolscope-demo")
        });
        window.select_tool("add");
        window.type_into("a", "20");
        window.type_into("b", "22");
        window.call();
        window.step_until("the result", |h| has_text(h, "— what the model reads"));
        window.until_recorded("the call in the history", 1);
        window.open_history(1);
        window.mark(1);
        window.harness.get_by_label("Export…").click();
        window.harness.run_ok();
        window
            .harness
            .get_by_label("File name")
            .set_text_value_accesskit(&recording.display().to_string());
        window.harness.run_ok();
        window.harness.get_by_label("Save").click();
        window.harness.run_ok();
        window.step_until("the recording written", |h| {
            h.state()
                .model()
                .banner()
                .is_some_and(|banner| banner.starts_with("Wrote a recording of 1 call(s)"))
        });
    }
    // Another Toolscope, whose own history is empty, opens it.
    let mut window = open_window("offline");
    window.harness.get_by_label("History").click();
    window.harness.run_ok();
    window.harness.get_by_label("Open recording…").click();
    window.harness.run_ok();
    // The recording's folder, then the recording itself: a click picks it, Open opens it.
    window.go_to_folder(folder.path());
    window.step_until("the folder listed", |h| {
        h.query_by_label("session.json").is_some()
    });
    window.harness.get_by_label("session.json").click();
    window.harness.run_ok();
    assert_eq!(
        window.harness.get_by_label("File name").value().as_deref(),
        Some("session.json")
    );
    window.harness.get_by_label("Open").click();
    window.harness.run_ok();
    window.step_until("the recording listed", |h| {
        has_text(h, "Recording session.json · 1 calls") && has_text(h, "add · ok")
    });
    window.click_containing("add · ok");
    window.step_until("the call shown as it was", |h| {
        has_text(h, "Recording session.json · call #1")
            && has_text(h, "— what the application reads")
    });
    assert!(
        window
            .harness
            .query_by_role_and_label(Role::TreeItem, "result")
            .is_some(),
        "its structuredContent, as it was"
    );
    assert!(has_text(&window.harness, "42"), "the text the model read");
    window.harness.get_by_label("Back to your history").click();
    window.harness.run_ok();
    window.step_until("the own history again", |h| has_text(h, "Open recording…"));
}

/// A window whose settings hold `servers` besides the demo (each connects at start; the last
/// one is selected).
fn open_window_with_servers(name: &str, servers: Vec<SavedServer>) -> Window {
    let dir = std::env::temp_dir().join(format!("toolscope-window-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let settings = Settings {
        servers,
        ..Settings::default()
    };
    std::fs::write(
        dir.join("settings.json"),
        serde_json::to_string(&settings).unwrap(),
    )
    .unwrap();
    open_window_glyphs(dir, egui::vec2(1400.0, 900.0), 1.0, 0.25, |_| {}, true)
}

fn saved_stdio(name: &str, command: &str, args: &[String]) -> SavedServer {
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

#[test]
fn a_multi_round_tool_asks_through_a_form_and_completes_once_it_is_answered() {
    let Some(mut window) = window_on_python_peer("asks-form") else {
        return;
    };
    window.select_tool("book_table");
    window.step_until("the restaurant argument", |h| {
        h.query_all_by_label("Restaurant").next().is_some()
    });
    window.type_into("Restaurant", "Noma");
    window.call();
    window.step_until("the server's question", |h| {
        has_text(h, "When would you like the table")
    });
    assert!(has_text(&window.harness, "round 1 of the call"));
    // Accepting with the required date empty is refused by the form itself.
    window.harness.get_by_label("Accept").click();
    window.harness.run_ok();
    assert!(has_text(&window.harness, "Date is required"));
    window.type_into("Date *", "2026-12-24");
    assert!(
        !has_text(&window.harness, "Date is required"),
        "an edited field loses its old error"
    );
    // The running call's spinner turns from frame to frame.
    let spinners: Vec<egui::Rect> = window
        .harness
        .query_all_by_role(Role::ProgressIndicator)
        .chain(window.harness.query_all_by_label_contains("Running…"))
        .map(|node| node.rect())
        .collect();
    // The sidebar shows the server's command line, which holds the checkout's path (and wraps
    // differently in another folder): it is left out of the picture.
    let sidebar_right = window.harness.get_by_label("Filter").rect().right() + 8.0;
    window.harness.mask(egui::Rect::from_min_max(
        egui::pos2(0.0, 32.0),
        egui::pos2(sidebar_right, 900.0),
    ));
    for rect in spinners {
        window.harness.mask(rect.expand(2.0));
    }
    let mut snapshots = SnapshotResults::new();
    snapshots.add(window.harness.try_snapshot("ask_form"));
    window.harness.get_by_label("Accept").click();
    window.harness.run_ok();
    window.step_until("the booking", |h| {
        has_text(h, "Booked Noma on 2026-12-24 for 2.")
    });
    assert!(
        window.harness.state().model().pending_asks().is_empty(),
        "the question is gone once answered"
    );
    // The rounds are shown beside the result: the question, the answer, who gave it.
    assert!(has_text(
        &window.harness,
        "Rounds: the server asked 1 thing in 2 requests"
    ));
    assert!(has_text(&window.harness, "→ input_required after"));
    assert!(has_text(&window.harness, "answered by you in"));
}

#[test]
fn a_sampling_request_is_answered_by_the_person_in_place_of_a_model() {
    let Some(mut window) = window_on_everything("asks-sampling") else {
        return;
    };
    window.select_tool_titled("trigger-sampling-request", "Trigger Sampling Request Tool");
    window.type_into("prompt", "Say hello");
    window.call();
    window.step_until("the sampling request", |h| {
        has_text(h, "The server asks for a model's reply")
    });
    assert!(
        has_text(&window.harness, "Say hello"),
        "the messages are shown"
    );
    window.type_into("The reply", "Hello from a person");
    window.harness.get_by_label("Send the reply").click();
    window.harness.run_ok();
    window.step_until("the tool's result with the reply", |h| {
        has_text(h, "Hello from a person") && h.state().model().pending_asks().is_empty()
    });
}

#[test]
fn a_url_elicitation_names_the_host_and_opens_nothing_unless_asked() {
    let Some(mut window) = window_on_everything("asks-url") else {
        return;
    };
    window.select_tool_titled("trigger-url-elicitation", "Trigger URL Elicitation Tool");
    window.step_until("the url argument", |h| {
        h.query_all_by_label("url").next().is_some()
    });
    window.type_into("url", "https://pay.example.com/checkout?order=7");
    window.call();
    window.step_until("the request to open a page", |h| {
        has_text(h, "The server asks you to open a page")
    });
    assert!(
        has_text(&window.harness, "pay.example.com"),
        "the host is named"
    );
    assert!(has_text(&window.harness, "Open in the browser"));
    window.harness.get_by_label("Decline").click();
    window.harness.run_ok();
    // server-everything may ask for the roots during the call too: a second thing asked.
    window.step_until("the result of the declined elicitation", |h| {
        h.state().model().pending_asks().is_empty()
            && has_text(h, "Rounds: the server asked")
            && has_text(h, "User declined to open the URL")
    });
    assert!(has_text(
        &window.harness,
        "asked to open https://pay.example.com/checkout?order=7"
    ));
    assert!(has_text(&window.harness, "→ decline"));
}

/// A window on the official Python SDK peer (tests/peers/python), connected and selected;
/// `None` when the peer is not installed.
fn window_on_python_peer(name: &str) -> Option<Window> {
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
    let mut window = open_window_with_servers(name, vec![server]);
    window.step_until("the Python peer to connect", |h| {
        has_text(h, "Connected: toolscope-python-peer")
    });
    window.harness.get_by_label("python peer").click();
    window.harness.run_ok();
    Some(window)
}

/// A window on server-everything (a saved server besides the demo), connected and selected;
/// `None` when the npm peer is not installed.
fn window_on_everything(name: &str) -> Option<Window> {
    let entry = crate::support::everything_entry()?;
    let server = saved_stdio("everything", "node", &[entry.display().to_string()]);
    let mut window = open_window_with_servers(name, vec![server]);
    window.step_until("server-everything to connect", |h| {
        has_text(h, "Connected: mcp-servers/everything")
    });
    window.harness.get_by_label("everything").click();
    window.harness.run_ok();
    Some(window)
}

/// Whether the server named `name` lists `tool` (once connected).
fn lists_tool(harness: &Harness<'static, ToolscopeApp>, name: &str, tool: &str) -> Option<bool> {
    let server = harness
        .state()
        .model()
        .servers()
        .iter()
        .find(|server| server.name == name)?;
    Some(server.catalog.as_ref()?.find(tool).is_some())
}

#[test]
fn a_capability_turned_off_in_the_editor_hides_the_tools_that_need_it() {
    let Some(entry) = crate::support::everything_entry() else {
        return;
    };
    let server = saved_stdio("everything", "node", &[entry.display().to_string()]);
    let mut window = open_window_with_servers("asks-capabilities", vec![server]);
    window.step_until("server-everything's tools", |h| {
        lists_tool(h, "everything", "trigger-sampling-request") == Some(true)
    });
    window.harness.get_by_label("Edit…").click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("Client capabilities and roots")
        .click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("sampling: the server may ask for a model's reply (you write it)")
        .click();
    window.harness.run_ok();
    window.harness.get_by_label("Save").click();
    window.harness.run_ok();
    window.step_until("the tools listed without sampling declared", |h| {
        lists_tool(h, "everything", "trigger-sampling-request") == Some(false)
            && lists_tool(h, "everything", "trigger-elicitation-request") == Some(true)
    });
    // The settings writer saves a moment later, on its own thread.
    let path = std::env::temp_dir()
        .join(format!(
            "toolscope-window-asks-capabilities-{}",
            std::process::id()
        ))
        .join("settings.json");
    let deadline = Instant::now() + Duration::from_secs(10);
    let saved = loop {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let saved: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        if saved["servers"][0]["client"]["declared"]["sampling"] == false
            || Instant::now() > deadline
        {
            break saved;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        saved["servers"][0]["client"]["declared"]["sampling"], false,
        "{saved}"
    );
}

#[test]
fn a_call_cancelled_while_its_question_waits_takes_the_question_away() {
    let Some(mut window) = window_on_python_peer("asks-cancel") else {
        return;
    };
    window.select_tool("book_twice");
    window.call();
    window.step_until("the first question", |h| has_text(h, "First: when"));
    assert!(has_text(
        &window.harness,
        "1 question from this server waiting for you"
    ));
    // The call's own Cancel, between rounds.
    window.harness.get_by_label("Cancel").click();
    window.harness.run_ok();
    window.step_until("the question to go with the call", |h| {
        h.state().model().pending_asks().is_empty() && !has_text(h, "First: when")
    });
}

#[test]
fn a_task_tool_runs_as_a_task_asks_midway_and_lands_with_its_statuses() {
    let Some(mut window) = window_on_everything("asks-task") else {
        return;
    };
    window.select_tool_titled("simulate-research-query", "Simulate Research Query");
    window.step_until("the topic argument", |h| {
        h.query_all_by_label("topic").next().is_some()
    });
    window.type_into("topic", "rust");
    window.harness.get_by_label("JSON").click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("Arguments (JSON)")
        .set_text_value_accesskit(r#"{"topic": "rust", "ambiguous": true}"#);
    window.harness.run_ok();
    window.call();
    window.step_until("the task's status", |h| has_text(h, "Task "));
    window.step_until("the clarification question", |h| {
        has_text(h, "could have multiple interpretations")
    });
    window.harness.get_by_label("Decline").click();
    window.harness.run_ok();
    window.step_until("the report", |h| has_text(h, "Research Report: rust"));
    assert!(has_text(&window.harness, "as a task ("));
    assert!(has_text(&window.harness, "input_required"));
    assert!(has_text(&window.harness, "completed"));
}

#[test]
fn a_call_the_server_turns_into_a_task_shows_its_status_and_answers_its_question() {
    let script = crate::support::repo_root().join("tests/fixtures/task_server.py");
    let server = saved_stdio("tasks", "python3", &[script.display().to_string()]);
    let mut window = open_window_with_servers("asks-task-extension", vec![server]);
    window.step_until("the task server to connect", |h| {
        has_text(h, "Connected: tasks")
    });
    window.harness.get_by_label("tasks").click();
    window.harness.run_ok();
    window.select_tool("confirm");
    window.call();
    // The question waits for the person, and the task's status line stays while it does.
    window.step_until("the task's question", |h| {
        has_text(h, "Go ahead with the order?")
    });
    window.step_until("the task's status line", |h| {
        has_text(
            h,
            "Task task-1-confirm · input_required: waiting for a confirmation",
        )
    });
    window.harness.get_by_label("Accept").click();
    window.harness.run_ok();
    window.step_until("the result", |h| has_text(h, "confirmation: accept"));
    assert!(has_text(&window.harness, "as a task ("));
    assert!(has_text(
        &window.harness,
        "The result came with tasks/get #"
    ));
}

#[test]
fn a_url_elicitation_required_error_offers_the_page_and_a_second_call() {
    let Some(mut window) = window_on_everything("asks-url-required") else {
        return;
    };
    window.select_tool_titled("trigger-url-elicitation", "Trigger URL Elicitation Tool");
    window.step_until("the url argument", |h| {
        h.query_all_by_label("url").next().is_some()
    });
    window.harness.get_by_label("JSON").click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("Arguments (JSON)")
        .set_text_value_accesskit(r#"{"url": "https://example.com/authorize", "errorPath": true}"#);
    window.harness.run_ok();
    window.call();
    window.step_until("the page to open", |h| {
        has_text(h, "Open modelcontextprotocol.io in the browser")
    });
    assert!(has_text(
        &window.harness,
        "The server needs you to open a page on"
    ));
    // Done on the page: the same call again, which the server now lets through.
    window.harness.get_by_label("Call again").click();
    window.harness.run_ok();
    window.step_until("the server's URL question", |h| {
        has_text(h, "The server asks you to open a page")
    });
}

#[test]
fn a_server_another_client_has_is_offered_at_start_and_connects_in_two_clicks() {
    let dir = std::env::temp_dir().join(format!("toolscope-window-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let claude = dir.join("config/Claude/claude_desktop_config.json");
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    let fixture = crate::support::repo_root().join("tests/fixtures/task_server.py");
    std::fs::write(
        &claude,
        serde_json::json!({"mcpServers": {"tasks": {"command": "python3", "args": [fixture]}}})
            .to_string(),
    )
    .unwrap();
    let files =
        toolscope_core::import::known_files(&dir.join("home"), &dir.join("config"), None, None);
    let mut window = open_window_glyphs(
        dir.clone(),
        egui::vec2(1400.0, 900.0),
        1.0,
        0.25,
        move |options| options.import_files = Some(files),
        false,
    );
    window.step_until("the offer to import", |h| has_text(h, "Import (1)…"));
    window.harness.get_by_label("Import (1)…").click();
    window.harness.run_ok();
    window.step_until("the found server", |h| {
        has_text(h, "claude_desktop_config.json")
    });
    assert!(has_text(&window.harness, "Claude Desktop"));
    window.harness.get_by_label("Import and connect").click();
    window.harness.run_ok();
    window.step_until("the imported server to connect", |h| {
        has_text(h, "Connected: tasks 0.1.0")
    });
    assert!(
        has_text(&window.harness, "Import…"),
        "nothing left to import"
    );
    window.step_until("the settings to be written", |_| {
        std::fs::read_to_string(dir.join("settings.json"))
            .is_ok_and(|text| text.contains("task_server.py"))
    });
}

#[test]
fn a_pasted_command_line_is_previewed_and_added() {
    let mut window = open_window("import-paste");
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    window.harness.get_by_label("Import…").click();
    window.harness.run_ok();
    window.harness.get_by_label("Paste").click();
    window.harness.run_ok();
    let fixture = crate::support::repo_root().join("tests/fixtures/task_server.py");
    window
        .harness
        .get_by_label("Pasted server")
        .set_text_value_accesskit(&format!("python3 {}", fixture.display()));
    window.harness.run_ok();
    window.step_until("the preview", |h| has_text(h, "task_server"));
    window.harness.get_by_label("Add and connect").click();
    window.harness.run_ok();
    window.step_until("the pasted server to connect", |h| {
        has_text(h, "Connected: tasks 0.1.0")
    });
}

#[test]
fn a_resource_link_opens_the_resource_read_from_its_server() {
    let Some(mut window) = window_on_everything("resource-link") else {
        return;
    };
    window.select_tool_titled("get-resource-links", "Get Resource Links Tool");
    window.call();
    window.step_until("the links", |h| {
        h.query_all_by_label("Open").next().is_some()
    });
    // The second link is a text resource.
    window
        .harness
        .query_all_by_label("Open")
        .nth(1)
        .unwrap()
        .click();
    window.harness.run_ok();
    window.step_until("the resource's text", |h| {
        matches!(
            h.state()
                .model()
                .opened_resource()
                .map(|opened| &opened.state),
            Some(toolscope::workbench::ResourceState::Read(_))
        )
    });
    assert!(has_text(
        &window.harness,
        "demo://resource/dynamic/text/2 · text/plain"
    ));
}

#[test]
fn an_mcp_app_tool_gets_its_ui_resource_read_and_checked() {
    let Some(mut window) = window_on_python_peer("mcp-app") else {
        return;
    };
    window.select_tool("show_booking");
    window.step_until("the UI resource section", |h| {
        has_text(h, "UI resource (MCP App)")
    });
    window.harness.get_by_label("Read and check").click();
    window.harness.run_ok();
    window.step_until("the findings", |h| has_text(h, "its MIME type is"));
    assert!(has_text(
        &window.harness,
        "its MIME type is text/html;profile=mcp-app"
    ));
    assert!(has_text(
        &window.harness,
        "connect to https://api.example.com"
    ));
    // The one made wrong says what is wrong with it.
    window.select_tool("show_plain");
    window.step_until("the UI resource section", |h| {
        has_text(h, "UI resource (MCP App)")
    });
    window.harness.get_by_label("Read and check").click();
    window.harness.run_ok();
    window.step_until("the findings", |h| has_text(h, "its MIME type is"));
    assert!(has_text(&window.harness, "the tool declares a csp"));
    assert!(has_text(
        &window.harness,
        "not \"text/html;profile=mcp-app\""
    ));
}

#[test]
fn an_oauth_server_is_signed_into_from_the_window_and_signed_out_of() {
    let server = crate::support::oauth_server::AuthServer::start(&[]);
    let dir = std::env::temp_dir().join(format!("toolscope-window-oauth-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let settings = Settings {
        servers: vec![SavedServer {
            name: "protected".to_owned(),
            config: ServerConfig::Http {
                url: server.url.clone(),
                headers: Default::default(),
                oauth_client_id: None,
                oauth_client_secret: None,
            },
            connect_at_start: true,
            client: Default::default(),
        }],
        ..Settings::default()
    };
    std::fs::write(
        dir.join("settings.json"),
        serde_json::to_string(&settings).unwrap(),
    )
    .unwrap();
    // No browser here: the window offers the page, and the "user" opens it.
    let pages = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = pages.clone();
    let secrets = dir.join("secrets");
    let place = toolscope_core::settings::SecretsPlace::new(
        toolscope_core::secret_store::Preference::File,
        secrets.clone(),
    )
    .opening_pages_with(std::sync::Arc::new(move |page: &str| {
        seen.lock().unwrap().push(page.to_owned());
        Err(toolscope_core::auth::browser::BrowserError::CannotRun {
            program: "a browser".to_owned(),
            reason: "no browser in this test".to_owned(),
        })
    }));
    let mut window = open_window_glyphs(
        dir,
        egui::vec2(1400.0, 900.0),
        1.0,
        0.25,
        |options| options.secrets = Some(place),
        true,
    );
    window.step_until("the sign-in page offered", |h| {
        has_text(h, "No browser opened: open the sign-in page")
    });
    assert!(window.harness.query_by_label("Copy link").is_some());
    let page = pages
        .lock()
        .unwrap()
        .first()
        .cloned()
        .expect("a page to open");
    assert!(page.contains("/auth/authorize?"), "{page}");
    assert!(crate::support::oauth_server::open_in_fake_browser(&page));
    window.step_until("the protected server connected", |h| {
        has_text(h, "Connected: oauth-fixture")
    });
    assert!(!has_text(
        &window.harness,
        "No browser opened: open the sign-in page"
    ));
    // The auth timeline is in the server's protocol log.
    let id = window
        .harness
        .state()
        .model()
        .servers()
        .iter()
        .find(|state| state.name == "protected")
        .map(|state| state.id)
        .unwrap();
    let tap = window.harness.state().tap(id).expect("a log");
    let steps: Vec<String> = tap
        .messages()
        .into_iter()
        .map(|entry| entry.label)
        .filter(|label| label.starts_with(toolscope_core::session::tap::AUTH_LABEL))
        .collect();
    assert!(
        steps.iter().any(|label| label.contains("Signed in")),
        "{steps:?}"
    );
    assert!(
        std::fs::read_to_string(secrets.join("secrets.json"))
            .unwrap()
            .contains("oauth:")
    );

    // Signing out (from the server editor) forgets the tokens.
    window.harness.get_by_label("Edit…").click();
    window.harness.run_steps(4);
    window.harness.get_by_label("Sign out").click();
    window.harness.run_steps(2);
    window.step_until("the sign-out said", |h| {
        has_text(h, "Signed out of protected")
    });
    let kept = std::fs::read_to_string(secrets.join("secrets.json")).unwrap();
    assert!(!kept.contains("oauth:"), "{kept}");
}

/// server-everything says `notifications/tools/list_changed` four times as it starts: the
/// window lists the tools once for the connection and once more for the changes told while
/// that list was under way, not once per notification.
#[test]
fn list_changed_told_in_a_burst_lists_the_tools_again_once() {
    let Some(mut window) = window_on_everything("list-burst") else {
        return;
    };
    // Time for the burst and any lists it would start.
    let until = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < until {
        window.harness.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    let server = window
        .harness
        .state()
        .model()
        .servers()
        .iter()
        .find(|server| server.name == "everything")
        .map(|server| server.id)
        .unwrap();
    let tap = window.harness.state().tap(server).unwrap();
    let notified = tap
        .messages()
        .iter()
        .filter(|entry| entry.text.contains("notifications/tools/list_changed"))
        .count();
    let lists = tap
        .messages()
        .iter()
        .filter(|entry| entry.label.starts_with("tools/list"))
        .count();
    assert!(
        notified >= 2,
        "the burst was seen ({notified} notifications)"
    );
    assert!(
        (1..=2).contains(&lists),
        "{lists} tools/list requests for {notified} notifications"
    );
}

/// Every demo tool's form shown in turn at 1280×800: the request column stays within its
/// share of the window (forms wrap inside it), and its width is saved only when dragged.
#[test]
fn the_request_column_keeps_its_width_whatever_form_it_shows() {
    let dir = std::env::temp_dir().join(format!(
        "toolscope-window-request-width-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let mut window = open_window_sized(dir, egui::vec2(1280.0, 800.0), 1.0);
    window.step_until("the demo server to connect", |h| {
        has_text(h, "Connected: toolscope-demo")
    });
    let saved_before = window.harness.state().model().layout().request_width;
    let mut first = None;
    for tool in [
        "add",
        "add_model",
        "broken_contract",
        "chart",
        "divide",
        "format_table",
        "large_result",
        "primes",
        "query_db",
        "slow_task",
    ] {
        window.select_tool(tool);
        for _ in 0..3 {
            window.harness.step();
        }
        let width = window.harness.state().request_column_width();
        assert!(
            width <= 1280.0 * 0.3 + 1.0,
            "{tool}'s form widened the request column to {width} px"
        );
        let first = *first.get_or_insert(width);
        assert!(
            (width - first).abs() < 1.0,
            "{tool}'s form widened the request column from {first} to {width} px"
        );
    }
    assert_eq!(
        window.harness.state().model().layout().request_width,
        saved_before,
        "the width was saved though nobody dragged it"
    );
}

/// The first start's invitation to the tour, at 900×600: it takes room beside the panes and
/// never covers them, and Escape puts it away.
#[test]
fn the_welcome_never_covers_a_pane_and_escape_closes_it() {
    let dir = std::env::temp_dir().join(format!("toolscope-window-welcome-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut window = open_window_with(dir, egui::vec2(900.0, 600.0), 1.0, 0.25, |options| {
        options.offer_tour_on_first_start = true;
    });
    window.select_tool("add");
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    let offer = window.harness.get_by_label("Take the tour").rect();
    let panes = window
        .harness
        .state()
        .result_layout()
        .expect("a result is shown");
    for pane in [panes.content, panes.structured] {
        assert!(
            !pane.intersects(offer),
            "the welcome ({offer:?}) covers a pane ({pane:?})"
        );
    }
    window.harness.key_press(egui::Key::Escape);
    window.harness.run_ok();
    assert!(window.harness.query_by_label("Take the tour").is_none());
}

/// 10,013 tools, the list scrolled to its end: a new filter shows its first match.
#[test]
fn a_new_filter_scrolls_the_tool_list_to_its_first_match() {
    let dir = std::env::temp_dir().join(format!("toolscope-window-filter-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut window = open_window_with(dir, egui::vec2(1280.0, 800.0), 1.0, 0.25, |options| {
        if let ServerConfig::Stdio { args, .. } = &mut options.demo {
            args.extend(["--extra-tools".to_owned(), "10000".to_owned()]);
        }
    });
    window.step_until("the tools", |h| has_text(h, "10013 tools"));
    window
        .harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    window.harness.run_ok();
    // Up from no row is the last row: the list scrolls to its end.
    window.harness.key_press(egui::Key::ArrowUp);
    window.harness.run_ok();
    assert!(window.harness.query_by_label("generated_09999").is_some());
    window
        .harness
        .event(egui::Event::Text("generated_0".to_owned()));
    window.harness.run_ok();
    assert!(has_text(&window.harness, "10000 of 10013 tools"));
    assert!(
        window.harness.query_by_label("generated_00000").is_some(),
        "the first match is in view"
    );
}

/// A window on tests/fixtures/wide_server.py (a 10,000-character tool name, a 9000×2 image),
/// connected and selected.
fn window_on_wide_server(name: &str) -> Window {
    let script = crate::support::repo_root().join("tests/fixtures/wide_server.py");
    let server = saved_stdio("wide", "python3", &[script.display().to_string()]);
    let mut window = open_window_with_servers(name, vec![server]);
    window.step_until("the wide server's tools", |h| {
        has_text(h, "Connected: wide")
    });
    window.harness.get_by_label("wide").click();
    window.harness.run_ok();
    window.step_until("its tools", |h| has_text(h, "2 tools"));
    window
}

/// A tool with a 10 kB name: the line beside the result tabs stays one line, so the panes
/// keep their place under the tabs.
#[test]
fn a_ten_thousand_character_tool_name_does_not_push_the_panes_away() {
    let mut window = window_on_wide_server("long-name");
    window
        .harness
        .get_by_label("Filter")
        .set_text_value_accesskit("long_n");
    window.harness.run_ok();
    window.step_until("the tool in the list", |h| has_text(h, "1 of 2 tools"));
    window.click_containing("long_nnnn");
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    let layout = window.harness.state().result_layout().expect("a result");
    let header = layout.content.min.y - layout.area.min.y;
    assert!(
        header < 160.0,
        "the panes start {header} points below the result's top"
    );
}

/// A 9000×2 image is drawn tall enough to see, and says it was stretched.
#[test]
fn a_thin_image_is_drawn_tall_enough_to_see() {
    let mut window = window_on_wide_server("thin-image");
    window.select_tool("thin_image");
    window.call();
    window.step_until("the image", |h| has_text(h, "image block 0 (image/png)"));
    let image = window
        .harness
        .get_by_label("image block 0 (image/png)")
        .rect();
    assert!(
        image.height() >= 8.0,
        "drawn {} points tall",
        image.height()
    );
    assert!(has_text(&window.harness, "too thin to see at its shape"));
}

/// broken_contract (a long list of violations) at 1280×800: zoomed to 1.5× and in
/// presentation mode, the two panes stay side by side and keep at least half the window.
#[test]
fn on_a_projector_the_panes_keep_half_the_window_beside_a_long_analysis() {
    for (name, zoom, present) in [("zoom", 1.5, false), ("present", 1.0, true)] {
        let dir = std::env::temp_dir().join(format!(
            "toolscope-window-projector-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let size = egui::vec2(1280.0, 800.0);
        let mut window = open_window_with(dir, size, zoom, 0.25, |options| {
            options.present = present;
        });
        window.step_until("the demo server's tools", |h| {
            h.state()
                .model()
                .server(DEMO_SERVER)
                .is_some_and(|server| server.catalog.is_some())
        });
        window
            .harness
            .state_mut()
            .act(toolscope::workbench::Action::Calls(
                toolscope::workbench::CallAction::SelectTool {
                    server: DEMO_SERVER,
                    index: 3,
                },
            ));
        window.harness.run_ok();
        window.harness.get_by_label("Call").click();
        window.step_until("the result", |h| has_text(h, "— what the model reads"));
        for _ in 0..3 {
            window.harness.step();
        }
        let layout = window.harness.state().result_layout().unwrap();
        let points = size / (zoom * window.harness.ctx.zoom_factor());
        assert!(layout.side_by_side, "{name}: {layout:?}");
        // The panes keep half the window's height below a long analysis; presenting (the
        // sidebars folded) that is half the window.
        let tall = layout.content.height();
        assert!(
            tall >= 0.45 * points.y,
            "{name}: the panes are {tall} of {} points tall: {layout:?}",
            points.y
        );
        if present {
            let panes = area(layout.content) + area(layout.structured);
            assert!(
                panes >= 0.5 * points.x * points.y,
                "{name}: the panes get {:.0} % of the window: {layout:?}",
                100.0 * panes / (points.x * points.y)
            );
        }
    }
}

/// A stderr line longer than a row: clicked, it is shown whole beside the rows.
#[test]
fn a_long_log_line_is_read_whole_when_clicked() {
    let mut window = window_on_wide_server("long-stderr");
    window.harness.get_by_label("Protocol log & stderr").click();
    window.harness.run_ok();
    window.harness.get_by_label("Server stderr").click();
    window.harness.run_ok();
    window.step_until("the stderr line", |h| {
        h.query_all_by_label_contains("stderr says")
            .next()
            .is_some()
    });
    assert!(
        window
            .harness
            .query_all_by_label_contains(" END")
            .next()
            .is_none(),
        "the row is cut"
    );
    window
        .harness
        .query_all_by_label_contains("stderr says")
        .next()
        .unwrap()
        .click_accesskit();
    window.harness.run_ok();
    assert!(
        window
            .harness
            .query_all_by_label_contains(" END")
            .next()
            .is_some(),
        "the whole line is shown"
    );
}

/// format_table's Markdown shows as sent (the pipes the model reads) and, on request, rendered.
#[test]
fn a_markdown_text_block_is_shown_as_sent_or_rendered() {
    let mut window = open_window("markdown");
    window.step_until("the demo server's tools", |h| has_text(h, "13 tools"));
    window.select_tool("format_table");
    window.harness.get_by_label("JSON").click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("Arguments (JSON)")
        .set_text_value_accesskit(r#"{"data": [{"name": "Ada", "city": "London"}]}"#);
    window.harness.run_ok();
    window.call();
    window.step_until("the result", |h| has_text(h, "— what the model reads"));
    let as_sent = |h: &Harness<'static, ToolscopeApp>| {
        h.query_all_by_label_contains("| Ada | London |")
            .next()
            .is_some()
    };
    assert!(as_sent(&window.harness), "as sent by default");
    window.harness.get_by_label("Rendered").click();
    window.harness.run_ok();
    assert!(!as_sent(&window.harness), "the pipes are gone");
    assert!(
        has_text(&window.harness, "London"),
        "the table's cells are shown"
    );
}

/// The history has the sidebar's whole height (the server cards make way), a server column,
/// and ticking a call never moves the rows under the pointer.
#[test]
fn the_history_is_a_full_height_table_whose_rows_stay_put_when_ticked() {
    let mut window = open_window("tick-rows");
    window.step_until("the demo server's tools", |h| has_text(h, "13 tools"));
    window.select_tool("add");
    for _ in 0..3 {
        window.call();
        window.step_until("the result", |h| has_text(h, "— what the model reads"));
    }
    window.until_recorded("the calls in the history", 3);
    window.open_history(3);
    assert!(
        window.harness.query_by_label("Disconnect").is_none(),
        "the server cards make way for the history"
    );
    let newest = window.harness.get_by_label("Mark call #3").rect();
    assert!(
        newest.top() < 240.0,
        "the rows start near the top: {newest:?}"
    );
    // Each row names its server, then the tool and the verdict, in columns with titles.
    for title in ["Time (UTC)", "Server", "Tool", "Verdict"] {
        assert!(has_text(&window.harness, title), "{title}");
    }
    let row = window
        .harness
        .query_all_by_label_contains("Built-in demo · add · ")
        .count();
    assert_eq!(row, 3, "three rows with the server's name");
    let before = window.harness.get_by_label("Mark call #2").rect();
    window.mark(3);
    let after = window.harness.get_by_label("Mark call #2").rect();
    assert_eq!(before, after, "the row moved when another was ticked");
}
