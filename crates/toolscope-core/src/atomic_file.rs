//! Files Toolscope writes for the user (case files, reports, recordings, JUnit XML): written
//! to a temporary file beside the target, flushed to the disk, then renamed over it, so a
//! failure or a crash never leaves half a file where a good one was.

use std::{
    io::Write,
    path::{Path, PathBuf},
    sync::Arc,
};

/// A file that could not be written (the old one, if any, is left as it was).
#[derive(Debug, Clone, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    pub source: Arc<std::io::Error>,
}

/// Writes `path` through `write`. A file that exists keeps its permissions; a new one gets the
/// usual 0644 (on Unix), not the temporary file's 0600. A link is written through to its target.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    write_with(path, write, false)
}

/// [`write_atomically`] for a file that may hold secrets (another client's entry with its
/// environment): only its owner may read it (0600 on Unix), whatever it was before.
pub fn write_private(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    write_with(path, write, true)
}

fn write_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    private: bool,
) -> Result<(), WriteError> {
    let failed = |error: std::io::Error| WriteError {
        path: path.to_owned(),
        source: Arc::new(error),
    };
    // The file a link points at is the one to replace.
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    let folder = target
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(folder).map_err(failed)?;
    // The temporary file is the owner's alone (0600): a private file keeps that.
    let permissions = match std::fs::metadata(&target) {
        _ if private => None,
        Ok(metadata) => Some(metadata.permissions()),
        Err(_) => default_permissions(),
    };
    if let Some(permissions) = permissions {
        let _ = std::fs::set_permissions(file.path(), permissions);
    }
    {
        let mut writer = std::io::BufWriter::new(file.as_file_mut());
        write(&mut writer)
            .and_then(|()| writer.flush())
            .map_err(failed)?;
    }
    file.as_file().sync_all().map_err(failed)?;
    file.persist(&target).map_err(|error| failed(error.error))?;
    Ok(())
}

#[cfg(unix)]
fn default_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt as _;
    Some(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn default_permissions() -> Option<std::fs::Permissions> {
    None
}

#[cfg(test)]
mod tests {
    use super::{write_atomically, write_private};

    #[cfg(unix)]
    #[test]
    fn a_private_file_is_the_owners_alone_even_over_a_readable_one() {
        use std::os::unix::fs::PermissionsExt as _;
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("watched.json");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_private(&path, |out| out.write_all(b"{}")).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_a_good_one_replaces_it() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("report.md");
        std::fs::write(&path, "old").unwrap();
        let error = write_atomically(&path, |out| {
            out.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(error.to_string().contains("disk full"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        write_atomically(&path, |out| out.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(
            std::fs::read_dir(folder.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }
}
