//! A call's rounds beside its result: each `tools/call` sent, what the server asked with it
//! (elicitation, sampling, roots) and what was answered, by whom and after how long.

use egui::RichText;

use crate::{
    session::{AnsweredBy, input_rounds::exchange_line},
    workbench::CallRecord,
};

pub fn ui(ui: &mut egui::Ui, record: &CallRecord) {
    let rounds = &record.outcome.rounds;
    if rounds.is_empty() {
        return;
    }
    let asked = rounds.exchanges.len();
    let requests = rounds.earlier.len() + 1;
    let title = format!(
        "Rounds: the server asked {} in {}",
        crate::text_util::count_noun(asked, "thing", "things"),
        crate::text_util::count_noun(requests, "request", "requests"),
    );
    egui::CollapsingHeader::new(title)
        .id_salt(("rounds", record.id))
        .default_open(true)
        .show(ui, |ui| {
            for step in rounds.timeline(&record.outcome.request_id) {
                let answer = match step.earlier {
                    Some(round) => {
                        format!("input_required after {} ms", round.duration.as_millis())
                    }
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
                    });
                }
                if let Some(round) = step.earlier {
                    for problem in &round.problems {
                        ui.colored_label(ui.visuals().warn_fg_color, problem);
                    }
                }
            }
            if let Some(stopped) = &rounds.stopped {
                ui.colored_label(ui.visuals().warn_fg_color, stopped);
            }
        });
}
