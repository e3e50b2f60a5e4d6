//! The window's dialogs: what a server asks, importing and editing servers, chaining a value into
//! an argument, a resource opened, saving a case, and the window's own file dialog.
//!
//! One convention: a panel asks for a dialog with [`Action::Open`] (it never builds one), the
//! window opens it here, and each frame [`Dialogs::ui`] draws what is open. A dialog draws
//! itself with `draw`, returns whether it stays open and asks for what it does by actions.
//! The two a server opens (a question it asks, a resource it links) are drawn from the model's
//! state, since the server, not the person, decides when they appear.

pub(crate) mod ask_dialog;
pub(crate) mod chaining;
pub(crate) mod diagnosis_dialog;
pub(crate) mod import_dialog;
pub(crate) mod oauth_fields;
pub(crate) mod resource_dialog;
pub(crate) mod save_case_dialog;
pub(crate) mod server_editor;
pub(crate) mod team_history_dialog;

use serde_json::Value;

use crate::{
    ui::{actions::Action, files::FileRequest, files::chooser::FileChooser},
    workbench::{self, CaseSource, Model, ServerId, ToolKey},
};

/// A dialog a panel asks the window to open.
#[derive(Debug, Clone)]
pub enum OpenDialog {
    /// The server editor: `None` adds a new server.
    EditServer(Option<ServerId>),
    /// "Import servers" (other clients' servers, or one pasted).
    Import,
    /// "Use as argument of…" on a node of a result.
    Chaining {
        from_tool: ToolKey,
        pointer: String,
        value: Value,
    },
    /// "Save as case…" of a tool's arguments or a history call.
    SaveCase { tool: String, source: CaseSource },
    /// "Team history…": a team's PostgreSQL history, or the local one.
    TeamHistory,
}

/// The dialogs open now (each kind at most once).
#[derive(Default)]
pub struct Dialogs {
    server_editor: Option<server_editor::ServerEditor>,
    import: Option<import_dialog::ImportDialog>,
    chaining: Option<chaining::ChainingDialog>,
    save_case: Option<save_case_dialog::SaveCaseDialog>,
    team_history: Option<team_history_dialog::TeamHistoryDialog>,
    /// The window's own file dialog (where the platform's does not answer).
    file_chooser: Option<FileChooser>,
    /// What the person has entered for the question a server asked.
    ask_draft: Option<ask_dialog::AskDraft>,
}

impl Dialogs {
    /// Opens a dialog (one already open of that kind is replaced). Returns what the model must
    /// do for it (the import dialog looks for other clients' servers).
    pub fn open(&mut self, model: &Model, request: OpenDialog) -> Option<workbench::Action> {
        match request {
            OpenDialog::EditServer(id) => {
                let existing = id.and_then(|id| model.server(id));
                self.server_editor = Some(server_editor::ServerEditor::new(
                    id,
                    existing.map(|s| (s.name.as_str(), &s.config, s.connect_at_start, &s.client)),
                ));
            }
            OpenDialog::Import => {
                self.import = Some(Default::default());
                return Some(workbench::Action::Import(
                    workbench::ImportAction::LookForServers,
                ));
            }
            OpenDialog::Chaining {
                from_tool,
                pointer,
                value,
            } => {
                let tools = model
                    .server(from_tool.server)
                    .and_then(|server| server.catalog.clone())
                    .unwrap_or_default();
                self.chaining = Some(chaining::ChainingDialog::new(
                    from_tool, pointer, value, tools,
                ));
            }
            OpenDialog::SaveCase { tool, source } => {
                self.save_case = Some(save_case_dialog::SaveCaseDialog::new(model, &tool, source));
            }
            OpenDialog::TeamHistory => {
                self.team_history = Some(team_history_dialog::TeamHistoryDialog::new(model));
            }
        }
        None
    }

    /// Opens the window's own file dialog on `start` (see [`crate::ui::files`]).
    pub fn choose_file(
        &mut self,
        request: FileRequest,
        start: Option<std::path::PathBuf>,
        ctx: &egui::Context,
    ) {
        self.file_chooser = Some(FileChooser::new(request, start, ctx));
    }

    /// The case file "Save as case…" appends to was chosen.
    pub fn case_file_chosen(&mut self, path: &std::path::Path) {
        if let Some(dialog) = &mut self.save_case {
            dialog.set_path(path);
        }
    }

    /// A dialog the person opened is showing (the window's shortcuts are theirs meanwhile).
    pub fn any_open(&self) -> bool {
        self.server_editor.is_some()
            || self.import.is_some()
            || self.chaining.is_some()
            || self.save_case.is_some()
            || self.team_history.is_some()
            || self.file_chooser.is_some()
    }

    /// Draws every open dialog, then what a server asks or links.
    pub fn ui(&mut self, model: &Model, ctx: &egui::Context, actions: &mut Vec<Action>) {
        // Escape cancels what the person opened (the file dialog first, when it is open;
        // it closes itself). What a server asks waits for an answer.
        if self.file_chooser.is_none()
            && self.any_open()
            && ctx.input_mut(|input| input.consume_key(egui::Modifiers::NONE, egui::Key::Escape))
        {
            self.server_editor = None;
            self.import = None;
            self.chaining = None;
            self.save_case = None;
            self.team_history = None;
        }
        keep_while_open(&mut self.server_editor, |dialog| dialog.draw(ctx, actions));
        keep_while_open(&mut self.import, |dialog| dialog.draw(ctx, model, actions));
        keep_while_open(&mut self.save_case, |dialog| dialog.draw(ctx, actions));
        keep_while_open(&mut self.chaining, |dialog| dialog.draw(ctx, actions));
        keep_while_open(&mut self.team_history, |dialog| dialog.draw(ctx, actions));
        // Last, so it is above the dialog that asked for it.
        keep_while_open(&mut self.file_chooser, |dialog| dialog.draw(ctx, actions));
        resource_dialog::ui(model, ctx, actions);
        diagnosis_dialog::ui(model, ctx, actions);
        ask_dialog::ui(model, &mut self.ask_draft, ctx, actions);
    }
}

/// Draws the dialog in `slot`, if one is open, and closes it when it says so.
fn keep_while_open<D>(slot: &mut Option<D>, draw: impl FnOnce(&mut D) -> bool) {
    if let Some(dialog) = slot
        && !draw(dialog)
    {
        *slot = None;
    }
}
