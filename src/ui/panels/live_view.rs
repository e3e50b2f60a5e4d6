//! A session seen through `toolscope proxy`, in the space beside the Live tab when no call is
//! picked: who and what, how it ended (the server's exit, its last stderr lines), and its
//! protocol log, every line that passed in order (a call's answer links to the call; a line
//! that was not UTF-8 says so beside its text, shown with U+FFFD where its bytes were not).

use crate::{
    ui::actions::Action,
    workbench::{self, LiveSessions, Model},
};
use toolscope_core::history::{LogLine, LogSide, ProxySession};

/// A log line is cut to this on its row (its hover shows more).
const ROW_CHARS: usize = 300;
/// And to this on hover.
const HOVER_CHARS: usize = 4000;

pub fn ui(model: &Model, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let live = model.live_sessions();
    if let Some(comparison) = &live.comparison {
        crate::ui::session_diff_view::ui(comparison, ui, actions);
        return;
    }
    let Some(session) = live.selected_session() else {
        ui.centered_and_justified(|ui| {
            ui.add(
                egui::Label::new(
                    egui::RichText::new(
                        "Pick a call on the left to see it as the client's model got it (both \
                         panes, the analysis, Compare, Save as case), or a session to read its \
                         protocol log",
                    )
                    .weak(),
                )
                .wrap(),
            );
        });
        return;
    };
    ui.horizontal_wrapped(|ui| {
        ui.strong(format!("Session #{}", session.id));
        ui.label(format!(
            "{} → {} {} · protocol {} · started {}",
            session.client.as_deref().unwrap_or("a client"),
            session.server,
            session.server_version.as_deref().unwrap_or(""),
            session.protocol_version.as_deref().unwrap_or("?"),
            session.started_at
        ));
    });
    match &session.ending {
        Some(ending) => {
            ui.label(format!("Ended: {ending}"));
        }
        None => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak("Running: new lines appear as they pass");
            });
        }
    }
    if session.log_dropped > 0 {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!(
                "{} line(s) passed but were not kept (the log's cap, or the recorder fell behind)",
                session.log_dropped
            ),
        );
    }
    if let Some(tail) = session
        .stderr_tail
        .as_deref()
        .filter(|tail| !tail.is_empty())
    {
        egui::CollapsingHeader::new("The server's last stderr lines")
            .id_salt(("stderr_tail", session.id))
            .show(ui, |ui| {
                ui.add(
                    egui::Label::new(egui::RichText::new(tail).monospace())
                        .wrap()
                        .selectable(true),
                );
            });
    }
    ui.separator();
    log_ui(live, session, ui, actions);
}

/// The log, one line per row, virtualized over the whole session (it may pass a million
/// lines): the rows shown are read from the history a page at a time, the tail first.
fn log_ui(
    live: &LiveSessions,
    session: &ProxySession,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    let page = live.log.as_ref().filter(|page| page.session == session.id);
    // The session's count is read when the history moves; a page read since may hold more.
    let total = page.map_or(session.log_lines, |page| {
        session.log_lines.max(page.first + page.lines.len() as u64)
    });
    if total == 0 {
        ui.weak("No line has passed yet");
        return;
    }
    ui.weak(format!(
        "{total} lines (`toolscope history log {}` prints them all)",
        session.id
    ));
    let row_height = ui.text_style_height(&egui::TextStyle::Monospace) + 4.0;
    let rows = usize::try_from(total).unwrap_or(usize::MAX);
    egui::ScrollArea::both()
        .id_salt(("session_log", session.id))
        .auto_shrink(false)
        .stick_to_bottom(true)
        .show_rows(ui, row_height, rows, |ui, range| {
            let positions = range.start as u64..range.end as u64;
            for position in positions.clone() {
                match page.and_then(|page| page.line(position)) {
                    Some(line) => log_row(line, ui, actions),
                    None => {
                        ui.weak("…");
                    }
                }
            }
            if !page.is_some_and(|page| page.holds(session.id, &positions)) {
                actions.push(workbench::HistoryAction::ShowLogLines(positions).into());
            }
        });
}

fn log_row(line: &LogLine, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 6.0;
        ui.add(
            egui::Label::new(
                egui::RichText::new(format!("{:>7} ms", line.at_ms))
                    .monospace()
                    .weak(),
            )
            .wrap_mode(egui::TextWrapMode::Extend),
        );
        let arrow = egui::RichText::new(line.side.arrow()).monospace().strong();
        let arrow = match line.side {
            LogSide::Stderr => arrow.color(ui.visuals().warn_fg_color),
            _ => arrow,
        };
        ui.label(arrow).on_hover_text(match line.side {
            LogSide::ToServer => "from the client to the server",
            LogSide::ToClient => "from the server to the client",
            LogSide::Stderr => "the server's stderr",
        });
        if let Some(call) = line.call_id.filter(|_| line.text.is_empty()) {
            if ui
                .link(format!("the answer: call #{call}"))
                .on_hover_text("Show the call as its client got it")
                .clicked()
            {
                actions.push(workbench::HistoryAction::Select(Some(call)).into());
            }
            return;
        }
        if let Some(flag) = &line.flag {
            ui.colored_label(ui.visuals().warn_fg_color, format!("[{flag}]"));
        }
        let shown = toolscope_core::text_util::clip_chars(&line.text, ROW_CHARS);
        ui.add(
            egui::Label::new(egui::RichText::new(shown).monospace())
                .wrap_mode(egui::TextWrapMode::Extend),
        )
        .on_hover_text(toolscope_core::text_util::clip_chars(
            &line.text,
            HOVER_CHARS,
        ));
    });
}
