//! A skill picked in the Skills tab, beside it: its name, description and URI from the listing,
//! then (once loaded in the background) the verdict of each file read against the listing,
//! with each failed check's two sides (listed, and what the server sent). Only a `SKILL.md`
//! that passed is shown, rendered as Markdown with its frontmatter's fields; a file that
//! failed is never shown.

use egui::RichText;

use crate::ui::{feature_view::FeatureForms, theme, widgets};
use crate::workbench::{
    Model,
    server_skills::{SkillLoad, SkillsList},
};
use toolscope_core::skills::{FileCheck, FileContent, FileState, LoadedSkill, Mismatch};

/// Characters of a supporting file shown (a skill's reference is rarely longer).
const MAX_FILE_CHARS: usize = 20_000;

pub fn ui(model: &Model, forms: &mut FeatureForms, ui: &mut egui::Ui) {
    let Some(server) = model.selected_server() else {
        return;
    };
    let skills = &server.features.skills;
    let Some(entry) = skills.picked_entry() else {
        let hint = match &skills.list {
            SkillsList::NotDeclared => {
                "This server serves no skills (it does not declare the \
                                        skills extension)"
            }
            _ if !server.is_connected() => "Connect the server, then pick a skill",
            _ => "Pick a skill on the left",
        };
        ui.centered_and_justified(|ui| {
            ui.weak(hint);
        });
        return;
    };
    egui::ScrollArea::vertical()
        .auto_shrink(false)
        .show(ui, |ui| {
            ui.heading(&entry.name);
            ui.add(egui::Label::new(&entry.description).wrap());
            ui.add(egui::Label::new(RichText::new(&entry.uri).weak().monospace()).wrap());
            ui.add_space(8.0);
            match &skills.load {
                None => {}
                Some(SkillLoad::Loading) => {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("Reading SKILL.md and checking it against the listing…");
                    });
                }
                Some(SkillLoad::Failed(error)) => {
                    ui.colored_label(ui.visuals().error_fg_color, error);
                }
                Some(SkillLoad::Loaded(loaded)) => loaded_ui(loaded, forms, ui),
            }
        });
}

fn loaded_ui(loaded: &LoadedSkill, forms: &mut FeatureForms, ui: &mut egui::Ui) {
    let palette = theme::palette(ui.visuals());
    let rejected_files = loaded
        .files
        .iter()
        .filter(|file| {
            !matches!(
                file.state,
                FileState::Verified { .. } | FileState::NotAskedFor
            )
        })
        .count();
    let (color, verdict) = if !loaded.skill_md.state.is_verified() {
        (
            palette.error,
            "Not loaded: SKILL.md does not match the listing. Its content is withheld and its \
             files were not read."
                .to_owned(),
        )
    } else if rejected_files > 0 {
        (
            palette.warning,
            format!(
                "SKILL.md verified; {rejected_files} file(s) do not match the listing or could \
                 not be read: their content is withheld."
            ),
        )
    } else {
        (
            palette.good,
            "Verified: SKILL.md and every file match the listing (size, sha256 digest, \
             frontmatter)."
                .to_owned(),
        )
    };
    ui.add(egui::Label::new(RichText::new(verdict).color(color).strong()).wrap());
    ui.add_space(6.0);
    ui.label(RichText::new("Files").strong());
    for check in std::iter::once(&loaded.skill_md).chain(&loaded.files) {
        file_row_ui(check, ui);
    }
    if !loaded.skill_md.state.is_verified() {
        return;
    }
    if let Some(document) = &loaded.document {
        ui.add_space(8.0);
        egui::CollapsingHeader::new("Frontmatter")
            .default_open(false)
            .show(ui, |ui| {
                egui::Grid::new("skill_frontmatter")
                    .num_columns(2)
                    .striped(true)
                    .show(ui, |ui| {
                        for (field, value) in &document.frontmatter {
                            ui.label(RichText::new(field).monospace());
                            let text = match value {
                                serde_json::Value::String(text) => text.clone(),
                                other => other.to_string(),
                            };
                            ui.add(egui::Label::new(text).wrap());
                            ui.end_row();
                        }
                    });
            });
        ui.separator();
        widgets::capped_markdown::ui(ui, forms.markdown_cache(), "skill_md", &document.body);
    }
    for check in &loaded.files {
        let FileState::Verified { content } = &check.state else {
            continue;
        };
        ui.add_space(4.0);
        egui::CollapsingHeader::new(&check.path)
            .id_salt(("skill_file", &check.uri))
            .show(ui, |ui| match content {
                FileContent::Text { text } => {
                    let shown = toolscope_core::text_util::clip_chars(text, MAX_FILE_CHARS);
                    ui.add(egui::Label::new(RichText::new(shown).monospace()).wrap());
                }
                FileContent::Binary { mime_type, size } => {
                    ui.weak(format!(
                        "Binary content, {size} bytes ({})",
                        mime_type.as_deref().unwrap_or("no MIME type")
                    ));
                }
            });
    }
}

/// A file's path, listed size and verdict; under a mismatch, each failed check's two sides.
fn file_row_ui(check: &FileCheck, ui: &mut egui::Ui) {
    let palette = theme::palette(ui.visuals());
    let size = check
        .listed_size
        .map(|size| format!(" · {size} bytes"))
        .unwrap_or_default();
    let (color, verdict) = match &check.state {
        FileState::Verified { .. } => (palette.good, "verified".to_owned()),
        FileState::Mismatched { .. } => (palette.error, "MISMATCH: content withheld".to_owned()),
        FileState::NotReadSkillRejected => (
            ui.visuals().weak_text_color(),
            "not read (the skill was rejected)".to_owned(),
        ),
        FileState::NotAskedFor => (ui.visuals().weak_text_color(), "not read".to_owned()),
        FileState::ReadFailed { problem } => (palette.error, format!("not read: {problem}")),
    };
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(format!("{}{size}", check.path)).monospace());
        ui.colored_label(color, verdict);
    });
    let FileState::Mismatched { failed } = &check.state else {
        return;
    };
    ui.indent(("mismatch", &check.uri), |ui| {
        for mismatch in failed {
            match mismatch {
                Mismatch::Frontmatter { differences } => {
                    ui.label("Frontmatter differs from the listing's:");
                    let side = |value: &Option<serde_json::Value>| {
                        value
                            .as_ref()
                            .map_or("(missing)".to_owned(), |value| value.to_string())
                    };
                    for difference in differences {
                        ui.label(RichText::new(&difference.field).monospace().strong());
                        ui.indent(("difference", &difference.field), |ui| {
                            ui.horizontal_wrapped(|ui| {
                                ui.weak("listed:");
                                ui.label(RichText::new(side(&difference.listed)).monospace());
                            });
                            ui.horizontal_wrapped(|ui| {
                                ui.weak("in the file:");
                                ui.label(
                                    RichText::new(side(&difference.in_file))
                                        .monospace()
                                        .color(palette.error),
                                );
                            });
                        });
                    }
                }
                other => {
                    ui.add(egui::Label::new(RichText::new(other.to_string()).monospace()).wrap());
                }
            }
        }
    });
}
