//! What a server said about itself when Toolscope connected.

use rmcp::{RoleClient, service::RunningService};
use serde::Serialize;
use serde_json::{Value, json};

use crate::analysis::ProtocolEra;
use crate::session::asks::client_handler::ToolscopeClient;

/// What the server said about itself when we connected.
#[derive(Debug, Clone, Serialize)]
pub struct ServerSummary {
    pub protocol_version: String,
    /// `server/discover` (2026-07-28 and later) or `initialize` (older).
    pub lifecycle: &'static str,
    /// Why `initialize` was used although `server/discover` was tried or skipped.
    pub lifecycle_reason: Option<String>,
    pub name: Option<String>,
    pub title: Option<String>,
    pub version: Option<String>,
    pub capabilities: Value,
    pub instructions: Option<String>,
}

impl ServerSummary {
    pub fn is_modern_era(&self) -> bool {
        ProtocolEra::from_version(&self.protocol_version) == ProtocolEra::Modern
    }

    /// Whether the server takes resource subscriptions (`resources.subscribe`).
    pub fn takes_subscriptions(&self) -> bool {
        self.capabilities["resources"]["subscribe"] == Value::Bool(true)
    }
}

/// The summary of a running service, from what it said in the handshake.
pub(in crate::session) fn summarize(
    service: &RunningService<RoleClient, ToolscopeClient>,
) -> ServerSummary {
    let info = service.peer().peer_info();
    let Some(info) = info else {
        return ServerSummary {
            protocol_version: "unknown".to_owned(),
            lifecycle: "initialize",
            lifecycle_reason: None,
            name: None,
            title: None,
            version: None,
            capabilities: json!({}),
            instructions: None,
        };
    };
    let protocol_version = info.protocol_version.to_string();
    let lifecycle = if ProtocolEra::from_version(&protocol_version) == ProtocolEra::Modern {
        "server/discover"
    } else {
        "initialize"
    };
    ServerSummary {
        protocol_version,
        lifecycle,
        lifecycle_reason: None,
        name: info.server_info.as_ref().map(|s| s.name.clone()),
        title: info.server_info.as_ref().and_then(|s| s.title.clone()),
        version: info.server_info.as_ref().map(|s| s.version.clone()),
        capabilities: serde_json::to_value(&info.capabilities).unwrap_or_default(),
        instructions: info.instructions.clone(),
    }
}

impl ServerSummary {
    /// The summary of a handshake someone else made (a client through `toolscope proxy`), from
    /// its answer as sent: `initialize`'s result, or `server/discover`'s with the server named
    /// in its `_meta`. `protocol_version` is what the exchange settled on.
    pub fn observed(protocol_version: &str, result: &Value) -> Self {
        let info = result
            .get("serverInfo")
            .or_else(|| result["_meta"].get("io.modelcontextprotocol/serverInfo"))
            .unwrap_or(&Value::Null);
        let text = |value: &Value| value.as_str().map(str::to_owned);
        let modern = ProtocolEra::from_version(protocol_version) == ProtocolEra::Modern;
        ServerSummary {
            protocol_version: protocol_version.to_owned(),
            lifecycle: if modern {
                "server/discover"
            } else {
                "initialize"
            },
            lifecycle_reason: None,
            name: text(&info["name"]),
            title: text(&info["title"]),
            version: text(&info["version"]),
            capabilities: result.get("capabilities").cloned().unwrap_or(json!({})),
            instructions: text(&result["instructions"]),
        }
    }
}
