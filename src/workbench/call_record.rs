//! A call's record as the window shows it: the outcome and its analysis, with what drawing
//! needs prepared off the UI thread (a pretty preview, pretty JSON texts, decoded media).

use std::{collections::HashMap, sync::Arc};

use serde_json::Value;

use super::{
    ids::{CallId, ServerId},
    media::{ImageProblem, PreparedImage},
};
use toolscope_core::{analysis::CallAnalysis, json_doc::JsonRef, session::CallOutcome};

/// Decoded bytes of an image, audio or blob block, ready to show or save.
#[derive(Debug, Clone)]
pub struct DecodedMedia {
    /// Index of the block in `content`.
    pub index: usize,
    pub mime_type: String,
    /// What the bytes are by their signature, when known.
    pub sniffed: Option<&'static str>,
    pub bytes: Arc<[u8]>,
    /// What the window draws of an image block (`None` for audio and blobs).
    pub image: Option<Result<PreparedImage, ImageProblem>>,
}

/// A finished call with everything the window shows about it, prepared off the UI thread.
#[derive(Debug)]
pub struct CallRecord {
    pub id: CallId,
    pub server: ServerId,
    pub outcome: CallOutcome,
    pub analysis: CallAnalysis,
    pub protocol_version: String,
    /// The tool's output schema when it was called (the analysis checked against it).
    pub output_schema: Option<Value>,
    /// The start of the raw response, pretty-printed once here rather than every frame.
    pub response_preview: String,
    /// Whether the preview stops before the end of the response.
    pub response_preview_cut: bool,
    /// The preview with long base64 data (`data`, `blob`) cut short, when there is any.
    pub response_preview_short: Option<String>,
    /// The arguments sent, pretty-printed (the Request tab shows them).
    pub arguments_text: String,
    pub media: Vec<DecodedMedia>,
    /// Text blocks that hold a JSON object or array, pretty-printed, by block index.
    pub pretty_texts: HashMap<usize, String>,
    /// Where each content block is in the response's document, by block index (reaching the
    /// n-th item of a list in the document means walking the items before it).
    content_blocks: Vec<u32>,
    /// The trace the call's span is in, when the engine exported one (shown beside the
    /// duration, opened in the trace viewer the settings name).
    pub trace_id: Option<String>,
}

/// How much of the pretty-printed response the raw view shows.
const PREVIEW_BYTES: usize = 32 * 1024;

/// The first [`PREVIEW_BYTES`] of the pretty JSON, and whether there was more.
fn preview_pretty<T: serde::Serialize + ?Sized>(message: &T) -> (String, bool) {
    toolscope_core::deep_json::pretty_prefix(message, PREVIEW_BYTES)
}

impl CallRecord {
    /// The whole response exactly as received (for copying).
    pub fn response_text(&self) -> String {
        self.outcome.response.text().to_owned()
    }

    /// The size of the response as received.
    pub fn response_bytes(&self) -> usize {
        self.outcome.response.text().len()
    }

    pub fn structured_content(&self) -> Option<JsonRef<'_>> {
        self.outcome.response.result_ref()?.get("structuredContent")
    }

    pub fn content_block(&self, index: usize) -> Option<JsonRef<'_>> {
        self.content().raw_block(index)
    }

    /// Its content blocks, for the pane that draws them.
    pub fn content(&self) -> super::ContentBlocks<'_> {
        super::ContentBlocks {
            key: self.id,
            server: self.server,
            name: &self.outcome.tool,
            blocks: &self.analysis.content,
            media: &self.media,
            pretty_texts: &self.pretty_texts,
            raw: (self.outcome.response.message(), &self.content_blocks),
            json_docs: None,
        }
    }
}

/// Analyses a result and prepares what the window draws from it.
pub fn prepare_record(
    id: CallId,
    server: ServerId,
    outcome: CallOutcome,
    output_schema: Option<&Value>,
    protocol_version: String,
    max_image_side: u32,
) -> CallRecord {
    let analysis = outcome.analyze(output_schema, &protocol_version);
    prepare_analysed(
        id,
        server,
        outcome,
        analysis,
        output_schema,
        protocol_version,
        max_image_side,
    )
}

/// Prepares what the window draws from a result already analysed.
pub fn prepare_analysed(
    id: CallId,
    server: ServerId,
    outcome: CallOutcome,
    analysis: CallAnalysis,
    output_schema: Option<&Value>,
    protocol_version: String,
    max_image_side: u32,
) -> CallRecord {
    // The message exactly as the server sent it (its key order, any extra fields), pretty.
    let (response_preview, response_preview_cut) =
        preview_pretty(&outcome.response.message().root());
    let response_preview_short = match outcome.response.result_ref() {
        Some(result) if super::base64_preview::has_long_base64(result) => {
            let message = outcome.response.message().root();
            Some(preview_pretty(&super::base64_preview::short_message(message)).0)
        }
        _ => None,
    };
    let arguments_text = toolscope_core::deep_json::to_string_pretty(&outcome.arguments);
    let pretty_texts = super::content_blocks::pretty_json_texts(&analysis.content);
    let content_blocks: Vec<u32> = outcome
        .response
        .result_ref()
        .and_then(|result| result.get("content"))
        .map(|content| content.items().map(JsonRef::id).collect())
        .unwrap_or_default();
    let media = super::content_blocks::decode_media(
        &analysis.content,
        (outcome.response.message(), &content_blocks),
        max_image_side,
    );
    CallRecord {
        id,
        server,
        outcome,
        analysis,
        protocol_version,
        output_schema: output_schema.cloned(),
        response_preview,
        response_preview_cut,
        response_preview_short,
        arguments_text,
        media,
        pretty_texts,
        content_blocks,
        trace_id: None,
    }
}

/// The record of a call kept in the history, or why it has none.
pub(super) fn history_record(
    id: CallId,
    server: ServerId,
    mut call: toolscope_core::history::StoredCall,
    max_image_side: u32,
) -> Result<CallRecord, String> {
    use toolscope_core::history::StoredAnswer;
    let kind = call.kind;
    match call.take_answer() {
        // A read or a prompt: its contents or messages read as the blocks a model reads.
        StoredAnswer::Answered { outcome, .. }
            if kind != toolscope_core::history::CallKind::Call =>
        {
            let protocol = call.protocol_version.unwrap_or_default();
            let analysis =
                toolscope_core::engine::feature::answer_analysis(&outcome.response, &protocol);
            Ok(prepare_analysed(
                id,
                server,
                *outcome,
                analysis,
                None,
                protocol,
                max_image_side,
            ))
        }
        StoredAnswer::Answered {
            outcome,
            output_schema,
        } => Ok(prepare_record(
            id,
            server,
            *outcome,
            output_schema.as_ref(),
            call.protocol_version.unwrap_or_default(),
            max_image_side,
        )),
        StoredAnswer::NoAnswer { failure } => Err(format!("This call got no answer: {failure}")),
        StoredAnswer::Damaged { error } => Err(format!("{}.", capitalized(&error))),
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use serde_json::json;
    use toolscope_core::session::RawResponse;

    fn outcome(result: Value) -> CallOutcome {
        CallOutcome {
            tool: "t".to_owned(),
            arguments: json!({}),
            request_id: "7".to_owned(),
            response: RawResponse::new_result("7", &result),
            duration: std::time::Duration::ZERO,
            duplicate_responses: 0,
            rounds: Default::default(),
        }
    }

    #[test]
    fn small_responses_are_shown_whole_and_big_ones_cut() {
        let record = prepare_record(
            1,
            0,
            outcome(json!({"content": []})),
            None,
            "2026-07-28".into(),
            4096,
        );
        assert!(!record.response_preview_cut);
        let shown: Value = serde_json::from_str(&record.response_preview).unwrap();
        assert_eq!(
            shown,
            json!({"jsonrpc": "2.0", "id": 7, "result": {"content": []}})
        );

        let items: Vec<u64> = (0..200_000).collect();
        let big = json!({"content": [], "structuredContent": {"items": items}});
        let record = prepare_record(2, 0, outcome(big), None, "2026-07-28".into(), 4096);
        assert!(record.response_preview_cut);
        assert!(record.response_preview.len() <= PREVIEW_BYTES + 64);
        let whole: Value = serde_json::from_str(&record.response_text()).unwrap();
        assert_eq!(
            whole["result"]["structuredContent"]["items"][199_999],
            199_999
        );
    }

    #[test]
    fn image_data_is_decoded_once() {
        let png = base64::engine::general_purpose::STANDARD.encode([137u8, 80, 78, 71]);
        let result = json!({"content": [{"type": "image", "data": png, "mimeType": "image/png"}]});
        let record = prepare_record(3, 0, outcome(result), None, "2025-11-25".into(), 4096);
        assert_eq!(record.media.len(), 1);
        assert_eq!(&*record.media[0].bytes, &[137u8, 80, 78, 71]);
        // Only half a PNG signature: kept for Save…, not drawable.
        assert!(matches!(
            record.media[0].image,
            Some(Err(ImageProblem::UnknownFormat))
        ));
    }
}
