//! Switching the window between the local history and a team's PostgreSQL history (the
//! "Team history…" dialog): the setting kept without the password, the password in the secret
//! store, and the history thread started again on the chosen one while the old one finishes
//! what it was asked off the UI thread.

use super::Model;
use crate::workbench::{HistoryStatus, live_sessions::LIVE_SESSIONS};
use toolscope_core::history::{HistoryLocation, HistoryWriter, PostgresUrl, RecordedBy};

/// What the person chose in the dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamHistoryChoice {
    /// The team's database (`None`: back to the local file).
    pub url: Option<String>,
    /// Its password, when the URL, `PGPASSWORD` or `~/.pgpass` do not give it.
    pub password: Option<String>,
    /// The name the history gives the person (`None`: the OS user).
    pub person: Option<String>,
}

impl Model {
    /// The team history set in the settings, else the one this window reads (either without
    /// its password), and the person's name.
    pub fn team_history_setting(&self) -> (Option<String>, Option<&str>) {
        let reading = match &self.history_location {
            Some(HistoryLocation::Postgres(url)) => Some(url.without_password().to_string()),
            _ => None,
        };
        (
            self.settings.history_url.clone().or(reading),
            self.settings.person.as_deref(),
        )
    }

    pub(super) fn use_team_history(&mut self, choice: TeamHistoryChoice) {
        let location = match &choice.url {
            None => self.local_history.clone(),
            Some(text) => match PostgresUrl::parse(text) {
                Ok(url) => {
                    let password = choice.password.clone().or_else(|| url.password());
                    let kept = url.without_password();
                    if let Some(password) = password {
                        self.keep_history_password(&kept, password.clone());
                        Some(HistoryLocation::Postgres(kept.with_password(&password)))
                    } else {
                        Some(HistoryLocation::Postgres(kept))
                    }
                }
                Err(error) => {
                    self.show_banner(format!("Team history: {error}"), None);
                    return;
                }
            },
        };
        self.settings.history_url = match &location {
            Some(HistoryLocation::Postgres(url)) => Some(url.without_password().to_string()),
            _ => None,
        };
        self.settings.person.clone_from(&choice.person);
        self.save_settings();
        self.start_history(location);
    }

    /// The team history this window was asked to use, when it could not be reached and the
    /// calls go to the local file meanwhile (without its password).
    pub fn team_history_unreached(&self) -> Option<String> {
        match (&self.history_location, &self.history_status) {
            (
                Some(HistoryLocation::Postgres(wanted)),
                HistoryStatus::Open {
                    location: HistoryLocation::File(_),
                    ..
                },
            ) => Some(wanted.without_password().to_string()),
            _ => None,
        }
    }

    /// Tries the team history again (it was down when the window started or switched).
    pub(super) fn try_team_history_again(&mut self) {
        if self.team_history_unreached().is_some() {
            self.start_history(self.history_location.clone());
        }
    }

    /// The history thread started again on `location` (`None`: in memory).
    fn start_history(&mut self, location: Option<HistoryLocation>) {
        let recorded_by = RecordedBy::here(self.settings.person.as_deref());
        let started = HistoryWriter::start(
            location.clone(),
            recorded_by,
            self.backend.history_listener(),
        );
        // The old thread may be waiting on a database: it finishes off the UI thread.
        let old = std::mem::replace(&mut self.history, started);
        self.backend.drop_in_background(old);
        self.history_location = location;
        self.history_status = HistoryStatus::Opening;
        self.live.stamp = None;
        self.live.sessions.clear();
        // Session ids are the other history's: nothing picked, ticked or compared stays.
        self.live.selected = None;
        self.live.marked.clear();
        self.live.comparison = None;
        self.live.comparison_tag += 1;
        if self.live.watching {
            self.history.watch_sessions(Some(LIVE_SESSIONS));
        }
        if self.recording.is_none() {
            self.switch_browsed();
        }
        self.refresh_latency();
    }

    /// Keeps the team database's password in the secret store (for the next start, and the
    /// command line), off the UI thread.
    fn keep_history_password(&self, url: &PostgresUrl, password: String) {
        self.backend.keep_secret(
            toolscope_core::history::password_key(url),
            password,
            "The team history's password",
        );
    }
}
