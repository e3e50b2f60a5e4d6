//! The history, in the sidebar's whole height: every call kept, newest first, narrowed by text,
//! verdict and server, as a table (`history_table.rs`). Picking one shows it beside, as it was.

use egui::Ui;

use super::{SidebarState, state::AskedFor};
use crate::{
    ui::{actions::Action, files::FileRequest},
    workbench::{self, CompareSide, HistoryStatus, Model, SelectionAction},
};
use toolscope_core::history::{CallKind, CallQuery, Verdict};

pub fn section(model: &Model, sidebar: &mut SidebarState, ui: &mut Ui, actions: &mut Vec<Action>) {
    team_unreached_ui(model, ui, actions);
    filter_ui(model, sidebar, ui, actions);
    let browser = model.history_browser();
    match model.history_status() {
        HistoryStatus::Unavailable(why) => {
            ui.add(egui::Label::new(egui::RichText::new(why).weak()).wrap());
            return;
        }
        _ if browser.loading && browser.calls.is_empty() => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak("Reading the history…");
            });
            return;
        }
        _ => {}
    }
    // A recording open is said above the table (everything below is its calls).
    if model.open_recording().is_some() {
        // Wrapped, as every row here: a panel widened once by a long row stays wide.
        ui.horizontal_wrapped(|ui| recording_ui(model, ui, actions));
    }
    ui.separator();
    if browser.grouped {
        let mut picked = None;
        super::history_groups::table(ui, browser, &mut picked);
        if let Some(tool) = picked {
            // Its calls, listed.
            sidebar.history_filter.tool = Some(tool);
            actions.push(workbench::HistoryAction::GroupByTool(false).into());
        }
        return;
    }
    calls_table(model, Marks::All, ui, actions);
}

/// The team history the window was asked to use, when it could not be reached: what that
/// means for the calls made meanwhile, and Try again.
pub(super) fn team_unreached_ui(model: &Model, ui: &mut Ui, actions: &mut Vec<Action>) {
    let Some(url) = model.team_history_unreached() else {
        return;
    };
    ui.add(
        egui::Label::new(
            egui::RichText::new(format!(
                "The team history {url} was not reached: calls are kept in the local file \
                 (toolscope history push shares them later)"
            ))
            .color(ui.visuals().warn_fg_color),
        )
        .wrap(),
    );
    if ui
        .button("Try the team history again")
        .on_hover_text("Connect to the team's database again; new calls go there once it answers")
        .clicked()
    {
        actions.push(workbench::HistoryAction::TryTeamHistoryAgain.into());
    }
}

/// Which ticked calls the footer under a table counts and acts on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Marks {
    /// Every call ticked (the History tab, whose filters may hide some).
    All,
    /// Those of the calls listed (the Live tab: the History's ticks are not its own).
    Listed,
}

/// The calls listed, as a table the rest of the height, and what to do with those ticked (the
/// History tab's and the Live tab's alike).
pub(super) fn calls_table(model: &Model, marks: Marks, ui: &mut Ui, actions: &mut Vec<Action>) {
    let row_height = ui.spacing().interact_size.y;
    // What to do with ticked calls goes below the table, in room kept for it: a tick never
    // moves the rows under the pointer.
    let below = 2.0 * (row_height + ui.spacing().item_spacing.y) + 8.0;
    super::history_table::header(ui, super::history_table::tick_width(ui));
    let height = (ui.available_height() - below).max(row_height);
    super::history_table::rows(ui, model.history_browser(), height, actions);
    ui.separator();
    marked_ui(model, marks, ui, actions);
}

/// How many calls are listed (`none`: what to say when there are none).
pub(super) fn count_text(browser: &workbench::HistoryBrowser, none: &str) -> String {
    match browser.calls.len() {
        _ if browser.loading && browser.calls.is_empty() => "…".to_owned(),
        0 => none.to_owned(),
        1 => "1 call".to_owned(),
        n => format!("{n} calls"),
    }
}

/// Find, verdict and server, with how many calls match; the list is asked for again when the
/// filter changes (and the first time it is shown).
fn filter_ui(model: &Model, sidebar: &mut SidebarState, ui: &mut Ui, actions: &mut Vec<Action>) {
    let filter = &mut sidebar.history_filter;
    let live = &mut sidebar.live;
    ui.horizontal(|ui| {
        let find = ui.label("Find");
        ui.add(
            egui::TextEdit::singleline(&mut filter.text)
                .hint_text("tool, server, arguments or note")
                .desired_width(f32::INFINITY),
        )
        .labelled_by(find.id);
    });
    let mut refresh = false;
    ui.horizontal_wrapped(|ui| {
        let shown = filter.verdict.map_or("any verdict", Verdict::as_str);
        egui::ComboBox::from_id_salt("history_verdict")
            .selected_text(shown)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut filter.verdict, None, "any verdict");
                for verdict in Verdict::ALL {
                    ui.selectable_value(&mut filter.verdict, Some(verdict), verdict.as_str());
                }
            })
            .response
            .widget_info(|| {
                egui::WidgetInfo::labeled(egui::Role::ComboBox, true, format!("Verdict: {shown}"))
            });
        server_choice_ui(model, &mut filter.server, ui);
        if model.history_is_shared() {
            person_choice_ui(model, &mut filter.person, ui);
        }
        let kind = filter
            .kind
            .map_or("calls, reads, prompts", CallKind::as_str);
        egui::ComboBox::from_id_salt("history_kind")
            .selected_text(kind)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut filter.kind, None, "calls, reads, prompts");
                for each in CallKind::ALL {
                    ui.selectable_value(&mut filter.kind, Some(each), each.method());
                }
            })
            .response
            .widget_info(|| {
                egui::WidgetInfo::labeled(egui::Role::ComboBox, true, format!("Kind: {kind}"))
            });
        let browser = model.history_browser();
        ui.weak(count_text(browser, "No calls kept yet that match"));
        // Calls another Toolscope records (a command line, a proxy) appear on their own
        // within half a second; the button asks again at once.
        refresh = super::refresh_button(ui).clicked();
        super::history_groups::toggle(ui, browser, actions);
        // What is seldom needed, in a menu: on a small screen the table keeps the height.
        if model.open_recording().is_none() {
            ui.menu_button("More", |ui| {
                recording_ui(model, ui, actions);
                ui.separator();
                ui.horizontal(|ui| cap_ui(model, ui, actions));
            })
            .response
            .on_hover_text("Open a recording, the team history, how much history to keep");
        }
    });
    if let Some(tool) = filter.tool.clone() {
        ui.horizontal(|ui| {
            ui.label(format!("Only {tool}"));
            if ui
                .small_button("✕")
                .on_hover_text("Every tool's calls again")
                .clicked()
            {
                filter.tool = None;
            }
        });
    }
    if refresh {
        filter.queried = None;
    }
    // The calls this window recorded, and the newest call another process recorded.
    let recorded = match model.history_status() {
        HistoryStatus::Open { calls, .. } => *calls,
        _ => 0,
    };
    let newest = model
        .live_sessions()
        .stamp
        .map_or((0, 0), |stamp| stamp.calls_mark());
    let wanted = AskedFor {
        text: filter.text.trim().to_owned(),
        verdict: filter.verdict,
        server: filter.server.clone(),
        tool: filter.tool.clone(),
        kind: filter.kind,
        person: filter.person.clone(),
        recorded: (recorded, newest),
    };
    if filter.queried.as_ref() != Some(&wanted) {
        // Only the history moved: the calls since, not the whole list again.
        let only_newer = filter.queried.as_ref().is_some_and(|asked| {
            AskedFor {
                recorded: wanted.recorded,
                ..asked.clone()
            } == wanted
        });
        filter.queried = Some(wanted.clone());
        if only_newer {
            actions.push(workbench::HistoryAction::ListNewer.into());
            return;
        }
        // The Live tab's list is another: it asks again when it is back.
        live.queried = None;
        let AskedFor {
            text,
            verdict,
            server,
            tool,
            kind,
            person,
            ..
        } = wanted;
        actions.push(
            workbench::HistoryAction::Query(CallQuery {
                kind,
                tool,
                server,
                verdict,
                text: (!text.is_empty()).then_some(text),
                person,
                ..CallQuery::default()
            })
            .into(),
        );
    }
}

/// Which server's calls are listed: any, or one of the window's servers (by name, as the
/// history keeps them).
fn server_choice_ui(model: &Model, chosen: &mut Option<String>, ui: &mut Ui) {
    let shown = chosen.clone().unwrap_or_else(|| "any server".to_owned());
    egui::ComboBox::from_id_salt("history_server")
        .selected_text(&shown)
        .truncate()
        .show_ui(ui, |ui| {
            ui.selectable_value(chosen, None, "any server");
            for server in model.servers() {
                ui.selectable_value(chosen, Some(server.name.clone()), &server.name);
            }
        })
        .response
        .widget_info(|| {
            egui::WidgetInfo::labeled(egui::Role::ComboBox, true, format!("Server: {shown}"))
        });
}

/// Whose calls are listed in a team's history: anyone's, or one person's (among those the
/// list shows).
fn person_choice_ui(model: &Model, chosen: &mut Option<String>, ui: &mut Ui) {
    let shown = chosen.clone().unwrap_or_else(|| "anyone".to_owned());
    let mut people: Vec<String> = model
        .history_browser()
        .calls
        .iter()
        .filter_map(|call| call.person.clone())
        .chain(chosen.clone())
        .collect();
    people.sort_unstable();
    people.dedup();
    egui::ComboBox::from_id_salt("history_person")
        .selected_text(&shown)
        .truncate()
        .show_ui(ui, |ui| {
            ui.selectable_value(chosen, None, "anyone");
            for person in people {
                let label = person.clone();
                ui.selectable_value(chosen, Some(person), label);
            }
        })
        .response
        .on_hover_text("Only the calls this person recorded (the team's history)")
        .widget_info(|| {
            egui::WidgetInfo::labeled(egui::Role::ComboBox, true, format!("Person: {shown}"))
        });
}

/// What can be done with the marked calls: compare two, write a report or a recording.
fn marked_ui(model: &Model, marks: Marks, ui: &mut Ui, actions: &mut Vec<Action>) {
    let browser = model.history_browser();
    let marked: Vec<i64> = browser
        .marked
        .iter()
        .copied()
        .filter(|id| marks == Marks::All || browser.calls.iter().any(|call| call.id == *id))
        .collect();
    if marked.is_empty() {
        ui.weak("Tick calls to compare two, or to write a report");
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.weak(format!("{} marked", marked.len()));
        if let [old, new] = marked[..] {
            // The older call on the left, whichever was marked first.
            let (old, new) = (old.min(new), old.max(new));
            if ui.button("Compare").clicked() {
                actions.push(
                    SelectionAction::Compare {
                        old: CompareSide::History(old),
                        new: CompareSide::History(new),
                    }
                    .into(),
                );
            }
        }
        let mut oldest_first = marked;
        oldest_first.sort_unstable();
        if ui.button("Report…").clicked() {
            actions.push(FileRequest::report(oldest_first.clone()).into());
        }
        if ui.button("Export…").clicked() {
            actions.push(FileRequest::recording(oldest_first).into());
        }
        if ui.small_button("Clear").clicked() {
            actions.push(SelectionAction::ClearMarks.into());
        }
    });
}

/// Which calls are listed: the history, or a recording opened in its place.
fn recording_ui(model: &Model, ui: &mut Ui, actions: &mut Vec<Action>) {
    match model.open_recording() {
        Some(open) => {
            let name = open.path.file_name().map_or_else(
                || open.path.display().to_string(),
                |n| n.to_string_lossy().into(),
            );
            let calls = open
                .calls
                .map_or_else(|| "reading…".to_owned(), |calls| format!("{calls} calls"));
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("Recording {name} · {calls}"),
            );
            if ui.small_button("Back to your history").clicked() {
                actions.push(workbench::HistoryAction::CloseRecording.into());
            }
        }
        None => {
            if ui
                .small_button("Open recording…")
                .on_hover_text("Look at calls someone exported, offline")
                .clicked()
            {
                actions.push(FileRequest::open_recording().into());
            }
            if ui
                .small_button("Team history…")
                .on_hover_text("One history for a team, on PostgreSQL")
                .clicked()
            {
                actions.push(Action::Open(crate::ui::dialogs::OpenDialog::TeamHistory));
            }
        }
    }
}

/// The history's size cap, in GB (the oldest calls go first past it).
fn cap_ui(model: &Model, ui: &mut Ui, actions: &mut Vec<Action>) {
    const GB: f64 = 1_000_000_000.0;
    let (HistoryStatus::Open { cap_bytes, .. }, None) =
        (model.history_status(), model.open_recording())
    else {
        return;
    };
    let label = ui.weak("Keep up to");
    let mut gigabytes = *cap_bytes as f64 / GB;
    let changed = ui
        .add(
            egui::DragValue::new(&mut gigabytes)
                .range(0.01..=1024.0)
                .speed(0.05)
                .max_decimals(2)
                .suffix(" GB"),
        )
        .labelled_by(label.id)
        .on_hover_text("Past this, the oldest calls go first (the newest always stays)");
    ui.weak("of calls");
    if changed.drag_stopped() || (changed.changed() && !changed.dragged()) {
        actions.push(workbench::HistoryAction::SetCap((gigabytes * GB) as u64).into());
    }
}
