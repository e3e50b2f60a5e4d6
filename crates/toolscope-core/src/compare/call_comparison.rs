//! Two calls side by side: the structural diff of their structuredContent, the line diff of
//! the text the model reads, and what else differs in plain sentences: first what the calls
//! were (server, protocol, tool, arguments), then isError, verdict, contract, wrapping, text
//! mirror, duration.
//!
//! [`CallComparison::new`] is a pure function that may take a second on two 1,000,000-node
//! results: the caller runs it off the UI thread (`spawn_blocking`, a thread) and hands the
//! result to the window.

use std::borrow::Cow;
use std::time::Duration;

use crate::analysis::{CallAnalysis, ContractCheck, ErrorKind, StructuredView, TextMirror};
use crate::history::Verdict;
use crate::json_doc::{JsonDoc, JsonRef};
use crate::session::RawResponse;
use crate::text_util::count_noun;

use super::structural::StructuralDiff;
use super::text_lines::LineDiff;

/// One of the two calls compared.
#[derive(Debug, Clone, Copy)]
pub struct CallSide<'a> {
    /// The response's `result` member; `None` for a JSON-RPC error or a call with no answer.
    pub result: Option<JsonRef<'a>>,
    /// Its analysis; `None` for a call with no answer.
    pub analysis: Option<&'a CallAnalysis>,
    pub verdict: Verdict,
    pub duration: Option<Duration>,
    /// What the call was, where known.
    pub context: CallContext<'a>,
}

/// What a call was: the server that answered, the protocol, the tool and its arguments.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallContext<'a> {
    /// The server's name and version ("demo 0.1.0").
    pub server: Option<&'a str>,
    pub protocol: Option<&'a str>,
    pub tool: Option<&'a str>,
    pub arguments: Option<&'a serde_json::Value>,
}

impl<'a> CallSide<'a> {
    /// The same side, saying what the call was.
    #[must_use]
    pub fn with_context(self, context: CallContext<'a>) -> Self {
        Self { context, ..self }
    }

    /// An answered call, from its raw response.
    pub fn answered(
        response: &'a RawResponse,
        analysis: &'a CallAnalysis,
        verdict: Verdict,
        duration: Option<Duration>,
    ) -> Self {
        Self {
            result: response.result_ref(),
            analysis: Some(analysis),
            verdict,
            duration,
            context: CallContext::default(),
        }
    }

    /// An answered call, from the whole JSON-RPC message as a document (a history entry's
    /// response, parsed): its `result` member unless it is an error response.
    pub fn from_message(
        message: &'a JsonDoc,
        analysis: &'a CallAnalysis,
        verdict: Verdict,
        duration: Option<Duration>,
    ) -> Self {
        let root = message.root();
        let result = match root.get("error") {
            Some(_) => None,
            None => root.get("result"),
        };
        Self {
            result,
            analysis: Some(analysis),
            verdict,
            duration,
            context: CallContext::default(),
        }
    }

    /// A call that got no answer (cancelled, timed out, failed).
    pub fn unanswered(verdict: Verdict, duration: Option<Duration>) -> Self {
        Self {
            result: None,
            analysis: None,
            verdict,
            duration,
            context: CallContext::default(),
        }
    }

    fn structured_content(&self) -> Option<JsonRef<'a>> {
        self.result?.get("structuredContent")
    }

    /// The texts as the model reads them (text blocks, and embedded resources' texts), one
    /// after the other (a line break between blocks). Borrowed when there is one block.
    fn model_text(&self) -> Cow<'a, str> {
        let Some(analysis) = self.analysis else {
            return Cow::Borrowed("");
        };
        let mut texts = analysis
            .content
            .iter()
            .filter_map(|block| match &block.kind {
                crate::analysis::BlockKind::Resource {
                    body: crate::analysis::EmbeddedBody::Text { text },
                    ..
                } => Some(text.as_str()),
                _ => block.text(),
            });
        match (texts.next(), texts.next()) {
            (None, _) => Cow::Borrowed(""),
            (Some(only), None) => Cow::Borrowed(only),
            (Some(first), Some(second)) => {
                let mut joined = format!("{first}\n{second}");
                for text in texts {
                    joined.push('\n');
                    joined.push_str(text);
                }
                Cow::Owned(joined)
            }
        }
    }
}

/// What two calls differ in.
#[derive(Debug, Clone)]
pub struct CallComparison {
    /// structuredContent, old against new (one change at the root when only one has it).
    pub structured: StructuralDiff,
    /// The text blocks as the model reads them, old against new.
    pub text: LineDiff,
    /// What differs in the calls themselves (server, protocol, tool, arguments), one sentence
    /// each: said first, since a different call explains a different result.
    pub calls: Vec<String>,
    /// The other differences of the results, one plain sentence each ("isError: false →
    /// true"); empty when there are none.
    pub differences: Vec<String>,
}

impl CallComparison {
    /// Compares `old` with `new`. Pure, and slow on big results: run it off the UI thread.
    pub fn new(old: &CallSide<'_>, new: &CallSide<'_>) -> Self {
        let structured =
            StructuralDiff::compute_optional(old.structured_content(), new.structured_content());
        let text = LineDiff::compute(&old.model_text(), &new.model_text());
        Self {
            structured,
            text,
            calls: what_differs(&old.context, &new.context),
            differences: differences(old, new),
        }
    }

    /// Nothing differs but the duration.
    pub fn is_same_result(&self) -> bool {
        self.structured.is_empty()
            && self.text.is_identical()
            && self
                .differences
                .iter()
                .all(|line| line.starts_with("duration"))
    }

    /// Every difference in one list: the calls', the results', then structuredContent and the
    /// text.
    pub fn summary_lines(&self) -> Vec<String> {
        let mut lines = self.calls.clone();
        lines.extend(self.differences.iter().cloned());
        lines.push(format!("structuredContent: {}", self.structured.summary()));
        lines.push(format!("text content: {}", self.text.summary()));
        lines
    }
}

fn differences(old: &CallSide<'_>, new: &CallSide<'_>) -> Vec<String> {
    let mut lines = Vec::new();
    let mut differ = |what: &str, old: String, new: String| {
        if old != new {
            lines.push(format!("{what}: {old} → {new}"));
        }
    };
    differ("response", response_label(old), response_label(new));
    differ("isError", is_error_label(old), is_error_label(new));
    differ(
        "verdict",
        old.verdict.as_str().to_owned(),
        new.verdict.as_str().to_owned(),
    );
    let analysed = old.analysis.zip(new.analysis);
    if let Some((a, b)) = analysed {
        differ(
            "structuredContent",
            structured_label(&a.structured),
            structured_label(&b.structured),
        );
        differ("content", content_label(a), content_label(b));
        differ(
            "contract",
            contract_label(&a.contract),
            contract_label(&b.contract),
        );
        differ(
            "wrapping",
            wrapping_label(a.wrapping.is_some()),
            wrapping_label(b.wrapping.is_some()),
        );
        differ(
            "text mirror",
            mirror_label(&a.text_mirror),
            mirror_label(&b.text_mirror),
        );
    }
    if let Some(line) = duration_sentence(old.duration, new.duration) {
        lines.push(line);
    }
    lines
}

/// How many argument changes are named before "and N more".
const NAMED_ARGUMENT_CHANGES: usize = 3;

/// What differs in the calls themselves, said first: a different result from a different
/// server, protocol, tool or arguments is no surprise.
fn what_differs(old: &CallContext<'_>, new: &CallContext<'_>) -> Vec<String> {
    let mut lines = Vec::new();
    for (what, old, new) in [
        ("server", old.server, new.server),
        ("protocol", old.protocol, new.protocol),
        ("tool", old.tool, new.tool),
    ] {
        if let (Some(old), Some(new)) = (old, new)
            && old != new
        {
            lines.push(format!("{what}: {old} → {new}"));
        }
    }
    if let (Some(old), Some(new)) = (old.arguments, new.arguments) {
        let (old, new) = (JsonDoc::from_value(old), JsonDoc::from_value(new));
        let diff = StructuralDiff::compute_capped(old.root(), new.root(), NAMED_ARGUMENT_CHANGES);
        if !diff.is_empty() {
            let mut named: Vec<String> = diff
                .changes
                .iter()
                .map(|change| change.describe())
                .collect();
            if diff.more() > 0 {
                named.push(format!("and {} more", diff.more()));
            }
            lines.push(format!("arguments: {}", named.join("; ")));
        }
    }
    lines
}

fn response_label(side: &CallSide<'_>) -> String {
    match side.analysis.map(|analysis| &analysis.error_kind) {
        None => "no answer".to_owned(),
        Some(ErrorKind::ProtocolError { code, .. }) => match code {
            Some(code) => format!("a JSON-RPC error ({code})"),
            None => "a JSON-RPC error".to_owned(),
        },
        Some(_) => "a result".to_owned(),
    }
}

fn is_error_label(side: &CallSide<'_>) -> String {
    match side.analysis.map(|analysis| &analysis.error_kind) {
        Some(ErrorKind::Success) => "false".to_owned(),
        Some(ErrorKind::ToolError { .. }) => "true".to_owned(),
        Some(ErrorKind::ProtocolError { .. } | ErrorKind::InputRequired) | None => {
            "no result".to_owned()
        }
    }
}

fn structured_label(view: &StructuredView) -> String {
    match view {
        StructuredView::Absent => "absent".to_owned(),
        StructuredView::Present { shape, .. } => shape.clone(),
    }
}

fn content_label(analysis: &CallAnalysis) -> String {
    let kinds: Vec<&str> = analysis
        .content
        .iter()
        .map(|block| block.kind.label())
        .collect();
    match kinds.as_slice() {
        [] => "no blocks".to_owned(),
        _ => format!(
            "{} ({})",
            count_noun(kinds.len(), "block", "blocks"),
            kinds.join(", ")
        ),
    }
}

fn contract_label(contract: &ContractCheck) -> String {
    match contract {
        ContractCheck::NoSchema { .. } => "no output schema".to_owned(),
        ContractCheck::NotChecked { reason } => format!("not checked ({})", reason.describe()),
        ContractCheck::Satisfied { .. } => "satisfied".to_owned(),
        ContractCheck::Violated {
            violations,
            omitted,
            ..
        } => format!(
            "violated in {}",
            count_noun(violations.len() + omitted, "place", "places")
        ),
        ContractCheck::SchemaInvalid { .. } => "output schema invalid".to_owned(),
    }
}

fn wrapping_label(wrapped: bool) -> String {
    if wrapped {
        "wrapped in {\"result\": …}".to_owned()
    } else {
        "not wrapped".to_owned()
    }
}

fn mirror_label(mirror: &TextMirror) -> String {
    match mirror {
        TextMirror::NoStructuredContent { .. } => "not applicable".to_owned(),
        TextMirror::NoTextBlocks => "missing".to_owned(),
        TextMirror::Matches { shape } => format!("matches ({})", shape.describe()),
        TextMirror::Differs { .. } => "differs".to_owned(),
    }
}

/// "duration 12 ms → 340 ms (28× slower)"; `None` when either is unknown or both read the
/// same. Under a millisecond a duration is below what the clock tells apart: no ratio then.
fn duration_sentence(old: Option<Duration>, new: Option<Duration>) -> Option<String> {
    let (old, new) = (old?, new?);
    let (old_text, new_text) = (duration_text(old), duration_text(new));
    if old_text == new_text {
        return None;
    }
    let resolved = |duration: Duration| duration >= Duration::from_millis(1);
    let ratio = (resolved(old) && resolved(new)).then(|| new.as_secs_f64() / old.as_secs_f64());
    let ratio = match ratio {
        Some(r) if r >= 10.0 => format!(" ({r:.0}× slower)"),
        Some(r) if r >= 1.0 => format!(" ({r:.1}× slower)"),
        Some(r) if r > 0.1 => format!(" ({:.1}× faster)", 1.0 / r),
        Some(r) => format!(" ({:.0}× faster)", 1.0 / r),
        None => String::new(),
    };
    Some(format!("duration {old_text} → {new_text}{ratio}"))
}

fn duration_text(duration: Duration) -> String {
    let ms = duration.as_secs_f64() * 1000.0;
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

#[cfg(test)]
mod duration_tests {
    use std::time::Duration;

    use super::duration_sentence;

    #[test]
    fn a_duration_change_says_slower_or_faster_and_no_ratio_under_a_millisecond() {
        let ms = |ms: u64| Some(Duration::from_micros(ms));
        let said = |old: u64, new: u64| duration_sentence(ms(old * 1000), ms(new * 1000));
        assert_eq!(
            said(10, 25).as_deref(),
            Some("duration 10 ms → 25 ms (2.5× slower)")
        );
        assert_eq!(
            said(10, 4).as_deref(),
            Some("duration 10 ms → 4 ms (2.5× faster)")
        );
        assert_eq!(
            said(400, 2).as_deref(),
            Some("duration 400 ms → 2 ms (200× faster)")
        );
        // 2 ms, then 0.4 ms: "0 ms" with a ratio of 0.0× said nothing true.
        assert_eq!(
            duration_sentence(ms(2000), ms(400)).as_deref(),
            Some("duration 2 ms → 0 ms")
        );
    }
}
