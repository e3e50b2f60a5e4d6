//! The one writer of the settings file. Saves are queued to a thread that waits for a quiet
//! moment (dragging the timeout asks for dozens of saves a second) and writes only the latest,
//! atomically; a failure is reported, and what is queued is written before the app exits.

use std::{
    path::PathBuf,
    sync::mpsc::{self, RecvTimeoutError},
    thread::JoinHandle,
    time::Duration,
};

use std::collections::{BTreeMap, BTreeSet};

use toolscope_core::{
    secret_store::SecretStoreError,
    settings::{
        SecretsPlace, Settings,
        kept_secrets::{self, KeptSecretsError},
    },
};

/// What the writer put in the secret store, so a save writes only what changed and forgets
/// what no server refers to any more.
#[derive(Default)]
struct KeptSoFar {
    written: BTreeMap<String, String>,
    in_use: BTreeSet<String>,
}

impl KeptSoFar {
    /// Moves the secrets out; returns the keys no server refers to any more, to forget once
    /// the settings that no longer refer to them are written.
    fn move_out(
        &mut self,
        settings: &mut Settings,
        secrets: &SecretsPlace,
    ) -> Result<Vec<String>, KeptSecretsError> {
        let store = secrets.store_blocking()?;
        let in_use = kept_secrets::move_out(&mut settings.servers, &store, &mut self.written)?;
        let gone = self.in_use.difference(&in_use).cloned().collect();
        self.in_use = in_use;
        Ok(gone)
    }

    fn forget(&mut self, gone: &[String], secrets: &SecretsPlace) -> Result<(), SecretStoreError> {
        let store = secrets.store_blocking()?;
        for key in gone {
            store.delete(key)?;
            self.written.remove(key);
        }
        Ok(())
    }
}

/// How long the settings must stay unchanged before they are written.
const QUIET: Duration = Duration::from_millis(300);

pub struct SettingsWriter {
    sender: Option<mpsc::Sender<Settings>>,
    thread: Option<JoinHandle<()>>,
}

impl SettingsWriter {
    /// Starts the writer for `path`; `report` gets the message of a failed save. With
    /// `secrets`, secret header and environment values go there, not into the file.
    pub fn spawn(
        path: PathBuf,
        report: impl Fn(String) + Send + 'static,
        secrets: Option<SecretsPlace>,
    ) -> Self {
        let (sender, receiver) = mpsc::channel::<Settings>();
        let thread = std::thread::Builder::new()
            .name("settings-writer".to_owned())
            .spawn(move || {
                let mut kept = KeptSoFar::default();
                while let Ok(mut latest) = receiver.recv() {
                    let closing = loop {
                        match receiver.recv_timeout(QUIET) {
                            Ok(newer) => latest = newer,
                            Err(RecvTimeoutError::Timeout) => break false,
                            Err(RecvTimeoutError::Disconnected) => break true,
                        }
                    };
                    let mut gone = Vec::new();
                    if let Some(secrets) = &secrets {
                        match kept.move_out(&mut latest, secrets) {
                            Ok(keys) => gone = keys,
                            Err(problem) => report(format!(
                                "secret header and environment values could not be moved out \
                                 of the settings file ({problem}); they stay in it, readable \
                                 only by you"
                            )),
                        }
                    }
                    match latest.save(&path) {
                        Ok(()) => {
                            if let Some(secrets) = &secrets
                                && let Err(problem) = kept.forget(&gone, secrets)
                            {
                                report(format!("a secret no server uses stays kept: {problem}"));
                            }
                        }
                        Err(problem) => report(problem.to_string()),
                    }
                    if closing {
                        return;
                    }
                }
            })
            .ok();
        Self {
            sender: Some(sender),
            thread,
        }
    }

    /// Queues these settings to be written once things are quiet.
    pub fn save(&self, settings: Settings) {
        if let Some(sender) = &self.sender {
            let _ = sender.send(settings);
        }
    }
}

impl Drop for SettingsWriter {
    /// Writes what is queued, then returns (at most one file write).
    fn drop(&mut self) {
        self.sender = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn many_saves_write_the_last_and_leave_no_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let problems = Arc::new(Mutex::new(Vec::new()));
        let writer = {
            let problems = problems.clone();
            SettingsWriter::spawn(
                path.clone(),
                move |p| problems.lock().unwrap().push(p),
                None,
            )
        };
        for seconds in 1..=200 {
            let settings = Settings {
                timeout_seconds: f64::from(seconds),
                ..Settings::default()
            };
            writer.save(settings);
        }
        drop(writer);
        let (loaded, problem) = Settings::load(&path);
        assert!(problem.is_none());
        assert!(problems.lock().unwrap().is_empty());
        assert_eq!(loaded.timeout_seconds, 200.0);
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(files.len(), 1, "only settings.json is left");
    }

    #[test]
    fn a_failed_save_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        // A file where the folder should be: the folder cannot be created.
        let blocker = dir.path().join("blocker");
        std::fs::write(&blocker, "").unwrap();
        let problems = Arc::new(Mutex::new(Vec::new()));
        let writer = {
            let problems = problems.clone();
            SettingsWriter::spawn(
                blocker.join("settings.json"),
                move |p| {
                    problems.lock().unwrap().push(p);
                },
                None,
            )
        };
        writer.save(Settings::default());
        drop(writer);
        let problems = problems.lock().unwrap();
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("cannot save settings"));
    }
}
