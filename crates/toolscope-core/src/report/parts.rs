//! What both report formats show of one answered call, prepared once: the text blocks (cut
//! past a size), images ready to embed, the structuredContent as pretty JSON (cut past a
//! size) and the analysis as sentences.

use base64::Engine as _;

use crate::{
    analysis::{BlockKind, CallAnalysis, EmbeddedBody, decode_base64},
    session::RawResponse,
};

/// How much of one text block a report shows.
pub(super) const MAX_TEXT_CHARS: usize = 64 * 1024;
/// How much of structuredContent a report shows (pretty-printed).
pub(super) const MAX_STRUCTURED_BYTES: usize = 256 * 1024;
/// structuredContent larger than this starts collapsed in HTML.
pub(super) const COLLAPSED_BEYOND_BYTES: usize = 4 * 1024;
/// Images up to this size (decoded) are embedded in HTML.
const MAX_EMBEDDED_IMAGE_BYTES: usize = 8 * 1024 * 1024;

pub(super) enum BlockShown {
    Text {
        text: String,
        /// Bytes left out past [`MAX_TEXT_CHARS`].
        cut_bytes: usize,
    },
    Image {
        description: String,
        /// `data:image/…;base64,…` for a PNG, JPEG, GIF or WebP that really is one.
        data_url: Option<String>,
    },
    Other {
        description: String,
    },
}

pub(super) struct StructuredShown {
    pub pretty: String,
    /// The pretty text was cut at [`MAX_STRUCTURED_BYTES`].
    pub cut: bool,
    /// Its size as the server sent it.
    pub bytes: usize,
}

pub(super) struct AnswerShown {
    pub blocks: Vec<BlockShown>,
    pub structured: Option<StructuredShown>,
    pub is_rpc_error: bool,
    /// The analysis, one sentence each: outcome, contract, wrapping, text mirror, notes.
    pub verdicts: Vec<String>,
}

/// `text` cut at `max` bytes (on a character boundary), and how many bytes were left out.
pub(super) fn cut_text(text: &str, max: usize) -> (String, usize) {
    if text.len() <= max {
        return (text.to_owned(), 0);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (text[..end].to_owned(), text.len() - end)
}

/// The image's real type from its first bytes; only these are embedded.
fn sniffed_image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

fn image_data_url(response: &RawResponse, index: usize) -> Option<String> {
    let data = response
        .result_ref()?
        .get("content")?
        .at_index(index)?
        .get("data")?
        .as_str()?;
    let bytes = decode_base64("data", &data).bytes?;
    if bytes.len() > MAX_EMBEDDED_IMAGE_BYTES {
        return None;
    }
    let mime = sniffed_image_type(&bytes)?;
    // Encoded again, strictly: nothing but base64 reaches the page.
    Some(format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    ))
}

pub(super) fn answer_shown(response: &RawResponse, analysis: &CallAnalysis) -> AnswerShown {
    let blocks = analysis
        .content
        .iter()
        .map(|block| match &block.kind {
            BlockKind::Text { text: Some(text) } => {
                let (text, cut_bytes) = cut_text(text, MAX_TEXT_CHARS);
                BlockShown::Text { text, cut_bytes }
            }
            BlockKind::Image { .. } => BlockShown::Image {
                description: block.describe(),
                data_url: image_data_url(response, block.index),
            },
            BlockKind::Resource {
                uri,
                body: EmbeddedBody::Text { text },
                ..
            } => {
                let (text, cut_bytes) = cut_text(text, MAX_TEXT_CHARS);
                BlockShown::Text {
                    text: format!(
                        "[embedded resource {}]\n{text}",
                        uri.as_deref().unwrap_or("(no uri)")
                    ),
                    cut_bytes,
                }
            }
            _ => BlockShown::Other {
                description: block.describe(),
            },
        })
        .collect();
    let structured = response
        .result_ref()
        .and_then(|result| result.get("structuredContent"))
        .map(|value| {
            let (pretty, cut) = crate::deep_json::pretty_prefix(&value, MAX_STRUCTURED_BYTES);
            StructuredShown {
                pretty,
                cut,
                bytes: value.raw().len(),
            }
        });
    let mut verdicts = vec![analysis.error_kind.describe(), analysis.contract.describe()];
    if let Some(wrapping) = &analysis.wrapping {
        verdicts.push(wrapping.describe());
    }
    verdicts.push(analysis.text_mirror.describe());
    if analysis.structured.is_flagged() {
        verdicts.push(analysis.structured.describe());
    }
    verdicts.extend(analysis.notes.iter().cloned());
    AnswerShown {
        blocks,
        structured,
        is_rpc_error: response.is_rpc_error(),
        verdicts,
    }
}

/// "12 KB", "1.4 MB".
pub(super) fn size_words(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} bytes")
    } else if bytes < 1024 * 1024 {
        format!("{} KB", bytes / 1024)
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}
