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
mod skills;
mod state;
mod tools;

pub use state::{SidebarState, SidebarTab};

use super::actions::Action;
use crate::workbench::Model;
use toolscope_core::settings::Layout;

/// The history panel is never narrower than this (its table's columns need it).
const HISTORY_MIN_WIDTH: f32 = 280.0;
/// What the tabs, the filter and a few tools need below the server cards.
const TOOLS_MIN_HEIGHT: f32 = 260.0;
/// The server cards' least height (one card's first lines).
const SERVERS_MIN_HEIGHT: f32 = 60.0;
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
        toggle(sidebar, layout);
    }
    let find_tool = ui.input_mut(|input| {
        input.consume_key(egui::Modifiers::COMMAND, egui::Key::K)
            || input.consume_key(egui::Modifiers::COMMAND, egui::Key::F)
    });
    if find_tool {
        layout.sidebar_open = true;
        sidebar.shown_anyway_for = sidebar.giving_way_to;
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
    sidebar.giving_way_to = gives_way_to(model, sidebar, layout, ui, history);
    let shape = (
        layout.sidebar_open && sidebar.giving_way_to.is_none(),
        width,
    );
    let folded = super::layout_memory::folding_panel(ui, panel, shape, sizes, |ui| {
        if !history {
            // The servers take what they need up to 40 %; the tools list has the rest. A short
            // window (a projector's zoom) keeps the tabs, the filter and a few tools in view:
            // the server cards scroll in what is left.
            let height = ui.available_height();
            let servers_max = (height * 0.4)
                .min(height - TOOLS_MIN_HEIGHT)
                .max(SERVERS_MIN_HEIGHT);
            servers::section(model, ui, servers_max, actions);
            ui.separator();
        }
        // The Skills tab is there for a server that declares the extension (and stays while
        // it is the tab shown): the others keep their rows.
        let skills_tab = sidebar.tab == SidebarTab::Skills
            || model.selected_server().is_some_and(|server| {
                !matches!(
                    server.features.skills.list,
                    crate::workbench::server_skills::SkillsList::NotAsked
                        | crate::workbench::server_skills::SkillsList::NotDeclared
                )
            });
        tabs_ui(ui, &mut sidebar.tab, skills_tab);
        match sidebar.tab {
            SidebarTab::Tools => tools::section(model, sidebar, ui, actions),
            SidebarTab::Resources => feature_lists::resources_section(model, sidebar, ui, actions),
            SidebarTab::Prompts => feature_lists::prompts_section(model, sidebar, ui, actions),
            SidebarTab::Skills => skills::section(model, ui, actions),
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
    // Folded to give way is not the person's layout: it opens again for the next tool.
    if sidebar.giving_way_to.is_none() {
        layout.sidebar_open = folded.open;
    }
    if history {
        layout.history_width = folded.width;
    } else {
        layout.sidebar_width = folded.width;
    }
}

/// Opens or folds the sidebar (the menu button, Ctrl+B); folded to give way to a result, it
/// opens for that result all the same.
pub fn toggle(sidebar: &mut SidebarState, layout: &mut Layout) {
    if sidebar.giving_way_to.is_some() {
        sidebar.shown_anyway_for = sidebar.giving_way_to;
        layout.sidebar_open = true;
    } else {
        layout.sidebar_open = !layout.sidebar_open;
    }
}

/// Where the window is too narrow for the sidebar and both panes side by side (a small window,
/// a big zoom, a projector), the sidebar gives way to a tool's result as the request column
/// does, until the person opens it again for that result: the result it gives way to.
fn gives_way_to(
    model: &Model,
    sidebar: &mut SidebarState,
    layout: &Layout,
    ui: &egui::Ui,
    history: bool,
) -> Option<crate::workbench::CallId> {
    let window = ui.ctx().content_rect().width();
    let panes = 2.0 * super::pane_split::MIN_PANE_WIDTH + PANES_MARGIN;
    let crowded = !history && layout.sidebar_open && window - layout.sidebar_width < panes;
    let result = model
        .selected_tool()
        .and_then(|(server, tool)| {
            model.run(&crate::workbench::ToolKey::new(
                server.id,
                tool.name.clone(),
            ))
        })
        .and_then(|run| run.last_record.as_ref())
        .map(|record| record.id);
    match result {
        Some(id) if crowded && sidebar.shown_anyway_for != Some(id) => Some(id),
        _ => None,
    }
}

/// The tabs in two rows that fit the sidebar's default width: what the server offers, then
/// the server itself and what was done with it (a narrower sidebar wraps them). Skills only
/// where `skills_tab` says.
fn tabs_ui(ui: &mut egui::Ui, tab: &mut SidebarTab, skills_tab: bool) {
    let rows: [&[(SidebarTab, &str)]; 2] = [
        &[
            (SidebarTab::Tools, "Tools"),
            (SidebarTab::Resources, "Resources"),
            (SidebarTab::Prompts, "Prompts"),
            (SidebarTab::Skills, "Skills"),
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
        // One row where all fit (the wide history panel).
        let one_row = ui.available_width() >= if skills_tab { 430.0 } else { 380.0 };
        let rows: Vec<Vec<(SidebarTab, &str)>> = if one_row {
            vec![rows.concat()]
        } else {
            rows.iter().map(|row| row.to_vec()).collect()
        };
        for row in rows {
            ui.horizontal_wrapped(|ui| {
                for (each, name) in row {
                    if each == SidebarTab::Skills && !skills_tab {
                        continue;
                    }
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
