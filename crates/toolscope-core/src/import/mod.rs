//! Servers the user already has: found in the configurations of other MCP clients (Claude
//! Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI, Codex) or pasted (a JSON entry,
//! a command line, a `claude mcp add` line, a URL), read into Toolscope's `ServerConfig`.
//! Knows nothing of the window; reads files and nothing else.

pub mod changes;
pub mod client;
pub mod config_file;
pub mod entry;
mod error;
pub mod export;
pub mod paste;
pub mod placeholders;
pub mod watch_through;

pub use changes::config_changes;
pub use client::{Client, ConfigFile, Scope, known_files};
pub use config_file::{FoundServer, InputPrompt, discover, files_here, read_text};
pub use entry::ReadEntry;
pub use error::ImportError;
pub use export::{CLIENTS, entry_for};
pub use paste::{PastedServer, read_pasted};
pub use placeholders::Placeholder;
