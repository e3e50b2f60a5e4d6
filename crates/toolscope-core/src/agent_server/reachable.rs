//! Which servers an agent may reach: the ones the person saved in Toolscope, the ones other
//! clients' configurations list (both named by `engine::named_server`), and `demo`. A command
//! line or URL nobody saved is started or reached only when `toolscope mcp` was started with
//! `--allow-new-servers`: an agent must not run programs of its own choosing through it.

use super::outputs::{ServerLine, ServersOut};
use crate::{
    engine::{NamedServerError, ServerSources, named_server},
    history::DEMO_SERVER_NAME,
    import,
    session::{ServerConfig, config::url_label},
    settings::Settings,
};

/// A server an agent may reach: how the history names it, and how to reach it.
#[derive(Debug, Clone)]
pub struct Reachable {
    pub label: String,
    pub config: ServerConfig,
}

/// Why a server named by an agent is not reached.
#[derive(Debug, thiserror::Error)]
pub enum NotReachable {
    #[error(
        "{given:?} is not a server saved in Toolscope or found in another client's \
         configuration, and toolscope mcp only reaches those (and `demo`): `list_servers` lists \
         them. To use a new command line or URL, the person saves it in Toolscope (the window's \
         Add server) or starts `toolscope mcp --allow-new-servers`"
    )]
    NewServer { given: String },
    #[error("name a server: `demo`, or one `list_servers` lists")]
    Empty,
    #[error(transparent)]
    Named(NamedServerError),
    #[error("{given:?} cannot be started: {reason}")]
    Unusable { given: String, reason: String },
    #[error(
        "{given:?} is in this folder's project file {} and toolscope mcp does not start a \
         project's servers for an agent (a cloned repository may ship one): the person saves it \
         in Toolscope, or starts `toolscope mcp --allow-new-servers`",
        path.display()
    )]
    ProjectServer {
        given: String,
        path: std::path::PathBuf,
    },
}

/// The sources an agent's names are looked up in, and the project files left out of them: a
/// project's configuration files come with its folder, so their commands are started for an
/// agent only when new servers are allowed (as a client asks the person before it starts a
/// project's servers).
fn offered(sources: &ServerSources, allow_new: bool) -> (ServerSources, Vec<import::ConfigFile>) {
    let (user, project): (Vec<_>, Vec<_>) = sources
        .other_clients
        .iter()
        .cloned()
        .partition(|file| allow_new || file.scope == import::Scope::User);
    (
        ServerSources {
            other_clients: user,
            ..sources.clone()
        },
        project,
    )
}

/// What an agent calls the built-in demo server.
pub const AGENT_DEMO_NAME: &str = "demo";

/// The server `given` names, if an agent may reach it.
pub fn resolve(
    given: &str,
    sources: &ServerSources,
    allow_new: bool,
) -> Result<Reachable, NotReachable> {
    let given = given.trim();
    if given.is_empty() {
        return Err(NotReachable::Empty);
    }
    // `demo` is the built-in server, recorded under the name the history gives it.
    if given.eq_ignore_ascii_case(AGENT_DEMO_NAME) {
        return Ok(Reachable {
            label: DEMO_SERVER_NAME.to_owned(),
            config: ServerConfig::demo(),
        });
    }
    let (offered, withheld) = offered(sources, allow_new);
    match named_server(given, &offered) {
        Ok(config) => Ok(Reachable {
            label: given.to_owned(),
            config,
        }),
        Err(NamedServerError::NotFound { .. }) if allow_new => new_server(given),
        Err(NamedServerError::NotFound { .. }) => {
            let (in_project, _) = import::discover(&withheld);
            Err(match in_project.iter().find(|found| found.name == given) {
                Some(found) => NotReachable::ProjectServer {
                    given: given.to_owned(),
                    path: found.path.clone(),
                },
                None => NotReachable::NewServer {
                    given: given.to_owned(),
                },
            })
        }
        Err(other) => Err(NotReachable::Named(other)),
    }
}

/// A URL, else a command line split like a shell's.
fn new_server(given: &str) -> Result<Reachable, NotReachable> {
    if given.starts_with("http://") || given.starts_with("https://") {
        return Ok(Reachable {
            label: url_label(given),
            config: ServerConfig::Http {
                oauth_client_id: None,
                oauth_client_secret: None,
                oauth: Default::default(),
                url: given.to_owned(),
                headers: Default::default(),
            },
        });
    }
    let config =
        ServerConfig::stdio_from_command_line(given).map_err(|error| NotReachable::Unusable {
            given: given.to_owned(),
            reason: error.to_string(),
        })?;
    Ok(Reachable {
        label: given.to_owned(),
        config,
    })
}

/// Every server an agent may name: the demo, the saved ones, those found in other clients'
/// configurations (with why one cannot be used). Only names, command lines and URLs without
/// their query: environment values and headers hold secrets.
pub fn list(sources: &ServerSources, allow_new: bool) -> ServersOut {
    let mut servers = vec![ServerLine {
        name: AGENT_DEMO_NAME.to_owned(),
        source: "built in".to_owned(),
        server: "toolscope demo-server".to_owned(),
        transport: Some("stdio".to_owned()),
        problem: None,
    }];
    let mut problems = Vec::new();
    if let Some(path) = &sources.settings_path {
        // Read only: a broken file is said, never moved aside.
        match std::fs::read_to_string(path).map(|text| serde_json::from_str::<Settings>(&text)) {
            Ok(Ok(settings)) => servers.extend(settings.servers.iter().map(|saved| ServerLine {
                name: saved.name.clone(),
                source: "saved in Toolscope".to_owned(),
                server: saved.config.listed(),
                transport: Some(transport(&saved.config).to_owned()),
                problem: None,
            })),
            Ok(Err(error)) => problems.push(format!(
                "the settings file {} does not read: {error}",
                path.display()
            )),
            Err(_) => {}
        }
    }
    let (offered, withheld) = offered(sources, allow_new);
    let (found, unreadable) = import::discover(&offered.other_clients);
    servers.extend(found.iter().map(|found| {
        let (server, transport, problem) = match &found.entry {
            Ok(entry) => (
                entry.config.listed(),
                Some(transport(&entry.config).to_owned()),
                entry.disabled.then(|| "disabled in its client".to_owned()),
            ),
            Err(error) => (String::new(), None, Some(error.to_string())),
        };
        ServerLine {
            name: found.name.clone(),
            source: format!("{} ({})", found.client.name(), found.path.display()),
            server,
            transport,
            problem,
        }
    }));
    let (in_project, _) = import::discover(&withheld);
    servers.extend(in_project.iter().map(|found| {
        ServerLine {
            name: found.name.clone(),
            source: format!("{} ({})", found.client.name(), found.path.display()),
            server: String::new(),
            transport: None,
            problem: Some(
                "in this folder's project file: not started for an agent unless the person saves \
             it in Toolscope or starts toolscope mcp --allow-new-servers"
                    .to_owned(),
            ),
        }
    }));
    // The agent's `demo` is the built-in server: one of the person's named so is out of reach.
    for line in servers.iter_mut().skip(1) {
        if line.name.trim().eq_ignore_ascii_case(AGENT_DEMO_NAME) && line.problem.is_none() {
            line.problem = Some(
                "shadowed by the built-in demo (an agent's `demo`): rename it to reach it"
                    .to_owned(),
            );
        }
    }
    problems.extend(
        unreadable
            .iter()
            .map(|(path, why)| format!("{} cannot be read: {why}", path.display())),
    );
    ServersOut {
        servers,
        allow_new_servers: allow_new,
        problems,
    }
}

fn transport(config: &ServerConfig) -> &'static str {
    match config {
        ServerConfig::Stdio { .. } => "stdio",
        ServerConfig::Http { .. } => "http",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nowhere() -> ServerSources {
        ServerSources {
            settings_path: None,
            other_clients: Vec::new(),
            project: None,
        }
    }

    #[test]
    fn a_new_command_line_is_refused_unless_allowed_and_the_demo_always_reached() {
        let refused = resolve("python evil.py", &nowhere(), false).unwrap_err();
        assert!(
            matches!(refused, NotReachable::NewServer { .. }),
            "{refused}"
        );
        assert!(refused.to_string().contains("--allow-new-servers"));
        let allowed = resolve("python evil.py", &nowhere(), true).unwrap();
        assert!(matches!(allowed.config, ServerConfig::Stdio { .. }));
        let url = resolve("https://u:p@example.com/mcp?k=1", &nowhere(), true).unwrap();
        assert_eq!(url.label, "https://example.com/mcp");
        assert_eq!(
            resolve("demo", &nowhere(), false).unwrap().label,
            DEMO_SERVER_NAME
        );
        assert!(matches!(
            resolve("  ", &nowhere(), true),
            Err(NotReachable::Empty)
        ));
    }
}
