//! A call made (or kept in the history) said for an agent: both halves of its result as
//! received (within bounds) and the analysis in the words the window's chips use.

use std::time::Duration;

use serde_json::Value;

use super::{
    bounded_json,
    outputs::{AnalysisOut, CallOut, RpcErrorOut},
};
use crate::{
    analysis::{self, CallAnalysis, ContractCheck, ErrorKind},
    engine::{AnsweredCall, MadeCall},
    history::Verdict,
    session::RawResponse,
};

/// What every call said to an agent has, answered or not.
pub struct CallFacts<'a> {
    pub server: &'a str,
    pub tool: &'a str,
    pub listed: bool,
    pub arguments: &'a Value,
    pub duration: Option<Duration>,
    pub history_id: Option<i64>,
    pub notes: Vec<String>,
}

/// A call just made.
pub fn of_made(facts: CallFacts<'_>, made: &MadeCall) -> CallOut {
    match &made.ended {
        Ok(AnsweredCall { outcome, analysis }) => {
            answered(facts, &outcome.response, analysis, made.verdict())
        }
        Err(error) => unanswered(facts, error.to_string()),
    }
}

/// A call whose server answered (a result or a JSON-RPC error).
pub fn answered(
    facts: CallFacts<'_>,
    response: &RawResponse,
    analysis: &CallAnalysis,
    verdict: Verdict,
) -> CallOut {
    let mut out = unanswered(facts, String::new());
    out.failure = None;
    if let Some((code, message)) = response.rpc_error() {
        if message.len() > bounded_json::MAX_TEXT_CHARS {
            out.withheld.push(format!(
                "the JSON-RPC error's message ({} bytes) is cut at {} characters; the history \
                 keeps it whole",
                message.len(),
                bounded_json::MAX_TEXT_CHARS
            ));
        }
        let message = crate::text_util::clip_chars(&message, bounded_json::MAX_TEXT_CHARS);
        out.rpc_error = Some(RpcErrorOut { code, message });
    } else if let Some(result) = response.result_ref() {
        let withheld = &mut out.withheld;
        out.content = bounded_json::member(result.get("content"), "content", withheld);
        out.structured_content = bounded_json::member(
            result.get("structuredContent"),
            "structuredContent",
            withheld,
        );
        out.is_error = result.get("isError").and_then(|flag| flag.as_bool());
    }
    out.analysis = Some(analysis_out(analysis, verdict));
    out
}

/// A call that got no answer: why.
pub fn unanswered(facts: CallFacts<'_>, failure: String) -> CallOut {
    let mut withheld = Vec::new();
    let arguments = bounded_json::copy(Some(facts.arguments), "the arguments", &mut withheld)
        .unwrap_or(Value::Null);
    CallOut {
        server: facts.server.to_owned(),
        tool: facts.tool.to_owned(),
        listed: facts.listed,
        arguments,
        duration_ms: facts
            .duration
            .map(|took| u64::try_from(took.as_millis()).unwrap_or(u64::MAX)),
        history_id: facts.history_id,
        content: None,
        structured_content: None,
        is_error: None,
        rpc_error: None,
        withheld,
        analysis: None,
        notes: facts.notes,
        failure: Some(failure),
    }
}

/// The analysis as the window's chips and details say it.
pub fn analysis_out(analysis: &CallAnalysis, verdict: Verdict) -> AnalysisOut {
    let protocol_error = matches!(analysis.error_kind, ErrorKind::ProtocolError { .. });
    let violations = match &analysis.contract {
        ContractCheck::Violated { violations, .. } => violations
            .iter()
            .map(|violation| format!("{} [{}]", violation.describe(), violation.schema_location()))
            .collect(),
        _ => Vec::new(),
    };
    AnalysisOut {
        verdict: verdict.as_str().to_owned(),
        outcome: analysis::outcome_word(&analysis.error_kind).to_owned(),
        contract: analysis::contract_words(&analysis.contract),
        violations,
        wrapping: analysis
            .wrapping
            .as_ref()
            .map(|_| analysis::WRAPPED_WORDS.to_owned()),
        mirror: (!protocol_error).then(|| analysis::mirror_words(&analysis.text_mirror).to_owned()),
        explanation: analysis.explanation.clone(),
        details: analysis.summary_lines(),
    }
}

/// The short text beside the structured result, for the model: the verdict chips in one line,
/// then the start of the text the tool's model would read (made safe: an agent may print it).
pub fn summary(out: &CallOut) -> String {
    let mut text = format!("{} `{}`: ", out.server, out.tool);
    match (&out.analysis, &out.failure) {
        (Some(analysis), _) => {
            let mut words = vec![analysis.outcome.clone(), analysis.contract.clone()];
            words.extend(analysis.wrapping.clone());
            words.extend(analysis.mirror.clone());
            text.push_str(&words.join(" · "));
        }
        (None, Some(failure)) => text.push_str(&format!("no answer: {failure}")),
        (None, None) => text.push_str("no answer"),
    }
    if let Some(ms) = out.duration_ms {
        text.push_str(&format!(" ({ms} ms"));
        if let Some(id) = out.history_id {
            text.push_str(&format!(", history #{id}"));
        }
        text.push(')');
    }
    if let Some(error) = &out.rpc_error {
        text.push_str(&format!(
            "\nJSON-RPC error {}: {}",
            error.code,
            crate::text_util::terminal_safe(&crate::text_util::one_line(&error.message, 300))
        ));
    }
    let read = model_text(out.content.as_ref());
    if !read.is_empty() {
        text.push_str(&format!(
            "\nThe model reads: {}",
            crate::text_util::terminal_safe(&crate::text_util::one_line(&read, 300))
        ));
    }
    if let Some(analysis) = &out.analysis {
        text.push_str(&format!("\n{}", analysis.explanation));
    }
    crate::text_util::terminal_safe(&text).into_owned()
}

/// The text blocks of `content`, joined.
fn model_text(content: Option<&Value>) -> String {
    content
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}
