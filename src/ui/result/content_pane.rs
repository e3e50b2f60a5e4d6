//! The left pane: the content blocks a model reads, in order. A prompt's messages and a
//! resource's contents are drawn by the same code.

use toolscope_core::json_doc::JsonRef;

use crate::ui::{
    actions::Action,
    image_textures,
    linked_text::{self, Needle},
    widgets,
};
use std::collections::HashMap;

use crate::ui::json_tree::JsonTreeState;
use crate::workbench::{CallId, CallRecord, ContentBlocks, call_record::DecodedMedia};
use toolscope_core::analysis::{BlockKind, ContentBlockView, EmbeddedBody};

/// Longest text shown in full inline; longer text is cut with a note (copy gives all).
const MAX_INLINE_TEXT: usize = 20_000;

/// How the content pane's text blocks link with the tree and render Markdown.
pub struct TextLinks<'a> {
    /// The value selected in the structuredContent tree, highlighted in the text.
    pub needle: Option<&'a Needle>,
    /// A word double-clicked in a text block, to be found in the tree.
    pub find_in_tree: &'a mut Option<String>,
    /// Markdown rendered on request ("Rendered").
    pub markdown: &'a mut egui_commonmark::CommonMarkCache,
    /// The trees of JSON texts shown as one ("Tree"), where the blocks offer it.
    pub trees: Option<&'a mut HashMap<(CallId, usize), JsonTreeState>>,
}

pub fn ui(ui: &mut egui::Ui, record: &CallRecord, links: TextLinks<'_>, actions: &mut Vec<Action>) {
    let content = record.content();
    if content.blocks.is_empty() {
        ui.weak("No content blocks: the model gets nothing to read from this result");
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("content_scroll")
        .auto_shrink(false)
        .show(ui, |ui| {
            blocks_ui(ui, &content, 0..content.blocks.len(), links, actions);
        });
}

/// Draws the blocks in `range`, each in its frame.
pub fn blocks_ui(
    ui: &mut egui::Ui,
    content: &ContentBlocks<'_>,
    range: std::ops::Range<usize>,
    links: TextLinks<'_>,
    actions: &mut Vec<Action>,
) {
    let TextLinks {
        needle,
        find_in_tree,
        markdown,
        mut trees,
    } = links;
    for block in content.blocks.get(range).unwrap_or_default() {
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.set_width(ui.available_width());
            let links = TextLinks {
                needle,
                find_in_tree: &mut *find_in_tree,
                markdown: &mut *markdown,
                trees: trees.as_deref_mut(),
            };
            block_ui(ui, content, block, links, actions);
        });
    }
}

fn block_ui(
    ui: &mut egui::Ui,
    record: &ContentBlocks<'_>,
    block: &ContentBlockView,
    links: TextLinks<'_>,
    actions: &mut Vec<Action>,
) {
    ui.horizontal_wrapped(|ui| {
        ui.strong(format!("[{}] {}", block.index, block.kind.label()));
        if let Some(annotations) = &block.annotations {
            for audience in &annotations.audience {
                widgets::chip(ui, &format!("for {audience}"), ui.visuals().hyperlink_color);
            }
            if let Some(priority) = annotations.priority {
                widgets::chip(
                    ui,
                    &format!("priority {priority}"),
                    ui.visuals().hyperlink_color,
                );
            }
            if let Some(modified) = &annotations.last_modified {
                widgets::chip(
                    ui,
                    &format!("modified {modified}"),
                    ui.visuals().weak_text_color(),
                );
            }
        }
    });
    match &block.kind {
        BlockKind::Text { text: Some(text) } => text_block_ui(ui, record, block.index, text, links),
        BlockKind::Image { .. } => image_ui(ui, record, block, actions),
        BlockKind::Audio { .. } => media_ui(ui, record, block, "audio", actions),
        BlockKind::ResourceLink {
            uri,
            name,
            title,
            description,
            mime_type,
            size,
        } => {
            egui::Grid::new(("link", block.index))
                .num_columns(2)
                .show(ui, |ui| {
                    for (label, value) in [
                        ("uri", uri.clone()),
                        ("name", name.clone()),
                        ("title", title.clone()),
                        ("mimeType", mime_type.clone()),
                        ("size", size.map(|s| format!("{s} bytes"))),
                        ("description", description.clone()),
                    ] {
                        if let Some(value) = value {
                            ui.weak(label);
                            ui.add(egui::Label::new(value).selectable(true).wrap());
                            ui.end_row();
                        }
                    }
                });
            if let Some(uri) = uri
                && ui
                    .button("Open")
                    .on_hover_text("Read it from the server (resources/read) and show it")
                    .clicked()
            {
                actions.push(
                    crate::workbench::ResourceAction::Open {
                        server: record.server,
                        uri: uri.clone(),
                    }
                    .into(),
                );
            }
        }
        BlockKind::Resource {
            uri,
            mime_type,
            body,
        } => {
            ui.add(
                egui::Label::new(format!(
                    "{} ({})",
                    uri.as_deref().unwrap_or("(no uri)"),
                    mime_type.as_deref().unwrap_or("no mimeType")
                ))
                .selectable(true)
                .wrap(),
            );
            match body {
                EmbeddedBody::Text { text } => text_block_ui(ui, record, block.index, text, links),
                EmbeddedBody::Blob { .. }
                    if record
                        .media_of(block.index)
                        .is_some_and(|media| media.image.is_some()) =>
                {
                    image_ui(ui, record, block, actions);
                }
                EmbeddedBody::Blob { .. } => media_ui(ui, record, block, "blob", actions),
                EmbeddedBody::Missing => {
                    ui.weak("no text or blob");
                }
            }
        }
        BlockKind::Text { text: None } | BlockKind::Unknown { .. } => {
            ui.label(block.kind.describe());
            raw_ui(ui, record.raw_block(block.index));
        }
    }
    for problem in &block.problems {
        widgets::warning(ui, problem);
    }
}

/// A text (a text block's, an embedded resource's) with its views: as sent, pretty JSON, or
/// rendered Markdown.
fn text_block_ui(
    ui: &mut egui::Ui,
    record: &ContentBlocks<'_>,
    index: usize,
    text: &str,
    links: TextLinks<'_>,
) {
    let pretty = record.pretty_texts.get(&index).map(String::as_str);
    let doc = record.json_docs.and_then(|docs| docs.get(&index));
    let tree = doc.filter(|_| links.trees.is_some());
    let view = text_view_ui(ui, index, text, (pretty.is_some(), tree.is_some()));
    if view == TextView::Rendered {
        markdown_ui(ui, (record.key, index), text, links.markdown);
    } else if let (TextView::Tree, Some(doc), Some(trees)) = (view, tree, links.trees) {
        let state = trees.entry((record.key, index)).or_default();
        // A tree of its own height inside the scrolling pane.
        let size = egui::vec2(ui.available_width(), TREE_HEIGHT);
        ui.allocate_ui(size, |ui| {
            ui.set_min_height(TREE_HEIGHT);
            ui.push_id((record.key, index), |ui| {
                let _ = crate::ui::json_tree::json_tree_ui(
                    ui,
                    "text_tree",
                    record.key,
                    doc.root(),
                    state,
                );
            });
        });
    } else {
        let shown = pretty.filter(|_| view == TextView::PrettyJson);
        if let Some(word) = text_ui(ui, (text, pretty.is_some()), shown, links.needle) {
            *links.find_in_tree = Some(word);
        }
    }
}

/// How a text block is shown: as the model reads it (the default), pretty when it is JSON,
/// or rendered when it is Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextView {
    AsSent,
    PrettyJson,
    Rendered,
    /// JSON as a tree (a resource's JSON contents).
    Tree,
}

/// How tall a text's JSON tree is drawn.
const TREE_HEIGHT: f32 = 320.0;

/// The switch between the views a text block has (none when As sent is all), remembered per
/// block.
fn text_view_ui(
    ui: &mut egui::Ui,
    index: usize,
    text: &str,
    (json, tree): (bool, bool),
) -> TextView {
    let markdown = !json && looks_like_markdown(text);
    if !json && !markdown {
        return TextView::AsSent;
    }
    let id = ui.make_persistent_id(("text_view", index));
    let mut view = ui.data(|data| data.get_temp::<TextView>(id).unwrap_or(TextView::AsSent));
    ui.horizontal(|ui| {
        ui.selectable_value(&mut view, TextView::AsSent, "As sent");
        if json {
            ui.selectable_value(&mut view, TextView::PrettyJson, "Pretty JSON");
            if tree {
                ui.selectable_value(&mut view, TextView::Tree, "Tree");
            }
        } else {
            ui.selectable_value(&mut view, TextView::Rendered, "Rendered")
                .on_hover_text("The Markdown as a client that renders it would show it");
        }
    });
    ui.data_mut(|data| data.insert_temp(id, view));
    view
}

/// Text a Markdown renderer would change: a table, a heading, a list, a code fence, emphasis.
fn looks_like_markdown(text: &str) -> bool {
    text.lines().take(200).any(|line| {
        let line = line.trim_start();
        (line.starts_with('|') && line.contains("---"))
            || line.starts_with("# ")
            || line.starts_with("## ")
            || line.starts_with("```")
            || line.starts_with("- ")
            || line.starts_with("* ")
            || line.contains("**")
    })
}

/// A text block rendered as Markdown (at most [`widgets::capped_markdown::MAX_MARKDOWN_BYTES`]).
fn markdown_ui(
    ui: &mut egui::Ui,
    id: (CallId, usize),
    text: &str,
    cache: &mut egui_commonmark::CommonMarkCache,
) {
    widgets::capped_markdown::ui(ui, cache, id, text);
}

/// Draws a text block (`json`: it is JSON, drawn as data), `pretty` (the JSON made pretty) in
/// its place when given; returns the word the user double-clicked, if any.
fn text_ui(
    ui: &mut egui::Ui,
    (text, json): (&str, bool),
    pretty: Option<&str>,
    needle: Option<&Needle>,
) -> Option<String> {
    let shown = pretty.unwrap_or(text);
    let visible = toolscope_core::text_util::cut_at_char_boundary(shown, MAX_INLINE_TEXT);
    let end = visible.len();
    // The data is what the user came for: full contrast, a step above the chrome.
    let font = if json {
        egui::TextStyle::Monospace.resolve(ui.style())
    } else {
        egui::FontId::proportional(15.0)
    };
    let color = ui.visuals().strong_text_color();
    let ranges = needle
        .map(|needle| needle.find_in(visible))
        .unwrap_or_default();
    let job = linked_text::highlighted(
        visible,
        &ranges,
        font,
        color,
        ui.visuals().selection.bg_fill,
    );
    // Laid out by hand, as egui's Label does, to know which word a double click hit.
    let (galley_pos, galley, response) = egui::Label::new(job)
        .selectable(true)
        .wrap()
        .layout_in_ui(ui);
    response.widget_info(|| {
        egui::WidgetInfo::labeled(egui::Role::Label, ui.is_enabled(), galley.text())
    });
    if ui.is_rect_visible(response.rect) {
        egui::text_selection::LabelSelectionState::label_text_selection(
            ui,
            &response,
            galley_pos,
            galley.clone(),
            color,
            egui::Stroke::NONE,
        );
    }
    let clicked_word = response
        .double_clicked()
        .then(|| response.interact_pointer_pos())
        .flatten()
        .and_then(|pointer| {
            let cursor = galley.cursor_from_pos(pointer - galley_pos);
            linked_text::word_at(galley.text(), cursor.index.0)
        });
    let hover = if ranges.is_empty() {
        "Double-click a word to find it in the structuredContent tree"
    } else {
        "Highlighted: the value selected in the structuredContent tree. Double-click a word to \
         find it there"
    };
    response.on_hover_text(hover);
    if end < shown.len() {
        ui.horizontal(|ui| {
            ui.weak(format!("… {} more bytes", shown.len() - end));
            if ui.button("Copy all").clicked() {
                ui.ctx().copy_text(shown.to_owned());
            }
        });
    }
    clicked_word
}

fn image_ui(
    ui: &mut egui::Ui,
    record: &ContentBlocks<'_>,
    block: &ContentBlockView,
    actions: &mut Vec<Action>,
) {
    let media = record.media_of(block.index);
    ui.label(block.kind.describe());
    let Some(media) = media else {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            "The image data could not be decoded",
        );
        return;
    };
    match &media.image {
        Some(Ok(image)) => {
            let texture = image_textures::texture(ui.ctx(), (record.key, block.index), image);
            let size = egui::vec2(image.width as f32, image.height as f32);
            let bounds = egui::vec2(ui.available_width().min(480.0), 360.0);
            let (shown, stretched) = visible_size(size, bounds);
            ui.add(
                egui::Image::from_texture(egui::load::SizedTexture::new(texture.id(), size))
                    .fit_to_exact_size(shown)
                    .maintain_aspect_ratio(!stretched)
                    .alt_text(format!("image block {} ({})", block.index, media.mime_type)),
            );
            if stretched {
                ui.weak(format!(
                    "A {}×{} image, too thin to see at its shape: stretched to {:.0}×{:.0} \
                     points (Save… keeps it as it is)",
                    image.original_width, image.original_height, shown.x, shown.y
                ));
            } else if image.was_scaled() {
                ui.weak(format!(
                    "Shown scaled from {}×{} to {}×{}",
                    image.original_width, image.original_height, image.width, image.height
                ));
            }
        }
        Some(Err(problem)) => {
            ui.colored_label(ui.visuals().warn_fg_color, problem.to_string());
        }
        None => {}
    }
    sniffed_ui(ui, media);
    save_button(ui, record, block.index, &media.mime_type, actions);
}

/// What the bytes are by their signature, where that is not what the MIME type says.
fn sniffed_ui(ui: &mut egui::Ui, media: &DecodedMedia) {
    match media.sniffed {
        Some(sniffed) if sniffed != media.mime_type => {
            widgets::warning(
                ui,
                &format!(
                    "The bytes are {sniffed} by their signature, though the mimeType says {}",
                    media.mime_type
                ),
            );
        }
        _ => {}
    }
}

/// Thinner than this (in points), an image is stretched to it so it can be seen.
const MIN_VISIBLE_SIDE: f32 = 8.0;

/// The size an image is drawn at: within `bounds`, its shape kept, unless fitting it made a
/// side thinner than [`MIN_VISIBLE_SIDE`] (a 9000×2 strip): then that side is stretched
/// (`true`). An image small to begin with is drawn at its own size.
fn visible_size(size: egui::Vec2, bounds: egui::Vec2) -> (egui::Vec2, bool) {
    let scale = (bounds.x / size.x).min(bounds.y / size.y).min(1.0);
    let fitted = size * scale;
    if scale >= 1.0 {
        return (fitted, false);
    }
    let shown = fitted.max(egui::Vec2::splat(MIN_VISIBLE_SIDE).min(bounds));
    (shown, shown != fitted)
}

fn media_ui(
    ui: &mut egui::Ui,
    record: &ContentBlocks<'_>,
    block: &ContentBlockView,
    what: &str,
    actions: &mut Vec<Action>,
) {
    ui.label(block.kind.describe());
    match record.media_of(block.index) {
        Some(media) => {
            sniffed_ui(ui, media);
            blob_text_ui(ui, media);
            save_button(ui, record, block.index, &media.mime_type, actions);
        }
        None => {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("The {what} data could not be decoded"),
            );
        }
    }
}

/// A blob whose bytes are text (a `text/…` type, or UTF-8 without control characters and no
/// known binary signature): the text it decodes to, cut to what a glance needs.
fn blob_text_ui(ui: &mut egui::Ui, media: &DecodedMedia) {
    let Ok(text) = std::str::from_utf8(&media.bytes) else {
        return;
    };
    let textual = media.mime_type.starts_with("text/")
        || (media.sniffed.is_none()
            && !text
                .chars()
                .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')));
    if !textual || text.is_empty() {
        return;
    }
    ui.weak("Decoded as text:");
    let shown = toolscope_core::text_util::cut_at_char_boundary(text, MAX_INLINE_TEXT);
    ui.add(
        egui::Label::new(egui::RichText::new(shown).monospace())
            .selectable(true)
            .wrap(),
    );
}

fn save_button(
    ui: &mut egui::Ui,
    record: &ContentBlocks<'_>,
    index: usize,
    mime_type: &str,
    actions: &mut Vec<Action>,
) {
    let Some(media) = record.media_of(index) else {
        return;
    };
    if ui.button("Save…").clicked() {
        let extension = mime_type.rsplit('/').next().unwrap_or("bin");
        actions.push(
            crate::ui::files::FileRequest::media(
                media.bytes.clone(),
                format!("{}-block-{index}.{extension}", record.name),
            )
            .into(),
        );
    }
}

fn raw_ui(ui: &mut egui::Ui, raw: Option<JsonRef<'_>>) {
    if let Some(raw) = raw {
        let mut text = Vec::new();
        let _ = toolscope_core::deep_json::serialize_to_writer(&raw, &mut text, true);
        let text = String::from_utf8_lossy(&text);
        ui.add(
            egui::Label::new(egui::RichText::new(text).monospace())
                .selectable(true)
                .wrap(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::visible_size;

    #[test]
    fn a_thin_strip_is_stretched_to_be_seen_and_a_small_image_is_not() {
        let bounds = egui::vec2(480.0, 360.0);
        let (shown, stretched) = visible_size(egui::vec2(4096.0, 1.0), bounds);
        assert_eq!((shown, stretched), (egui::vec2(480.0, 8.0), true));
        let (shown, stretched) = visible_size(egui::vec2(3.0, 2.0), bounds);
        assert_eq!((shown, stretched), (egui::vec2(3.0, 2.0), false));
        let (shown, stretched) = visible_size(egui::vec2(960.0, 720.0), bounds);
        assert_eq!((shown, stretched), (egui::vec2(480.0, 360.0), false));
    }
}
