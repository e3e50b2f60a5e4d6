//! The request side of the selected tool, one column that scrolls as a whole: its name, the
//! Call and Cancel buttons (always in sight at the top), then the arguments, the description
//! and both schemas. It folds away (Ctrl+J) to give the result the whole width.

use std::sync::Arc;

use crate::ui::{
    actions::Action,
    argument_editor::ArgumentEditor,
    dialogs::OpenDialog,
    request_state::RequestState,
    schema_view,
    theme::{self, icons},
    widgets,
};
use crate::workbench::{self, CallState, Model, ToolKey};
use toolscope_core::{
    analysis,
    session::{ToolCatalog, ToolEntry},
};

/// What the column needs to know about the selected tool.
pub struct Request<'a> {
    pub key: &'a ToolKey,
    pub tool: &'a ToolEntry,
    pub catalog: &'a Arc<ToolCatalog>,
    pub index: usize,
    pub connected: bool,
    /// A dialog has the keyboard: Ctrl+Enter and Escape are its own.
    pub dialog_open: bool,
}

/// How long this tool (resource, prompt) took over its calls in the history.
pub fn latency_ui(
    model: &Model,
    ui: &mut egui::Ui,
    server: workbench::ServerId,
    kind: toolscope_core::history::CallKind,
    name: &str,
) {
    let Some(server) = model.server(server) else {
        return;
    };
    if let Some(figures) = model.tool_latency(&server.name, kind, name) {
        // Wrapped in the column: every figure is read (what they mean is on hover).
        let words = figures.describe();
        ui.add(egui::Label::new(egui::RichText::new(&words).weak()).wrap())
            .on_hover_text(format!(
                "{words}\nFrom the history: the median (p50), the 95th percentile and the \
                 slowest of its calls' durations"
            ));
    }
}

pub fn ui(
    model: &Model,
    view: &mut RequestState,
    ui: &mut egui::Ui,
    request: &Request<'_>,
    actions: &mut Vec<Action>,
) {
    let tool = request.tool;
    // Cut to the column; egui shows the whole name on hover when it was cut.
    ui.add(egui::Label::new(egui::RichText::new(tool.display_name()).heading()).truncate());
    if tool.display_name() != tool.name {
        ui.add(egui::Label::new(egui::RichText::new(&tool.name).monospace()).truncate());
    }
    call_bar_ui(model, view, ui, request, actions);
    ui.separator();
    // Text wraps at the column's width; what cannot wrap (a code block, a wide grid) scrolls
    // sideways inside the column instead of widening it.
    egui::ScrollArea::both()
        .id_salt("request_scroll")
        .auto_shrink(false)
        .show(ui, |ui| {
            ui.set_max_width(ui.available_width());
            ui.horizontal_wrapped(|ui| widgets::hint_badges(ui, &tool.annotations));
            latency_ui(
                model,
                ui,
                request.key.server,
                toolscope_core::history::CallKind::Call,
                &tool.name,
            );
            for problem in &tool.problems {
                widgets::warning(ui, &format!("Malformed tool: {problem}"));
            }
            arguments_ui(model, view, ui, request.key, tool);
            ui.add_space(6.0);
            definition_ui(
                view,
                ui,
                (request.catalog, request.index),
                (request.key, tool),
            );
            crate::ui::app_check_view::ui(model, ui, request.key, tool, actions);
            if request.key.server == workbench::DEMO_SERVER
                && let Some(python) =
                    toolscope_core::demo_server::lessons::python_equivalent(&tool.name)
            {
                widgets::code_section(
                    ui,
                    "In Python (official SDK)",
                    ("python", &tool.name),
                    python,
                );
            }
        });
}

/// Call and Cancel, side by side so a double click cannot start and cancel a call; the
/// elapsed time and progress while it runs. Ctrl+Enter calls, Escape cancels. Drawn in the
/// column, or above the result when the column is folded.
pub fn call_bar_ui(
    model: &Model,
    view: &mut RequestState,
    ui: &mut egui::Ui,
    request: &Request<'_>,
    actions: &mut Vec<Action>,
) {
    let key = request.key;
    let running = model.run(key).and_then(|run| match &run.call {
        CallState::Running {
            started,
            progress,
            task,
            ..
        } => Some((started, progress, task)),
        _ => None,
    });
    let dialog_open = request.dialog_open;
    let call_shortcut = !dialog_open
        && ui.input_mut(|input| input.consume_key(egui::Modifiers::COMMAND, egui::Key::Enter));
    let cancel_shortcut = !dialog_open
        && running.is_some()
        && ui.input_mut(|input| input.consume_key(egui::Modifiers::NONE, egui::Key::Escape));
    ui.horizontal(|ui| {
        let can_call = request.connected && running.is_none();
        let call = theme::icon_button(ui, can_call, icons::ICON_PLAY_ARROW, "Call")
            .on_hover_text("Ctrl+Enter");
        if can_call && (call.clicked() || call_shortcut) {
            // The arguments are read after the frame: text typed in this same frame (before
            // Ctrl+Enter) reaches the form only when the form is drawn, below.
            actions.push(Action::CallWithForm {
                tool: key.clone(),
                force: false,
            });
        }
        let cancel = theme::icon_button(ui, running.is_some(), icons::ICON_STOP, "Cancel")
            .on_hover_text("Escape");
        if running.is_some() && (cancel.clicked() || cancel_shortcut) {
            actions.push(workbench::CallAction::Cancel(key.clone()).into());
        }
        // An icon: the Call bar must not widen the column the result shares the window with.
        let save = theme::icon_only_button(ui, icons::ICON_BOOKMARK_ADD, "Save as case…");
        if save.clicked() {
            let arguments = view.editor(model, key, request.tool).arguments();
            actions.push(
                OpenDialog::SaveCase {
                    tool: key.name.clone(),
                    source: workbench::CaseSource::Tool {
                        tool: key.clone(),
                        arguments,
                    },
                }
                .into(),
            );
        }
    });
    // On a line of its own: a growing text beside the buttons would widen the column.
    match running {
        Some((started, _, task)) => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("Running… {:.1} s", started.elapsed().as_secs_f32()));
            });
            // A line of its own: a server's own progress message stays beside it.
            if let Some(task) = task {
                // Long ids (UUIDs) are cut; the whole one is on hover.
                let short_id = if task.id.chars().count() > 20 {
                    format!("{}…", task.id.chars().take(8).collect::<String>())
                } else {
                    task.id.clone()
                };
                ui.add(
                    egui::Label::new(format!(
                        "Task {short_id} · {} (at {:.1} s)",
                        task.status.describe(),
                        task.status.at.as_secs_f32()
                    ))
                    .wrap(),
                )
                .on_hover_text(format!("Task id: {}", task.id));
            }
        }
        None if !request.connected => {
            ui.add(
                egui::Label::new(
                    egui::RichText::new("Connect the server to call its tools").weak(),
                )
                .wrap(),
            );
        }
        None => {}
    }
    if let Some((_, Some(progress), _)) = running {
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
        ui.add(bar.text(text));
    }
}

fn arguments_ui(
    model: &Model,
    view: &mut RequestState,
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
    if view.focus_arguments_of.as_ref() == Some(key) {
        view.focus_arguments_of = None;
        ArgumentEditor::focus_first_field(ui.ctx());
    }
    view.editor(model, key, tool)
        .ui(ui, &format!("arguments-{}-{}", key.server, key.name));
}

/// The description and both schemas, each a section that opens and closes.
fn definition_ui(
    view: &mut RequestState,
    ui: &mut egui::Ui,
    (catalog, index): (&Arc<ToolCatalog>, usize),
    (key, tool): (&ToolKey, &ToolEntry),
) {
    if let Some(description) = &tool.description {
        egui::CollapsingHeader::new("Description")
            .id_salt(("description", &tool.name))
            .default_open(true)
            .show(ui, |ui| {
                widgets::capped_markdown::ui(ui, &mut view.markdown, "description_md", description);
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
    let open_now = view.open_output_schema_of.as_ref() == Some(key);
    if open_now {
        view.open_output_schema_of = None;
    }
    egui::CollapsingHeader::new(output_title)
        .id_salt(("output_schema", &tool.name))
        .open(open_now.then_some(true))
        .show(ui, |ui| match &tool.output_schema {
            Some(schema) => {
                if let Some(wrapping) = analysis::output_schema_wraps(schema) {
                    widgets::note(ui, &wrapping.explanation);
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
}
