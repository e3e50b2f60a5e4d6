//! What differs between a server saved from another client's configuration and what that
//! configuration says now (a re-import shows it before it replaces anything). Values of the
//! environment and of headers are named, never shown: they may be secrets.

use std::collections::BTreeMap;

use crate::session::ServerConfig;

/// A saved value kept in the secret store: its value cannot be compared here.
const KEPT_ELSEWHERE: &str = "toolscope-secret:";

/// The differences from `saved` to `found`, one sentence each; empty when they are the same.
pub fn config_changes(saved: &ServerConfig, found: &ServerConfig) -> Vec<String> {
    let mut changes = Vec::new();
    match (saved, found) {
        (
            ServerConfig::Stdio {
                env: saved_env,
                cwd: saved_cwd,
                ..
            },
            ServerConfig::Stdio { env, cwd, .. },
        ) => {
            if saved.describe() != found.describe() {
                changes.push(format!(
                    "command line: {} → {}",
                    saved.describe(),
                    found.describe()
                ));
            }
            if saved_cwd != cwd {
                let shown = |cwd: &Option<std::path::PathBuf>| {
                    cwd.as_ref()
                        .map_or_else(|| "(inherited)".to_owned(), |c| c.display().to_string())
                };
                changes.push(format!(
                    "working folder: {} → {}",
                    shown(saved_cwd),
                    shown(cwd)
                ));
            }
            changes.extend(map_changes("environment variable", saved_env, env));
        }
        (
            ServerConfig::Http {
                url: saved_url,
                headers: saved_headers,
                ..
            },
            ServerConfig::Http { url, headers, .. },
        ) => {
            if saved_url != url {
                changes.push(format!("URL: {} → {}", saved.listed(), found.listed()));
            }
            changes.extend(map_changes("header", saved_headers, headers));
        }
        _ => changes.push(format!(
            "transport: {} → {}",
            saved.listed(),
            found.listed()
        )),
    }
    changes
}

fn map_changes(
    what: &str,
    saved: &BTreeMap<String, String>,
    found: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut changes = Vec::new();
    for (name, value) in found {
        match saved.get(name) {
            None => changes.push(format!("{what} {name} added")),
            Some(old) if old != value && !old.starts_with(KEPT_ELSEWHERE) => {
                changes.push(format!("{what} {name} changed"));
            }
            Some(_) => {}
        }
    }
    for name in saved.keys().filter(|name| !found.contains_key(*name)) {
        changes.push(format!("{what} {name} removed"));
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_named_without_values() {
        let saved = ServerConfig::Stdio {
            command: "npx".to_owned(),
            args: vec!["-y".to_owned(), "pkg@1".to_owned()],
            env: [
                ("TOKEN".to_owned(), "old-secret".to_owned()),
                ("GONE".to_owned(), "x".to_owned()),
            ]
            .into(),
            cwd: None,
        };
        let found = ServerConfig::Stdio {
            command: "npx".to_owned(),
            args: vec!["-y".to_owned(), "pkg@2".to_owned()],
            env: [
                ("TOKEN".to_owned(), "new-secret".to_owned()),
                ("NEW".to_owned(), "y".to_owned()),
            ]
            .into(),
            cwd: None,
        };
        let changes = config_changes(&saved, &found);
        assert_eq!(
            changes,
            [
                "command line: npx -y pkg@1 → npx -y pkg@2",
                "environment variable NEW added",
                "environment variable TOKEN changed",
                "environment variable GONE removed",
            ]
        );
        assert!(!changes.join(" ").contains("secret"));
        assert!(config_changes(&found, &found).is_empty());
        // A value kept in the keyring is not taken for a change.
        let kept = ServerConfig::Http {
            url: "https://h/mcp".to_owned(),
            headers: [("Authorization".to_owned(), "toolscope-secret:k".to_owned())].into(),
            oauth_client_id: None,
            oauth_client_secret: None,
            oauth: Default::default(),
        };
        let plain = ServerConfig::Http {
            url: "https://h/mcp".to_owned(),
            headers: [("Authorization".to_owned(), "Bearer t".to_owned())].into(),
            oauth_client_id: None,
            oauth_client_secret: None,
            oauth: Default::default(),
        };
        assert!(config_changes(&kept, &plain).is_empty());
    }
}
