//! The explorer window (eframe/egui). A view over the workbench: it sends commands and draws
//! what the events brought; it never waits on I/O.

mod actions;
mod analysis_view;
pub mod app;
pub mod argument_editor;
mod chaining;
mod content_pane;
pub mod fonts;
mod image_textures;
pub mod json_tree;
mod logs_panel;
mod result_view;
mod schema_view;
mod server_editor;
mod servers_panel;
mod state;
mod tool_view;
mod tools_panel;
mod top_bar;
mod widgets;

pub use app::{AppOptions, DEMO_SERVER, ToolscopeApp};

/// Opens the window and runs until it is closed.
pub fn run_window(runtime: tokio::runtime::Handle, options: AppOptions) -> Result<(), String> {
    let native_options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Toolscope")
            .with_inner_size([1280.0, 820.0])
            .with_min_inner_size([720.0, 480.0]),
        ..Default::default()
    };
    eframe::run_native(
        "Toolscope",
        native_options,
        Box::new(move |cc| {
            egui_extras::install_image_loaders(&cc.egui_ctx);
            Ok(Box::new(ToolscopeApp::new(&cc.egui_ctx, runtime, options)))
        }),
    )
    .map_err(|error| format!("the window could not open: {error}"))
}
