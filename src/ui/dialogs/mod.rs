//! The window's dialogs: what a server asks, importing and editing servers, chaining a value into
//! an argument, a resource opened, saving a case, opening a recording, writing marked calls.
//!
//! One convention: a panel asks for a dialog with [`Action::Open`] (it never builds one), the
//! window opens it here, and each frame [`Dialogs::ui`] draws what is open. A dialog draws
//! itself with `draw`, returns whether it stays open and asks for what it does by actions.
//! The two a server opens (a question it asks, a resource it links) are drawn from the model's
//! state, since the server, not the person, decides when they appear.

pub(crate) mod ask_dialog;
pub(crate) mod chaining;
pub(crate) mod import_dialog;
pub(crate) mod open_recording_dialog;
pub(crate) mod resource_dialog;
pub(crate) mod save_case_dialog;
pub(crate) mod server_editor;
pub(crate) mod write_marked_dialog;

use serde_json::Value;

use crate::{
    ui::actions::Action,
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
    /// Write the marked history calls as a report (`recording`: as a recording).
    WriteMarked { ids: Vec<i64>, recording: bool },
    /// "Open recording…".
    OpenRecording,
}

/// The dialogs open now (each kind at most once).
#[derive(Default)]
pub struct Dialogs {
    server_editor: Option<server_editor::ServerEditor>,
    import: Option<import_dialog::ImportDialog>,
    chaining: Option<chaining::ChainingDialog>,
    save_case: Option<save_case_dialog::SaveCaseDialog>,
    write_marked: Option<write_marked_dialog::WriteMarkedDialog>,
    open_recording: Option<open_recording_dialog::OpenRecordingDialog>,
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
            OpenDialog::WriteMarked { ids, recording } => {
                self.write_marked =
                    Some(write_marked_dialog::WriteMarkedDialog::new(ids, recording));
            }
            OpenDialog::OpenRecording => self.open_recording = Some(Default::default()),
        }
        None
    }

    /// A dialog the person opened is showing (the window's shortcuts are theirs meanwhile).
    pub fn any_open(&self) -> bool {
        self.server_editor.is_some()
            || self.import.is_some()
            || self.chaining.is_some()
            || self.save_case.is_some()
            || self.write_marked.is_some()
            || self.open_recording.is_some()
    }

    /// Draws every open dialog, then what a server asks or links.
    pub fn ui(&mut self, model: &Model, ctx: &egui::Context, actions: &mut Vec<Action>) {
        keep_while_open(&mut self.server_editor, |dialog| dialog.draw(ctx, actions));
        keep_while_open(&mut self.import, |dialog| dialog.draw(ctx, model, actions));
        keep_while_open(&mut self.open_recording, |dialog| dialog.draw(ctx, actions));
        keep_while_open(&mut self.write_marked, |dialog| dialog.draw(ctx, actions));
        keep_while_open(&mut self.save_case, |dialog| dialog.draw(ctx, actions));
        keep_while_open(&mut self.chaining, |dialog| dialog.draw(ctx, actions));
        resource_dialog::ui(model, ctx, actions);
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
