//! The Server tab, beside the sidebar: what the selected server said about itself, its
//! declared capabilities in words (with what its protocol era deprecates), its log level,
//! round trips, and load runs (`load_view.rs`).

use egui::RichText;

use crate::ui::{
    actions::{Action, ViewChange},
    widgets,
};
use crate::workbench::{self, Model};
use toolscope_core::session::catalog::capability_words;

/// The levels of `notifications/message`, quietest last (RFC 5424).
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

pub fn ui(
    model: &Model,
    request: &super::request_state::RequestState,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    let Some(server) = model.selected_server() else {
        return;
    };
    let Some(summary) = server.summary() else {
        ui.weak("Connect the server to see what it declares");
        return;
    };
    egui::ScrollArea::vertical()
        .id_salt("server_view")
        .auto_shrink(false)
        .show(ui, |ui| {
            // A column a person reads, not a line across a wide window.
            ui.set_max_width(ui.available_width().min(720.0));
            let name = summary
                .title
                .as_deref()
                .or(summary.name.as_deref())
                .unwrap_or(&server.name);
            ui.heading(format!(
                "{name} {}",
                summary.version.as_deref().unwrap_or_default()
            ));
            ui.label(format!(
                "protocol {} ({})",
                summary.protocol_version, summary.lifecycle
            ));
            ui.separator();
            ui.strong("It declares");
            let declared = capability_words::capabilities_in_words(summary);
            if declared.is_empty() {
                ui.weak("no capabilities");
            }
            for words in &declared {
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new(&words.key).monospace());
                    // Wrapped at the column: a long sentence must not run off a small window.
                    ui.add(egui::Label::new(&words.sentence).wrap());
                });
                if let Some(note) = &words.deprecation {
                    widgets::warning(ui, note);
                }
            }
            // What Toolscope offers it, deprecated on this era.
            let client = &server.client.declared;
            for (feature, offered) in [("roots", client.roots), ("sampling", client.sampling)] {
                if offered && let Some(note) = capability_words::deprecation_note(summary, feature)
                {
                    widgets::warning(ui, &format!("Toolscope offers {feature}: {note}"));
                }
            }
            if let Some(instructions) = &summary.instructions {
                egui::CollapsingHeader::new("Instructions")
                    .id_salt(("instructions", server.id))
                    .show(ui, |ui| {
                        ui.add(egui::Label::new(instructions).selectable(true).wrap());
                    });
            }
            ui.separator();
            log_level_ui(server, summary, ui, actions);
            ui.separator();
            round_trips_ui(server, ui, actions);
            ui.separator();
            super::load_view::ui((model, request), server, ui, actions);
            if let Some(problem) = &server.features.problem {
                ui.colored_label(ui.visuals().error_fg_color, problem);
            }
        });
}

fn log_level_ui(
    server: &workbench::ServerState,
    summary: &toolscope_core::session::ServerSummary,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    ui.strong("Log level");
    if summary.capabilities.get("logging").is_none() && !summary.is_modern_era() {
        ui.weak("The server does not declare logging");
        return;
    }
    let current = server.features.log_level.as_deref();
    let id = egui::Id::unique(("log_level_choice", server.id));
    let mut chosen = ui
        .data(|data| data.get_temp::<String>(id))
        .or_else(|| current.map(str::to_owned))
        .unwrap_or_else(|| "info".to_owned());
    ui.horizontal(|ui| {
        let label = ui.label("Level");
        egui::ComboBox::from_id_salt(("log_level", server.id))
            .selected_text(&chosen)
            .height(f32::INFINITY)
            .show_ui(ui, |ui| {
                for level in LOG_LEVELS {
                    ui.selectable_value(&mut chosen, level.to_owned(), level);
                }
            })
            .response
            .labelled_by(label.id);
        let how = if summary.is_modern_era() {
            "Sent in the _meta of every request from now on (2026-07-28 has no logging/setLevel)"
        } else {
            "Sends logging/setLevel: the server sends messages at this level and above"
        };
        if ui.button("Set").on_hover_text(how).clicked() {
            actions.push(
                workbench::FeatureAction::SetLogLevel {
                    server: server.id,
                    level: chosen.clone(),
                }
                .into(),
            );
        }
    });
    ui.data_mut(|data| data.insert_temp(id, chosen));
    match current {
        Some(level) => ui.label(format!("Set to {level}")),
        None => ui.weak("Not set: the server's own default"),
    };
    ui.horizontal(|ui| {
        ui.label(format!("{} messages", server.log_count));
        if ui
            .button("Show the messages")
            .on_hover_text("The server's log messages (notifications/message), by level")
            .clicked()
        {
            actions.push(Action::View(ViewChange::ShowServerLog));
        }
    });
}

fn round_trips_ui(server: &workbench::ServerState, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let features = &server.features;
    ui.horizontal(|ui| {
        ui.strong("Round trip");
        let ping = ui.add_enabled(!features.pinging, egui::Button::new("Ping"));
        if ping
            .on_hover_text(
                "ping, or server/discover on 2026-07-28 (which removed ping): the time from \
                 sending to the answer",
            )
            .clicked()
        {
            actions.push(workbench::FeatureAction::Ping(server.id).into());
        }
        if features.pinging {
            ui.spinner();
        }
    });
    if let Some(spread) = features.round_trip_spread() {
        ui.label(format!(
            "min {} · median {} · p95 {} · max {} over {}",
            millis(spread.fastest),
            millis(spread.median),
            millis(spread.p95),
            millis(spread.slowest),
            toolscope_core::text_util::count_noun(spread.count, "round trip", "round trips")
        ));
    }
    for trip in features.round_trips.iter().rev().take(5) {
        match &trip.result {
            Ok(took) => ui.label(format!("{} {}", trip.method, millis(*took))),
            Err(error) => ui.colored_label(
                ui.visuals().error_fg_color,
                format!("{} failed: {error}", trip.method),
            ),
        };
    }
}

fn millis(duration: std::time::Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}
