//! The bottom panel: the protocol log, the server's stderr and its log messages, each
//! bounded, virtualized and filterable. It draws from the window's own copy of the logs
//! (`log_mirror`), brought up to date once a frame with only what is new.

use std::collections::HashMap;

use crate::ui::log_mirror::{LogMirror, contains_ignoring_case};
use crate::ui::server_view::LOG_LEVELS;
use crate::workbench::{Model, ServerId};
use toolscope_core::session::transports::tap::{Direction, Fidelity, TapEntry};

const ROW_HEIGHT: f32 = 18.0;
/// Characters of a message shown in its row (the full text is a click away in the raw view).
const ROW_CHARS: usize = 400;

/// What the logs panel keeps: whether it is open, its tab, the filter, the mirrored rows.
#[derive(Default)]
pub struct LogsState {
    pub open: bool,
    pub tab: LogsTab,
    pub filter: String,
    /// Server log messages below this level (an index in `LOG_LEVELS`) are not shown.
    pub min_level: usize,
    pub rows: LogRows,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LogsTab {
    #[default]
    Protocol,
    Stderr,
    ServerLog,
}

/// Per server, the mirrored logs; and the message picked for the detail view.
#[derive(Default)]
pub struct LogRows {
    mirrors: HashMap<ServerId, LogMirror>,
    /// `seq` of the protocol message shown in full beside the log.
    selected: Option<u64>,
    /// That message pretty-printed (when it is JSON), made once per selection.
    pretty: Option<(u64, Option<String>)>,
    /// A stderr line or log message picked to be read whole, and in which tab.
    picked_line: Option<(LogsTab, String)>,
}

pub fn ui(model: &Model, logs: &mut LogsState, ui: &mut egui::Ui) {
    egui::Panel::bottom("logs_panel")
        .resizable(true)
        .default_size(220.0)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut logs.tab, LogsTab::Protocol, "Protocol log");
                ui.selectable_value(&mut logs.tab, LogsTab::Stderr, "Server stderr");
                ui.selectable_value(&mut logs.tab, LogsTab::ServerLog, "Server log messages");
                ui.separator();
                let label = ui.label("Filter");
                ui.add(egui::TextEdit::singleline(&mut logs.filter).desired_width(200.0))
                    .labelled_by(label.id);
                if logs.tab == LogsTab::ServerLog {
                    let label = ui.label("At least");
                    egui::ComboBox::from_id_salt("log_min_level")
                        .selected_text(LOG_LEVELS[logs.min_level.min(LOG_LEVELS.len() - 1)])
                        .show_ui(ui, |ui| {
                            for (index, level) in LOG_LEVELS.iter().enumerate() {
                                ui.selectable_value(&mut logs.min_level, index, *level);
                            }
                        })
                        .response
                        .labelled_by(label.id);
                }
            });
            let tab = logs.tab;
            let Some(server) = model.selected_server() else {
                return;
            };
            let rows = &mut logs.rows;
            let mirror = rows.mirrors.entry(server.id).or_default();
            let filter = logs.filter.as_str();
            if tab == LogsTab::ServerLog {
                mirror.sync_server_log(&server.log_messages, server.log_count);
                let log = &mut mirror.server_log;
                // The level is part of what is filtered by: "[warning…" keeps its place in
                // the text filter's key so a change of either filters again.
                let min_level = logs.min_level;
                let key = format!("{min_level}\u{0}{filter}");
                let needle = filter.to_lowercase();
                log.refresh_matches(&key, |line, _| {
                    line_level(line).is_none_or(|level| level >= min_level)
                        && (needle.is_empty() || contains_ignoring_case(line, &needle))
                });
                line_detail_ui(ui, tab, &mut rows.picked_line);
                let visuals = ui.visuals().clone();
                let clicked = rows_ui(ui, tab, log.match_count(), |row| {
                    log.matched(row)
                        .map(|line| (clip(line), level_color(&visuals, line_level(line))))
                        .unwrap_or_default()
                });
                if let Some(line) = clicked.and_then(|row| log.matched(row)) {
                    rows.picked_line = Some((tab, line.clone()));
                }
                return;
            }
            let Some(tap) = &server.tap else {
                ui.weak("Connect the server to see its traffic");
                return;
            };
            mirror.sync(tap);
            if tab == LogsTab::Protocol {
                let log = &mut mirror.messages;
                log.refresh_matches(filter, |entry, needle| {
                    // A label match counts too (`tools/call`, `error #3`).
                    contains_ignoring_case(&entry.text, needle)
                        || contains_ignoring_case(&entry.label, needle)
                });
                dropped_ui(ui, log.missed);
                let selected = rows
                    .selected
                    .and_then(|seq| log.lines.iter().find(|entry| entry.seq == seq));
                if let Some(entry) = selected {
                    let (selected, pretty) = (&mut rows.selected, &mut rows.pretty);
                    egui::Panel::right("log_detail")
                        .resizable(true)
                        .default_size(ui.available_width() * 0.4)
                        .show(ui, |ui| detail_ui(ui, entry, selected, pretty));
                }
                let clicked = rows_ui(ui, tab, log.match_count(), |row| {
                    log.matched(row)
                        .map(|entry| (entry_line(entry), None))
                        .unwrap_or_default()
                });
                if let Some(row) = clicked {
                    rows.selected = log.matched(row).map(|entry| entry.seq);
                }
            } else {
                let log = &mut mirror.stderr;
                log.refresh_matches(filter, |line, needle| {
                    contains_ignoring_case(&line.text, needle)
                });
                dropped_ui(ui, log.missed);
                line_detail_ui(ui, tab, &mut rows.picked_line);
                let clicked = rows_ui(ui, tab, log.match_count(), |row| {
                    log.matched(row)
                        .map(|line| {
                            let text =
                                format!("{:>8.3}s {}", line.at.as_secs_f64(), clip(&line.text));
                            (text, None)
                        })
                        .unwrap_or_default()
                });
                if let Some(line) = clicked.and_then(|row| log.matched(row)) {
                    rows.picked_line = Some((tab, line.text.clone()));
                }
            }
        });
}

fn dropped_ui(ui: &mut egui::Ui, missed: u64) {
    if missed > 0 {
        ui.weak(format!(
            "{missed} entries arrived faster than the log keeps them and were dropped to bound memory"
        ));
    }
}

/// A server log message's level (an index in `LOG_LEVELS`), from its `[level logger]` start.
fn line_level(line: &str) -> Option<usize> {
    let level = line.strip_prefix('[')?.split([' ', ']']).next()?;
    LOG_LEVELS.iter().position(|known| *known == level)
}

/// A log message's colour by its level: debug faint, warnings and worse in their colours.
fn level_color(visuals: &egui::Visuals, level: Option<usize>) -> Option<egui::Color32> {
    match *LOG_LEVELS.get(level?)? {
        "debug" => Some(visuals.weak_text_color()),
        "warning" => Some(visuals.warn_fg_color),
        "error" | "critical" | "alert" | "emergency" => Some(visuals.error_fg_color),
        _ => None,
    }
}

/// Draws the visible rows (each its text and colour); returns the row that was clicked.
fn rows_ui(
    ui: &mut egui::Ui,
    tab: LogsTab,
    count: usize,
    line: impl Fn(usize) -> (String, Option<egui::Color32>),
) -> Option<usize> {
    if count == 0 {
        ui.weak("Nothing here yet");
        return None;
    }
    let mut clicked = None;
    egui::ScrollArea::both()
        .id_salt(("logs", tab as u8))
        .auto_shrink(false)
        .stick_to_bottom(true)
        .show_rows(ui, ROW_HEIGHT, count, |ui, range| {
            for row in range {
                let (text, color) = line(row);
                let mut text = egui::RichText::new(text).monospace();
                if let Some(color) = color {
                    text = text.color(color);
                }
                let label = egui::Label::new(text).sense(egui::Sense::click()).extend();
                if ui
                    .add(label)
                    .on_hover_cursor(egui::CursorIcon::PointingHand)
                    .clicked()
                {
                    clicked = Some(row);
                }
            }
        });
    clicked
}

/// A stderr line or log message picked in `tab`, whole, beside the one-line rows.
fn line_detail_ui(ui: &mut egui::Ui, tab: LogsTab, picked: &mut Option<(LogsTab, String)>) {
    let Some((_, text)) = picked.as_ref().filter(|(of, _)| *of == tab) else {
        return;
    };
    let mut close = false;
    egui::Panel::right(("line_detail", tab as u8))
        .resizable(true)
        .default_size(ui.available_width() * 0.4)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.strong(format!("{} characters", text.chars().count()));
                if ui.small_button("Copy").clicked() {
                    ui.ctx().copy_text(text.clone());
                }
                close = ui.small_button("Close").clicked();
            });
            egui::ScrollArea::vertical()
                .id_salt("line_detail_scroll")
                .auto_shrink(false)
                .show(ui, |ui| {
                    ui.add(
                        egui::Label::new(egui::RichText::new(text).monospace())
                            .wrap()
                            .selectable(true),
                    );
                });
        });
    if close {
        *picked = None;
    }
}

/// One protocol message in full, pretty when it is JSON.
fn detail_ui(
    ui: &mut egui::Ui,
    entry: &TapEntry,
    selected: &mut Option<u64>,
    pretty: &mut Option<(u64, Option<String>)>,
) {
    ui.horizontal(|ui| {
        ui.strong(&entry.label);
        if ui.small_button("Copy").clicked() {
            ui.ctx().copy_text(entry.text.to_string());
        }
        if ui.small_button("Close").clicked() {
            *selected = None;
        }
    });
    if entry.bytes > entry.text.len() {
        ui.weak(format!(
            "The log keeps the first {} of its {} bytes",
            entry.text.len(),
            entry.bytes
        ));
    }
    if pretty.as_ref().is_none_or(|(seq, _)| *seq != entry.seq) {
        let text = toolscope_core::deep_json::parse(&entry.text)
            .ok()
            .filter(|value| {
                toolscope_core::deep_json::depth(value) <= toolscope_core::deep_json::SHOWN_DEPTH
            })
            .map(|value| {
                let text = toolscope_core::deep_json::to_string_pretty(&value);
                toolscope_core::deep_json::drop_value(value);
                text
            });
        *pretty = Some((entry.seq, text));
    }
    let pretty = pretty.as_ref().and_then(|(_, pretty)| pretty.as_deref());
    // Wrapped at the panel's edge: a long line (a string value, a header, a line that is not
    // JSON) is read whole without scrolling sideways.
    egui::ScrollArea::vertical()
        .id_salt("log_detail_scroll")
        .auto_shrink(false)
        .show(ui, |ui| {
            let text = pretty.unwrap_or(&entry.text);
            ui.add(
                egui::Label::new(egui::RichText::new(text).monospace())
                    .wrap()
                    .selectable(true),
            );
        });
}

fn entry_line(entry: &TapEntry) -> String {
    let arrow = match entry.direction {
        Direction::ToServer => "→",
        Direction::FromServer => "←",
        Direction::Local => "•",
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

/// The start of a text as one row: a line break (an auth step's headers, a stderr line's
/// stray CR) would make a row taller than the list's fixed row height.
fn clip(text: &str) -> String {
    toolscope_core::text_util::clip_chars(text, ROW_CHARS).replace(['\n', '\r'], " ")
}
