//! Load on the Server tab: a small form (tool, arguments, callers, calls, one shared session),
//! Start and Stop, the run's progress, then its figures and latency histogram, as the
//! command line's `toolscope load` prints them.

use serde_json::{Map, Value};

use crate::ui::{
    actions::Action, argument_editor::ArgumentEditor, panels::request_state::RequestState,
};
use crate::workbench::{
    LoadAction, Model, ServerState, ToolKey,
    load_run::{LoadRunState, LoadRunView},
};
use toolscope_core::{
    load::{HistogramBar, LoadFigures},
    text_util::count_noun,
};

/// What the form holds between frames (per server, in egui's memory).
#[derive(Debug, Clone)]
struct LoadForm {
    tool: Option<String>,
    arguments: String,
    concurrency: usize,
    calls: u64,
    shared: bool,
}

impl Default for LoadForm {
    fn default() -> Self {
        Self {
            tool: None,
            arguments: String::new(),
            concurrency: 4,
            calls: 200,
            shared: false,
        }
    }
}

/// The most callers and calls the form offers (the command line goes further).
const MAX_CALLERS: usize = 64;
const MAX_CALLS: u64 = 1_000_000;
/// How tall the histogram is drawn.
const HISTOGRAM_HEIGHT: f32 = 110.0;

pub fn ui(
    (model, request): (&Model, &RequestState),
    server: &ServerState,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    ui.strong("Load");
    ui.add(
        egui::Label::new(
            "Call one tool from several callers at once, each on a session of its own (over \
             stdio, a server process each) or all on one, then see the calls per second, the \
             latency and the errors by kind. Load calls are not kept in the history.",
        )
        .wrap(),
    );
    let run = model.load_run().filter(|run| run.server == server.id);
    let running = run.is_some_and(LoadRunView::is_running);
    let id = egui::Id::unique(("load_form", server.id));
    let mut form: LoadForm = ui.data(|data| data.get_temp(id)).unwrap_or_default();
    let names: Vec<&str> = server
        .catalog
        .as_ref()
        .map(|catalog| {
            catalog
                .tools
                .iter()
                .map(|tool| tool.name.as_str())
                .collect()
        })
        .unwrap_or_default();
    if form
        .tool
        .as_deref()
        .is_none_or(|tool| !names.contains(&tool))
    {
        // The tool picked in the sidebar, else the first one, with its last arguments.
        let picked = server
            .selected_tool_entry()
            .map(|tool| tool.name.as_str())
            .or(names.first().copied());
        form.tool = picked.map(str::to_owned);
        form.arguments = remembered((model, request), server, picked);
    }
    egui::Grid::new(("load_form_grid", server.id))
        .num_columns(2)
        .show(ui, |ui| {
            let label = ui.label("Tool");
            egui::ComboBox::from_id_salt(("load_tool", server.id))
                .selected_text(form.tool.as_deref().unwrap_or("(no tools)"))
                .height(300.0)
                .show_ui(ui, |ui| {
                    for name in &names {
                        let chosen = form.tool.as_deref() == Some(name);
                        if ui.selectable_label(chosen, *name).clicked() && !chosen {
                            form.tool = Some((*name).to_owned());
                            form.arguments = remembered((model, request), server, Some(name));
                        }
                    }
                })
                .response
                .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Load arguments (JSON)");
            ui.add(
                egui::TextEdit::singleline(&mut form.arguments)
                    .code_editor()
                    .desired_width(360.0),
            )
            .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Callers");
            ui.add(egui::DragValue::new(&mut form.concurrency).range(1..=MAX_CALLERS))
                .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Calls in all");
            ui.add(egui::DragValue::new(&mut form.calls).range(1..=MAX_CALLS))
                .labelled_by(label.id);
            ui.end_row();
        });
    ui.checkbox(&mut form.shared, "One shared session")
        .on_hover_text(
            "All callers on one session (one server process), their calls in flight at once",
        );
    let arguments = parse_arguments(&form.arguments);
    ui.horizontal(|ui| {
        if running {
            let stopping = matches!(
                run.map(|run| &run.state),
                Some(LoadRunState::Running { stopping: true, .. })
            );
            if ui
                .add_enabled(!stopping, egui::Button::new("Stop load"))
                .clicked()
            {
                actions.push(LoadAction::Stop.into());
            }
        } else {
            // One run at a time, whichever server's it is.
            let elsewhere = model
                .load_run()
                .filter(|other| other.server != server.id && other.is_running())
                .and_then(|other| model.server(other.server))
                .map(|other| other.name.clone());
            let ready = form.tool.is_some() && arguments.is_ok() && elsewhere.is_none();
            let mut start = ui.add_enabled(ready, egui::Button::new("Start load"));
            if let Some(other) = &elsewhere {
                start = start.on_disabled_hover_text(format!(
                    "A load run on {other} is under way: one run at a time"
                ));
            }
            if start.clicked()
                && let (Some(tool), Ok(arguments)) = (form.tool.clone(), arguments.clone())
            {
                actions.push(
                    LoadAction::Start {
                        server: server.id,
                        tool,
                        arguments,
                        concurrency: form.concurrency,
                        calls: form.calls,
                        shared: form.shared,
                    }
                    .into(),
                );
            }
            if run.is_some() && ui.button("Close").clicked() {
                actions.push(LoadAction::Close.into());
            }
        }
    });
    if let Err(problem) = &arguments {
        ui.colored_label(ui.visuals().error_fg_color, problem.to_string());
    }
    ui.data_mut(|data| data.insert_temp(id, form));
    if let Some(run) = run {
        run_ui(run, ui);
    }
}

/// The arguments for `tool`, as JSON text: as its form in the request column holds them
/// (defaults filled in), else the last sent, else `{}`.
fn remembered(
    (model, request): (&Model, &RequestState),
    server: &ServerState,
    tool: Option<&str>,
) -> String {
    let Some(tool) = tool else {
        return "{}".to_owned();
    };
    let key = ToolKey {
        server: server.id,
        name: tool.to_owned(),
    };
    let in_form = request.existing_editor(&key).map(ArgumentEditor::arguments);
    let last = server
        .last_call
        .as_ref()
        .filter(|(name, _)| name == tool)
        .map(|(_, arguments)| arguments)
        .or_else(|| model.remembered_arguments(&key));
    in_form.as_ref().or(last).map_or_else(
        || "{}".to_owned(),
        |arguments| serde_json::to_string(arguments).unwrap_or_else(|_| "{}".to_owned()),
    )
}

/// Why the arguments typed cannot be sent.
#[derive(Debug, Clone, thiserror::Error)]
enum ArgumentsProblem {
    #[error("The arguments must be a JSON object, like {{\"a\": 1}}")]
    NotAnObject,
    #[error("The arguments are not JSON: {0}")]
    NotJson(String),
}

fn parse_arguments(text: &str) -> Result<Map<String, Value>, ArgumentsProblem> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(arguments)) => Ok(arguments),
        Ok(_) => Err(ArgumentsProblem::NotAnObject),
        Err(error) => Err(ArgumentsProblem::NotJson(error.to_string())),
    }
}

fn run_ui(run: &LoadRunView, ui: &mut egui::Ui) {
    match &run.state {
        LoadRunState::Running {
            since,
            progress,
            stopping,
            ..
        } => {
            let text = if progress.elapsed.is_zero() {
                format!(
                    "connecting {} ({:.0} s)…",
                    count_noun(run.sessions, "session", "sessions"),
                    since.elapsed().as_secs_f64()
                )
            } else {
                format!(
                    "{} of {} calls · {} · {:.1} s{}",
                    progress.done,
                    run.planned_calls,
                    count_noun(progress.failed as usize, "error", "errors"),
                    progress.elapsed.as_secs_f64(),
                    if *stopping { " · stopping…" } else { "" }
                )
            };
            ui.add(egui::ProgressBar::new(run.fraction()).text(text));
        }
        LoadRunState::Failed(problem) => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("The load run did not run: {problem}"),
            );
        }
        LoadRunState::Done(figures) => figures_ui(&run.tool, figures, ui),
    }
}

fn figures_ui(tool: &str, figures: &LoadFigures, ui: &mut egui::Ui) {
    let how = if figures.shared {
        "on one shared session"
    } else {
        "on a session each"
    };
    ui.label(format!(
        "{tool}: {} {how} · {} of {} in {:.2} s · {:.1} calls/s (connecting took {:.2} s)",
        count_noun(figures.concurrency, "caller", "callers"),
        count_noun(figures.calls as usize, "call", "calls"),
        figures.planned_calls.unwrap_or(figures.calls),
        figures.seconds,
        figures.calls_per_second,
        figures.connect_seconds
    ));
    if figures.interrupted {
        ui.label(format!(
            "Stopped before its end: the figures so far ({} under way cancelled, not counted)",
            count_noun(figures.stopped as usize, "call", "calls")
        ));
    }
    for note in &figures.notes {
        crate::ui::widgets::note(ui, note);
    }
    ui.label(format!(
        "ok {} · errors {}",
        figures.ok,
        figures.errors.total()
    ));
    for words in figures.errors_in_words() {
        ui.colored_label(ui.visuals().error_fg_color, words);
    }
    if figures.lost_sessions > 0 {
        ui.label(format!(
            "{} closed during the run: their callers stopped",
            count_noun(figures.lost_sessions as usize, "session", "sessions")
        ));
    }
    match &figures.latency {
        Some(latency) => {
            ui.label(format!(
                "latency p50 {:.2} ms · p95 {:.2} ms · p99 {:.2} ms · max {:.2} ms (min {:.2} ms, \
                 mean {:.2} ms, over {})",
                latency.p50_ms,
                latency.p95_ms,
                latency.p99_ms,
                latency.max_ms,
                latency.min_ms,
                latency.mean_ms,
                count_noun(latency.answered as usize, "answered call", "answered calls")
            ));
            histogram_ui(&figures.histogram, ui);
        }
        None => {
            ui.label("No call was answered, so there is no latency");
        }
    }
    ui.label(format!(
        "server memory: {}",
        figures.server_memory.describe()
    ));
}

/// The bars on a logarithmic time axis, the fastest on the left; a bar's range and count on
/// hover.
fn histogram_ui(bars: &[HistogramBar], ui: &mut egui::Ui) {
    let (Some(first), Some(last)) = (bars.first(), bars.last()) else {
        return;
    };
    let most = bars.iter().map(|bar| bar.calls).max().unwrap_or(0).max(1);
    let width = ui.available_width().min(640.0);
    let (rect, response) =
        ui.allocate_exact_size(egui::vec2(width, HISTOGRAM_HEIGHT), egui::Sense::hover());
    let summary = format!(
        "Latency histogram: {} bars from {:.2} ms to {:.2} ms, the tallest {}",
        bars.len(),
        first.from_ms,
        last.to_ms,
        count_noun(most as usize, "call", "calls")
    );
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, summary.clone()));
    let painter = ui.painter_at(rect);
    let visuals = ui.visuals();
    painter.rect_stroke(
        rect,
        2.0,
        visuals.widgets.noninteractive.bg_stroke,
        egui::StrokeKind::Inside,
    );
    let slot = rect.width() / bars.len() as f32;
    let mut hovered = None;
    for (index, bar) in bars.iter().enumerate() {
        let height = (rect.height() - 4.0) * bar.calls as f32 / most as f32;
        let left = rect.left() + slot * index as f32;
        let column = egui::Rect::from_min_max(
            egui::pos2(left + 1.0, rect.bottom() - 2.0 - height),
            egui::pos2(left + slot - 1.0, rect.bottom() - 2.0),
        );
        painter.rect_filled(column, 1.0, visuals.selection.bg_fill);
        if response
            .hover_pos()
            .is_some_and(|pointer| pointer.x >= left && pointer.x < left + slot)
        {
            hovered = Some(bar);
        }
    }
    if let Some(bar) = hovered {
        response.on_hover_text_at_pointer(format!(
            "{:.2} – {:.2} ms: {}",
            bar.from_ms,
            bar.to_ms,
            count_noun(bar.calls as usize, "call", "calls")
        ));
    }
    ui.horizontal(|ui| {
        ui.weak(format!("{:.2} ms", first.from_ms));
        ui.add_space((width - 160.0).max(8.0));
        ui.weak(format!("{:.2} ms (logarithmic)", last.to_ms));
    });
}
