//! Painting and interaction of the visible rows.
//!
//! A row is one click-sensing rect with painted text rather than several label
//! widgets: cheaper, and the whole row (not just the text) is clickable.

use std::ops::Range;

use egui::{
    Align2, FontId, Id, Pos2, Rect, Role, Sense, Shape, Stroke, StrokeKind, Ui, WidgetInfo, pos2,
    vec2,
};

use super::JsonTreeAction;
use super::index::{JsonIndex, KeyRef};
use super::preview::{copy_text, key_label, kind_color, scalar_preview, type_label};
use super::state::JsonTreeState;
use crate::ui::theme::icons;
use toolscope_core::deep_json::SHOWN_DEPTH;
use toolscope_core::json_doc::JsonRef;

/// Horizontal step per depth level.
const INDENT: f32 = 14.0;
/// Rows deeper than this are not indented further (they would leave the view): their level
/// is written before the key instead.
const MAX_INDENT_LEVELS: u32 = 32;
/// Width reserved for the expand/collapse triangle.
const ICON_WIDTH: f32 = 14.0;
/// Gap between the row's text parts.
const GAP: f32 = 8.0;

/// Read-only inputs of a frame's rows.
pub(super) struct RowCtx<'a> {
    pub(super) index: &'a JsonIndex,
    pub(super) value: JsonRef<'a>,
    pub(super) state: &'a JsonTreeState,
    pub(super) tree_id: Id,
    pub(super) row_height: f32,
    pub(super) font: FontId,
}

/// What the user did to the rows this frame; applied after drawing, since the
/// rows borrow the state immutably while they are drawn.
#[derive(Default)]
pub(super) struct RowEvents {
    pub(super) select: Option<u32>,
    pub(super) toggle: Option<u32>,
    pub(super) action: Option<JsonTreeAction>,
}

pub(super) fn draw_rows(ui: &mut Ui, rows: Range<usize>, cx: &RowCtx<'_>, events: &mut RowEvents) {
    let visible = &cx.state.visible;
    for row in rows {
        if let Some(&node) = visible.get(row) {
            draw_row(ui, node, cx, events);
        }
    }
}

fn draw_row(ui: &mut Ui, node: u32, cx: &RowCtx<'_>, events: &mut RowEvents) {
    let (_, rect) = ui.allocate_space(vec2(ui.available_width(), cx.row_height));
    if super::state::is_ghost(node) {
        draw_ghost_row(ui, rect, node, cx);
        return;
    }
    // Id from the node, not the row position, so a context menu stays attached while scrolling.
    let response = ui.interact(rect, cx.tree_id.with(("row", node)), Sense::CLICK);
    let Some(n) = cx.index.get(node).copied() else {
        return;
    };
    let key = key_label(cx.index, node);
    response.widget_info(|| WidgetInfo::labeled(Role::TreeItem, true, &key));

    let painter = ui.painter().with_clip_rect(rect.intersect(ui.clip_rect()));
    paint_background(&painter, ui.visuals(), rect, node, cx, response.hovered());
    let icon_left = rect.left() + 4.0 + n.depth.min(MAX_INDENT_LEVELS) as f32 * INDENT;
    let icon_rect =
        Rect::from_min_size(pos2(icon_left, rect.top()), vec2(ICON_WIDTH, rect.height()));
    let has_children = n.kind.is_container() && n.child_count > 0;
    if has_children {
        let open = cx.state.is_expanded(node);
        paint_triangle(
            &painter,
            icon_rect.center(),
            open,
            ui.visuals().text_color(),
        );
    }
    let end = paint_text(
        &painter,
        ui.visuals(),
        icon_rect.right() + 2.0,
        rect.center().y,
        (node, &key),
        cx,
    );
    let marks: Vec<&super::NodeMark> = cx.state.marks_of(node).collect();
    paint_marks(
        &painter,
        ui.visuals(),
        pos2(end + GAP * 2.0, rect.center().y),
        &marks,
        cx,
    );
    let response = if marks.is_empty() {
        response
    } else {
        let all: Vec<&str> = marks.iter().map(|mark| mark.text.as_str()).collect();
        response.on_hover_text(all.join("\n"))
    };

    if response.clicked() {
        let on_icon = response
            .interact_pointer_pos()
            .is_some_and(|p| p.x <= icon_rect.right());
        if on_icon && has_children {
            events.toggle = Some(node);
        } else {
            events.select = Some(node);
        }
    } else if response.secondary_clicked() {
        events.select = Some(node);
    }
    if response.double_clicked() && has_children {
        events.toggle = Some(node);
    }

    response.context_menu(|ui| context_menu(ui, node, cx, events));
}

/// The row's fill: selected, a search match, or hovered; the current match outlined.
fn paint_background(
    painter: &egui::Painter,
    visuals: &egui::Visuals,
    rect: Rect,
    node: u32,
    cx: &RowCtx<'_>,
    hovered: bool,
) {
    let selected = cx.state.selected == Some(node);
    if selected {
        painter.rect_filled(rect, 2.0, visuals.selection.bg_fill);
    } else if cx.state.is_match(node) {
        painter.rect_filled(rect, 2.0, visuals.warn_fg_color.gamma_multiply(0.25));
    } else if hovered {
        painter.rect_filled(rect, 2.0, visuals.widgets.hovered.weak_bg_fill);
    }
    if cx.state.current_match_node() == Some(node) {
        painter.rect_stroke(
            rect,
            2.0,
            Stroke::new(1.5, visuals.warn_fg_color),
            StrokeKind::Inside,
        );
    }
}

/// `key: value type` (or `key: type` for a container) from `x`; returns where it ends.
fn paint_text(
    painter: &egui::Painter,
    visuals: &egui::Visuals,
    x: f32,
    cy: f32,
    (node, key): (u32, &str),
    cx: &RowCtx<'_>,
) -> f32 {
    let Some(n) = cx.index.get(node).copied() else {
        return x;
    };
    let mut x = x;
    let key_color = match cx.index.key(node) {
        KeyRef::Name(_) => visuals.strong_text_color(),
        KeyRef::Index(_) | KeyRef::Root => visuals.weak_text_color(),
    };
    if n.depth > MAX_INDENT_LEVELS {
        x = painter
            .text(
                pos2(x, cy),
                Align2::LEFT_CENTER,
                format!("level {}", n.depth),
                cx.font.clone(),
                visuals.weak_text_color(),
            )
            .right()
            + GAP;
    }
    x = painter
        .text(
            pos2(x, cy),
            Align2::LEFT_CENTER,
            key,
            cx.font.clone(),
            key_color,
        )
        .right();
    x = painter
        .text(
            pos2(x, cy),
            Align2::LEFT_CENTER,
            ":",
            cx.font.clone(),
            visuals.weak_text_color(),
        )
        .right()
        + GAP;
    let type_text = type_label(n.kind, n.child_count);
    if n.kind.is_container() {
        painter
            .text(
                pos2(x, cy),
                Align2::LEFT_CENTER,
                type_text,
                cx.font.clone(),
                kind_color(visuals, n.kind),
            )
            .right()
    } else {
        // Scalars are previewed lazily: only rows on screen resolve their value.
        let preview = cx
            .index
            .resolve(cx.value, node)
            .map(scalar_preview)
            .unwrap_or_default();
        x = painter
            .text(
                pos2(x, cy),
                Align2::LEFT_CENTER,
                preview,
                cx.font.clone(),
                kind_color(visuals, n.kind),
            )
            .right()
            + GAP;
        painter
            .text(
                pos2(x, cy),
                Align2::LEFT_CENTER,
                type_text,
                cx.font.clone(),
                visuals.weak_text_color(),
            )
            .right()
    }
}

/// The first mark of a node in words after its text (`+N more`; all of them on hover).
fn paint_marks(
    painter: &egui::Painter,
    visuals: &egui::Visuals,
    at: Pos2,
    marks: &[&super::NodeMark],
    cx: &RowCtx<'_>,
) {
    let cy = at.y;
    if let Some(first) = marks.first() {
        let color = match first.tone {
            super::MarkTone::Problem => visuals.error_fg_color,
            super::MarkTone::Note => visuals.hyperlink_color,
        };
        let icon = match first.tone {
            super::MarkTone::Problem => icons::ICON_ERROR,
            super::MarkTone::Note => icons::ICON_INFO,
        };
        let more = if marks.len() > 1 {
            format!(" (+{} more)", marks.len() - 1)
        } else {
            String::new()
        };
        let icon_end = painter
            .text(
                at,
                Align2::LEFT_CENTER,
                icon.codepoint,
                FontId::new(cx.font.size, icon.font_family()),
                color,
            )
            .right();
        // Cut with "…" at the pane's edge (the whole of every mark is on the row's hover).
        let left = icon_end + 4.0;
        let mut job = egui::text::LayoutJob::simple_singleline(
            format!("{}{more}", first.text),
            FontId::proportional(cx.font.size),
            color,
        );
        job.wrap = egui::text::TextWrapping::truncate_at_width(
            (painter.clip_rect().right() - left).max(0.0),
        );
        let galley = painter.layout_job(job);
        painter.galley(pos2(left, cy - galley.size().y / 2.0), galley, color);
    }
}

/// A property that should be there and is not: its key in the error colour, struck through
/// in spirit ("— missing, required"), indented like the object's children. Not selectable.
fn draw_ghost_row(ui: &mut Ui, rect: Rect, row_id: u32, cx: &RowCtx<'_>) {
    let (Some(mark), Some(parent)) = (cx.state.ghost(row_id), cx.state.ghost_parent(row_id)) else {
        return;
    };
    let key = mark.missing_key.as_deref().unwrap_or_default();
    let response = ui.interact(rect, cx.tree_id.with(("ghost", row_id)), Sense::hover());
    response.widget_info(|| {
        WidgetInfo::labeled(Role::TreeItem, false, format!("{key} (missing, required)"))
    });
    let depth = cx.index.get(parent).map_or(0, |n| n.depth + 1);
    let visuals = ui.visuals();
    let painter = ui.painter().with_clip_rect(rect.intersect(ui.clip_rect()));
    let color = visuals.error_fg_color;
    painter.rect_stroke(
        rect.shrink(1.0),
        2.0,
        Stroke::new(1.0, color.gamma_multiply(0.6)),
        StrokeKind::Inside,
    );
    let x = rect.left() + 4.0 + depth.min(MAX_INDENT_LEVELS) as f32 * INDENT + ICON_WIDTH + 2.0;
    let cy = rect.center().y;
    let end = painter
        .text(
            pos2(x, cy),
            Align2::LEFT_CENTER,
            key,
            cx.font.clone(),
            color.gamma_multiply(0.8),
        )
        .right();
    painter.text(
        pos2(end + GAP, cy),
        Align2::LEFT_CENTER,
        format!("— {}", mark.text),
        FontId::proportional(cx.font.size),
        color,
    );
    response.on_hover_text(format!(
        "\"{key}\" is required by the output schema and is not in structuredContent"
    ));
}

fn context_menu(ui: &mut Ui, node: u32, cx: &RowCtx<'_>, events: &mut RowEvents) {
    if ui.button("Copy value").clicked() {
        if let Some(v) = cx.index.resolve(cx.value, node) {
            ui.ctx().copy_text(copy_text(v));
        }
        ui.close();
    }
    if ui.button("Copy JSON Pointer").clicked() {
        ui.ctx().copy_text(cx.index.pointer(node));
        ui.close();
    }
    let value = cx.index.resolve(cx.value, node);
    // A copy of a deeper value would recurse once per level (clone, print, drop, validate).
    let too_deep = value.is_some_and(|v| v.deeper_than(SHOWN_DEPTH));
    let use_button = ui
        .add_enabled(!too_deep, egui::Button::new("Use as argument of…"))
        .on_disabled_hover_text(format!(
            "This value is nested deeper than {SHOWN_DEPTH} levels: copy it instead"
        ));
    if use_button.clicked() {
        // The app opens its own dialog: hand it the pointer and value, copy nothing.
        if let Some(v) = value {
            events.action = Some(JsonTreeAction::UseAsArgument {
                pointer: cx.index.pointer(node),
                value: v.to_value(),
            });
        }
        ui.close();
    }
}

/// Painted instead of a glyph: the fonts need not carry ▶/▼.
fn paint_triangle(painter: &egui::Painter, center: Pos2, open: bool, color: egui::Color32) {
    let r = 3.5;
    let points = if open {
        vec![
            pos2(center.x - r, center.y - r * 0.6),
            pos2(center.x + r, center.y - r * 0.6),
            pos2(center.x, center.y + r * 0.8),
        ]
    } else {
        vec![
            pos2(center.x - r * 0.6, center.y - r),
            pos2(center.x + r * 0.8, center.y),
            pos2(center.x - r * 0.6, center.y + r),
        ]
    };
    painter.add(Shape::convex_polygon(points, color, Stroke::NONE));
}

/// Text of the node for the clipboard (Ctrl+C).
pub(super) fn node_copy_text(index: &JsonIndex, value: JsonRef<'_>, node: u32) -> Option<String> {
    index.resolve(value, node).map(copy_text)
}
