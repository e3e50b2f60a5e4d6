//! The analysis of a call in plain words: error kind, contract (each violation clickable),
//! wrapping, text mirror, and the result's own problems.

use super::actions::Action;
use crate::{
    analysis::{CallAnalysis, ContractCheck, ErrorKind, TextMirror},
    workbench::ToolKey,
};

pub fn ui(ui: &mut egui::Ui, tool: &ToolKey, analysis: &CallAnalysis, actions: &mut Vec<Action>) {
    let visuals = ui.visuals().clone();
    let good = egui::Color32::from_rgb(60, 170, 90);
    let (icon, color) = match &analysis.error_kind {
        ErrorKind::Success => ("✔", good),
        ErrorKind::ToolError { .. } | ErrorKind::ProtocolError { .. } => {
            ("✖", visuals.error_fg_color)
        }
    };
    line(ui, icon, color, &analysis.error_kind.describe());
    let (icon, color) = match &analysis.contract {
        ContractCheck::Satisfied { .. } => ("✔", good),
        ContractCheck::Violated { .. } | ContractCheck::SchemaInvalid { .. } => {
            ("✖", visuals.error_fg_color)
        }
        ContractCheck::NoSchema { .. } | ContractCheck::NotChecked { .. } => {
            ("ℹ", visuals.weak_text_color())
        }
    };
    line(ui, icon, color, &analysis.contract.describe());
    if let ContractCheck::Violated { violations, .. } = &analysis.contract {
        ui.indent("violations", |ui| {
            for violation in violations {
                let text = violation.describe();
                let link = ui
                    .link(text)
                    .on_hover_text("Select this node in the structuredContent tree");
                if link.clicked() {
                    actions.push(Action::SelectPointer {
                        tool: tool.clone(),
                        pointer: violation.pointer.clone(),
                    });
                }
            }
        });
    }
    if let Some(wrapping) = &analysis.wrapping {
        line(ui, "ℹ", visuals.hyperlink_color, &wrapping.describe());
    }
    if !matches!(analysis.error_kind, ErrorKind::ProtocolError { .. }) {
        let (icon, color) = match &analysis.text_mirror {
            TextMirror::Matches { .. } => ("✔", good),
            TextMirror::Differs { .. } => ("⚠", visuals.warn_fg_color),
            TextMirror::NoStructuredContent { .. } | TextMirror::NoTextBlocks => {
                ("ℹ", visuals.weak_text_color())
            }
        };
        line(ui, icon, color, &analysis.text_mirror.describe());
    }
    if analysis.structured.is_flagged() {
        line(
            ui,
            "⚠",
            visuals.warn_fg_color,
            &analysis.structured.describe(),
        );
    }
    for note in &analysis.notes {
        line(ui, "⚠", visuals.warn_fg_color, note);
    }
}

fn line(ui: &mut egui::Ui, icon: &str, color: egui::Color32, text: &str) {
    ui.horizontal_wrapped(|ui| {
        ui.colored_label(color, icon);
        ui.add(egui::Label::new(text).wrap());
    });
}
