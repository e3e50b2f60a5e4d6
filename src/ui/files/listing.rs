//! A folder's entries, read on a thread of their own so the window never waits on a slow disk
//! or a network mount.

use std::{
    collections::HashSet,
    ffi::OsString,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

/// At most this many entries are kept (a folder of a million files still opens).
const MAX_ENTRIES: usize = 20_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: OsString,
    /// The name as shown (lossy where it is not UTF-8).
    pub shown: String,
    pub is_folder: bool,
}

/// What a folder holds, folders first, each group by name.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// The folder read (where a missing start folder fell back to, when it did).
    pub folder: PathBuf,
    pub entries: Vec<Entry>,
    /// Entries left out: hidden (a leading dot), not matching the filters, or past the cap.
    pub left_out: usize,
    /// Every file's name, listed or not (a save asks before replacing any of them).
    pub file_names: HashSet<OsString>,
    /// Why the folder could not be read.
    pub problem: Option<String>,
}

/// A listing being read; `take` hands it over once.
#[derive(Clone, Default)]
pub struct PendingListing(Arc<Mutex<Option<Listing>>>);

impl PendingListing {
    /// Reads `folder` (or, with `fall_back`, the documents folder when `folder` is not one)
    /// on a new thread; `keep` says which file names are listed; `done` wakes the window.
    pub fn start(
        folder: PathBuf,
        fall_back: bool,
        keep: impl Fn(&str) -> bool + Send + 'static,
        done: impl FnOnce() + Send + 'static,
    ) -> Self {
        let pending = Self::default();
        let slot = pending.0.clone();
        std::thread::Builder::new()
            .name("toolscope-list-folder".into())
            .spawn(move || {
                let folder = if fall_back && !folder.is_dir() {
                    toolscope_core::settings::documents_dir().unwrap_or(folder)
                } else {
                    folder
                };
                let listing = read(&folder, &keep);
                *slot
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(listing);
                done();
            })
            .ok();
        pending
    }

    pub fn take(&self) -> Option<Listing> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

/// Reads one folder (blocking: call it off the UI thread).
pub fn read(folder: &Path, keep: &dyn Fn(&str) -> bool) -> Listing {
    let mut listing = Listing {
        folder: folder.to_owned(),
        ..Listing::default()
    };
    let reader = match std::fs::read_dir(folder) {
        Ok(reader) => reader,
        Err(error) => {
            listing.problem = Some(match error.kind() {
                std::io::ErrorKind::NotFound => "There is no such folder.".to_owned(),
                std::io::ErrorKind::NotADirectory => "That is a file, not a folder.".to_owned(),
                std::io::ErrorKind::PermissionDenied => "You may not read this folder.".to_owned(),
                _ => format!("It could not be read: {error}"),
            });
            return listing;
        }
    };
    for entry in reader.flatten() {
        let name = entry.file_name();
        let shown = name.to_string_lossy().into_owned();
        // A link to a folder is a folder (metadata follows links; file_type does not).
        let is_folder = std::fs::metadata(entry.path()).is_ok_and(|meta| meta.is_dir());
        if !is_folder {
            listing.file_names.insert(name.clone());
        }
        if shown.starts_with('.')
            || (!is_folder && !keep(&shown))
            || listing.entries.len() >= MAX_ENTRIES
        {
            listing.left_out += 1;
            continue;
        }
        listing.entries.push(Entry {
            name,
            shown,
            is_folder,
        });
    }
    listing.entries.sort_by(|a, b| {
        b.is_folder
            .cmp(&a.is_folder)
            .then_with(|| a.shown.to_lowercase().cmp(&b.shown.to_lowercase()))
    });
    listing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_first_hidden_and_filtered_left_out() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("zeta")).unwrap();
        std::fs::write(dir.path().join("b.toml"), "").unwrap();
        std::fs::write(dir.path().join("A.toml"), "").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "").unwrap();
        std::fs::write(dir.path().join(".hidden.toml"), "").unwrap();
        let listing = read(dir.path(), &|name| name.ends_with(".toml"));
        let shown: Vec<_> = listing.entries.iter().map(|e| e.shown.as_str()).collect();
        assert_eq!(shown, ["zeta", "A.toml", "b.toml"]);
        assert_eq!(listing.left_out, 2);
        assert!(
            listing
                .file_names
                .contains(std::ffi::OsStr::new("notes.txt"))
        );
        assert!(listing.problem.is_none());
    }

    #[test]
    fn a_missing_folder_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let listing = read(&dir.path().join("nope"), &|_| true);
        assert_eq!(listing.problem.as_deref(), Some("There is no such folder."));
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        assert!(read(&file, &|_| true).problem.is_some());
    }
}
