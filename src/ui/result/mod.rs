//! A call's result: its header, analysis and rounds, the two panes side by side (content and
//! structuredContent, linked), an MCP App's check, and two results compared.

pub(crate) mod analysis_view;
pub(crate) mod app_check_view;
pub(crate) mod app_run_view;
pub(crate) mod compare_view;
pub(crate) mod content_pane;
pub(crate) mod linked_text;
pub(crate) mod pane_split;
pub(crate) mod result_area;
pub(crate) mod result_state;
pub(crate) mod rounds_view;
