//! `toolscope doctor <SERVER> [--json]`: the connection walked step by step (for a URL: the
//! name, the connection, TLS, HTTP, sign-in, the handshake, the tools; for a command: the
//! program, the handshake, the tools), stopping at the first step that fails with what was
//! seen and what to try. Exit 0 only when every step passed.

use clap::Args;
use toolscope_core::{
    doctor::diagnose,
    engine,
    session::{ConnectOptions, ServerConfig, events::ignore_events},
    text_util::terminal_safe_lines,
};

use super::{CliError, EXIT_FAILURE, EXIT_OK, ServerArgs, emit};

#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print `{"ok": bool, "steps": [{"name", "ok", "ms", "detail", "advice"}]}`
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: DoctorArgs) -> Result<u8, CliError> {
    let config = args.server.config()?;
    let timeouts = args.server.timeouts()?;
    let options = ConnectOptions {
        // A kept sign-in is used; the walk itself never signs in anew.
        auth: match &config {
            ServerConfig::Http { .. } => Some(args.server.sign_in.options()?),
            ServerConfig::Stdio { .. } => None,
        },
        ..ConnectOptions::new(timeouts, ignore_events())
    };
    let store: engine::OpenSecrets = Box::new(super::sign_in_flags::secret_store);
    let diagnosis = diagnose(&args.server.label(), &config, store, options).await;
    if args.json {
        emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&diagnosis).unwrap_or_default()
        ));
    } else {
        emit(&terminal_safe_lines(&diagnosis.as_text()));
    }
    Ok(if diagnosis.ok { EXIT_OK } else { EXIT_FAILURE })
}
