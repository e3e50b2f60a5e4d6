//! The explorer window (eframe/egui). A view over the workbench: it sends commands and draws
//! what the events brought; it never waits on I/O.

mod actions;
pub mod app;
pub mod argument_editor;
mod dialogs;
mod files;
pub mod json_tree;
mod panels;
mod result;
mod sidebar;
pub mod tour;
mod view_state;
mod widgets;

// The window's parts by the folder they live in; named here so each part says `ui::top_bar`.
use panels::{
    case_view, feature_view, history_view, live_view, log_mirror, logs_panel, request_column,
    request_state, schema_view, server_view, session_diff_view, skill_view, tool_view, top_bar,
};
use result::{
    analysis_view, app_check_view, compare_view, content_pane, linked_text, pane_split,
    result_area, result_state, rounds_view,
};
pub use widgets::{fonts, theme};
use widgets::{image_textures, layout_memory, presentation};

pub use app::{AppOptions, DEMO_SERVER, ResultLayout, ToolscopeApp};

/// The window's icon, drawn from assets/icon/toolscope.svg.
const WINDOW_ICON: &[u8] = include_bytes!("../../assets/icon/toolscope-256.png");

/// Opens the window and runs until it is closed.
/// Why the window did not run to its end.
#[derive(Debug)]
pub enum WindowError {
    /// It could not open (no display, no graphics driver).
    CouldNotOpen(String),
    /// It ended abruptly (destroyed from outside); what was asked was saved.
    EndedAbruptly(String),
}

impl std::fmt::Display for WindowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::CouldNotOpen(why) => write!(f, "the window could not open: {why}"),
            Self::EndedAbruptly(why) => write!(
                f,
                "the window ended abruptly (closed from outside?): {why}. The history and the \
                 settings were saved and the servers ended"
            ),
        }
    }
}

pub fn run_window(runtime: tokio::runtime::Handle, options: AppOptions) -> Result<(), WindowError> {
    let mut viewport = egui::ViewportBuilder::default()
        .with_title("Toolscope")
        .with_app_id(toolscope_core::APP_ID)
        .with_inner_size([1280.0, 820.0])
        .with_min_inner_size([640.0, 420.0]);
    // The menu entry's artwork (assets/icon/); eframe persistence is off, so the app id moves
    // no stored files: settings and history live in Toolscope's own folders.
    if let Ok(icon) = eframe::icon_data::from_png_bytes(WINDOW_ICON) {
        viewport = viewport.with_icon(icon);
    }
    let native_options = eframe::NativeOptions {
        viewport,
        ..Default::default()
    };
    // winit panics when the window is destroyed from outside (`xdotool windowclose`: BadWindow
    // on its next query), with no way offered to guard it. The app is dropped as the panic
    // unwinds, which writes the history and the settings and ends the servers; what is left
    // is to say so in one line instead of a backtrace. A panic on another thread is logged
    // in one line too, and the work it ended is said in the window (`internal_failure`).
    let previous_hook = std::panic::take_hook();
    let panicked = std::sync::Arc::new(std::sync::Mutex::new(None::<String>));
    let seen = panicked.clone();
    std::panic::set_hook(Box::new(move |info| {
        // Every panic, on any thread, goes to the log; the window's own is also kept to say
        // why it ended.
        let line = crate::workbench::internal_failure::log(info);
        if std::thread::current().name() == Some("main") {
            *seen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(line);
        }
    }));
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        eframe::run_native(
            "Toolscope",
            native_options,
            Box::new(move |cc| {
                egui_extras::install_image_loaders(&cc.egui_ctx);
                runtime.spawn(close_on_signal(cc.egui_ctx.clone()));
                Ok(Box::new(ToolscopeApp::new(&cc.egui_ctx, runtime, options)))
            }),
        )
    }));
    std::panic::set_hook(previous_hook);
    match run {
        Ok(result) => result.map_err(|error| WindowError::CouldNotOpen(error.to_string())),
        Err(_) => Err(WindowError::EndedAbruptly(
            panicked
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
                .unwrap_or_default(),
        )),
    }
}

/// Ctrl+C in the terminal or SIGTERM close the window the normal way, so its servers are
/// closed (`on_exit`) instead of left running. Only the real window installs this: a signal
/// handler stays for the life of the process.
async fn close_on_signal(ctx: egui::Context) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut terminate) = signal(SignalKind::terminate()) else {
            return;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    if tokio::signal::ctrl_c().await.is_err() {
        return;
    }
    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
    ctx.request_repaint();
}
