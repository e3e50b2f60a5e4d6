//! The model's opened resource: read when a result's `resource_link` is opened, dropped
//! (in the background: its images may be big) when closed or replaced.

use super::Model;
use crate::workbench::{OpenedResource, ReadContent, ResourceState, ServerId, ToolKey};
use toolscope_core::interface::mcp_app::AppCheck;

/// A tool's MCP App check, while it runs and once done.
#[derive(Debug)]
pub enum AppCheckState {
    Checking,
    Done(Result<AppCheck, String>),
}

/// What the user asks of resources.
#[derive(Debug, Clone)]
pub enum ResourceAction {
    /// Read a resource a result links to, and show it.
    Open {
        server: ServerId,
        uri: String,
    },
    Close,
    /// Read a tool's MCP App resource (`_meta.ui.resourceUri`) and check it.
    CheckApp(ToolKey),
}

impl Model {
    pub(super) fn resource_action(&mut self, action: ResourceAction) {
        match action {
            ResourceAction::Open { server, uri } => self.open_resource(server, uri),
            ResourceAction::Close => self.close_resource(),
            ResourceAction::CheckApp(tool) => self.check_app(tool),
        }
    }

    pub fn opened_resource(&self) -> Option<&OpenedResource> {
        self.opened_resource.as_ref()
    }

    /// The last check of a tool's MCP App resource.
    pub fn app_check(&self, tool: &ToolKey) -> Option<&AppCheckState> {
        self.app_checks.get(tool)
    }

    pub(super) fn check_app(&mut self, key: ToolKey) {
        let raw = self
            .server(key.server)
            .and_then(|server| server.catalog.as_ref()?.find(&key.name))
            .map(|tool| tool.raw.clone());
        let Some(raw) = raw else {
            return;
        };
        self.app_checks.insert(key.clone(), AppCheckState::Checking);
        self.backend.check_app(key, raw, self.timeouts());
    }

    pub(super) fn app_checked(&mut self, tool: ToolKey, result: Result<AppCheck, String>) {
        self.app_checks.insert(tool, AppCheckState::Done(result));
    }

    pub(super) fn open_resource(&mut self, server: ServerId, uri: String) {
        self.resource_generation += 1;
        let generation = self.resource_generation;
        self.backend.read_resource(
            server,
            uri.clone(),
            self.timeouts(),
            self.max_image_side,
            generation,
        );
        let old = self.opened_resource.replace(OpenedResource {
            server,
            uri,
            generation,
            state: ResourceState::Reading,
        });
        if let Some(old) = old {
            self.backend.drop_in_background(old);
        }
    }

    pub(super) fn close_resource(&mut self) {
        self.resource_generation += 1;
        if let Some(old) = self.opened_resource.take() {
            self.backend.drop_in_background(old);
        }
    }

    pub(super) fn resource_read(
        &mut self,
        generation: u64,
        result: Result<Vec<ReadContent>, String>,
    ) {
        match &mut self.opened_resource {
            Some(opened) if opened.generation == generation => {
                opened.state = match result {
                    Ok(contents) => ResourceState::Read(contents),
                    Err(error) => ResourceState::Failed(error),
                };
            }
            // Closed or replaced meanwhile.
            _ => self.backend.drop_in_background(result),
        }
    }
}
