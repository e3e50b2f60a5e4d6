//! The placeholders other clients let a server entry carry: VS Code's `${input:id}` (asked for
//! when the server starts) and `${env:NAME}`, Claude Code's `${NAME}` and `${NAME:-default}`,
//! and the editors' `${workspaceFolder}` and `${userHome}`. An imported server keeps them as
//! written; they are resolved when it connects.

use crate::session::ServerConfig;

/// One placeholder, as found in a value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Placeholder {
    /// `${input:id}`: a value the person is asked for (VS Code's `inputs`).
    Input { id: String },
    /// `${env:NAME}` (`prefixed`) or `${NAME}` (`${NAME:-default}` has a default).
    Env {
        name: String,
        default: Option<String>,
        prefixed: bool,
    },
    /// `${workspaceFolder}`, `${userHome}` and other editor variables.
    Editor { name: String },
}

impl Placeholder {
    /// As written, for messages: `${input:api-key}`.
    pub fn written(&self) -> String {
        match self {
            Self::Input { id } => format!("${{input:{id}}}"),
            Self::Env {
                name,
                prefixed: true,
                ..
            } => format!("${{env:{name}}}"),
            Self::Env {
                name,
                default: Some(default),
                ..
            } => format!("${{{name}:-{default}}}"),
            Self::Env { name, .. } | Self::Editor { name } => format!("${{{name}}}"),
        }
    }
}

const EDITOR_VARIABLES: &[&str] = &[
    "workspaceFolder",
    "workspaceFolderBasename",
    "userHome",
    "pathSeparator",
    "cwd",
];

/// The placeholders in `text`, in order (a `$` not followed by `{…}` is plain text).
pub fn in_text(text: &str) -> Vec<Placeholder> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            break;
        };
        let inside = &after[..end];
        rest = &after[end + 1..];
        let placeholder = if let Some(id) = inside.strip_prefix("input:") {
            Placeholder::Input { id: id.to_owned() }
        } else if let Some(name) = inside.strip_prefix("env:") {
            Placeholder::Env {
                name: name.to_owned(),
                default: None,
                prefixed: true,
            }
        } else if EDITOR_VARIABLES.contains(&inside) {
            Placeholder::Editor {
                name: inside.to_owned(),
            }
        } else {
            let (name, default) = match inside.split_once(":-") {
                Some((name, default)) => (name, Some(default.to_owned())),
                None => (inside, None),
            };
            let valid =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                continue;
            }
            Placeholder::Env {
                name: name.to_owned(),
                default,
                prefixed: false,
            }
        };
        if !found.contains(&placeholder) {
            found.push(placeholder);
        }
    }
    found
}

/// Every placeholder of a server's command, arguments, environment, folder, URL and headers.
pub fn in_config(config: &ServerConfig) -> Vec<Placeholder> {
    let mut texts: Vec<&str> = Vec::new();
    match config {
        ServerConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            texts.push(command);
            texts.extend(args.iter().map(String::as_str));
            texts.extend(env.values().map(String::as_str));
            if let Some(cwd) = cwd.as_ref().and_then(|cwd| cwd.to_str()) {
                texts.push(cwd);
            }
        }
        ServerConfig::Http { url, headers, .. } => {
            texts.push(url);
            texts.extend(headers.values().map(String::as_str));
        }
    }
    let mut found: Vec<Placeholder> = Vec::new();
    for placeholder in texts.into_iter().flat_map(in_text) {
        if !found.contains(&placeholder) {
            found.push(placeholder);
        }
    }
    found
}

/// `config` with every placeholder replaced by what `value` gives for it; the ones it has no
/// value for are returned instead (nothing is half resolved).
pub fn resolve(
    config: &ServerConfig,
    value: impl Fn(&Placeholder) -> Option<String>,
) -> Result<ServerConfig, Vec<Placeholder>> {
    let missing: Vec<Placeholder> = in_config(config)
        .into_iter()
        .filter(|placeholder| value(placeholder).is_none())
        .collect();
    if !missing.is_empty() {
        return Err(missing);
    }
    let fill = |text: &str| -> String {
        let mut out = text.to_owned();
        for placeholder in in_text(text) {
            if let Some(replacement) = value(&placeholder) {
                out = out.replace(&placeholder.written(), &replacement);
            }
        }
        out
    };
    Ok(match config {
        ServerConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => ServerConfig::Stdio {
            command: fill(command),
            args: args.iter().map(|arg| fill(arg)).collect(),
            env: env
                .iter()
                .map(|(key, text)| (key.clone(), fill(text)))
                .collect(),
            cwd: cwd
                .as_ref()
                .map(|cwd| fill(&cwd.display().to_string()).into()),
        },
        ServerConfig::Http {
            url,
            headers,
            oauth_client_id,
            oauth_client_secret,
            oauth,
        } => ServerConfig::Http {
            oauth_client_id: oauth_client_id.clone(),
            oauth_client_secret: oauth_client_secret.clone(),
            oauth: oauth.clone(),
            url: fill(url),
            headers: headers
                .iter()
                .map(|(key, text)| (key.clone(), fill(text)))
                .collect(),
        },
    })
}

/// The value of a placeholder from this process's environment and folders: `${NAME}` and
/// `${env:NAME}` from the environment (or their default), `${input:id}` from
/// `TOOLSCOPE_INPUT_<ID>` (upper case, `-` as `_`), `${workspaceFolder}` and `${cwd}` the
/// `project` folder, `${userHome}` the home folder.
pub fn from_environment(
    placeholder: &Placeholder,
    project: Option<&std::path::Path>,
) -> Option<String> {
    match placeholder {
        Placeholder::Env { name, default, .. } => {
            std::env::var(name).ok().or_else(|| default.clone())
        }
        Placeholder::Input { id } => std::env::var(input_variable(id)).ok(),
        Placeholder::Editor { name } => match name.as_str() {
            "workspaceFolder" | "cwd" => project.map(|folder| folder.display().to_string()),
            "workspaceFolderBasename" => project
                .and_then(|folder| folder.file_name())
                .map(|name| name.to_string_lossy().into_owned()),
            "userHome" => {
                directories::BaseDirs::new().map(|dirs| dirs.home_dir().display().to_string())
            }
            "pathSeparator" => Some(std::path::MAIN_SEPARATOR.to_string()),
            _ => None,
        },
    }
}

/// The environment variable that gives `${input:id}` on the command line.
pub fn input_variable(id: &str) -> String {
    format!(
        "TOOLSCOPE_INPUT_{}",
        crate::text_util::env_variable_name(id)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_clients_placeholders_are_found_and_plain_dollars_left_alone() {
        let found = in_text(
            "Bearer ${input:api-key} ${env:HOME}/x ${TOKEN} ${PORT:-8080} ${workspaceFolder} $5 ${not valid}",
        );
        assert_eq!(
            found,
            [
                Placeholder::Input {
                    id: "api-key".to_owned()
                },
                Placeholder::Env {
                    name: "HOME".to_owned(),
                    default: None,
                    prefixed: true
                },
                Placeholder::Env {
                    name: "TOKEN".to_owned(),
                    default: None,
                    prefixed: false
                },
                Placeholder::Env {
                    name: "PORT".to_owned(),
                    default: Some("8080".to_owned()),
                    prefixed: false
                },
                Placeholder::Editor {
                    name: "workspaceFolder".to_owned()
                },
            ]
        );
        assert_eq!(found[3].written(), "${PORT:-8080}");
        assert!(in_text("${unclosed").is_empty());
    }

    #[test]
    fn placeholders_are_replaced_or_the_missing_ones_named() {
        let config = ServerConfig::Http {
            oauth_client_id: None,
            oauth_client_secret: None,
            oauth: Default::default(),
            url: "https://h/${env:REGION}/mcp".to_owned(),
            headers: [("Authorization".to_owned(), "Bearer ${input:key}".to_owned())].into(),
        };
        let value = |placeholder: &Placeholder| match placeholder {
            Placeholder::Env { name, .. } if name == "REGION" => Some("eu".to_owned()),
            Placeholder::Input { id } if id == "key" => Some("k1".to_owned()),
            _ => None,
        };
        let resolved = resolve(&config, value).unwrap_or(config.clone());
        assert!(matches!(&resolved, ServerConfig::Http { url, headers, .. }
            if url == "https://h/eu/mcp" && headers["Authorization"] == "Bearer k1"));
        let missing = resolve(&config, |_| None).err().unwrap_or_default();
        assert_eq!(missing.len(), 2);
        assert_eq!(input_variable("gh-token"), "TOOLSCOPE_INPUT_GH_TOKEN");
    }
}
