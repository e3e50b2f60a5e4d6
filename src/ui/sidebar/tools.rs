//! The tools of the selected server: a filter, a count, and a virtualized list that stays
//! smooth with thousands of tools. Long names are clipped (the full name on hover), so one
//! tool cannot push the panel past the window; selection is by position, not by name.

use crate::ui::{actions::Action, view_state::ViewState, widgets};
use crate::workbench::{self, Model};

const ROW_HEIGHT: f32 = 44.0;

pub fn section(model: &Model, view: &mut ViewState, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let Some(server) = model.selected_server() else {
        return;
    };
    ui.horizontal(|ui| {
        ui.strong("Tools");
        if server.is_connected() && ui.small_button("Refresh").clicked() {
            actions.push(workbench::Action::RefreshTools(server.id).into());
        }
    });
    let filter = view.tool_filters.entry(server.id).or_default();
    let filter_label = ui.label("Filter");
    ui.add(
        egui::TextEdit::singleline(&mut filter.text)
            .hint_text("name, title or description")
            .desired_width(f32::INFINITY),
    )
    .labelled_by(filter_label.id);
    if let Some(note) = &server.change_note {
        ui.add(egui::Label::new(
            egui::RichText::new(note).color(ui.visuals().warn_fg_color),
        ));
    }
    if let Some(error) = &server.tools_error {
        ui.colored_label(
            ui.visuals().error_fg_color,
            format!("Listing tools failed: {error}"),
        );
    }
    let Some(catalog) = &server.catalog else {
        ui.weak(if server.is_connected() {
            "Listing tools…"
        } else {
            "Connect the server to see its tools"
        });
        return;
    };
    for warning in &catalog.warnings {
        ui.colored_label(ui.visuals().warn_fg_color, warning);
    }
    let total = catalog.tools.len();
    let indices = filter.matching(catalog);
    if indices.len() == total {
        ui.label(format!("{total} tools"));
    } else {
        ui.label(format!("{} of {total} tools", indices.len()));
    }
    ui.separator();
    egui::ScrollArea::vertical().auto_shrink(false).show_rows(
        ui,
        ROW_HEIGHT,
        indices.len(),
        |ui, rows| {
            for row in rows {
                let index = indices[row];
                let tool = &catalog.tools[index];
                let selected = server.selected_tool == Some(index);
                let clicked = ui
                    .push_id(row, |ui| {
                        ui.set_height(ROW_HEIGHT);
                        tool_row_ui(ui, tool, selected)
                    })
                    .inner;
                if clicked {
                    actions.push(
                        workbench::Action::SelectTool {
                            server: server.id,
                            index,
                        }
                        .into(),
                    );
                }
            }
        },
    );
}

/// One tool: its display name and name (clipped; in full on hover), and its hints.
fn tool_row_ui(ui: &mut egui::Ui, tool: &crate::session::ToolEntry, selected: bool) -> bool {
    ui.vertical(|ui| {
        let label = if tool.problems.is_empty() {
            tool.display_name().to_owned()
        } else {
            format!("⚠ {}", tool.display_name())
        };
        let mut hover = tool.display_name().to_owned();
        if tool.display_name() != tool.name {
            hover = format!("{hover}\n{}", tool.name);
        }
        // The title takes what it needs (clipped at the panel's width), the name the rest.
        let clicked = ui
            .horizontal(|ui| {
                let title = ui
                    .add(egui::Button::selectable(selected, label).truncate())
                    .on_hover_text(hover);
                if tool.display_name() != tool.name {
                    ui.add(egui::Label::new(egui::RichText::new(&tool.name).weak()).truncate());
                }
                title.clicked()
            })
            .inner;
        ui.horizontal(|ui| {
            widgets::hint_badges(ui, &tool.annotations, true);
            if tool.output_schema.is_some() {
                widgets::chip(ui, "output schema", ui.visuals().hyperlink_color);
            }
        });
        clicked
    })
    .inner
}
