//! Servers found in other clients' configurations (Claude Desktop, Cursor, VS Code…), offered
//! for import. The files are read off the UI thread; what was found is model state.

use std::path::PathBuf;

use toolscope_core::import::FoundServer;

/// Where the look for other clients' servers stands.
#[derive(Debug, Default)]
pub enum FoundServers {
    /// Not looked (tests, or no files to look in).
    #[default]
    NotLooked,
    Looking,
    Found {
        servers: Vec<FoundServer>,
        /// Files that are there but do not read, with the reason.
        unreadable: Vec<(PathBuf, String)>,
    },
}

impl FoundServers {
    pub fn servers(&self) -> &[FoundServer] {
        match self {
            Self::Found { servers, .. } => servers,
            _ => &[],
        }
    }
}

/// `name`, or `name (Cursor)`, `name (Cursor 2)`… when a server of that name exists already.
pub fn unique_name(name: &str, client: &str, taken: &[&str]) -> String {
    if !taken.contains(&name) {
        return name.to_owned();
    }
    let with_client = format!("{name} ({client})");
    if !taken.contains(&with_client.as_str()) {
        return with_client;
    }
    (2..)
        .map(|n| format!("{name} ({client} {n})"))
        .find(|candidate| !taken.contains(&candidate.as_str()))
        .unwrap_or(with_client)
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_imported_name_never_clashes() {
        use super::unique_name;
        assert_eq!(unique_name("git", "Cursor", &["other"]), "git");
        assert_eq!(unique_name("git", "Cursor", &["git"]), "git (Cursor)");
        assert_eq!(
            unique_name("git", "Cursor", &["git", "git (Cursor)"]),
            "git (Cursor 2)"
        );
    }
}
