//! "Save as case…": a call's tool and arguments (and on request its result, as expectations)
//! appended to a case file, which is made when new.

use std::path::PathBuf;

use crate::ui::{actions::Action, files::FileRequest};
use crate::workbench::{CaseAction, CaseSource, Model};

pub struct SaveCaseDialog {
    source: CaseSource,
    name: String,
    path: String,
    expect_result: bool,
    /// There is a result to expect (the call answered these very arguments).
    has_result: bool,
}

impl SaveCaseDialog {
    pub fn new(model: &Model, tool: &str, source: CaseSource) -> Self {
        // The open case file, else cases.toml in the last folder used or the documents folder.
        let path = model.case_book().path.clone().unwrap_or_else(|| {
            model
                .last_folder()
                .map(std::path::Path::to_owned)
                .or_else(toolscope_core::settings::documents_dir)
                .map_or_else(
                    || PathBuf::from("cases.toml"),
                    |folder| folder.join("cases.toml"),
                )
        });
        let taken = |name: &str| {
            model
                .case_book()
                .file
                .as_ref()
                .is_some_and(|file| file.cases.iter().any(|case| case.name == name))
        };
        let mut name = tool.to_owned();
        let mut n = 2;
        while taken(&name) {
            name = format!("{tool} {n}");
            n += 1;
        }
        let has_result = match &source {
            CaseSource::Tool { tool, arguments } => model
                .run(tool)
                .and_then(|run| run.last_record.as_ref())
                .is_some_and(|record| {
                    record.outcome.arguments == serde_json::Value::Object(arguments.clone())
                }),
            CaseSource::HistoryCall(_) => model.history_browser().shown.is_some(),
        };
        Self {
            source,
            name,
            path: path.display().to_string(),
            expect_result: has_result,
            has_result,
        }
    }

    /// The file chosen with Choose….
    pub fn set_path(&mut self, path: &std::path::Path) {
        self.path = path.display().to_string();
    }

    /// Draws the dialog; false once it is closed. A save is an action.
    pub fn draw(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) -> bool {
        let mut open = true;
        let mut close = false;
        egui::Window::new("Save as case")
            .collapsible(false)
            .resizable(false)
            .open(&mut open)
            .show(ctx, |ui| {
                ui.set_max_width(420.0);
                egui::Grid::new("save_case_grid")
                    .num_columns(2)
                    .show(ui, |ui| {
                        let label = ui.label("Case name");
                        ui.add(egui::TextEdit::singleline(&mut self.name).desired_width(300.0))
                            .labelled_by(label.id);
                        ui.end_row();
                        let label = ui.label("Case file");
                        ui.horizontal(|ui| {
                            ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(220.0))
                                .labelled_by(label.id);
                            if ui.button("Choose…").clicked() {
                                let current = std::path::Path::new(self.path.trim());
                                actions
                                    .push(FileRequest::case_file_to_save_in(Some(current)).into());
                            }
                        });
                        ui.end_row();
                    });
                if self.has_result {
                    ui.checkbox(
                        &mut self.expect_result,
                        "Expect this result (isError, contract, text mirror, structuredContent)",
                    );
                } else {
                    ui.add(
                        egui::Label::new(
                            egui::RichText::new(
                                "No result for these arguments yet, so the case expects only \
                                 success: call the tool first to expect what it returns.",
                            )
                            .color(ui.visuals().warn_fg_color),
                        )
                        .wrap(),
                    );
                }
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(
                            "The case is added at the end of the file; a new file starts with \
                             this server's [server] section (secret values as ${NAME}).",
                        )
                        .weak(),
                    )
                    .wrap(),
                );
                ui.horizontal(|ui| {
                    let ready = !self.name.trim().is_empty() && !self.path.trim().is_empty();
                    if ui.add_enabled(ready, egui::Button::new("Save")).clicked() {
                        actions.push(
                            CaseAction::Save {
                                path: PathBuf::from(self.path.trim()),
                                name: self.name.trim().to_owned(),
                                source: self.source.clone(),
                                expect_result: self.expect_result,
                            }
                            .into(),
                        );
                        close = true;
                    }
                    if ui.button("Cancel").clicked() {
                        close = true;
                    }
                });
            });
        open && !close
    }
}
