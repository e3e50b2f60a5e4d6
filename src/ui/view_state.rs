//! What only the window keeps, by the part that keeps it: the layout, the stage (tour and
//! presentation mode), the request column's forms, the result area's trees, the sidebar's
//! filters, the logs panel and the open dialogs. The model knows none of it.
//!
//! Each panel is drawn with its own part (`fn ui(&Model, &mut ItsState, …, &mut Vec<Action>)`)
//! and asks for changes elsewhere by actions; only the tour, which directs the whole window,
//! takes all of it.

use super::{
    dialogs::Dialogs, logs_panel::LogsState, request_state::RequestState,
    result_state::ResultState, sidebar::SidebarState, tour::Tour,
};
use crate::workbench::ServerId;
use toolscope_core::settings::Layout;

#[derive(Default)]
pub struct ViewState {
    /// The layout as the user is shaping it (saved through the model, see `layout_memory`).
    pub layout: Layout,
    pub stage: Stage,
    pub request: RequestState,
    pub result: ResultState,
    pub sidebar: SidebarState,
    pub logs: LogsState,
    pub dialogs: Dialogs,
    /// The forms of resource templates and prompts, as typed.
    pub features: super::feature_view::FeatureForms,
}

/// Teaching: the guided tour and presentation mode.
#[derive(Default)]
pub struct Stage {
    /// The guided tour, while it runs.
    pub tour: Option<Tour>,
    /// The tour is offered (a first start) and the user has not answered.
    pub tour_offered: bool,
    /// In presentation mode: the layout to go back to.
    pub presenting: Option<Layout>,
    /// A zoom was set this frame; the context reports it from the next one.
    pub zoom_pending: bool,
    /// The first tool shown since the start has had the keyboard focus put in its form.
    pub first_tool_focused: bool,
}

impl ViewState {
    /// Drops what belonged to a removed server.
    pub fn forget_server(&mut self, server: ServerId) {
        self.request.forget_server(server);
        self.result.forget_server(server);
        self.sidebar.tool_filters.remove(&server);
        self.features.forget_server(server);
    }
}
