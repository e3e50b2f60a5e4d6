//! The tools of the selected server: a filter, a count, and a virtualized list that stays
//! smooth with thousands of tools. Long names are clipped (the full name on hover), so one
//! tool cannot push the panel past the window; selection is by position, not by name.

use crate::ui::{actions::Action, theme::icons, view_state::ViewState, widgets};
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
    let focus_requested = std::mem::take(&mut view.focus_tool_filter);
    let filter = view.tool_filters.entry(server.id).or_default();
    let filter_id = egui::Id::unique(("tool_filter", server.id));
    // Arrow keys and Enter belong to the list while the filter has the focus.
    let (up, down) = if ui.memory(|memory| memory.has_focus(filter_id)) {
        ui.input_mut(|input| {
            (
                input.consume_key(egui::Modifiers::NONE, egui::Key::ArrowUp),
                input.consume_key(egui::Modifiers::NONE, egui::Key::ArrowDown),
            )
        })
    } else {
        (false, false)
    };
    let filter_label = ui.label("Filter");
    let edit = ui
        .add(
            egui::TextEdit::singleline(&mut filter.text)
                .id(filter_id)
                .hint_text("name, title or description (Ctrl+K)")
                .desired_width(f32::INFINITY),
        )
        .labelled_by(filter_label.id);
    if focus_requested {
        edit.request_focus();
    }
    let enter = edit.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter));
    if edit.changed() {
        filter.cursor = None;
    }
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
    let (mut cursor, (offset, height)) = (filter.cursor, filter.scroll);
    let indices = filter.matching(catalog);
    if indices.len() == total {
        ui.label(format!("{total} tools"));
    } else {
        ui.label(format!("{} of {total} tools", indices.len()));
    }
    ui.separator();
    let last = indices.len().checked_sub(1);
    let mut scroll_to = None;
    if let Some(last) = last
        && (up || down)
    {
        let row = match (cursor, down) {
            (None, true) => 0,
            (None, false) => last,
            (Some(row), true) => (row + 1).min(last),
            (Some(row), false) => row.saturating_sub(1),
        };
        cursor = Some(row);
        let top = row as f32 * ROW_HEIGHT;
        if top < offset {
            scroll_to = Some(top);
        } else if top + ROW_HEIGHT > offset + height {
            scroll_to = Some(top + ROW_HEIGHT - height);
        }
    }
    let mut picked = None;
    if enter && let Some(&index) = indices.get(cursor.unwrap_or(0)) {
        picked = Some(index);
    }
    let mut list = egui::ScrollArea::vertical().auto_shrink(false);
    if let Some(top) = scroll_to {
        list = list.vertical_scroll_offset(top.max(0.0));
    }
    let pointed = cursor.filter(|_| edit.has_focus());
    let output = list.show_rows(ui, ROW_HEIGHT, indices.len(), |ui, rows| {
        for row in rows {
            let index = indices[row];
            let tool = &catalog.tools[index];
            let selected = server.selected_tool == Some(index);
            let drawn = ui.push_id(row, |ui| {
                ui.set_height(ROW_HEIGHT);
                tool_row_ui(ui, tool, selected)
            });
            if pointed == Some(row) {
                ui.painter().rect_stroke(
                    drawn.response.rect,
                    4.0,
                    ui.visuals().selection.stroke,
                    egui::StrokeKind::Inside,
                );
            }
            if drawn.inner {
                picked = Some(index);
            }
        }
    });
    filter.cursor = cursor;
    filter.scroll = (output.state.clamped_offset().y, output.inner_rect.height());
    if let Some(index) = picked {
        actions.push(
            workbench::Action::SelectTool {
                server: server.id,
                index,
            }
            .into(),
        );
        // Typing goes straight into the picked tool's first argument once it is drawn.
        view.focus_arguments_of = catalog
            .tools
            .get(index)
            .map(|tool| workbench::ToolKey::new(server.id, tool.name.clone()));
    }
}

/// One tool: its display name and name (clipped; in full on hover), and its hints.
fn tool_row_ui(ui: &mut egui::Ui, tool: &crate::session::ToolEntry, selected: bool) -> bool {
    ui.vertical(|ui| {
        let label = tool.display_name().to_owned();
        let mut hover = tool.display_name().to_owned();
        if tool.display_name() != tool.name {
            hover = format!("{hover}\n{}", tool.name);
        }
        // The title takes what it needs (clipped at the panel's width), the name the rest.
        let clicked = ui
            .horizontal(|ui| {
                if !tool.problems.is_empty() {
                    ui.label(
                        icons::ICON_WARNING
                            .rich_text()
                            .color(ui.visuals().warn_fg_color),
                    )
                    .on_hover_text("This tool's definition has problems: select it to see them");
                }
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
