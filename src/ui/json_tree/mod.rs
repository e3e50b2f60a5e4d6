//! JSON tree view of a tool result's `structuredContent`.
//!
//! Built for very large values (a million nodes, fully expanded): the value is
//! indexed once per `generation` into a flat arena, the list of visible rows is
//! recomputed only when expansion or search changes, and only the rows on screen
//! are laid out (`ScrollArea::show_rows` with a fixed row height).
//!
//! ```ignore
//! if let Some(JsonTreeAction::UseAsArgument { pointer, value }) =
//!     json_tree_ui(ui, "result", result_generation, &structured, &mut tree_state)
//! {
//!     open_argument_dialog(pointer, value);
//! }
//! ```

mod index;
mod preview;
mod rows;
mod search;
mod state;
mod toolbar;
mod widget;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod ui_tests;

pub use state::JsonTreeState;
pub use toolscope_core::json_pointer::{pointer_escape, pointer_unescape};
pub use widget::json_tree_ui;

/// A note pinned to a node of the tree: a contract violation, a required property that is
/// missing (on the object that lacks it), the wrapper an SDK added.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeMark {
    /// RFC 6901 pointer of the node ("" for the root).
    pub pointer: String,
    pub text: String,
    pub tone: MarkTone,
    /// A property that should be there and is not: shown as a ghost row under the object at
    /// `pointer`, with this key.
    pub missing_key: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkTone {
    /// Something wrong with the value: drawn in the error colour.
    Problem,
    /// Something worth knowing: drawn in the link colour.
    Note,
}

/// Something the user asked the tree to do that the caller must carry out.
#[derive(Clone, Debug, PartialEq)]
pub enum JsonTreeAction {
    /// "Use as argument of…" on a row: the app opens its dialog with this node.
    UseAsArgument {
        /// RFC 6901 pointer of the node ("" for the root).
        pointer: String,
        value: serde_json::Value,
    },
}
