//! The stdio relay: a real client talks to us as if we were its server; we start the server
//! and pass every line both ways exactly as it came (no parsing on the way, no reformatting,
//! no reordering), the server's stderr to ours. What passes is offered to an observer that
//! may drop it, never hold the relay up. Copying one line at a time, awaiting each write, is
//! the backpressure: a client that stops reading stops the server's output, nothing piles up.
//! Lines already read go on together: the output is flushed whenever no whole line is left to
//! read, so a flood of small lines costs a write per buffer, not per line, and a line is never
//! held back while the relay waits for the next.

use std::time::Duration;

use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter},
    process::Child,
};

use super::traffic::{Traffic, TrafficSide};
use crate::session::ServerConfig;

/// How long the server gets to exit once its stdin is closed, and again after SIGTERM.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// What is read, and written, at once on each side.
const CHUNK: usize = 64 * 1024;

/// How the relay ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayEnd {
    /// The client closed its side first (else the server ended first).
    pub client_left: bool,
    /// The server's exit, in words (`exit status: 0`), when it was reaped.
    pub server_exit: Option<String>,
    /// Its exit code, when it exited with one.
    pub server_code: Option<i32>,
}

/// Why the relay could not start.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    #[error("not a stdio server: a stdio proxy starts the server it relays to")]
    NotStdio,
    #[error("cannot start `{command}`: {reason}")]
    Spawn { command: String, reason: String },
}

/// Starts the server of `config` and relays between it and the client's streams until one
/// side ends; then the other is closed and the server reaped.
pub async fn relay_stdio(
    config: &ServerConfig,
    (client_in, client_out): (impl AsyncRead + Unpin, impl AsyncWrite + Unpin),
    server_err_to: impl AsyncWrite + Unpin + Send + 'static,
    traffic: Traffic,
) -> Result<RelayEnd, RelayError> {
    let mut child = spawn(config)?;
    let (Some(server_in), Some(server_out), Some(server_err)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(RelayError::Spawn {
            command: command_of(config),
            reason: "its standard streams could not be attached".to_owned(),
        });
    };
    let stderr_task = tokio::spawn(copy_lines(
        BufReader::with_capacity(CHUNK, server_err),
        server_err_to,
        traffic.clone(),
        TrafficSide::ServerStderr,
    ));
    let to_server = copy_lines(
        BufReader::with_capacity(CHUNK, client_in),
        server_in,
        traffic.clone(),
        TrafficSide::ToServer,
    );
    let to_client = copy_lines(
        BufReader::with_capacity(CHUNK, server_out),
        client_out,
        traffic.clone(),
        TrafficSide::ToClient,
    );
    tokio::pin!(to_server, to_client);
    // Whichever side ends first decides: the client leaving closes the server's stdin (the
    // server is then asked to end); the server ending leaves the client at EOF.
    let client_left = tokio::select! {
        _ = &mut to_server => true,
        _ = &mut to_client => false,
    };
    if client_left {
        // `to_server` has dropped the server's stdin: it may still answer what it had; its
        // output is relayed until it ends or the grace is over.
        let _ = tokio::time::timeout(CLOSE_GRACE, &mut to_client).await;
    }
    let status = reap(&mut child).await;
    let _ = tokio::time::timeout(CLOSE_GRACE, stderr_task).await;
    let end = RelayEnd {
        client_left,
        server_exit: status.map(|status| status.to_string()),
        server_code: status.and_then(|status| status.code()),
    };
    traffic.ended(&end);
    Ok(end)
}

fn command_of(config: &ServerConfig) -> String {
    match config {
        ServerConfig::Stdio { command, .. } => command.clone(),
        ServerConfig::Http { url, .. } => url.clone(),
    }
}

fn spawn(config: &ServerConfig) -> Result<Child, RelayError> {
    let mut builder = crate::session::server_command(config).ok_or(RelayError::NotStdio)?;
    builder.spawn().map_err(|error| RelayError::Spawn {
        command: command_of(config),
        reason: error.to_string(),
    })
}

/// Copies `from` to `to` a line at a time, each line exactly as read (its line ending too,
/// or none for a last line without one), offering each to `traffic`; ends at EOF or when
/// `to` is gone, then closes `to`. What `to` was given is flushed before the relay waits on
/// `from`'s source: no line waits for one that has not come.
async fn copy_lines<R: AsyncRead + Unpin>(
    mut from: BufReader<R>,
    to: impl AsyncWrite + Unpin,
    traffic: Traffic,
    side: TrafficSide,
) {
    let mut to = BufWriter::with_capacity(CHUNK, to);
    let mut line = Vec::with_capacity(CHUNK);
    loop {
        line.clear();
        match from.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if to.write_all(&line).await.is_err() {
            break;
        }
        // Unless a whole line is already read, the next one waits on the source: what was
        // read goes to `to` first.
        if !from.buffer().contains(&b'\n') && to.flush().await.is_err() {
            break;
        }
        traffic.offer(side, &line);
        // A huge line's buffer is not kept for the small ones after it.
        if line.capacity() > 1024 * 1024 {
            line = Vec::with_capacity(CHUNK);
        }
    }
    let _ = to.shutdown().await;
}

/// Waits for the server to exit (its stdin is closed); then SIGTERM, then kill.
async fn reap(child: &mut Child) -> Option<std::process::ExitStatus> {
    if let Ok(Ok(status)) = tokio::time::timeout(CLOSE_GRACE, child.wait()).await {
        return Some(status);
    }
    if let Some(pid) = child.id() {
        crate::session::terminate(pid).await;
        if let Ok(Ok(status)) = tokio::time::timeout(CLOSE_GRACE, child.wait()).await {
            return Some(status);
        }
    }
    let _ = child.kill().await;
    child.wait().await.ok()
}
