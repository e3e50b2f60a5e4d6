//! `toolscope servers --watch NAME --in CLIENT` and `--unwatch`: another client's server
//! entry rewritten so that client launches `toolscope proxy` in its place (its calls then
//! appear in the history and the window's Live tab), and put back exactly as it was.

use std::path::Path;

use super::{
    CliError, EXIT_OK,
    output::{emit, say},
};
use toolscope_core::{
    import::{
        self, Client,
        watch_through::{self, EntryRewrite, WatchRecords},
    },
    text_util::terminal_safe,
};

fn client_of(id: &str) -> Result<Client, String> {
    Client::from_id(id).ok_or_else(|| {
        let ids: Vec<&str> = import::CLIENTS.iter().map(|client| client.id()).collect();
        format!("unknown client \"{id}\"; use one of {}", ids.join(", "))
    })
}

fn records() -> Result<WatchRecords, String> {
    toolscope_core::history::data_dir()
        .map(|dir| WatchRecords::in_dir(&dir))
        .ok_or_else(|| {
            "no data folder to remember the change in (set TOOLSCOPE_DATA_DIR)".to_owned()
        })
}

/// The change, as it is shown before it is made.
fn show(rewrite: &EntryRewrite) {
    let mut out = format!(
        "{} · {} · \"{}\"\n--- now\n",
        rewrite.client.name(),
        terminal_safe(&rewrite.path.display().to_string()),
        terminal_safe(&rewrite.name)
    );
    let (before, after) = rewrite.shown();
    for line in before.lines() {
        out.push_str(&format!("- {}\n", terminal_safe(line)));
    }
    out.push_str("+++ then\n");
    for line in after.lines() {
        out.push_str(&format!("+ {}\n", terminal_safe(line)));
    }
    emit(&out);
}

pub fn watch(
    name: &str,
    client: &str,
    project: Option<&Path>,
    dry_run: bool,
) -> Result<u8, CliError> {
    let client = client_of(client)?;
    let (found, _) = import::discover(&import::files_here(project));
    let mut matching: Vec<_> = found
        .iter()
        .filter(|found| found.client == client && found.name == name)
        .collect();
    // The project may be the home folder: one file found twice is one entry.
    matching.dedup_by(|a, b| a.path == b.path);
    let found = match matching.as_slice() {
        [] => {
            return Err(format!(
                "{} lists no server \"{name}\" here (`toolscope servers` lists what each client has)",
                client.name()
            )
            .into());
        }
        [one] => *one,
        several => {
            let files: Vec<String> = several
                .iter()
                .map(|found| found.path.display().to_string())
                .collect();
            return Err(format!(
                "\"{name}\" is in several of {}'s files ({}); pass --project DIR for the \
                 project's, or run from another folder",
                client.name(),
                files.join(", ")
            )
            .into());
        }
    };
    let toolscope = std::env::current_exe()
        .map_err(|error| format!("where this toolscope is cannot be told: {error}"))?;
    // Where this Toolscope records (TOOLSCOPE_DATA_DIR included) goes in the entry: a client
    // starts its servers with a bare environment.
    let launch = watch_through::ProxyLaunch {
        toolscope,
        history: super::history_flag::HistoryFlag::default()
            .chosen()
            .ok()
            .map(|chosen| chosen.location),
    };
    let rewrite = watch_through::plan_watch(found, &launch)?;
    show(&rewrite);
    if dry_run {
        say("nothing was written (--dry-run)");
        return Ok(EXIT_OK);
    }
    let watched = watch_through::watch(&rewrite, &records()?)?;
    say(&format!(
        "{} now runs \"{name}\" through Toolscope (restart {} for it to take effect); \
         the file as it was is in {}; `toolscope servers --unwatch {name} --in {}` puts \
         it back",
        client.name(),
        client.name(),
        watched.backup.display(),
        client.id()
    ));
    Ok(EXIT_OK)
}

pub fn unwatch(name: &str, client: &str) -> Result<u8, CliError> {
    let client = client_of(client)?;
    let records = records()?;
    let Some(record) = records.find(client, name)? else {
        return Err(format!(
            "\"{name}\" of {} is not watched through Toolscope",
            client.name()
        )
        .into());
    };
    let rewrite = watch_through::plan_unwatch(&record)?;
    show(&rewrite);
    if let Some(note) = &rewrite.note {
        say(&format!("note: {note}"));
    }
    watch_through::unwatch(&rewrite, &records)?;
    say(&format!(
        "\"{name}\" is back as it was in {} (restart {} for it to take effect)",
        record.path.display(),
        client.name()
    ));
    Ok(EXIT_OK)
}
