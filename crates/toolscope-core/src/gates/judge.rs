//! The gate: a recorded session judged for what a CI job fails on. Each call's verdict as
//! the proxy kept it (a broken contract, a tool error, a protocol error, no answer), whether
//! its tool was listed, its duration against `--max-ms`; then the protocol log: requests never
//! answered, error answers, lines that were not JSON, deprecated features, and the tool lists
//! (changed within the session, or against a snapshot).

use serde::Serialize;

use super::{
    finding::{Finding, Level, Rule},
    log_reading::{LogReading, SeenToolList},
    recorded::{GateError, RecordedSession, Source},
};
use crate::{
    analysis::{ContractCheck, ErrorKind},
    history::{CallKind, HistoryStore, StoredAnswer, StoredCall, Verdict},
    interface::{self, InterfaceDiff, InterfaceSnapshot, Severity},
    text_util::clip_chars,
};

/// What a gate is asked to hold a session to beyond its own rules.
#[derive(Debug, Default)]
pub struct GateOptions {
    /// A call slower than this many milliseconds is a finding.
    pub max_ms: Option<u64>,
    /// The interface the session's tools are held against.
    pub against: Option<InterfaceSnapshot>,
}

/// One source judged.
#[derive(Debug, Clone, Serialize)]
pub struct Judgement {
    pub source: Source,
    /// How many calls, reads and prompts were judged.
    pub calls: usize,
    pub findings: Vec<Finding>,
    /// What could not be judged, in words (not findings).
    pub notes: Vec<String>,
}

/// How much of a violation or an error message a finding quotes.
const QUOTED_CHARS: usize = 200;

/// Judges `recorded`, reading the few calls it reports on whole from `store`.
pub fn judge(
    recorded: &RecordedSession,
    store: &dyn HistoryStore,
    options: &GateOptions,
) -> Result<Judgement, GateError> {
    let mut findings = Vec::new();
    let mut notes = Vec::new();
    for call in &recorded.calls {
        call_findings(call, store, options, &mut findings)?;
    }
    match &recorded.log {
        Some(log) => {
            let ended = matches!(recorded.source, Source::Session { ended: true, .. });
            log_findings(log, ended, &mut findings, &mut notes);
            if log.answers_of_calls_gone > 0 {
                notes.push(format!(
                    "{} answer(s) were kept as calls the history has since let go (its size \
                     cap): calls, reads and prompts are not judged as unanswered",
                    log.answers_of_calls_gone
                ));
            }
            tool_list_findings(&log.tool_lists, options, &mut findings, &mut notes);
        }
        None => {
            if options.against.is_some() {
                notes.push(
                    "a recording keeps calls, not tool lists: --against needs a session \
                     (--session or --since)"
                        .to_owned(),
                );
            }
        }
    }
    Ok(Judgement {
        source: recorded.source.clone(),
        calls: recorded.calls.len(),
        findings,
        notes,
    })
}

fn call_findings(
    call: &StoredCall,
    store: &dyn HistoryStore,
    options: &GateOptions,
    findings: &mut Vec<Finding>,
) -> Result<(), GateError> {
    let at =
        |rule: Rule, message: String| Finding::new(rule, message).tool(&call.tool).call(call.id);
    let method = call.kind.method();
    match call.verdict {
        Verdict::Ok | Verdict::Cancelled => {}
        Verdict::ContractViolated => {
            let detail = detail_of(call, store)?;
            findings.push(at(
                Rule::ContractBroken,
                format!("structuredContent breaks the tool's output schema: {detail}"),
            ));
        }
        Verdict::ToolError => {
            let detail = detail_of(call, store)?;
            findings.push(at(
                Rule::ToolError,
                format!("the tool answered isError: true: {detail}"),
            ));
        }
        Verdict::ProtocolError => {
            let detail = detail_of(call, store)?;
            findings.push(at(
                Rule::ProtocolError,
                format!("{method} was answered with a JSON-RPC error: {detail}"),
            ));
        }
        Verdict::Timeout | Verdict::Failed => {
            let why = call.failure.as_deref().unwrap_or("no reason was kept");
            findings.push(at(
                Rule::Unanswered,
                format!("{method} got no answer: {}", clip_chars(why, QUOTED_CHARS)),
            ));
        }
    }
    if call.kind == CallKind::Call && !call.listed {
        findings.push(at(
            Rule::UnlistedTool,
            format!(
                "`{}` was called but was not in the tools/list its session saw (or no list was \
                 asked for before the call)",
                clip_chars(&call.tool, QUOTED_CHARS)
            ),
        ));
    }
    if let (Some(max), Some(took)) = (options.max_ms, call.duration_ms)
        && took > max
    {
        findings.push(at(
            Rule::SlowCall,
            format!("{method} took {took} ms, over the limit of {max} ms"),
        ));
    }
    Ok(())
}

/// What went wrong with a call, from its response analysed again: the first violations, the
/// tool's error text, or the JSON-RPC error.
fn detail_of(call: &StoredCall, store: &dyn HistoryStore) -> Result<String, GateError> {
    let Some(mut whole) = store.get(call.id)? else {
        return Ok("(the call is no longer in the history)".to_owned());
    };
    let protocol = whole.protocol_version.clone().unwrap_or_default();
    let (outcome, output_schema) = match whole.take_answer() {
        StoredAnswer::Answered {
            outcome,
            output_schema,
        } => (outcome, output_schema),
        StoredAnswer::NoAnswer { failure } => return Ok(failure),
        StoredAnswer::Damaged { error } => return Ok(error),
    };
    if outcome.response.is_rpc_error() || call.kind != CallKind::Call {
        let error = outcome.response.message().root().get("error");
        let code = error
            .and_then(|error| error.get("code"))
            .and_then(|code| code.as_i64());
        let message = error
            .and_then(|error| error.get("message"))
            .and_then(|message| message.as_str())
            .map_or_else(|| "(no message)".to_owned(), std::borrow::Cow::into_owned);
        return Ok(match code {
            Some(code) => format!("{code} {}", clip_chars(&message, QUOTED_CHARS)),
            None => clip_chars(&message, QUOTED_CHARS),
        });
    }
    let analysis = outcome.analyze(output_schema.as_ref(), &protocol);
    Ok(match (&analysis.contract, &analysis.error_kind) {
        (_, ErrorKind::ToolError { message }) => clip_chars(
            message.as_deref().unwrap_or("(no text block)"),
            QUOTED_CHARS,
        ),
        (
            ContractCheck::Violated {
                violations,
                omitted,
                ..
            },
            _,
        ) => {
            let shown: Vec<String> = violations
                .iter()
                .take(3)
                .map(|violation| {
                    let at = if violation.pointer.is_empty() {
                        "(root)"
                    } else {
                        &violation.pointer
                    };
                    format!("{at}: {}", clip_chars(&violation.message, QUOTED_CHARS))
                })
                .collect();
            let more = violations.len().saturating_sub(shown.len()) + omitted;
            let mut text = shown.join("; ");
            if more > 0 {
                text.push_str(&format!("; and {more} more"));
            }
            text
        }
        (contract, _) => contract.describe(),
    })
}

/// What the protocol log shows: requests never answered (in a session still running, a
/// request waiting is said, not found: its answer may come), error answers, lines that were
/// not JSON, deprecated features.
pub(super) fn log_findings(
    log: &LogReading,
    ended: bool,
    findings: &mut Vec<Finding>,
    notes: &mut Vec<String>,
) {
    for request in &log.unanswered {
        let what = match &request.subject {
            Some(subject) => format!(
                "{} of `{}`",
                request.method,
                clip_chars(subject, QUOTED_CHARS)
            ),
            None => request.method.clone(),
        };
        let sender = if request.from_server {
            "the server's "
        } else {
            ""
        };
        if !ended {
            notes.push(format!(
                "{sender}{what} (at {} ms) is waiting for its answer: the session is still \
                 running, so it is not judged",
                request.at_ms
            ));
            continue;
        }
        let mut message = format!("{sender}{what} was never answered before the session ended");
        if log.gaps {
            message.push_str("; the log missed some lines, and its answer may be among them");
        }
        findings.push(
            Finding::new(Rule::Unanswered, message)
                .tool(
                    request
                        .subject
                        .clone()
                        .unwrap_or_else(|| request.method.clone()),
                )
                .request(&request.id, request.at_ms),
        );
    }
    for rejected in &log.rejected {
        let request = &rejected.request;
        let code = rejected
            .code
            .map_or_else(String::new, |code| format!("{code} "));
        findings.push(
            Finding::new(
                Rule::ProtocolError,
                format!(
                    "{} was answered with a JSON-RPC error: {code}{}",
                    request.method,
                    clip_chars(&rejected.message, QUOTED_CHARS)
                ),
            )
            .tool(
                request
                    .subject
                    .clone()
                    .unwrap_or_else(|| request.method.clone()),
            )
            .request(&request.id, request.at_ms),
        );
    }
    for line in &log.bad_lines {
        let from = match line.side {
            crate::history::LogSide::ToServer => "from the client",
            _ => "from the server",
        };
        let message = if line.count == 1 {
            format!("a line {from} at {} ms: {}", line.at_ms, line.flag)
        } else {
            format!(
                "{} lines {from} were not JSON-RPC, the first at {} ms: {}",
                line.count, line.at_ms, line.flag
            )
        };
        let mut finding = Finding::new(Rule::ProtocolError, message);
        finding.at_ms = Some(line.at_ms);
        findings.push(finding);
    }
    for used in &log.deprecated {
        let mut finding = Finding::new(
            Rule::DeprecatedFeature,
            format!(
                "{} is deprecated from protocol 2026-07-28 (SEP-2577), which this session \
                 speaks: {} was sent {} (first at {} ms)",
                used.feature,
                used.method,
                crate::text_util::count_noun(
                    usize::try_from(used.count).unwrap_or(usize::MAX),
                    "time",
                    "times"
                ),
                used.first_at_ms
            ),
        )
        .tool(used.method);
        finding.at_ms = Some(used.first_at_ms);
        findings.push(finding);
    }
}

fn tool_list_findings(
    lists: &[SeenToolList],
    options: &GateOptions,
    findings: &mut Vec<Finding>,
    notes: &mut Vec<String>,
) {
    for pair in lists.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let diff = interface::diff(&snapshot_of(before, None), &snapshot_of(after, None));
        let between = format!(
            "changed between the tools/list at {} ms and the one at {} ms",
            before.at_ms, after.at_ms
        );
        change_findings(
            &diff,
            Rule::ToolsChangedInSession,
            &between,
            after.at_ms,
            findings,
        );
    }
    let Some(snapshot) = &options.against else {
        return;
    };
    let Some(first) = lists.first() else {
        notes.push(
            "the session never listed its tools: there is nothing to hold against the snapshot"
                .to_owned(),
        );
        return;
    };
    let diff = interface::diff(snapshot, &snapshot_of(first, Some(snapshot)));
    let against = format!(
        "as the session listed it differs from the snapshot taken {}",
        snapshot.taken_at
    );
    change_findings(
        &diff,
        Rule::ToolsDifferFromSnapshot,
        &against,
        first.at_ms,
        findings,
    );
    notes.extend(diff.notes);
}

/// A finding of `rule` per change of each tool in `diff` (`` `tool` how: the change``).
fn change_findings(
    diff: &InterfaceDiff,
    rule: Rule,
    how: &str,
    at_ms: u64,
    findings: &mut Vec<Finding>,
) {
    for tool in &diff.tools {
        for change in &tool.changes {
            let mut finding = Finding::new(
                rule,
                format!(
                    "`{}` {how}: {}",
                    clip_chars(&tool.name, QUOTED_CHARS),
                    change_words(change)
                ),
            )
            .tool(&tool.name)
            .level(level_of(change.severity));
            finding.at_ms = Some(at_ms);
            findings.push(finding);
        }
    }
}

/// A list seen as a snapshot; with `like`'s server identity, so only the tools are compared.
fn snapshot_of(list: &SeenToolList, like: Option<&InterfaceSnapshot>) -> InterfaceSnapshot {
    let server = like
        .map(|snapshot| snapshot.server.clone())
        .unwrap_or_default();
    InterfaceSnapshot::of_tools(server, list.tools.clone())
}

fn change_words(change: &interface::Change) -> String {
    let severity = change.severity.label();
    if change.location.is_empty() {
        format!("{} ({severity})", change.message)
    } else {
        format!("{}: {} ({severity})", change.location, change.message)
    }
}

fn level_of(severity: Severity) -> Level {
    if severity.is_breaking() {
        Level::Error
    } else {
        Level::Warning
    }
}
