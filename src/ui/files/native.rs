//! The platform's file dialog (rfd), used where one answers. On Linux that is an XDG desktop
//! portal with a FileChooser, or zenity: under a bare X server neither is there, rfd's dialog
//! returns at once as if cancelled, and the window's own chooser must answer instead.

use std::{
    path::PathBuf,
    sync::{
        Arc,
        atomic::{AtomicU8, Ordering},
    },
    time::{Duration, Instant},
};

use super::{FileKind, FilePurpose, FileRequest};

const UNKNOWN: u8 = 0;
const AVAILABLE: u8 = 1;
const UNAVAILABLE: u8 = 2;

/// A dialog that came back sooner than this with nothing was not seen by anyone: no person
/// cancels a file dialog that fast, but rfd returns that fast when nothing answers it.
const UNSEEN_WITHIN: Duration = Duration::from_millis(400);

/// Whether the platform's file dialog is used (probed once, on a thread, at start).
#[derive(Clone)]
pub struct NativeDialogs(Arc<AtomicU8>);

impl NativeDialogs {
    /// Never the platform's dialog (tests; `TOOLSCOPE_FILE_DIALOG=window`).
    pub fn off() -> Self {
        Self(Arc::new(AtomicU8::new(UNAVAILABLE)))
    }

    /// Finds out whether the platform's dialog answers; until it is known, the window's own
    /// is used.
    pub fn probe() -> Self {
        let state = Arc::new(AtomicU8::new(UNKNOWN));
        let answer = state.clone();
        std::thread::Builder::new()
            .name("toolscope-probe-dialogs".into())
            .spawn(move || {
                let found = if platform_dialog_answers() {
                    AVAILABLE
                } else {
                    UNAVAILABLE
                };
                answer.store(found, Ordering::Relaxed);
            })
            .ok();
        Self(state)
    }

    pub fn available(&self) -> bool {
        self.0.load(Ordering::Relaxed) == AVAILABLE
    }

    /// The platform's dialog did not answer: the window's own is used from now on.
    fn give_up(&self) {
        self.0.store(UNAVAILABLE, Ordering::Relaxed);
    }
}

/// How the platform's dialog was answered.
#[derive(Debug)]
pub enum NativeAnswer {
    Chosen(FilePurpose, PathBuf),
    Cancelled,
    /// Nothing answered: ask again in the window.
    Unanswered(FileRequest),
}

/// Shows the platform's dialog for `request`, starting in `start` (blocking on its own
/// thread inside rfd; await it off the UI thread).
pub async fn ask(
    dialogs: NativeDialogs,
    request: FileRequest,
    start: Option<PathBuf>,
) -> NativeAnswer {
    let mut dialog = rfd::AsyncFileDialog::new().set_title(request.title);
    if let Some(folder) = start {
        dialog = dialog.set_directory(folder);
    }
    for (name, extensions) in &request.filters {
        dialog = dialog.add_filter(*name, extensions);
    }
    let asked = Instant::now();
    let chosen = match request.kind {
        FileKind::Save | FileKind::Append => {
            dialog
                .set_file_name(&request.suggested_name)
                .save_file()
                .await
        }
        FileKind::Open => dialog.pick_file().await,
        FileKind::Folder => dialog.pick_folder().await,
    };
    match chosen {
        Some(file) => NativeAnswer::Chosen(request.purpose, file.path().to_owned()),
        None if asked.elapsed() < UNSEEN_WITHIN => {
            dialogs.give_up();
            NativeAnswer::Unanswered(request)
        }
        None => NativeAnswer::Cancelled,
    }
}

#[cfg(target_os = "linux")]
fn platform_dialog_answers() -> bool {
    portal_file_chooser() || on_path("zenity")
}

#[cfg(not(target_os = "linux"))]
fn platform_dialog_answers() -> bool {
    true
}

/// An XDG desktop portal on the session bus that implements FileChooser (a portal without a
/// backend for it does not have the interface, so reading its version fails).
#[cfg(target_os = "linux")]
fn portal_file_chooser() -> bool {
    let Ok(bus) = zbus::blocking::Connection::session() else {
        return false;
    };
    zbus::blocking::Proxy::new(
        &bus,
        "org.freedesktop.portal.Desktop",
        "/org/freedesktop/portal/desktop",
        "org.freedesktop.portal.FileChooser",
    )
    .and_then(|portal| portal.get_property::<u32>("version"))
    .is_ok()
}

#[cfg(target_os = "linux")]
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|folder| folder.join(program).is_file())
    })
}
