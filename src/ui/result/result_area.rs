//! The result of the selected tool, which owns the rest of the window: which call it was and
//! whether it is stale, the analysis (one sentence, then verdict chips), and the two panes side
//! by side: content (what the model reads) and structuredContent (what the application reads).
//! The raw response and the request sent are tabs, so they never push the panes away.

use crate::ui::{
    actions::Action,
    analysis_view, content_pane,
    dialogs::OpenDialog,
    json_tree::{self, JsonTreeAction, MarkTone, NodeMark},
    linked_text, pane_split,
    request_state::RequestState,
    result_state::{ResultState, ResultTab},
};
use crate::workbench::{self, CallRecord, CallState, Model, ToolKey, app_run_view::AppRunView};
use toolscope_core::{analysis::ContractCheck, session::ToolEntry, settings::Layout};

const EMPTY_HINT: &str = "Call the tool to see both halves of its result: the content a model \
                          reads, and the structuredContent an application reads";

pub fn ui(
    model: &Model,
    (result, layout, request): (&mut ResultState, &mut Layout, &mut RequestState),
    ui: &mut egui::Ui,
    key: &ToolKey,
    tool: &ToolEntry,
    actions: &mut Vec<Action>,
) {
    let Some(run) = model.run(key) else {
        centered_hint(ui, EMPTY_HINT);
        return;
    };
    if let CallState::Failed(failure) = &run.call {
        failure_ui(ui, key, failure, actions);
    }
    if run.result_pending() {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.weak("Loading the last result…");
        });
        return;
    }
    let Some(record) = &run.last_record else {
        match run.call {
            CallState::Running { .. } => centered_hint(ui, "Waiting for the first result…"),
            CallState::Failed(_) => {}
            _ => centered_hint(ui, EMPTY_HINT),
        }
        return;
    };
    let stale = stale_reason(model, request, key, tool, &run.call, record);
    let declares_output_schema = tool.output_schema.is_some();
    let app = model.app_run(key);
    if app.is_some() && result.apps_seen.insert(key.clone()) {
        result.tab = ResultTab::App;
    }
    // A tool with an app offers to run it beside its tabs (the request column may be folded).
    let offer_app =
        app.is_none() && toolscope_core::interface::mcp_app::ui_resource_uri(&tool.raw).is_some();
    record_ui(
        (result, layout),
        ui,
        (key, app, offer_app),
        record,
        stale,
        declares_output_schema,
        false,
        actions,
    );
}

/// A record shown in place of a tool's live result (a history call, a case's result).
pub(crate) fn shown_record_ui(
    view: (&mut ResultState, &mut Layout),
    ui: &mut egui::Ui,
    record: &CallRecord,
    actions: &mut Vec<Action>,
) {
    let key = ToolKey::new(record.server, record.outcome.tool.clone());
    let declares_output_schema = record.output_schema.is_some();
    record_ui(
        view,
        ui,
        (&key, None, false),
        record,
        None,
        declares_output_schema,
        true,
        actions,
    );
}

/// One call's result: tabs, the analysis and the two panes. `from_history`: the call is not a
/// tool's live result (a history call, a case's; its tree state is the shared one).
#[allow(clippy::too_many_arguments, reason = "the parts of one result")]
pub(super) fn record_ui(
    (result, layout): (&mut ResultState, &mut Layout),
    ui: &mut egui::Ui,
    (key, app, offer_app): (&ToolKey, Option<&AppRunView>, bool),
    record: &CallRecord,
    stale: Option<&'static str>,
    declares_output_schema: bool,
    from_history: bool,
    actions: &mut Vec<Action>,
) {
    if app.is_none() && result.tab == ResultTab::App {
        result.tab = ResultTab::Result;
    }
    let run_app = header_ui(
        ui,
        (&mut result.tab, app.is_some(), offer_app),
        record,
        stale,
        result.trace_viewer.as_deref(),
    );
    if run_app {
        actions.push(
            workbench::AppAction::Run {
                tool: key.clone(),
                dark: ui.visuals().dark_mode,
            }
            .into(),
        );
    }
    match result.tab {
        ResultTab::Result => {}
        ResultTab::App => {
            if let Some(app) = app {
                super::app_run_view::tab_ui(ui, key, app, &mut result.app_entry, actions);
            }
            return;
        }
        ResultTab::RawResponse => {
            raw_response_ui(ui, record, &mut result.raw_base64_in_full);
            return;
        }
        ResultTab::Request => {
            request_ui(ui, record);
            return;
        }
    }
    // A chip opened or closed is about that result: a new one starts as the analysis says.
    if result
        .expanded_verdict
        .is_some_and(|(id, _)| id != record.id)
    {
        result.expanded_verdict = None;
    }
    let mut toggled = result.expanded_verdict.map(|(_, verdict)| verdict);
    analysis_view::ui(
        ui,
        (key, record),
        (&mut toggled, &mut layout.analysis_folded),
        actions,
    );
    result.expanded_verdict = toggled.map(|verdict| (record.id, verdict));
    crate::ui::rounds_view::ui(ui, record);
    if record.outcome.response.is_rpc_error() {
        ui.label(
            "A JSON-RPC error has no content and no structuredContent: the request itself was \
             rejected (see the Raw response tab)",
        );
        return;
    }
    ui.add_space(4.0);
    let mut split = layout.pane_split;
    let (tree, markdown) = result.tree_and_markdown(key, from_history);
    tree.set_marks(record.id, || node_marks(record));
    // The value selected in the tree, looked for in the text when the text mirrors the data.
    let needle = match (&record.analysis.text_mirror, record.structured_content()) {
        (toolscope_core::analysis::TextMirror::Matches { .. }, Some(structured)) => tree
            .selected_value(structured)
            .and_then(linked_text::Needle::for_value),
        _ => None,
    };
    let mut content_actions = Vec::new();
    let find_in_tree = std::cell::RefCell::new(None::<String>);
    let placement = pane_split::show(
        ui,
        egui::Id::unique(("result_panes", record.server)),
        &mut split,
        |ui| {
            pane(ui, "content", "what the model reads", |ui| {
                let links = content_pane::TextLinks {
                    needle: needle.as_ref(),
                    find_in_tree: &mut find_in_tree.borrow_mut(),
                    markdown,
                    trees: None,
                };
                content_pane::ui(ui, record, links, &mut content_actions);
            });
        },
        |ui| {
            pane(
                ui,
                "structuredContent",
                "what the application reads",
                |ui| match record.structured_content() {
                    Some(value) => {
                        // A word double-clicked in the text is looked for in the tree.
                        if let Some(word) = find_in_tree.borrow_mut().take() {
                            tree.set_search(&word);
                        }
                        let action =
                            json_tree::json_tree_ui(ui, "structured", record.id, value, tree);
                        if let Some(JsonTreeAction::UseAsArgument { pointer, value }) = action {
                            actions.push(
                                OpenDialog::Chaining {
                                    from_tool: key.clone(),
                                    pointer,
                                    value,
                                }
                                .into(),
                            );
                        }
                    }
                    None => {
                        let text = empty_structured_text(declares_output_schema, record);
                        ui.add(egui::Label::new(text).wrap());
                    }
                },
            );
        },
    );
    actions.extend(content_actions);
    layout.pane_split = split;
    result.panes = Some(placement);
}

fn centered_hint(ui: &mut egui::Ui, text: &str) {
    // Not justified across: a justified line in a narrow pane spreads its letters apart.
    let layout =
        egui::Layout::centered_and_justified(egui::Direction::TopDown).with_cross_justify(false);
    ui.with_layout(layout, |ui| {
        ui.weak(text);
    });
}

/// A pane: a surface with its heading (the field name large, who reads it beside).
fn pane(ui: &mut egui::Ui, field: &str, reader: &str, contents: impl FnOnce(&mut egui::Ui)) {
    let rect = ui.max_rect();
    egui::Frame::new()
        .fill(ui.visuals().faint_bg_color)
        .stroke(ui.visuals().widgets.noninteractive.bg_stroke)
        .corner_radius(4.0)
        .inner_margin(8.0)
        .show(ui, |ui| {
            // The frame's margin and stroke go around this.
            // (Never negative: a pane squeezed to nothing is still drawn, empty.)
            ui.set_min_size((rect.size() - egui::vec2(18.0, 18.0)).max(egui::Vec2::ZERO));
            ui.set_max_width((rect.width() - 18.0).max(0.0));
            // One line: in a narrow pane the reader is cut (and on hover), not wrapped.
            ui.horizontal(|ui| {
                ui.label(egui::RichText::new(field).heading().strong());
                ui.add(
                    egui::Label::new(egui::RichText::new(format!("— {reader}")).weak()).truncate(),
                );
            });
            ui.separator();
            contents(ui);
        });
}

/// Why the result shown is not the answer to the arguments in the form, if it is not.
fn stale_reason(
    model: &Model,
    request: &mut RequestState,
    key: &ToolKey,
    tool: &ToolEntry,
    call: &CallState,
    record: &CallRecord,
) -> Option<&'static str> {
    match call {
        CallState::Running { .. } => Some("a new call is running: this is the previous result"),
        CallState::Failed(_) => Some("the last call did not finish: this is the one before"),
        _ => (!request
            .editor(model, key, tool)
            .holds(&record.outcome.arguments))
        .then_some("the arguments changed since this call"),
    }
}

/// The tabs and the call's line; whether Run the app was clicked (offered for a tool with an
/// app that is not running).
fn header_ui(
    ui: &mut egui::Ui,
    (tab, has_app, offer_app): (&mut ResultTab, bool, bool),
    record: &CallRecord,
    stale: Option<&'static str>,
    trace_viewer: Option<&str>,
) -> bool {
    let mut run_app = false;
    ui.horizontal_wrapped(|ui| {
        ui.selectable_value(tab, ResultTab::Result, "Result");
        ui.selectable_value(tab, ResultTab::RawResponse, "Raw response");
        ui.selectable_value(tab, ResultTab::Request, "Request");
        if offer_app {
            run_app = ui
                .button("Run the app in the browser")
                .on_hover_text(
                    "Run the tool's MCP App in your browser with this result; its bridge shows \
                     in a tab here",
                )
                .clicked();
        }
        if has_app {
            ui.selectable_value(tab, ResultTab::App, "Through the app")
                .on_hover_text(
                    "What the user sees, through the tool's MCP App: its state and its bridge log",
                );
        }
        ui.separator();
        if let Some(stale) = stale {
            crate::ui::widgets::chip(ui, &format!("stale: {stale}"), ui.visuals().warn_fg_color);
        }
        // Cut to one line (whole on hover), last in the row: a tool's name may be any length.
        let line = format!(
            "{} · {} ms · protocol {}",
            record.outcome.tool,
            record.outcome.duration.as_millis(),
            record.protocol_version
        );
        if let Some(trace_id) = &record.trace_id {
            trace_ui(ui, trace_id, trace_viewer);
        }
        ui.add(egui::Label::new(egui::RichText::new(&line).weak()).truncate());
    });
    run_app
}

/// The call's trace id, short (the whole id is copied on click), and "Open trace" in the
/// trace viewer the settings name.
fn trace_ui(ui: &mut egui::Ui, trace_id: &str, trace_viewer: Option<&str>) {
    let short = toolscope_core::text_util::clip_chars(trace_id, 8);
    let label = egui::Label::new(egui::RichText::new(format!("trace {short}")).weak().small())
        .sense(egui::Sense::click());
    let clicked = ui
        .add(label)
        .on_hover_text(format!("Trace {trace_id}: click to copy"))
        .clicked();
    if clicked {
        ui.ctx().copy_text(trace_id.to_owned());
    }
    let page = trace_viewer
        .and_then(|pattern| toolscope_core::telemetry::config::trace_page(pattern, trace_id));
    if let Some(page) = page
        && ui.small_button("Open trace").on_hover_text(&page).clicked()
    {
        ui.ctx().open_url(egui::OpenUrl::new_tab(&page));
    }
}

fn failure_ui(
    ui: &mut egui::Ui,
    key: &ToolKey,
    failure: &workbench::CallFailure,
    actions: &mut Vec<Action>,
) {
    let color = if failure.is_cancel() {
        ui.visuals().weak_text_color()
    } else {
        ui.visuals().error_fg_color
    };
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.colored_label(color, egui::RichText::new(failure.headline()).strong());
        ui.add(
            egui::Label::new(failure.to_string())
                .wrap()
                .selectable(true),
        );
        if matches!(failure, workbench::CallFailure::Excluded { .. })
            && ui.button("Call anyway").clicked()
        {
            actions.push(Action::CallWithForm {
                tool: key.clone(),
                force: true,
            });
        }
    });
}

/// The longest line of the raw view laid out (Copy takes all of it).
const RAW_LINE_BYTES: usize = 2_000;

/// The raw JSON-RPC response; base64 data cut short unless the user asks for all of it.
fn raw_response_ui(ui: &mut egui::Ui, record: &CallRecord, base64_in_full: &mut bool) {
    ui.horizontal_wrapped(|ui| {
        if ui.button("Copy").clicked() {
            ui.ctx().copy_text(record.response_text());
        }
        if record.response_preview_short.is_some() {
            ui.checkbox(base64_in_full, "Show base64 data in full");
        }
        if record.response_preview_cut {
            ui.weak("The response is long: this shows its beginning; Copy takes all of it");
        }
    });
    let text = match &record.response_preview_short {
        Some(short) if !*base64_in_full => short,
        _ => &record.response_preview,
    };
    // Only the lines on screen are laid out, each at most RAW_LINE_BYTES: the preview as one
    // label (a text block's JSON is one 32 kB line of it) cost 6 MB of glyphs and mesh.
    let lines: Vec<&str> = text.lines().collect();
    let row_height = ui.text_style_height(&egui::TextStyle::Monospace);
    egui::ScrollArea::both()
        .id_salt("raw_scroll")
        .auto_shrink(false)
        .show_rows(ui, row_height, lines.len(), |ui, rows| {
            for line in &lines[rows] {
                let cut = toolscope_core::text_util::cut_at_char_boundary(line, RAW_LINE_BYTES);
                let shown = if cut.len() < line.len() {
                    egui::RichText::new(format!("{cut} … ({} more bytes)", line.len() - cut.len()))
                } else {
                    egui::RichText::new(*line)
                }
                .monospace();
                ui.add(egui::Label::new(shown).selectable(true).extend());
            }
        });
}

fn request_ui(ui: &mut egui::Ui, record: &CallRecord) {
    let text = record.arguments_text.as_str();
    ui.horizontal(|ui| {
        ui.label(format!(
            "tools/call #{} · {}",
            record.outcome.request_id, record.outcome.tool
        ));
        if ui.button("Copy arguments").clicked() {
            ui.ctx().copy_text(text.to_owned());
        }
    });
    egui::ScrollArea::both()
        .id_salt("request_scroll_sent")
        .auto_shrink(false)
        .show(ui, |ui| {
            ui.add(
                egui::Label::new(egui::RichText::new(text).monospace())
                    .selectable(true)
                    .extend(),
            );
        });
}

/// What the analysis says about single nodes: each contract violation on its node (a missing
/// required property on the object that lacks it), and the SDK's wrapper on `result`.
fn node_marks(record: &CallRecord) -> Vec<NodeMark> {
    let mut marks = Vec::new();
    if let ContractCheck::Violated { violations, .. } = &record.analysis.contract {
        for violation in violations {
            // The row already says where: drop the pointer that leads the sentence.
            let text = if violation.missing_property.is_some() {
                "missing, required".to_owned()
            } else {
                violation
                    .message
                    .strip_prefix(&format!("{} ", violation.pointer))
                    .filter(|_| !violation.pointer.is_empty())
                    .unwrap_or(&violation.message)
                    .to_owned()
            };
            marks.push(NodeMark {
                pointer: violation.pointer.clone(),
                text,
                tone: MarkTone::Problem,
                // A missing required property gets a row of its own, where it should be.
                missing_key: violation.missing_property.clone(),
            });
        }
    }
    if record.analysis.wrapping.is_some()
        && record
            .structured_content()
            .and_then(|value| value.get("result"))
            .is_some()
    {
        marks.push(NodeMark {
            pointer: "/result".to_owned(),
            text: "wrapper added by the SDK: the tool returned just this value".to_owned(),
            tone: MarkTone::Note,
            missing_key: None,
        });
    }
    marks
}

/// Why there is nothing on the application side, in words.
fn empty_structured_text(declares_output_schema: bool, record: &CallRecord) -> &'static str {
    match (declares_output_schema, &record.analysis.contract) {
        (false, _) => {
            "This tool declares no output schema and returned no structuredContent: an \
             application only gets text"
        }
        (true, ContractCheck::NotChecked { .. }) => {
            "No structuredContent: the tool reported an error, so its output schema does not apply"
        }
        (true, _) => {
            "This tool declares an output schema but returned no structuredContent: a contract \
             violation, the application gets nothing typed"
        }
    }
}

#[cfg(test)]
mod trace_tests {
    use egui::OutputCommand;
    use egui_kittest::{Harness, kittest::Queryable as _};

    const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

    /// The trace label drawn with `viewer`, and what its frames asked of the platform.
    fn harness(viewer: Option<&'static str>) -> Harness<'static, Vec<OutputCommand>> {
        Harness::builder().build_ui_state(
            move |ui, asked: &mut Vec<OutputCommand>| {
                ui.horizontal(|ui| super::trace_ui(ui, TRACE, viewer));
                asked.extend(ui.ctx().output(|output| output.commands.clone()));
            },
            Vec::new(),
        )
    }

    #[test]
    fn the_trace_id_is_shown_short_and_copied_whole() {
        let mut harness = harness(None);
        harness.get_by_label("trace 4bf92f35…").click();
        harness.run();
        assert!(
            harness
                .state()
                .iter()
                .any(|asked| matches!(asked, OutputCommand::CopyText(text) if text == TRACE)),
            "{:?}",
            harness.state()
        );
        assert!(
            harness.query_by_label("Open trace").is_none(),
            "no viewer is set"
        );
    }

    #[test]
    fn open_trace_opens_the_viewers_page() {
        let mut harness = harness(Some("http://localhost:16686/trace/{trace_id}"));
        harness.get_by_label("Open trace").click();
        harness.run();
        let page = format!("http://localhost:16686/trace/{TRACE}");
        assert!(
            harness
                .state()
                .iter()
                .any(|asked| matches!(asked, OutputCommand::OpenUrl(open) if open.url == page)),
            "{:?}",
            harness.state()
        );
    }
}
