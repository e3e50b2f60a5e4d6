//! PNG encoding of the demo's chart, by the `image` crate.

use std::io::Cursor;

/// Encodes 8-bit RGB pixels (`width * height * 3` bytes, row by row) as a PNG file; `None`
/// when the pixel count does not match the size.
pub fn encode_rgb(width: u32, height: u32, pixels: Vec<u8>) -> Option<Vec<u8>> {
    let image = image::RgbImage::from_raw(width, height, pixels)?;
    let mut png = Cursor::new(Vec::new());
    image.write_to(&mut png, image::ImageFormat::Png).ok()?;
    Some(png.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_the_decoder() {
        let pixels: Vec<u8> = (0..4 * 3 * 3).map(|i| (i * 7) as u8).collect();
        let png = encode_rgb(4, 3, pixels.clone()).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let decoded = image::load_from_memory(&png).unwrap().into_rgb8();
        assert_eq!(decoded.dimensions(), (4, 3));
        assert_eq!(decoded.into_raw(), pixels);
        assert_eq!(encode_rgb(4, 3, vec![0; 5]), None);
    }
}
