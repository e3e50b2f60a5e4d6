//! A server's interface (its identity and tools) kept as a snapshot, and what changed between
//! two of them, each change classified as breaking or compatible for the server's clients.
//! Egui-free: the command line (`toolscope snapshot`, `toolscope diff`) and the window share it.

mod change;
mod diff;
pub mod mcp_app;
mod schema_changes;
mod snapshot;
pub mod store;

pub use store::{InterfaceStore, StoreError};

pub use change::{Change, ChangeKind, Severity};
pub use diff::{InterfaceDiff, ToolDiff, ToolStatus, diff};
pub use schema_changes::{MAX_COMPARED_DEPTH, SchemaRole};
pub use snapshot::{
    FORMAT, InterfaceSnapshot, PRETTY_DEPTH, ServerIdentity, SnapshotError, ToolSnapshot, VERSION,
};
