//! The bar at the top: the app's name, the selected server in a line, the timeout, the logs.

use super::{actions::Action, view_state::ViewState};
use crate::workbench::{self, ConnectionStatus, Model};

pub fn ui(model: &Model, view: &mut ViewState, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    egui::Panel::top("top_bar").show(ui, |ui| {
        ui.horizontal(|ui| {
            let sidebar = ui
                .selectable_label(view.layout.sidebar_open, "☰")
                .on_hover_text("Show or hide the servers and tools (Ctrl+B)");
            if sidebar.clicked() {
                view.layout.sidebar_open = !view.layout.sidebar_open;
            }
            ui.heading("Toolscope");
            ui.separator();
            if let Some(server) = model.selected_server() {
                let line = match &server.status {
                    ConnectionStatus::Connected { summary } => format!(
                        "{} · {} {} · protocol {} ({})",
                        server.name,
                        summary
                            .title
                            .as_deref()
                            .or(summary.name.as_deref())
                            .unwrap_or("unnamed server"),
                        summary.version.as_deref().unwrap_or(""),
                        summary.protocol_version,
                        summary.lifecycle
                    ),
                    _ => server.name.clone(),
                };
                ui.label(line);
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let logs = ui.selectable_label(view.logs_open, "Protocol log & stderr");
                if logs.clicked() {
                    view.logs_open = !view.logs_open;
                }
                let mut seconds = model.timeout_seconds();
                let label = ui.label("s");
                let drag = ui
                    .add(
                        egui::DragValue::new(&mut seconds)
                            .range(1.0..=3600.0)
                            .speed(1.0),
                    )
                    .labelled_by(label.id)
                    .on_hover_text("Request timeout in seconds; progress notifications restart it");
                let timeout_label = ui.label("Timeout");
                let drag = drag.labelled_by(timeout_label.id);
                if drag.changed() {
                    actions.push(workbench::Action::SetTimeout(seconds).into());
                }
                if let Some(banner) = model.banner() {
                    if ui.small_button("Dismiss").clicked() {
                        actions.push(workbench::Action::DismissBanner.into());
                    } else {
                        ui.colored_label(ui.visuals().warn_fg_color, banner);
                    }
                }
            });
        });
    });
}
