//! Run the app: a tool's MCP App run in the browser from its last result, and what passes over
//! its bridge (both directions, the calls made for it, what was blocked), newest last, with a
//! link it asks for put to the person.

use egui::RichText;

use crate::ui::actions::Action;
use crate::workbench::{AppAction, Model, ToolKey, app_run_view::AppRunView};
use toolscope_core::apps::{BridgeEntry, Direction};

/// Rows of the bridge log shown at once (it scrolls).
const LOG_HEIGHT: f32 = 260.0;

pub fn ui(model: &Model, ui: &mut egui::Ui, key: &ToolKey, actions: &mut Vec<Action>) {
    let run = model.app_run(key);
    let running = run.is_some_and(|run| !run.stopped);
    ui.horizontal_wrapped(|ui| {
        let can_run = model.can_run_app(key);
        let label = if running {
            "Run it again"
        } else {
            "Run the app"
        };
        if ui
            .add_enabled(can_run, egui::Button::new(label))
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
            if ui.button("Open the page").clicked() {
                actions.push(AppAction::OpenPage(key.clone()).into());
            }
            if ui.button("Stop").clicked() {
                actions.push(AppAction::Stop(key.clone()).into());
            }
        }
    });
    let Some(run) = run else {
        return;
    };
    run_ui(ui, key, run, actions);
}

fn run_ui(ui: &mut egui::Ui, key: &ToolKey, run: &AppRunView, actions: &mut Vec<Action>) {
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
            .wrap_mode(egui::TextWrapMode::Wrap),
        );
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
    if run.log.is_empty() {
        return;
    }
    ui.label(
        RichText::new(format!(
            "Bridge log ({} messages)",
            run.log.len() as u64 + run.dropped
        ))
        .weak(),
    );
    let row_height = ui.text_style_height(&egui::TextStyle::Small) + 4.0;
    egui::ScrollArea::vertical()
        .id_salt(("bridge_log", &key.name))
        .max_height(LOG_HEIGHT)
        .stick_to_bottom(true)
        .auto_shrink([false, true])
        .show_rows(ui, row_height, run.log.len(), |ui, rows| {
            for entry in run.log.range(rows) {
                entry_ui(ui, entry);
            }
        });
}

/// One message: when, which way, the method, and what it means (or its payload on hover).
fn entry_ui(ui: &mut egui::Ui, entry: &BridgeEntry) {
    let warn = ui.visuals().warn_fg_color;
    let what = entry
        .note
        .clone()
        .unwrap_or_else(|| toolscope_core::text_util::one_line(&entry.payload, 200));
    let blocked =
        entry.method == "blocked" || what.starts_with("refused") || what.starts_with("not opened");
    let text = format!(
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
    let mut text = RichText::new(text).monospace().small();
    if blocked {
        text = text.color(warn);
    } else if entry.direction == Direction::Host {
        text = text.weak();
    }
    let label = ui.add(egui::Label::new(text).truncate());
    if !entry.payload.is_empty() {
        label.on_hover_ui(|ui| {
            ui.set_max_width(600.0);
            ui.add(egui::Label::new(RichText::new(&entry.payload).monospace().small()).wrap());
        });
    }
}
