//! Every file the window writes or opens goes one way: a [`FileRequest`] says what the file is
//! for, the platform's dialog answers it where one does (an XDG desktop portal or zenity on
//! Linux, the system's elsewhere), else the window's own [`chooser::FileChooser`] does, and
//! the chosen path goes back to its [`FilePurpose`]. Both start in the last folder used, else
//! the documents folder, never where Toolscope happens to run.

pub(crate) mod chooser;
pub(crate) mod listing;
pub(crate) mod native;

use std::{
    path::PathBuf,
    sync::{Arc, Mutex},
};

/// What a chosen file is for.
#[derive(Debug, Clone)]
pub enum FilePurpose {
    /// A report of these history calls (Markdown or HTML by the file's name).
    Report { ids: Vec<i64> },
    /// A JSON recording of these history calls.
    Recording { ids: Vec<i64> },
    /// A recording to browse in place of the history.
    OpenRecording,
    /// A case file to open in the Cases tab.
    OpenCaseFile,
    /// The case file "Save as case…" appends to.
    CaseFileToSaveIn,
    /// The decoded bytes of an image, audio or blob block.
    Media { bytes: Arc<[u8]> },
    /// A root folder for the server editor (put in `into`).
    RootFolder { into: Arc<Mutex<Vec<PathBuf>>> },
}

/// Whether a file is written, read, or a folder is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Written: a name is suggested; an existing file is replaced only once confirmed.
    Save,
    /// A file added to at its end when it exists (a case file): no "replace?" question.
    Append,
    Open,
    Folder,
}

/// A file asked for.
#[derive(Debug, Clone)]
pub struct FileRequest {
    pub purpose: FilePurpose,
    pub kind: FileKind,
    /// The dialog's title ("Write a report").
    pub title: &'static str,
    /// The name offered when saving.
    pub suggested_name: String,
    /// Which files are listed: a name and its extensions (none: every file).
    pub filters: Vec<(&'static str, &'static [&'static str])>,
    /// One line under the list saying what happens to the file.
    pub hint: &'static str,
}

impl FileRequest {
    pub fn report(ids: Vec<i64>) -> Self {
        Self {
            title: "Write a report",
            suggested_name: "toolscope-report.html".into(),
            filters: vec![("HTML page", &["html", "htm"]), ("Markdown", &["md"])],
            hint: "Name it .md for Markdown or .html for one self-contained page (images \
                   embedded).",
            kind: FileKind::Save,
            purpose: FilePurpose::Report { ids },
        }
    }

    pub fn recording(ids: Vec<i64>) -> Self {
        Self {
            title: "Export a recording",
            suggested_name: "toolscope-session.json".into(),
            filters: vec![("Recording", &["json"])],
            hint: "JSON with each response exactly as received; open it with Open recording… \
                   or `toolscope history --recording FILE`.",
            kind: FileKind::Save,
            purpose: FilePurpose::Recording { ids },
        }
    }

    pub fn open_recording() -> Self {
        Self {
            title: "Open a recording",
            suggested_name: String::new(),
            filters: vec![("Recording", &["json"])],
            hint: "Its calls are listed in place of your history, each shown as it was; your \
                   own history is untouched.",
            kind: FileKind::Open,
            purpose: FilePurpose::OpenRecording,
        }
    }

    pub fn open_case_file() -> Self {
        Self {
            title: "Open a case file",
            suggested_name: String::new(),
            filters: vec![("Case file", &["toml"])],
            hint: "A [server] and [[case]]s with expectations (Save as case… beside Call makes \
                   one).",
            kind: FileKind::Open,
            purpose: FilePurpose::OpenCaseFile,
        }
    }

    pub fn case_file_to_save_in(current: Option<&std::path::Path>) -> Self {
        let name = current
            .and_then(|path| path.file_name())
            .map_or_else(|| "cases.toml".into(), |name| name.to_string_lossy().into());
        Self {
            title: "Save the case in",
            suggested_name: name,
            filters: vec![("Case file", &["toml"])],
            hint: "The case is added at the end of an existing file; a new one is made.",
            kind: FileKind::Append,
            purpose: FilePurpose::CaseFileToSaveIn,
        }
    }

    pub fn media(bytes: Arc<[u8]>, file_name: String) -> Self {
        Self {
            title: "Save the block's bytes",
            suggested_name: file_name,
            filters: Vec::new(),
            hint: "The block's decoded bytes, as the server sent them.",
            kind: FileKind::Save,
            purpose: FilePurpose::Media { bytes },
        }
    }

    pub fn root_folder(into: Arc<Mutex<Vec<PathBuf>>>) -> Self {
        Self {
            title: "Add a root folder",
            suggested_name: String::new(),
            filters: Vec::new(),
            hint: "The server is told this folder is one it may work in.",
            kind: FileKind::Folder,
            purpose: FilePurpose::RootFolder { into },
        }
    }

    /// Whether a file's name passes the filters.
    pub fn lists(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        self.filters.is_empty()
            || self.filters.iter().any(|(_, extensions)| {
                extensions
                    .iter()
                    .any(|extension| name.ends_with(&format!(".{extension}")))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_match_extensions_without_case() {
        let request = FileRequest::report(vec![1]);
        assert!(request.lists("QA.HTML"));
        assert!(request.lists("notes.md"));
        assert!(!request.lists("cases.toml"));
        assert!(!request.lists("html"), "an extension, not a name");
        assert!(FileRequest::media(Arc::from(&b""[..]), "a.png".into()).lists("anything"));
    }
}
