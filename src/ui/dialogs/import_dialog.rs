//! "Import servers": the servers other clients have (Claude Desktop, Cursor, VS Code…), each
//! with the file it came from, imported and connected in one click; or a server pasted as
//! JSON, a command line, a `claude mcp add` line or a URL, previewed before it is added.

use egui::RichText;

use crate::ui::actions::Action;
use crate::workbench::{self, Model, found_servers::FoundServers};
use toolscope_core::import::{FoundServer, PastedServer, Scope, read_pasted};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Tab {
    #[default]
    Found,
    Paste,
}

/// The dialog's own state: the tab and the pasted text with its preview.
#[derive(Debug, Default)]
pub struct ImportDialog {
    tab: Tab,
    pasted: String,
    /// The text the preview was read from, and what it gave (read again only on a change).
    preview: Option<(String, Result<Vec<PastedServer>, String>)>,
    /// The name each pasted server will be saved under, as guessed then edited.
    names: Vec<String>,
}

impl ImportDialog {
    /// Draws the dialog; `false` once it is closed.
    pub fn draw(&mut self, ctx: &egui::Context, model: &Model, actions: &mut Vec<Action>) -> bool {
        let mut open = true;
        let mut done = false;
        egui::Window::new("Import servers")
            .open(&mut open)
            .collapsible(false)
            .resizable(true)
            .default_width(560.0)
            .max_height(ctx.content_rect().height() * 0.8)
            .show(ctx, |ui| {
                ui.horizontal(|ui| {
                    ui.selectable_value(&mut self.tab, Tab::Found, "From other clients");
                    ui.selectable_value(&mut self.tab, Tab::Paste, "Paste");
                });
                ui.separator();
                done = match self.tab {
                    Tab::Found => found_ui(ui, model, actions),
                    Tab::Paste => self.paste_ui(ui, model, actions),
                };
            });
        open && !done
    }

    fn paste_ui(&mut self, ui: &mut egui::Ui, model: &Model, actions: &mut Vec<Action>) -> bool {
        ui.add(
            egui::Label::new(
                RichText::new(
                    "An mcpServers object or one entry (JSON), a command line (npx -y pkg), a \
                     `claude mcp add …` line, or an http(s) URL.",
                )
                .weak(),
            )
            .wrap(),
        );
        let label = ui.label("Pasted server");
        ui.add(
            egui::TextEdit::multiline(&mut self.pasted)
                .hint_text("npx -y @modelcontextprotocol/server-everything")
                .desired_rows(4)
                .desired_width(f32::INFINITY)
                .code_editor(),
        )
        .labelled_by(label.id);
        if self
            .preview
            .as_ref()
            .is_none_or(|(text, _)| *text != self.pasted)
        {
            let read = if self.pasted.trim().is_empty() {
                Err(String::new())
            } else {
                read_pasted(&self.pasted).map_err(|error| error.to_string())
            };
            self.names = read
                .as_ref()
                .map(|servers| servers.iter().map(|server| server.name.clone()).collect())
                .unwrap_or_default();
            self.preview = Some((self.pasted.clone(), read));
        }
        let Some((_, read)) = &self.preview else {
            return false;
        };
        let servers = match read {
            Ok(servers) => servers,
            Err(error) => {
                if !error.is_empty() {
                    ui.colored_label(ui.visuals().error_fg_color, error);
                }
                return false;
            }
        };
        let mut added = false;
        for (server, name) in servers.iter().zip(self.names.iter_mut()) {
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.set_width(ui.available_width());
                // Guessed from the command or the URL (its serverInfo name shows once it
                // connects): a better one can be typed before adding.
                ui.horizontal(|ui| {
                    let label = ui.label("Name");
                    ui.text_edit_singleline(name).labelled_by(label.id);
                });
                ui.add(
                    egui::Label::new(RichText::new(server.entry.config.listed()).monospace())
                        .wrap(),
                );
                notes_ui(ui, &server.entry);
            });
        }
        let label = if servers.len() == 1 {
            "Add and connect".to_owned()
        } else {
            format!("Add these {} and connect them", servers.len())
        };
        if ui.button(label).clicked() {
            let mut taken: Vec<String> = model.servers().iter().map(|s| s.name.clone()).collect();
            for (server, wanted) in servers.iter().zip(&self.names) {
                let names: Vec<&str> = taken.iter().map(String::as_str).collect();
                let wanted = Some(wanted.trim())
                    .filter(|wanted| !wanted.is_empty())
                    .unwrap_or(&server.name);
                let name = workbench::found_servers::unique_name(wanted, "pasted", &names);
                taken.push(name.clone());
                actions.push(
                    workbench::ServerAction::Save {
                        id: None,
                        name,
                        config: server.entry.config.clone(),
                        connect_at_start: true,
                        client: toolscope_core::session::ClientSettings::default(),
                    }
                    .into(),
                );
            }
            added = true;
        }
        added
    }
}

fn notes_ui(ui: &mut egui::Ui, entry: &toolscope_core::import::ReadEntry) {
    if entry.disabled {
        ui.label(RichText::new("Turned off in its client").weak());
    }
    if !entry.placeholders.is_empty() {
        let written: Vec<String> = entry.placeholders.iter().map(|p| p.written()).collect();
        ui.add(
            egui::Label::new(
                RichText::new(format!(
                    "Filled in when it connects, from the environment: {}",
                    written.join(", ")
                ))
                .weak(),
            )
            .wrap(),
        );
    }
    for note in &entry.notes {
        ui.colored_label(ui.visuals().warn_fg_color, note);
    }
}

/// The found servers; `true` once one was imported (the dialog closes and it connects).
fn found_ui(ui: &mut egui::Ui, model: &Model, actions: &mut Vec<Action>) -> bool {
    let (servers, unreadable) = match model.found_servers() {
        FoundServers::NotLooked => {
            ui.label("Other clients' configurations are not looked at in this window.");
            return false;
        }
        FoundServers::Looking => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Reading other clients' configurations…");
            });
            return false;
        }
        FoundServers::Found {
            servers,
            unreadable,
        } => (servers, unreadable),
    };
    if let Some(change) = model.watch_change() {
        watch_change_ui(ui, change, actions);
        return false;
    }
    if servers.is_empty() {
        ui.add(
            egui::Label::new(
                "No Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI or Codex \
                 configuration on this machine lists a server.",
            )
            .wrap(),
        );
    }
    let mut imported = false;
    egui::ScrollArea::vertical()
        .auto_shrink([false, true])
        .max_height(ui.available_height().max(200.0))
        .show(ui, |ui| {
            for (index, found) in servers.iter().enumerate() {
                imported |= found_server_ui(ui, model, index, found, actions);
            }
            if !unreadable.is_empty() {
                ui.separator();
                ui.strong("Files that could not be read");
                for (path, why) in unreadable {
                    ui.add(
                        egui::Label::new(
                            RichText::new(format!("{}: {why}", path.display()))
                                .color(ui.visuals().warn_fg_color),
                        )
                        .wrap(),
                    );
                }
            }
        });
    if ui.button("Look again").clicked() {
        actions.push(workbench::ImportAction::LookForServers.into());
    }
    imported
}

/// A change to another client's entry, shown whole before it is made.
fn watch_change_ui(
    ui: &mut egui::Ui,
    change: &workbench::backend::WatchChange,
    actions: &mut Vec<Action>,
) {
    let rewrite = &change.rewrite;
    let client = rewrite.client.name();
    ui.strong(if change.unwatch {
        format!(
            "Put \"{}\" back as it was in {client}'s configuration?",
            rewrite.name
        )
    } else {
        format!("Run \"{}\" through Toolscope in {client}?", rewrite.name)
    });
    ui.add(
        egui::Label::new(
            RichText::new(rewrite.path.display().to_string())
                .small()
                .weak(),
        )
        .wrap(),
    );
    if let Some(note) = &rewrite.note {
        ui.colored_label(ui.visuals().warn_fg_color, note);
    }
    ui.label("Only this entry changes:");
    let (before, after) = rewrite.shown();
    for (title, text) in [("Now", before), ("Then", after)] {
        ui.strong(title);
        egui::Frame::group(ui.style()).show(ui, |ui| {
            egui::ScrollArea::both()
                .id_salt(("watch_change", title))
                .max_height(180.0)
                .show(ui, |ui| {
                    ui.add(egui::Label::new(RichText::new(text).monospace()).extend());
                });
        });
    }
    if !change.unwatch {
        ui.add(
            egui::Label::new(
                RichText::new(format!(
                    "A copy of the whole file is kept first. Restart {client} afterwards; Stop \
                     watching puts the entry back exactly as it is now."
                ))
                .weak(),
            )
            .wrap(),
        );
    }
    ui.horizontal(|ui| {
        let confirm = if change.unwatch {
            "Put it back"
        } else {
            "Rewrite the entry"
        };
        if ui.button(confirm).clicked() {
            actions.push(workbench::ImportAction::ConfirmWatchChange.into());
        }
        if ui.button("Cancel").clicked() {
            actions.push(workbench::ImportAction::CancelWatchChange.into());
        }
    });
}

fn found_server_ui(
    ui: &mut egui::Ui,
    model: &Model,
    index: usize,
    found: &FoundServer,
    actions: &mut Vec<Action>,
) -> bool {
    let mut imported = false;
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal_wrapped(|ui| {
            ui.strong(&found.name);
            let scope = match &found.scope {
                Scope::User => String::new(),
                Scope::Project(folder) => format!(" · project {}", folder.display()),
            };
            ui.label(RichText::new(format!("{}{scope}", found.client.name())).weak());
        });
        ui.add(
            egui::Label::new(
                RichText::new(found.path.display().to_string())
                    .small()
                    .weak(),
            )
            .wrap(),
        );
        match &found.entry {
            Ok(entry) if model.watch_of(found).is_some() => {
                ui.add(egui::Label::new(RichText::new(entry.config.listed()).monospace()).wrap());
                ui.add(
                    egui::Label::new(format!(
                        "Watched through Toolscope: {} runs it through toolscope proxy, and its \
                         calls show in the Live tab",
                        found.client.name()
                    ))
                    .wrap(),
                );
                if ui
                    .button("Stop watching…")
                    .on_hover_text(
                        "Put the entry back exactly as it was (the change is shown first)",
                    )
                    .clicked()
                {
                    actions.push(workbench::ImportAction::PlanUnwatch(index).into());
                }
            }
            Ok(entry) => {
                ui.add(egui::Label::new(RichText::new(entry.config.listed()).monospace()).wrap());
                notes_ui(ui, entry);
                let stdio = matches!(
                    entry.config,
                    toolscope_core::session::ServerConfig::Stdio { .. }
                );
                if stdio
                    && model.can_watch()
                    && ui
                        .button("Watch through Toolscope…")
                        .on_hover_text(format!(
                            "Rewrite this entry so {} runs the server through toolscope proxy: \
                             every call it makes is kept and shown live, as its model got it \
                             (the change is shown first, and the file kept as it was)",
                            found.client.name()
                        ))
                        .clicked()
                {
                    actions.push(workbench::ImportAction::PlanWatch(index).into());
                }
                if model.is_imported(found) {
                    ui.label(RichText::new("Imported").weak());
                } else if let Some((_, name, changes)) = model.earlier_import(found) {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        format!("Changed since it was imported as {name}:"),
                    );
                    for change in &changes {
                        ui.add(
                            egui::Label::new(RichText::new(format!("• {change}")).small()).wrap(),
                        );
                    }
                    if ui
                        .button(format!("Update {name}"))
                        .on_hover_text(
                            "Replace the saved server's settings with these, then connect it",
                        )
                        .clicked()
                    {
                        actions.push(workbench::ImportAction::Update(index).into());
                        imported = true;
                    }
                } else if ui
                    .button("Import and connect")
                    .on_hover_text("Saved as a server of this window, then connected")
                    .clicked()
                {
                    actions.push(workbench::ImportAction::Import(index).into());
                    imported = true;
                }
            }
            Err(error) => {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    format!("Cannot be imported: {error}"),
                );
            }
        }
    });
    imported
}
