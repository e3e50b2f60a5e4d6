//! Image blocks made drawable off the UI thread: decoded with limits, refused past a pixel
//! budget, and scaled down to what the GPU accepts. The window only uploads the RGBA.

use std::{io::Cursor, sync::Arc};

use image::{
    DynamicImage, ImageDecoder as _, ImageError, ImageReader, Limits, imageops::FilterType,
};

/// Largest side of a drawn image, whatever the GPU allows: a preview, not the original.
pub const MAX_DRAWN_SIDE: u32 = 4096;
/// Images with more pixels than this are not decoded at all (about 160 MB of RGBA).
pub const MAX_PIXELS: u64 = 40_000_000;
/// Widest or tallest image the decoder will even start on.
const MAX_DECODED_SIDE: u32 = 65_535;
/// What the decoder may allocate: the budget at 16-bit RGBA, plus room for its own buffers.
const MAX_DECODER_ALLOC: u64 = MAX_PIXELS * 8 + 64 * 1024 * 1024;

/// RGBA8 pixels ready for a texture, no larger than the side it was prepared for.
#[derive(Clone, PartialEq, Eq)]
pub struct PreparedImage {
    pub width: u32,
    pub height: u32,
    /// The size the image has in the original bytes.
    pub original_width: u32,
    pub original_height: u32,
    /// Unmultiplied RGBA, row by row (`width * height * 4` bytes).
    pub rgba: Arc<[u8]>,
}

impl PreparedImage {
    pub fn was_scaled(&self) -> bool {
        (self.width, self.height) != (self.original_width, self.original_height)
    }
}

impl std::fmt::Debug for PreparedImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PreparedImage({}×{} from {}×{})",
            self.width, self.height, self.original_width, self.original_height
        )
    }
}

/// Why an image block is not drawn. Saving the original bytes works in every case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageProblem {
    #[error("too large to draw ({width}×{height}), Save… still works")]
    TooLarge { width: u32, height: u32 },
    #[error(
        "not a PNG, JPEG, GIF or WebP image, so it cannot be drawn; Save… keeps the bytes as sent"
    )]
    UnknownFormat,
    #[error("the image cannot be drawn: {reason}; Save… keeps the bytes as sent")]
    Corrupt { reason: String },
}

/// What bytes are by their first bytes (a MIME type), for the formats a server sends most:
/// said beside the MIME type it declared, which may be missing or wrong.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    const SIGNATURES: [(&[u8], &str); 9] = [
        (b"\x89PNG\r\n\x1a\n", "image/png"),
        (b"\xff\xd8\xff", "image/jpeg"),
        (b"GIF87a", "image/gif"),
        (b"GIF89a", "image/gif"),
        (b"%PDF-", "application/pdf"),
        (b"PK\x03\x04", "application/zip"),
        (b"\x1f\x8b", "application/gzip"),
        (b"ID3", "audio/mpeg"),
        (b"OggS", "audio/ogg"),
    ];
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" {
        return match &bytes[8..12] {
            b"WEBP" => Some("image/webp"),
            b"WAVE" => Some("audio/wav"),
            _ => None,
        };
    }
    SIGNATURES
        .iter()
        .find(|(signature, _)| bytes.starts_with(signature))
        .map(|(_, mime)| *mime)
}

/// Decodes `bytes` for drawing. `max_side` is the GPU's texture limit (egui reports it as
/// `max_texture_side`); the result is never larger than that nor [`MAX_DRAWN_SIDE`], and keeps
/// the aspect ratio.
pub fn prepare_image(bytes: &[u8], max_side: u32) -> Result<PreparedImage, ImageProblem> {
    let max_side = max_side.clamp(1, MAX_DRAWN_SIDE);
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|error| corrupt(&error))?;
    if reader.format().is_none() {
        return Err(ImageProblem::UnknownFormat);
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DECODED_SIDE);
    limits.max_image_height = Some(MAX_DECODED_SIDE);
    limits.max_alloc = Some(MAX_DECODER_ALLOC);
    reader.limits(limits);
    // Only the header is read here: a decompression bomb is refused before any pixel.
    let decoder = reader
        .into_decoder()
        .map_err(|error| from_image_error(error, None))?;
    let (width, height) = decoder.dimensions();
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(ImageProblem::TooLarge { width, height });
    }
    let image = DynamicImage::from_decoder(decoder)
        .map_err(|error| from_image_error(error, Some((width, height))))?;
    let (drawn_width, drawn_height) = fit(width, height, max_side);
    let image = if (drawn_width, drawn_height) == (width, height) {
        image
    } else {
        image.resize_exact(drawn_width, drawn_height, FilterType::Triangle)
    };
    let rgba = image.into_rgba8();
    Ok(PreparedImage {
        width: drawn_width,
        height: drawn_height,
        original_width: width,
        original_height: height,
        rgba: rgba.into_raw().into(),
    })
}

/// The size within `max_side`×`max_side` with the same aspect ratio (never below 1 pixel).
fn fit(width: u32, height: u32, max_side: u32) -> (u32, u32) {
    let longest = width.max(height);
    if longest <= max_side || longest == 0 {
        return (width, height);
    }
    let scale = |side: u32| {
        let scaled =
            (u64::from(side) * u64::from(max_side) + u64::from(longest) / 2) / u64::from(longest);
        u32::try_from(scaled).unwrap_or(max_side).clamp(1, max_side)
    };
    (scale(width), scale(height))
}

fn from_image_error(error: ImageError, size: Option<(u32, u32)>) -> ImageProblem {
    match (error, size) {
        (ImageError::Limits(_), Some((width, height))) => ImageProblem::TooLarge { width, height },
        (ImageError::Limits(limit), None) => ImageProblem::Corrupt {
            reason: format!("it declares a size beyond what is decoded here ({limit})"),
        },
        (ImageError::Unsupported(unsupported), _) => ImageProblem::Corrupt {
            reason: format!("this kind of image is not supported ({unsupported})"),
        },
        (other, _) => corrupt(&other),
    }
}

fn corrupt(error: &dyn std::error::Error) -> ImageProblem {
    ImageProblem::Corrupt {
        reason: error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn bytes_are_sniffed_by_their_signature() {
        assert_eq!(sniff(&png(1, 1)), Some("image/png"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff(b"%PDF-1.7"), Some("application/pdf"));
        assert_eq!(sniff(b"hello"), None);
    }

    fn png(width: u32, height: u32) -> Vec<u8> {
        let pixels: Vec<u8> = (0..width * height)
            .flat_map(|i| [(i % 251) as u8, (i % 13) as u8 * 19, 200])
            .collect();
        let image = image::RgbImage::from_raw(width, height, pixels).unwrap();
        let mut out = Cursor::new(Vec::new());
        image.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    /// A valid PNG header (IHDR) claiming `width`×`height`, with a token IDAT: what a
    /// decompression bomb shows before its pixels.
    fn png_header_only(width: u32, height: u32) -> Vec<u8> {
        let mut out = png(1, 1);
        // IHDR data starts after the signature (8), length (4) and type (4).
        out[16..20].copy_from_slice(&width.to_be_bytes());
        out[20..24].copy_from_slice(&height.to_be_bytes());
        let crc = crc32(&out[12..29]);
        out[29..33].copy_from_slice(&crc.to_be_bytes());
        out
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xffff_ffff_u32;
        for &byte in bytes {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn a_wide_strip_is_scaled_to_the_texture_limit_keeping_its_aspect() {
        let image = prepare_image(&png(9000, 2), 8192).unwrap();
        assert_eq!((image.width, image.height), (4096, 1));
        assert_eq!((image.original_width, image.original_height), (9000, 2));
        assert_eq!(image.rgba.len(), 4096 * 4);
        assert!(image.was_scaled());
        // A smaller GPU limit wins over the preview cap.
        let image = prepare_image(&png(9000, 2), 2048).unwrap();
        assert_eq!((image.width, image.height), (2048, 1));
        let tall = prepare_image(&png(3, 5000), 4096).unwrap();
        assert_eq!((tall.width, tall.height), (2, 4096));
    }

    #[test]
    fn large_but_sane_images_are_kept_whole() {
        for (width, height) in [(1500, 1200), (2800, 2700)] {
            let image = prepare_image(&png(width, height), 8192).unwrap();
            assert_eq!((image.width, image.height), (width, height));
            assert!(!image.was_scaled());
            assert_eq!(image.rgba.len(), (width * height * 4) as usize);
        }
    }

    #[test]
    fn a_decompression_bomb_is_refused_from_its_header_quickly() {
        let started = Instant::now();
        let problem = prepare_image(&png_header_only(30_000, 30_000), 4096).unwrap_err();
        assert_eq!(
            problem,
            ImageProblem::TooLarge {
                width: 30_000,
                height: 30_000
            }
        );
        assert_eq!(
            problem.to_string(),
            "too large to draw (30000×30000), Save… still works"
        );
        assert!(started.elapsed() < Duration::from_secs(1));
        // Beyond what the decoder accepts at all.
        let problem = prepare_image(&png_header_only(100_000, 1), 4096).unwrap_err();
        assert!(matches!(problem, ImageProblem::Corrupt { .. }), "{problem}");
    }

    #[test]
    fn corrupt_and_unknown_data_say_why() {
        assert_eq!(
            prepare_image(b"hello, not an image", 4096),
            Err(ImageProblem::UnknownFormat)
        );
        let mut cut = png(64, 64);
        cut.truncate(cut.len() / 2);
        let problem = prepare_image(&cut, 4096).unwrap_err();
        assert!(matches!(problem, ImageProblem::Corrupt { .. }), "{problem}");
        assert!(
            problem
                .to_string()
                .starts_with("the image cannot be drawn: ")
        );
        // A claimed size the data does not hold.
        let problem = prepare_image(&png_header_only(3000, 3000), 4096).unwrap_err();
        assert!(matches!(problem, ImageProblem::Corrupt { .. }), "{problem}");
    }
}
