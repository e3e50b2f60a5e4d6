//! A resource read or a prompt got, as the window shows it: its contents as content blocks
//! (a resource's contents as embedded resources, a prompt's messages block by block with
//! their roles), drawn by the same pane as a tool result's, prepared off the UI thread.

use std::{collections::HashMap, ops::Range, sync::Arc, time::Duration};

use serde_json::{Value, json};

use super::{CallId, ServerId, call_record::DecodedMedia, content_blocks};
use crate::{
    analysis::{self, ContentBlockView},
    json_doc::JsonDoc,
    session::{RawResponse, feature_items::PromptMessages},
};

/// What was asked.
#[derive(Debug, Clone, PartialEq)]
pub enum FeatureRequest {
    Read {
        uri: String,
    },
    Prompt {
        name: String,
        arguments: serde_json::Map<String, Value>,
    },
}

impl FeatureRequest {
    /// Said as the request it is (`resources/read demo://x`).
    pub fn describe(&self) -> String {
        match self {
            FeatureRequest::Read { uri } => format!("resources/read {uri}"),
            FeatureRequest::Prompt { name, .. } => format!("prompts/get {name}"),
        }
    }

    pub fn is_prompt(&self) -> bool {
        matches!(self, FeatureRequest::Prompt { .. })
    }

    /// What a saved block's file is named after.
    pub fn name(&self) -> &str {
        match self {
            FeatureRequest::Read { uri } => uri
                .rsplit('/')
                .find(|part| !part.is_empty())
                .unwrap_or("resource"),
            FeatureRequest::Prompt { name, .. } => name,
        }
    }
}

#[derive(Debug)]
pub struct FeatureRecord {
    pub id: CallId,
    pub server: ServerId,
    pub request: FeatureRequest,
    pub duration: Duration,
    /// A prompt's description, as the answer gives it.
    pub description: Option<String>,
    pub blocks: Vec<ContentBlockView>,
    /// A prompt's messages: each role and the range of its blocks.
    pub messages: Vec<(String, Range<usize>)>,
    /// What was odd about the answer's shape.
    pub problems: Vec<String>,
    pub media: Vec<DecodedMedia>,
    pub pretty_texts: HashMap<usize, String>,
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
        request: FeatureRequest,
        response: &RawResponse,
        duration: Duration,
        max_image_side: u32,
    ) -> Self {
        let result = response.member().to_value();
        let mut problems = Vec::new();
        let mut description = None;
        let mut messages = Vec::new();
        let blocks: Vec<Value> = match &request {
            FeatureRequest::Read { .. } => match result.get("contents") {
                // Each content is what an embedded resource block carries.
                Some(Value::Array(contents)) => contents
                    .iter()
                    .map(|content| json!({"type": "resource", "resource": content}))
                    .collect(),
                Some(_) => {
                    problems.push("`contents` is not a list".to_owned());
                    Vec::new()
                }
                None => {
                    problems.push("the answer has no `contents`".to_owned());
                    Vec::new()
                }
            },
            FeatureRequest::Prompt { .. } => {
                let read = PromptMessages::from_result(&result);
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
        let (response_pretty, _) =
            crate::deep_json::pretty_prefix(&response.message().root(), 256 * 1024);
        Self {
            id,
            server,
            request,
            duration,
            description,
            blocks,
            messages,
            problems,
            media,
            pretty_texts,
            response_pretty,
            result_text: response.member().raw().to_owned(),
            doc,
            block_ids,
        }
    }

    pub fn content(&self) -> super::ContentBlocks<'_> {
        super::ContentBlocks {
            key: self.id,
            server: self.server,
            name: self.request.name(),
            blocks: &self.blocks,
            media: &self.media,
            pretty_texts: &self.pretty_texts,
            raw: (&self.doc, &self.block_ids),
        }
    }
}

#[cfg(test)]
mod tests {
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
        let request = FeatureRequest::Prompt {
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
        let request = FeatureRequest::Read {
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
