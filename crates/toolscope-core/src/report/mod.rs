//! Reports of a QA session: the calls of a case run or a selection of the history, with
//! arguments, the text a model reads, the structuredContent, the analysis and the tester's
//! notes, as Markdown or as one self-contained HTML file. Egui-free.

mod entry;
mod html;
mod markdown;
mod parts;

#[cfg(test)]
mod tests;

pub use entry::{EntryAnswer, EntryStatus, ReportEntry, ServerIdentity};
pub use html::to_html;
pub use markdown::to_markdown;

use std::path::Path;

/// A report: a title, one line of summary, and the calls.
#[derive(Debug)]
pub struct Report {
    pub title: String,
    /// RFC 3339, UTC.
    pub generated_at: String,
    /// E.g. "3 cases: 2 passed, 1 failed".
    pub summary: Option<String>,
    pub entries: Vec<ReportEntry>,
}

/// Why a report was not written.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReportError {
    #[error(
        "cannot tell the report's format from {}: name it .md (Markdown) or .html",
        .0.display()
    )]
    UnknownFormat(std::path::PathBuf),
    #[error(transparent)]
    Write(#[from] crate::atomic_file::WriteError),
}

/// Which kind of report a file name asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Markdown,
    Html,
}

impl ReportFormat {
    /// `.md` / `.markdown` or `.html` / `.htm`; anything else is refused with a message.
    pub fn of_path(path: &Path) -> Result<Self, ReportError> {
        let extension = path
            .extension()
            .and_then(|extension| extension.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("md" | "markdown") => Ok(Self::Markdown),
            Some("html" | "htm") => Ok(Self::Html),
            _ => Err(ReportError::UnknownFormat(path.to_owned())),
        }
    }
}

impl Report {
    pub fn render(&self, format: ReportFormat) -> String {
        match format {
            ReportFormat::Markdown => to_markdown(self),
            ReportFormat::Html => to_html(self),
        }
    }

    /// Writes the report to `path`, in the format its extension names.
    pub fn write(&self, path: &Path) -> Result<(), ReportError> {
        let format = ReportFormat::of_path(path)?;
        let text = self.render(format);
        Ok(crate::atomic_file::write_atomically(path, |out| {
            out.write_all(text.as_bytes())
        })?)
    }

    /// The distinct servers of the entries, in order of first appearance.
    pub fn servers(&self) -> Vec<&ServerIdentity> {
        let mut servers: Vec<&ServerIdentity> = Vec::new();
        for entry in &self.entries {
            if !servers.contains(&&entry.server) {
                servers.push(&entry.server);
            }
        }
        servers
    }
}
