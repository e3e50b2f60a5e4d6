//! A resource read or a prompt got, as the window shows it: its contents as content blocks
//! (a resource's contents as embedded resources, a prompt's messages block by block with
//! their roles), drawn by the same pane as a tool result's, prepared off the UI thread.

use std::{collections::HashMap, ops::Range, sync::Arc, time::Duration};

use serde_json::Value;

use super::{CallId, ServerId, call_record::DecodedMedia, content_blocks};
pub use toolscope_core::engine::FeatureAsk;
use toolscope_core::{
    analysis::{self, ContentBlockView},
    json_doc::JsonDoc,
    session::{RawResponse, requests::feature_items::PromptMessages},
};

#[derive(Debug)]
pub struct FeatureRecord {
    pub id: CallId,
    pub server: ServerId,
    pub request: FeatureAsk,
    pub duration: Duration,
    /// What a saved block's file is named after (a prompt's name, a URI's last part).
    save_name: String,
    /// A prompt's description, as the answer gives it.
    pub description: Option<String>,
    pub blocks: Vec<ContentBlockView>,
    /// A prompt's messages: each role and the range of its blocks.
    pub messages: Vec<(String, Range<usize>)>,
    /// What was odd about the answer's shape.
    pub problems: Vec<String>,
    pub media: Vec<DecodedMedia>,
    pub pretty_texts: HashMap<usize, String>,
    /// Those texts parsed, for the tree view.
    json_docs: HashMap<usize, Arc<JsonDoc>>,
    /// The answer as received, pretty (the Raw view).
    pub response_pretty: String,
    /// The result member's text as received, to tell whether a re-read changed anything.
    pub result_text: String,
    doc: Arc<JsonDoc>,
    block_ids: Vec<u32>,
}

impl FeatureRecord {
    /// Reads an answer that is not a JSON-RPC error (the caller explains those).
    pub fn prepare(
        (id, server): (CallId, ServerId),
        request: FeatureAsk,
        response: &RawResponse,
        duration: Duration,
        max_image_side: u32,
    ) -> Self {
        let result = response.member();
        let mut problems = Vec::new();
        let mut description = None;
        let mut messages = Vec::new();
        let blocks: Vec<Value> = match &request {
            FeatureAsk::Read { .. } => {
                if !result
                    .get("contents")
                    .is_some_and(|contents| contents.is_array())
                {
                    problems.push("the answer has no `contents` list".to_owned());
                }
                toolscope_core::session::requests::feature_items::answer_blocks(result)
            }
            FeatureAsk::Prompt { .. } => {
                let read = PromptMessages::from_result(result);
                description = read.description;
                problems.extend(read.problems);
                let mut blocks = Vec::new();
                for message in read.messages {
                    let start = blocks.len();
                    blocks.extend(message.content);
                    messages.push((message.role, start..blocks.len()));
                }
                blocks
            }
        };
        let (doc, block_ids) = content_blocks::blocks_document(&blocks);
        let blocks = analysis::parse_blocks(blocks);
        let pretty_texts = content_blocks::pretty_json_texts(&blocks);
        let media = content_blocks::decode_media(&blocks, (&doc, &block_ids), max_image_side);
        let json_docs = content_blocks::json_documents(&blocks, &pretty_texts);
        let (response_pretty, _) =
            toolscope_core::deep_json::pretty_prefix(&response.message().root(), 256 * 1024);
        let save_name = request
            .name()
            .rsplit('/')
            .find(|part| !part.is_empty())
            .unwrap_or("resource")
            .to_owned();
        Self {
            id,
            server,
            save_name,
            request,
            duration,
            description,
            blocks,
            messages,
            problems,
            media,
            pretty_texts,
            json_docs,
            response_pretty,
            result_text: response.member().raw().to_owned(),
            doc,
            block_ids,
        }
    }

    /// A read or a prompt kept in the history, as it was answered; why it cannot be shown
    /// (it got no answer, or its answer was an error).
    pub fn from_history(
        (id, server): (CallId, ServerId),
        call: &toolscope_core::history::StoredCall,
        max_image_side: u32,
    ) -> Result<Self, String> {
        let request = match call.kind {
            toolscope_core::history::CallKind::Prompt => FeatureAsk::Prompt {
                name: call.tool.clone(),
                arguments: serde_json::from_str(&call.arguments).unwrap_or_default(),
            },
            _ => FeatureAsk::Read {
                uri: call.tool.clone(),
            },
        };
        let Some(text) = &call.response else {
            let why = call.failure.as_deref().unwrap_or("no reason was kept");
            return Err(format!("This {} got no answer: {why}", call.kind));
        };
        let message = JsonDoc::parse(text.clone()).map_err(|error| {
            format!(
                "The answer kept for #{} is not JSON ({error}); the history file may be damaged",
                call.id
            )
        })?;
        let response = RawResponse::from_message(Arc::new(message));
        if let Some((code, message)) = response.rpc_error() {
            return Err(format!(
                "{}: the server answered with JSON-RPC error {code}: {message}",
                request.describe()
            ));
        }
        let duration = Duration::from_millis(call.duration_ms.unwrap_or(0));
        Ok(Self::prepare(
            (id, server),
            request,
            &response,
            duration,
            max_image_side,
        ))
    }

    pub fn content(&self) -> super::ContentBlocks<'_> {
        super::ContentBlocks {
            key: self.id,
            server: self.server,
            name: &self.save_name,
            blocks: &self.blocks,
            media: &self.media,
            pretty_texts: &self.pretty_texts,
            raw: (&self.doc, &self.block_ids),
            json_docs: Some(&self.json_docs),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_prompt_becomes_blocks_with_their_roles() {
        let response = RawResponse::new_result(
            "1",
            &json!({"description": "d", "messages": [
                {"role": "user", "content": {"type": "text", "text": "hi"}},
                {"role": "assistant", "content": {"type": "resource",
                    "resource": {"uri": "demo://a", "text": "{\"a\": 1}"}}}
            ]}),
        );
        let request = FeatureAsk::Prompt {
            name: "p".to_owned(),
            arguments: serde_json::Map::new(),
        };
        let record = FeatureRecord::prepare((1, 0), request, &response, Duration::ZERO, 64);
        assert_eq!(record.blocks.len(), 2);
        assert_eq!(record.messages[1], ("assistant".to_owned(), 1..2));
        assert_eq!(record.description.as_deref(), Some("d"));
        assert!(
            record.pretty_texts.contains_key(&1),
            "embedded JSON is made pretty"
        );
        assert!(record.content().raw_block(1).is_some());
    }

    #[test]
    fn a_read_shows_each_content_as_an_embedded_resource_with_images_drawn() {
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
        let response = RawResponse::new_result(
            "1",
            &json!({"contents": [
                {"uri": "demo://t", "mimeType": "text/plain", "text": "hello"},
                {"uri": "demo://i", "blob": png}
            ]}),
        );
        let request = FeatureAsk::Read {
            uri: "demo://t".to_owned(),
        };
        let record = FeatureRecord::prepare((1, 0), request, &response, Duration::ZERO, 64);
        assert_eq!(record.blocks.len(), 2);
        assert_eq!(record.media.len(), 1);
        assert_eq!(record.media[0].sniffed, Some("image/png"));
        assert!(
            matches!(record.media[0].image, Some(Ok(_))),
            "a blob whose bytes are a PNG is drawn even without a mimeType"
        );
    }
}
