//! The model's side of servers: connecting (placeholders filled, inputs asked for), their
//! tools arriving, what their sessions report, saving and removing them.

use std::time::Instant;

use super::{DEMO_SERVER, Model};
use crate::{
    engine::{self},
    session::{ServerConfig, SessionEvent},
    workbench::{
        ServerId,
        backend::ToolListUpdate,
        server_state::{ConnectionStatus, ServerState},
        tool_run::ToolKey,
    },
};

impl Model {
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
        client: crate::session::ClientSettings,
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
            SessionEvent::ToolListChanged => self.refresh_tools(server),
            SessionEvent::Log {
                level,
                logger,
                data,
            } => {
                let line = crate::session::events::log_line(&level, logger.as_deref(), &data);
                crate::deep_json::drop_value(data);
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
            SessionEvent::Progress { .. } | SessionEvent::OtherListChanged { .. } => {}
        }
    }
}
