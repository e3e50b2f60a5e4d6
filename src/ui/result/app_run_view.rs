//! Run the app: a tool's MCP App run in the browser from its last result. The MCP App section
//! of the request column starts and stops it and says how it stands; the result's "Through
//! the app" tab shows what passes over its bridge (both directions, the calls made for it,
//! what was blocked), newest last, the message picked shown whole; a link the app asks for is
//! put to the person in both.

use egui::RichText;

use crate::ui::actions::{Action, ViewChange};
use crate::workbench::{AppAction, Model, ToolKey, app_run_view::AppRunView};
use toolscope_core::apps::{BridgeEntry, Direction};

/// The MCP App section's part: Run the app, Open the page, Stop, and the app's state.
pub fn ui(model: &Model, ui: &mut egui::Ui, key: &ToolKey, actions: &mut Vec<Action>) {
    let run = model.app_run(key);
    let running = run.is_some_and(|run| !run.stopped);
    ui.horizontal_wrapped(|ui| {
        let label = if running {
            "Run it again"
        } else {
            "Run the app"
        };
        if ui
            .add_enabled(model.can_run_app(key), egui::Button::new(label))
            .on_hover_text(
                "Serve the app on this machine behind a sandbox, open it in your browser, and \
                 hand it the tool's last input and result",
            )
            .on_disabled_hover_text("Call the tool first: the app is given its result")
            .clicked()
        {
            actions.push(
                AppAction::Run {
                    tool: key.clone(),
                    dark: ui.visuals().dark_mode,
                }
                .into(),
            );
        }
        if running {
            buttons(ui, key, actions);
        }
    });
    let Some(run) = run else {
        return;
    };
    state_ui(ui, key, run, None);
    if !run.log.is_empty() {
        ui.weak("Its bridge log is in the result's Through the app tab");
    }
}

fn buttons(ui: &mut egui::Ui, key: &ToolKey, actions: &mut Vec<Action>) {
    if ui.button("Open the page").clicked() {
        actions.push(AppAction::OpenPage(key.clone()).into());
    }
    if ui.button("Stop").clicked() {
        actions.push(AppAction::Stop(key.clone()).into());
    }
}

/// The bridge log entry picked in the app's tab.
#[derive(Debug)]
pub struct PickedEntry {
    index: usize,
    /// Its payload made readable once, when picked, not each frame it is shown.
    pretty: String,
    /// Picked from elsewhere than the log (a check's link): scrolled to once.
    scroll: bool,
}

impl PickedEntry {
    fn of(index: usize, entry: &BridgeEntry, scroll: bool) -> Self {
        Self {
            index,
            pretty: pretty(&entry.payload),
            scroll,
        }
    }
}

/// The result's "Through the app" tab: the app's state (started and stopped in the MCP App
/// section), then every message over its bridge (the whole width), the one picked shown
/// whole below, with what links it to the checks said before the run.
pub fn tab_ui(
    ui: &mut egui::Ui,
    key: &ToolKey,
    run: &AppRunView,
    picked: &mut Option<PickedEntry>,
    actions: &mut Vec<Action>,
) {
    // What stands above the log takes at most two fifths, so the log keeps rows on a small
    // window at a large zoom.
    let mut go_to = None;
    egui::ScrollArea::vertical()
        .id_salt(("app_state", &key.name))
        .max_height(ui.available_height() * 0.4)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            state_ui(ui, key, run, Some(actions));
            ui.horizontal_wrapped(|ui| {
                calls_ui(ui, run, actions);
                go_to = checks_ui(ui, run);
            });
        });
    if let Some(at) = go_to {
        *picked = run
            .log
            .get(at)
            .map(|entry| PickedEntry::of(at, entry, true));
    }
    if run.log.is_empty() {
        return;
    }
    ui.separator();
    ui.weak(format!(
        "Bridge log: {} message(s){}; click one to see it whole",
        run.log.len() as u64 + run.dropped,
        if run.dropped > 0 {
            format!(" ({} oldest dropped)", run.dropped)
        } else {
            String::new()
        }
    ));
    let row_height =
        ui.text_style_height(&egui::TextStyle::Small) + 2.0 * ui.spacing().button_padding.y + 2.0;
    // The picked entry's detail gets at most half; the log keeps at least a few rows.
    let log_height = if picked.is_some() {
        (ui.available_height() * 0.5).max(row_height * 4.0)
    } else {
        ui.available_height()
    };
    let mut area = egui::ScrollArea::vertical()
        .id_salt(("bridge_log", &key.name))
        .max_height(log_height)
        .stick_to_bottom(picked.is_none())
        .auto_shrink([false, false]);
    if let Some(entry) = picked.as_mut().filter(|entry| entry.scroll) {
        entry.scroll = false;
        let spacing = ui.spacing().item_spacing.y;
        area = area.vertical_scroll_offset(
            (entry.index as f32 * (row_height + spacing) - log_height / 3.0).max(0.0),
        );
    }
    area.show_rows(ui, row_height, run.log.len(), |ui, rows| {
        for index in rows {
            let is_picked = picked.as_ref().is_some_and(|entry| entry.index == index);
            if let Some(entry) = run.log.get(index)
                && entry_ui(ui, entry, is_picked).clicked()
            {
                *picked = (!is_picked).then(|| PickedEntry::of(index, entry, false));
            }
        }
    });
    let Some((index, entry)) = picked
        .as_ref()
        .and_then(|picked| Some((picked.index, run.log.get(picked.index)?)))
    else {
        return;
    };
    ui.separator();
    let mut go_to = None;
    egui::ScrollArea::vertical()
        .id_salt(("bridge_entry", &key.name))
        .auto_shrink([false, false])
        .show(ui, |ui| {
            go_to = links_ui(ui, run, index, entry);
            if let Some(note) = &entry.note {
                ui.add(egui::Label::new(note.as_str()).wrap());
            }
            if let Some(picked) = picked.as_ref() {
                ui.add(
                    egui::Label::new(RichText::new(picked.pretty.as_str()).monospace().small())
                        .wrap()
                        .selectable(true),
                );
            }
        });
    if let Some(target) = go_to.and_then(|at| Some((at, run.log.get(at)?))) {
        *picked = Some(PickedEntry::of(target.0, target.1, true));
    }
}

/// What a host checks before the run, each a button to its entry (and from there to what
/// bore it out); the entry clicked is returned.
fn checks_ui(ui: &mut egui::Ui, run: &AppRunView) -> Option<usize> {
    let checks: Vec<(usize, &BridgeEntry)> = run
        .log
        .iter()
        .enumerate()
        .filter(|(_, entry)| entry.method == "lint")
        .collect();
    if checks.is_empty() {
        return None;
    }
    let mut go_to = None;
    {
        ui.label("Checked before the run:");
        for (at, entry) in checks {
            let borne_out = run
                .log
                .iter()
                .filter(|other| other.check == entry.check && other.method != "lint")
                .count();
            let label = format!(
                "check {}{}",
                entry.check.unwrap_or_default(),
                if borne_out > 0 {
                    format!(" ({borne_out} at run time)")
                } else {
                    String::new()
                }
            );
            if ui
                .small_button(label)
                .on_hover_text(entry.note.clone().unwrap_or_default())
                .clicked()
            {
                go_to = Some(at);
            }
        }
    }
    go_to
}

/// A check said before the run links to the entries that bore it out, and such an entry back
/// to its check; the entry picked by a click is returned.
fn links_ui(
    ui: &mut egui::Ui,
    run: &AppRunView,
    index: usize,
    entry: &BridgeEntry,
) -> Option<usize> {
    let number = entry.check?;
    let mut go_to = None;
    if entry.method == "lint" {
        let borne_out: Vec<(usize, &BridgeEntry)> = run
            .log
            .iter()
            .enumerate()
            .filter(|(at, other)| {
                *at != index && other.check == Some(number) && other.method != "lint"
            })
            .collect();
        ui.horizontal_wrapped(|ui| {
            if borne_out.is_empty() {
                ui.weak(format!(
                    "Check {number}: nothing in this run has borne it out yet"
                ));
                return;
            }
            ui.label(format!("Check {number} at run time:"));
            for (at, other) in borne_out {
                if ui
                    .small_button(format!("{} ms {}", other.at.as_millis(), other.method))
                    .on_hover_text("Show this entry of the log")
                    .clicked()
                {
                    go_to = Some(at);
                }
            }
        });
    } else if let Some(at) = run
        .log
        .iter()
        .position(|other| other.method == "lint" && other.check == Some(number))
    {
        ui.horizontal_wrapped(|ui| {
            ui.label("Said before the run:");
            if ui
                .small_button(format!("check {number}"))
                .on_hover_text(run.log[at].note.clone().unwrap_or_default())
                .clicked()
            {
                go_to = Some(at);
            }
        });
    }
    go_to
}

/// A payload indented; one cut at its bound is not JSON any more and is shown as it is.
fn pretty(payload: &str) -> String {
    match toolscope_core::deep_json::parse(payload) {
        Ok(value) => {
            let text = toolscope_core::deep_json::to_string_pretty(&value);
            toolscope_core::deep_json::drop_value(value);
            text
        }
        Err(_) => payload.to_owned(),
    }
}

/// The app's own calls, each opened in the two panes from the history.
fn calls_ui(ui: &mut egui::Ui, run: &AppRunView, actions: &mut Vec<Action>) {
    let recorded: Vec<i64> = run.calls.iter().filter_map(|(_, id)| *id).collect();
    if recorded.is_empty() {
        return;
    }
    ui.label("The app's calls:");
    for id in recorded {
        if ui
            .small_button(format!("#{id}"))
            .on_hover_text("Open it in the two panes (from the history)")
            .clicked()
        {
            actions.push(Action::View(ViewChange::ShowHistoryCall(id)));
        }
    }
    ui.add_space(ui.spacing().item_spacing.x * 2.0);
}

/// How the app stands, its address, why it failed, and a link it asks for (answered where
/// `actions` are given: the tab; the request column only says it).
fn state_ui(ui: &mut egui::Ui, key: &ToolKey, run: &AppRunView, actions: Option<&mut Vec<Action>>) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(format!("The app: {}", run.state)).strong());
        if let Some(url) = &run.url {
            if ui
                .small_button("Copy its address")
                .on_hover_text(url)
                .clicked()
            {
                ui.ctx().copy_text(url.clone());
            }
            ui.add(egui::Label::new(RichText::new(url).monospace().small()).truncate());
        }
    });
    if let Some(why) = &run.failure {
        ui.colored_label(ui.visuals().error_fg_color, why);
    }
    if let Some((url, _)) = &run.link {
        ui.horizontal_wrapped(|ui| {
            ui.label(
                RichText::new(format!("The app asks to open {url}"))
                    .color(ui.visuals().warn_fg_color),
            );
            let Some(actions) = actions else {
                ui.weak("(answer in the result's Through the app tab)");
                return;
            };
            for (label, open) in [("Open the link", true), ("Don't open it", false)] {
                if ui.small_button(label).clicked() {
                    actions.push(
                        AppAction::AnswerLink {
                            tool: key.clone(),
                            open,
                        }
                        .into(),
                    );
                }
            }
        });
    }
}

/// One message: when, which way, the method, and what it means (or its payload, cut).
fn entry_ui(ui: &mut egui::Ui, entry: &BridgeEntry, picked: bool) -> egui::Response {
    let what = entry
        .note
        .clone()
        .unwrap_or_else(|| toolscope_core::text_util::one_line(&entry.payload, 300));
    let refused = entry.method == "blocked"
        || entry.check.is_some()
        || what.starts_with("refused")
        || what.starts_with("not opened")
        || what.starts_with("ignored");
    let line = format!(
        "{:>6} ms  {:<13} {}{}  {}",
        entry.at.as_millis(),
        entry.direction.arrow(),
        entry.method,
        entry
            .id
            .as_deref()
            .map(|id| format!(" #{id}"))
            .unwrap_or_default(),
        what
    );
    let mut text = RichText::new(line).monospace().small();
    if refused {
        text = text.color(ui.visuals().warn_fg_color);
    } else if entry.direction == Direction::Host {
        text = text.weak();
    }
    ui.add(egui::Button::selectable(picked, text).truncate())
}
