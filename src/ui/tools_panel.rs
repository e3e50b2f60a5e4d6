//! The tools of the selected server: a filter, a count, and a virtualized list that stays
//! smooth with thousands of tools.

use super::{actions::Action, app::ToolscopeApp, widgets};

const ROW_HEIGHT: f32 = 44.0;

pub fn ui(app: &mut ToolscopeApp, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let selected_server = app.selected_server;
    let Some(server) = app.servers.iter_mut().find(|s| s.id == selected_server) else {
        return;
    };
    egui::Panel::left("tools_panel")
        .resizable(true)
        .default_size(280.0)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.strong("Tools");
                if server.is_connected() && ui.small_button("Refresh").clicked() {
                    actions.push(Action::RefreshTools(server.id));
                }
            });
            let filter_label = ui.label("Filter");
            ui.add(
                egui::TextEdit::singleline(&mut server.tool_filter)
                    .hint_text("name, title or description")
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(filter_label.id);
            if let Some(note) = &server.change_note {
                ui.colored_label(ui.visuals().warn_fg_color, note);
            }
            if let Some(error) = &server.tools_error {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    format!("Listing tools failed: {error}"),
                );
            }
            let Some(total) = server.catalog.as_ref().map(|c| c.tools.len()) else {
                ui.weak(if server.is_connected() {
                    "Listing tools…"
                } else {
                    "Connect the server to see its tools"
                });
                return;
            };
            if let Some(catalog) = &server.catalog {
                for warning in &catalog.warnings {
                    ui.colored_label(ui.visuals().warn_fg_color, warning);
                }
            }
            let indices = server.filtered_tool_indices().to_vec();
            if indices.len() == total {
                ui.label(format!("{total} tools"));
            } else {
                ui.label(format!("{} of {total} tools", indices.len()));
            }
            ui.separator();
            let Some(catalog) = &server.catalog else {
                return;
            };
            egui::ScrollArea::vertical().auto_shrink(false).show_rows(
                ui,
                ROW_HEIGHT,
                indices.len(),
                |ui, rows| {
                    for row in rows {
                        let tool = &catalog.tools[indices[row]];
                        let selected = server.selected_tool.as_deref() == Some(tool.name.as_str());
                        let response = ui
                            .push_id(row, |ui| {
                                ui.set_height(ROW_HEIGHT);
                                ui.vertical(|ui| {
                                    ui.horizontal(|ui| {
                                        let label = if tool.problems.is_empty() {
                                            tool.display_name().to_owned()
                                        } else {
                                            format!("⚠ {}", tool.display_name())
                                        };
                                        let clicked =
                                            ui.selectable_label(selected, label).clicked();
                                        if tool.display_name() != tool.name {
                                            ui.weak(&tool.name);
                                        }
                                        clicked
                                    })
                                    .inner
                                        | ui.horizontal(|ui| {
                                            widgets::hint_badges(ui, &tool.annotations, true);
                                            if tool.output_schema.is_some() {
                                                widgets::chip(
                                                    ui,
                                                    "output schema",
                                                    ui.visuals().hyperlink_color,
                                                );
                                            }
                                        })
                                        .response
                                        .clicked()
                                })
                                .inner
                            })
                            .inner;
                        if response {
                            actions.push(Action::SelectTool(server.id, tool.name.clone()));
                        }
                    }
                },
            );
        });
}
