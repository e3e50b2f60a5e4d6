//! The dialog that adds or edits a server: stdio (command line, environment, working
//! directory) or Streamable HTTP (URL, headers), and what Toolscope is as its client (the
//! capabilities declared, the roots offered). Secret values are masked until shown.

use std::{
    collections::BTreeMap,
    path::PathBuf,
    sync::{Arc, Mutex},
};

use crate::ui::actions::Action;
use crate::workbench;
use crate::workbench::ServerId;
use toolscope_core::{
    secrets,
    session::{ClientRoot, ClientSettings, DeclaredCapabilities, ServerConfig},
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    Stdio,
    Http,
}

/// One editable `name = value` row (an env var or a header).
#[derive(Debug, Clone, Default)]
struct Pair {
    name: String,
    value: String,
    revealed: bool,
}

pub struct ServerEditor {
    id: Option<ServerId>,
    name: String,
    transport: Transport,
    command_line: String,
    env: Vec<Pair>,
    cwd: String,
    url: String,
    headers: Vec<Pair>,
    /// A client id registered with the server's OAuth authorization server; empty: none.
    oauth_client_id: String,
    /// That client's secret (a confidential client), masked; empty: none.
    oauth_client_secret: String,
    /// The OAuth extensions: the grant, the private key, DPoP.
    oauth: super::oauth_fields::OAuthFields,
    /// Copy as… writes secret values (else placeholders).
    copy_with_secrets: bool,
    connect_at_start: bool,
    declared: DeclaredCapabilities,
    /// The roots as typed: `file://` URIs or folder paths.
    roots: Vec<String>,
    /// The roots the server had, so an unchanged one keeps its name.
    kept_roots: Vec<ClientRoot>,
    /// Folders picked in the file dialog, taken in at the next frame.
    picked: Arc<Mutex<Vec<PathBuf>>>,
    error: Option<String>,
}

/// The command line or URL of a server, never showing secret values.
pub fn describe_masked(config: &ServerConfig) -> String {
    match config {
        ServerConfig::Stdio { env, .. } if !env.is_empty() => {
            format!("{} (+{} env)", config.describe(), env.len())
        }
        ServerConfig::Http { headers, .. } if !headers.is_empty() => {
            format!("{} (+{} headers)", config.describe(), headers.len())
        }
        _ => config.describe(),
    }
}

fn pairs(map: &BTreeMap<String, String>) -> Vec<Pair> {
    map.iter()
        .map(|(name, value)| Pair {
            name: name.clone(),
            value: value.clone(),
            revealed: false,
        })
        .collect()
}

impl ServerEditor {
    pub fn new(
        id: Option<ServerId>,
        existing: Option<(&str, &ServerConfig, bool, &ClientSettings)>,
    ) -> Self {
        let mut editor = Self {
            id,
            name: String::new(),
            transport: Transport::Stdio,
            command_line: String::new(),
            env: Vec::new(),
            cwd: String::new(),
            url: String::new(),
            headers: Vec::new(),
            oauth_client_id: String::new(),
            oauth_client_secret: String::new(),
            oauth: super::oauth_fields::OAuthFields::new(&Default::default()),
            copy_with_secrets: false,
            connect_at_start: true,
            declared: DeclaredCapabilities::default(),
            roots: Vec::new(),
            kept_roots: Vec::new(),
            picked: Arc::default(),
            error: None,
        };
        if let Some((name, config, connect_at_start, client)) = existing {
            editor.name = name.to_owned();
            editor.connect_at_start = connect_at_start;
            editor.declared = client.declared;
            editor.roots = client.roots.iter().map(|root| root.uri.clone()).collect();
            editor.kept_roots = client.roots.clone();
            match config {
                ServerConfig::Stdio { env, cwd, .. } => {
                    editor.command_line = config.describe();
                    editor.env = pairs(env);
                    editor.cwd = cwd
                        .as_ref()
                        .map(|c| c.display().to_string())
                        .unwrap_or_default();
                }
                ServerConfig::Http {
                    url,
                    headers,
                    oauth_client_id,
                    oauth_client_secret,
                    oauth,
                } => {
                    editor.transport = Transport::Http;
                    editor.url = url.clone();
                    editor.headers = pairs(headers);
                    editor.oauth_client_id = oauth_client_id.clone().unwrap_or_default();
                    editor.oauth_client_secret = oauth_client_secret.clone().unwrap_or_default();
                    editor.oauth = super::oauth_fields::OAuthFields::new(oauth);
                }
            }
        }
        editor
    }

    pub fn draw(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) -> bool {
        let mut open = true;
        let mut action = None;
        let picked: Vec<PathBuf> = std::mem::take(
            &mut *self
                .picked
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        self.roots
            .extend(picked.iter().map(|path| path.display().to_string()));
        let title = if self.id.is_some() {
            "Edit server"
        } else {
            "Add server"
        };
        let modal = egui::Modal::new(egui::Id::unique("server_editor")).show(ctx, |ui| {
            ui.set_width(520.0);
            ui.heading(title);
            egui::Grid::new("server_fields")
                .num_columns(2)
                .spacing([8.0, 6.0])
                .show(ui, |ui| {
                    field_row(ui, "Name", &mut self.name, "my server");
                    ui.label("Transport");
                    ui.horizontal(|ui| {
                        ui.radio_value(&mut self.transport, Transport::Stdio, "stdio (a command)");
                        ui.radio_value(
                            &mut self.transport,
                            Transport::Http,
                            "Streamable HTTP (a URL)",
                        );
                    });
                    ui.end_row();
                    match self.transport {
                        Transport::Stdio => {
                            field_row(
                                ui,
                                "Command line",
                                &mut self.command_line,
                                "npx -y @modelcontextprotocol/server-everything",
                            );
                            field_row(ui, "Working directory", &mut self.cwd, "(inherit)");
                        }
                        Transport::Http => {
                            field_row(ui, "URL", &mut self.url, "http://127.0.0.1:8000/mcp");
                            field_row(
                                ui,
                                "OAuth client id",
                                &mut self.oauth_client_id,
                                "(none: Toolscope registers itself if the server asks)",
                            );
                            let label = ui.label("OAuth client secret");
                            ui.add(
                                egui::TextEdit::singleline(&mut self.oauth_client_secret)
                                    .password(true)
                                    .hint_text(
                                        "(a confidential client's; kept in the secret store)",
                                    )
                                    .desired_width(f32::INFINITY),
                            )
                            .labelled_by(label.id);
                            ui.end_row();
                        }
                    }
                });
            match self.transport {
                Transport::Stdio => pairs_ui(ui, "Environment", "env", &mut self.env),
                Transport::Http => {
                    pairs_ui(ui, "Headers", "header", &mut self.headers);
                    self.oauth.ui(ui);
                }
            }
            ui.checkbox(&mut self.connect_at_start, "Connect when Toolscope starts");
            if let Some(pick) = self.client_ui(ui) {
                action = Some(pick);
            }
            if let Some(error) = &self.error {
                ui.colored_label(ui.visuals().error_fg_color, error);
            }
            ui.separator();
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    match self.build().and_then(|config| Ok((config, self.client()?))) {
                        Ok((config, client)) => {
                            action = Some(Action::Model(workbench::Action::Servers(
                                workbench::ServerAction::Save {
                                    id: self.id,
                                    name: self.name.trim().to_owned(),
                                    config,
                                    connect_at_start: self.connect_at_start,
                                    client,
                                },
                            )));
                            open = false;
                        }
                        Err(error) => self.error = Some(error),
                    }
                }
                if ui.button("Cancel").clicked() {
                    open = false;
                }
                ui.menu_button("Copy as…", |ui| {
                    ui.checkbox(&mut self.copy_with_secrets, "with secret values");
                    ui.separator();
                    for client in toolscope_core::import::CLIENTS {
                        if ui.button(client.name()).clicked() {
                            match self.build() {
                                Ok(config) => {
                                    action = Some(Action::Model(workbench::Action::Servers(
                                        workbench::ServerAction::CopyAs {
                                            name: self.name.trim().to_owned(),
                                            config,
                                            client,
                                            include_secrets: self.copy_with_secrets,
                                        },
                                    )));
                                }
                                Err(error) => self.error = Some(error),
                            }
                            ui.close();
                        }
                    }
                })
                .response
                .on_hover_text("This server as an entry for another client's configuration file");
                if let (Some(id), Transport::Http) = (self.id, self.transport)
                    && ui
                        .button("Sign out")
                        .on_hover_text(
                            "Forget the OAuth tokens and client registration kept for this \
                             server, and disconnect it",
                        )
                        .clicked()
                {
                    action = Some(Action::Model(workbench::Action::Servers(
                        workbench::ServerAction::SignOut(id),
                    )));
                    open = false;
                }
            });
        });
        if modal.should_close() {
            open = false;
        }
        actions.extend(action);
        open
    }

    /// The "Client capabilities" and "Roots" section; returns the request to pick a folder.
    fn client_ui(&mut self, ui: &mut egui::Ui) -> Option<Action> {
        let mut pick = None;
        egui::CollapsingHeader::new("Client capabilities and roots")
            .id_salt("client_capabilities")
            .show(ui, |ui| {
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(
                            "What Toolscope declares to this server. Many servers offer a tool \
                             only to clients that declare what it needs; turn one off to test \
                             the other path. A change takes effect when the server connects \
                             again (saving reconnects it).",
                        )
                        .weak(),
                    )
                    .wrap(),
                );
                let declared = &mut self.declared;
                ui.checkbox(&mut declared.elicitation_form, "elicitation (form): the server may ask you to fill in a form");
                ui.checkbox(&mut declared.elicitation_url, "elicitation (url): the server may send you to a web page");
                ui.checkbox(&mut declared.sampling, "sampling: the server may ask for a model's reply (you write it)");
                ui.add_enabled_ui(declared.sampling, |ui| {
                    ui.indent("sampling_tools", |ui| {
                        ui.checkbox(&mut declared.sampling_tools, "sampling.tools: it may offer tools and ask for a tool_use");
                    });
                });
                ui.checkbox(&mut declared.tasks, "tasks: tools may run as tasks (polled to the end; a 2026-07-28 server decides)");
                ui.checkbox(&mut declared.roots, "roots: the server may ask which folders it may work in");
                ui.add_enabled_ui(declared.roots, |ui| {
                    ui.label("Roots (folders, or file:// URIs); a change is announced to a connected server");
                    let mut remove = None;
                    for (index, root) in self.roots.iter_mut().enumerate() {
                        ui.horizontal(|ui| {
                            ui.add(
                                egui::TextEdit::singleline(root)
                                    .hint_text("/path/to/project")
                                    .desired_width(380.0),
                            );
                            if ui.button("Remove").clicked() {
                                remove = Some(index);
                            }
                        });
                    }
                    if let Some(index) = remove {
                        self.roots.remove(index);
                    }
                    ui.horizontal(|ui| {
                        if ui.button("Add folder…").clicked() {
                            pick = Some(
                                crate::ui::files::FileRequest::root_folder(self.picked.clone())
                                    .into(),
                            );
                        }
                        if ui.button("Add a path").clicked() {
                            self.roots.push(String::new());
                        }
                    });
                });
            });
        pick
    }

    /// The client settings as entered: each root a `file://` URI.
    fn client(&self) -> Result<ClientSettings, String> {
        let roots = self
            .roots
            .iter()
            .map(|root| root.trim())
            .filter(|root| !root.is_empty())
            .map(|root| {
                if let Some(kept) = self.kept_roots.iter().find(|kept| kept.uri == root) {
                    // Unchanged: its name stays as it was.
                    Ok(kept.clone())
                } else if root.starts_with("file://") {
                    Ok(ClientRoot::from_uri(root))
                } else {
                    ClientRoot::from_path(std::path::Path::new(root))
                        .map_err(|error| format!("Root {root:?}: {error}"))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ClientSettings {
            declared: self.declared,
            roots,
        })
    }

    fn build(&self) -> Result<ServerConfig, String> {
        if self.name.trim().is_empty() {
            return Err("Give the server a name".to_owned());
        }
        let collect = |rows: &[Pair], what: &str| -> Result<BTreeMap<String, String>, String> {
            let mut map = BTreeMap::new();
            for row in rows.iter().filter(|row| !row.name.trim().is_empty()) {
                if map
                    .insert(row.name.trim().to_owned(), row.value.clone())
                    .is_some()
                {
                    return Err(format!("The {what} {:?} is given twice", row.name.trim()));
                }
            }
            Ok(map)
        };
        match self.transport {
            Transport::Stdio => {
                let ServerConfig::Stdio { command, args, .. } =
                    ServerConfig::stdio_from_command_line(&self.command_line)?
                else {
                    return Err("not a command line".to_owned());
                };
                let cwd = self.cwd.trim();
                Ok(ServerConfig::Stdio {
                    command,
                    args,
                    env: collect(&self.env, "environment variable")?,
                    cwd: (!cwd.is_empty()).then(|| cwd.into()),
                })
            }
            Transport::Http => {
                let url = self.url.trim();
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err("The URL must start with http:// or https://".to_owned());
                }
                Ok(ServerConfig::Http {
                    oauth_client_id: Some(self.oauth_client_id.trim().to_owned())
                        .filter(|id| !id.is_empty()),
                    oauth_client_secret: Some(self.oauth_client_secret.trim().to_owned())
                        .filter(|secret| !secret.is_empty()),
                    url: url.to_owned(),
                    headers: collect(&self.headers, "header")?,
                    oauth: Box::new(self.oauth.build().map_err(|missing| missing.to_string())?),
                })
            }
        }
    }
}

/// A labelled one-line text field in the editor's grid.
fn field_row(ui: &mut egui::Ui, label: &str, text: &mut String, hint: &str) {
    let label = ui.label(label);
    ui.add(
        egui::TextEdit::singleline(text)
            .hint_text(hint)
            .desired_width(360.0),
    )
    .labelled_by(label.id);
    ui.end_row();
}

fn pairs_ui(ui: &mut egui::Ui, title: &str, what: &str, rows: &mut Vec<Pair>) {
    ui.label(title);
    let mut remove = None;
    for (index, row) in rows.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            let name_label = ui.label(if what == "header" {
                "Header"
            } else {
                "Variable"
            });
            ui.add(egui::TextEdit::singleline(&mut row.name).desired_width(150.0))
                .labelled_by(name_label.id);
            let value_label = ui.label("Value");
            let secret = secrets::is_secret_name(&row.name);
            ui.add(
                egui::TextEdit::singleline(&mut row.value)
                    .password(secret && !row.revealed)
                    .desired_width(200.0),
            )
            .labelled_by(value_label.id);
            if secret {
                ui.checkbox(&mut row.revealed, "Show");
            }
            if ui.button("Remove").clicked() {
                remove = Some(index);
            }
        });
    }
    if let Some(index) = remove {
        rows.remove(index);
    }
    if ui.button(format!("Add {what}")).clicked() {
        rows.push(Pair::default());
    }
}
