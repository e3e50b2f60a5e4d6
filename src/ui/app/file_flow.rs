//! The window's one way to a file: the platform's dialog where it answers, else the window's
//! own, both starting in the last folder used; then the chosen path goes to what asked for it.

use std::path::{Path, PathBuf};

use super::ToolscopeApp;
use crate::{
    ui::{
        actions::Action,
        files::{
            FilePurpose, FileRequest,
            native::{self, NativeAnswer},
        },
    },
    workbench,
};

impl ToolscopeApp {
    /// Asks for a file: the platform's dialog answers off the UI thread, or the window's own
    /// opens.
    pub(super) fn choose_file(&mut self, request: FileRequest) {
        if !self.native_dialogs.available() {
            self.open_own_chooser(request);
            return;
        }
        let last_folder = self.model.last_folder().map(Path::to_owned);
        let (dialogs, answers, ctx) = (
            self.native_dialogs.clone(),
            self.native_answers.clone(),
            self.ctx.clone(),
        );
        self.runtime.spawn(async move {
            let start = toolscope_core::settings::start_folder(last_folder.as_deref());
            let answer = native::ask(dialogs, request, start).await;
            answers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(answer);
            ctx.request_repaint();
        });
    }

    /// The window's own file dialog, on the last folder used.
    fn open_own_chooser(&mut self, request: FileRequest) {
        let last_folder = self.model.last_folder().map(Path::to_owned);
        self.view
            .dialogs
            .choose_file(request, last_folder, &self.ctx);
    }

    /// What the platform's dialogs answered since the last frame, as actions; one that did not
    /// answer at all is asked again in the window.
    pub(super) fn take_native_answers(&mut self) -> Vec<Action> {
        let answers = std::mem::take(
            &mut *self
                .native_answers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        let mut actions = Vec::new();
        for answer in answers {
            match answer {
                NativeAnswer::Chosen(purpose, path) => {
                    actions.push(Action::FileChosen { purpose, path });
                }
                NativeAnswer::Unanswered(request) => self.open_own_chooser(request),
                NativeAnswer::Cancelled => {}
            }
        }
        actions
    }

    /// Does what the file was chosen for, and remembers its folder for the next dialog.
    pub(super) fn file_chosen(&mut self, purpose: FilePurpose, path: PathBuf) {
        let folder = match &purpose {
            FilePurpose::RootFolder { .. } => Some(path.clone()),
            _ => path.parent().map(Path::to_owned),
        };
        if let Some(folder) = folder.filter(|folder| !folder.as_os_str().is_empty()) {
            self.model.apply(workbench::Action::SetLastFolder(folder));
        }
        match purpose {
            FilePurpose::Report { ids } => self
                .model
                .apply(workbench::SelectionAction::Report { ids, path }.into()),
            FilePurpose::Recording { ids } => self
                .model
                .apply(workbench::SelectionAction::Export { ids, path }.into()),
            FilePurpose::OpenRecording => self
                .model
                .apply(workbench::HistoryAction::OpenRecording(path).into()),
            FilePurpose::OpenCaseFile => {
                self.view.sidebar.case_path = path.display().to_string();
                self.model.apply(workbench::CaseAction::Open(path).into());
            }
            FilePurpose::CaseFileToSaveIn => self.view.dialogs.case_file_chosen(&path),
            FilePurpose::Media { bytes } => self.write_media(bytes, path),
            FilePurpose::RootFolder { into } => {
                into.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(path);
            }
        }
    }

    /// Writes a media block's bytes off the UI thread; the banner says where, or why not.
    fn write_media(&self, bytes: std::sync::Arc<[u8]>, path: PathBuf) {
        let (notify, wrote) = (self.model.notifier(), self.model.file_notifier());
        self.runtime.spawn(async move {
            match tokio::fs::write(&path, &bytes).await {
                Ok(()) => wrote(
                    format!("Saved {} bytes to {}", bytes.len(), path.display()),
                    path,
                ),
                Err(error) => notify(format!("Could not save to {}: {error}", path.display())),
            }
        });
    }
}
