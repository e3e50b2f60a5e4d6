//! The bar at the top: the app's name, the selected server in a line, the timeout, the logs.

use crate::ui::{
    actions::{Action, ViewChange},
    theme::{self, icons},
    view_state::ViewState,
};
use crate::workbench::{self, ConnectionStatus, Model, ServerState};

/// Reads the view (what is open, the colours) to draw its toggles; what they change is asked
/// for by actions.
pub fn ui(model: &Model, view: &ViewState, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    egui::Panel::top("top_bar").show(ui, |ui| {
        ui.horizontal(|ui| {
            let sidebar = theme::icon_toggle(
                ui,
                view.layout.sidebar_open,
                icons::ICON_MENU,
                "Show or hide the servers and tools (Ctrl+B)",
            );
            if sidebar.clicked() {
                actions.push(Action::View(ViewChange::ToggleSidebar));
            }
            ui.heading("Toolscope");
            ui.separator();
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let touring = view.stage.tour.is_some();
                let tour = theme::icon_toggle(
                    ui,
                    touring,
                    icons::ICON_SCHOOL,
                    "The guided tour of the demo server: seven lessons on content and structuredContent",
                );
                if tour.clicked() {
                    actions.push(Action::View(ViewChange::ToggleTour));
                }
                let presenting = view.stage.presenting.is_some();
                let present = theme::icon_toggle(
                    ui,
                    presenting,
                    icons::ICON_CO_PRESENT,
                    "Presentation mode: big, high-contrast, sidebars folded (F5)",
                );
                if present.clicked() {
                    actions.push(Action::View(ViewChange::TogglePresentation));
                }
                let (icon, name) = match view.layout.appearance {
                    toolscope_core::settings::Appearance::System => (icons::ICON_BRIGHTNESS_AUTO, "the system's"),
                    toolscope_core::settings::Appearance::Light => (icons::ICON_LIGHT_MODE, "light"),
                    toolscope_core::settings::Appearance::Dark => (icons::ICON_DARK_MODE, "dark"),
                };
                let appearance = theme::icon_toggle(
                    ui,
                    false,
                    icon,
                    &format!("Colours: {name}; click for the next (system, light, dark)"),
                );
                if appearance.clicked() {
                    actions.push(Action::View(ViewChange::NextAppearance));
                }
                let logs = ui.selectable_label(view.logs.open, "Protocol log & stderr");
                if logs.clicked() {
                    actions.push(Action::View(ViewChange::ToggleLogs));
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
                    // Last in the right-to-left run, so it gets the room that is left (cut
                    // with "…"), laid out from the left.
                    ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                        ui.add(egui::Label::new(line).truncate())
                            .on_hover_ui(|ui| {
                                ui.label(negotiated_text(server));
                            });
                    });
                }
            });
        });
    });
}

/// The banner, in a strip of its own under the top bar: a message wraps (a written file's
/// whole path is read), with what can be done with the file it names.
pub fn banner_ui(model: &Model, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let Some(banner) = model.banner() else {
        return;
    };
    egui::Panel::top("banner").show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            let text = egui::RichText::new(banner).color(ui.visuals().warn_fg_color);
            ui.add(egui::Label::new(text).wrap().selectable(true));
            // A file just written: open it, show its folder, or copy where it is.
            if let Some(file) = model.written_file() {
                let path = file.display().to_string();
                if ui
                    .small_button("Show in folder")
                    .on_hover_text(&path)
                    .clicked()
                {
                    actions.push(Action::View(ViewChange::ShowInFolder(file.to_owned())));
                }
                if ui.small_button("Open").on_hover_text(&path).clicked() {
                    actions.push(Action::View(ViewChange::OpenFile(file.to_owned())));
                }
                if ui.small_button("Copy path").on_hover_text(&path).clicked() {
                    ui.ctx().copy_text(path);
                }
            }
            if ui.small_button("Dismiss").clicked() {
                actions.push(workbench::Action::DismissBanner.into());
            }
        });
    });
}

/// What the server offers and what Toolscope declared to it, for the negotiated line's hover.
fn negotiated_text(server: &ServerState) -> String {
    let declared = server.client.declared.names();
    let declared = if declared.is_empty() {
        "nothing".to_owned()
    } else {
        declared.join(", ")
    };
    let offered = match &server.status {
        ConnectionStatus::Connected { summary } => summary
            .capabilities
            .as_object()
            .map(|capabilities| capabilities.keys().cloned().collect::<Vec<_>>().join(", "))
            .filter(|names| !names.is_empty())
            .unwrap_or_else(|| "nothing".to_owned()),
        _ => "(not connected)".to_owned(),
    };
    format!("The server offers: {offered}\nToolscope declares as its client: {declared}")
}
