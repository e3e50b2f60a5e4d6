//! The model's side of servers: connecting (placeholders filled, inputs asked for), their
//! tools arriving, what their sessions report, saving and removing them.

use std::time::Instant;

use super::{DEMO_SERVER, Model};
use crate::workbench::{
    InterfaceNote, ServerId, SignInPage,
    backend::ToolListUpdate,
    server_state::{ConnectionStatus, ServerState},
    tool_run::ToolKey,
};
use toolscope_core::{
    analysis::ProtocolEra,
    engine::{self},
    session::{ProtocolTap, ServerConfig, ServerSummary, SessionEvent},
};

/// What the user asks of servers.
#[derive(Debug, Clone)]
pub enum ServerAction {
    Select(ServerId),
    Connect(ServerId),
    Disconnect(ServerId),
    Remove(ServerId),
    /// Values for a server's `${input:…}` placeholders (input id, value), then connect it.
    GiveInputs {
        server: ServerId,
        values: Vec<(String, String)>,
    },
    /// Open the page a server's sign-in waits on in the browser again.
    OpenSignInPage(ServerId),
    /// Forget a server's OAuth tokens and client registration (and disconnect it).
    SignOut(ServerId),
    /// Put a server on the clipboard as another client's configuration entry (secret values
    /// as placeholders unless `include_secrets`).
    CopyAs {
        name: String,
        config: ServerConfig,
        client: toolscope_core::import::Client,
        include_secrets: bool,
    },
    /// Add (`id: None`) or change a server.
    /// Saving connects it (again, when it was connected: a changed command or URL takes effect).
    Save {
        id: Option<ServerId>,
        name: String,
        config: ServerConfig,
        connect_at_start: bool,
        client: toolscope_core::session::ClientSettings,
    },
    RefreshTools(ServerId),
    /// Put away the note of what changed in a server's interface since last time.
    DismissSinceLastTime(ServerId),
    /// Restart the server whenever a file changes in `folder` (`None`: its default folder,
    /// the one of the script in its command line, else its working directory).
    RestartOnChange {
        server: ServerId,
        folder: Option<std::path::PathBuf>,
    },
    StopRestartOnChange(ServerId),
    /// Walk a server's connection step by step (the connection doctor).
    Diagnose(ServerId),
    CloseDiagnosis,
}

impl Model {
    pub(super) fn server_action(&mut self, action: ServerAction) {
        match action {
            ServerAction::Select(id) => {
                self.selected_server = id;
                self.settle_results();
            }
            ServerAction::Connect(id) => self.connect(id),
            ServerAction::Disconnect(id) => self.disconnect(id),
            ServerAction::Remove(id) => self.remove_server(id),
            ServerAction::GiveInputs { server, values } => {
                for (input, value) in values {
                    self.input_values.insert((server, input), value);
                }
                self.connect(server);
            }
            ServerAction::OpenSignInPage(id) => {
                if let Some(page) = self.server(id).and_then(|server| server.sign_in.clone()) {
                    self.backend.open_page(page.page);
                }
            }
            ServerAction::SignOut(id) => {
                if let Some(server) = self.server(id)
                    && let ServerConfig::Http {
                        url,
                        oauth_client_secret,
                        ..
                    } = &server.config
                {
                    let (name, url) = (server.name.clone(), url.clone());
                    let secret = oauth_client_secret.clone();
                    self.disconnect(id);
                    self.backend.sign_out(name, url, secret);
                }
            }
            ServerAction::CopyAs {
                name,
                config,
                client,
                include_secrets,
            } => self.backend.copy_as(name, config, client, include_secrets),
            ServerAction::Save {
                id,
                name,
                config,
                connect_at_start,
                client,
            } => self.save_server(id, name, config, connect_at_start, client),
            ServerAction::RefreshTools(server) => self.refresh_tools(server),
            ServerAction::RestartOnChange { server, folder } => {
                self.start_restart_on_change(server, folder);
            }
            ServerAction::StopRestartOnChange(server) => self.stop_restart_on_change(server),
            ServerAction::Diagnose(server) => self.diagnose(server),
            ServerAction::CloseDiagnosis => self.diagnosis = None,
            ServerAction::DismissSinceLastTime(id) => {
                if let Some(server) = self.server_mut(id) {
                    server.since_last_time = None;
                }
            }
        }
    }

    fn disconnect(&mut self, id: ServerId) {
        self.asks.drop_server(id);
        self.backend.disconnect(id);
        if let Some(server) = self.server_mut(id) {
            server.status = ConnectionStatus::Disconnected;
            server.sign_in = None;
        }
    }

    pub(super) fn connected(&mut self, server: ServerId, summary: ServerSummary, tap: ProtocolTap) {
        let era = ProtocolEra::from_version(&summary.protocol_version);
        let Some(state) = self.server_mut(server) else {
            return;
        };
        state.status = ConnectionStatus::Connected {
            summary: Box::new(summary),
        };
        state.sign_in = None;
        state.tap = Some(tap);
        // What the last connection listed and subscribed to is gone with it.
        state.features = crate::workbench::server_features::ServerFeatures::default();
        let name = state.name.clone();
        if self.settings.protocol_eras.get(&name) != Some(&era) {
            self.settings.protocol_eras.insert(name, era);
            self.save_settings();
        }
        self.list_features(server);
    }

    pub(super) fn connect_failed(&mut self, server: ServerId, message: String) {
        self.asks.drop_server(server);
        if let Some(state) = self.server_mut(server) {
            // A restart on change whose server does not start says so; the next change
            // restarts it again.
            if let Some(watch) = state
                .restart_on_change
                .as_mut()
                .filter(|watch| watch.is_restarting())
            {
                watch.report = Some(
                    "Restarted; the server did not start (why is above): the next change \
                     restarts it again"
                        .to_owned(),
                );
            }
            state.status = ConnectionStatus::Failed { message };
            state.sign_in = None;
        }
    }

    /// A connection's sign-in, or a later one (a token refused mid-session).
    pub(super) fn sign_in_waiting(&mut self, server: ServerId, page: SignInPage, tap: ProtocolTap) {
        if let Some(state) = self.server_mut(server) {
            state.sign_in = Some(page);
            if state.tap.is_none() || !state.is_connected() {
                state.tap = Some(tap);
            }
        }
    }

    pub(super) fn sign_in_ended(&mut self, server: ServerId) {
        if let Some(state) = self.server_mut(server) {
            state.sign_in = None;
        }
    }

    pub(super) fn tools_listed(
        &mut self,
        server: ServerId,
        result: Result<ToolListUpdate, String>,
    ) {
        match result {
            Ok(update) => {
                self.tools_arrived(server, update);
                // A server restarted on change goes on: its last call made again.
                self.restart_listed(server);
            }
            Err(message) => {
                if let Some(state) = self.server_mut(server) {
                    state.tools_error = Some(message);
                }
            }
        }
    }

    pub(super) fn since_last_time(&mut self, server: ServerId, note: InterfaceNote) {
        if let Some(state) = self.server_mut(server) {
            state.since_last_time = Some(note);
        }
    }

    pub(super) fn connect(&mut self, id: ServerId) {
        let timeouts = self.timeouts();
        let Some(index) = self.servers.iter().position(|server| server.id == id) else {
            return;
        };
        self.asks.drop_server(id);
        let server = &mut self.servers[index];
        server.sign_in = None;
        server.status = ConnectionStatus::Connecting {
            since: Instant::now(),
        };
        server.tools_error = None;
        server.change_note = None;
        server.since_last_time = None;
        let known_era = self.settings.protocol_eras.get(&server.name).copied();
        // An imported server may carry placeholders (`${TOKEN}`, `${input:key}`): filled from
        // the environment here, or the connection says which are missing.
        // `${input:…}` values the user gave in this window come after the environment's.
        let given = &self.input_values;
        let config = match engine::fill_placeholders(
            &server.config,
            std::env::current_dir().ok().as_deref(),
            |input| given.get(&(id, input.to_owned())).cloned(),
        ) {
            Ok(config) => {
                server.asked_inputs.clear();
                config
            }
            Err(missing) => {
                server.asked_inputs = missing.inputs();
                let ask = if server.asked_inputs.is_empty() {
                    ""
                } else {
                    " (the ${input:…} ones can be entered below)"
                };
                server.status = ConnectionStatus::Failed {
                    message: format!(
                        "{missing}. Set them in the environment Toolscope starts in, or edit the \
                         server{ask}"
                    ),
                };
                return;
            }
        };
        self.backend.connect(
            id,
            server.name.clone(),
            config,
            server.client.clone(),
            timeouts,
            known_era,
        );
        self.selected_server = id;
    }

    pub(super) fn refresh_tools(&mut self, id: ServerId) {
        if let Some(server) = self.server(id) {
            let label = server.name.clone();
            self.backend.refresh_tools(id, label, self.timeouts());
        }
    }

    pub(super) fn remove_server(&mut self, id: ServerId) {
        if self.server(id).is_none_or(|server| server.builtin) {
            return;
        }
        self.asks.drop_server(id);
        self.backend.forget(id);
        self.servers.retain(|server| server.id != id);
        self.runs.retain(|tool, _| tool.server != id);
        self.calls.retain(|_, call| call.tool.server != id);
        if self.selected_server == id {
            self.selected_server = DEMO_SERVER;
        }
        self.save_settings();
    }

    pub(super) fn save_server(
        &mut self,
        id: Option<ServerId>,
        name: String,
        config: ServerConfig,
        connect_at_start: bool,
        client: toolscope_core::session::ClientSettings,
    ) {
        let mut announce_roots = None;
        let connect = match id.and_then(|id| self.server_mut(id)) {
            Some(server) if !server.builtin => {
                // Another command or URL may speak another era.
                let old_name = std::mem::replace(&mut server.name, name);
                // Other capabilities are declared only in a new connection; other roots are
                // announced to the live one (notifications/roots/list_changed).
                let changed = server.config != config || server.client.declared != client.declared;
                let roots_changed = server.client.roots != client.roots;
                server.config = config;
                server.connect_at_start = connect_at_start;
                server.client = client;
                // A server the user disconnected stays so; a live one picks up the change.
                let live = !matches!(server.status, ConnectionStatus::Disconnected);
                // A connection still being made would start with the old roots: make it again.
                let connecting = matches!(server.status, ConnectionStatus::Connecting { .. });
                let changed = changed || (roots_changed && connecting);
                let reconnect = (changed && live).then_some(server.id);
                if roots_changed && live && !changed {
                    announce_roots = Some((server.id, server.client.roots.clone()));
                }
                self.settings.protocol_eras.remove(&old_name);
                reconnect
            }
            Some(_) => return,
            None => {
                let id = self.fresh_id();
                let mut server = ServerState::new(id, name, config, false);
                server.connect_at_start = connect_at_start;
                server.client = client;
                self.servers.push(server);
                self.selected_server = id;
                Some(id)
            }
        };
        self.save_settings();
        if let Some((id, roots)) = announce_roots {
            self.backend.set_roots(id, roots);
        }
        if let Some(id) = connect {
            self.connect(id);
        }
    }

    pub(super) fn tools_arrived(&mut self, server: ServerId, update: ToolListUpdate) {
        let ToolListUpdate { catalog, changes } = update;
        let Some(state) = self.server_mut(server) else {
            return;
        };
        // A refresh that changed nothing (servers often notify twice) keeps the note of the
        // last real change.
        if let Some(note) = changes.as_ref().and_then(|changes| changes.describe()) {
            state.change_note = Some(note);
        }
        let selected_name = state.selected_tool_entry().map(|tool| tool.name.clone());
        let keep = state.selected_tool.and_then(|index| {
            let tool = catalog.tools.get(index)?;
            (Some(&tool.name) == selected_name.as_ref()).then_some(index)
        });
        state.selected_tool = keep
            .or_else(|| {
                let name = selected_name.as_ref()?;
                catalog.tools.iter().position(|tool| &tool.name == name)
            })
            .or_else(|| catalog.tools.iter().position(|tool| tool.name == "add"))
            .or((!catalog.tools.is_empty()).then_some(0));
        state.catalog = Some(catalog);
        state.tools_error = None;
        // State built on a definition that changed (or a tool that left) starts over; the
        // others keep their arguments and last result.
        let Some(changes) = changes else {
            return;
        };
        let stale: Vec<ToolKey> = self
            .runs
            .iter()
            .filter(|(tool, run)| {
                tool.server == server && !run.is_running() && changes.affects(&tool.name)
            })
            .map(|(tool, _)| tool.clone())
            .collect();
        for tool in stale {
            self.runs.remove(&tool);
        }
        for name in changes.changed.iter().chain(&changes.removed) {
            *self
                .revisions
                .entry(ToolKey::new(server, name.clone()))
                .or_default() += 1;
        }
    }

    pub(super) fn session_event(&mut self, server: ServerId, event: SessionEvent) {
        match event {
            SessionEvent::Log {
                level,
                logger,
                data,
            } => {
                let line =
                    toolscope_core::session::events::log_line(&level, logger.as_deref(), &data);
                toolscope_core::deep_json::drop_value(data);
                if let Some(state) = self.server_mut(server) {
                    state.push_log(line);
                }
            }
            SessionEvent::Closed { reason } => {
                // Nobody will take the answers: the questions go (and their calls fail).
                self.asks.drop_server(server);
                if let Some(state) = self.server_mut(server)
                    && state.is_connected()
                {
                    state.status = ConnectionStatus::Closed { reason };
                }
            }
            SessionEvent::Answered(exchange) => {
                let line = format!(
                    "[client] the server {}; answered: {}",
                    exchange.ask.summary(),
                    exchange.reply.summary()
                );
                if let Some(state) = self.server_mut(server) {
                    state.push_log(line);
                }
            }
            SessionEvent::ElicitationComplete { elicitation_id } => {
                if let Some(state) = self.server_mut(server) {
                    state.push_log(format!(
                        "[client] the server says the URL elicitation {elicitation_id:?} is complete"
                    ));
                }
            }
            SessionEvent::OtherListChanged { list } => self.list_changed(server, list),
            SessionEvent::ResourceUpdated { uri } => self.resource_updated(server, uri),
            // The backend lists the tools again where the session tells a tool list change.
            SessionEvent::ToolListChanged | SessionEvent::Progress { .. } => {}
        }
    }
}
