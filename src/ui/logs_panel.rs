//! The bottom panel: the protocol log, the server's stderr and its log messages, each
//! bounded, virtualized and filterable. Matching rows are recomputed only when the log or the
//! filter changes, and only the visible rows are formatted.

use super::app::ToolscopeApp;
use crate::{
    session::tap::{Direction, Fidelity, TapEntry},
    workbench::ServerId,
};

const ROW_HEIGHT: f32 = 18.0;
/// Characters of a message shown in its row (the full text is a click away in the raw view).
const ROW_CHARS: usize = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogsTab {
    Protocol,
    Stderr,
    ServerLog,
}

/// The rows matching the filter, and what they were computed for; and the message picked
/// for the detail view.
#[derive(Default)]
pub struct LogRows {
    key: Option<(ServerId, u8, String, u64)>,
    rows: Vec<usize>,
    /// `seq` of the protocol message shown in full beside the log.
    selected: Option<u64>,
    /// That message pretty-printed (when it is JSON), made once per selection.
    pretty: Option<(u64, Option<String>)>,
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
            let tab = app.logs_tab;
            let filter = app.log_filter.to_lowercase();
            let Some(server) = app.servers.iter().find(|s| s.id == app.selected_server) else {
                return;
            };
            let cache = &mut app.log_rows;
            if tab == LogsTab::ServerLog {
                let generation = server.log_messages.len() as u64;
                cache.refresh((server.id, tab as u8, filter.clone(), generation), || {
                    matching(server.log_messages.iter().map(String::as_str), &filter)
                });
                rows_ui(ui, tab, &cache.rows, |index| {
                    server.log_messages[index].clone()
                });
                return;
            }
            let Some(tap) = &server.tap else {
                ui.weak("Connect the server to see its traffic");
                return;
            };
            let logs = tap.logs();
            let (dropped, dropped_bytes) = match tab {
                LogsTab::Protocol => (logs.messages.dropped, logs.messages.dropped_bytes),
                _ => (logs.stderr.dropped, logs.stderr.dropped_bytes),
            };
            if dropped > 0 {
                ui.weak(format!(
                    "{dropped} older entries ({dropped_bytes} bytes) were dropped to bound memory"
                ));
            }
            let key = (server.id, tab as u8, filter.clone(), logs.generation);
            if tab == LogsTab::Protocol {
                cache.refresh(key, || {
                    let texts = logs.messages.items.iter().map(|entry| entry.text.as_ref());
                    let labels: Vec<&str> = logs
                        .messages
                        .items
                        .iter()
                        .map(|e| e.label.as_str())
                        .collect();
                    let mut rows = matching(texts, &filter);
                    if !filter.is_empty() {
                        // A label match counts too (`tools/call`, `error #3`).
                        let by_label = matching(labels.iter().copied(), &filter);
                        rows.extend(by_label);
                        rows.sort_unstable();
                        rows.dedup();
                    }
                    rows
                });
                let selected = cache
                    .selected
                    .and_then(|seq| logs.messages.items.iter().find(|entry| entry.seq == seq));
                if let Some(entry) = selected {
                    egui::Panel::right("log_detail")
                        .resizable(true)
                        .default_size(ui.available_width() * 0.4)
                        .show(ui, |ui| detail_ui(ui, entry, cache));
                }
                let clicked = rows_ui(ui, tab, &cache.rows, |index| {
                    entry_line(&logs.messages.items[index])
                });
                if let Some(index) = clicked {
                    cache.selected = Some(logs.messages.items[index].seq);
                }
            } else {
                cache.refresh(key, || {
                    matching(logs.stderr.items.iter().map(|l| l.text.as_str()), &filter)
                });
                rows_ui(ui, tab, &cache.rows, |index| {
                    let line = &logs.stderr.items[index];
                    format!("{:>8.3}s {}", line.at.as_secs_f64(), clip(&line.text))
                });
            }
        });
}

impl LogRows {
    fn refresh(&mut self, key: (ServerId, u8, String, u64), compute: impl FnOnce() -> Vec<usize>) {
        if self.key.as_ref() != Some(&key) {
            self.rows = compute();
            self.key = Some(key);
        }
    }
}

/// Indices of the texts containing `filter` (already lower case), ignoring case.
fn matching<'a>(texts: impl Iterator<Item = &'a str>, filter: &str) -> Vec<usize> {
    texts
        .enumerate()
        .filter(|(_, text)| filter.is_empty() || text.to_lowercase().contains(filter))
        .map(|(index, _)| index)
        .collect()
}

/// Draws the visible rows; returns the index of a row that was clicked.
fn rows_ui(
    ui: &mut egui::Ui,
    tab: LogsTab,
    rows: &[usize],
    line: impl Fn(usize) -> String,
) -> Option<usize> {
    if rows.is_empty() {
        ui.weak("Nothing here yet");
        return None;
    }
    let mut clicked = None;
    egui::ScrollArea::both()
        .id_salt(("logs", tab as u8))
        .auto_shrink(false)
        .stick_to_bottom(true)
        .show_rows(ui, ROW_HEIGHT, rows.len(), |ui, range| {
            for row in &rows[range] {
                let text = egui::RichText::new(line(*row)).monospace();
                let label = egui::Label::new(text).sense(egui::Sense::click()).extend();
                if ui
                    .add(label)
                    .on_hover_cursor(egui::CursorIcon::PointingHand)
                    .clicked()
                {
                    clicked = Some(*row);
                }
            }
        });
    clicked
}

/// One protocol message in full, pretty when it is JSON.
fn detail_ui(ui: &mut egui::Ui, entry: &TapEntry, cache: &mut LogRows) {
    ui.horizontal(|ui| {
        ui.strong(&entry.label);
        if ui.small_button("Copy").clicked() {
            ui.ctx().copy_text(entry.text.to_string());
        }
        if ui.small_button("Close").clicked() {
            cache.selected = None;
        }
    });
    if entry.bytes > entry.text.len() {
        ui.weak(format!(
            "The log keeps the first {} of its {} bytes",
            entry.text.len(),
            entry.bytes
        ));
    }
    if cache
        .pretty
        .as_ref()
        .is_none_or(|(seq, _)| *seq != entry.seq)
    {
        let pretty = serde_json::from_str::<serde_json::Value>(&entry.text)
            .ok()
            .and_then(|value| serde_json::to_string_pretty(&value).ok());
        cache.pretty = Some((entry.seq, pretty));
    }
    let pretty = cache
        .pretty
        .as_ref()
        .and_then(|(_, pretty)| pretty.as_deref());
    egui::ScrollArea::both()
        .id_salt("log_detail_scroll")
        .auto_shrink(false)
        .show(ui, |ui| {
            let text = pretty.unwrap_or(&entry.text);
            ui.add(egui::Label::new(egui::RichText::new(text).monospace()).selectable(true));
        });
}

fn entry_line(entry: &TapEntry) -> String {
    let arrow = match entry.direction {
        Direction::ToServer => "→",
        Direction::FromServer => "←",
    };
    let mark = match entry.fidelity {
        Fidelity::Exact => "",
        Fidelity::Reserialized => " (re-serialized)",
    };
    let size = if entry.bytes > ROW_CHARS {
        format!(" ({} bytes)", entry.bytes)
    } else {
        String::new()
    };
    format!(
        "{:>8.3}s {arrow} {}{mark}{size}  {}",
        entry.at.as_secs_f64(),
        entry.label,
        clip(&entry.text)
    )
}

fn clip(text: &str) -> String {
    crate::text_util::clip_chars(text, ROW_CHARS)
}
