//! The selected tool: what it is (description, both schemas), its arguments and the Call
//! button above, and its result below.

use std::sync::Arc;

use super::{actions::Action, result_view, schema_view, view_state::ViewState, widgets};
use crate::{
    analysis,
    session::{ToolCatalog, ToolEntry},
    workbench::{self, CallState, Model, ToolKey},
};

/// The tool area never shrinks below this, so the arguments stay reachable.
const MIN_TOOL_AREA: f32 = 220.0;
/// Height kept for the Call bar under the tool's scrolling area.
const CALL_BAR_HEIGHT: f32 = 34.0;

pub fn ui(model: &Model, view: &mut ViewState, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let Some(server) = model.selected_server() else {
        return;
    };
    let (Some(tool), Some(catalog), Some(index)) = (
        server.selected_tool_entry(),
        server.catalog.as_ref(),
        server.selected_tool,
    ) else {
        ui.centered_and_justified(|ui| {
            ui.weak(if server.is_connected() {
                "Pick a tool on the left"
            } else {
                "Connect a server, then pick one of its tools"
            });
        });
        return;
    };
    let key = ToolKey::new(server.id, tool.name.clone());
    let connected = server.is_connected();
    let run = model.run(&key);
    // A vertical split the user can drag: the tool and its arguments above, the result below.
    let total = ui.available_height();
    let area_height =
        (total * view.tool_area_fraction).clamp(MIN_TOOL_AREA.min(total), total.max(MIN_TOOL_AREA));
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
                tool_header_ui(view, ui, (catalog, index), tool);
                arguments_ui(model, view, ui, &key, tool);
            });
        call_bar_ui(model, view, ui, &key, tool, connected, actions);
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
        view.tool_area_fraction = ((area_height + handle.drag_delta().y) / total).clamp(0.15, 0.9);
    }
    let Some(run) = run else {
        ui.weak(
            "Call the tool to see both halves of its result: the content a model reads, \
             and the structuredContent an application reads",
        );
        return;
    };
    if run.result_pending() && !matches!(run.call, CallState::Failed(_)) {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.weak("Loading the last result…");
        });
        return;
    }
    match (&run.call, &run.last_record) {
        (CallState::Failed(failure), _) => {
            let color = if failure.is_cancel() {
                ui.visuals().weak_text_color()
            } else {
                ui.visuals().error_fg_color
            };
            ui.colored_label(color, failure.headline());
            ui.add(
                egui::Label::new(failure.to_string())
                    .wrap()
                    .selectable(true),
            );
            if matches!(failure, workbench::CallFailure::Excluded { .. })
                && ui.button("Call anyway").clicked()
            {
                let arguments = view.tool_view(model, &key, tool).editor.arguments();
                actions.push(
                    workbench::Action::Call {
                        tool: key.clone(),
                        arguments,
                        force: true,
                    }
                    .into(),
                );
            }
        }
        (_, Some(record)) => {
            let tree = &mut view.tool_view(model, &key, tool).tree;
            result_view::ui(ui, &key, tool, record, tree, actions);
        }
        (_, None) => {
            ui.weak(
                "Call the tool to see both halves of its result: the content a model reads, \
                 and the structuredContent an application reads",
            );
        }
    }
}

fn tool_header_ui(
    view: &mut ViewState,
    ui: &mut egui::Ui,
    (catalog, index): (&Arc<ToolCatalog>, usize),
    tool: &ToolEntry,
) {
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
                egui_commonmark::CommonMarkViewer::new().show(ui, &mut view.markdown, description);
            });
    }
    egui::CollapsingHeader::new("Input schema")
        .id_salt(("input_schema", &tool.name))
        .show(ui, |ui| match &tool.input_schema {
            Some(schema) => schema_view::ui(ui, ("input", &tool.name), schema, || {
                view.schema_texts.get(catalog, index, false)
            }),
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
                schema_view::ui(ui, ("output", &tool.name), schema, || {
                    view.schema_texts.get(catalog, index, true)
                });
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

fn arguments_ui(
    model: &Model,
    view: &mut ViewState,
    ui: &mut egui::Ui,
    key: &ToolKey,
    tool: &ToolEntry,
) {
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
    if let Some(note) = model.run(key).and_then(|run| run.note.as_ref()) {
        ui.colored_label(ui.visuals().hyperlink_color, note);
    }
    view.tool_view(model, key, tool)
        .editor
        .ui(ui, &format!("arguments-{}-{}", key.server, key.name));
}

/// Call (or Cancel, elapsed time and progress while it runs).
fn call_bar_ui(
    model: &Model,
    view: &mut ViewState,
    ui: &mut egui::Ui,
    key: &ToolKey,
    tool: &ToolEntry,
    connected: bool,
    actions: &mut Vec<Action>,
) {
    let call_shortcut =
        ui.input_mut(|input| input.consume_key(egui::Modifiers::COMMAND, egui::Key::Enter));
    let running = model.run(key).and_then(|run| match &run.call {
        CallState::Running {
            started, progress, ..
        } => Some((started, progress)),
        _ => None,
    });
    ui.horizontal(|ui| match running {
        Some((started, progress)) => {
            if ui.button("Cancel").clicked() {
                actions.push(workbench::Action::Cancel(key.clone()).into());
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
        None => {
            let button = ui.add_enabled(connected, egui::Button::new("Call"));
            let button = button.on_hover_text("Ctrl+Enter");
            if connected && (button.clicked() || call_shortcut) {
                let arguments = view.tool_view(model, key, tool).editor.arguments();
                actions.push(
                    workbench::Action::Call {
                        tool: key.clone(),
                        arguments,
                        force: false,
                    }
                    .into(),
                );
            }
            if !connected {
                ui.weak("Connect the server to call its tools");
            }
        }
    });
}
