//! Which history a command records into or reads, the one way every command chooses it:
//! `--history` (a file or a `postgres://` URL), else `TOOLSCOPE_HISTORY_URL`, else the
//! settings' `history_url`, else `history.sqlite3` in the data folder; and who the rows it
//! records say recorded them.

use toolscope_core::history::{HistoryLocation, HistoryStore, RecordedBy};

use super::{CliError, output::say};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct HistoryFlag {
    /// The history: a file, or a team's PostgreSQL database (postgres://user@host:5432/db)
    /// [default: TOOLSCOPE_HISTORY_URL, else the settings' history_url, else history.sqlite3
    /// in Toolscope's data folder]
    #[arg(long = "history", value_name = "FILE_OR_URL", global = true)]
    pub history: Option<String>,
}

/// A history chosen, and the stamp of the rows recorded into it.
#[derive(Debug, Clone)]
pub struct ChosenHistory {
    pub location: HistoryLocation,
    pub recorded_by: RecordedBy,
}

impl HistoryFlag {
    pub fn chosen(&self) -> Result<ChosenHistory, CliError> {
        let settings = toolscope_core::settings::settings_path()
            .map(|path| toolscope_core::settings::Settings::load(&path).0)
            .unwrap_or_default();
        let location =
            HistoryLocation::chosen(self.history.as_deref(), settings.history_url.as_deref())
                .map_err(|error| CliError::Failure(error.to_string()))?
                .ok_or_else(|| {
                    CliError::Failure(
                        "no data folder for the history (set TOOLSCOPE_DATA_DIR)".to_owned(),
                    )
                })?;
        Ok(ChosenHistory {
            location,
            recorded_by: RecordedBy::here(settings.person.as_deref()),
        })
    }

    /// The history to read: a database that cannot be reached is an error that says so.
    pub fn open_for_reading(&self) -> Result<Box<dyn HistoryStore>, CliError> {
        let chosen = self.chosen()?;
        toolscope_core::history::open_store(&chosen.location, &chosen.recorded_by)
            .map_err(|error| CliError::Failure(error.to_string()))
    }

    /// The history to record into, or `None` after a warning on stderr that says what was
    /// `not_recorded` (a call is never failed for its history).
    pub fn open_for_recording(&self, not_recorded: &str) -> Option<Box<dyn HistoryStore>> {
        self.open_to_record()
            .map_err(|problem| {
                say(&format!(
                    "warning: {not_recorded}: {problem} (--no-history skips recording)"
                ));
            })
            .ok()
    }

    /// The history to record into, or why there is none. A team database that cannot be
    /// reached gives way to the local file, said on stderr.
    pub fn open_to_record(&self) -> Result<Box<dyn HistoryStore>, String> {
        let chosen = self.chosen().map_err(|error| error.to_string())?;
        let opened = toolscope_core::history::open_or_local(&chosen.location, &chosen.recorded_by)
            .map_err(|error| error.to_string())?;
        if let Some(note) = &opened.fell_back {
            say(&format!("warning: {note}"));
        }
        Ok(opened.store)
    }
}
