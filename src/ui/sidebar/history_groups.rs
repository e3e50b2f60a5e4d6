//! The history grouped by tool: each tool (resource, prompt) its calls have, with how many,
//! how many were not ok, and the median, 95th percentile and slowest duration. Picking one
//! lists its calls.

use egui::Ui;

use crate::ui::actions::Action;
use crate::workbench::{HistoryAction, HistoryBrowser};
use toolscope_core::history::{CallKind, ToolLatency};

/// The groups of the calls the filters select; picking one narrows the list to it.
pub fn table(ui: &mut Ui, browser: &HistoryBrowser, picked: &mut Option<String>) {
    let Some(groups) = &browser.groups else {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.weak("Grouping the calls…");
        });
        return;
    };
    if groups.is_empty() {
        ui.weak("No calls with a duration match");
        return;
    }
    egui::ScrollArea::both()
        .id_salt("history_groups")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            // The tool and server columns share what the figures leave (a grid would shrink
            // a truncated name to its first letter).
            let names = (ui.available_width() - FIGURES_WIDTH).max(160.0);
            let widths = ((names * 0.72).floor(), (names * 0.28).floor());
            egui::Grid::new("history_groups_grid")
                .striped(true)
                .num_columns(7)
                .show(ui, |ui| {
                    for title in ["Tool", "Server", "Calls", "Not ok", "p50", "p95", "Slowest"] {
                        ui.label(egui::RichText::new(title).small().weak());
                    }
                    ui.end_row();
                    for group in groups {
                        if group_row(ui, group, widths) {
                            *picked = Some(group.tool.clone());
                        }
                        ui.end_row();
                    }
                });
        });
}

/// What the five figures' columns take, with their gaps.
const FIGURES_WIDTH: f32 = 250.0;

/// One tool's row (its name and server `widths` wide); true when it was clicked.
fn group_row(ui: &mut Ui, group: &ToolLatency, (tool, server): (f32, f32)) -> bool {
    let name = match group.kind {
        CallKind::Call => group.tool.clone(),
        kind => format!("{kind}: {}", group.tool),
    };
    let height = ui.spacing().interact_size.y;
    let left = egui::Layout::left_to_right(egui::Align::Center);
    let clicked = ui
        .allocate_ui_with_layout(egui::vec2(tool, height), left, |ui| {
            ui.set_min_width(tool);
            ui.add(egui::Button::new(&name).truncate())
                .on_hover_text(format!("{name}\nList its calls"))
                .clicked()
        })
        .inner;
    ui.allocate_ui_with_layout(egui::vec2(server, height), left, |ui| {
        ui.set_min_width(server);
        ui.add(egui::Label::new(&group.server).truncate());
    });
    ui.label(group.calls.to_string());
    let not_ok = group.not_ok.to_string();
    if group.not_ok > 0 {
        ui.colored_label(ui.visuals().warn_fg_color, not_ok);
    } else {
        ui.weak(not_ok);
    }
    for ms in [group.p50_ms, group.p95_ms, group.max_ms] {
        ui.label(format!("{ms} ms"));
    }
    clicked
}

/// The toggle between the list of calls and the groups.
pub fn toggle(ui: &mut Ui, browser: &HistoryBrowser, actions: &mut Vec<Action>) {
    let mut grouped = browser.grouped;
    if ui
        .toggle_value(&mut grouped, "By tool")
        .on_hover_text("Group the calls by tool, with each tool's p50, p95 and slowest")
        .changed()
    {
        actions.push(HistoryAction::GroupByTool(grouped).into());
    }
}
