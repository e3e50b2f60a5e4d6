//! Two recorded sessions compared (`toolscope history diff`, the Live tab's Compare): the tools
//! each was last given (added, removed, changed, as `toolscope diff` says it), then their calls
//! matched by tool and arguments, in order, with the results compared as the Compare view
//! compares two calls, and their durations.

use std::collections::{HashMap, VecDeque};

use serde::Serialize;

use super::recorded::{GateError, RecordedSession, Source};
use crate::{
    compare::{CallComparison, CallSide, StructuralDiff},
    history::{CallKind, HistoryStore, StoredAnswer, StoredCall, Verdict},
    interface::{self, InterfaceDiff, InterfaceSnapshot, ServerIdentity},
    json_doc::JsonDoc,
};

/// How many structural changes of a result are named.
const NAMED_CHANGES: usize = 3;
/// How many of a tool's calls a call not matched by what it sent is compared with
/// structurally (two sessions of thousands of calls would otherwise take hours).
const STRUCTURAL_CANDIDATES: usize = 256;

/// One call of a session, as the diff names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallBrief {
    pub id: i64,
    pub kind: CallKind,
    pub tool: String,
    /// The arguments as JSON text.
    pub arguments: String,
    pub verdict: Verdict,
    pub duration_ms: Option<u64>,
}

impl CallBrief {
    fn of(call: &StoredCall) -> Self {
        Self {
            id: call.id,
            kind: call.kind,
            tool: call.tool.clone(),
            arguments: call.arguments.clone(),
            verdict: call.verdict,
            duration_ms: call.duration_ms,
        }
    }
}

/// A call of the old session and its match in the new one.
#[derive(Debug, Clone, Serialize)]
pub struct CallPair {
    pub old: CallBrief,
    pub new: CallBrief,
    /// Nothing differs in the results (the durations may).
    pub same_result: bool,
    /// What differs in the results, one sentence each (the durations apart).
    pub differences: Vec<String>,
}

/// Two sessions compared.
#[derive(Debug, Clone, Serialize)]
pub struct SessionDiff {
    pub old: Source,
    pub new: Source,
    /// The tools each session was last given; `None` when either listed none.
    pub tools: Option<InterfaceDiff>,
    /// Why the tools were not compared.
    pub tools_note: Option<String>,
    /// Calls matched by kind, tool and arguments, in the old session's order.
    pub pairs: Vec<CallPair>,
    pub only_old: Vec<CallBrief>,
    pub only_new: Vec<CallBrief>,
}

impl SessionDiff {
    /// How many matched calls got a different result.
    pub fn changed_results(&self) -> usize {
        self.pairs.iter().filter(|pair| !pair.same_result).count()
    }

    /// "2 tools changed · 5 calls matched, 1 with a different result · 1 only in #3"
    pub fn summary(&self) -> String {
        let tools = match &self.tools {
            Some(diff) => format!("tools: {}", diff.summary()),
            None => "tools: not compared".to_owned(),
        };
        let mut line = format!(
            "{tools} · {} matched, {} with a different result",
            crate::text_util::count_noun(self.pairs.len(), "call", "calls"),
            self.changed_results()
        );
        if !self.only_old.is_empty() {
            line.push_str(&format!(" · {} only in the first", self.only_old.len()));
        }
        if !self.only_new.is_empty() {
            line.push_str(&format!(" · {} only in the second", self.only_new.len()));
        }
        line
    }
}

/// Compares `old` with `new` (both read from `store`, which keeps their calls whole).
/// Slow on big results: a face runs it off its UI thread.
pub fn diff_sessions(
    old: &RecordedSession,
    new: &RecordedSession,
    store: &dyn HistoryStore,
) -> Result<SessionDiff, GateError> {
    let (tools, tools_note) = match (last_list(old), last_list(new)) {
        (Some(before), Some(after)) => (Some(interface::diff(&before, &after)), None),
        (before, _) => {
            let silent = if before.is_none() { old } else { new };
            (
                None,
                Some(format!(
                    "{} never listed its tools: the tools are not compared",
                    silent.source.label()
                )),
            )
        }
    };
    let (old_calls, new_calls) = (
        with_arguments(&old.calls, store)?,
        with_arguments(&new.calls, store)?,
    );
    let mut taken = vec![false; new_calls.len()];
    // The new calls by what they sent (kind, tool, arguments with their keys in order), in
    // order: most calls are matched here at once, not against every call of the other session.
    let mut by_request: HashMap<(CallKind, &str, String), VecDeque<usize>> = HashMap::new();
    let mut by_tool: HashMap<(CallKind, &str), Vec<usize>> = HashMap::new();
    for (at, call) in new_calls.iter().enumerate() {
        by_request
            .entry((call.kind, call.tool.as_str(), request_key(&call.arguments)))
            .or_default()
            .push_back(at);
        by_tool
            .entry((call.kind, call.tool.as_str()))
            .or_default()
            .push(at);
    }
    let mut pairs = Vec::new();
    let mut only_old = Vec::new();
    for call in &old_calls {
        let exact = by_request
            .get_mut(&(call.kind, call.tool.as_str(), request_key(&call.arguments)))
            .and_then(|queue| {
                while let Some(at) = queue.pop_front() {
                    if !taken[at] {
                        return Some(at);
                    }
                }
                None
            });
        // Else the same arguments written otherwise (keys nested in another order): compared
        // structurally, among a bounded number of that tool's calls.
        let found = exact
            .or_else(|| {
                by_tool
                    .get(&(call.kind, call.tool.as_str()))?
                    .iter()
                    .filter(|at| !taken[**at])
                    .take(STRUCTURAL_CANDIDATES)
                    .copied()
                    .find(|at| same_call(call, &new_calls[*at]))
            })
            .map(|at| (at, &new_calls[at]));
        match found {
            Some((at, other)) => {
                taken[at] = true;
                pairs.push(pair(call, other, store)?);
            }
            None => only_old.push(CallBrief::of(call)),
        }
    }
    let only_new = new_calls
        .iter()
        .zip(&taken)
        .filter(|(_, taken)| !**taken)
        .map(|(call, _)| CallBrief::of(call))
        .collect();
    Ok(SessionDiff {
        old: old.source.clone(),
        new: new.source.clone(),
        tools,
        tools_note,
        pairs,
        only_old,
        only_new,
    })
}

/// The last tools/list a session was given, as a snapshot with the server's identity.
fn last_list(session: &RecordedSession) -> Option<InterfaceSnapshot> {
    let list = session.log.as_ref()?.tool_lists.last()?;
    let server = ServerIdentity {
        name: session.server_name.clone(),
        title: None,
        version: session.server_version.clone(),
        protocol_version: session.protocol_version.clone(),
    };
    Some(InterfaceSnapshot::of_tools(server, list.tools.clone()))
}

/// `calls` with their arguments, which a list leaves out: calls are matched and named by them.
fn with_arguments(
    calls: &[StoredCall],
    store: &dyn HistoryStore,
) -> Result<Vec<StoredCall>, GateError> {
    calls
        .iter()
        .map(|call| {
            let mut call = call.clone();
            if let Some(whole) = store.get(call.id)? {
                call.arguments = whole.arguments;
            }
            Ok(call)
        })
        .collect()
}

/// The arguments as a key: an object's top-level members sorted by name (each member's value
/// as written), else the text as it is.
pub(super) fn request_key(arguments: &str) -> String {
    match crate::deep_json::parse(arguments) {
        Ok(serde_json::Value::Object(members)) => {
            let mut pairs: Vec<(String, String)> = members
                .iter()
                .map(|(name, value)| (name.clone(), crate::deep_json::to_string(value)))
                .collect();
            crate::deep_json::drop_value(serde_json::Value::Object(members));
            pairs.sort_unstable();
            pairs
                .into_iter()
                .map(|(name, value)| format!("{name:?}:{value}"))
                .collect::<Vec<_>>()
                .join(",")
        }
        Ok(other) => {
            crate::deep_json::drop_value(other);
            arguments.to_owned()
        }
        Err(_) => arguments.to_owned(),
    }
}

/// The same kind, tool and arguments (objects' keys in any order).
fn same_call(old: &StoredCall, new: &StoredCall) -> bool {
    if old.kind != new.kind || old.tool != new.tool {
        return false;
    }
    if old.arguments == new.arguments {
        return true;
    }
    match (
        JsonDoc::parse(old.arguments.clone()),
        JsonDoc::parse(new.arguments.clone()),
    ) {
        (Ok(a), Ok(b)) => StructuralDiff::compute_capped(a.root(), b.root(), 0).is_empty(),
        _ => false,
    }
}

fn pair(
    old: &StoredCall,
    new: &StoredCall,
    store: &dyn HistoryStore,
) -> Result<CallPair, GateError> {
    let whole =
        |call: &StoredCall| -> Result<Option<StoredCall>, GateError> { Ok(store.get(call.id)?) };
    let (Some(mut old_whole), Some(mut new_whole)) = (whole(old)?, whole(new)?) else {
        return Ok(CallPair {
            old: CallBrief::of(old),
            new: CallBrief::of(new),
            same_result: false,
            differences: vec!["a call is no longer in the history".to_owned()],
        });
    };
    let differences = if old.kind == CallKind::Call {
        tool_result_differences(&mut old_whole, &mut new_whole)
    } else {
        feature_differences(&mut old_whole, &mut new_whole)
    };
    Ok(CallPair {
        old: CallBrief::of(old),
        new: CallBrief::of(new),
        same_result: differences.is_empty(),
        differences,
    })
}

/// Two tool calls' results, as the Compare view compares them.
fn tool_result_differences(old: &mut StoredCall, new: &mut StoredCall) -> Vec<String> {
    let (old_verdict, new_verdict) = (old.verdict, new.verdict);
    let protocol = |call: &StoredCall| call.protocol_version.clone().unwrap_or_default();
    let (old_protocol, new_protocol) = (protocol(old), protocol(new));
    let old_answer = old.take_answer();
    let new_answer = new.take_answer();
    let analysed = |answer: &StoredAnswer, protocol: &str| match answer {
        StoredAnswer::Answered {
            outcome,
            output_schema,
        } => Some(outcome.analyze(output_schema.as_ref(), protocol)),
        _ => None,
    };
    let old_analysis = analysed(&old_answer, &old_protocol);
    let new_analysis = analysed(&new_answer, &new_protocol);
    let comparison = CallComparison::new(
        &side(&old_answer, old_analysis.as_ref(), old_verdict),
        &side(&new_answer, new_analysis.as_ref(), new_verdict),
    );
    let mut lines = comparison.differences.clone();
    if !comparison.structured.is_empty() {
        lines.push(format!(
            "structuredContent: {}",
            comparison.structured.summary()
        ));
        lines.extend(named_changes(&comparison.structured));
    }
    if !comparison.text.is_identical() {
        lines.push(format!("text content: {}", comparison.text.summary()));
    }
    lines
}

fn side<'a>(
    answer: &'a StoredAnswer,
    analysis: Option<&'a crate::analysis::CallAnalysis>,
    verdict: Verdict,
) -> CallSide<'a> {
    match (answer, analysis) {
        (StoredAnswer::Answered { outcome, .. }, Some(analysis)) => {
            CallSide::answered(&outcome.response, analysis, verdict, None)
        }
        _ => CallSide::unanswered(verdict, None),
    }
}

fn result_of(doc: Option<&JsonDoc>) -> Option<crate::json_doc::JsonRef<'_>> {
    doc?.root().get("result")
}

/// Two reads' or prompts' answers: their results compared structurally.
fn feature_differences(old: &mut StoredCall, new: &mut StoredCall) -> Vec<String> {
    let parsed = |call: &mut StoredCall| {
        call.response
            .take()
            .and_then(|text| JsonDoc::parse(text).ok())
    };
    let (old_doc, new_doc) = (parsed(old), parsed(new));
    let mut lines = Vec::new();
    if old.verdict != new.verdict {
        lines.push(format!("verdict: {} → {}", old.verdict, new.verdict));
    }
    let diff =
        StructuralDiff::compute_optional(result_of(old_doc.as_ref()), result_of(new_doc.as_ref()));
    if !diff.is_empty() {
        lines.push(format!("result: {}", diff.summary()));
        lines.extend(named_changes(&diff));
    }
    lines
}

fn named_changes(diff: &StructuralDiff) -> Vec<String> {
    let mut named: Vec<String> = diff
        .changes
        .iter()
        .take(NAMED_CHANGES)
        .map(|change| format!("  {}", change.describe()))
        .collect();
    let more = diff.changes.len().saturating_sub(NAMED_CHANGES) + diff.more();
    if more > 0 {
        named.push(format!("  and {more} more"));
    }
    named
}
