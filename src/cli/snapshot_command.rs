//! `toolscope snapshot <SERVER>`: the server's identity and tools as an interface snapshot
//! (JSON), for `toolscope diff` to compare later.

use std::{io::Write as _, path::PathBuf};

use clap::Args;

use super::{
    CliError, EXIT_OK, ServerArgs, call_command::connect, json_text::escape_unsafe, output::say,
};
use toolscope_core::{
    interface::InterfaceSnapshot, session::events::ignore_events, text_util::terminal_safe,
};

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Write the snapshot to this file (replaced atomically) instead of stdout
    #[arg(long, short, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

pub async fn run(args: SnapshotArgs) -> Result<u8, CliError> {
    let snapshot = take(&args.server).await?;
    let text = snapshot
        .to_json_pretty()
        .map_err(|error| format!("the snapshot cannot be written: {error}"))?;
    match &args.output {
        None => {
            // The same JSON, with characters a terminal would act on written as escapes.
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(escape_unsafe(&text).as_bytes());
            let _ = stdout.flush();
        }
        Some(path) => write_file(path, &text).map_err(|error| {
            format!(
                "the snapshot cannot be written ({error}); check that the folder exists and \
                 is writable: {}",
                path.display()
            )
        })?,
    }
    Ok(EXIT_OK)
}

/// Connects, lists the tools and closes: the server's interface now. The error says what
/// failed (connecting or listing).
pub async fn take(server: &ServerArgs) -> Result<InterfaceSnapshot, String> {
    let timeouts = server.timeouts()?;
    let session = connect(server, ignore_events())
        .await
        .map_err(|error| format!("cannot connect to the server: {error}"))?;
    let listed = session.list_tools(timeouts).await;
    let summary = session.summary().clone();
    session.close().await;
    let catalog = listed.map_err(|error| format!("listing tools failed: {error}"))?;
    for warning in &catalog.warnings {
        say(&format!("warning: {}", terminal_safe(warning)));
    }
    Ok(InterfaceSnapshot::from_catalog(&summary, &catalog))
}

/// A temporary file beside the target, then a rename: a reader never sees half a snapshot.
fn write_file(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => std::path::Path::new("."),
    };
    let mut temporary = tempfile::Builder::new()
        .prefix(".snapshot.")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    temporary.write_all(text.as_bytes())?;
    temporary.as_file().sync_all()?;
    temporary
        .persist(path)
        .map(|_| ())
        .map_err(|error| error.error)
}
