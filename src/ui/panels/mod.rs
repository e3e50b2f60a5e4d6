//! The window's panels around the result: the top bar, the request column (a tool's form and
//! schemas), a picked resource or prompt, the history and cases views, and the protocol log.

pub(crate) mod case_view;
pub(crate) mod feature_view;
pub(crate) mod history_view;
pub(crate) mod live_view;
pub(crate) mod load_view;
pub(crate) mod log_mirror;
pub(crate) mod logs_panel;
pub(crate) mod request_column;
pub(crate) mod request_state;
pub(crate) mod schema_view;
pub(crate) mod server_view;
pub(crate) mod session_diff_view;
pub(crate) mod skill_view;
pub(crate) mod tool_view;
pub(crate) mod top_bar;
