//! `toolscope history push`: the local history copied into a team's database, once. Each row
//! is known there by its origin (the local history's identity and its id), so pushing again
//! sends only what is new (a note or a repeat count changed since is brought along).

use std::collections::HashMap;

use super::{CallQuery, HistoryError, HistoryStore, LOG_PAGE_LINES, PostgresStore, RecordedBy};

/// What a push did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct PushReport {
    /// Calls (reads, prompts) sent now.
    pub calls_sent: u64,
    /// Calls that were there already (pushed before).
    pub calls_there: u64,
    /// Proxied sessions sent now, with their logs.
    pub sessions_sent: u64,
    pub sessions_there: u64,
    /// Sessions still running, left for a later push (their log is not whole yet).
    pub sessions_running: u64,
    pub log_lines_sent: u64,
}

/// Copies `local` into `team`; rows that never said who recorded them are stamped with `by`.
/// `progress` hears how many calls of how many were done.
pub fn push(
    local: &mut dyn HistoryStore,
    team: &mut PostgresStore,
    by: &RecordedBy,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<PushReport, HistoryError> {
    let identity = local.identity()?;
    let mut report = PushReport::default();
    // The sessions first, so the calls they made point at them.
    let mut sessions: HashMap<i64, i64> = HashMap::new();
    let mut new_sessions = Vec::new();
    for session in local.proxy_sessions(usize::MAX)? {
        if session.ended_at.is_none() {
            report.sessions_running += 1;
            continue;
        }
        let origin = format!("{identity}/session/{}", session.id);
        let (id, new) = team.push_session(&origin, &session, by)?;
        sessions.insert(session.id, id);
        if new {
            report.sessions_sent += 1;
            new_sessions.push((session.id, id));
        } else {
            report.sessions_there += 1;
        }
    }
    // Oldest first, as they were made.
    let mut listed = local.list(&CallQuery::default())?;
    listed.reverse();
    let total = listed.len() as u64;
    let mut calls: HashMap<i64, i64> = HashMap::new();
    for (done, listed) in listed.iter().enumerate() {
        let Some(call) = local.get(listed.id)? else {
            continue; // The cap removed it meanwhile.
        };
        let session = call
            .session
            .and_then(|session| sessions.get(&session).copied());
        let origin = format!("{identity}/call/{}", call.id);
        let (id, new) = team.push_call(&origin, &call, session, by)?;
        calls.insert(call.id, id);
        if new {
            report.calls_sent += 1;
        } else {
            report.calls_there += 1;
        }
        progress(done as u64 + 1, total);
    }
    for (local_session, team_session) in new_sessions {
        let mut after = 0;
        loop {
            let page = local.proxy_log(local_session, after, LOG_PAGE_LINES)?;
            let Some(last) = page.last() else { break };
            after = last.id;
            team.push_log(team_session, &page, &calls)?;
            report.log_lines_sent += page.len() as u64;
        }
    }
    Ok(report)
}
