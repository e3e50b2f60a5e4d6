//! A call's rounds beside its result: each `tools/call` sent, what the server asked with it
//! (elicitation, sampling, roots) and what was answered, by whom and after how long, and the
//! statuses of the task it ran as.

use egui::RichText;

use crate::workbench::CallRecord;
use toolscope_core::{
    session::{AnsweredBy, tasks::input_rounds::exchange_line},
    text_util::count_noun,
};

pub fn ui(ui: &mut egui::Ui, record: &CallRecord) {
    let rounds = &record.outcome.rounds;
    if rounds.is_empty() {
        return;
    }
    let mut title = format!(
        "Rounds: the server asked {} in {}",
        count_noun(rounds.exchanges.len(), "thing", "things"),
        count_noun(rounds.earlier.len() + 1, "request", "requests"),
    );
    if let Some(task) = &rounds.task {
        title.push_str(&format!(
            ", as a task ({})",
            count_noun(task.statuses.len(), "status", "statuses")
        ));
    }
    egui::CollapsingHeader::new(title)
        .id_salt(("rounds", record.id))
        .default_open(true)
        .show(ui, |ui| {
            // The panes keep most of the room: a long timeline scrolls.
            let max_height = (ui.available_height() * 0.3).max(60.0);
            egui::ScrollArea::vertical()
                .id_salt(("rounds_scroll", record.id))
                .max_height(max_height)
                .auto_shrink([false, true])
                .show(ui, |ui| {
                    timeline_ui(ui, record);
                    task_ui(ui, record);
                    if let Some(stopped) = &rounds.stopped {
                        ui.colored_label(ui.visuals().warn_fg_color, stopped);
                    }
                });
        });
}

fn timeline_ui(ui: &mut egui::Ui, record: &CallRecord) {
    let rounds = &record.outcome.rounds;
    for step in rounds.timeline(&record.outcome.request_id) {
        let answer = match step.earlier {
            Some(round) => format!("input_required after {} ms", round.duration.as_millis()),
            None if rounds.stopped.is_some() => "its last answer, shown here".to_owned(),
            None => "the result shown here".to_owned(),
        };
        ui.label(
            RichText::new(format!(
                "{}. tools/call #{} → {answer}",
                step.number, step.request_id
            ))
            .monospace(),
        );
        for exchange in &step.asked {
            let by = match exchange.answered_by {
                AnsweredBy::Asker => {
                    format!("answered by you in {:.1} s", exchange.took.as_secs_f64())
                }
                AnsweredBy::RootsList => "answered from the roots list".to_owned(),
                AnsweredBy::Session => "answered by Toolscope".to_owned(),
                AnsweredBy::Withdrawn => "withdrawn before an answer".to_owned(),
            };
            ui.indent(("round_exchange", step.number), |ui| {
                ui.add(egui::Label::new(exchange_line(exchange)).wrap());
                ui.label(RichText::new(by).weak());
                if rounds.completed(exchange) {
                    ui.label(
                        RichText::new(
                            "The server says this page is done (notifications/elicitation/complete)",
                        )
                        .color(ui.visuals().widgets.active.text_color()),
                    );
                }
            });
        }
        if let Some(round) = step.earlier {
            for problem in &round.problems {
                ui.colored_label(ui.visuals().warn_fg_color, problem);
            }
        }
    }
}

fn task_ui(ui: &mut egui::Ui, record: &CallRecord) {
    let Some(task) = &record.outcome.rounds.task else {
        return;
    };
    ui.label(RichText::new(format!("Ran as task {}", task.task_id)).monospace());
    egui::Grid::new(("task_statuses", record.id))
        .num_columns(3)
        .show(ui, |ui| {
            for status in &task.statuses {
                ui.label(RichText::new(format!("{:.1} s", status.at.as_secs_f64())).weak());
                ui.label(RichText::new(&status.status).strong());
                ui.add(egui::Label::new(status.status_message.as_deref().unwrap_or("")).wrap());
                ui.end_row();
            }
        });
    if let Some(id) = &task.result_from {
        ui.label(RichText::new(format!("The result came with tasks/get #{id}")).weak());
    }
    if let Some(problem) = &task.problem {
        ui.colored_label(ui.visuals().warn_fg_color, problem);
    }
}
