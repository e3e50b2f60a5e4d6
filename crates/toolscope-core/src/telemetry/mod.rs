//! Every MCP request a trace (OpenTelemetry): with the SDK's standard variables
//! (`OTEL_EXPORTER_OTLP_ENDPOINT`…) or the `telemetry` settings, each request Toolscope sends
//! or relays is a span following the semantic conventions for MCP, exported over OTLP/HTTP,
//! and the requests Toolscope sends carry their span's `traceparent` in `params._meta` so a
//! server's spans join the trace. Without a variable or a setting nothing is set up.
//!
//! `config` decides, `provider` sets up and shuts down, `mcp_span` makes the spans,
//! `trace_context` writes and reads `traceparent`, `one_warning` says an unreachable
//! collector once, `relayed_spans` follows what the proxy relays.

pub mod config;
pub mod mcp_span;
pub mod one_warning;
pub mod provider;
pub mod relayed_spans;
pub mod trace_context;

pub use config::TelemetrySettings;
pub use mcp_span::{Answer, McpRequest, Parent, RequestSpan, SessionSpan, Target, Transport};
pub use provider::{EXPORT_AT_EXIT_LIMIT, finish, is_on, start};
