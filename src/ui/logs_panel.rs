//! The bottom panel: the protocol log, the server's stderr and its log messages, each
//! bounded, virtualized and filterable.

use super::app::ToolscopeApp;
use crate::session::tap::{Direction, Fidelity};

const ROW_HEIGHT: f32 = 18.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogsTab {
    Protocol,
    Stderr,
    ServerLog,
}

pub fn ui(app: &mut ToolscopeApp, ui: &mut egui::Ui) {
    egui::Panel::bottom("logs_panel")
        .resizable(true)
        .default_size(220.0)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut app.logs_tab, LogsTab::Protocol, "Protocol log");
                ui.selectable_value(&mut app.logs_tab, LogsTab::Stderr, "Server stderr");
                ui.selectable_value(&mut app.logs_tab, LogsTab::ServerLog, "Server log messages");
                ui.separator();
                let label = ui.label("Filter");
                ui.add(egui::TextEdit::singleline(&mut app.log_filter).desired_width(200.0))
                    .labelled_by(label.id);
            });
            let Some(server) = app.servers.iter().find(|s| s.id == app.selected_server) else {
                return;
            };
            let filter = app.log_filter.to_lowercase();
            let keep = |text: &str| filter.is_empty() || text.to_lowercase().contains(&filter);
            let rows: Vec<String> = match app.logs_tab {
                LogsTab::ServerLog => server.log_messages.iter().filter(|l| keep(l)).cloned().collect(),
                LogsTab::Protocol | LogsTab::Stderr => {
                    let Some(tap) = &server.tap else {
                        ui.weak("Connect the server to see its traffic");
                        return;
                    };
                    let logs = tap.logs();
                    let (dropped, dropped_bytes) = match app.logs_tab {
                        LogsTab::Protocol => (logs.messages.dropped, logs.messages.dropped_bytes),
                        _ => (logs.stderr.dropped, logs.stderr.dropped_bytes),
                    };
                    if dropped > 0 {
                        ui.weak(format!("{dropped} older entries ({dropped_bytes} bytes) were dropped to bound memory"));
                    }
                    if app.logs_tab == LogsTab::Protocol {
                        logs.messages
                            .items
                            .iter()
                            .map(|entry| {
                                let arrow = match entry.direction {
                                    Direction::ToServer => "→",
                                    Direction::FromServer => "←",
                                };
                                let mark = match entry.fidelity {
                                    Fidelity::Exact => "",
                                    Fidelity::Reserialized => " (re-serialized)",
                                };
                                let cut = if entry.bytes > entry.text.len() {
                                    format!(" … ({} bytes in all)", entry.bytes)
                                } else {
                                    String::new()
                                };
                                format!(
                                    "{:>8.3}s {arrow} {}{mark}  {}{cut}",
                                    entry.at.as_secs_f64(),
                                    entry.label,
                                    entry.text
                                )
                            })
                            .filter(|line| keep(line))
                            .collect()
                    } else {
                        logs.stderr
                            .items
                            .iter()
                            .map(|line| format!("{:>8.3}s {}", line.at.as_secs_f64(), line.text))
                            .filter(|line| keep(line))
                            .collect()
                    }
                }
            };
            if rows.is_empty() {
                ui.weak("Nothing here yet");
                return;
            }
            egui::ScrollArea::both()
                .id_salt(("logs", app.logs_tab as u8))
                .auto_shrink(false)
                .stick_to_bottom(true)
                .show_rows(ui, ROW_HEIGHT, rows.len(), |ui, range| {
                    for row in &rows[range] {
                        let line: String = row.chars().take(600).collect();
                        ui.add(egui::Label::new(egui::RichText::new(line).monospace()).selectable(true).extend());
                    }
                });
        });
}
