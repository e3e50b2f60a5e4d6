//! Content blocks as the window draws them, whoever sent them: a tool result's `content`, a
//! prompt's messages, a resource's contents. What each needs is prepared once, off the UI
//! thread: pretty JSON of texts that hold JSON, decoded media with images made drawable.

use std::{collections::HashMap, sync::Arc};

use serde_json::Value;

use super::{
    CallId, ServerId,
    call_record::DecodedMedia,
    media::{self},
};
use toolscope_core::{
    analysis::{self, BlockKind, ContentBlockView, EmbeddedBody},
    json_doc::{JsonDoc, JsonRef},
};

/// Blocks and what was prepared for them, borrowed from the record that holds them.
pub struct ContentBlocks<'a> {
    /// Whose blocks (textures and remembered views are keyed by it).
    pub key: CallId,
    /// The server a resource link in them is read from.
    pub server: ServerId,
    /// What a saved block's file name starts with (the tool, prompt or resource).
    pub name: &'a str,
    pub blocks: &'a [ContentBlockView],
    pub media: &'a [DecodedMedia],
    /// Texts that hold a JSON object or array, pretty-printed, by block index.
    pub pretty_texts: &'a HashMap<usize, String>,
    /// The document the blocks were read from and where each block is in it.
    pub raw: (&'a JsonDoc, &'a [u32]),
    /// Texts that hold JSON, parsed, by block index, where they may be shown as a tree (a
    /// resource's JSON contents; a tool result has its structuredContent tree instead).
    pub json_docs: Option<&'a HashMap<usize, Arc<JsonDoc>>>,
}

impl<'a> ContentBlocks<'a> {
    /// A block's JSON as sent.
    pub fn raw_block(&self, index: usize) -> Option<JsonRef<'a>> {
        let (doc, ids) = self.raw;
        doc.by_id(*ids.get(index)?)
    }

    pub fn media_of(&self, index: usize) -> Option<&'a DecodedMedia> {
        self.media.iter().find(|media| media.index == index)
    }
}

/// Text blocks no larger than this get a pretty-JSON view prepared.
const MAX_PRETTY_TEXT: usize = 4 * 1024 * 1024;

/// The text of a block that may be shown as pretty JSON or Markdown: a text block's, or an
/// embedded resource's.
pub fn block_text(block: &ContentBlockView) -> Option<&str> {
    match &block.kind {
        BlockKind::Text { text } => text.as_deref(),
        BlockKind::Resource {
            body: EmbeddedBody::Text { text },
            ..
        } => Some(text),
        _ => None,
    }
}

/// Pretty-prints the texts that are a JSON object or array, once, here.
pub fn pretty_json_texts(blocks: &[ContentBlockView]) -> HashMap<usize, String> {
    blocks
        .iter()
        .filter_map(|block| {
            let text = block_text(block)?;
            if text.len() > MAX_PRETTY_TEXT {
                return None;
            }
            let value: Value = serde_json::from_str(text).ok()?;
            if !(value.is_object() || value.is_array()) {
                return None;
            }
            Some((block.index, serde_json::to_string_pretty(&value).ok()?))
        })
        .collect()
}

/// Decodes every image, audio and blob in the blocks (found in `doc` at `ids`); images, and
/// blobs that are images by their MIME type or by their bytes, are made drawable.
pub fn decode_media(
    blocks: &[ContentBlockView],
    (doc, ids): (&JsonDoc, &[u32]),
    max_image_side: u32,
) -> Vec<DecodedMedia> {
    let mut decoded = Vec::new();
    for block in blocks {
        let Some(raw) = ids.get(block.index).and_then(|&id| doc.by_id(id)) else {
            continue;
        };
        let (field, data, mime_type) = match &block.kind {
            BlockKind::Image { mime_type, .. } | BlockKind::Audio { mime_type, .. } => {
                ("data", raw.get("data"), mime_type.clone())
            }
            BlockKind::Resource {
                body: EmbeddedBody::Blob { .. },
                mime_type,
                ..
            } => (
                "blob",
                raw.get("resource").and_then(|r| r.get("blob")),
                mime_type.clone(),
            ),
            _ => continue,
        };
        let Some(bytes) = data
            .and_then(JsonRef::as_str)
            .and_then(|data| analysis::decode_base64(field, &data).bytes)
        else {
            continue;
        };
        let sniffed = media::sniff(&bytes);
        let image_blob = matches!(block.kind, BlockKind::Resource { .. })
            && (mime_type
                .as_deref()
                .is_some_and(|mime| mime.starts_with("image/"))
                || sniffed.is_some_and(|kind| kind.starts_with("image/")));
        let image = (matches!(block.kind, BlockKind::Image { .. }) || image_blob)
            .then(|| media::prepare_image(&bytes, max_image_side));
        decoded.push(DecodedMedia {
            index: block.index,
            mime_type: mime_type.unwrap_or_else(|| "application/octet-stream".to_owned()),
            sniffed,
            bytes: bytes.into(),
            image,
        });
    }
    decoded
}

/// The JSON documents of the texts `pretty_texts` found to hold JSON (for a tree view).
pub fn json_documents(
    blocks: &[ContentBlockView],
    pretty_texts: &HashMap<usize, String>,
) -> HashMap<usize, Arc<JsonDoc>> {
    blocks
        .iter()
        .filter(|block| pretty_texts.contains_key(&block.index))
        .filter_map(|block| {
            let doc = JsonDoc::parse(block_text(block)?.to_owned()).ok()?;
            Some((block.index, Arc::new(doc)))
        })
        .collect()
}

/// Blocks kept as a document of their own (a prompt's messages, a resource's contents):
/// the document and where each block is in it.
pub fn blocks_document(blocks: &[Value]) -> (Arc<JsonDoc>, Vec<u32>) {
    // Written block by block: a copy of the list would clone each block's whole depth.
    let mut text = String::from("[");
    for (index, block) in blocks.iter().enumerate() {
        if index > 0 {
            text.push(',');
        }
        text.push_str(&toolscope_core::deep_json::to_string(block));
    }
    text.push(']');
    // Our own serialization parses; were it ever refused, the blocks just have no raw JSON.
    let doc = JsonDoc::parse(text).unwrap_or_else(|_| JsonDoc::null());
    let ids = doc.root().items().map(JsonRef::id).collect();
    (Arc::new(doc), ids)
}
