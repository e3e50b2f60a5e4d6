//! `toolscope servers --watch NAME --in CLIENT` and `--unwatch`: another client's server
//! entry rewritten so that client launches `toolscope proxy` in its place (its calls then
//! appear in the history and the window's Live tab), and put back exactly as it was.

use std::path::Path;

use super::{
    EXIT_FAILURE, EXIT_OK,
    output::{emit, say},
};
use toolscope_core::{
    import::{
        self, Client,
        watch_through::{self, EntryRewrite, WatchRecords},
    },
    text_util::terminal_safe,
};

fn fail(message: &str) -> u8 {
    say(&format!("error: {message}"));
    EXIT_FAILURE
}

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

pub fn watch(name: &str, client: &str, project: Option<&Path>, dry_run: bool) -> u8 {
    let client = match client_of(client) {
        Ok(client) => client,
        Err(error) => return fail(&error),
    };
    let (found, _) = import::discover(&import::files_here(project));
    let mut matching: Vec<_> = found
        .iter()
        .filter(|found| found.client == client && found.name == name)
        .collect();
    // The project may be the home folder: one file found twice is one entry.
    matching.dedup_by(|a, b| a.path == b.path);
    let found = match matching.as_slice() {
        [] => {
            return fail(&format!(
                "{} lists no server \"{name}\" here (`toolscope servers` lists what each client has)",
                client.name()
            ));
        }
        [one] => *one,
        several => {
            let files: Vec<String> = several
                .iter()
                .map(|found| found.path.display().to_string())
                .collect();
            return fail(&format!(
                "\"{name}\" is in several of {}'s files ({}); pass --project DIR for the \
                 project's, or run from another folder",
                client.name(),
                files.join(", ")
            ));
        }
    };
    let toolscope = match std::env::current_exe() {
        Ok(path) => path,
        Err(error) => return fail(&format!("where this toolscope is cannot be told: {error}")),
    };
    let rewrite = match watch_through::plan_watch(found, &toolscope) {
        Ok(rewrite) => rewrite,
        Err(error) => return fail(&error.to_string()),
    };
    show(&rewrite);
    if dry_run {
        say("nothing was written (--dry-run)");
        return EXIT_OK;
    }
    let records = match records() {
        Ok(records) => records,
        Err(error) => return fail(&error),
    };
    match watch_through::watch(&rewrite, &records) {
        Ok(watched) => {
            say(&format!(
                "{} now runs \"{name}\" through Toolscope (restart {} for it to take effect); \
                 the file as it was is in {}; `toolscope servers --unwatch {name} --in {}` puts \
                 it back",
                client.name(),
                client.name(),
                watched.backup.display(),
                client.id()
            ));
            EXIT_OK
        }
        Err(error) => fail(&error.to_string()),
    }
}

pub fn unwatch(name: &str, client: &str) -> u8 {
    let client = match client_of(client) {
        Ok(client) => client,
        Err(error) => return fail(&error),
    };
    let records = match records() {
        Ok(records) => records,
        Err(error) => return fail(&error),
    };
    let record = match records.find(client, name) {
        Ok(Some(record)) => record,
        Ok(None) => {
            return fail(&format!(
                "\"{name}\" of {} is not watched through Toolscope",
                client.name()
            ));
        }
        Err(error) => return fail(&error),
    };
    let rewrite = match watch_through::plan_unwatch(&record) {
        Ok(rewrite) => rewrite,
        Err(error) => return fail(&error.to_string()),
    };
    show(&rewrite);
    if let Some(note) = &rewrite.note {
        say(&format!("note: {note}"));
    }
    match watch_through::unwatch(&rewrite, &records) {
        Ok(()) => {
            say(&format!(
                "\"{name}\" is back as it was in {} (restart {} for it to take effect)",
                record.path.display(),
                client.name()
            ));
            EXIT_OK
        }
        Err(error) => fail(&error.to_string()),
    }
}
