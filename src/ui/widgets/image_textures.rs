//! Textures of prepared images, uploaded once per call record and block, not per frame.

use std::collections::HashMap;

use crate::workbench::{CallId, media::PreparedImage};

/// Textures kept at most; the least recently drawn goes first (each may be 64 MB of GPU).
const MAX_TEXTURES: usize = 16;

/// A call and the index of its image block.
pub type ImageKey = (CallId, usize);

#[derive(Clone, Default)]
struct Cache {
    textures: HashMap<ImageKey, (egui::TextureHandle, u64)>,
}

/// The texture of `image`, uploaded the first time it is drawn.
pub fn texture(ctx: &egui::Context, key: ImageKey, image: &PreparedImage) -> egui::TextureHandle {
    let frame = ctx.cumulative_frame_nr();
    let cache_id = egui::Id::unique("toolscope_image_textures");
    if let Some(handle) = ctx.data_mut(|data| {
        let cache = data.get_temp_mut_or_default::<Cache>(cache_id);
        cache.textures.get_mut(&key).map(|(handle, used)| {
            *used = frame;
            handle.clone()
        })
    }) {
        return handle;
    }
    let pixels = egui::ColorImage::from_rgba_unmultiplied(
        [image.width as usize, image.height as usize],
        &image.rgba,
    );
    let handle = ctx.load_texture(
        format!("call-{}-block-{}", key.0, key.1),
        pixels,
        egui::TextureOptions::LINEAR,
    );
    ctx.data_mut(|data| {
        let cache = data.get_temp_mut_or_default::<Cache>(cache_id);
        while cache.textures.len() >= MAX_TEXTURES {
            let oldest = cache
                .textures
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(key, _)| *key);
            match oldest {
                Some(oldest) => cache.textures.remove(&oldest),
                None => break,
            };
        }
        cache.textures.insert(key, (handle.clone(), frame));
    });
    handle
}
