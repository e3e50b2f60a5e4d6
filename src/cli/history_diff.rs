//! `toolscope history diff SESSION SESSION`: two proxied sessions compared: the tools each
//! was last given (as `toolscope diff` says it), then their calls matched by tool and
//! arguments, each with what differs in its result and its durations.

use super::{
    CliError, EXIT_OK,
    output::{emit, emit_json},
};
use toolscope_core::{
    gates::{self, CallBrief, RecordedSession, SessionDiff},
    history::HistoryStore,
    interface::ToolStatus,
    text_util::{clip_chars, terminal_safe},
};

/// How much of a call's arguments a line shows.
const ARGUMENT_CHARS: usize = 60;

pub fn run(store: &dyn HistoryStore, old: i64, new: i64, json: bool) -> Result<u8, CliError> {
    let read = |id| RecordedSession::from_session(store, id).map_err(|error| error.to_string());
    let (old, new) = (read(old)?, read(new)?);
    let diff = gates::diff_sessions(&old, &new, store).map_err(|error| error.to_string())?;
    if json {
        emit_json(&diff);
    } else {
        emit(&human(&diff));
    }
    Ok(EXIT_OK)
}

fn human(diff: &SessionDiff) -> String {
    let mut text = String::new();
    let out = &mut text;
    outln!(out, "{}", diff.summary());
    outln!(out, "first:  {}", terminal_safe(&diff.old.label()));
    outln!(out, "second: {}", terminal_safe(&diff.new.label()));
    outln!(out, "\n━━ tools");
    match (&diff.tools, &diff.tools_note) {
        (_, Some(note)) => outln!(out, "   {}", terminal_safe(note)),
        (Some(tools), None) if tools.is_empty() => outln!(out, "   the same tools"),
        (Some(tools), None) => {
            for change in &tools.server {
                outln!(out, "   server: {}", terminal_safe(&change.message));
            }
            for tool in &tools.tools {
                let status = match tool.status {
                    ToolStatus::Added => "added",
                    ToolStatus::Removed => "removed",
                    ToolStatus::Changed => "changed",
                };
                outln!(out, "   {} ({status})", terminal_safe(&tool.name));
                for change in &tool.changes {
                    let mark = if change.severity.is_breaking() {
                        "✗ breaking  "
                    } else {
                        "· compatible"
                    };
                    let at = if change.location.is_empty() {
                        String::new()
                    } else {
                        format!("{}: ", terminal_safe(&change.location))
                    };
                    outln!(out, "      {mark}  {at}{}", terminal_safe(&change.message));
                }
            }
        }
        (None, None) => {}
    }
    outln!(out, "\n━━ calls");
    if diff.pairs.is_empty() && diff.only_old.is_empty() && diff.only_new.is_empty() {
        outln!(out, "   neither session made a call");
    }
    for pair in &diff.pairs {
        let verdict = if pair.old.verdict == pair.new.verdict {
            pair.old.verdict.to_string()
        } else {
            format!("{} → {}", pair.old.verdict, pair.new.verdict)
        };
        outln!(
            out,
            "   {} #{} ↔ #{} · {} · {} · {}",
            call_words(&pair.old),
            pair.old.id,
            pair.new.id,
            if pair.same_result {
                "same result"
            } else {
                "result changed"
            },
            verdict,
            durations(&pair.old, &pair.new)
        );
        for line in &pair.differences {
            outln!(out, "      {}", terminal_safe(line));
        }
    }
    for (calls, which) in [(&diff.only_old, "first"), (&diff.only_new, "second")] {
        for call in calls {
            outln!(
                out,
                "   {} #{} · only in the {which} session · {}",
                call_words(call),
                call.id,
                call.verdict
            );
        }
    }
    text
}

/// `add {"a":2,"b":3}` (a read's URI, a prompt's name).
fn call_words(call: &CallBrief) -> String {
    let arguments = if call.arguments == "{}" || call.arguments.is_empty() {
        String::new()
    } else {
        format!(" {}", clip_chars(&call.arguments, ARGUMENT_CHARS))
    };
    terminal_safe(&format!(
        "{}{arguments}",
        clip_chars(&call.tool, ARGUMENT_CHARS)
    ))
    .into_owned()
}

fn durations(old: &CallBrief, new: &CallBrief) -> String {
    let ms = |call: &CallBrief| {
        call.duration_ms
            .map_or_else(|| "-".to_owned(), |ms| format!("{ms} ms"))
    };
    format!("{} → {}", ms(old), ms(new))
}
