//! The selected tool, in the space beside the sidebar: the request column on the left (it
//! folds away with Ctrl+J) and the result, which owns the rest.

use crate::ui::{
    actions::Action,
    request_column::{self, Request},
    request_state::RequestState,
    result_area,
    result_state::ResultState,
    sidebar::SidebarTab,
};
use crate::workbench::{ConnectionStatus, Model, ServerState, ToolKey};
use toolscope_core::settings::Layout;

/// The parts of the view state the space beside the sidebar draws with.
pub struct ToolArea<'a> {
    pub layout: &'a mut Layout,
    pub request: &'a mut RequestState,
    pub result: &'a mut ResultState,
    /// The sidebar's tab: a call picked in the History tab or a case in the Cases tab takes
    /// the tool's place.
    pub sidebar_tab: SidebarTab,
    /// A dialog has the keyboard.
    pub dialog_open: bool,
    /// The Resources and Prompts tabs' forms.
    pub features: &'a mut crate::ui::feature_view::FeatureForms,
}

/// The request column never takes more than this share of the window: the result comes first,
/// and a wide form wraps inside the column instead of widening it.
const MAX_REQUEST_SHARE: f32 = 0.3;

/// The result area's own margins and grip, beside the two panes' minimum widths.
const NARROW_MARGIN: f32 = 40.0;

pub fn ui(model: &Model, view: ToolArea<'_>, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    // A comparison, a call picked in the history or a case takes the place of the tool.
    let tab = view.sidebar_tab;
    let replaced = crate::ui::compare_view::ui(model, &mut view.result.compare, ui, actions)
        || (matches!(tab, SidebarTab::History | SidebarTab::Live)
            && crate::ui::history_view::ui(
                model,
                (&mut *view.result, &mut *view.layout, &mut *view.features),
                tab == SidebarTab::Live,
                ui,
                actions,
            ))
        || (tab == SidebarTab::Cases
            && crate::ui::case_view::ui(
                model,
                (&mut *view.result, &mut *view.layout, &mut *view.features),
                ui,
                actions,
            ));
    if replaced {
        return;
    }
    if tab == SidebarTab::Live {
        crate::ui::live_view::ui(model, ui, actions);
        return;
    }
    if tab == SidebarTab::Server {
        crate::ui::server_view::ui(model, &*view.request, ui, actions);
        return;
    }
    if tab == SidebarTab::Skills {
        crate::ui::skill_view::ui(model, view.features, ui);
        return;
    }
    // A resource or prompt picked in its tab takes the tool's place.
    if matches!(tab, SidebarTab::Resources | SidebarTab::Prompts) {
        let prompts = tab == SidebarTab::Prompts;
        crate::ui::feature_view::ui(model, (view.features, view.layout), prompts, ui, actions);
        return;
    }
    let Some(server) = model.selected_server() else {
        return;
    };
    let (Some(tool), Some(catalog), Some(index)) = (
        server.selected_tool_entry(),
        server.catalog.as_ref(),
        server.selected_tool,
    ) else {
        let hint = match connection_problem(server) {
            Some((headline, detail)) => format!("{headline}: {detail}"),
            None if server.is_connected() => "Pick a tool on the left".to_owned(),
            None => "Connect a server, then pick one of its tools".to_owned(),
        };
        ui.centered_and_justified(|ui| {
            ui.add(egui::Label::new(egui::RichText::new(hint).weak()).wrap());
        });
        return;
    };
    let key = ToolKey::new(server.id, tool.name.clone());
    if ui.input_mut(|input| input.consume_key(egui::Modifiers::COMMAND, egui::Key::J)) {
        view.layout.request_open = !view.layout.request_open;
    }
    let request = Request {
        key: &key,
        tool,
        catalog,
        index,
        connected: server.is_connected(),
        dialog_open: view.dialog_open,
    };
    let window = ui.ctx().content_rect().width();
    let max_request = (window * MAX_REQUEST_SHARE).max(220.0);
    // Where the column would leave the panes too little room to stand side by side (a small
    // window, a big zoom, a projector), it gives way to its one-line bar once a call is made,
    // and comes back while a tool is picked to be filled in or "Arguments…" asks for it. The
    // layout keeps it open.
    let narrow = ui.available_width() - view.layout.request_width
        < 2.0 * crate::ui::pane_split::MIN_PANE_WIDTH + NARROW_MARGIN;
    if !narrow {
        view.request.shown_anyway = false;
    } else if view.request.focus_arguments_of.as_ref() == Some(&key) {
        view.request.shown_anyway = true;
    }
    // Nothing to give way to before the tool's first call: the form is what is needed then.
    let has_result = model
        .run(&key)
        .is_some_and(|run| run.last_record.is_some() || run.stored.is_some() || run.is_running());
    let shown = view.layout.request_open && (!narrow || view.request.shown_anyway || !has_result);
    let folded = crate::ui::layout_memory::folding_panel(
        ui,
        "request_column",
        (shown, view.layout.request_width),
        220.0..=max_request,
        |ui| request_column::ui(model, &mut *view.request, ui, &request, actions),
    );
    if shown {
        view.layout.request_open = folded.open;
        view.request.shown_anyway &= folded.open;
    }
    view.layout.request_width = folded.width;
    view.request.drawn_width = folded.drawn;
    let result = egui::CentralPanel::default().show(ui, |ui| {
        connection_problem_ui(ui, server, actions);
        if !shown {
            compact_request_ui(
                model,
                (&mut *view.request, &mut *view.layout),
                ui,
                &request,
                actions,
            );
        }
        let parts = (&mut *view.result, &mut *view.layout, &mut *view.request);
        result_area::ui(model, parts, ui, &key, tool, actions);
    });
    view.result.area = Some(result.response.rect);
}

/// What went wrong with a server's connection, if something did: a headline and the detail.
fn connection_problem(server: &ServerState) -> Option<(String, &str)> {
    match &server.status {
        ConnectionStatus::Failed { message } => {
            Some((format!("{} could not connect", server.name), message))
        }
        ConnectionStatus::Closed { reason } => {
            Some((format!("The connection to {} closed", server.name), reason))
        }
        _ => None,
    }
}

/// A server that failed or closed says so above its tool's result, where the user looks.
fn connection_problem_ui(ui: &mut egui::Ui, server: &ServerState, actions: &mut Vec<Action>) {
    let Some((headline, detail)) = connection_problem(server) else {
        return;
    };
    egui::Frame::group(ui.style())
        .stroke(egui::Stroke::new(1.0, ui.visuals().error_fg_color))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal_wrapped(|ui| {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    egui::RichText::new(headline).strong(),
                );
                if ui.button("Reconnect").clicked() {
                    actions.push(crate::workbench::ServerAction::Connect(server.id).into());
                }
            });
            ui.add(egui::Label::new(detail).wrap().selectable(true));
        });
}

/// With the request column folded: the tool's name and a way back to its arguments.
fn compact_request_ui(
    model: &Model,
    (view, layout): (&mut RequestState, &mut Layout),
    ui: &mut egui::Ui,
    request: &Request<'_>,
    actions: &mut Vec<Action>,
) {
    // One line: the room below is the result's.
    ui.horizontal(|ui| {
        if ui
            .button("Arguments…")
            .on_hover_text("Show the request column (Ctrl+J)")
            .clicked()
        {
            // Folded by the user: open it; given way to the panes: show it all the same.
            if layout.request_open {
                view.shown_anyway = true;
            } else {
                layout.request_open = true;
            }
        }
        request_column::call_bar_ui(model, view, ui, request, actions);
        ui.add(
            egui::Label::new(egui::RichText::new(request.tool.display_name()).strong()).truncate(),
        );
    });
}
