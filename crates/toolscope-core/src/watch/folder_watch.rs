//! A folder watched recursively; what changed under it comes as one list per burst, once the
//! folder has been quiet for a moment. Folders a build or a tool writes to on its own (`.git`,
//! `__pycache__`, `node_modules`, `target`) and editors' scratch files are not changes.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    time::Duration,
};

use notify::{EventKind, RecursiveMode, Watcher as _};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// Folders whose changes never restart anything.
const IGNORED_FOLDERS: [&str; 6] = [
    ".git",
    "__pycache__",
    "node_modules",
    "target",
    ".venv",
    ".mypy_cache",
];

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("{0} is not a folder: watch the folder the server's files are in")]
    NotAFolder(PathBuf),
    #[error("{folder} cannot be watched: {reason}")]
    Watch { folder: PathBuf, reason: String },
}

/// Watches a folder for as long as it lives.
pub struct FolderWatch {
    folder: PathBuf,
    changes: UnboundedReceiver<PathBuf>,
    // Dropping it stops the watch.
    _watcher: notify::RecommendedWatcher,
}

impl std::fmt::Debug for FolderWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FolderWatch")
            .field("folder", &self.folder)
            .finish_non_exhaustive()
    }
}

impl FolderWatch {
    /// Starts watching `folder` and everything under it.
    pub fn start(folder: &Path) -> Result<Self, WatchError> {
        Self::start_ignoring(folder, Vec::new())
    }

    /// Starts watching `folder`, where nothing under `ignored` counts (what Toolscope itself
    /// writes there: its history, a file its output is redirected to).
    pub fn start_ignoring(folder: &Path, ignored: Vec<PathBuf>) -> Result<Self, WatchError> {
        if !folder.is_dir() {
            return Err(WatchError::NotAFolder(folder.to_owned()));
        }
        let folder = folder.canonicalize().unwrap_or_else(|_| folder.to_owned());
        let (sender, changes) = unbounded_channel();
        let root = folder.clone();
        let failed = |error: notify::Error| WatchError::Watch {
            folder: folder.clone(),
            reason: error.to_string(),
        };
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let Ok(event) = event else { return };
                if matches!(event.kind, EventKind::Access(_)) {
                    return;
                }
                for path in event.paths {
                    let ours = ignored.iter().any(|ignored| path.starts_with(ignored));
                    if !ours && !is_ignored(&root, &path) {
                        let _ = sender.send(path);
                    }
                }
            })
            .map_err(failed)?;
        watcher
            .watch(&folder, RecursiveMode::Recursive)
            .map_err(failed)?;
        Ok(Self {
            folder,
            changes,
            _watcher: watcher,
        })
    }

    /// The folder watched (made absolute).
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Waits for a change, then until the folder has been quiet for `settle`; returns what
    /// changed (each path once, in order). `None` if the watch has ended.
    pub async fn next_change(&mut self, settle: Duration) -> Option<Vec<PathBuf>> {
        let first = self.changes.recv().await?;
        let mut changed = BTreeSet::from([first]);
        // Until a quiet `settle` (or the watch ends).
        while let Ok(Some(path)) = tokio::time::timeout(settle, self.changes.recv()).await {
            changed.insert(path);
        }
        // A file an editor or a tool wrote and removed within the burst is no news: the
        // files still there are what changed (unless everything changed went away).
        let (there, gone): (Vec<PathBuf>, Vec<PathBuf>) =
            changed.into_iter().partition(|path| path.exists());
        Some(if there.is_empty() { gone } else { there })
    }

    /// Forgets changes already seen (those a restart itself caused, such as bytecode).
    pub fn forget_pending(&mut self) {
        while self.changes.try_recv().is_ok() {}
    }
}

/// What Toolscope writes itself, which is no change to a server: its data folder (the
/// history), and the files its output goes to when redirected into a watched folder.
pub fn written_by_toolscope() -> Vec<PathBuf> {
    let mut ours: Vec<PathBuf> = crate::history::data_dir().into_iter().collect();
    for stream in ["/proc/self/fd/1", "/proc/self/fd/2"] {
        if let Ok(target) = std::fs::read_link(stream)
            && target.is_file()
        {
            ours.push(target);
        }
    }
    ours.into_iter()
        .map(|path| path.canonicalize().unwrap_or(path))
        .collect()
}

/// Whether a change at `path` (under `root`) is one to ignore: inside a folder tools write to
/// on their own, or an editor's scratch file (`.swp`, `~`, `.#lock`, vim's `4913` probe).
pub fn is_ignored(root: &Path, path: &Path) -> bool {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let in_ignored_folder = relative.components().any(|part| {
        IGNORED_FOLDERS
            .iter()
            .any(|ignored| part.as_os_str() == *ignored)
    });
    if in_ignored_folder {
        return true;
    }
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    // A server's own data (a database it writes on each call, its log) is not its code:
    // restarting on it would restart on every call.
    const DATA_ENDINGS: [&str; 9] = [
        ".sqlite", ".sqlite3", ".db", "-wal", "-shm", "-journal", ".log", ".pyc", ".lock",
    ];
    name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.starts_with(".#")
        || name == "4913"
        || DATA_ENDINGS.iter().any(|ending| name.ends_with(ending))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_folders_and_scratch_files_are_not_changes() {
        let root = Path::new("/work/server");
        for ignored in [
            "/work/server/.git/index",
            "/work/server/__pycache__/server.cpython-311.pyc",
            "/work/server/node_modules/x/index.js",
            "/work/server/target/debug/server",
            "/work/server/.server.py.swp",
            "/work/server/server.py~",
            "/work/server/4913",
            "/work/server/notes.sqlite3-wal",
            "/work/server/data.db",
            "/work/server/server.log",
        ] {
            assert!(is_ignored(root, Path::new(ignored)), "{ignored}");
        }
        for kept in [
            "/work/server/server.py",
            "/work/server/src/tools.ts",
            "/work/server/targets.py",
        ] {
            assert!(!is_ignored(root, Path::new(kept)), "{kept}");
        }
    }

    #[tokio::test]
    async fn a_burst_of_writes_is_one_change_once_the_folder_is_quiet() {
        let folder = tempfile::tempdir().unwrap();
        let mut watch = FolderWatch::start(folder.path()).unwrap();
        let server = folder.path().join("server.py");
        for n in 0..5 {
            std::fs::write(&server, format!("ANSWER = {n}\n")).unwrap();
        }
        std::fs::create_dir(folder.path().join("__pycache__")).unwrap();
        std::fs::write(folder.path().join("__pycache__/x.pyc"), "x").unwrap();
        let changed = tokio::time::timeout(
            Duration::from_secs(10),
            watch.next_change(Duration::from_millis(200)),
        )
        .await
        .expect("a change is seen")
        .expect("the watch runs");
        let names: Vec<_> = changed
            .iter()
            .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert!(names.contains(&"server.py".to_owned()), "{names:?}");
        assert!(
            !names.iter().any(|name| name.ends_with(".pyc")),
            "{names:?}"
        );
        assert!(
            tokio::time::timeout(
                Duration::from_millis(400),
                watch.next_change(Duration::from_millis(100))
            )
            .await
            .is_err(),
            "the burst was one change"
        );
    }

    #[test]
    fn a_file_is_not_a_folder_to_watch() {
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("server.py");
        std::fs::write(&file, "").unwrap();
        assert!(matches!(
            FolderWatch::start(&file),
            Err(WatchError::NotAFolder(_))
        ));
    }
}
