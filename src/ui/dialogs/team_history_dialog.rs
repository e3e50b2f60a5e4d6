//! "Team history…": record into and read a team's PostgreSQL history instead of the local
//! file (or go back to it), with the name the history gives you. The password goes to the
//! secret store, never to the settings.

use crate::ui::actions::Action;
use crate::workbench::{HistoryAction, Model, TeamHistoryChoice};

pub struct TeamHistoryDialog {
    url: String,
    password: String,
    person: String,
    /// `TOOLSCOPE_HISTORY_URL`, which wins over the setting at the next start.
    variable: Option<String>,
    /// Whether the window reads a team's history now.
    on_team: bool,
}

impl TeamHistoryDialog {
    pub fn new(model: &Model) -> Self {
        let variable = std::env::var(toolscope_core::history::HISTORY_URL_VARIABLE)
            .ok()
            .filter(|value| !value.trim().is_empty())
            .map(
                |value| match toolscope_core::history::PostgresUrl::parse(&value) {
                    Ok(url) => url.to_string(),
                    Err(_) => "a value that is not a PostgreSQL URL".to_owned(),
                },
            );
        let (url, person) = model.team_history_setting();
        Self {
            url: url.unwrap_or_default(),
            password: String::new(),
            person: person.unwrap_or_default().to_owned(),
            variable,
            on_team: model.history_is_shared(),
        }
    }

    /// Draws the dialog; false once it is closed. Using a history is an action.
    pub fn draw(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) -> bool {
        let mut open = true;
        let mut close = false;
        egui::Window::new("Team history")
            .collapsible(false)
            .resizable(false)
            .open(&mut open)
            .show(ctx, |ui| {
                ui.set_max_width(460.0);
                ui.add(
                    egui::Label::new(
                        "One history for a team on PostgreSQL: every call you make here, and \
                         every session a client runs through toolscope proxy with the same \
                         database, is kept there with your name and this machine's, and the \
                         History and Live tabs show what the others record as they record it.",
                    )
                    .wrap(),
                );
                egui::Grid::new("team_history_grid")
                    .num_columns(2)
                    .show(ui, |ui| {
                        let label = ui.label("Database");
                        ui.add(
                            egui::TextEdit::singleline(&mut self.url)
                                .hint_text("postgres://user@host:5432/database")
                                .desired_width(320.0),
                        )
                        .labelled_by(label.id);
                        ui.end_row();
                        let label = ui.label("Password");
                        ui.add(
                            egui::TextEdit::singleline(&mut self.password)
                                .password(true)
                                .hint_text("none, or from PGPASSWORD / ~/.pgpass")
                                .desired_width(320.0),
                        )
                        .labelled_by(label.id)
                        .on_hover_text("Kept in the secret store, never in the settings");
                        ui.end_row();
                        let label = ui.label("Your name");
                        ui.add(
                            egui::TextEdit::singleline(&mut self.person)
                                .hint_text("your OS user name")
                                .desired_width(320.0),
                        )
                        .labelled_by(label.id);
                        ui.end_row();
                    });
                if let Some(variable) = &self.variable {
                    ui.add(
                        egui::Label::new(
                            egui::RichText::new(format!(
                                "TOOLSCOPE_HISTORY_URL is set ({variable}): it is used instead \
                                 of this setting when Toolscope starts."
                            ))
                            .color(ui.visuals().warn_fg_color),
                        )
                        .wrap(),
                    );
                }
                ui.horizontal(|ui| {
                    let url = self.url.trim();
                    if ui
                        .add_enabled(!url.is_empty(), egui::Button::new("Use the team history"))
                        .clicked()
                    {
                        actions.push(self.choice(Some(url.to_owned())));
                        close = true;
                    }
                    if self.on_team && ui.button("Back to the local history").clicked() {
                        actions.push(self.choice(None));
                        close = true;
                    }
                    if ui.button("Cancel").clicked() {
                        close = true;
                    }
                });
            });
        open && !close
    }

    fn choice(&self, url: Option<String>) -> Action {
        HistoryAction::UseTeamHistory(TeamHistoryChoice {
            url,
            password: Some(self.password.clone()).filter(|password| !password.is_empty()),
            person: Some(self.person.trim().to_owned()).filter(|person| !person.is_empty()),
        })
        .into()
    }
}
