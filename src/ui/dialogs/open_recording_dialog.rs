//! "Open recording…": a JSON recording (made with Export… or `toolscope history export`)
//! browsed in place of the history, with the same panes and analysis, without its server.

use std::path::PathBuf;

use crate::ui::actions::Action;
use crate::workbench;

#[derive(Default)]
pub struct OpenRecordingDialog {
    path: String,
}

impl OpenRecordingDialog {
    /// Draws the dialog; false once it is closed.
    pub fn draw(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) -> bool {
        let mut open = true;
        let mut close = false;
        egui::Window::new("Open a recording")
            .collapsible(false)
            .resizable(false)
            .open(&mut open)
            .show(ctx, |ui| {
                ui.set_max_width(420.0);
                ui.horizontal(|ui| {
                    let label = ui.label("Recording");
                    ui.add(
                        egui::TextEdit::singleline(&mut self.path)
                            .hint_text("path/to/session.json")
                            .desired_width(320.0),
                    )
                    .labelled_by(label.id);
                });
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(
                            "Its calls are listed in place of your history, each shown as it \
                             was; your own history is untouched.",
                        )
                        .weak(),
                    )
                    .wrap(),
                );
                ui.horizontal(|ui| {
                    let path = self.path.trim();
                    if ui
                        .add_enabled(!path.is_empty(), egui::Button::new("Open"))
                        .clicked()
                    {
                        actions.push(
                            workbench::HistoryAction::OpenRecording(PathBuf::from(path)).into(),
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
