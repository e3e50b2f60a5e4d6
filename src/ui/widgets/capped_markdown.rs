//! Markdown from text of any size: at most [`MAX_MARKDOWN_BYTES`] of it is parsed and laid out
//! each frame (a tool's 1 MB description rendered whole took 0.6 s a frame and 100 MB), the rest
//! is said in bytes, with Copy for all of it.

use toolscope_core::text_util::cut_at_char_boundary;

/// How much Markdown is rendered; a description or a text block is rarely longer.
pub const MAX_MARKDOWN_BYTES: usize = 20_000;

/// The part of `text` rendered: up to the last line break within the cap (a cut mid-line could
/// end inside emphasis or a table row), else the cap at a character boundary.
pub fn rendered_part(text: &str) -> &str {
    if text.len() <= MAX_MARKDOWN_BYTES {
        return text;
    }
    let capped = cut_at_char_boundary(text, MAX_MARKDOWN_BYTES);
    match capped.rfind('\n') {
        Some(line_end) if line_end > 0 => &capped[..line_end],
        _ => capped,
    }
}

/// Draws `text` as Markdown, cut at [`MAX_MARKDOWN_BYTES`] with a note when it is longer.
pub fn ui(
    ui: &mut egui::Ui,
    cache: &mut egui_commonmark::CommonMarkCache,
    id_salt: impl egui::AsIdSalt,
    text: &str,
) {
    let shown = rendered_part(text);
    ui.push_id(id_salt, |ui| {
        egui_commonmark::CommonMarkViewer::new().show(ui, cache, shown);
    });
    if shown.len() < text.len() {
        ui.horizontal_wrapped(|ui| {
            ui.weak(format!(
                "… {} more bytes not rendered",
                text.len() - shown.len()
            ));
            if ui.button("Copy all").clicked() {
                ui.ctx().copy_text(text.to_owned());
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_rendered_whole_and_long_text_cut_at_a_line() {
        assert_eq!(rendered_part("# Title\n\nbody"), "# Title\n\nbody");
        let long = "- an item of a long list\n".repeat(10_000);
        let shown = rendered_part(&long);
        assert!(shown.len() <= MAX_MARKDOWN_BYTES);
        assert!(shown.len() > MAX_MARKDOWN_BYTES - 30, "{}", shown.len());
        assert!(shown.ends_with("list"), "cut where a line ends");
        let one_line = "é".repeat(MAX_MARKDOWN_BYTES);
        let shown = rendered_part(&one_line);
        assert!(shown.len() <= MAX_MARKDOWN_BYTES && !shown.is_empty());
    }
}
