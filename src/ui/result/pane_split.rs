//! Two panes side by side, or one above the other when the area is too narrow for both, with a
//! grip between them: drag it to give one pane more room, double-click it for half and half.

use egui::{CursorIcon, Rect, Sense, Ui, UiBuilder, vec2};

/// Below this width per pane, the panes are stacked.
pub const MIN_PANE_WIDTH: f32 = 260.0;
/// The smallest share the grip leaves either pane.
const MIN_SHARE: f32 = 0.15;
const GRIP: f32 = 10.0;

/// How the two panes were placed this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrangement {
    SideBySide,
    Stacked,
}

/// Where the two panes went this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub arrangement: Arrangement,
    pub first: Rect,
    pub second: Rect,
}

/// Fills the rest of `ui` with the two panes; `split` is the first pane's share.
pub fn show(
    ui: &mut Ui,
    id: egui::Id,
    split: &mut f32,
    first: impl FnOnce(&mut Ui),
    second: impl FnOnce(&mut Ui),
) -> Placement {
    let area = ui.available_rect_before_wrap();
    let arrangement = if area.width() >= 2.0 * MIN_PANE_WIDTH + GRIP {
        Arrangement::SideBySide
    } else {
        Arrangement::Stacked
    };
    let along = match arrangement {
        Arrangement::SideBySide => area.width(),
        Arrangement::Stacked => area.height(),
    };
    let room = (along - GRIP).max(0.0);
    let first_size = (room * split.clamp(MIN_SHARE, 1.0 - MIN_SHARE)).round();
    let (first_rect, grip_rect, second_rect) = match arrangement {
        Arrangement::SideBySide => {
            let first_rect = Rect::from_min_size(area.min, vec2(first_size, area.height()));
            let grip_rect = Rect::from_min_size(first_rect.right_top(), vec2(GRIP, area.height()));
            let second_rect = Rect::from_min_max(grip_rect.right_top(), area.max);
            (first_rect, grip_rect, second_rect)
        }
        Arrangement::Stacked => {
            let first_rect = Rect::from_min_size(area.min, vec2(area.width(), first_size));
            let grip_rect = Rect::from_min_size(first_rect.left_bottom(), vec2(area.width(), GRIP));
            let second_rect = Rect::from_min_max(grip_rect.left_bottom(), area.max);
            (first_rect, grip_rect, second_rect)
        }
    };

    let grip = ui
        .interact(grip_rect, id.with("grip"), Sense::click_and_drag())
        .on_hover_text("Drag to resize the panes; double-click for half and half");
    if grip.double_clicked() {
        *split = 0.5;
    } else if grip.dragged() && room > 0.0 {
        let delta = match arrangement {
            Arrangement::SideBySide => grip.drag_delta().x,
            Arrangement::Stacked => grip.drag_delta().y,
        };
        *split = (*split + delta / room).clamp(MIN_SHARE, 1.0 - MIN_SHARE);
    }
    if grip.hovered() || grip.dragged() {
        ui.ctx().set_cursor_icon(match arrangement {
            Arrangement::SideBySide => CursorIcon::ResizeHorizontal,
            Arrangement::Stacked => CursorIcon::ResizeVertical,
        });
    }
    paint_grip(ui, grip_rect, arrangement, grip.hovered() || grip.dragged());

    for (name, rect, contents) in [
        (
            "first",
            first_rect,
            Box::new(first) as Box<dyn FnOnce(&mut Ui)>,
        ),
        ("second", second_rect, Box::new(second)),
    ] {
        let mut pane = ui.new_child(
            UiBuilder::new()
                .max_rect(rect)
                .id_salt(id.with(name))
                .layout(egui::Layout::top_down(egui::Align::Min)),
        );
        pane.set_clip_rect(rect.intersect(ui.clip_rect()));
        contents(&mut pane);
    }
    ui.advance_cursor_after_rect(area);
    Placement {
        arrangement,
        first: first_rect,
        second: second_rect,
    }
}

/// A line with three dots in its middle: it looks like something to grab.
fn paint_grip(ui: &Ui, rect: Rect, arrangement: Arrangement, active: bool) {
    let visuals = ui.visuals();
    let stroke = if active {
        visuals.widgets.active.fg_stroke
    } else {
        visuals.widgets.noninteractive.bg_stroke
    };
    let painter = ui.painter();
    let center = rect.center();
    let step = match arrangement {
        Arrangement::SideBySide => {
            painter.vline(center.x, rect.y_range(), stroke);
            vec2(0.0, 6.0)
        }
        Arrangement::Stacked => {
            painter.hline(rect.x_range(), center.y, stroke);
            vec2(6.0, 0.0)
        }
    };
    let dot = if active {
        visuals.widgets.active.fg_stroke.color
    } else {
        visuals.widgets.inactive.fg_stroke.color
    };
    for offset in [-1.0, 0.0, 1.0] {
        painter.circle_filled(center + step * offset, 2.0, dot);
    }
}
