//! The servers at the top of the sidebar: each server's state, connect/disconnect,
//! add/edit/remove, instructions. Scrolls on its own within `max_height`, so the tools below
//! keep their room.

use crate::ui::{actions::Action, dialogs::OpenDialog};
use crate::workbench::{self, ConnectionStatus, Model, ServerState};

pub fn section(model: &Model, ui: &mut egui::Ui, max_height: f32, actions: &mut Vec<Action>) {
    header_ui(model, ui, actions);
    ui.separator();
    // A server added (or picked elsewhere) may be below the cards in view: its card is
    // scrolled to when the selection or the number of servers changes.
    let shown = (model.selected_server_id(), model.servers().len());
    let memory = egui::Id::unique("servers_scroll_shown");
    let moved = ui.ctx().data_mut(|data| {
        let before = data.get_temp::<(workbench::ServerId, usize)>(memory);
        data.insert_temp(memory, shown);
        before != Some(shown)
    });
    egui::ScrollArea::vertical()
        .id_salt("servers_scroll")
        .max_height(max_height)
        .show(ui, |ui| {
            for server in model.servers() {
                let card = egui::Frame::group(ui.style())
                    .show(ui, |ui| card_ui(model, server, ui, actions))
                    .response;
                if moved && server.id == shown.0 {
                    card.scroll_to_me(None);
                }
            }
        });
}

/// "Servers (N)", Add server…, Import…, and how many questions wait across servers.
fn header_ui(model: &Model, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let count = model.servers().len();
    // Said above the scrolled cards too: the card of the server asking may be out of view.
    let waiting_total: usize = model
        .servers()
        .iter()
        .map(|server| model.pending_asks().count_for(server.id))
        .sum();
    ui.horizontal_wrapped(|ui| {
        ui.strong(format!("Servers ({count})"));
        if ui.button("Add server…").clicked() {
            actions.push(OpenDialog::EditServer(None).into());
        }
        // Other clients' servers not saved here yet, offered from the first start on.
        let importable = model.importable_count();
        let label = if importable > 0 {
            format!("Import ({importable})…")
        } else {
            "Import…".to_owned()
        };
        if ui
            .button(label)
            .on_hover_text(
                "Servers from Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI \
                 or Codex, or one you paste",
            )
            .clicked()
        {
            actions.push(OpenDialog::Import.into());
        }
        if waiting_total > 0 {
            let first_asking = model
                .servers()
                .iter()
                .find(|server| model.pending_asks().count_for(server.id) > 0)
                .map(|server| server.id);
            let badge = ui
                .add(egui::Button::new(
                    egui::RichText::new(format!("{waiting_total} waiting"))
                        .color(ui.visuals().warn_fg_color),
                ))
                .on_hover_text(format!(
                    "{} from servers waiting for you; click to select the first",
                    toolscope_core::text_util::count_noun(waiting_total, "question", "questions")
                ));
            if badge.clicked()
                && let Some(id) = first_asking
            {
                actions.push(workbench::ServerAction::Select(id).into());
            }
        }
    });
}

/// One server's card: its state, a sign-in or questions waiting, what it runs, the inputs it
/// needs, Connect or Disconnect, Edit and Remove, and (when selected) its instructions.
fn card_ui(model: &Model, server: &ServerState, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let selected = server.id == model.selected_server_id();
    ui.set_width(ui.available_width());
    let waiting = model.pending_asks().count_for(server.id);
    ui.horizontal(|ui| {
        let (dot, color) = status_dot(&server.status, ui.visuals());
        ui.colored_label(color, dot);
        if ui.selectable_label(selected, &server.name).clicked() {
            actions.push(workbench::ServerAction::Select(server.id).into());
        }
    });
    // A sign-in waiting comes first on the card, so a short section shows it.
    if let Some(sign_in) = &server.sign_in {
        sign_in_ui(ui, server.id, sign_in, actions);
    }
    // The question comes first on the card, so a short section still shows it.
    if waiting > 0 {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!(
                "{} from this server waiting for you",
                toolscope_core::text_util::count_noun(waiting, "question", "questions")
            ),
        );
    }
    let description = if server.builtin {
        "built into Toolscope (toolscope demo-server)".to_owned()
    } else {
        crate::ui::dialogs::server_editor::describe_masked(&server.config)
    };
    // Fitted to the card and cut at three lines (whole on hover): a long path, with no space
    // to wrap at, widened the sidebar. (A word wider than the card is broken inside.)
    let mut job = egui::text::LayoutJob::default();
    egui::RichText::new(&description).small().weak().append_to(
        &mut job,
        ui.style(),
        egui::FontSelection::Default,
        egui::Align::Min,
    );
    job.wrap = egui::text::TextWrapping {
        max_width: ui.available_width(),
        max_rows: 3,
        break_anywhere: false,
        overflow_character: Some('…'),
    };
    // Our own tooltip, not egui's for elided text as well (both showed at once).
    ui.add(egui::Label::new(job).show_tooltip_when_elided(false))
        .on_hover_text(&description);
    status_ui(ui, &server.status);
    if matches!(
        server.status,
        ConnectionStatus::Failed { .. } | ConnectionStatus::Closed { .. }
    ) && ui
        .button("Diagnose")
        .on_hover_text(
            "Walk the connection step by step (the name, the port, TLS, HTTP, sign-in, the \
             handshake, the tools; for a command: the program, the handshake, the tools) \
             and say where it fails and what to try",
        )
        .clicked()
    {
        actions.push(workbench::ServerAction::Diagnose(server.id).into());
    }
    if !server.asked_inputs.is_empty() {
        inputs_ui(ui, server.id, &server.asked_inputs, actions);
    }
    ui.horizontal(|ui| {
        match &server.status {
            ConnectionStatus::Connected { .. } | ConnectionStatus::Connecting { .. } => {
                if ui.button("Disconnect").clicked() {
                    actions.push(workbench::ServerAction::Disconnect(server.id).into());
                }
            }
            _ => {
                if ui.button("Connect").clicked() {
                    actions.push(workbench::ServerAction::Connect(server.id).into());
                }
            }
        }
        if !server.builtin {
            if ui.button("Edit…").clicked() {
                actions.push(OpenDialog::EditServer(Some(server.id)).into());
            }
            if ui.button("Remove").clicked() {
                actions.push(workbench::ServerAction::Remove(server.id).into());
            }
        }
    });
    if !server.builtin
        && matches!(
            server.config,
            toolscope_core::session::ServerConfig::Stdio { .. }
        )
    {
        restart_on_change_ui(ui, server, actions);
    }
    if selected
        && let ConnectionStatus::Connected { summary } = &server.status
        && let Some(instructions) = &summary.instructions
    {
        egui::CollapsingHeader::new("Instructions")
            .id_salt(("instructions", server.id))
            .show(ui, |ui| {
                ui.label(instructions);
            });
    }
}

/// Restart on change: a tick, the folder watched, and how the last restart went.
fn restart_on_change_ui(ui: &mut egui::Ui, server: &ServerState, actions: &mut Vec<Action>) {
    let watch = server.restart_on_change.as_ref();
    let mut on = watch.is_some();
    let tick = ui.checkbox(&mut on, "Restart on change").on_hover_text(
        "Watch the server's folder (its script's, else its working directory); on each \
             change restart it, list its tools again, say what changed, call the last call \
             again and compare the result with the one before",
    );
    if tick.changed() {
        actions.push(if on {
            workbench::ServerAction::RestartOnChange {
                server: server.id,
                folder: None,
            }
            .into()
        } else {
            workbench::ServerAction::StopRestartOnChange(server.id).into()
        });
    }
    let Some(watch) = watch else {
        return;
    };
    let folder = watch.folder.display().to_string();
    ui.add(
        egui::Label::new(
            egui::RichText::new(format!("watching {folder}"))
                .small()
                .weak(),
        )
        .truncate()
        .show_tooltip_when_elided(false),
    )
    .on_hover_text(&folder);
    if let Some(problem) = &watch.problem {
        ui.add(
            egui::Label::new(egui::RichText::new(problem).color(ui.visuals().warn_fg_color)).wrap(),
        );
    }
    if let Some(change) = &watch.last_change {
        let restarts = match watch.restarts {
            1 => "restarted once".to_owned(),
            n => format!("restarted {n} times"),
        };
        ui.add(
            egui::Label::new(egui::RichText::new(format!("{restarts}, last for {change}")).small())
                .wrap(),
        );
    }
    if let Some(report) = &watch.report {
        ui.add(egui::Label::new(egui::RichText::new(report).small()).wrap());
    }
}

/// The `${input:…}` values a server's settings need, asked for as VS Code asks: one field
/// each (hidden when its name says it is a secret), then Connect.
fn inputs_ui(
    ui: &mut egui::Ui,
    server: workbench::ServerId,
    asked: &[String],
    actions: &mut Vec<Action>,
) {
    let mut values = Vec::new();
    egui::Grid::new(("inputs", server))
        .num_columns(2)
        .show(ui, |ui| {
            for input in asked {
                let key = egui::Id::unique(("input-value", server, input));
                let mut value: String = ui.data_mut(|data| data.get_temp(key).unwrap_or_default());
                let label = ui.label(format!("${{input:{input}}}"));
                ui.add(
                    egui::TextEdit::singleline(&mut value)
                        .password(toolscope_core::secrets::is_secret_name(input))
                        .desired_width(140.0),
                )
                .labelled_by(label.id);
                ui.end_row();
                ui.data_mut(|data| data.insert_temp(key, value.clone()));
                values.push((input.clone(), value));
            }
        });
    let complete = values.iter().all(|(_, value)| !value.is_empty());
    if ui
        .add_enabled(complete, egui::Button::new("Connect with these"))
        .on_hover_text("Kept for this run of Toolscope only")
        .clicked()
    {
        for (input, _) in &values {
            let key = egui::Id::unique(("input-value", server, input));
            ui.data_mut(|data| data.remove::<String>(key));
        }
        actions.push(workbench::ServerAction::GiveInputs { server, values }.into());
    }
}

/// A connection waiting for the user to sign in: where, and the way to the page again.
fn sign_in_ui(
    ui: &mut egui::Ui,
    server: workbench::ServerId,
    sign_in: &workbench::SignInPage,
    actions: &mut Vec<Action>,
) {
    let (text, detail) = match &sign_in.opened {
        Ok(how) => (
            "Sign in in your browser to continue",
            format!("The page was {how}"),
        ),
        Err(reason) => (
            "No browser opened: open the sign-in page",
            format!("No browser could be opened: {reason}"),
        ),
    };
    ui.colored_label(ui.visuals().warn_fg_color, text)
        .on_hover_text(detail);
    ui.horizontal(|ui| {
        if ui
            .button("Open the page")
            .on_hover_text(&sign_in.page)
            .clicked()
        {
            actions.push(workbench::ServerAction::OpenSignInPage(server).into());
        }
        if ui.button("Copy link").clicked() {
            ui.ctx().copy_text(sign_in.page.clone());
        }
    });
}

fn status_dot(status: &ConnectionStatus, visuals: &egui::Visuals) -> (&'static str, egui::Color32) {
    match status {
        ConnectionStatus::Connected { .. } => ("●", egui::Color32::from_rgb(60, 170, 90)),
        ConnectionStatus::Connecting { .. } => ("◌", visuals.warn_fg_color),
        ConnectionStatus::Failed { .. } | ConnectionStatus::Closed { .. } => {
            ("●", visuals.error_fg_color)
        }
        ConnectionStatus::Disconnected => ("○", visuals.weak_text_color()),
    }
}

fn status_ui(ui: &mut egui::Ui, status: &ConnectionStatus) {
    match status {
        ConnectionStatus::Disconnected => {
            ui.weak("Not connected");
        }
        ConnectionStatus::Connecting { since } => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!(
                    "Connecting… {:.1} s",
                    since.elapsed().as_secs_f32()
                ));
            });
        }
        ConnectionStatus::Connected { summary } => {
            let name = summary.name.as_deref().unwrap_or("unnamed server");
            let version = summary.version.as_deref().unwrap_or("");
            ui.label(format!("Connected: {name} {version}"));
            ui.label(
                egui::RichText::new(format!(
                    "protocol {} via {}",
                    summary.protocol_version, summary.lifecycle
                ))
                .small(),
            );
        }
        ConnectionStatus::Failed { message } => {
            ui.colored_label(ui.visuals().error_fg_color, "Connection failed");
            ui.add(egui::Label::new(egui::RichText::new(message).small()).wrap());
        }
        ConnectionStatus::Closed { reason } => {
            ui.colored_label(ui.visuals().error_fg_color, "Connection closed");
            ui.add(egui::Label::new(egui::RichText::new(reason).small()).wrap());
        }
    }
}
