//! The window's names for a server and a call: numbers handed out by the model.

/// A server in the window, for as long as it is there.
pub type ServerId = u64;
/// One call (or one history call read whole), unique for the window's life.
pub type CallId = u64;
