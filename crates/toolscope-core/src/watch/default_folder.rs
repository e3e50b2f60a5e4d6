//! Which folder to watch for a stdio server by default: the folder of the script on its
//! command line (`python server.py`, `node dist/index.js`), else its working directory.

use std::path::{Path, PathBuf};

use crate::session::ServerConfig;

/// The folder to watch for `config`; `None` for a server reached over HTTP (nothing of it is
/// local) or when no folder can be told.
pub fn default_folder(config: &ServerConfig) -> Option<PathBuf> {
    let ServerConfig::Stdio {
        command, args, cwd, ..
    } = config
    else {
        return None;
    };
    let base = cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let script = args
        .iter()
        .chain(std::iter::once(command))
        .filter(|word| !word.starts_with('-'))
        .map(|word| base.join(word))
        .find(|path| path.is_file() && !is_interpreter(path));
    match script.as_deref().and_then(Path::parent) {
        Some(folder) => Some(folder.to_owned()),
        None => Some(base),
    }
}

/// A program that runs scripts (its own folder is not the server's).
fn is_interpreter(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    [
        "python", "node", "deno", "bun", "uv", "npx", "ruby", "java", "dotnet",
    ]
    .iter()
    .any(|interpreter| name.starts_with(interpreter))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(command: &str, args: &[&str], cwd: Option<&Path>) -> ServerConfig {
        ServerConfig::Stdio {
            command: command.to_owned(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            env: Default::default(),
            cwd: cwd.map(Path::to_owned),
        }
    }

    #[test]
    fn the_scripts_folder_else_the_working_directory() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::create_dir(folder.path().join("src")).unwrap();
        std::fs::write(folder.path().join("src/server.py"), "").unwrap();
        assert_eq!(
            default_folder(&stdio(
                "python3",
                &["-u", "src/server.py"],
                Some(folder.path())
            )),
            Some(folder.path().join("src"))
        );
        assert_eq!(
            default_folder(&stdio("uvx", &["some-server"], Some(folder.path()))),
            Some(folder.path().to_owned())
        );
        let http = ServerConfig::Http {
            url: "https://example.com/mcp".to_owned(),
            headers: Default::default(),
            oauth_client_id: None,
            oauth_client_secret: None,
            oauth: Default::default(),
        };
        assert_eq!(default_folder(&http), None);
    }
}
