//! Pure analysis of a `tools/call` response: error kind, content blocks, structured output,
//! the output-schema contract, SDK result wrapping and the text mirror. No I/O anywhere.

mod annotations;
mod base64_data;
mod content;
mod content_parse;
mod contract;
mod deep;
mod era;
mod error_kind;
mod explain;
mod header_annotations;
mod json_compare;
mod schema_check;
pub use schema_check::fits_schema;
mod structured;
mod text_mirror;
mod url_elicitation;
mod verdict_words;
mod violation_text;
mod wrapping;

pub use annotations::Annotations;
pub use base64_data::{Base64Data, decode_base64};
pub use content::{BlockKind, ContentBlockView, EmbeddedBody};
pub use contract::{ContractCheck, Dialect, MAX_LISTED_VIOLATIONS, SkipReason, Violation};
pub use deep::{MAX_VALIDATED_DEPTH, deeper_than};
pub use era::{FIRST_MODERN_VERSION, ProtocolEra};
pub use error_kind::ErrorKind;
pub use explain::explain;
pub use header_annotations::{
    HEADER_KEYWORD, HeaderCheck, MAX_CHECKED_DEPTH, check_header_annotations,
};
/// Whether two JSON numbers are the same number (3 == 3.0), for every comparison of values.
pub(crate) use json_compare::numbers_equal;
pub(crate) use json_compare::{Sides, TextCompare, compare_json};
pub use structured::StructuredView;
pub use text_mirror::{MirrorShape, TextMirror};
pub use url_elicitation::{RequiredPage, URL_ELICITATION_REQUIRED, required_pages};
pub use verdict_words::{WRAPPED_WORDS, contract_words, mirror_words, outcome_word};
pub use violation_text::sentence as violation_sentence;
pub use wrapping::{FASTMCP_WRAP_MARKER, WrapSignal, Wrapping, output_schema_wraps};

use serde::Serialize;
use serde_json::Value;

use crate::deep_json::DeepValue;
use crate::json_doc::JsonRef;

use annotations::json_type_phrase;

/// The response to a `tools/call`: a result, or a JSON-RPC error.
///
/// Either may be the whole JSON-RPC envelope (`{"jsonrpc", "id", "result"|"error"}`) or
/// just its `result`/`error` member.
#[derive(Debug, Clone, Copy)]
pub enum CallResponse<'a> {
    Result(JsonRef<'a>),
    RpcError(JsonRef<'a>),
}

/// Everything Toolscope says about one call.
#[derive(Debug, Clone, Serialize)]
pub struct CallAnalysis {
    pub era: ProtocolEra,
    pub error_kind: ErrorKind,
    pub content: Vec<ContentBlockView>,
    pub structured: StructuredView,
    pub contract: ContractCheck,
    pub wrapping: Option<Wrapping>,
    pub text_mirror: TextMirror,
    /// Problems with the result envelope itself (not an object, `content` not a list, …).
    pub notes: Vec<String>,
    /// One plain sentence on what each half gives its reader and why they differ.
    pub explanation: String,
}

/// A note for a response that came more than once: the first one is analysed.
pub fn note_duplicate_responses(analysis: &mut CallAnalysis, further: usize) {
    if further > 0 {
        analysis.notes.push(format!(
            "the server sent {further} more response(s) with this request's id; the first one \
             is shown and the others were ignored (a server bug: each id gets one response)"
        ));
    }
}

/// Content blocks that are not a tool result's (a prompt's messages, a resource's contents
/// as embedded resources), read as leniently as a result's `content`.
pub fn parse_blocks(blocks: Vec<Value>) -> Vec<ContentBlockView> {
    blocks
        .into_iter()
        .enumerate()
        .map(|(index, block)| content_parse::parse_block_owned(index, block))
        .collect()
}

/// Analyses one call. `output_schema` is the tool's declared `outputSchema`, if any.
pub fn analyze_call(
    response: CallResponse<'_>,
    output_schema: Option<&Value>,
    era: ProtocolEra,
) -> CallAnalysis {
    let mut notes = Vec::new();
    if let Some(schema) = output_schema {
        legacy_schema_note(schema, era, &mut notes);
    }
    let result = match response {
        CallResponse::RpcError(error) => {
            return rpc_error_analysis(error, output_schema, era, notes);
        }
        CallResponse::Result(value) => match value.get("jsonrpc") {
            // A whole envelope was passed: look inside it.
            Some(_) => match (value.get("result"), value.get("error")) {
                (Some(result), _) => result,
                (None, Some(_)) => return rpc_error_analysis(value, output_schema, era, notes),
                (None, None) => value,
            },
            None => value,
        },
    };

    if !result.is_object() {
        notes.push(format!(
            "the result is {}, not an object; nothing in it can be read",
            json_type_phrase(&result)
        ));
    }
    // Each block is read as a value, one at a time, its text moved into the view (copied
    // once); structuredContent stays in the document, however big.
    let content = match result.get("content") {
        Some(content) if content.is_array() => content
            .items()
            .enumerate()
            .map(|(index, block)| content_parse::parse_block_owned(index, block.to_value()))
            .collect(),
        Some(other) => {
            notes.push(format!(
                "\"content\" is {}, not a list of blocks",
                json_type_phrase(&other)
            ));
            Vec::new()
        }
        None if result.is_object() && era == ProtocolEra::Legacy => {
            notes.push(
                "the result has no \"content\" list, which this protocol era requires".into(),
            );
            Vec::new()
        }
        None => Vec::new(),
    };
    let is_error = match result.get("isError") {
        None => false,
        Some(flag) if flag.is_null() => false,
        Some(flag) if flag.as_bool().is_some() => flag.as_bool() == Some(true),
        Some(other) => {
            notes.push(format!(
                "\"isError\" is {}, not a boolean; it was treated as false",
                json_type_phrase(&other)
            ));
            false
        }
    };
    let texts: Vec<&str> = content.iter().filter_map(ContentBlockView::text).collect();
    let input_required = result
        .get("resultType")
        .and_then(JsonRef::as_str)
        .is_some_and(|kind| kind == "input_required");
    let error_kind = if is_error {
        ErrorKind::ToolError {
            message: texts.first().map(|t| (*t).to_owned()),
        }
    } else if input_required {
        ErrorKind::InputRequired
    } else {
        ErrorKind::Success
    };
    let structured_value = result.get("structuredContent");
    if input_required {
        notes.push(
            "the server answered input_required (2026-07-28): it asks the client for input \
             and expects the call again with the answers; this is not the tool's result"
                .to_owned(),
        );
    }
    let skip = if is_error {
        Some(SkipReason::ToolError)
    } else {
        input_required.then_some(SkipReason::InputRequired)
    };
    let result_meta = result.get("_meta").map(|meta| DeepValue(meta.to_value()));
    // Wrapping is about structuredContent: a result without it (an error, say) wraps nothing.
    let mut wrapping = structured_value.and_then(|structured| {
        wrapping::detect_wrapping(output_schema, result_meta.as_deref(), Some(structured))
    });
    if let Some(w) = wrapping.as_mut() {
        modern_wrapping_note(w, era);
    }
    let (contract, text_mirror) =
        contract_and_mirror(output_schema, structured_value, skip, &texts);
    let mut analysis = CallAnalysis {
        era,
        error_kind,
        structured: StructuredView::new(structured_value, era),
        contract,
        wrapping,
        text_mirror,
        content,
        notes,
        explanation: String::new(),
    };
    analysis.explanation = explain(&analysis, structured_value);
    analysis
}

/// Texts at least this long are compared on a thread of their own while the contract is
/// checked (the two are independent, and each takes tens of milliseconds on a big result).
const PARALLEL_MIRROR_BYTES: usize = 256 * 1024;

/// The contract check and the text-mirror comparison, side by side on a big result.
fn contract_and_mirror(
    output_schema: Option<&Value>,
    structured: Option<JsonRef<'_>>,
    skip: Option<SkipReason>,
    texts: &[&str],
) -> (ContractCheck, TextMirror) {
    let text_bytes: usize = texts.iter().map(|text| text.len()).sum();
    if text_bytes < PARALLEL_MIRROR_BYTES || output_schema.is_none() {
        return (
            schema_check::check_contract(output_schema, structured, skip),
            text_mirror::check_text_mirror(structured, texts),
        );
    }
    std::thread::scope(|scope| {
        let mirror = std::thread::Builder::new()
            .name("text mirror".to_owned())
            .spawn_scoped(scope, || text_mirror::check_text_mirror(structured, texts));
        let contract = schema_check::check_contract(output_schema, structured, skip);
        let mirror = match mirror {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had: compare here instead.
            Err(_) => text_mirror::check_text_mirror(structured, texts),
        };
        (contract, mirror)
    })
}

fn rpc_error_analysis(
    error: JsonRef<'_>,
    output_schema: Option<&Value>,
    era: ProtocolEra,
    notes: Vec<String>,
) -> CallAnalysis {
    // A JSON-RPC error has no structuredContent, so nothing was wrapped (the output schema
    // says what a result would be; the tool's definition shows that).
    let mut analysis = CallAnalysis {
        era,
        error_kind: ErrorKind::from_rpc_error(&DeepValue(error.to_value())),
        content: Vec::new(),
        structured: StructuredView::Absent,
        contract: schema_check::check_contract(
            output_schema,
            None,
            Some(SkipReason::ProtocolError),
        ),
        wrapping: None,
        text_mirror: TextMirror::NoStructuredContent { text_blocks: 0 },
        notes,
        explanation: String::new(),
    };
    analysis.explanation = explain(&analysis, None);
    analysis
}

/// In the Legacy era the output schema's root must describe an object.
fn legacy_schema_note(schema: &Value, era: ProtocolEra, notes: &mut Vec<String>) {
    if era != ProtocolEra::Legacy {
        return;
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        Some(t) => notes.push(format!(
            "the output schema's root type is {}, but before protocol {FIRST_MODERN_VERSION} \
             it must be \"object\"",
            deep::one_line(t, 80)
        )),
        // A root `$ref` may well resolve to an object; only flag a schema with no type at all.
        None if schema.get("$ref").is_some() => {}
        None => notes.push(format!(
            "the output schema declares no root type; before protocol {FIRST_MODERN_VERSION} \
             it must be \"object\""
        )),
    }
}

fn modern_wrapping_note(wrapping: &mut Wrapping, era: ProtocolEra) {
    if era == ProtocolEra::Modern {
        wrapping.explanation.push_str(&format!(
            " Since protocol {FIRST_MODERN_VERSION} structured output may be any JSON value, so \
             the wrapper is no longer required."
        ));
    }
}

impl CallAnalysis {
    /// A successful call (not a protocol error, not `isError`) whose structured output keeps
    /// its contract: not violated, schema compilable, and an object where the era demands one.
    pub fn is_conforming_success(&self) -> bool {
        self.error_kind.is_success()
            && !self.contract.is_violated()
            && !self.contract.is_too_deep()
            && !self.structured.is_flagged()
    }

    /// Plain-words sentences for a UI or CLI, one per aspect (plus one per problematic block).
    pub fn summary_lines(&self) -> Vec<String> {
        let mut lines = vec![self.error_kind.describe()];
        if matches!(self.error_kind, ErrorKind::ProtocolError { .. }) {
            lines.push("No result: a protocol error carries no content".to_owned());
        } else {
            lines.push(self.content_summary());
            lines.extend(
                self.content
                    .iter()
                    .filter(|b| !b.problems.is_empty())
                    .map(ContentBlockView::describe),
            );
            lines.push(self.structured.describe());
        }
        // "No output schema" is noise next to a protocol error, which has no result anyway.
        let protocol_error = matches!(self.error_kind, ErrorKind::ProtocolError { .. });
        if !(protocol_error && matches!(self.contract, ContractCheck::NoSchema { .. })) {
            lines.push(self.contract.describe());
        }
        if let Some(w) = &self.wrapping {
            lines.push(w.describe());
        }
        if !matches!(self.error_kind, ErrorKind::ProtocolError { .. }) {
            lines.push(self.text_mirror.describe());
        }
        lines.extend(self.notes.iter().map(|n| format!("Note: {n}")));
        lines
    }

    fn content_summary(&self) -> String {
        if self.content.is_empty() {
            return "Content: no blocks".to_owned();
        }
        // Counted in first-seen order so the summary reads like the content.
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for block in &self.content {
            let label = block.kind.label();
            match counts.iter_mut().find(|(l, _)| *l == label) {
                Some((_, n)) => *n += 1,
                None => counts.push((label, 1)),
            }
        }
        let parts: Vec<String> = counts.iter().map(|(l, n)| format!("{n} {l}")).collect();
        let n = self.content.len();
        let troubled = self
            .content
            .iter()
            .filter(|b| !b.problems.is_empty())
            .count();
        let problems = match troubled {
            0 => String::new(),
            1 => "; 1 block has problems".to_owned(),
            k => format!("; {k} blocks have problems"),
        };
        format!(
            "Content: {n} block{} ({}){problems}",
            if n == 1 { "" } else { "s" },
            parts.join(", ")
        )
    }
}

#[cfg(test)]
mod deep_tests;
#[cfg(test)]
mod tests;
