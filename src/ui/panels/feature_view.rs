//! A resource, resource template or prompt picked in the sidebar, beside it: on the left what
//! it is and its form (a template's variables, a prompt's arguments, each completed by the
//! server as the user types), Read or Get, Subscribe; on the right what came back, drawn by
//! the same pane as a tool result's content (a prompt as a conversation, role by role).

use std::collections::{BTreeMap, HashMap};

use egui::RichText;
use serde_json::{Map, Value};

use crate::ui::{actions::Action, content_pane, widgets};
use crate::workbench::{
    self, Model, ServerId, ServerState,
    feature_record::{FeatureAsk, FeatureRecord},
    server_features::{
        CompletionField, CompletionOf, CompletionState, FeatureReply, FeatureSlot, PickedFeature,
        ServerFeatures,
    },
};

/// How long typing must pause before the server is asked to complete (seconds).
const COMPLETION_PAUSE: f64 = 0.3;

/// Completion values shown under a field at most.
const SHOWN_COMPLETIONS: usize = 8;

/// What the feature view keeps: each form's values as typed, when each field last changed,
/// and Markdown rendered on request.
#[derive(Default)]
pub struct FeatureForms {
    values: HashMap<(ServerId, String), BTreeMap<String, String>>,
    /// A field's text when it last changed, and when (the window's time).
    typing: HashMap<(ServerId, CompletionField), (String, f64)>,
    /// The text each field was last asked to complete.
    asked: HashMap<(ServerId, CompletionField), String>,
    markdown: egui_commonmark::CommonMarkCache,
    /// Show the answer as sent instead of its content blocks.
    raw: bool,
    /// The trees of JSON contents shown as one, by record and block.
    trees: HashMap<(workbench::CallId, usize), crate::ui::json_tree::JsonTreeState>,
}

impl FeatureForms {
    /// The Markdown cache the window's picked items share (a skill's SKILL.md too).
    pub fn markdown_cache(&mut self) -> &mut egui_commonmark::CommonMarkCache {
        &mut self.markdown
    }

    pub fn forget_server(&mut self, server: ServerId) {
        self.values.retain(|(of, _), _| *of != server);
        self.typing.retain(|(of, _), _| *of != server);
        self.asked.retain(|(of, _), _| *of != server);
    }
}

/// Draws the picked item in place of a tool; `false` when nothing is picked (the tab says
/// what to do).
pub fn ui(
    model: &Model,
    (forms, layout): (&mut FeatureForms, &mut toolscope_core::settings::Layout),
    prompts: bool,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    let Some(server) = model.selected_server() else {
        return;
    };
    let slot = server.features.slot(prompts);
    let Some(picked) = &slot.picked else {
        let what = if prompts {
            "a prompt"
        } else {
            "a resource or a template"
        };
        ui.centered_and_justified(|ui| {
            ui.weak(if server.is_connected() {
                format!("Pick {what} on the left")
            } else {
                format!("Connect the server, then pick {what}")
            });
        });
        return;
    };
    let max = (ui.ctx().content_rect().width() * 0.35).max(240.0);
    let folded = crate::ui::layout_memory::folding_panel(
        ui,
        "feature_request",
        (true, layout.request_width),
        220.0..=max,
        |ui| {
            egui::ScrollArea::vertical()
                .id_salt("feature_form")
                .auto_shrink(false)
                .show(ui, |ui| {
                    request_ui(model, server, picked, forms, ui, actions);
                });
        },
    );
    layout.request_width = folded.width;
    egui::CentralPanel::default().show(ui, |ui| reply_ui(slot, prompts, forms, ui, actions));
}

fn request_ui(
    model: &Model,
    server: &ServerState,
    picked: &PickedFeature,
    forms: &mut FeatureForms,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    let features = &server.features;
    match picked {
        PickedFeature::Resource(uri) => {
            let resource = features.picked_resource();
            ui.heading(resource.map_or(uri.as_str(), |item| item.display_name()));
            if let Some(resource) = resource {
                details_ui(
                    ui,
                    &[
                        ("uri", Some(resource.uri.clone())),
                        ("name", Some(resource.name.clone())),
                        ("mimeType", resource.mime_type.clone()),
                        ("size", resource.size.map(|size| format!("{size} bytes"))),
                        (
                            "ttlMs",
                            resource
                                .ttl_ms
                                .map(|ttl| format!("{ttl} (valid that long)")),
                        ),
                        ("cacheScope", resource.cache_scope.clone()),
                        ("description", resource.description.clone()),
                    ],
                );
            }
            let read = toolscope_core::history::CallKind::Read;
            crate::ui::request_column::latency_ui(model, ui, server.id, read, uri);
            ui.horizontal(|ui| {
                read_button(server, uri, ui, actions);
                subscribe_ui(server, uri, ui, actions);
            });
        }
        PickedFeature::Template(uri_template) => {
            let Some(template) = features.picked_template() else {
                ui.weak("This template is no longer listed");
                return;
            };
            ui.heading(template.display_name());
            details_ui(
                ui,
                &[
                    ("uriTemplate", Some(template.uri_template.clone())),
                    ("mimeType", template.mime_type.clone()),
                    ("description", template.description.clone()),
                ],
            );
            let target = CompletionOf::Template(uri_template.clone());
            let names: Vec<FormField> = template
                .variables
                .iter()
                .map(|name| FormField {
                    name: name.clone(),
                    required: false,
                    description: None,
                })
                .collect();
            let values = form_ui(server, (&target, &names), forms, ui, actions);
            let uri = toolscope_core::uri_template::expand(uri_template, |name| {
                values.get(name).filter(|value| !value.is_empty()).cloned()
            });
            ui.label("Reads");
            ui.add(egui::Label::new(RichText::new(&uri).monospace()).wrap());
            ui.horizontal(|ui| {
                read_button(server, &uri, ui, actions);
                subscribe_ui(server, &uri, ui, actions);
            });
        }
        PickedFeature::Prompt(name) => {
            let Some(prompt) = features.picked_prompt() else {
                ui.weak("This prompt is no longer listed");
                return;
            };
            ui.heading(prompt.display_name());
            details_ui(
                ui,
                &[
                    ("name", Some(prompt.name.clone())),
                    ("description", prompt.description.clone()),
                ],
            );
            let target = CompletionOf::Prompt(name.clone());
            let arguments: Vec<FormField> = prompt
                .arguments
                .iter()
                .map(|argument| FormField {
                    name: argument.name.clone(),
                    required: argument.required,
                    description: argument.description.clone(),
                })
                .collect();
            let prompt = toolscope_core::history::CallKind::Prompt;
            crate::ui::request_column::latency_ui(model, ui, server.id, prompt, name);
            let values = form_ui(server, (&target, &arguments), forms, ui, actions);
            let missing: Vec<&str> = arguments
                .iter()
                .filter(|field| {
                    field.required && values.get(&field.name).is_none_or(String::is_empty)
                })
                .map(|field| field.name.as_str())
                .collect();
            let get = ui.add_enabled(server.is_connected(), egui::Button::new("Get"));
            if !missing.is_empty() {
                widgets::warning(
                    ui,
                    &format!("Required and empty: {} (sent anyway)", missing.join(", ")),
                );
            }
            if get
                .on_hover_text("prompts/get with these arguments")
                .clicked()
            {
                let arguments: Map<String, Value> = values
                    .into_iter()
                    .filter(|(_, value)| !value.is_empty())
                    .map(|(name, value)| (name, Value::String(value)))
                    .collect();
                actions.push(
                    workbench::FeatureAction::GetPrompt {
                        server: server.id,
                        name: name.clone(),
                        arguments,
                    }
                    .into(),
                );
            }
        }
    }
}

fn details_ui(ui: &mut egui::Ui, rows: &[(&str, Option<String>)]) {
    egui::Grid::new("feature_details")
        .num_columns(2)
        .show(ui, |ui| {
            for (label, value) in rows {
                if let Some(value) = value.as_ref().filter(|value| !value.is_empty()) {
                    ui.weak(*label);
                    ui.add(egui::Label::new(value).selectable(true).wrap());
                    ui.end_row();
                }
            }
        });
}

fn read_button(server: &ServerState, uri: &str, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let read = ui.add_enabled(server.is_connected(), egui::Button::new("Read"));
    if read
        .on_hover_text(format!("resources/read {uri}"))
        .clicked()
    {
        actions.push(
            workbench::FeatureAction::Read {
                server: server.id,
                uri: uri.to_owned(),
            }
            .into(),
        );
    }
}

/// Subscribe or Unsubscribe, where the server takes subscriptions.
fn subscribe_ui(server: &ServerState, uri: &str, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let can = server
        .summary()
        .is_some_and(toolscope_core::session::ServerSummary::takes_subscriptions);
    if !can {
        return;
    }
    let features = &server.features;
    let subscribed = features.subscribed.contains(uri);
    let busy = features.subscribing.contains(uri);
    let (label, hover) = if subscribed {
        ("Unsubscribe", "Stop the updates of this resource")
    } else {
        (
            "Subscribe",
            "Ask the server to say when this resource changes: each update reads it again and \
             marks what changed",
        )
    };
    let button = ui.add_enabled(server.is_connected() && !busy, egui::Button::new(label));
    if button.on_hover_text(hover).clicked() {
        actions.push(
            workbench::FeatureAction::Subscribe {
                server: server.id,
                uri: uri.to_owned(),
                on: !subscribed,
            }
            .into(),
        );
    }
    if let Some(count) = features.updates.get(uri) {
        ui.label(format!("{count} update(s)"));
    }
}

/// One field of a template's or prompt's form.
struct FormField {
    name: String,
    required: bool,
    description: Option<String>,
}

/// A form of text fields, each completed by the server as the
/// user types where it declares completions; returns the values.
fn form_ui(
    server: &ServerState,
    (target, fields): (&CompletionOf, &[FormField]),
    forms: &mut FeatureForms,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) -> BTreeMap<String, String> {
    let form_key = (server.id, format!("{target:?}"));
    let completes = server
        .summary()
        .is_some_and(|summary| summary.capabilities.get("completions").is_some());
    let now = ui.input(|input| input.time);
    let mut values = forms.values.get(&form_key).cloned().unwrap_or_default();
    for FormField {
        name,
        required,
        description,
    } in fields
    {
        let field = CompletionField {
            target: target.clone(),
            argument: name.clone(),
        };
        let value = values.entry(name.clone()).or_default();
        // A question on its way shows beside the label: nothing below moves while it runs.
        let asking = matches!(
            server.features.completions.get(&field),
            Some(CompletionState::Asking { typed }) if typed == value
        );
        let label = ui
            .horizontal(|ui| {
                let label = ui.label(if *required {
                    format!("{name} *")
                } else {
                    name.clone()
                });
                if asking {
                    let size = ui.text_style_height(&egui::TextStyle::Body);
                    ui.add(egui::Spinner::new().size(size))
                        .on_hover_text("completion/complete asked");
                }
                label
            })
            .inner;
        let mut edit = egui::TextEdit::singleline(value).desired_width(f32::INFINITY);
        if let Some(description) = description {
            edit = edit.hint_text(description.as_str());
        }
        let response = ui.add(edit).labelled_by(label.id);
        let key = (server.id, field.clone());
        if response.changed() {
            forms.typing.insert(key.clone(), (value.clone(), now));
        }
        if !completes {
            continue;
        }
        // Asked once typing pauses; a newer question supersedes (and cancels) the last.
        if let Some((typed, at)) = forms.typing.get(&key) {
            let waited = now - at;
            if waited < COMPLETION_PAUSE {
                ui.ctx()
                    .request_repaint_after_secs((COMPLETION_PAUSE - waited) as f32);
            } else if forms.asked.get(&key) != Some(typed) {
                let typed = typed.clone();
                forms.asked.insert(key.clone(), typed.clone());
                let context: HashMap<String, String> = fields
                    .iter()
                    .filter(|other| other.name != *name)
                    .filter_map(|other| {
                        let value = forms.values.get(&form_key)?.get(&other.name)?;
                        (!value.is_empty()).then(|| (other.name.clone(), value.clone()))
                    })
                    .collect();
                actions.push(
                    workbench::FeatureAction::Complete {
                        server: server.id,
                        field: field.clone(),
                        typed,
                        context,
                    }
                    .into(),
                );
            }
        }
        let row = response.id.with("completions");
        if let Some(chosen) = completions_row(&server.features, &field, value, ui, row) {
            *value = chosen;
            forms.typing.insert(key, (value.clone(), now));
        }
    }
    forms.values.insert(form_key, values.clone());
    values
}

/// The offered values on one row of a fixed height under the field (scrolled sideways when
/// there are many), empty while there are none: the form and its Get or Read button stay
/// where they are as suggestions come and go, and nothing covers them.
fn completions_row(
    features: &ServerFeatures,
    field: &CompletionField,
    value: &str,
    ui: &mut egui::Ui,
    id: egui::Id,
) -> Option<String> {
    let height = ui.spacing().interact_size.y;
    let mut chosen = None;
    ui.allocate_ui(egui::vec2(ui.available_width(), height), |ui| {
        ui.set_min_height(height);
        egui::ScrollArea::horizontal()
            .id_salt(id)
            .max_height(height)
            .show(ui, |ui| chosen = completions_ui(features, field, value, ui));
    });
    chosen
}

/// The values the server offered for what is in the field now; one clicked is returned.
fn completions_ui(
    features: &ServerFeatures,
    field: &CompletionField,
    value: &str,
    ui: &mut egui::Ui,
) -> Option<String> {
    match features.completions.get(field)? {
        CompletionState::Offered { typed, completion } if typed == value => {
            if completion.values.is_empty() {
                ui.weak("no completions");
                return None;
            }
            if completion.values.len() == 1 && completion.values[0] == value {
                return None;
            }
            let mut chosen = None;
            ui.horizontal(|ui| {
                for offered in completion.values.iter().take(SHOWN_COMPLETIONS) {
                    if ui
                        .small_button(offered)
                        .on_hover_text("completion/complete offered this")
                        .clicked()
                    {
                        chosen = Some(offered.clone());
                    }
                }
                let more = completion
                    .total
                    .map_or(0, |total| total as usize)
                    .max(completion.values.len())
                    .saturating_sub(SHOWN_COMPLETIONS.min(completion.values.len()));
                if more > 0 || completion.has_more {
                    ui.weak(format!("{more} more"));
                }
            });
            chosen
        }
        CompletionState::Failed { typed, error } if typed == value => {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("completion failed: {error}"),
            );
            None
        }
        _ => None,
    }
}

/// A read or a prompt got, whole: what was asked, then its content (or its raw answer).
pub fn answer_ui(
    record: &FeatureRecord,
    before: Option<&FeatureRecord>,
    forms: &mut FeatureForms,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    // Only the answer on screen keeps its trees.
    forms.trees.retain(|(id, _), _| *id == record.id);
    record_header_ui(record, before, forms, ui);
    ui.separator();
    if forms.raw {
        egui::ScrollArea::both()
            .id_salt("feature_raw")
            .auto_shrink(false)
            .show(ui, |ui| {
                ui.add(
                    egui::Label::new(RichText::new(&record.response_pretty).monospace())
                        .selectable(true),
                );
            });
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("feature_reply")
        .auto_shrink(false)
        .show(ui, |ui| record_ui(record, forms, ui, actions));
}

fn reply_ui(
    slot: &FeatureSlot,
    prompts: bool,
    forms: &mut FeatureForms,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    match &slot.reply {
        None => {
            ui.centered_and_justified(|ui| {
                ui.weak(if prompts {
                    "Get it to see the messages the server makes of it"
                } else {
                    "Read it to see what the server answers"
                });
            });
        }
        Some(FeatureReply::Running { what }) => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("{what}…"));
            });
        }
        Some(FeatureReply::Failed { what, error }) => {
            ui.strong(what);
            ui.add(
                egui::Label::new(RichText::new(error).color(ui.visuals().error_fg_color)).wrap(),
            );
        }
        Some(FeatureReply::Done(record)) => {
            answer_ui(record, slot.before_update.as_deref(), forms, ui, actions);
        }
    }
}

fn record_header_ui(
    record: &FeatureRecord,
    before: Option<&FeatureRecord>,
    forms: &mut FeatureForms,
    ui: &mut egui::Ui,
) {
    ui.horizontal_wrapped(|ui| {
        ui.strong(record.request.describe());
        ui.weak(format!("{:.1} ms", record.duration.as_secs_f64() * 1000.0));
        ui.selectable_value(&mut forms.raw, false, "Content");
        ui.selectable_value(&mut forms.raw, true, "Raw response");
        if ui
            .button("Copy")
            .on_hover_text("The answer as sent")
            .clicked()
        {
            ui.ctx().copy_text(record.response_pretty.clone());
        }
    });
    if let Some(before) = before.filter(|before| before.request == record.request) {
        let color = ui.visuals().warn_fg_color;
        if before.result_text == record.result_text {
            ui.weak("Updated (notifications/resources/updated): read again, unchanged");
        } else {
            widgets::chip(
                ui,
                "Updated (notifications/resources/updated): read again, and it changed",
                color,
            );
            changed_blocks_ui(before, record, ui);
        }
    }
    for problem in &record.problems {
        widgets::warning(ui, problem);
    }
}

/// Which contents differ from the read before the update.
fn changed_blocks_ui(before: &FeatureRecord, record: &FeatureRecord, ui: &mut egui::Ui) {
    let text_of = |record: &FeatureRecord, index: usize| {
        record
            .content()
            .raw_block(index)
            .map(|raw| raw.raw().to_owned())
    };
    let changed: Vec<String> = (0..record.blocks.len().max(before.blocks.len()))
        .filter(|&index| text_of(before, index) != text_of(record, index))
        .map(|index| format!("[{index}]"))
        .collect();
    if !changed.is_empty() {
        ui.label(format!("Changed: {}", changed.join(", ")));
    }
}

fn record_ui(
    record: &FeatureRecord,
    forms: &mut FeatureForms,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    let content = record.content();
    let mut find_in_tree = None;
    // No structuredContent tree beside these: a word double-clicked has nowhere to go.
    macro_rules! links {
        () => {
            content_pane::TextLinks {
                needle: None,
                find_in_tree: &mut find_in_tree,
                markdown: &mut forms.markdown,
                trees: Some(&mut forms.trees),
            }
        };
    }
    match &record.request {
        FeatureAsk::Read { .. } => {
            if record.blocks.is_empty() {
                ui.weak("The resource has no contents");
            }
            content_pane::blocks_ui(ui, &content, 0..record.blocks.len(), links!(), actions);
        }
        FeatureAsk::Prompt { .. } => {
            if let Some(description) = &record.description {
                ui.add(egui::Label::new(RichText::new(description).italics()).wrap());
            }
            if record.messages.is_empty() {
                ui.weak("The prompt has no messages");
            }
            for (role, range) in &record.messages {
                let color = if role == "assistant" {
                    ui.visuals().hyperlink_color
                } else {
                    ui.visuals().strong_text_color()
                };
                ui.add_space(4.0);
                ui.label(RichText::new(role).strong().color(color));
                ui.indent(("message", range.start), |ui| {
                    content_pane::blocks_ui(ui, &content, range.clone(), links!(), actions);
                });
            }
        }
    }
}
