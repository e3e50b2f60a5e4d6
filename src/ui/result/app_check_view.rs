//! A tool's MCP App (`_meta.ui.resourceUri`): run in the browser (`app_run_view`), and its
//! `ui://` resource read and checked the way a host would, each finding in words, with the
//! HTML source.

use egui::RichText;

use crate::ui::{
    actions::Action,
    theme::{self, icons},
};
use crate::workbench::{self, Model, ToolKey, model::resources::AppCheckState};
use toolscope_core::{interface::mcp_app, session::ToolEntry};

/// Longest HTML source shown (the rest is in the resource itself).
const MAX_SOURCE: usize = 100_000;

pub fn ui(
    model: &Model,
    ui: &mut egui::Ui,
    key: &ToolKey,
    tool: &ToolEntry,
    actions: &mut Vec<Action>,
) {
    let Some(uri) = mcp_app::ui_resource_uri(&tool.raw) else {
        return;
    };
    egui::CollapsingHeader::new("UI resource (MCP App)")
        .id_salt(("app_check", &tool.name))
        .default_open(true)
        .show(ui, |ui| {
            ui.add(egui::Label::new(RichText::new(&uri).monospace()).wrap());
            super::app_run_view::ui(model, ui, key, actions);
            ui.separator();
            let state = model.app_check(key);
            let checking = matches!(state, Some(AppCheckState::Checking));
            let label = if state.is_some() {
                "Check again"
            } else {
                "Read and check"
            };
            if ui
                .add_enabled(!checking, egui::Button::new(label))
                .on_hover_text("resources/read, then what a host checks before it renders the app")
                .clicked()
            {
                actions.push(workbench::ResourceAction::CheckApp(key.clone()).into());
            }
            match state {
                None => {}
                Some(AppCheckState::Checking) => {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("Reading…");
                    });
                }
                Some(AppCheckState::Done(Err(error))) => {
                    ui.colored_label(ui.visuals().error_fg_color, error);
                }
                Some(AppCheckState::Done(Ok(check))) => {
                    let palette = theme::palette(ui.visuals());
                    for finding in &check.findings {
                        let mark = if finding.ok {
                            icons::ICON_CHECK_CIRCLE.rich_text().color(palette.good)
                        } else {
                            icons::ICON_ERROR.rich_text().color(palette.error)
                        };
                        ui.horizontal_wrapped(|ui| {
                            ui.label(mark);
                            ui.add(egui::Label::new(&finding.text).wrap());
                        });
                    }
                    if let Some(html) = &check.html {
                        egui::CollapsingHeader::new("HTML source")
                            .id_salt(("app_source", &tool.name))
                            .show(ui, |ui| {
                                let shown = toolscope_core::text_util::cut_at_char_boundary(
                                    html, MAX_SOURCE,
                                );
                                egui::ScrollArea::vertical()
                                    .max_height(300.0)
                                    .show(ui, |ui| {
                                        ui.add(
                                            egui::Label::new(RichText::new(shown).monospace())
                                                .wrap(),
                                        );
                                    });
                            });
                    }
                }
            }
        });
}
