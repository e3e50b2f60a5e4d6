//! `toolscope history sessions` and `history log`: the sessions seen through
//! `toolscope proxy`, and one session's protocol log.

use super::{
    CliError, EXIT_OK,
    output::{emit, emit_json, say},
};
use toolscope_core::{
    history::HistoryStore,
    text_util::{clip_chars, terminal_safe},
};

/// A log line's text is cut to this in the table (`--json` has it whole).
const LOG_TEXT_CHARS: usize = 160;

pub fn list(store: &dyn HistoryStore, limit: usize, json: bool) -> Result<u8, CliError> {
    let sessions = store.proxy_sessions(limit)?;
    if json {
        emit_json(&sessions);
        return Ok(EXIT_OK);
    }
    if sessions.is_empty() {
        say(&format!(
            "no sessions through toolscope proxy yet (the history is {}); a client runs \
             `toolscope proxy -- <server command>` in place of its server",
            store.location()
        ));
        return Ok(EXIT_OK);
    }
    let out = &mut String::new();
    outln!(
        out,
        "{:>5}  {:<20}  {:<24}  {:<24}  {:>5}  {:>6}  {}",
        "id",
        "started (UTC)",
        "client",
        "server",
        "calls",
        "lines",
        "end"
    );
    for session in &sessions {
        let started = session.started_at.replace('T', " ");
        let started = clip_chars(started.trim_end_matches('Z'), 19);
        let client = session.client.as_deref().unwrap_or("(not introduced)");
        let end = match &session.ending {
            Some(ending) => ending.clone(),
            None => "running (or its proxy was killed)".to_owned(),
        };
        outln!(
            out,
            "{:>5}  {:<20}  {:<24}  {:<24}  {:>5}  {:>6}  {}",
            session.id,
            started,
            terminal_safe(&clip_chars(client, 24)),
            terminal_safe(&clip_chars(&session.server, 24)),
            session.calls,
            session.log_lines,
            terminal_safe(&end)
        );
    }
    emit(out);
    Ok(EXIT_OK)
}

pub fn log(store: &dyn HistoryStore, session: i64, json: bool) -> Result<u8, CliError> {
    let Some(found) = store.proxy_session(session)? else {
        return Err(format!(
            "no session #{session} in the history (`toolscope history sessions` lists them)"
        )
        .into());
    };
    let lines = store.proxy_log(session, 0, usize::MAX)?;
    if json {
        emit_json(&lines);
        return Ok(EXIT_OK);
    }
    let out = &mut String::new();
    for line in &lines {
        let text = match line.call_id {
            Some(call) if line.text.is_empty() => {
                format!("(the answer: call #{call}, `toolscope history show {call}`)")
            }
            _ => clip_chars(&line.text, LOG_TEXT_CHARS),
        };
        let flag = line
            .flag
            .as_ref()
            .map(|flag| format!("  [{flag}]"))
            .unwrap_or_default();
        outln!(
            out,
            "{:>8} ms {} {}{}",
            line.at_ms,
            line.side.arrow(),
            terminal_safe(&text),
            flag
        );
    }
    if let Some(ending) = &found.ending {
        outln!(out, "ended: {}", terminal_safe(ending));
    }
    if found.log_dropped > 0 {
        outln!(
            out,
            "{} line(s) passed but were not kept (the log's cap, or the recorder fell behind)",
            found.log_dropped
        );
    }
    emit(out);
    Ok(EXIT_OK)
}
