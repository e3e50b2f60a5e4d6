//! The Skills tab (SEP-2640): the selected server's skills from its listing, each with its
//! name and description. Picking one loads it beside the sidebar (`panels/skill_view.rs`);
//! nothing of a skill is read before then. A server that does not declare the extension is
//! said so, and not asked.

use crate::ui::actions::Action;
use crate::workbench::{self, Model, server_skills::SkillsList};

pub fn section(model: &Model, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let Some(server) = model.selected_server() else {
        return;
    };
    let skills = &server.features.skills;
    let listing = match &skills.list {
        SkillsList::Listed(listing) => listing,
        SkillsList::Listing => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Listing skills…");
            });
            return;
        }
        SkillsList::Failed(error) => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("Listing skills failed: {error}"),
            );
            if ui.button("Try again").clicked() {
                actions.push(workbench::FeatureAction::Refresh(server.id).into());
            }
            return;
        }
        SkillsList::NotAsked => {
            ui.weak("Connect the server to see its skills");
            return;
        }
        SkillsList::NotDeclared => {
            ui.add(
                egui::Label::new(
                    egui::RichText::new(format!(
                        "This server does not declare the skills extension (its capabilities' \
                         extensions have no \"{}\")",
                        toolscope_core::skills::SKILLS_EXTENSION
                    ))
                    .weak(),
                )
                .wrap(),
            );
            return;
        }
    };
    ui.horizontal(|ui| {
        let count = listing.skills.len();
        ui.label(format!(
            "{count} skill{}",
            if count == 1 { "" } else { "s" }
        ));
        if super::refresh_button(ui).clicked() {
            actions.push(workbench::FeatureAction::Refresh(server.id).into());
        }
    });
    for problem in &listing.problems {
        crate::ui::widgets::warning(ui, problem);
    }
    ui.separator();
    egui::ScrollArea::vertical()
        .auto_shrink(false)
        .show(ui, |ui| {
            for skill in &listing.skills {
                let picked = skills.picked.as_deref() == Some(skill.uri.as_str());
                let name =
                    egui::Button::selectable(picked, egui::RichText::new(&skill.name).strong())
                        .truncate();
                let clicked = ui.add(name).on_hover_text(&skill.uri).clicked();
                ui.add(egui::Label::new(egui::RichText::new(&skill.description).weak()).wrap());
                ui.add_space(4.0);
                if clicked && !picked {
                    actions.push(
                        workbench::FeatureAction::PickSkill {
                            server: server.id,
                            uri: skill.uri.clone(),
                        }
                        .into(),
                    );
                }
            }
        });
}
