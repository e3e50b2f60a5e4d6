//! `--watch DIR` for `call` and `run`: the command runs, then runs again after each change in
//! the folder (once it settles), until Ctrl+C. Each run connects anew, so the server restarts
//! with the edited code; its process is ended and reaped before the next starts.

use std::path::Path;

use tokio_util::sync::CancellationToken;

use super::output::say;
use toolscope_core::{
    text_util::terminal_safe,
    watch::{FolderWatch, SETTLE, written_by_toolscope},
};

/// A folder watched between runs, and Ctrl+C.
pub struct Watching {
    watch: FolderWatch,
    stop: CancellationToken,
    interrupt: tokio::task::JoinHandle<()>,
}

impl Watching {
    /// Starts watching `folder`; Ctrl+C from now on ends the watching (the run in progress
    /// cancels as it would without --watch).
    pub fn start(folder: &Path) -> Result<Self, String> {
        let watch = FolderWatch::start_ignoring(folder, written_by_toolscope())
            .map_err(|error| error.to_string())?;
        let stop = CancellationToken::new();
        let stopping = stop.clone();
        let interrupt = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                stopping.cancel();
            }
        });
        Ok(Self {
            watch,
            stop,
            interrupt,
        })
    }

    /// Waits for the next change (true) or Ctrl+C (false), saying which on stderr.
    pub async fn wait_for_change(&mut self) -> bool {
        if self.stop.is_cancelled() {
            return false;
        }
        say(&format!(
            "watching {} for changes (Ctrl+C ends)",
            terminal_safe(&self.watch.folder().display().to_string())
        ));
        let changed = tokio::select! {
            changed = self.watch.next_change(SETTLE) => changed,
            () = self.stop.cancelled() => None,
        };
        let Some(changed) = changed else {
            say("stopped watching");
            return false;
        };
        let folder = self.watch.folder();
        let mut names: Vec<String> = changed
            .iter()
            .map(|path| {
                let shown = path.strip_prefix(folder).unwrap_or(path);
                terminal_safe(&shown.display().to_string()).into_owned()
            })
            .collect();
        let more = names.len().saturating_sub(3);
        names.truncate(3);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        say(&format!("changed: {}{more}; again", names.join(", ")));
        true
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        self.interrupt.abort();
    }
}
