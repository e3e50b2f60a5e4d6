//! A resource opened from a result's `resource_link`: read from its server off the UI
//! thread, blobs decoded and images prepared there too, then shown until closed.

use std::sync::Arc;

use super::{
    ServerId,
    media::{ImageProblem, PreparedImage},
};
use toolscope_core::session::requests::resources::{ResourceBody, ResourceContent};

#[derive(Debug)]
pub struct OpenedResource {
    pub server: ServerId,
    pub uri: String,
    /// Bumped for each resource opened: the answer of one opened before is dropped.
    pub generation: u64,
    pub state: ResourceState,
}

#[derive(Debug)]
pub enum ResourceState {
    Reading,
    Read(Vec<ReadContent>),
    Failed(String),
}

/// One content, ready to draw.
#[derive(Debug)]
pub struct ReadContent {
    pub content: ResourceContent,
    /// A blob's bytes, decoded (for Save… and images).
    pub bytes: Option<Arc<[u8]>>,
    /// What is drawn of an image blob.
    pub image: Option<Result<PreparedImage, ImageProblem>>,
    /// What went wrong decoding the blob.
    pub problem: Option<String>,
}

impl ReadContent {
    /// Decodes a blob and prepares an image (a blocking thread's work).
    pub fn prepare(content: ResourceContent, max_image_side: u32) -> Self {
        let mut read = Self {
            content,
            bytes: None,
            image: None,
            problem: None,
        };
        if let ResourceBody::Blob { base64 } = &read.content.body {
            // The one base64 decoder: lenient, and it names a near-miss (line breaks, the
            // URL-safe alphabet) that strict decoders would refuse.
            let decoded = toolscope_core::analysis::decode_base64("blob", base64.trim());
            read.problem = decoded.problem;
            match decoded.bytes {
                Some(bytes) => {
                    let is_image = read
                        .content
                        .mime_type
                        .as_deref()
                        .is_some_and(|mime| mime.starts_with("image/"));
                    if is_image {
                        read.image = Some(super::media::prepare_image(&bytes, max_image_side));
                    }
                    read.bytes = Some(bytes.into());
                }
                None => {
                    // "blob is not valid base64 (…)"
                    let why = read.problem.take().unwrap_or_default();
                    read.problem = Some(format!("the {why}"));
                }
            }
        }
        read
    }
}
