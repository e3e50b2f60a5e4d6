//! `toolscope diff <OLD.json> <SERVER | NEW.json>`: what changed in a server's interface,
//! each change breaking or compatible. Exit 0 when nothing breaks, 1 when something does, 2
//! when a side cannot be read or reached.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::{
    CliError, EXIT_OK, EXIT_TOOL_PROBLEM, ServerArgs, output::emit_json, snapshot_command,
};
use toolscope_core::{
    interface::{
        self, Change, InterfaceDiff, InterfaceSnapshot, ServerIdentity, ToolDiff, ToolStatus,
    },
    text_util::terminal_safe,
};

#[derive(Debug, Args)]
#[command(mut_group("server", |group| group.required(false)))]
pub struct DiffArgs {
    /// The older interface: a snapshot written by `toolscope snapshot`
    #[arg(value_name = "OLD.json")]
    pub old: PathBuf,
    /// The newer interface: another snapshot, or leave it out and name a server (--demo,
    /// --stdio, --url) to compare with what it lists now
    #[arg(value_name = "NEW.json", conflicts_with = "server")]
    pub new: Option<PathBuf>,
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print one JSON document with the counts and every change instead of text
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: DiffArgs) -> Result<u8, CliError> {
    if args.new.is_none() && !args.server.is_given() {
        return Err(
            "give the newer interface: a snapshot file (NEW.json) or a server (--demo, \
             --stdio '<command line>' or --url <URL>)"
                .into(),
        );
    }
    let old = read(&args.old, "old")?;
    let new = match &args.new {
        Some(path) => read(path, "new")?,
        None => snapshot_command::take(&args.server).await?,
    };
    let diff = interface::diff(&old, &new);
    if args.json {
        emit_json(&DiffReport::new(&diff, &old, &new));
    } else {
        super::emit(&human(&diff, &old, &new));
    }
    Ok(if diff.has_breaking() {
        EXIT_TOOL_PROBLEM
    } else {
        EXIT_OK
    })
}

fn read(path: &Path, side: &str) -> Result<InterfaceSnapshot, String> {
    InterfaceSnapshot::read(path).map_err(|error| {
        format!(
            "the {side} snapshot cannot be used: {error}. Write one with `toolscope snapshot \
             <SERVER> --output FILE`: {}",
            path.display()
        )
    })
}

/// The `--json` document.
#[derive(Serialize)]
struct DiffReport<'a> {
    summary: Summary,
    old: Side<'a>,
    new: Side<'a>,
    server: &'a [Change],
    tools: &'a [ToolDiff],
    notes: &'a [String],
}

#[derive(Serialize)]
struct Summary {
    breaking: usize,
    compatible: usize,
    tools_changed: usize,
    text: String,
}

#[derive(Serialize)]
struct Side<'a> {
    server: &'a ServerIdentity,
    taken_at: &'a str,
    tools: usize,
}

impl<'a> DiffReport<'a> {
    fn new(
        diff: &'a InterfaceDiff,
        old: &'a InterfaceSnapshot,
        new: &'a InterfaceSnapshot,
    ) -> Self {
        let side = |snapshot: &'a InterfaceSnapshot| Side {
            server: &snapshot.server,
            taken_at: &snapshot.taken_at,
            tools: snapshot.tools.len(),
        };
        Self {
            summary: Summary {
                breaking: diff.breaking_count(),
                compatible: diff.compatible_count(),
                tools_changed: diff.tools.len(),
                text: diff.summary(),
            },
            old: side(old),
            new: side(new),
            server: &diff.server,
            tools: &diff.tools,
            notes: &diff.notes,
        }
    }
}

/// The summary line, both sides, then each tool's changes (breaking first, marked).
fn human(diff: &InterfaceDiff, old: &InterfaceSnapshot, new: &InterfaceSnapshot) -> String {
    let mut text = String::new();
    let out = &mut text;
    outln!(out, "{}", diff.summary());
    for (label, snapshot) in [("old", old), ("new", new)] {
        outln!(
            out,
            "{label}: {} · {} tool(s), taken {}",
            terminal_safe(&snapshot.server.line()),
            snapshot.tools.len(),
            terminal_safe(&snapshot.taken_at)
        );
    }
    if !diff.server.is_empty() {
        outln!(out, "\n━━ server");
        print_changes(out, &diff.server);
    }
    for tool in &diff.tools {
        let status = match tool.status {
            ToolStatus::Added => "added",
            ToolStatus::Removed => "removed",
            ToolStatus::Changed => "changed",
        };
        outln!(out, "\n━━ {} ({status})", terminal_safe(&tool.name));
        print_changes(out, &tool.changes);
    }
    if !diff.notes.is_empty() {
        out.push('\n');
        for note in &diff.notes {
            outln!(out, "note: {}", terminal_safe(note));
        }
    }
    text
}

fn print_changes(out: &mut String, changes: &[Change]) {
    for change in changes {
        let mark = if change.severity.is_breaking() {
            "✗ breaking  "
        } else {
            "· compatible"
        };
        let message = terminal_safe(&change.message);
        if change.location.is_empty() {
            outln!(out, "   {mark}  {message}");
        } else {
            outln!(
                out,
                "   {mark}  {}: {message}",
                terminal_safe(&change.location)
            );
        }
    }
}
