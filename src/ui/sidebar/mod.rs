//! The sidebar: the servers above, the selected server's tools (or the history) below. One column that folds
//! away (Ctrl+B, or drag its edge shut) and keeps its width, so the result panes get the room.
//! Ctrl+K (or Ctrl+F) jumps to the tool filter.

mod cases;
mod feature_lists;
mod history;
mod history_groups;
mod history_table;
mod live;
mod servers;
mod state;
mod tools;

pub use state::{SidebarState, SidebarTab};

use super::actions::Action;
use crate::workbench::Model;
use toolscope_core::settings::Layout;

/// The history panel is never narrower than this (its table's columns need it).
const HISTORY_MIN_WIDTH: f32 = 280.0;
/// What the result area needs around its two panes (margins, the grip, the panel's edge).
const PANES_MARGIN: f32 = 50.0;

pub fn ui(
    model: &Model,
    sidebar: &mut SidebarState,
    layout: &mut Layout,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    if ui.input_mut(|input| input.consume_key(egui::Modifiers::COMMAND, egui::Key::B)) {
        layout.sidebar_open = !layout.sidebar_open;
    }
    let find_tool = ui.input_mut(|input| {
        input.consume_key(egui::Modifiers::COMMAND, egui::Key::K)
            || input.consume_key(egui::Modifiers::COMMAND, egui::Key::F)
    });
    if find_tool {
        layout.sidebar_open = true;
        sidebar.focus_tool_filter = true;
    }
    // The history is a table of its own, the whole height and wider: the server cards make
    // way (each call names its server), and its width is kept apart from the tool list's.
    let history = matches!(sidebar.tab, SidebarTab::History | SidebarTab::Live);
    // What another process records shows as it is recorded while the History or the Live tab
    // is open (a recording browsed never moves); watched on the history's thread, so an idle
    // window draws no frame.
    let watch = history && model.open_recording().is_none();
    if watch != model.live_sessions().watching {
        actions.push(crate::workbench::HistoryAction::WatchSessions(watch).into());
    }
    let (panel, width, sizes) = if history {
        // At most 40 %, and never so wide that a call picked in it loses its two panes side
        // by side (a small window, a big zoom).
        let window = ui.ctx().content_rect().width();
        let panes = 2.0 * super::pane_split::MIN_PANE_WIDTH + PANES_MARGIN;
        let widest = (window * 0.4).min(window - panes).max(HISTORY_MIN_WIDTH);
        (
            "history_panel",
            layout.history_width,
            HISTORY_MIN_WIDTH..=widest,
        )
    } else {
        ("sidebar", layout.sidebar_width, 170.0..=560.0)
    };
    let shape = (layout.sidebar_open, width);
    let folded = super::layout_memory::folding_panel(ui, panel, shape, sizes, |ui| {
        if !history {
            // The servers take what they need up to 40 %; the tools list has the rest.
            let servers_max = ui.available_height() * 0.4;
            servers::section(model, ui, servers_max, actions);
            ui.separator();
        }
        tabs_ui(ui, &mut sidebar.tab);
        match sidebar.tab {
            SidebarTab::Tools => tools::section(model, sidebar, ui, actions),
            SidebarTab::Resources => feature_lists::resources_section(model, sidebar, ui, actions),
            SidebarTab::Prompts => feature_lists::prompts_section(model, sidebar, ui, actions),
            SidebarTab::Server => {
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(
                            "What the selected server declares, its log level and round trips \
                             are on the right.",
                        )
                        .weak(),
                    )
                    .wrap(),
                );
            }
            SidebarTab::History => history::section(model, sidebar, ui, actions),
            SidebarTab::Live => live::section(model, sidebar, ui, actions),
            SidebarTab::Cases => cases::section(model, sidebar, ui, actions),
        }
    });
    layout.sidebar_open = folded.open;
    if history {
        layout.history_width = folded.width;
    } else {
        layout.sidebar_width = folded.width;
    }
}

/// The tabs in two rows that fit the sidebar's default width: what the server offers, then
/// the server itself and what was done with it (a narrower sidebar wraps them).
fn tabs_ui(ui: &mut egui::Ui, tab: &mut SidebarTab) {
    let rows: [&[(SidebarTab, &str)]; 2] = [
        &[
            (SidebarTab::Tools, "Tools"),
            (SidebarTab::Resources, "Resources"),
            (SidebarTab::Prompts, "Prompts"),
        ],
        &[
            (SidebarTab::Server, "Server"),
            (SidebarTab::History, "History"),
            (SidebarTab::Live, "Live"),
            (SidebarTab::Cases, "Cases"),
        ],
    ];
    ui.scope(|ui| {
        ui.spacing_mut().item_spacing.x = 2.0;
        ui.spacing_mut().button_padding.x = 4.0;
        // One row where all seven fit (the wide history panel).
        let one_row = ui.available_width() >= 380.0;
        let rows: Vec<Vec<(SidebarTab, &str)>> = if one_row {
            vec![rows.concat()]
        } else {
            rows.iter().map(|row| row.to_vec()).collect()
        };
        for row in rows {
            ui.horizontal_wrapped(|ui| {
                for (each, name) in row {
                    ui.selectable_value(tab, each, name);
                }
            });
        }
    });
}

/// Lists the tools or the history again (beside their count: the tabs' row stays narrow).
pub(super) fn refresh_button(ui: &mut egui::Ui) -> egui::Response {
    super::theme::icon_only_button(ui, super::theme::icons::ICON_REFRESH, "Refresh")
}
