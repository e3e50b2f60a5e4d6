//! `toolscope history push`: the local history into the team's PostgreSQL history, once.

use std::path::Path;

use toolscope_core::history::{HistoryLocation, PostgresStore, SqliteStore};

use super::{CliError, EXIT_OK, history_flag::HistoryFlag, output::say};

pub fn run(team: &HistoryFlag, from: Option<&Path>, json: bool) -> Result<u8, CliError> {
    let chosen = team.chosen()?;
    let HistoryLocation::Postgres(url) = &chosen.location else {
        return Err(CliError::Failure(format!(
            "push copies the local history into a team's PostgreSQL history, and the history \
             chosen is the file {}: set TOOLSCOPE_HISTORY_URL or give --history \
             postgres://user@host:5432/database",
            chosen.location
        )));
    };
    let local_path = match from {
        Some(path) => path.to_owned(),
        None => toolscope_core::history::history_path().ok_or_else(|| {
            CliError::Failure(
                "no data folder for the local history (set TOOLSCOPE_DATA_DIR)".into(),
            )
        })?,
    };
    if !local_path.exists() {
        return Err(CliError::Failure(format!(
            "there is no local history at {} to push",
            local_path.display()
        )));
    }
    let mut local = SqliteStore::open(&local_path, Some(chosen.recorded_by.clone()))
        .map_err(|error| CliError::Failure(error.to_string()))?;
    let mut team_store = PostgresStore::open(url, Some(chosen.recorded_by.clone()))
        .map_err(|error| CliError::Failure(error.to_string()))?;
    let mut last_said = std::time::Instant::now();
    let report = toolscope_core::history::push(
        &mut local,
        &mut team_store,
        &chosen.recorded_by,
        &mut |done, total| {
            if !json && last_said.elapsed() > std::time::Duration::from_secs(2) {
                last_said = std::time::Instant::now();
                say(&format!("pushed {done} of {total} calls…"));
            }
        },
    )
    .map_err(|error| CliError::Failure(error.to_string()))?;
    if json {
        super::emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        ));
        return Ok(EXIT_OK);
    }
    let mut out = format!(
        "pushed {} call(s) and {} session(s) ({} log lines) from {} to {url}",
        report.calls_sent,
        report.sessions_sent,
        report.log_lines_sent,
        local_path.display()
    );
    if report.calls_there + report.sessions_there > 0 {
        out.push_str(&format!(
            "; {} call(s) and {} session(s) were there already",
            report.calls_there, report.sessions_there
        ));
    }
    if report.sessions_running > 0 {
        out.push_str(&format!(
            "; {} session(s) still running, left for a later push",
            report.sessions_running
        ));
    }
    say(&out);
    Ok(EXIT_OK)
}
