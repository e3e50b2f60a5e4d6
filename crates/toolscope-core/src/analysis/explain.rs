//! One plain sentence on what each half of a result gives its reader and why they differ:
//! the first thing the window shows above the two panes, and the first line of the CLI's
//! analysis. Values are quoted short (a preview that stops early, however big the value).

use super::{CallAnalysis, ContractCheck, ErrorKind, MirrorShape, TextMirror};
use crate::json_doc::JsonRef;
use crate::text_util::{clip_chars, count_noun, json_type_phrase};

/// How much of a text or value a sentence quotes.
const QUOTE_CHARS: usize = 60;

/// The sentence for `analysis` of a result whose structuredContent is `structured`.
pub fn explain(analysis: &CallAnalysis, structured: Option<JsonRef<'_>>) -> String {
    let mut sentence = halves(analysis, structured);
    match &analysis.contract {
        ContractCheck::Violated {
            violations,
            omitted,
            ..
        } => sentence.push_str(&format!(
            " The structuredContent breaks the tool's output schema ({}).",
            count_noun(violations.len() + omitted, "problem", "problems")
        )),
        ContractCheck::SchemaInvalid { .. } => {
            sentence.push_str(" The tool's output schema itself is not a valid JSON Schema.");
        }
        _ => {}
    }
    sentence
}

fn halves(analysis: &CallAnalysis, structured: Option<JsonRef<'_>>) -> String {
    let texts: Vec<&str> = analysis
        .content
        .iter()
        .filter_map(super::ContentBlockView::text)
        .collect();
    let model_reads = || match texts.as_slice() {
        [] => format!(
            "{} and no text",
            count_noun(analysis.content.len(), "content block", "content blocks")
        ),
        [one] => format!("the text {}", quote_text(one)),
        [first, ..] => format!(
            "{} ({} first)",
            count_noun(texts.len(), "text block", "text blocks"),
            quote_text(first)
        ),
    };
    let pages = super::url_elicitation::required_pages(&analysis.error_kind);
    if let Some(first) = pages.first() {
        return format!(
            "The server needs you to open {} first{}. Open it, finish there, then call the tool \
             again (URL elicitation required, -32042); until then there is no result.",
            match pages.len() {
                1 => format!(
                    "a page on {}",
                    first.host.as_deref().unwrap_or("an unknown host")
                ),
                n => format!("{n} pages"),
            },
            first
                .message
                .as_deref()
                .map(|m| format!(": {}", quote_text(m)))
                .unwrap_or_default()
        );
    }
    match &analysis.error_kind {
        ErrorKind::ProtocolError { message, .. } => {
            return format!(
                "The server rejected the request with a JSON-RPC error{}: there is no result, \
                 so neither the model nor an application gets anything.",
                message
                    .as_deref()
                    .map(|m| format!(" ({})", quote_text(m)))
                    .unwrap_or_default()
            );
        }
        ErrorKind::ToolError { .. } => {
            return format!(
                "The tool reported an error (isError: true): the model reads {}; the output \
                 schema does not apply to an error.",
                model_reads()
            );
        }
        ErrorKind::InputRequired => {
            return "The server asked for input (input_required) and got no answer it could \
                    use, so there is no result yet: neither the model nor an application gets \
                    anything."
                .to_owned();
        }
        ErrorKind::Success => {}
    }
    let Some(structured) = structured else {
        if analysis.content.is_empty() {
            return "Neither half carries anything: no content for the model, no \
                    structuredContent for an application."
                .to_owned();
        }
        return format!(
            "Only the model gets something: it reads {}; an application gets no \
             structuredContent, so nothing typed.",
            model_reads()
        );
    };
    let application_reads = format!("`{}`", structured.one_line(QUOTE_CHARS));
    if let (Some(_), Some(inner)) = (&analysis.wrapping, wrapped_value(structured)) {
        return format!(
            "The model reads {}; the application reads {application_reads}: the SDK wrapped \
             {} in {{\"result\": …}} because structured output had to be an object.",
            model_reads(),
            json_type_phrase(&inner),
        );
    }
    match &analysis.text_mirror {
        TextMirror::Matches { shape } => {
            let how = match shape {
                MirrorShape::WholeValue => "the text is that value as JSON".to_owned(),
                MirrorShape::UnwrappedResult => "the text is the value inside `result`".to_owned(),
                MirrorShape::OneBlockPerItem => "the text has one block per list item".to_owned(),
                MirrorShape::StringField { field } => format!(
                    "the text is the string of its field `{}`",
                    clip_chars(field, 60)
                ),
            };
            format!(
                "Both halves carry the same data: the application reads {application_reads}, \
                 the model reads {} ({how}).",
                model_reads()
            )
        }
        TextMirror::Differs { detail } => format!(
            "The halves differ: the model reads {}, the application reads {application_reads} \
             ({detail}).",
            model_reads()
        ),
        TextMirror::NoTextBlocks => format!(
            "Only the application gets data: it reads {application_reads}, and the model gets \
             no text (a tool should also send the JSON as text)."
        ),
        TextMirror::NoStructuredContent { .. } => format!(
            "The model reads {}; the application reads {application_reads}.",
            model_reads()
        ),
    }
}

/// The value inside a `{"result": …}` wrapper.
fn wrapped_value(structured: JsonRef<'_>) -> Option<JsonRef<'_>> {
    Some(structured)
        .filter(|object| object.is_object() && object.len() == 1)
        .and_then(|object| object.get("result"))
}

/// A text quoted in backticks on one line, clipped: JSON as compact JSON (pretty JSON's
/// first line is only `{`), other text with its line breaks and runs of spaces as one space.
fn quote_text(text: &str) -> String {
    const PARSED_UP_TO: usize = 64 * 1024;
    let trimmed = text.trim();
    let compact = (trimmed.len() <= PARSED_UP_TO
        && (trimmed.starts_with('{') || trimmed.starts_with('[')))
    .then(|| serde_json::from_str::<serde_json::Value>(trimmed).ok())
    .flatten()
    .map(|value| value.to_string());
    let one_line =
        compact.unwrap_or_else(|| trimmed.split_whitespace().collect::<Vec<_>>().join(" "));
    format!("`{}`", clip_chars(&one_line, QUOTE_CHARS).replace('`', "'"))
}
