//! Reload on change: a folder watched for edits (the server being written), each burst of
//! changes said once when it settles, and the folder to watch for a server by default.
//! Egui-free; the window's Restart on change and `call`/`run --watch` drive it.

mod default_folder;
mod folder_watch;

pub use default_folder::default_folder;
pub use folder_watch::{FolderWatch, WatchError, is_ignored, written_by_toolscope};

/// How long the folder must be quiet before a burst of changes counts as one (an editor
/// writes a file in several steps; `git checkout` touches many).
pub const SETTLE: std::time::Duration = std::time::Duration::from_millis(300);
