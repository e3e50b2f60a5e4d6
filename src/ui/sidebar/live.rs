//! The Live tab: the sessions real clients run through `toolscope proxy`, as they happen. The
//! proxy is another process writing the history database; while the tab is open the history's
//! thread watches it (`WatchSessions`) and the calls are listed again when it moved. Picking a call shows it
//! beside, as the History tab does (two panes, analysis, Compare, Save as case); picking a
//! session with no call shows its protocol log; two sessions ticked are compared.

use egui::Ui;

use super::SidebarState;
use crate::{
    ui::actions::Action,
    workbench::{self, HistoryStatus, Model},
};
use toolscope_core::history::{CallQuery, ProxySession};

pub fn section(model: &Model, sidebar: &mut SidebarState, ui: &mut Ui, actions: &mut Vec<Action>) {
    if let HistoryStatus::Unavailable(why) = model.history_status() {
        ui.add(egui::Label::new(egui::RichText::new(why).weak()).wrap());
        return;
    }
    if model.open_recording().is_some() {
        ui.horizontal_wrapped(|ui| {
            ui.weak("A recording is open in place of the history.");
            if ui.small_button("Back to your history").clicked() {
                actions.push(workbench::HistoryAction::CloseRecording.into());
            }
        });
        return;
    }
    super::history::team_unreached_ui(model, ui, actions);
    if let HistoryStatus::Open { location, .. } = model.history_status() {
        ui.add(egui::Label::new(egui::RichText::new(reading(location)).weak()).wrap())
            .on_hover_text(location.to_string());
    }
    let live = model.live_sessions();
    if live.stamp.is_some() && live.sessions.is_empty() {
        ui.add(
            egui::Label::new(
                egui::RichText::new(
                    "No client has come through toolscope proxy yet. Have your client run \
                     `toolscope proxy -- <your server's command>` in place of the server \
                     (or Watch through Toolscope), and its sessions and calls appear here as \
                     they happen.",
                )
                .weak(),
            )
            .wrap(),
        );
        return;
    }
    sessions_ui(model, ui, actions);
    compare_ui(model, ui, actions);
    ui.separator();
    list_calls(model, sidebar, actions);
    ui.weak(super::history::count_text(
        model.history_browser(),
        "No calls in this session yet",
    ));
    super::history::calls_table(model, super::history::Marks::Listed, ui, actions);
}

/// Which history the tab reads (a proxy writes into the one its environment names: the same
/// file or database, or its sessions are not here), the home folder as `~`.
fn reading(location: &toolscope_core::history::HistoryLocation) -> String {
    let Some(path) = location.file() else {
        return format!("Reading the team history {location}");
    };
    let home = toolscope_core::settings::home_dir();
    let shown = match home
        .as_deref()
        .and_then(|home| path.strip_prefix(home).ok())
    {
        Some(inside) => format!("~/{}", inside.display()),
        None => path.display().to_string(),
    };
    format!("Reading {shown}")
}

/// The calls of the selected session (or of every proxied session), asked for again when the
/// selection changed or the history moved.
fn list_calls(model: &Model, sidebar: &mut SidebarState, actions: &mut Vec<Action>) {
    let live = model.live_sessions();
    // Listed again when a call was added, not for every line of traffic.
    let wanted = (live.selected, live.stamp.map(|stamp| stamp.calls_mark()));
    if sidebar.live.queried == Some(wanted) {
        return;
    }
    let only_newer = sidebar
        .live
        .queried
        .is_some_and(|(selected, _)| selected == wanted.0);
    sidebar.live.queried = Some(wanted);
    // The History tab's list is another: it asks again when it is back.
    sidebar.history_filter.queried = None;
    if only_newer {
        // Only the history moved: the calls since, not the whole list again.
        actions.push(workbench::HistoryAction::ListNewer.into());
        return;
    }
    actions.push(
        workbench::HistoryAction::Query(CallQuery {
            session: live.selected,
            through_proxy: live.selected.is_none(),
            ..CallQuery::default()
        })
        .into(),
    );
}

/// The sessions, newest first, in at most a third of the tab; "All sessions" first.
fn sessions_ui(model: &Model, ui: &mut Ui, actions: &mut Vec<Action>) {
    let live = model.live_sessions();
    ui.strong("Sessions through toolscope proxy");
    let row_height = ui.spacing().interact_size.y;
    let max_height = (ui.available_height() * 0.33).max(3.0 * row_height);
    egui::ScrollArea::vertical()
        .id_salt("live_sessions")
        .max_height(max_height)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            let total: u64 = live.sessions.iter().map(|session| session.calls).sum();
            let all = ui.selectable_label(
                live.selected.is_none(),
                format!(
                    "All sessions · {}",
                    toolscope_core::text_util::count_noun(total as usize, "call", "calls")
                ),
            );
            if all.clicked() && live.selected.is_some() {
                actions.push(workbench::HistoryAction::SelectSession(None).into());
            }
            for session in &live.sessions {
                let picked = live.selected == Some(session.id);
                ui.horizontal(|ui| {
                    let was_ticked = live.marked.contains(&session.id);
                    let mut ticked = was_ticked;
                    ui.checkbox(&mut ticked, "")
                        .on_hover_text("Tick two sessions to compare them")
                        .widget_info(|| {
                            egui::WidgetInfo::selected(
                                egui::Role::CheckBox,
                                true,
                                was_ticked,
                                format!("Tick session #{}", session.id),
                            )
                        });
                    if ticked != was_ticked {
                        actions.push(
                            workbench::HistoryAction::MarkSession {
                                session: session.id,
                                marked: ticked,
                            }
                            .into(),
                        );
                    }
                    // The rest of the row, its text on the left (a button in a horizontal
                    // row centres its text in the width it is given).
                    let row = ui
                        .with_layout(egui::Layout::top_down(egui::Align::Min), |ui| {
                            ui.add(
                                egui::Button::selectable(picked, session_line(session))
                                    .truncate()
                                    .min_size(egui::vec2(ui.available_width(), 0.0)),
                            )
                        })
                        .inner
                        .on_hover_text(session_details(session));
                    if row.clicked() {
                        actions
                            .push(workbench::HistoryAction::SelectSession(Some(session.id)).into());
                        actions.push(workbench::HistoryAction::Select(None).into());
                    }
                });
            }
        });
}

/// Compare, once two sessions are ticked.
fn compare_ui(model: &Model, ui: &mut Ui, actions: &mut Vec<Action>) {
    let live = model.live_sessions();
    ui.horizontal(|ui| {
        let label = match live.marked[..] {
            [a, b] => format!("Compare #{} and #{}", a.min(b), a.max(b)),
            _ => "Compare".to_owned(),
        };
        let compare = ui
            .add_enabled(live.marked.len() == 2, egui::Button::new(label))
            .on_disabled_hover_text("Tick two sessions to compare their tools and calls");
        if compare.clicked() {
            actions.push(workbench::HistoryAction::CompareSessions.into());
            actions.push(workbench::HistoryAction::Select(None).into());
        }
        if !live.marked.is_empty() {
            ui.weak(format!("{} ticked", live.marked.len()));
        }
    });
}

/// One line for a session: when, who, to what, how many calls, whether it runs.
fn session_line(session: &ProxySession) -> String {
    let time = session
        .started_at
        .get(11..19)
        .unwrap_or(&session.started_at);
    let client = session.client.as_deref().unwrap_or("a client");
    let state = if session.ended_at.is_some() {
        "ended"
    } else {
        "running"
    };
    let calls = match session.calls {
        1 => "1 call".to_owned(),
        n => format!("{n} calls"),
    };
    // The server by the name it gave itself (its command line is on hover), else as the
    // proxy named it; what is longest comes last, where the row is cut.
    let server = session.server_name.as_deref().unwrap_or(&session.server);
    format!("{time} · {calls} · {state} · {client} → {server}")
}

/// Everything the session row knows, on hover.
pub(crate) fn session_details(session: &ProxySession) -> String {
    let mut lines = vec![
        format!("Session #{} · started {}", session.id, session.started_at),
        format!(
            "Client: {}",
            session.client.as_deref().unwrap_or("(not introduced)")
        ),
        format!(
            "Server: {} {}",
            session.server_name.as_deref().unwrap_or("(not introduced)"),
            session.server_version.as_deref().unwrap_or("")
        ),
        format!("Run as: {}", session.server),
    ];
    if let Some(version) = &session.protocol_version {
        lines.push(format!("Protocol {version}"));
    }
    lines.push(format!(
        "{} calls, {} lines in its log",
        session.calls, session.log_lines
    ));
    match &session.ending {
        Some(ending) => lines.push(format!("Ended: {ending}")),
        None => lines.push("Running (or its proxy was killed before it could say)".to_owned()),
    }
    lines.join("\n")
}
