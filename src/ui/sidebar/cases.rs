//! The sidebar's Cases: a case file opened by path, where its cases run (the file's server or
//! one of the window's), Run all / Stop, and each case with its last verdict. Picking a case
//! that ran shows its result, with what it failed.

use egui::Ui;

use crate::{
    ui::actions::Action,
    workbench::{CaseAction, CaseBook, CaseOutcome, CasesTarget, Model},
};
use toolscope_core::cases::CaseFile;

pub fn section(
    model: &Model,
    sidebar: &mut super::SidebarState,
    ui: &mut Ui,
    actions: &mut Vec<Action>,
) {
    let book = model.case_book();
    file_ui(book, &mut sidebar.case_path, ui, actions);
    let Some(file) = &book.file else {
        // Scrolled when the sidebar is short (a small window, the welcome bar below).
        egui::ScrollArea::vertical()
            .id_salt("cases_hint")
            .show(ui, |ui| {
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(
                            "A case file is TOML: a [server] and [[case]]s with expectations. \
                             Make one with \"Save as case…\" beside Call, or see the user \
                             guide's QA page (docs/guide/qa-sessions.md).",
                        )
                        .weak(),
                    )
                    .wrap(),
                );
            });
        return;
    };
    target_ui(model, file, ui, actions);
    run_bar_ui(book, ui, actions);
    ui.separator();
    list_ui(book, file, ui, actions);
}

/// The case file's path, Open, and why it could not be read.
fn file_ui(book: &CaseBook, case_path: &mut String, ui: &mut Ui, actions: &mut Vec<Action>) {
    if case_path.is_empty()
        && let Some(path) = &book.path
    {
        *case_path = path.display().to_string();
    }
    let label = ui.label("Case file");
    // The path on a line of its own (a sidebar is narrow), its buttons under it.
    let field = ui
        .add(
            egui::TextEdit::singleline(case_path)
                .hint_text("path/to/cases.toml")
                .desired_width(f32::INFINITY),
        )
        .labelled_by(label.id);
    let entered = field.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter));
    ui.horizontal(|ui| {
        let typed = case_path.trim();
        let open = ui
            .add_enabled(!typed.is_empty(), egui::Button::new("Open"))
            .clicked();
        if (open || entered) && !typed.is_empty() {
            actions.push(CaseAction::Open(typed.into()).into());
        }
        if ui
            .button("Browse…")
            .on_hover_text("Pick a case file")
            .clicked()
        {
            actions.push(crate::ui::files::FileRequest::open_case_file().into());
        }
    });
    if let Some(problem) = &book.problem {
        ui.add(
            egui::Label::new(egui::RichText::new(problem).color(ui.visuals().error_fg_color))
                .wrap(),
        );
    }
}

/// Where the cases run: the file's server or one of the window's.
fn target_ui(model: &Model, file: &CaseFile, ui: &mut Ui, actions: &mut Vec<Action>) {
    let target = model.cases_target();
    let target_name = |target: CasesTarget| match target {
        CasesTarget::FileServer => match &file.server {
            Some(server) => format!("the file's server ({})", server.label()),
            None => "the file's server (none given)".to_owned(),
        },
        CasesTarget::Server(id) => model.server(id).map_or_else(
            || "a removed server".to_owned(),
            |server| server.name.clone(),
        ),
    };
    ui.horizontal_wrapped(|ui| {
        ui.label("Run on");
        let shown = target_name(target);
        egui::ComboBox::from_id_salt("cases_target")
            .selected_text(egui::RichText::new(&shown))
            .width(ui.available_width().max(120.0))
            .show_ui(ui, |ui| {
                if file.server.is_some() {
                    let choice = CasesTarget::FileServer;
                    if ui
                        .selectable_label(target == choice, target_name(choice))
                        .clicked()
                    {
                        actions.push(CaseAction::SetTarget(choice).into());
                    }
                }
                for server in model.servers() {
                    let choice = CasesTarget::Server(server.id);
                    let mut text = server.name.clone();
                    if !server.is_connected() {
                        text.push_str(" (not connected)");
                    }
                    if ui.selectable_label(target == choice, text).clicked() {
                        actions.push(CaseAction::SetTarget(choice).into());
                    }
                }
            })
            .response
            .widget_info(|| {
                egui::WidgetInfo::labeled(egui::Role::ComboBox, true, format!("Run on: {shown}"))
            });
    });
}

/// Run all (or Stop), Reload, the tally, and why a run could not start.
fn run_bar_ui(book: &CaseBook, ui: &mut Ui, actions: &mut Vec<Action>) {
    if book.changed_on_disk {
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "The file changed on disk since it was read",
            );
            if ui.button("Reload it").clicked() {
                actions.push(CaseAction::Reload.into());
            }
        });
    }
    // Wrapped: a panel widened once by a long row stays wide.
    ui.horizontal_wrapped(|ui| {
        if book.is_running() {
            ui.spinner();
            if ui.button("Stop").clicked() {
                actions.push(CaseAction::Stop.into());
            }
        } else if ui.button("Run all").clicked() {
            actions.push(CaseAction::Run(None).into());
        }
        if ui
            .small_button("Reload")
            .on_hover_text("Read the file again")
            .clicked()
        {
            actions.push(CaseAction::Reload.into());
        }
        let (passed, failed) = book.tally();
        if passed + failed > 0 {
            ui.weak(format!("{passed} passed, {failed} failed"));
        }
    });
    if let Some(problem) = &book.run_problem {
        ui.add(
            egui::Label::new(egui::RichText::new(problem).color(ui.visuals().warn_fg_color)).wrap(),
        );
    }
}

/// Each case with its last verdict: a click shows it, a double click runs it.
fn list_ui(book: &CaseBook, file: &CaseFile, ui: &mut Ui, actions: &mut Vec<Action>) {
    let row_height = ui.spacing().interact_size.y;
    egui::ScrollArea::vertical()
        .id_salt("case_list")
        .auto_shrink([false, false])
        .show_rows(ui, row_height, file.cases.len(), |ui, rows| {
            for index in rows {
                let case = &file.cases[index];
                let (mark, color, hover) = match book.outcomes.get(&case.name) {
                    None => (
                        "○",
                        ui.visuals().weak_text_color(),
                        "not run yet".to_owned(),
                    ),
                    Some(CaseOutcome::Waiting) => {
                        ("…", ui.visuals().weak_text_color(), "running".to_owned())
                    }
                    Some(CaseOutcome::Done {
                        passed: true,
                        duration,
                        ..
                    }) => (
                        "✔",
                        crate::ui::theme::palette(ui.visuals()).good,
                        format!("passed in {} ms", duration.as_millis()),
                    ),
                    Some(CaseOutcome::Done { failures, .. }) => {
                        ("✖", ui.visuals().error_fg_color, failures.join("\n"))
                    }
                };
                ui.horizontal(|ui| {
                    ui.colored_label(color, mark);
                    let selected = book.selected.as_deref() == Some(case.name.as_str());
                    let row = ui
                        .add(
                            egui::Button::selectable(
                                selected,
                                format!("{} · {}", case.name, case.tool),
                            )
                            .truncate(),
                        )
                        .on_hover_text(hover);
                    if row.clicked() {
                        actions.push(CaseAction::Select(Some(case.name.clone())).into());
                    }
                    if !book.is_running() && row.double_clicked() {
                        actions.push(CaseAction::Run(Some(vec![index])).into());
                    }
                });
            }
        });
}
