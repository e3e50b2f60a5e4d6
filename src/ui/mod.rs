//! The explorer window (eframe/egui). A view over the workbench: it sends commands and draws
//! what the events brought; it never waits on I/O.

mod actions;
mod analysis_view;
pub mod app;
mod app_check_view;
pub mod argument_editor;
mod ask_dialog;
mod case_view;
mod chaining;
mod compare_view;
mod content_pane;
pub mod fonts;
mod history_view;
mod image_textures;
mod import_dialog;
pub mod json_tree;
mod layout_memory;
mod linked_text;
mod log_mirror;
mod logs_panel;
mod open_recording_dialog;
mod pane_split;
mod presentation;
mod request_column;
mod resource_dialog;
mod result_area;
mod rounds_view;
mod save_case_dialog;
mod schema_view;
mod server_editor;
mod sidebar;
pub mod theme;
mod tool_view;
mod top_bar;
pub mod tour;
mod view_state;
mod widgets;
mod write_marked_dialog;

pub use app::{AppOptions, DEMO_SERVER, ResultLayout, ToolscopeApp};

/// The window's icon, drawn from assets/icon/toolscope.svg.
const WINDOW_ICON: &[u8] = include_bytes!("../../assets/icon/toolscope-256.png");

/// Opens the window and runs until it is closed.
pub fn run_window(runtime: tokio::runtime::Handle, options: AppOptions) -> Result<(), String> {
    let mut viewport = egui::ViewportBuilder::default()
        .with_title("Toolscope")
        .with_app_id(crate::APP_ID)
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
    eframe::run_native(
        "Toolscope",
        native_options,
        Box::new(move |cc| {
            egui_extras::install_image_loaders(&cc.egui_ctx);
            runtime.spawn(close_on_signal(cc.egui_ctx.clone()));
            Ok(Box::new(ToolscopeApp::new(&cc.egui_ctx, runtime, options)))
        }),
    )
    .map_err(|error| format!("the window could not open: {error}"))
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
