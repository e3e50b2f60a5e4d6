//! A call from the history, in the space beside the sidebar: when and against what it ran, the
//! tester's note, Run again / Edit and run, and its result exactly as it was.

use crate::ui::{
    actions::Action, dialogs::OpenDialog, feature_view::FeatureForms, result_area,
    result_state::ResultState,
};
use crate::workbench::{self, Model, ToolKey};
use toolscope_core::history::CallKind;
use toolscope_core::settings::Layout;

/// Draws the selected history call; false when none is selected (the tool is drawn then).
/// `live`: picked in the Live tab (leaving it goes back to the sessions, not to a tool).
pub fn ui(
    model: &Model,
    (result, layout, forms): (&mut ResultState, &mut Layout, &mut FeatureForms),
    live: bool,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) -> bool {
    let back = if live {
        "Back to the sessions"
    } else {
        "Back to the live result"
    };
    let browser = model.history_browser();
    let Some(id) = browser.selected else {
        return false;
    };
    egui::CentralPanel::default().show(ui, |ui| {
        let Some(entry) = &browser.entry else {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak(format!("Reading call #{id} from the history…"));
            });
            return;
        };
        ui.horizontal_wrapped(|ui| {
            let version = entry.server_version.as_deref().unwrap_or("");
            let protocol = entry.protocol_version.as_deref().unwrap_or("?");
            match model.open_recording() {
                Some(open) => ui.strong(format!(
                    "Recording {} · call #{id}",
                    open.path.file_name().unwrap_or_default().to_string_lossy()
                )),
                None => ui.strong(format!("History #{id}")),
            };
            let through = entry
                .client
                .as_ref()
                .map(|client| format!(" · from {client} through toolscope proxy"))
                .unwrap_or_default();
            ui.label(format!(
                "{} · recorded {} on {} {version} · protocol {protocol}{through}",
                entry.verdict, entry.started_at, entry.server
            ));
        });
        if entry.kind != CallKind::Call {
            // A read or a prompt got: shown as its tab shows one.
            ui.horizontal(|ui| {
                if ui.button(back).clicked() {
                    actions.push(workbench::HistoryAction::Select(None).into());
                }
            });
            note_ui(ui, &mut result.history_note, id, &entry.note, actions);
            ui.separator();
            match (&browser.shown_feature, &browser.problem) {
                (Some(record), _) => {
                    crate::ui::feature_view::answer_ui(record, None, forms, ui, actions);
                }
                (None, Some(problem)) => {
                    ui.add(egui::Label::new(problem).wrap());
                }
                (None, None) => {
                    ui.spinner();
                }
            }
            return;
        }
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("Run again")
                .on_hover_text("The same tool, server and arguments")
                .clicked()
            {
                actions.push(
                    workbench::HistoryAction::RunAgain {
                        id,
                        arguments: None,
                    }
                    .into(),
                );
            }
            if ui
                .button("Edit and run")
                .on_hover_text("Load the arguments into the tool's form")
                .clicked()
            {
                actions.push(Action::EditHistoryCall { id });
            }
            let live = model
                .servers()
                .iter()
                .find(|server| server.name == entry.server)
                .map(|server| ToolKey::new(server.id, entry.tool.clone()))
                .filter(|key| model.run(key).is_some_and(|run| run.last_record.is_some()));
            if let Some(key) = live
                && ui
                    .button("Compare with the live result")
                    .on_hover_text(
                        "This call on the left, the tool's result on screen now on the right",
                    )
                    .clicked()
            {
                actions.push(
                    workbench::SelectionAction::Compare {
                        old: workbench::CompareSide::History(id),
                        new: workbench::CompareSide::Live(key),
                    }
                    .into(),
                );
            }
            if ui
                .button("Save as case…")
                .on_hover_text("Keep this call in a case file, to run again and check")
                .clicked()
            {
                actions.push(
                    OpenDialog::SaveCase {
                        tool: entry.tool.clone(),
                        source: workbench::CaseSource::HistoryCall(id),
                    }
                    .into(),
                );
            }
            if ui.button(back).clicked() {
                actions.push(workbench::HistoryAction::Select(None).into());
            }
        });
        note_ui(ui, &mut result.history_note, id, &entry.note, actions);
        ui.separator();
        match (&browser.shown, &browser.problem) {
            (Some(record), _) => {
                result_area::shown_record_ui((result, layout), ui, record, actions);
            }
            (None, Some(problem)) => {
                ui.add(egui::Label::new(problem).wrap());
            }
            (None, None) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.weak("Analysing the result again…");
                });
            }
        }
    });
    true
}

/// The tester's note on the call: edited here, kept when saved.
fn note_ui(
    ui: &mut egui::Ui,
    note: &mut Option<(i64, String)>,
    id: i64,
    saved: &str,
    actions: &mut Vec<Action>,
) {
    if note.as_ref().is_none_or(|(for_id, _)| *for_id != id) {
        *note = Some((id, saved.to_owned()));
    }
    let Some((_, draft)) = note else {
        return;
    };
    ui.horizontal(|ui| {
        let label = ui.label("Note");
        ui.add(
            egui::TextEdit::singleline(draft)
                .hint_text("what you saw, for the report")
                .desired_width(ui.available_width() - 80.0),
        )
        .labelled_by(label.id);
        let changed = draft.as_str() != saved;
        if ui
            .add_enabled(changed, egui::Button::new("Save note"))
            .clicked()
        {
            actions.push(
                workbench::HistoryAction::SetNote {
                    id,
                    note: draft.clone(),
                }
                .into(),
            );
        }
    });
}
