//! Why another client's file, an entry in it, or a pasted server cannot be read.

use crate::session::config::ConfigError;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    #[error("the entry is not an object")]
    NotAnObject,
    #[error("the entry has neither a command nor a URL")]
    NoCommandOrUrl,
    #[error("it is not JSON: {0}")]
    NotJson(String),
    #[error("it is not TOML: {0}")]
    NotToml(String),
    #[error("nothing was pasted")]
    NothingPasted,
    #[error("the line does not split into words: check its quotes")]
    Unsplittable,
    #[error("the pasted text starts like JSON but is not: {0}")]
    PastedNotJson(String),
    #[error(
        "the JSON is neither an mcpServers object nor a server entry (with a command or a url)"
    )]
    NotServers,
    #[error("the JSON lists no servers")]
    NoServers,
    #[error("server {name:?}: {problem}")]
    Server {
        name: String,
        problem: Box<ImportError>,
    },
    #[error("expected `claude mcp add [options] <name> <command or url> [args…]`")]
    ClaudeAddUsage,
    #[error("expected `claude mcp add-json <name> '<json>'`")]
    ClaudeAddJsonUsage,
    #[error("its JSON: {0}")]
    ClaudeAddJsonNotJson(String),
    #[error("{flag} needs a {what}")]
    FlagWithoutValue { flag: String, what: &'static str },
    #[error(transparent)]
    Config(#[from] ConfigError),
}
