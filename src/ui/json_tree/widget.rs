//! `json_tree_ui`: toolbar, keyboard handling and the virtualised row list.

use egui::{
    Event, EventFilter, Id, Key, Modifiers, Role, ScrollArea, Sense, StrokeKind, TextStyle, Ui,
    WidgetInfo,
};
use toolscope_core::json_doc::JsonRef;

use super::rows::{RowCtx, RowEvents, draw_rows, node_copy_text};
use super::state::JsonTreeState;
use super::toolbar::toolbar;
use super::{JsonTreeAction, MarkTone};

/// Draws the toolbar (expand/collapse/level buttons, search box with match count
/// and next/prev) and the tree.
///
/// `generation` identifies `value`: the flat index is rebuilt only when it changes,
/// so pass a new one whenever the value changes.
pub fn json_tree_ui(
    ui: &mut Ui,
    id_salt: &str,
    generation: u64,
    value: JsonRef<'_>,
    state: &mut JsonTreeState,
) -> Option<JsonTreeAction> {
    let tree_id = ui.make_persistent_id(id_salt);
    state.sync(generation, value);
    toolbar(ui, tree_id, state);
    // The toolbar may have changed the query: search now so this frame shows it.
    state.sync(generation, value);
    tree(ui, tree_id, value, state)
}

fn tree(
    ui: &mut Ui,
    tree_id: Id,
    value: JsonRef<'_>,
    state: &mut JsonTreeState,
) -> Option<JsonTreeAction> {
    let font = TextStyle::Monospace.resolve(ui.style());
    let row_height = ui
        .fonts_mut(|f| f.row_height(&font))
        .max(ui.spacing().interact_size.y);
    let row_stride = row_height + ui.spacing().item_spacing.y;

    // One focusable widget behind the rows holds keyboard focus for the whole tree,
    // so arrow keys act on the selection instead of moving focus between rows.
    let area = ui.available_rect_before_wrap();
    let focus_id = tree_id.with("focus");
    let focus = ui.interact(area, focus_id, Sense::FOCUSABLE);
    focus.widget_info(|| WidgetInfo::labeled(Role::Tree, true, "JSON tree"));
    if focus.has_focus() {
        ui.memory_mut(|m| {
            m.set_focus_lock_filter(
                focus_id,
                EventFilter {
                    horizontal_arrows: true,
                    vertical_arrows: true,
                    ..Default::default()
                },
            );
        });
        handle_keys(ui, value, state);
    }

    // A long or multi-line string that is selected is shown whole below the rows.
    let long_text = state
        .selected
        .and_then(|node| state.index.as_ref()?.resolve(value, node))
        .and_then(|value| value.str_prefix(MAX_SHOWN_CHARS))
        .filter(|(text, more)| *more || is_long(text));
    // The selected node's notes (a violation, the SDK's wrapper), whole: a row cuts them at
    // the pane's edge.
    let notes: Vec<(String, MarkTone)> = state
        .selected
        .map(|node| {
            state
                .marks_of(node)
                .map(|mark| (mark.text.clone(), mark.tone))
                .collect()
        })
        .unwrap_or_default();
    let detail_height = if long_text.is_some() {
        (ui.available_height() * 0.4).clamp(80.0, 320.0)
    } else if !notes.is_empty() {
        (ui.available_height() * 0.25).clamp(48.0, 160.0)
    } else {
        0.0
    };
    let mut scroll = ScrollArea::vertical()
        .id_salt(tree_id.with("scroll"))
        .auto_shrink([false, false])
        .max_height((ui.available_height() - detail_height).max(row_stride))
        // No margin so that row `r` starts exactly at `r * row_stride`.
        .content_margin(0.0);
    if let Some(node) = state.scroll_to.take()
        && let Some(row) = state.row_of(node)
    {
        let top = row as f32 * row_stride;
        let view = ui.available_height() - detail_height;
        let offset = state.last_scroll_offset;
        if top < offset || top + row_height > offset + view {
            // Centre the row: context above and below a jumped-to match.
            scroll = scroll.vertical_scroll_offset((top - (view - row_height) * 0.5).max(0.0));
        }
    }

    let mut events = RowEvents::default();
    let output = match state.index.as_ref() {
        Some(index) => {
            let cx = RowCtx {
                index,
                value,
                state,
                tree_id,
                row_height,
                font,
            };
            scroll.show_rows(ui, row_height, state.visible.len(), |ui, rows| {
                draw_rows(ui, rows, &cx, &mut events);
            })
        }
        None => scroll.show_rows(ui, row_height, 0, |_, _| {}),
    };
    state.last_scroll_offset = output.state.clamped_offset().y;
    if focus.has_focus() {
        ui.painter().rect_stroke(
            output.inner_rect,
            2.0,
            ui.visuals().selection.stroke,
            StrokeKind::Inside,
        );
    }

    if let Some((text, more)) = long_text {
        long_text_ui(ui, tree_id, &text, more);
    } else if !notes.is_empty() {
        notes_ui(ui, tree_id, &notes);
    }

    if let Some(node) = events.toggle {
        state.toggle(node);
    }
    if let Some(node) = events.select {
        state.select_node(node);
        ui.memory_mut(|m| m.request_focus(focus_id));
    }
    events.action
}

fn handle_keys(ui: &mut Ui, value: JsonRef<'_>, state: &mut JsonTreeState) {
    let (up, down, left, right, copy) = ui.input_mut(|i| {
        let copy_key = i.consume_key(Modifiers::COMMAND, Key::C);
        // Integrations turn Ctrl+C into `Event::Copy` rather than a key press.
        let copy_event = i.events.iter().any(|e| matches!(e, Event::Copy));
        (
            i.consume_key(Modifiers::NONE, Key::ArrowUp),
            i.consume_key(Modifiers::NONE, Key::ArrowDown),
            i.consume_key(Modifiers::NONE, Key::ArrowLeft),
            i.consume_key(Modifiers::NONE, Key::ArrowRight),
            copy_key || copy_event,
        )
    });
    if up {
        state.move_selection(-1);
    }
    if down {
        state.move_selection(1);
    }
    if left {
        state.collapse_or_parent();
    }
    if right {
        state.expand_or_child();
    }
    if copy
        && let (Some(index), Some(node)) = (state.index.as_ref(), state.selected)
        && let Some(text) = node_copy_text(index, value, node)
    {
        ui.ctx().copy_text(text);
    }
}

/// Most characters of a string shown below the tree; Copy value takes all of it.
const MAX_SHOWN_CHARS: usize = 100_000;

/// Whether a string is cut in its row: long, or more than one line.
fn is_long(text: &str) -> bool {
    text.contains('\n')
        || text
            .chars()
            .nth(super::preview::MAX_PREVIEW_CHARS)
            .is_some()
}

/// The selected string (its first [`MAX_SHOWN_CHARS`] characters), wrapped and selectable,
/// below the rows. `more` says the string goes on.
/// The selected node's notes in full, wrapped, each in its tone's colour.
fn notes_ui(ui: &mut Ui, tree_id: Id, notes: &[(String, MarkTone)]) {
    ui.separator();
    ScrollArea::vertical()
        .id_salt(tree_id.with("notes"))
        .auto_shrink([false, true])
        .show(ui, |ui| {
            for (text, tone) in notes {
                let color = match tone {
                    MarkTone::Problem => ui.visuals().error_fg_color,
                    MarkTone::Note => ui.visuals().hyperlink_color,
                };
                ui.add(
                    egui::Label::new(egui::RichText::new(text).color(color))
                        .wrap()
                        .selectable(true),
                );
            }
        });
}

fn long_text_ui(ui: &mut Ui, tree_id: Id, shown: &str, more: bool) {
    ui.separator();
    if more {
        ui.weak(format!(
            "The selected string, its first {MAX_SHOWN_CHARS} characters"
        ));
    } else {
        ui.weak(format!(
            "The selected string in full ({} characters)",
            shown.chars().count()
        ));
    }
    ScrollArea::vertical()
        .id_salt(tree_id.with("long_text"))
        .auto_shrink([false, true])
        .show(ui, |ui| {
            ui.add(
                egui::Label::new(egui::RichText::new(shown).monospace())
                    .wrap()
                    .selectable(true),
            );
            if more {
                ui.weak("… cut here; Copy value (right-click the row) takes all of it");
            }
        });
}
