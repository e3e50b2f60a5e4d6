//! Two proxied sessions compared, in the space beside the Live tab: the tools each was last
//! given (added, removed, changed, breaking or compatible), then their calls matched by tool
//! and arguments with what differs in each result and their durations, as `toolscope history
//! diff` prints it. A call's id shows the call.

use crate::{
    ui::actions::Action,
    workbench::{self, live_sessions::SessionComparison},
};
use toolscope_core::{
    gates::{CallBrief, CallPair, SessionDiff},
    interface::{InterfaceDiff, ToolStatus},
    text_util::clip_chars,
};

/// How much of a call's arguments a row shows (its hover shows more).
const ARGUMENT_CHARS: usize = 80;

pub fn ui(comparison: &SessionComparison, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    // Wrapped: a row wider than the panel (1.5× zoom, a small window) would widen it, and
    // everything below would wrap at a width cut off on the right.
    ui.horizontal_wrapped(|ui| {
        ui.strong(format!(
            "Session #{} compared with session #{}",
            comparison.old, comparison.new
        ));
        if ui.button("Close the comparison").clicked() {
            actions.push(workbench::HistoryAction::CloseSessionComparison.into());
        }
    });
    let diff = match &comparison.result {
        None => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak("Reading both sessions and comparing their calls…");
            });
            return;
        }
        Some(Err(problem)) => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("They could not be compared: {problem}"),
            );
            return;
        }
        Some(Ok(diff)) => diff,
    };
    ui.label(diff.summary());
    ui.weak(format!(
        "First: {}   Second: {}",
        diff.old.label(),
        diff.new.label()
    ));
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt(("session_diff", comparison.old, comparison.new))
        .auto_shrink(false)
        .show(ui, |ui| {
            egui::CollapsingHeader::new(egui::RichText::new("Tools").strong())
                .id_salt("session_diff_tools")
                .default_open(true)
                .show(ui, |ui| tools_ui(diff, ui));
            egui::CollapsingHeader::new(egui::RichText::new("Calls").strong())
                .id_salt("session_diff_calls")
                .default_open(true)
                .show(ui, |ui| calls_ui(diff, ui, actions));
        });
}

fn tools_ui(diff: &SessionDiff, ui: &mut egui::Ui) {
    match (&diff.tools, &diff.tools_note) {
        (_, Some(note)) => {
            ui.weak(note);
        }
        (Some(tools), None) if tools.is_empty() => {
            ui.label("The same tools");
        }
        (Some(tools), None) => changed_tools_ui(tools, ui),
        (None, None) => {}
    }
}

fn changed_tools_ui(tools: &InterfaceDiff, ui: &mut egui::Ui) {
    for change in &tools.server {
        ui.label(format!("Server: {}", change.message));
    }
    for tool in &tools.tools {
        let status = match tool.status {
            ToolStatus::Added => "added",
            ToolStatus::Removed => "removed",
            ToolStatus::Changed => "changed",
        };
        ui.label(egui::RichText::new(format!("{} ({status})", tool.name)).strong());
        for change in &tool.changes {
            ui.horizontal_wrapped(|ui| {
                ui.add_space(12.0);
                if change.severity.is_breaking() {
                    ui.colored_label(ui.visuals().error_fg_color, "✗ breaking");
                } else {
                    ui.weak("· compatible");
                }
                let at = if change.location.is_empty() {
                    String::new()
                } else {
                    format!("{}: ", change.location)
                };
                ui.add(egui::Label::new(format!("{at}{}", change.message)).wrap());
            });
        }
    }
}

fn calls_ui(diff: &SessionDiff, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    if diff.pairs.is_empty() && diff.only_old.is_empty() && diff.only_new.is_empty() {
        ui.weak("Neither session made a call");
        return;
    }
    for pair in &diff.pairs {
        pair_ui(pair, ui, actions);
    }
    for (calls, which) in [(&diff.only_old, "first"), (&diff.only_new, "second")] {
        for call in calls {
            ui.horizontal_wrapped(|ui| {
                call_link(call, ui, actions);
                ui.label(call_words(call));
                ui.weak(format!("only in the {which} session · {}", call.verdict));
            });
        }
    }
}

fn pair_ui(pair: &CallPair, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    ui.horizontal_wrapped(|ui| {
        ui.label(egui::RichText::new(call_words(&pair.old)).monospace())
            .on_hover_text(clip_chars(&pair.old.arguments, 4000));
        call_link(&pair.old, ui, actions);
        ui.weak("↔");
        call_link(&pair.new, ui, actions);
        if pair.same_result {
            ui.weak("same result");
        } else {
            ui.colored_label(ui.visuals().warn_fg_color, "result changed");
        }
        let verdict = if pair.old.verdict == pair.new.verdict {
            pair.old.verdict.to_string()
        } else {
            format!("{} → {}", pair.old.verdict, pair.new.verdict)
        };
        ui.weak(format!("· {verdict} · {}", durations(&pair.old, &pair.new)));
    });
    for line in &pair.differences {
        ui.horizontal_wrapped(|ui| {
            ui.add_space(16.0);
            ui.add(egui::Label::new(egui::RichText::new(line.trim_start()).monospace()).wrap());
        });
    }
}

/// The call's id, a link that shows the call.
fn call_link(call: &CallBrief, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    if ui
        .link(format!("#{}", call.id))
        .on_hover_text("Show the call as its client got it")
        .clicked()
    {
        actions.push(workbench::HistoryAction::Select(Some(call.id)).into());
    }
}

fn call_words(call: &CallBrief) -> String {
    if call.arguments == "{}" || call.arguments.is_empty() {
        call.tool.clone()
    } else {
        format!(
            "{} {}",
            call.tool,
            clip_chars(&call.arguments, ARGUMENT_CHARS)
        )
    }
}

fn durations(old: &CallBrief, new: &CallBrief) -> String {
    let ms = |call: &CallBrief| {
        call.duration_ms
            .map_or_else(|| "-".to_owned(), |ms| format!("{ms} ms"))
    };
    format!("{} → {}", ms(old), ms(new))
}
