//! What Toolscope asks a server and what comes back: each request steered (timeouts, cancel,
//! progress), the raw responses kept by id, a call's outcome, and the rest of a server
//! (resources, prompts, completion, subscriptions).

pub mod call_outcome;
pub mod feature_items;
pub(in crate::session) mod progress_routes;
pub mod raw_response;
pub mod raw_responses;
pub mod request_control;
pub(in crate::session) mod request_span;
pub mod resources;
pub mod server_features;
pub(in crate::session) mod subscriptions;
