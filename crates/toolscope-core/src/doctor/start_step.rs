//! The start step of a command: the program found (on the PATH the server will get, or as a
//! path from its working folder) and executable, before the session starts it.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use super::{Failed, Step, timed};

/// Finds `command` as the server's process would.
pub async fn start_step(command: &str, env: &BTreeMap<String, String>, cwd: Option<&Path>) -> Step {
    let found = find_program(command, env, cwd);
    timed("start", async move {
        match found {
            Found::At(path) if path == Path::new(command) => {
                Ok(((), format!("{command} is there and executable")))
            }
            Found::At(path) => Ok(((), format!("{command} is {}", path.display()))),
            Found::NotExecutable(path) => Err(Failed::new(
                format!("{} exists but is not executable", path.display()),
                "make it executable (chmod +x), or run it through its interpreter",
            )),
            Found::Missing { looked_in } => Err(Failed::new(
                format!("{command} was not found{looked_in}"),
                "the program is not on the PATH: give its full path, or install it (a client's \
                 configuration may rely on a PATH this shell does not have)",
            )),
        }
    })
    .await
    .0
}

enum Found {
    At(PathBuf),
    NotExecutable(PathBuf),
    Missing { looked_in: String },
}

fn find_program(command: &str, env: &BTreeMap<String, String>, cwd: Option<&Path>) -> Found {
    if command.contains(std::path::MAIN_SEPARATOR) {
        let path = match cwd {
            Some(folder) if Path::new(command).is_relative() => folder.join(command),
            _ => PathBuf::from(command),
        };
        return judge(path).unwrap_or_else(|| Found::Missing {
            looked_in: String::new(),
        });
    }
    let path_list = env
        .get("PATH")
        .cloned()
        .or_else(|| std::env::var("PATH").ok())
        .unwrap_or_default();
    let folders: Vec<PathBuf> = std::env::split_paths(&path_list).collect();
    for folder in &folders {
        if let Some(found) = judge(folder.join(command)) {
            return found;
        }
    }
    Found::Missing {
        looked_in: format!(" in the {} folder(s) of PATH", folders.len()),
    }
}

/// `Some` when `path` is a file: executable or not.
fn judge(path: PathBuf) -> Option<Found> {
    let metadata = std::fs::metadata(&path).ok()?;
    if !metadata.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o111 == 0 {
            return Some(Found::NotExecutable(path));
        }
    }
    Some(Found::At(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_program_on_the_path_is_found_and_a_missing_one_is_said() {
        let found = start_step("sh", &BTreeMap::new(), None).await;
        assert!(found.ok, "{found:?}");
        assert!(found.detail.contains("/sh"), "{found:?}");
        let missing = start_step("no-such-program-here", &BTreeMap::new(), None).await;
        assert!(!missing.ok);
        assert!(missing.detail.contains("not found"), "{missing:?}");
    }

    #[tokio::test]
    async fn a_file_that_is_not_executable_is_said() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("server.py"), "print()").unwrap();
        let step = start_step("./server.py", &BTreeMap::new(), Some(folder.path())).await;
        assert!(!step.ok);
        assert!(step.detail.contains("not executable"), "{step:?}");
    }
}
