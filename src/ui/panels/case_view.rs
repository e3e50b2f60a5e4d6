//! A case picked in the Cases tab, in the space beside the sidebar: passed or failed, each
//! unmet expectation in words, and its result as the panes draw any result.

use crate::ui::{actions::Action, result_area, result_state::ResultState};
use crate::workbench::{CaseAction, CaseOutcome, Model};
use toolscope_core::settings::Layout;

/// Draws the selected case; false when none is selected (the tool is drawn then).
pub fn ui(
    model: &Model,
    (result, layout, forms): (
        &mut ResultState,
        &mut Layout,
        &mut crate::ui::feature_view::FeatureForms,
    ),
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) -> bool {
    let book = model.case_book();
    let Some(name) = book.selected.as_deref() else {
        return false;
    };
    let case = book
        .file
        .as_ref()
        .and_then(|file| file.cases.iter().position(|case| case.name == name));
    egui::CentralPanel::default().show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            ui.strong(name);
            match book.outcomes.get(name) {
                Some(CaseOutcome::Done {
                    passed: true,
                    verdict,
                    duration,
                    ..
                }) => {
                    let good = crate::ui::theme::palette(ui.visuals()).good;
                    crate::ui::widgets::chip(ui, "passed", good);
                    ui.weak(format!(
                        "{} · {} ms",
                        verdict.as_str(),
                        duration.as_millis()
                    ));
                }
                Some(CaseOutcome::Done {
                    verdict, duration, ..
                }) => {
                    crate::ui::widgets::chip(ui, "failed", ui.visuals().error_fg_color);
                    ui.weak(format!(
                        "{} · {} ms",
                        verdict.as_str(),
                        duration.as_millis()
                    ));
                }
                Some(CaseOutcome::Waiting) => {
                    ui.spinner();
                    ui.weak("running…");
                }
                None => {
                    ui.weak("not run yet");
                }
            }
        });
        ui.horizontal_wrapped(|ui| {
            if let Some(index) = case
                && ui
                    .add_enabled(!book.is_running(), egui::Button::new("Run this case"))
                    .clicked()
            {
                actions.push(CaseAction::Run(Some(vec![index])).into());
            }
            if ui.button("Back to the live result").clicked() {
                actions.push(CaseAction::Select(None).into());
            }
        });
        let Some(CaseOutcome::Done {
            failures,
            record,
            feature,
            ..
        }) = book.outcomes.get(name)
        else {
            return;
        };
        if !failures.is_empty() {
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    egui::RichText::new("Failed").strong(),
                );
                for failure in failures {
                    ui.add(egui::Label::new(format!("• {failure}")).wrap());
                }
            });
        }
        ui.separator();
        match (record, feature) {
            (Some(record), _) => {
                result_area::shown_record_ui((result, layout), ui, record, actions);
            }
            // A read or a prompt, drawn as its tab draws one.
            (None, Some(feature)) => {
                crate::ui::feature_view::answer_ui(feature, None, forms, ui, actions);
            }
            (None, None) => {
                ui.weak(
                    "There is no result to show: the call got no answer, or the server \
                     answered with an error (said above).",
                );
            }
        }
    });
    true
}
