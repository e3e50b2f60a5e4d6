//! The selected tool: what it is (description, both schemas), its arguments and the Call
//! button above, and its result below.

use super::{
    actions::Action, app::ToolscopeApp, result_view, schema_view, state::CallState, widgets,
};
use crate::{analysis, session::ToolEntry};

/// The tool area never shrinks below this, so the arguments stay reachable.
const MIN_TOOL_AREA: f32 = 220.0;
/// Height kept for the Call bar under the tool's scrolling area.
const CALL_BAR_HEIGHT: f32 = 34.0;

pub fn ui(app: &mut ToolscopeApp, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let server_id = app.selected_server;
    let Some(server) = app.server(server_id) else {
        return;
    };
    let Some(tool) = server.selected_tool_entry().cloned() else {
        ui.centered_and_justified(|ui| {
            ui.weak(if server.is_connected() {
                "Pick a tool on the left"
            } else {
                "Connect a server, then pick one of its tools"
            });
        });
        return;
    };
    let connected = server.is_connected();
    // A vertical split the user can drag: the tool and its arguments above, the result below.
    let total = ui.available_height();
    let area_height =
        (total * app.tool_area_fraction).clamp(MIN_TOOL_AREA.min(total), total.max(MIN_TOOL_AREA));
    let width = ui.available_width();
    ui.allocate_ui(egui::vec2(width, area_height), |ui| {
        ui.set_min_size(egui::vec2(width, area_height));
        // The Call bar stays in sight below the scrolling part.
        let scroll_height = (area_height - CALL_BAR_HEIGHT).max(60.0);
        egui::ScrollArea::vertical()
            .id_salt("tool_scroll")
            .auto_shrink(false)
            .max_height(scroll_height)
            .min_scrolled_height(scroll_height)
            .show(ui, |ui| {
                tool_header_ui(app, ui, &tool);
                arguments_ui(app, ui, server_id, &tool);
            });
        call_bar_ui(app, ui, server_id, &tool, connected, actions);
    });
    let (handle_rect, handle) = ui.allocate_exact_size(egui::vec2(width, 6.0), egui::Sense::drag());
    let stroke = if handle.hovered() || handle.dragged() {
        ui.visuals().widgets.active.fg_stroke
    } else {
        ui.visuals().widgets.noninteractive.bg_stroke
    };
    ui.painter()
        .hline(handle_rect.x_range(), handle_rect.center().y, stroke);
    if handle.hovered() || handle.dragged() {
        ui.ctx().set_cursor_icon(egui::CursorIcon::ResizeVertical);
    }
    if handle.dragged() && total > 0.0 {
        app.tool_area_fraction = ((area_height + handle.drag_delta().y) / total).clamp(0.15, 0.9);
    }
    let Some(state) = app.tools.get_mut(&(server_id, tool.name.clone())) else {
        ui.weak("Call the tool to see its result here");
        return;
    };
    match (&state.call, &state.last_record) {
        (CallState::Failed { message }, _) => {
            ui.colored_label(ui.visuals().error_fg_color, "The call failed");
            ui.add(egui::Label::new(message.as_str()).wrap().selectable(true));
        }
        (_, Some(record)) => {
            let record = record.clone();
            result_view::ui(ui, server_id, &tool, &record, &mut state.tree, actions);
        }
        (_, None) => {
            ui.weak(
                "Call the tool to see both halves of its result: the content a model reads, \
                 and the structuredContent an application reads",
            );
        }
    }
}

fn tool_header_ui(app: &mut ToolscopeApp, ui: &mut egui::Ui, tool: &ToolEntry) {
    ui.horizontal_wrapped(|ui| {
        ui.heading(tool.display_name());
        if tool.display_name() != tool.name {
            ui.monospace(&tool.name);
        }
    });
    ui.horizontal_wrapped(|ui| widgets::hint_badges(ui, &tool.annotations, false));
    for problem in &tool.problems {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("⚠ Malformed tool: {problem}"),
        );
    }
    if let Some(description) = &tool.description {
        egui::CollapsingHeader::new("Description")
            .id_salt(("description", &tool.name))
            .default_open(true)
            .show(ui, |ui| {
                egui_commonmark::CommonMarkViewer::new().show(ui, &mut app.markdown, description);
            });
    }
    egui::CollapsingHeader::new("Input schema")
        .id_salt(("input_schema", &tool.name))
        .show(ui, |ui| match &tool.input_schema {
            Some(schema) => schema_view::ui(ui, ("input", &tool.name), schema),
            None => {
                ui.colored_label(ui.visuals().warn_fg_color, "This tool sent no input schema");
            }
        });
    let output_title = if tool.output_schema.is_some() {
        "Output schema"
    } else {
        "Output schema (none)"
    };
    egui::CollapsingHeader::new(output_title)
        .id_salt(("output_schema", &tool.name))
        .default_open(tool.output_schema.is_some())
        .show(ui, |ui| match &tool.output_schema {
            Some(schema) => {
                if let Some(wrapping) = analysis::output_schema_wraps(schema) {
                    ui.colored_label(
                        ui.visuals().hyperlink_color,
                        format!("ℹ {}", wrapping.explanation),
                    );
                }
                schema_view::ui(ui, ("output", &tool.name), schema);
            }
            None => {
                ui.label(
                    "This tool declares no output schema: an application gets no typed result \
                     unless the tool still sends structuredContent",
                );
            }
        });
    ui.separator();
}

fn arguments_ui(app: &mut ToolscopeApp, ui: &mut egui::Ui, server: u64, tool: &ToolEntry) {
    let Some(state) = app.tool_state(server, &tool.name) else {
        return;
    };
    ui.strong("Arguments");
    let declares_none = tool
        .input_schema
        .as_ref()
        .and_then(|schema| schema.get("properties"))
        .and_then(serde_json::Value::as_object)
        .is_none_or(serde_json::Map::is_empty);
    if declares_none {
        ui.weak("This tool declares no arguments");
    }
    if let Some(note) = &state.note {
        ui.colored_label(ui.visuals().hyperlink_color, note);
    }
    state
        .editor
        .ui(ui, &format!("arguments-{server}-{}", tool.name));
}

/// Call (or Cancel, elapsed time and progress while it runs).
fn call_bar_ui(
    app: &mut ToolscopeApp,
    ui: &mut egui::Ui,
    server: u64,
    tool: &ToolEntry,
    connected: bool,
    actions: &mut Vec<Action>,
) {
    let Some(state) = app.tool_state(server, &tool.name) else {
        return;
    };
    let call_shortcut =
        ui.input_mut(|input| input.consume_key(egui::Modifiers::COMMAND, egui::Key::Enter));
    ui.horizontal(|ui| match &state.call {
        CallState::Running {
            started, progress, ..
        } => {
            if ui.button("Cancel").clicked() {
                actions.push(Action::Cancel(server, tool.name.clone()));
            }
            ui.spinner();
            ui.label(format!("Running… {:.1} s", started.elapsed().as_secs_f32()));
            if let Some(progress) = progress {
                let fraction = progress
                    .total
                    .filter(|total| *total > 0.0)
                    .map(|total| (progress.progress / total) as f32);
                let text = match (&progress.message, progress.total) {
                    (Some(message), _) => message.clone(),
                    (None, Some(total)) => format!("{} of {total}", progress.progress),
                    (None, None) => format!("{}", progress.progress),
                };
                let bar = match fraction {
                    Some(fraction) => egui::ProgressBar::new(fraction.clamp(0.0, 1.0)),
                    None => egui::ProgressBar::new(0.0).animate(true),
                };
                ui.add(bar.text(text).desired_width(240.0));
            }
        }
        _ => {
            let button = ui.add_enabled(connected, egui::Button::new("Call"));
            let button = button.on_hover_text("Ctrl+Enter");
            if connected && (button.clicked() || call_shortcut) {
                actions.push(Action::Call(server, tool.name.clone()));
            }
            if !connected {
                ui.weak("Connect the server to call its tools");
            }
        }
    });
}
