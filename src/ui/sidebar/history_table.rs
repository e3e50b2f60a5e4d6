//! The history as a table: a tick to mark, then time, server, tool, verdict and duration in
//! columns that stay put. One row per call, virtualized (a history of 100,000 calls scrolls like
//! ten); ticking a call never moves a row.

use egui::{Rect, Sense, TextWrapMode, Ui, pos2, vec2};

use crate::{
    ui::{actions::Action, theme},
    workbench::{self, HistoryBrowser, SelectionAction},
};
use toolscope_core::history::{StoredCall, Verdict};

const TIME: f32 = 64.0;
const VERDICT: f32 = 110.0;
const DURATION: f32 = 58.0;
const GAP: f32 = 8.0;
/// Narrower than this, the table has no server column.
const SERVER_FROM: f32 = 340.0;

/// Where each column's text goes in a row of `width` (after the tick).
struct Columns {
    time: (f32, f32),
    /// Left out where the table is narrower still (the tool says more; the server is on
    /// hover).
    server: Option<(f32, f32)>,
    tool: (f32, f32),
    verdict: (f32, f32),
    /// Left out where the table is narrow.
    duration: Option<(f32, f32)>,
}

impl Columns {
    fn for_width(width: f32) -> Self {
        let with_duration = width >= 380.0;
        let with_server = width >= SERVER_FROM;
        let fixed = TIME
            + VERDICT
            + if with_duration { DURATION + GAP } else { 0.0 }
            + if with_server { 3.0 } else { 2.0 } * GAP;
        let flexible = (width - fixed).max(60.0);
        // The tool names the call; the server (often one name for every row) gets less.
        let server_width = if with_server {
            (flexible * 0.35).floor()
        } else {
            0.0
        };
        let tool_width = flexible - server_width;
        let mut x = 0.0;
        let mut next = |w: f32| {
            let column = (x, w);
            x += w + GAP;
            column
        };
        Self {
            time: next(TIME),
            server: with_server.then(|| next(server_width)),
            tool: next(tool_width),
            verdict: next(VERDICT),
            duration: with_duration.then(|| next(DURATION)),
        }
    }
}

/// The column titles.
pub fn header(ui: &mut Ui, tick_width: f32) {
    let height = ui.text_style_height(&egui::TextStyle::Small) + 4.0;
    let (rect, _) = ui.allocate_exact_size(vec2(ui.available_width(), height), Sense::hover());
    let columns = Columns::for_width(rect.width() - tick_width);
    let left = rect.left() + tick_width;
    let mut title = |(x, width): (f32, f32), text: &str, layout: egui::Layout| {
        let cell = Rect::from_min_size(pos2(left + x, rect.top()), vec2(width, height));
        ui.scope_builder(egui::UiBuilder::new().max_rect(cell).layout(layout), |ui| {
            ui.add(egui::Label::new(egui::RichText::new(text).small().weak()).truncate());
        });
    };
    let left_aligned = egui::Layout::left_to_right(egui::Align::Center);
    title(columns.time, "Time (UTC)", left_aligned);
    if let Some(server) = columns.server {
        title(server, "Server", left_aligned);
    }
    title(columns.tool, "Tool", left_aligned);
    title(columns.verdict, "Verdict", left_aligned);
    if let Some(duration) = columns.duration {
        title(
            duration,
            "ms",
            egui::Layout::right_to_left(egui::Align::Center),
        );
    }
}

/// The rows, in a scroll area `height` tall.
pub fn rows(ui: &mut Ui, browser: &HistoryBrowser, height: f32, actions: &mut Vec<Action>) {
    let row_height = ui.spacing().interact_size.y;
    egui::ScrollArea::vertical()
        .id_salt("history_list")
        .max_height(height)
        .auto_shrink([false, false])
        .show_rows(ui, row_height, browser.calls.len(), |ui, range| {
            for call in &browser.calls[range] {
                row(ui, browser, call, row_height, actions);
            }
        });
}

/// The tick's width, for the header to line up with the rows.
pub fn tick_width(ui: &Ui) -> f32 {
    ui.spacing().icon_width + ui.spacing().item_spacing.x + 2.0
}

fn row(
    ui: &mut Ui,
    browser: &HistoryBrowser,
    call: &StoredCall,
    height: f32,
    actions: &mut Vec<Action>,
) {
    let id = call.id;
    let was_marked = browser.marked.contains(&id);
    let selected = browser.selected == Some(id);
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 2.0;
        let mut marked = was_marked;
        ui.checkbox(&mut marked, "")
            .on_hover_text("Mark it, to compare it or put it in a report")
            .widget_info(|| {
                egui::WidgetInfo::selected(
                    egui::Role::CheckBox,
                    true,
                    was_marked,
                    format!("Mark call #{id}"),
                )
            });
        if marked != was_marked {
            actions.push(SelectionAction::Mark { id, marked }.into());
        }
        let (rect, response) =
            ui.allocate_exact_size(vec2(ui.available_width(), height), Sense::click());
        // "15:40:01": the time of day (UTC) leads, the date is on hover.
        let time = call.started_at.get(11..19).unwrap_or(&call.started_at);
        // A read or a prompt says so (a tool call, the usual row, does not).
        let named = match call.kind {
            toolscope_core::history::CallKind::Call => call.tool.clone(),
            kind => format!("{kind} {}", call.tool),
        };
        let mut label = format!("{time}  {} · {named} · {}", call.server, call.verdict);
        // A team's history: whose call it is.
        let by = browser.shared.then(|| recorded_by(call)).flatten();
        if let Some(by) = &by {
            label.push_str(&format!(" · {by}"));
        }
        response
            .widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, &label));
        if ui.is_rect_visible(rect) {
            paint_row(
                ui,
                rect,
                call,
                by.as_deref(),
                time,
                selected,
                response.hovered(),
            );
        }
        let mut hover = format!("#{id} · {} · {}", call.started_at, call.server);
        if let Some(by) = &by {
            hover.push_str(&format!("\nRecorded by {by}"));
        }
        if !call.note.is_empty() {
            hover.push_str(&format!("\nNote: {}", call.note));
        }
        if let Some(failure) = &call.failure {
            hover.push_str(&format!("\n{failure}"));
        }
        if response.on_hover_text(hover).clicked() {
            actions.push(workbench::HistoryAction::Select(Some(id)).into());
        }
    });
}

/// `person@machine`, when the call says.
fn recorded_by(call: &StoredCall) -> Option<String> {
    Some(format!(
        "{}@{}",
        call.person.as_deref()?,
        call.machine.as_deref()?
    ))
}

fn paint_row(
    ui: &Ui,
    rect: Rect,
    call: &StoredCall,
    by: Option<&str>,
    time: &str,
    selected: bool,
    hovered: bool,
) {
    let visuals = ui.visuals();
    if selected {
        ui.painter()
            .rect_filled(rect, 2.0, visuals.selection.bg_fill);
    } else if hovered {
        ui.painter()
            .rect_filled(rect, 2.0, visuals.widgets.hovered.weak_bg_fill);
    }
    let text = if selected {
        visuals.selection.stroke.color
    } else {
        visuals.text_color()
    };
    let palette = theme::palette(visuals);
    let verdict_color = match call.verdict {
        Verdict::Ok => palette.good,
        Verdict::Cancelled | Verdict::Timeout => palette.warning,
        _ => palette.error,
    };
    let columns = Columns::for_width(rect.width());
    let cell = |(x, width): (f32, f32), value: &str, color, right: bool| {
        let galley = egui::WidgetText::from(value).into_galley(
            ui,
            Some(TextWrapMode::Truncate),
            width,
            egui::TextStyle::Body,
        );
        let left = if right {
            rect.left() + x + width - galley.size().x
        } else {
            rect.left() + x
        };
        let top = rect.center().y - galley.size().y / 2.0;
        ui.painter().galley(pos2(left, top), galley, color);
    };
    cell(columns.time, time, visuals.weak_text_color(), false);
    if let Some(server) = columns.server {
        // A team's history names the person first (the machine is on hover): the server is
        // often one name for all.
        match by.and(call.person.as_deref()) {
            Some(person) => cell(server, &format!("{person} · {}", call.server), text, false),
            None => cell(server, &call.server, text, false),
        }
    }
    // A read or a prompt says so before what it named (a tool call is the usual row); a read
    // made again on a subscribed resource's updates says how many times in all, before the
    // name a narrow column cuts.
    let times = match call.repeats {
        0 => String::new(),
        more => format!(" ×{}", more + 1),
    };
    let named = match call.kind {
        toolscope_core::history::CallKind::Call => format!("{}{times}", call.tool),
        kind => format!("{kind}{times}: {}", call.tool),
    };
    let tool = if call.note.is_empty() {
        named
    } else {
        format!("{named} ✎")
    };
    cell(columns.tool, &tool, text, false);
    cell(columns.verdict, call.verdict.as_str(), verdict_color, false);
    if let Some(duration) = columns.duration {
        let ms = call.duration_ms.map_or("–".to_owned(), |ms| ms.to_string());
        cell(duration, &ms, visuals.weak_text_color(), true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_fit_the_row_and_duration_goes_first_when_narrow() {
        for width in [260.0, 379.0, 380.0, 460.0, 900.0] {
            let columns = Columns::for_width(width);
            let last = columns.duration.unwrap_or(columns.verdict);
            assert!(last.0 + last.1 <= width.max(400.0), "{width}");
            if let Some(server) = columns.server {
                assert!(server.0 + server.1 < columns.tool.0, "{width}");
            }
        }
        assert!(Columns::for_width(300.0).server.is_none());
        assert!(Columns::for_width(340.0).server.is_some());
        assert!(Columns::for_width(379.0).duration.is_none());
        assert!(Columns::for_width(380.0).duration.is_some());
    }
}
