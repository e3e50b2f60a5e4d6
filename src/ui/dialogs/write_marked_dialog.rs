//! Writes the history calls marked in the list: a report (Markdown or HTML, by the file's
//! name) or a JSON recording another Toolscope opens offline.

use std::path::PathBuf;

use crate::ui::actions::Action;
use crate::workbench::SelectionAction;

pub struct WriteMarkedDialog {
    ids: Vec<i64>,
    recording: bool,
    path: String,
}

impl WriteMarkedDialog {
    /// A report of `ids` (`recording`: a recording instead).
    pub fn new(ids: Vec<i64>, recording: bool) -> Self {
        let name = if recording {
            "toolscope-session.json"
        } else {
            "toolscope-report.html"
        };
        // In the documents folder, never wherever Toolscope happens to run.
        let path = crate::settings::documents_dir()
            .map_or_else(|| PathBuf::from(name), |folder| folder.join(name));
        Self {
            ids,
            recording,
            path: path.display().to_string(),
        }
    }

    /// Draws the dialog; false once it is closed.
    pub fn draw(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) -> bool {
        let mut open = true;
        let mut close = false;
        let title = if self.recording {
            "Export a recording"
        } else {
            "Write a report"
        };
        egui::Window::new(title)
            .collapsible(false)
            .resizable(false)
            .open(&mut open)
            .show(ctx, |ui| {
                ui.set_max_width(420.0);
                ui.label(format!("{} call(s), with their notes", self.ids.len()));
                ui.horizontal(|ui| {
                    let label = ui.label("File");
                    ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(320.0))
                        .labelled_by(label.id);
                });
                let hint = if self.recording {
                    "JSON with each response exactly as received; open it with `toolscope \
                     history --recording FILE`."
                } else {
                    "Name it .md for Markdown or .html for one self-contained page (images \
                     embedded)."
                };
                ui.add(egui::Label::new(egui::RichText::new(hint).weak()).wrap());
                ui.horizontal(|ui| {
                    let path = self.path.trim();
                    if ui
                        .add_enabled(!path.is_empty(), egui::Button::new("Write"))
                        .clicked()
                    {
                        let path = PathBuf::from(path);
                        let ids = self.ids.clone();
                        let action = if self.recording {
                            SelectionAction::Export { ids, path }
                        } else {
                            SelectionAction::Report { ids, path }
                        };
                        actions.push(action.into());
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
