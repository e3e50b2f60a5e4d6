//! The analysis of a call: one plain sentence on what each half gives its reader, then a row
//! of verdict chips (outcome, contract, wrapping, text mirror, the result's own problems). A
//! chip opens its detail; problems open theirs at once, and each contract violation selects
//! its node in the structuredContent tree.

use crate::ui::{actions::Action, theme::icons};
use crate::workbench::{CallRecord, ToolKey};
use toolscope_core::analysis::{self as words, CallAnalysis, ContractCheck, ErrorKind, TextMirror};

/// The pages a URL elicitation required error (-32042) names: each with its host, opened in
/// the browser only on a click and only for http(s); then the call can be made again.
fn required_pages_ui(
    ui: &mut egui::Ui,
    tool: &ToolKey,
    record: &CallRecord,
    actions: &mut Vec<Action>,
) {
    let pages = toolscope_core::analysis::required_pages(&record.analysis.error_kind);
    if pages.is_empty() {
        return;
    }
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.set_width(ui.available_width());
        for page in &pages {
            ui.horizontal_wrapped(|ui| {
                ui.strong(page.host.as_deref().unwrap_or("(no host)"));
                if let Some(message) = &page.message {
                    ui.label(message);
                }
            });
            ui.add(egui::Label::new(egui::RichText::new(&page.url).monospace().weak()).wrap());
            if page.openable {
                if ui
                    .button(format!(
                        "Open {} in the browser",
                        page.host.as_deref().unwrap_or("the page")
                    ))
                    .clicked()
                {
                    ui.ctx().open_url(egui::OpenUrl::new_tab(&page.url));
                }
            } else {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    "Not an http(s) URL: Toolscope will not open it.",
                );
            }
        }
        if ui
            .button("Call again")
            .on_hover_text("Once you are done on the page: the same call, the same arguments")
            .clicked()
        {
            actions.push(
                crate::workbench::CallAction::Call {
                    tool: tool.clone(),
                    arguments: record
                        .outcome
                        .arguments
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                    force: false,
                }
                .into(),
            );
        }
    });
}

/// A verdict chip, to remember which one the user opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Outcome,
    Contract,
    Wrapping,
    Mirror,
    Structured,
    Notes,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tone {
    Good,
    Info,
    Warning,
    Bad,
}

struct Chip {
    verdict: Verdict,
    label: String,
    tone: Tone,
    detail: String,
}

/// The analysis's details never take more than this share of the result area's height: the
/// panes keep the rest (a long list of violations scrolls).
const MAX_DETAIL_SHARE: f32 = 0.25;
/// The share of the window's height the panes keep below the analysis.
const PANES_SHARE: f32 = 0.6;
/// Details get at least this much room when shown (a few lines).
const MIN_DETAIL_HEIGHT: f32 = 48.0;

/// The sentence, the chips, and the details of the chips that are open (problems open unless
/// `folded`, which the "details" switch at the end of the chips sets).
pub fn ui(
    ui: &mut egui::Ui,
    (tool, record): (&ToolKey, &CallRecord),
    (expanded, folded): (&mut Option<Verdict>, &mut bool),
    actions: &mut Vec<Action>,
) {
    let analysis = &record.analysis;
    explanation_ui(ui, &analysis.explanation);
    required_pages_ui(ui, tool, record, actions);
    let chips = chips(analysis);
    // Problems open on their own only where the panes keep half the window's height below the
    // chips' row; a chip clicked opens its detail whatever the room.
    let chips_row = ui.spacing().interact_size.y + ui.spacing().item_spacing.y;
    let room = ui.available_height() - chips_row - ui.ctx().content_rect().height() * PANES_SHARE;
    let no_room = room < MIN_DETAIL_HEIGHT;
    let problems_closed = *folded || no_room;
    ui.horizontal_wrapped(|ui| {
        for chip in &chips {
            let color = tone_color(ui, chip.tone);
            let open = is_open(chip, *expanded, problems_closed);
            let icon = match chip.tone {
                Tone::Good => icons::ICON_CHECK_CIRCLE,
                Tone::Info => icons::ICON_INFO,
                Tone::Warning => icons::ICON_WARNING,
                Tone::Bad => icons::ICON_ERROR,
            };
            let text = (
                icon.rich_text().color(color),
                egui::RichText::new(&chip.label).color(color),
            );
            let button = egui::Button::selectable(open, text)
                .stroke(egui::Stroke::new(1.0, color))
                .corner_radius(8.0);
            let response = ui.add(button);
            response.widget_info(|| {
                egui::WidgetInfo::selected(egui::Role::Button, true, open, &chip.label)
            });
            let response = response.on_hover_text(&chip.detail);
            if response.clicked() {
                *expanded = if *expanded == Some(chip.verdict) {
                    None
                } else {
                    Some(chip.verdict)
                };
            }
        }
        // The switch folds details on show, or unfolds what the user folded (details kept
        // closed for room have nothing to unfold: a chip opens them).
        let has_details = chips.iter().any(|chip| is_open(chip, *expanded, false));
        if (has_details && !no_room) || *folded {
            let (label, hover) = if *folded {
                (
                    "Show details",
                    "Open the details of the problems found (remembered)",
                )
            } else {
                (
                    "Hide details",
                    "Only the sentence and the chips (remembered)",
                )
            };
            if ui.small_button(label).on_hover_text(hover).clicked() {
                *folded = !*folded;
            }
        }
    });
    let open: Vec<&Chip> = chips
        .iter()
        .filter(|chip| is_open(chip, *expanded, problems_closed))
        .collect();
    if open.is_empty() {
        return;
    }
    let max_height = (ui.available_height() * MAX_DETAIL_SHARE)
        .min(room)
        .max(MIN_DETAIL_HEIGHT);
    egui::ScrollArea::vertical()
        .id_salt("analysis_details")
        .max_height(max_height)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            for chip in open {
                detail_ui(ui, tool, analysis, chip, actions);
            }
        });
}

/// The sentence, what it quotes (between backticks) drawn as code; in a short window (a
/// projector's zoom) at most two lines of it, the whole on hover, so the panes keep their
/// height.
fn explanation_ui(ui: &mut egui::Ui, explanation: &str) {
    let mut job = egui::text::LayoutJob::default();
    for (index, part) in explanation.split('`').enumerate() {
        let text = if index % 2 == 1 {
            egui::RichText::new(part).code()
        } else {
            egui::RichText::new(part).size(15.0)
        };
        text.append_to(
            &mut job,
            ui.style(),
            egui::FontSelection::Default,
            egui::Align::Center,
        );
    }
    if ui.ctx().content_rect().height() >= SHORT_WINDOW {
        ui.add(egui::Label::new(job).wrap());
        return;
    }
    job.wrap = egui::text::TextWrapping {
        max_width: ui.available_width(),
        max_rows: 2,
        break_anywhere: false,
        overflow_character: Some('…'),
    };
    ui.add(egui::Label::new(job)).on_hover_text(explanation);
}

/// Below this height (in points) the sentence is cut to two lines.
const SHORT_WINDOW: f32 = 560.0;

/// A problem's detail is open until its chip is clicked (or the details are folded); any
/// other chip's opens on a click.
fn is_open(chip: &Chip, toggled: Option<Verdict>, folded: bool) -> bool {
    let problem = matches!(chip.tone, Tone::Bad | Tone::Warning) && !folded;
    problem != (toggled == Some(chip.verdict))
}

fn detail_ui(
    ui: &mut egui::Ui,
    tool: &ToolKey,
    analysis: &CallAnalysis,
    chip: &Chip,
    actions: &mut Vec<Action>,
) {
    let color = tone_color(ui, chip.tone);
    ui.horizontal_wrapped(|ui| {
        ui.label(icons::ICON_CHEVRON_RIGHT.rich_text().color(color));
        ui.add(egui::Label::new(&chip.detail).wrap());
    });
    if chip.verdict == Verdict::Contract
        && let ContractCheck::Violated { violations, .. } = &analysis.contract
    {
        ui.indent("violations", |ui| {
            for violation in violations {
                let link = ui.link(violation.describe()).on_hover_text(format!(
                    "Select this node in the structuredContent tree ({})",
                    violation.schema_location()
                ));
                if link.clicked() {
                    actions.push(Action::SelectPointer {
                        tool: tool.clone(),
                        pointer: violation.pointer.clone(),
                    });
                }
            }
        });
    }
    if chip.verdict == Verdict::Notes {
        ui.indent("notes", |ui| {
            for note in &analysis.notes {
                ui.add(egui::Label::new(note).wrap());
            }
        });
    }
}

fn chips(analysis: &CallAnalysis) -> Vec<Chip> {
    let mut chips = Vec::new();
    let tone = match &analysis.error_kind {
        ErrorKind::Success => Tone::Good,
        ErrorKind::ToolError { .. } | ErrorKind::ProtocolError { .. } => Tone::Bad,
        ErrorKind::InputRequired => Tone::Warning,
    };
    let label = words::outcome_word(&analysis.error_kind);
    chips.push(Chip {
        verdict: Verdict::Outcome,
        label: label.to_owned(),
        tone,
        detail: analysis.error_kind.describe(),
    });
    let tone = match &analysis.contract {
        ContractCheck::Satisfied { .. } => Tone::Good,
        ContractCheck::Violated { .. } | ContractCheck::SchemaInvalid { .. } => Tone::Bad,
        ContractCheck::NoSchema { .. } | ContractCheck::NotChecked { .. } => Tone::Info,
    };
    let label = words::contract_words(&analysis.contract);
    chips.push(Chip {
        verdict: Verdict::Contract,
        label,
        tone,
        detail: analysis.contract.describe(),
    });
    if let Some(wrapping) = &analysis.wrapping {
        chips.push(Chip {
            verdict: Verdict::Wrapping,
            label: words::WRAPPED_WORDS.to_owned(),
            tone: Tone::Info,
            detail: wrapping.describe(),
        });
    }
    if !matches!(analysis.error_kind, ErrorKind::ProtocolError { .. }) {
        let tone = match &analysis.text_mirror {
            TextMirror::Matches { .. } => Tone::Good,
            TextMirror::Differs { .. } | TextMirror::NoTextBlocks => Tone::Warning,
            TextMirror::NoStructuredContent { .. } => Tone::Info,
        };
        let label = words::mirror_words(&analysis.text_mirror);
        chips.push(Chip {
            verdict: Verdict::Mirror,
            label: label.to_owned(),
            tone,
            detail: analysis.text_mirror.describe(),
        });
    }
    if analysis.structured.is_flagged() {
        chips.push(Chip {
            verdict: Verdict::Structured,
            label: "structuredContent".to_owned(),
            tone: Tone::Warning,
            detail: analysis.structured.describe(),
        });
    }
    if !analysis.notes.is_empty() {
        chips.push(Chip {
            verdict: Verdict::Notes,
            label: format!("{} more", analysis.notes.len()),
            tone: Tone::Warning,
            detail: "Problems with the result itself:".to_owned(),
        });
    }
    chips
}

fn tone_color(ui: &egui::Ui, tone: Tone) -> egui::Color32 {
    let palette = crate::ui::theme::palette(ui.visuals());
    match tone {
        Tone::Good => palette.good,
        Tone::Info => palette.info,
        Tone::Warning => palette.warning,
        Tone::Bad => palette.error,
    }
}
