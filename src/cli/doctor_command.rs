//! `toolscope doctor <SERVER> [--json]`: the connection walked step by step (for a URL: the
//! name, the connection, then the session's steps; for a command: starting it, the handshake,
//! the tools), stopping at the first step that fails with what was seen and what to try. Exit
//! 0 only when every step passed.

use clap::Args;
use toolscope_core::{
    doctor::{Diagnosis, connect_step, resolve_step, session_steps},
    session::ServerConfig,
    text_util::{terminal_safe, terminal_safe_lines},
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
    let mut diagnosis = Diagnosis::default();
    let reached = match &config {
        ServerConfig::Http { url, .. } => network_steps(url, &mut diagnosis).await,
        ServerConfig::Stdio { .. } => true,
    };
    if reached {
        session_steps(&config, timeouts, &mut diagnosis).await;
    }
    if args.json {
        emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&diagnosis).unwrap_or_default()
        ));
    } else {
        let mut out = String::new();
        for step in &diagnosis.steps {
            let mark = if step.ok { "ok  " } else { "FAIL" };
            // A detail of several lines (a stderr tail) goes on under the step.
            let detail = terminal_safe_lines(&step.detail).replace('\n', "\n      ");
            outln!(
                &mut out,
                "{mark}  {:<11} {:>6} ms  {detail}",
                step.name,
                step.ms,
            );
            if let Some(advice) = &step.advice {
                outln!(&mut out, "      try: {}", terminal_safe(advice));
            }
        }
        emit(&out);
    }
    Ok(if diagnosis.ok { EXIT_OK } else { EXIT_FAILURE })
}

/// Resolve and connect for `url`; whether the session's steps may follow.
async fn network_steps(url: &str, diagnosis: &mut Diagnosis) -> bool {
    let Ok(parsed) = url::Url::parse(url) else {
        return true; // The session says what is wrong with the URL.
    };
    let (Some(host), Some(port)) = (parsed.host_str(), parsed.port_or_known_default()) else {
        return true;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let (resolved, addresses) = resolve_step(host, port).await;
    if !diagnosis.push(resolved) {
        return false;
    }
    let (connected, _) = connect_step(&addresses.unwrap_or_default()).await;
    diagnosis.push(connected)
}
