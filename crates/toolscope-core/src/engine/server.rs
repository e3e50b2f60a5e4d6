//! "This server" made into settings a session can start from, the same for every face: a
//! server named by its saved name (Toolscope's settings) or found in another client's
//! configuration, with its placeholders (`${NAME}`, `${env:NAME}`, `${input:id}`, editor
//! variables) filled from the environment and folders, then from `${input:…}` values the
//! person gave. What cannot be filled is a typed [`MissingValues`], so the window can ask for
//! the inputs and the command line can name the variables to set. Secret values kept in the
//! store are read back later, by [`super::connect`].

use std::path::{Path, PathBuf};

use crate::{
    import::{self, Placeholder, placeholders},
    session::ServerConfig,
    settings::{SavedServer, Settings},
};

/// Placeholders in a server's settings that nothing gives a value for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the server's settings use values Toolscope does not have: {}", self.named().join(", "))]
pub struct MissingValues {
    pub missing: Vec<Placeholder>,
}

impl MissingValues {
    /// Each placeholder as written, with the variable that gives it: `${input:key} (set
    /// TOOLSCOPE_INPUT_KEY)`, `${TOKEN} (set TOKEN)`, `${workspaceFolder}`.
    pub fn named(&self) -> Vec<String> {
        self.missing
            .iter()
            .map(|placeholder| match placeholder {
                Placeholder::Input { id } => format!(
                    "{} (set {})",
                    placeholder.written(),
                    placeholders::input_variable(id)
                ),
                Placeholder::Env { name, .. } => format!("{} (set {name})", placeholder.written()),
                Placeholder::Editor { .. } => placeholder.written(),
            })
            .collect()
    }

    /// The ids of the `${input:…}` values among them, which a person can be asked for.
    pub fn inputs(&self) -> Vec<String> {
        self.missing
            .iter()
            .filter_map(|placeholder| match placeholder {
                Placeholder::Input { id } => Some(id.clone()),
                _ => None,
            })
            .collect()
    }
}

/// `config` with its placeholders filled: from the environment and folders (`project` is the
/// `${workspaceFolder}`), then `${input:id}` from `given_input`. Nothing is half filled.
pub fn fill_placeholders(
    config: &ServerConfig,
    project: Option<&Path>,
    given_input: impl Fn(&str) -> Option<String>,
) -> Result<ServerConfig, MissingValues> {
    placeholders::resolve(config, |placeholder| {
        placeholders::from_environment(placeholder, project).or_else(|| match placeholder {
            Placeholder::Input { id } => given_input(id),
            _ => None,
        })
    })
    .map_err(|missing| MissingValues { missing })
}

/// Why a server named on the command line cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NamedServerError {
    #[error(
        "no server is called {name:?}: `toolscope servers` lists the saved ones and those other \
         clients have"
    )]
    NotFound { name: String },
    #[error(
        "{} servers are called {name:?}, configured differently: {}; save the one you mean in \
         Toolscope, or give its command line or URL",
        sources.len(),
        sources.join(", ")
    )]
    Ambiguous { name: String, sources: Vec<String> },
    #[error("{name:?} in {} cannot be used: {why}", path.display())]
    Unusable {
        name: String,
        path: PathBuf,
        why: String,
    },
    #[error("{name:?} from {from} needs values Toolscope does not have: {}", missing.named().join(", "))]
    Missing {
        name: String,
        /// Toolscope's settings, or the other client's name.
        from: String,
        missing: MissingValues,
    },
}

/// Where named servers are looked for.
#[derive(Debug, Clone, Default)]
pub struct ServerSources {
    /// Toolscope's own settings file.
    pub settings_path: Option<PathBuf>,
    /// Other clients' configuration files.
    pub other_clients: Vec<import::ConfigFile>,
    /// The project folder (`${workspaceFolder}`, and where project files were found).
    pub project: Option<PathBuf>,
}

impl ServerSources {
    /// The user's settings and other clients' files, with the current folder as the project.
    pub fn here() -> Self {
        let project = std::env::current_dir().ok();
        Self {
            settings_path: crate::settings::settings_path(),
            other_clients: import::files_here(project.as_deref()),
            project,
        }
    }
}

/// The server called `name`: saved in Toolscope's settings, else found in one other client's
/// configuration (several entries of that name must agree), its placeholders filled from the
/// environment. Its kept secrets are still references: [`super::connect`] reads them.
pub fn named_server(name: &str, sources: &ServerSources) -> Result<ServerConfig, NamedServerError> {
    if name == crate::history::DEMO_SERVER_NAME {
        return Ok(ServerConfig::demo());
    }
    let project = sources.project.as_deref();
    let missing = |from: String| {
        move |missing| NamedServerError::Missing {
            name: name.to_owned(),
            from,
            missing,
        }
    };
    if let Some(saved) = saved_server(name, sources.settings_path.as_deref()) {
        return fill_placeholders(&saved.config, project, |_| None)
            .map_err(missing("Toolscope's settings".to_owned()));
    }
    let (found, _) = import::discover(&sources.other_clients);
    let matching: Vec<_> = found.iter().filter(|server| server.name == name).collect();
    let server = match matching.as_slice() {
        [] => {
            return Err(NamedServerError::NotFound {
                name: name.to_owned(),
            });
        }
        [one] => *one,
        several => {
            let first = several[0];
            let config = |server: &import::FoundServer| {
                server.entry.as_ref().ok().map(|entry| entry.config.clone())
            };
            if !several.iter().all(|other| config(other) == config(first)) {
                return Err(NamedServerError::Ambiguous {
                    name: name.to_owned(),
                    sources: several
                        .iter()
                        .map(|server| {
                            format!("{} ({})", server.client.name(), server.path.display())
                        })
                        .collect(),
                });
            }
            first
        }
    };
    let entry = server
        .entry
        .as_ref()
        .map_err(|why| NamedServerError::Unusable {
            name: name.to_owned(),
            path: server.path.clone(),
            why: why.to_string(),
        })?;
    fill_placeholders(&entry.config, project, |_| None)
        .map_err(missing(server.client.name().to_owned()))
}

/// The saved server called `name`, if the settings file has one.
fn saved_server(name: &str, settings_path: Option<&Path>) -> Option<SavedServer> {
    let text = std::fs::read_to_string(settings_path?).ok()?;
    let settings: Settings = serde_json::from_str(&text).ok()?;
    settings
        .servers
        .into_iter()
        .find(|server| server.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(arg: &str) -> ServerConfig {
        ServerConfig::Stdio {
            command: "server".to_owned(),
            args: vec![arg.to_owned()],
            env: Default::default(),
            cwd: None,
        }
    }

    #[test]
    fn inputs_come_from_the_person_after_the_environment_and_the_rest_are_named() {
        let config = stdio("${input:toolscope-test-key} ${TOOLSCOPE_TEST_SURELY_UNSET}");
        let missing = fill_placeholders(&config, None, |_| None).unwrap_err();
        assert_eq!(missing.inputs(), ["toolscope-test-key"]);
        assert_eq!(
            missing.named(),
            [
                "${input:toolscope-test-key} (set TOOLSCOPE_INPUT_TOOLSCOPE_TEST_KEY)",
                "${TOOLSCOPE_TEST_SURELY_UNSET} (set TOOLSCOPE_TEST_SURELY_UNSET)"
            ]
        );
        let given = fill_placeholders(&stdio("--key=${input:k}"), None, |id| {
            (id == "k").then(|| "v".to_owned())
        })
        .unwrap();
        assert_eq!(given, stdio("--key=v"));
    }

    #[test]
    fn a_saved_server_is_found_by_name_with_its_placeholders_filled() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("settings.json");
        let settings = Settings {
            servers: vec![SavedServer {
                name: "mine".to_owned(),
                config: stdio("${workspaceFolder}/x"),
                connect_at_start: true,
                client: Default::default(),
            }],
            ..Settings::default()
        };
        std::fs::write(&path, serde_json::to_string(&settings).unwrap()).unwrap();
        let sources = ServerSources {
            settings_path: Some(path),
            other_clients: Vec::new(),
            project: Some(PathBuf::from("/p")),
        };
        assert_eq!(named_server("mine", &sources).unwrap(), stdio("/p/x"));
        let unknown = named_server("other", &sources).unwrap_err();
        assert!(
            matches!(unknown, NamedServerError::NotFound { .. }),
            "{unknown}"
        );
        let no_project = ServerSources {
            project: None,
            ..sources
        };
        let missing = named_server("mine", &no_project).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "\"mine\" from Toolscope's settings needs values Toolscope does not have: \
             ${workspaceFolder}"
        );
    }
}
