//! The model's side of other clients' servers: those found at start, importing one, and
//! updating one imported earlier from what its client has now.

use super::Model;
use crate::workbench::ServerId;
use toolscope_core::session::ServerConfig;

/// What the user asks of other clients' servers.
#[derive(Debug, Clone)]
pub enum ImportAction {
    /// Look (again) for servers in other clients' configurations.
    LookForServers,
    /// Save the found server at this index of `Model::found_servers` (and connect it).
    Import(usize),
    /// Replace the server imported earlier from the found one at this index with what it is
    /// now (see `Model::earlier_import`), and connect it.
    Update(usize),
    /// Plan rewriting the found server at this index so its client runs it through
    /// `toolscope proxy` (shown before it is made).
    PlanWatch(usize),
    /// Plan putting the watched found server at this index back as it was.
    PlanUnwatch(usize),
    /// Make the change planned; or drop it.
    ConfirmWatchChange,
    CancelWatchChange,
}

impl Model {
    pub(super) fn import_action(&mut self, action: ImportAction) {
        match action {
            ImportAction::LookForServers => {
                if let Some(files) = self.import_files.clone() {
                    self.found_servers = crate::workbench::found_servers::FoundServers::Looking;
                    self.backend
                        .look_for_servers(files, self.watch_records.clone());
                }
            }
            ImportAction::PlanWatch(index) => {
                if let Some(found) = self.found_servers.servers().get(index) {
                    self.backend
                        .plan_watch(found.clone(), self.history_location.clone());
                }
            }
            ImportAction::PlanUnwatch(index) => {
                let record = self
                    .found_servers
                    .servers()
                    .get(index)
                    .and_then(|found| self.watch_of(found))
                    .cloned();
                if let Some(record) = record {
                    self.backend.plan_unwatch(record);
                }
            }
            ImportAction::ConfirmWatchChange => {
                if let (Some(change), Some(records)) =
                    (self.watch_change.take(), self.watch_records.clone())
                {
                    self.backend.apply_watch_change(change, records);
                }
            }
            ImportAction::CancelWatchChange => self.watch_change = None,
            ImportAction::Import(index) => self.import_found(index),
            ImportAction::Update(index) => self.update_from_found(index),
        }
    }

    pub(super) fn servers_found(
        &mut self,
        servers: Vec<toolscope_core::import::FoundServer>,
        unreadable: Vec<(std::path::PathBuf, String)>,
        watched: Vec<toolscope_core::import::watch_through::WatchRecord>,
    ) {
        self.watched = watched;
        self.found_servers = crate::workbench::found_servers::FoundServers::Found {
            servers,
            unreadable,
        };
    }

    pub(super) fn watch_planned(
        &mut self,
        planned: Result<crate::workbench::backend::WatchChange, String>,
    ) {
        match planned {
            Ok(change) if self.watch_records.is_some() => self.watch_change = Some(change),
            Ok(_) => self.show_banner(
                "Watching through Toolscope needs a data folder to keep the file as it was \
                 (set TOOLSCOPE_DATA_DIR)"
                    .to_owned(),
                None,
            ),
            Err(problem) => self.show_banner(format!("Nothing was changed: {problem}"), None),
        }
    }

    pub(super) fn watch_done(
        &mut self,
        result: Result<String, String>,
        watched: Vec<toolscope_core::import::watch_through::WatchRecord>,
    ) {
        self.watched = watched;
        match result {
            Ok(message) => self.show_banner(message, None),
            Err(problem) => self.show_banner(format!("Nothing was changed: {problem}"), None),
        }
        // The entry reads differently now.
        self.import_action(ImportAction::LookForServers);
    }

    /// The change to another client's entry waiting for the person's yes.
    pub fn watch_change(&self) -> Option<&crate::workbench::backend::WatchChange> {
        self.watch_change.as_ref()
    }

    /// The watch of a found server, when its client runs it through Toolscope.
    pub fn watch_of(
        &self,
        found: &toolscope_core::import::FoundServer,
    ) -> Option<&toolscope_core::import::watch_through::WatchRecord> {
        self.watched.iter().find(|record| {
            record.path == found.path
                && record.name == found.name
                && record.client == found.client.id()
        })
    }

    /// Whether this window can watch servers through Toolscope (it has a data folder).
    pub fn can_watch(&self) -> bool {
        self.watch_records.is_some()
    }

    /// Other clients' servers (found, being looked for, or not looked for).
    pub fn found_servers(&self) -> &crate::workbench::found_servers::FoundServers {
        &self.found_servers
    }

    /// Whether a found server is saved here already (the same command or URL).
    pub fn is_imported(&self, found: &toolscope_core::import::FoundServer) -> bool {
        found.entry.as_ref().is_ok_and(|entry| {
            self.servers
                .iter()
                // Compared as a re-import compares: a secret kept in the keyring (a
                // reference in the saved settings) is not a difference.
                .any(|server| {
                    !server.builtin
                        && toolscope_core::import::config_changes(&server.config, &entry.config)
                            .is_empty()
                })
        })
    }

    /// The saved server a found one was imported as earlier (its name, or the name with the
    /// client's added), when the found one now differs from it: its id, name and the changes.
    pub fn earlier_import(
        &self,
        found: &toolscope_core::import::FoundServer,
    ) -> Option<(ServerId, &str, Vec<String>)> {
        let entry = found.entry.as_ref().ok()?;
        if self.is_imported(found) {
            return None;
        }
        let with_client = format!("{} ({}", found.name, found.client.name());
        self.servers
            .iter()
            .filter(|server| !server.builtin)
            .find(|server| server.name == found.name || server.name.starts_with(&with_client))
            .map(|server| {
                let changes = toolscope_core::import::config_changes(&server.config, &entry.config);
                (server.id, server.name.as_str(), changes)
            })
            .filter(|(_, _, changes)| !changes.is_empty())
    }

    /// How many found servers could be imported and are not saved yet.
    pub fn importable_count(&self) -> usize {
        self.found_servers
            .servers()
            .iter()
            .filter(|found| found.entry.is_ok() && !self.is_imported(found))
            .count()
    }

    /// Replaces the saved server a found one was imported as with what its client says now
    /// (its name, capabilities and whether it connects at start stay), and connects it.
    pub(super) fn update_from_found(&mut self, index: usize) {
        let Some(found) = self.found_servers.servers().get(index) else {
            return;
        };
        let (Some((id, _, _)), Ok(entry)) = (self.earlier_import(found), &found.entry) else {
            return;
        };
        let mut config = entry.config.clone();
        let Some(saved) = self.server(id) else {
            return;
        };
        // A client id given in Toolscope is Toolscope's own setting: it stays.
        if let (
            ServerConfig::Http {
                oauth_client_id: kept,
                oauth_client_secret: None,
                ..
            },
            ServerConfig::Http {
                oauth_client_id, ..
            },
        ) = (&saved.config, &mut config)
            && oauth_client_id.is_none()
        {
            oauth_client_id.clone_from(kept);
        }
        // So are its OAuth extensions (no other client's file has them).
        if let (ServerConfig::Http { oauth: kept, .. }, ServerConfig::Http { oauth, .. }) =
            (&saved.config, &mut config)
            && oauth.is_default()
        {
            oauth.clone_from(kept);
        }
        let (name, connect_at_start, client) = (
            saved.name.clone(),
            saved.connect_at_start,
            saved.client.clone(),
        );
        self.save_server(Some(id), name, config, connect_at_start, client);
    }

    pub(super) fn import_found(&mut self, index: usize) {
        let Some(found) = self.found_servers.servers().get(index) else {
            return;
        };
        let Ok(entry) = &found.entry else {
            return;
        };
        let taken: Vec<&str> = self
            .servers
            .iter()
            .map(|server| server.name.as_str())
            .collect();
        let name =
            crate::workbench::found_servers::unique_name(&found.name, found.client.name(), &taken);
        let config = entry.config.clone();
        self.save_server(
            None,
            name,
            config,
            true,
            toolscope_core::session::ClientSettings::default(),
        );
    }
}
