//! Diagnose: the connection doctor's walk of one server, step by step (what was tried, how
//! long it took, what was seen), the step it stopped at first with what to try; Diagnose
//! again and Copy (the command line's text).

use egui::RichText;

use crate::ui::{
    actions::Action,
    widgets::theme::{self, icons},
};
use crate::workbench::{
    self, Model,
    server_diagnosis::{DiagnosisState, ServerDiagnosis},
};
use toolscope_core::doctor::{Diagnosis, Step};

pub fn ui(model: &Model, ctx: &egui::Context, actions: &mut Vec<Action>) {
    let Some(open) = model.diagnosis() else {
        return;
    };
    let mut keep = true;
    egui::Window::new(format!("Diagnose {}", open.name))
        .id(egui::Id::unique("server_diagnosis"))
        .open(&mut keep)
        .default_width(640.0)
        .default_pos(ctx.content_rect().center_top() + egui::vec2(-320.0, 80.0))
        .max_height(ctx.content_rect().height() * 0.85)
        .resizable(true)
        .collapsible(false)
        .show(ctx, |ui| body(ui, open, actions));
    if !keep {
        actions.push(workbench::ServerAction::CloseDiagnosis.into());
    }
}

fn body(ui: &mut egui::Ui, open: &ServerDiagnosis, actions: &mut Vec<Action>) {
    match &open.state {
        DiagnosisState::Walking { since } => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!(
                    "Walking the connection… {:.1} s",
                    since.elapsed().as_secs_f32()
                ));
            });
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
        DiagnosisState::Done(diagnosis) => {
            verdict_ui(ui, diagnosis);
            ui.separator();
            egui::ScrollArea::vertical()
                .auto_shrink([false, true])
                .show(ui, |ui| {
                    for step in &diagnosis.steps {
                        step_ui(ui, step);
                    }
                });
            ui.separator();
            ui.horizontal_wrapped(|ui| {
                if ui.button("Diagnose again").clicked() {
                    actions.push(workbench::ServerAction::Diagnose(open.server).into());
                }
                if ui
                    .button("Copy")
                    .on_hover_text("The steps as text, as `toolscope doctor` prints them")
                    .clicked()
                {
                    ui.ctx().copy_text(diagnosis.as_text());
                }
                if ui.button("Close").clicked() {
                    actions.push(workbench::ServerAction::CloseDiagnosis.into());
                }
            });
        }
    }
}

/// Every step passed, or the one it stopped at.
fn verdict_ui(ui: &mut egui::Ui, diagnosis: &Diagnosis) {
    let palette = theme::palette(ui.visuals());
    match diagnosis.steps.iter().find(|step| !step.ok) {
        None => {
            ui.colored_label(
                palette.good,
                RichText::new("Every step passed: the server can be reached and used").strong(),
            );
        }
        Some(failed) => {
            ui.colored_label(
                palette.error,
                RichText::new(format!(
                    "Stopped at {}: what was seen and what to try are below",
                    failed.name
                ))
                .strong(),
            );
        }
    }
}

fn step_ui(ui: &mut egui::Ui, step: &Step) {
    let palette = theme::palette(ui.visuals());
    let (icon, colour) = if step.ok {
        (icons::ICON_CHECK_CIRCLE, palette.good)
    } else {
        (icons::ICON_CANCEL, palette.error)
    };
    ui.horizontal(|ui| {
        ui.label(RichText::new(icon).color(colour))
            .on_hover_text(if step.ok { "passed" } else { "failed" });
        ui.label(RichText::new(step.name).strong());
        ui.weak(format!("{} ms", step.ms));
    });
    ui.indent(("step", step.name), |ui| {
        ui.add(
            egui::Label::new(RichText::new(&step.detail).monospace().small())
                .wrap()
                .selectable(true),
        );
        if let Some(advice) = &step.advice {
            ui.add(
                egui::Label::new(RichText::new(format!("Try: {advice}")).color(palette.warning))
                    .wrap(),
            );
        }
    });
    ui.add_space(4.0);
}
