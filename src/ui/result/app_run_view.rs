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
            actions.push(AppAction::Run(key.clone()).into());
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

/// The result's "Through the app" tab: the app's state (started and stopped in the MCP App
/// section), then every message over its bridge (the whole width), the one picked shown
/// whole below.
pub fn tab_ui(
    ui: &mut egui::Ui,
    key: &ToolKey,
    run: &AppRunView,
    picked: &mut Option<(usize, String)>,
    actions: &mut Vec<Action>,
) {
    state_ui(ui, key, run, Some(actions));
    calls_ui(ui, run, actions);
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
    let log_height = if picked.is_some() {
        ui.available_height() * 0.55
    } else {
        ui.available_height()
    };
    egui::ScrollArea::vertical()
        .id_salt(("bridge_log", &key.name))
        .max_height(log_height)
        .stick_to_bottom(true)
        .auto_shrink([false, false])
        .show_rows(ui, row_height, run.log.len(), |ui, rows| {
            for index in rows {
                let is_picked = picked.as_ref().is_some_and(|(at, _)| *at == index);
                if let Some(entry) = run.log.get(index)
                    && entry_ui(ui, entry, is_picked).clicked()
                {
                    // Made readable once, when picked, not each frame it is shown.
                    *picked = (!is_picked).then(|| (index, pretty(&entry.payload)));
                }
            }
        });
    if let Some((entry, pretty)) = picked
        .as_ref()
        .and_then(|(index, pretty)| Some((run.log.get(*index)?, pretty)))
    {
        ui.separator();
        egui::ScrollArea::vertical()
            .id_salt(("bridge_entry", &key.name))
            .auto_shrink([false, false])
            .show(ui, |ui| {
                if let Some(note) = &entry.note {
                    ui.add(egui::Label::new(note.as_str()).wrap());
                }
                ui.add(
                    egui::Label::new(RichText::new(pretty.as_str()).monospace().small())
                        .wrap()
                        .selectable(true),
                );
            });
    }
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
    ui.horizontal_wrapped(|ui| {
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
    });
}

/// How the app stands, its address, why it failed, and a link it asks for (answered where
/// `actions` are given: the tab; the request column only says it).
fn state_ui(ui: &mut egui::Ui, key: &ToolKey, run: &AppRunView, actions: Option<&mut Vec<Action>>) {
    ui.label(RichText::new(format!("The app: {}", run.state)).strong());
    if let Some(url) = &run.url {
        ui.horizontal_wrapped(|ui| {
            ui.add(egui::Label::new(RichText::new(url).monospace().small()).truncate())
                .on_hover_text(url);
            if ui.small_button("Copy").clicked() {
                ui.ctx().copy_text(url.clone());
            }
        });
    }
    if let Some(why) = &run.failure {
        ui.colored_label(ui.visuals().error_fg_color, why);
    }
    if let Some((url, _)) = &run.link {
        ui.add(
            egui::Label::new(
                RichText::new(format!("The app asks to open {url}"))
                    .color(ui.visuals().warn_fg_color),
            )
            .wrap(),
        );
        let Some(actions) = actions else {
            ui.weak("Answer in the result's Through the app tab");
            return;
        };
        ui.horizontal_wrapped(|ui| {
            if ui.button("Open the link").clicked() {
                actions.push(
                    AppAction::AnswerLink {
                        tool: key.clone(),
                        open: true,
                    }
                    .into(),
                );
            }
            if ui.button("Don't open it").clicked() {
                actions.push(
                    AppAction::AnswerLink {
                        tool: key.clone(),
                        open: false,
                    }
                    .into(),
                );
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
