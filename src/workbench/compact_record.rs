//! A finished call kept small while it is not on screen: the response as JSON text instead of
//! a parsed tree (a million-node tree costs tens of times its text), analysed again when shown.

use std::sync::Arc;

use super::{CallRecord, call_record::prepare_record};
use toolscope_core::{json_doc::JsonDoc, session::RawResponse};

#[derive(Debug)]
pub struct CompactRecord {
    record_without_response: CallRecord,
    /// The response message as received (its tape is dropped; parsed again when shown).
    response_text: Box<str>,
}

impl CompactRecord {
    /// Keeps what `record` needs to be shown again; frees its parsed response.
    pub fn from_record(mut record: CallRecord) -> Self {
        let response = std::mem::replace(
            &mut record.outcome.response,
            RawResponse::from_message(Arc::new(JsonDoc::null())),
        );
        let message = response.into_message();
        let response_text = Arc::try_unwrap(message)
            .map_or_else(|shared| shared.text().to_owned(), JsonDoc::into_text)
            .into_boxed_str();
        // What was drawn from it goes too (the analysis holds a copy of every text block);
        // `restore` makes it all again.
        record.media.clear();
        record.pretty_texts.clear();
        record.analysis.content = Vec::new();
        record.response_preview = String::new();
        record.response_preview_short = None;
        Self {
            record_without_response: record,
            response_text,
        }
    }

    pub fn id(&self) -> super::CallId {
        self.record_without_response.id
    }

    /// Bytes kept for this record.
    pub fn size(&self) -> usize {
        self.response_text.len()
    }

    /// Parses and analyses the response again, as the call first showed it; images are
    /// prepared for textures of at most `max_image_side` pixels a side.
    pub fn restore(&self, max_image_side: u32) -> CallRecord {
        let message =
            JsonDoc::parse(self.response_text.to_string()).unwrap_or_else(|_| JsonDoc::null());
        let kept = &self.record_without_response;
        let mut outcome = kept.outcome.clone();
        outcome.response = RawResponse::from_message(Arc::new(message));
        let mut record = prepare_record(
            kept.id,
            kept.server,
            outcome,
            kept.output_schema.as_ref(),
            kept.protocol_version.clone(),
            max_image_side,
        );
        record.trace_id.clone_from(&kept.trace_id);
        record
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolscope_core::session::CallOutcome;

    #[test]
    fn a_compacted_record_comes_back_the_same() {
        let result = json!({
            "content": [{"type": "text", "text": "{\"result\": 3}"}],
            "structuredContent": {"result": 3}
        });
        let outcome = CallOutcome {
            tool: "add".to_owned(),
            arguments: json!({"a": 1, "b": 2}),
            request_id: "4".to_owned(),
            response: RawResponse::new_result("4", &result),
            duration: std::time::Duration::from_millis(3),
            duplicate_responses: 0,
            rounds: Default::default(),
        };
        let schema = json!({"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]});
        let original = prepare_record(7, 1, outcome, Some(&schema), "2026-07-28".to_owned(), 4096);
        let analysis = format!("{:?}", original.analysis);
        let compact = CompactRecord::from_record(original);
        assert_eq!(compact.id(), 7);
        assert!(compact.size() < 200);
        let restored = compact.restore(4096);
        assert_eq!(
            restored.structured_content().map(|v| v.to_value()),
            Some(json!({"result": 3}))
        );
        assert_eq!(format!("{:?}", restored.analysis), analysis);
        assert_eq!(restored.pretty_texts.len(), 1);
    }
}
