//! The window that answers what a server asks, whichever tool is on screen: an elicitation
//! form generated from `requestedSchema`, a URL to open (only on a click, only http(s)), or a
//! sampling request the person answers in place of a model. One question at a time, oldest
//! first; roots never get here (they are answered from the server's list).

use egui::RichText;
use serde_json::Value;

use crate::ui::actions::Action;
use crate::workbench::{self, AskId, Model, PendingAsk};
use toolscope_core::{
    answers::{
        ElicitationForm, FieldKind, FieldValue, SamplingReply, SamplingRequest, elicit_result,
        sampling::{DEFAULT_MODEL, MessageBlock},
    },
    session::{
        AskReply,
        asks::{NOT_DECLARED_CODE, REFUSED_CODE, SAMPLING},
    },
};

/// What the person has entered for the question on screen.
pub struct AskDraft {
    id: AskId,
    kind: DraftKind,
}

enum DraftKind {
    Form {
        form: ElicitationForm,
        values: Vec<FieldValue>,
        errors: Vec<(usize, String)>,
    },
    Url {
        url: String,
        host: Option<String>,
        opened: bool,
    },
    Sampling(Box<SamplingDraft>),
    Other,
}

struct SamplingDraft {
    request: SamplingRequest,
    reply_with_tool: bool,
    text: String,
    model: String,
    stop_reason: String,
    tool: usize,
    tool_input: String,
    error: Option<String>,
}

const STOP_REASONS: [&str; 3] = ["endTurn", "stopSequence", "maxTokens"];

impl AskDraft {
    fn new(pending: &PendingAsk) -> Self {
        let ask = &pending.ask;
        let kind = if ask.is_url_elicitation() {
            let url = ask
                .params
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let host = url::Url::parse(&url)
                .ok()
                .and_then(|parsed| parsed.host_str().map(str::to_owned));
            DraftKind::Url {
                url,
                host,
                opened: false,
            }
        } else if ask.method == toolscope_core::session::asks::ELICITATION {
            let form = ElicitationForm::from_params(&ask.params);
            let values = form.initial_values();
            DraftKind::Form {
                form,
                values,
                errors: Vec::new(),
            }
        } else if ask.method == SAMPLING {
            let request = SamplingRequest::from_params(&ask.params);
            let model = request
                .model_hints()
                .into_iter()
                .next()
                .unwrap_or_else(|| DEFAULT_MODEL.to_owned());
            DraftKind::Sampling(Box::new(SamplingDraft {
                request,
                reply_with_tool: false,
                text: String::new(),
                model,
                stop_reason: STOP_REASONS[0].to_owned(),
                tool: 0,
                tool_input: "{}".to_owned(),
                error: None,
            }))
        } else {
            DraftKind::Other
        };
        Self {
            id: pending.id,
            kind,
        }
    }
}

/// Draws the oldest question, if any; answers are actions.
pub fn ui(
    model: &Model,
    draft: &mut Option<AskDraft>,
    ctx: &egui::Context,
    actions: &mut Vec<Action>,
) {
    let asks = model.pending_asks();
    let Some(pending) = asks.first() else {
        *draft = None;
        return;
    };
    if draft.as_ref().is_none_or(|draft| draft.id != pending.id) {
        *draft = Some(AskDraft::new(pending));
    }
    let Some(draft) = draft.as_mut() else {
        return;
    };
    let server = model
        .server(pending.server)
        .map_or("a server", |server| server.name.as_str());
    let title = match &draft.kind {
        DraftKind::Sampling(_) => "The server asks for a model's reply",
        DraftKind::Url { .. } => "The server asks you to open a page",
        _ => "The server asks for input",
    };
    egui::Window::new(title)
        .id(egui::Id::unique("server_ask"))
        .collapsible(false)
        .resizable(true)
        .default_width(520.0)
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .show(ctx, |ui| {
            let mut from = format!("From {server}");
            if let Some(tool) = model.running_tool_of(pending.server) {
                from.push_str(&format!(", while {tool} runs"));
            }
            if let toolscope_core::session::AskOrigin::InputRequired { round, key } =
                &pending.ask.origin
            {
                from.push_str(&format!(" · round {round} of the call ({key})"));
            }
            if asks.len() > 1 {
                from.push_str(&format!(" · {} more waiting", asks.len() - 1));
            }
            ui.label(RichText::new(from).weak());
            let message = pending.ask.params.get("message").and_then(Value::as_str);
            if let Some(message) = message.filter(|message| !message.is_empty()) {
                ui.add(egui::Label::new(RichText::new(message).strong()).wrap());
            }
            ui.add_space(4.0);
            let reply = match &mut draft.kind {
                DraftKind::Form {
                    form,
                    values,
                    errors,
                } => form_ui(ui, form, values, errors),
                DraftKind::Url { url, host, opened } => url_ui(ui, url, host.as_deref(), opened),
                DraftKind::Sampling(sampling) => {
                    sampling_ui(ui, sampling, model.pending_asks().recent_replies())
                }
                DraftKind::Other => {
                    ui.label(format!(
                        "Toolscope does not know how to answer {}.",
                        pending.ask.method
                    ));
                    ui.button("Refuse")
                        .clicked()
                        .then(|| AskReply::refused(NOT_DECLARED_CODE, "not supported by Toolscope"))
                }
            };
            if let Some(reply) = reply {
                actions.push(
                    workbench::Action::AnswerAsk {
                        id: pending.id,
                        reply,
                    }
                    .into(),
                );
            }
        });
}

fn elicit(action: &str, content: Option<Value>) -> AskReply {
    AskReply::Result {
        result: elicit_result(action, content),
    }
}

/// Accept / Decline / Cancel, the same three for both elicitation modes.
fn elicit_buttons(ui: &mut egui::Ui, accept_ready: bool) -> Option<&'static str> {
    let mut chosen = None;
    ui.horizontal(|ui| {
        if ui
            .add_enabled(accept_ready, egui::Button::new("Accept"))
            .clicked()
        {
            chosen = Some("accept");
        }
        if ui
            .button("Decline")
            .on_hover_text("Say no to this request")
            .clicked()
        {
            chosen = Some("decline");
        }
        if ui
            .button("Cancel (dismiss)")
            .on_hover_text("Answer \"cancel\": dismissed without choosing")
            .clicked()
        {
            chosen = Some("cancel");
        }
    });
    chosen
}

fn form_ui(
    ui: &mut egui::Ui,
    form: &ElicitationForm,
    values: &mut [FieldValue],
    errors: &mut Vec<(usize, String)>,
) -> Option<AskReply> {
    for problem in &form.problems {
        ui.colored_label(ui.visuals().warn_fg_color, format!("The schema: {problem}"));
    }
    egui::ScrollArea::vertical()
        .max_height(ui.ctx().content_rect().height() * 0.55)
        .show(ui, |ui| {
            for (index, field) in form.fields.iter().enumerate() {
                let Some(value) = values.get_mut(index) else {
                    continue;
                };
                let mut label = field.label().to_owned();
                if field.required {
                    label.push_str(" *");
                }
                ui.add_space(4.0);
                let label = ui.label(RichText::new(label).strong()).id;
                if let Some(description) = &field.description {
                    ui.add(egui::Label::new(RichText::new(description).weak()).wrap());
                }
                let before = value.clone();
                field_ui(ui, (index, label), &field.kind, value);
                if *value != before {
                    // What was wrong with the old value is no longer news.
                    errors.retain(|(at, _)| *at != index);
                }
                for (_, error) in errors.iter().filter(|(at, _)| *at == index) {
                    ui.colored_label(ui.visuals().error_fg_color, error);
                }
            }
        });
    if !form.fields.iter().any(|field| field.required) {
        ui.label(RichText::new("Every field is optional.").weak());
    } else {
        ui.label(RichText::new("* required").weak());
    }
    ui.separator();
    let chosen = elicit_buttons(ui, true)?;
    if chosen != "accept" {
        return Some(elicit(chosen, None));
    }
    match form.content(values) {
        Ok(content) => Some(elicit("accept", Some(content))),
        Err(found) => {
            *errors = found;
            None
        }
    }
}

/// One field's editor, labelled by the field's label (`label`) for screen readers.
fn field_ui(
    ui: &mut egui::Ui,
    (index, label): (usize, egui::Id),
    kind: &FieldKind,
    value: &mut FieldValue,
) {
    match (kind, value) {
        (FieldKind::Text { .. } | FieldKind::Number { .. }, FieldValue::Text(text)) => {
            let width = if matches!(kind, FieldKind::Number { .. }) {
                160.0
            } else {
                f32::INFINITY
            };
            ui.add(
                egui::TextEdit::singleline(text)
                    .hint_text(kind.hint())
                    .desired_width(width),
            )
            .labelled_by(label);
        }
        (FieldKind::Boolean, FieldValue::Bool(answer)) => {
            let mut on = answer.unwrap_or(false);
            ui.horizontal(|ui| {
                if ui.checkbox(&mut on, "Yes").changed() {
                    *answer = Some(on);
                }
                if answer.is_none() {
                    ui.label(RichText::new("(not answered)").weak());
                }
            });
        }
        (FieldKind::SingleSelect { options }, FieldValue::Choice(chosen)) => {
            let shown = chosen
                .and_then(|at| options.get(at))
                .map_or_else(|| "(none)".to_owned(), |option| option.label());
            egui::ComboBox::from_id_salt(("ask_select", index))
                .selected_text(shown)
                .show_ui(ui, |ui| {
                    ui.selectable_value(chosen, None, "(none)");
                    for (at, option) in options.iter().enumerate() {
                        ui.selectable_value(chosen, Some(at), option.label());
                    }
                });
        }
        (FieldKind::MultiSelect { options, .. }, FieldValue::Choices(ticked)) => {
            ui.horizontal_wrapped(|ui| {
                for (option, on) in options.iter().zip(ticked.iter_mut()) {
                    ui.checkbox(on, option.label());
                }
            });
        }
        (FieldKind::Json { reason }, FieldValue::Text(text)) => {
            ui.label(RichText::new(format!("Typed as JSON: {reason}")).weak());
            ui.add(
                egui::TextEdit::multiline(text)
                    .code_editor()
                    .desired_rows(2)
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(label);
        }
        _ => {
            ui.label("(this field cannot be edited)");
        }
    }
}

fn url_ui(ui: &mut egui::Ui, url: &str, host: Option<&str>, opened: &mut bool) -> Option<AskReply> {
    let web = url.starts_with("https://") || url.starts_with("http://");
    match host {
        Some(host) => {
            ui.label("It wants you to visit a page on");
            ui.label(RichText::new(host).heading().strong());
        }
        None => {
            ui.colored_label(ui.visuals().warn_fg_color, "The URL has no host.");
        }
    }
    ui.add(egui::Label::new(RichText::new(url).monospace()).wrap());
    if web {
        if ui
            .button("Open in the browser")
            .on_hover_text("Nothing is opened until you click")
            .clicked()
        {
            ui.ctx().open_url(egui::OpenUrl::new_tab(url));
            *opened = true;
        }
        if *opened {
            ui.label(RichText::new("Opened. Accept once you are done there.").weak());
        }
    } else {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            "Not an http(s) URL: Toolscope will not open it.",
        );
    }
    ui.separator();
    elicit_buttons(ui, true).map(|action| elicit(action, None))
}

fn sampling_ui<'a>(
    ui: &mut egui::Ui,
    draft: &mut SamplingDraft,
    recent: impl Iterator<Item = &'a str>,
) -> Option<AskReply> {
    let request = &draft.request;
    egui::ScrollArea::vertical()
        .id_salt("sampling_messages")
        .max_height(ui.ctx().content_rect().height() * 0.35)
        .show(ui, |ui| {
            if let Some(system) = &request.system_prompt {
                ui.label(RichText::new("System prompt").strong());
                ui.add(egui::Label::new(system.as_str()).wrap());
            }
            for message in &request.messages {
                ui.label(RichText::new(&message.role).strong());
                for block in &message.blocks {
                    block_ui(ui, block);
                }
            }
        });
    let mut facts = Vec::new();
    if let Some(max) = request.max_tokens {
        facts.push(format!("max tokens {max}"));
    }
    if let Some(temperature) = request.temperature {
        facts.push(format!("temperature {temperature}"));
    }
    let hints = request.model_hints();
    if !hints.is_empty() {
        facts.push(format!("models hinted: {}", hints.join(", ")));
    }
    if let Some(choice) = &request.tool_choice {
        facts.push(format!("tool choice {choice}"));
    }
    if !facts.is_empty() {
        ui.label(RichText::new(facts.join(" · ")).weak());
    }
    ui.separator();
    let offers_tools = !request.tools.is_empty();
    if offers_tools {
        ui.horizontal(|ui| {
            ui.radio_value(&mut draft.reply_with_tool, false, "Reply with text");
            ui.radio_value(&mut draft.reply_with_tool, true, "Reply with a tool_use");
        });
    }
    if draft.reply_with_tool && offers_tools {
        let names: Vec<&str> = request
            .tools
            .iter()
            .map(|tool| tool.name.as_str())
            .collect();
        egui::ComboBox::from_label("Tool")
            .selected_text(names.get(draft.tool).copied().unwrap_or("?"))
            .show_ui(ui, |ui| {
                for (at, name) in names.iter().enumerate() {
                    ui.selectable_value(&mut draft.tool, at, *name);
                }
            });
        if let Some(description) = request
            .tools
            .get(draft.tool)
            .and_then(|tool| tool.description.as_deref())
        {
            ui.label(RichText::new(description).weak());
        }
        ui.label("Its input (JSON)");
        ui.add(
            egui::TextEdit::multiline(&mut draft.tool_input)
                .code_editor()
                .desired_rows(3)
                .desired_width(f32::INFINITY),
        );
    } else {
        let reply_label = ui
            .horizontal(|ui| {
                let label = ui.label("The reply").id;
                let recent: Vec<&str> = recent.collect();
                if !recent.is_empty() {
                    egui::ComboBox::from_id_salt("recent_replies")
                        .selected_text("Earlier replies")
                        .show_ui(ui, |ui| {
                            for text in recent {
                                let shown = toolscope_core::text_util::one_line(text, 60);
                                if ui.selectable_label(false, shown).clicked() {
                                    draft.text = text.to_owned();
                                }
                            }
                        });
                }
                label
            })
            .inner;
        ui.add(
            egui::TextEdit::multiline(&mut draft.text)
                .hint_text("What the model would answer")
                .desired_rows(4)
                .desired_width(f32::INFINITY),
        )
        .labelled_by(reply_label);
        egui::ComboBox::from_label("Stop reason")
            .selected_text(draft.stop_reason.as_str())
            .show_ui(ui, |ui| {
                for reason in STOP_REASONS {
                    ui.selectable_value(&mut draft.stop_reason, reason.to_owned(), reason);
                }
            });
    }
    ui.horizontal(|ui| {
        let label = ui.label("Model name").id;
        ui.add(egui::TextEdit::singleline(&mut draft.model).desired_width(220.0))
            .labelled_by(label);
    });
    if let Some(error) = &draft.error {
        ui.colored_label(ui.visuals().error_fg_color, error);
    }
    ui.separator();
    let mut reply = None;
    ui.horizontal(|ui| {
        if ui.button("Send the reply").clicked() {
            reply = sampling_reply(draft);
        }
        if ui
            .button("Reject")
            .on_hover_text("Answer with an error: the request was rejected")
            .clicked()
        {
            reply = Some(AskReply::refused(
                REFUSED_CODE,
                "the person at Toolscope rejected the sampling request",
            ));
        }
    });
    reply
}

fn sampling_reply(draft: &mut SamplingDraft) -> Option<AskReply> {
    let model = if draft.model.trim().is_empty() {
        DEFAULT_MODEL.to_owned()
    } else {
        draft.model.trim().to_owned()
    };
    let reply = if draft.reply_with_tool {
        let Some(tool) = draft.request.tools.get(draft.tool) else {
            draft.error = Some("Choose one of the offered tools".to_owned());
            return None;
        };
        let input = match toolscope_core::deep_json::parse(&draft.tool_input) {
            Ok(input) if input.is_object() => input,
            Ok(_) => {
                draft.error = Some("The tool's input must be a JSON object".to_owned());
                return None;
            }
            Err(error) => {
                draft.error = Some(format!("The tool's input is not JSON: {error}"));
                return None;
            }
        };
        SamplingReply::ToolUse {
            name: tool.name.clone(),
            input,
            model,
        }
    } else {
        if draft.text.trim().is_empty() {
            draft.error = Some("Write the reply first (or Reject)".to_owned());
            return None;
        }
        SamplingReply::Text {
            text: draft.text.clone(),
            model,
            stop_reason: draft.stop_reason.clone(),
        }
    };
    Some(AskReply::Result {
        result: reply.to_result(),
    })
}

fn block_ui(ui: &mut egui::Ui, block: &MessageBlock) {
    match block {
        MessageBlock::Text(text) => {
            ui.add(egui::Label::new(text.as_str()).wrap());
        }
        MessageBlock::Media {
            kind,
            mime_type,
            bytes,
        } => {
            ui.label(RichText::new(format!("[{kind} {mime_type}, {bytes} bytes]")).weak());
        }
        MessageBlock::ToolUse { id, name, input } => {
            ui.label(
                RichText::new(format!(
                    "tool_use {name} ({id}): {}",
                    toolscope_core::text_util::one_line(&input.to_string(), 200)
                ))
                .monospace(),
            );
        }
        MessageBlock::ToolResult {
            tool_use_id,
            content,
        } => {
            ui.label(
                RichText::new(format!(
                    "tool_result for {tool_use_id}: {}",
                    toolscope_core::text_util::one_line(&content.to_string(), 200)
                ))
                .monospace(),
            );
        }
        MessageBlock::Other(value) => {
            ui.label(
                RichText::new(toolscope_core::text_util::one_line(&value.to_string(), 200))
                    .monospace(),
            );
        }
    }
}
