//! What Toolscope is as a client of one server: the capabilities it declares (each can be
//! turned off, so both paths of a server can be tested), the roots it offers, and who answers
//! what the server asks.

use std::sync::{Arc, RwLock};

use rmcp::model::{
    ClientCapabilities, ElicitationCapability, FormElicitationCapability, RootsCapabilities,
    SamplingCapability, TASKS_EXTENSION_ID, UrlElicitationCapability,
};
use serde::{Deserialize, Serialize};

use crate::session::asks::Asker;

/// The client capabilities declared to a server. All are declared unless turned off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeclaredCapabilities {
    /// `elicitation.form`: the server may ask for input through a generated form.
    pub elicitation_form: bool,
    /// `elicitation.url`: the server may send the person to a web page.
    pub elicitation_url: bool,
    /// `sampling`: the server may ask for a model's reply (the person writes it).
    pub sampling: bool,
    /// `sampling.tools`: a sampling request may offer tools and ask for a tool_use reply.
    pub sampling_tools: bool,
    /// `roots` (with `listChanged`): the server may ask for the folders it may work in.
    pub roots: bool,
    /// Tasks: tools that may run as tasks do (2025-11-25 `execution.taskSupport`), and a
    /// 2026-07-28 server may answer a call with a task (the `io.modelcontextprotocol/tasks`
    /// extension, declared in each request).
    pub tasks: bool,
}

impl Default for DeclaredCapabilities {
    fn default() -> Self {
        Self {
            elicitation_form: true,
            elicitation_url: true,
            sampling: true,
            sampling_tools: true,
            roots: true,
            tasks: true,
        }
    }
}

impl DeclaredCapabilities {
    /// Nothing declared: what Toolscope was before servers could ask anything.
    pub fn none() -> Self {
        Self {
            elicitation_form: false,
            elicitation_url: false,
            sampling: false,
            sampling_tools: false,
            roots: false,
            tasks: false,
        }
    }

    /// The capabilities as rmcp sends them (in `initialize` and in each 2026-07-28 request).
    // Sampling and roots are deprecated by SEP-2577 but live in both eras' servers.
    #[allow(deprecated)]
    pub fn to_rmcp(self) -> ClientCapabilities {
        let mut capabilities = ClientCapabilities::default();
        if self.elicitation_form || self.elicitation_url {
            let mut elicitation = ElicitationCapability::new();
            if self.elicitation_form {
                // Not `schemaValidation`: answers are checked by the form's own rules (and a
                // command line's --elicit-answer not at all), not against the whole schema.
                elicitation = elicitation.with_form(FormElicitationCapability::new());
            }
            if self.elicitation_url {
                elicitation.url = Some(UrlElicitationCapability::new());
            }
            capabilities.elicitation = Some(elicitation);
        }
        if self.sampling {
            let mut sampling = SamplingCapability::default();
            if self.sampling_tools {
                sampling.tools = Some(serde_json::Map::new());
            }
            capabilities.sampling = Some(sampling);
        }
        if self.roots {
            let mut roots = RootsCapabilities::default();
            roots.list_changed = Some(true);
            capabilities.roots = Some(roots);
        }
        if self.tasks {
            // Only 2026-07-28 servers read extensions; the 2025-11-25 `tasks` capability
            // is about requests the *server* sends as tasks, which Toolscope does not take.
            capabilities.extensions = Some(
                [(TASKS_EXTENSION_ID.to_owned(), serde_json::Map::new())]
                    .into_iter()
                    .collect(),
            );
        }
        capabilities
    }

    /// Whether an ask of `method` (with `params`) may be answered: its capability is declared.
    pub fn allows(self, method: &str, params: &serde_json::Value) -> bool {
        match method {
            crate::session::asks::ELICITATION => {
                let url = params.get("mode").and_then(serde_json::Value::as_str) == Some("url");
                if url {
                    self.elicitation_url
                } else {
                    self.elicitation_form
                }
            }
            // Offered tools need `sampling.tools`.
            crate::session::asks::SAMPLING => {
                self.sampling && (self.sampling_tools || params.get("tools").is_none())
            }
            crate::session::asks::ROOTS => self.roots,
            _ => false,
        }
    }

    /// The declared ones, named as in the protocol, for the negotiated view.
    pub fn names(self) -> Vec<&'static str> {
        [
            (self.elicitation_form, "elicitation.form"),
            (self.elicitation_url, "elicitation.url"),
            (self.sampling, "sampling"),
            (self.sampling && self.sampling_tools, "sampling.tools"),
            (self.roots, "roots"),
            (self.tasks, "tasks"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
    }
}

/// A folder offered to the server as a root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRoot {
    /// A `file://` URI.
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Why a folder cannot be offered as a root.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RootError {
    #[error("{} cannot be made absolute: {reason}", path.display())]
    NotAbsolute {
        path: std::path::PathBuf,
        reason: String,
    },
    #[error("{} is not a folder path", .0.display())]
    NotAFolder(std::path::PathBuf),
}

impl ClientRoot {
    /// The root of a folder on this machine (made absolute), named by its last component.
    pub fn from_path(path: &std::path::Path) -> Result<Self, RootError> {
        let absolute = std::path::absolute(path).map_err(|error| RootError::NotAbsolute {
            path: path.to_owned(),
            reason: error.to_string(),
        })?;
        let uri = url::Url::from_directory_path(&absolute)
            .map_err(|()| RootError::NotAFolder(absolute.clone()))?;
        // `file:///srv/` reads as `file:///srv`; the root of the file system stays `file:///`.
        let text = uri.as_str();
        let uri = if uri.path() == "/" {
            text.to_owned()
        } else {
            text.trim_end_matches('/').to_owned()
        };
        let name = absolute
            .file_name()
            .map(|name| name.to_string_lossy().into_owned());
        Ok(Self { uri, name })
    }

    /// A root typed as a `file://` URI, named by its last folder (decoded, as the file
    /// system spells it).
    pub fn from_uri(uri: &str) -> Self {
        let name = url::Url::parse(uri)
            .ok()
            .and_then(|parsed| parsed.to_file_path().ok())
            .and_then(|path| {
                path.file_name()
                    .map(|name| name.to_string_lossy().into_owned())
            });
        Self {
            uri: uri.to_owned(),
            name,
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        let mut root = serde_json::json!({ "uri": self.uri });
        if let Some(name) = &self.name {
            root["name"] = serde_json::Value::String(name.clone());
        }
        root
    }
}

/// The roots of a session, shared with its handler; changed while connected, the server is
/// told (`notifications/roots/list_changed`).
#[derive(Debug, Clone, Default)]
pub struct RootsList {
    roots: Arc<RwLock<Vec<ClientRoot>>>,
}

impl RootsList {
    pub fn new(roots: Vec<ClientRoot>) -> Self {
        Self {
            roots: Arc::new(RwLock::new(roots)),
        }
    }

    pub fn get(&self) -> Vec<ClientRoot> {
        self.roots
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Replaces the list; returns whether it changed.
    pub fn set(&self, roots: Vec<ClientRoot>) -> bool {
        let mut current = self
            .roots
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let changed = *current != roots;
        *current = roots;
        changed
    }

    /// The `roots/list` result.
    pub fn result(&self) -> serde_json::Value {
        serde_json::json!({
            "roots": self.get().iter().map(ClientRoot::to_json).collect::<Vec<_>>()
        })
    }
}

/// What is kept per server: the capabilities declared to it and the roots offered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClientSettings {
    pub declared: DeclaredCapabilities,
    pub roots: Vec<ClientRoot>,
}

/// Toolscope's side of one connection.
#[derive(Clone, Default)]
pub struct ClientSide {
    pub declared: DeclaredCapabilities,
    pub roots: RootsList,
    /// Who answers elicitation and sampling; without one they are refused.
    pub asker: Option<Asker>,
}

impl ClientSide {
    /// For a run nobody attends (cases): only roots and tasks declared (neither needs a
    /// person), no asker, so servers take the path they take for clients that cannot ask one.
    pub fn unattended() -> Self {
        Self {
            declared: DeclaredCapabilities {
                roots: true,
                tasks: true,
                ..DeclaredCapabilities::none()
            },
            ..Self::default()
        }
    }
}

impl std::fmt::Debug for ClientSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSide")
            .field("declared", &self.declared)
            .field("roots", &self.roots)
            .field("asker", &self.asker.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_capability_is_declared_by_default_and_each_can_be_turned_off() {
        let all =
            serde_json::to_value(DeclaredCapabilities::default().to_rmcp()).unwrap_or_default();
        assert_eq!(
            all,
            serde_json::json!({
                "roots": {"listChanged": true},
                "sampling": {"tools": {}},
                "elicitation": {"form": {}, "url": {}},
                "extensions": {"io.modelcontextprotocol/tasks": {}},
            })
        );
        let none = serde_json::to_value(DeclaredCapabilities::none().to_rmcp()).unwrap_or_default();
        assert_eq!(none, serde_json::json!({}));
        let form_only = DeclaredCapabilities {
            elicitation_url: false,
            ..DeclaredCapabilities::default()
        };
        assert!(!form_only.allows("elicitation/create", &serde_json::json!({"mode": "url"})));
        assert!(form_only.allows("elicitation/create", &serde_json::json!({"message": "?"})));
        let old: DeclaredCapabilities =
            serde_json::from_str(r#"{"sampling": false}"#).unwrap_or_default();
        assert!(!old.sampling && old.roots, "missing keys stay declared");
    }

    #[test]
    fn a_folder_becomes_a_file_uri_named_by_its_last_part() {
        let root = ClientRoot::from_path(std::path::Path::new("/tmp/my project"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(root.uri, "file:///tmp/my%20project");
        assert_eq!(root.name.as_deref(), Some("my project"));
        assert_eq!(ClientRoot::from_uri("file:///tmp/my%20project"), root);
        assert_eq!(
            ClientRoot::from_path(std::path::Path::new("/"))
                .map(|root| root.uri)
                .unwrap_or_default(),
            "file:///"
        );
        let list = RootsList::new(vec![root.clone()]);
        assert!(!list.set(vec![root]));
        assert!(list.set(Vec::new()));
        assert_eq!(list.result(), serde_json::json!({"roots": []}));
    }
}
