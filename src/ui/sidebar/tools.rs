//! The tools of the selected server: a filter, a count, and a virtualized list that stays
//! smooth with thousands of tools. Long names are clipped (the full name on hover), so one
//! tool cannot push the panel past the window; selection is by position, not by name.

use super::SidebarState;
use crate::ui::{
    actions::{Action, ViewChange},
    theme::icons,
};
use crate::workbench::{self, Model};

const ROW_HEIGHT: f32 = 28.0;

pub fn section(
    model: &Model,
    sidebar: &mut SidebarState,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    let Some(server) = model.selected_server() else {
        return;
    };
    let focus_requested = std::mem::take(&mut sidebar.focus_tool_filter);
    let filter = sidebar.tool_filters.entry(server.id).or_default();
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
    let filter_changed = edit.changed();
    if filter_changed {
        filter.cursor = None;
    }
    notes_ui(server, ui, actions);
    let Some(catalog) = &server.catalog else {
        if server.tools_error.is_some() {
            return; // said by notes_ui
        }
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
    let shown = indices.len();
    ui.horizontal(|ui| {
        if shown == total {
            ui.label(format!("{total} tools"));
        } else {
            ui.label(format!("{shown} of {total} tools"));
        }
        if server.is_connected() && super::refresh_button(ui).clicked() {
            actions.push(workbench::ServerAction::RefreshTools(server.id).into());
        }
    });
    ui.separator();
    let mut scroll_to = None;
    if up || down {
        // A row's pitch: show_rows puts the item spacing between rows.
        let pitch = ROW_HEIGHT + ui.spacing().item_spacing.y;
        (cursor, scroll_to) = move_cursor(cursor, down, (indices.len(), pitch), (offset, height));
    }
    // A new filter shows its first match (the list may have been scrolled far down).
    if filter_changed {
        scroll_to = Some(0.0);
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
            workbench::CallAction::SelectTool {
                server: server.id,
                index,
            }
            .into(),
        );
        // Typing goes straight into the picked tool's first argument once it is drawn.
        if let Some(tool) = catalog.tools.get(index) {
            let key = workbench::ToolKey::new(server.id, tool.name.clone());
            actions.push(Action::View(ViewChange::FocusArguments(key)));
        }
    }
}

/// What changed in the server's tools, and why listing them failed.
fn notes_ui(server: &workbench::ServerState, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    if let Some(note) = &server.since_last_time {
        since_last_time_ui(ui, server.id, note, actions);
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
}

/// The list's cursor one row down (or up) among `rows` rows `pitch` apart, and where to scroll
/// (if anywhere) to keep it in view of the list at `(offset, height)`.
fn move_cursor(
    cursor: Option<usize>,
    down: bool,
    (rows, pitch): (usize, f32),
    (offset, height): (f32, f32),
) -> (Option<usize>, Option<f32>) {
    let Some(last) = rows.checked_sub(1) else {
        return (cursor, None);
    };
    let row = match (cursor, down) {
        (None, true) => 0,
        (None, false) => last,
        (Some(row), true) => (row + 1).min(last),
        (Some(row), false) => row.saturating_sub(1),
    };
    let top = row as f32 * pitch;
    let scroll_to = if top < offset {
        Some(top)
    } else if top + pitch > offset + height {
        Some(top + pitch - height)
    } else {
        None
    };
    (Some(row), scroll_to)
}

/// One tool on one line: its display name (clipped; the name and the hints in words on
/// hover), then icons for what it declares: an output schema, read-only, destructive,
/// open-world.
fn tool_row_ui(
    ui: &mut egui::Ui,
    tool: &toolscope_core::session::ToolEntry,
    selected: bool,
) -> bool {
    let mut hover = tool.display_name().to_owned();
    if tool.display_name() != tool.name {
        hover = format!("{hover}\n{}", tool.name);
    }
    let declared = declared_icons(ui, tool);
    if !declared.is_empty() {
        let words: Vec<&str> = declared.iter().map(|(_, _, words)| *words).collect();
        hover = format!("{hover}\n{}", words.join(", "));
    }
    ui.horizontal_centered(|ui| {
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            for (icon, color, words) in declared.iter().rev() {
                ui.label(icon.rich_text().color(*color))
                    .on_hover_text(*words);
            }
            // Last in the right-to-left run: the title gets the room that is left.
            ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                if !tool.problems.is_empty() {
                    ui.label(
                        icons::ICON_WARNING
                            .rich_text()
                            .color(ui.visuals().warn_fg_color),
                    )
                    .on_hover_text("This tool's definition has problems: select it to see them");
                }
                ui.add(egui::Button::selectable(selected, tool.display_name()).truncate())
                    .on_hover_text(hover)
                    .clicked()
            })
            .inner
        })
        .inner
    })
    .inner
}

/// What the tool declares, as icons with their colour and words: an output schema, and the
/// behaviour hints the server sent (destructive only for a tool that is not read-only).
fn declared_icons(
    ui: &egui::Ui,
    tool: &toolscope_core::session::ToolEntry,
) -> Vec<(
    egui_material_icons::MaterialIcon,
    egui::Color32,
    &'static str,
)> {
    let visuals = ui.visuals();
    let hints = &tool.annotations;
    let mut icons = Vec::new();
    if tool.output_schema.is_some() {
        icons.push((
            icons::ICON_DATA_OBJECT,
            visuals.hyperlink_color,
            "output schema",
        ));
    }
    if hints.read_only == Some(true) {
        icons.push((icons::ICON_VISIBILITY, visuals.text_color(), "read-only"));
    } else if hints.destructive == Some(true) {
        icons.push((
            icons::ICON_DELETE_FOREVER,
            visuals.error_fg_color,
            "destructive",
        ));
    }
    if hints.open_world == Some(true) {
        icons.push((icons::ICON_PUBLIC, visuals.text_color(), "open world"));
    }
    icons
}

/// "Since last time: 1 breaking, 2 compatible changes in 3 tools", with each change on
/// opening it, and a way to put it away.
fn since_last_time_ui(
    ui: &mut egui::Ui,
    server: workbench::ServerId,
    note: &workbench::InterfaceNote,
    actions: &mut Vec<Action>,
) {
    let color = if note.breaking > 0 {
        ui.visuals().error_fg_color
    } else {
        ui.visuals().warn_fg_color
    };
    // The header wraps (a long summary must not widen the sidebar); the changes unfold below.
    let id = ui.make_persistent_id(("since_last_time", server));
    egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, false)
        .show_header(ui, |ui| {
            if ui
                .small_button("✕")
                .on_hover_text("Put this note away")
                .clicked()
            {
                actions.push(workbench::ServerAction::DismissSinceLastTime(server).into());
            }
            ui.add(
                egui::Label::new(
                    egui::RichText::new(format!("Since {}: {}", note.since, note.summary))
                        .color(color),
                )
                .wrap(),
            );
        })
        .body(|ui| {
            for change in &note.changes {
                ui.add(egui::Label::new(change).wrap());
            }
        });
}
