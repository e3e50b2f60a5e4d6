//! How Toolscope reaches a server: the child process over stdio or Streamable HTTP, the
//! handshake probes, what a transport failure means, and the protocol tap both write.

pub(crate) mod discover_probe;
pub(crate) mod http;
pub(crate) mod http_auth;
pub(in crate::session) mod http_capture;
pub(crate) mod http_discover_probe;
pub(in crate::session) mod http_dpop;
pub(in crate::session) mod http_failure;
pub(in crate::session) mod http_redirect;
pub(in crate::session) mod http_resume;
pub(in crate::session) mod start;
pub(in crate::session) mod start_errors;
pub(in crate::session) mod stdio;
pub mod tap;
