//! A stdio server as a child process, with its stdout and stdin teed through the tap so the
//! log holds the exact lines (a non-JSON line too), and its stderr captured line by line.

use std::{
    process::Stdio,
    sync::{Arc, Mutex},
};

use serde_json::Value;
use tokio::{
    io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream},
    process::{Child, Command},
    sync::oneshot,
};

use super::{
    config::ServerConfig,
    error::SessionError,
    raw_responses::RawResponses,
    tap::{Direction, Fidelity, ProtocolTap},
};

/// The longest stdout line we accept (a huge result is one line).
const MAX_LINE_BYTES: usize = 512 * 1024 * 1024;
/// Buffer of the in-memory pipes between the tee and rmcp.
const PIPE_BYTES: usize = 1024 * 1024;

/// What stdout carried that was not JSON-RPC, for error messages.
#[derive(Debug, Default)]
pub struct StdoutNoise {
    pub non_json_lines: usize,
    pub first: Option<String>,
}

/// A running child process. Dropping it kills the process.
pub struct StdioChild {
    kill: Mutex<Option<oneshot::Sender<()>>>,
    exit: Arc<Mutex<Option<String>>>,
    exited: tokio::sync::watch::Receiver<bool>,
    pub noise: Arc<Mutex<StdoutNoise>>,
}

impl StdioChild {
    /// How the process ended (`exit status: 1`), if it has.
    pub fn exit_status(&self) -> Option<String> {
        self.exit
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The shared record of how the process ended, for a watcher that outlives a borrow.
    pub fn exit_record(&self) -> Arc<Mutex<Option<String>>> {
        self.exit.clone()
    }

    /// Waits up to `limit` for the process to end, then returns how it ended.
    pub async fn wait_for_exit(&self, limit: std::time::Duration) -> Option<String> {
        let mut exited = self.exited.clone();
        let _ = tokio::time::timeout(limit, exited.wait_for(|done| *done)).await;
        self.exit_status()
    }

    pub fn kill(&self) {
        let kill = self
            .kill
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(kill) = kill {
            let _ = kill.send(());
        }
    }
}

impl Drop for StdioChild {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The two pipe ends rmcp reads from and writes to.
pub type RmcpPipes = (DuplexStream, DuplexStream);

/// Starts the server and the tee tasks. Must be called inside a tokio runtime.
pub fn spawn(
    config: &ServerConfig,
    tap: &ProtocolTap,
    raw: &RawResponses,
) -> Result<(RmcpPipes, StdioChild), SessionError> {
    let ServerConfig::Stdio {
        command,
        args,
        env,
        cwd,
    } = config
    else {
        return Err(SessionError::InvalidConfig("not a stdio server".to_owned()));
    };
    let mut builder = Command::new(command);
    builder
        .args(args)
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = cwd {
        builder.current_dir(cwd);
    }
    let mut child = builder
        .spawn()
        .map_err(|error| spawn_error(command, cwd, &error))?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(SessionError::SpawnFailed {
            command: command.clone(),
            reason: "its standard streams could not be attached".to_owned(),
        });
    };

    let (rmcp_read, tee_to_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (tee_from_rmcp, rmcp_write) = tokio::io::duplex(PIPE_BYTES);
    let noise = Arc::new(Mutex::new(StdoutNoise::default()));

    tokio::spawn(tee_server_output(
        BufReader::new(stdout),
        tee_to_rmcp,
        tap.clone(),
        raw.clone(),
        noise.clone(),
    ));
    tokio::spawn(tee_client_output(tee_from_rmcp, stdin, tap.clone()));
    tokio::spawn(capture_stderr(BufReader::new(stderr), tap.clone()));

    let (kill, kill_rx) = oneshot::channel();
    let exit = Arc::new(Mutex::new(None));
    let (exited_tx, exited) = tokio::sync::watch::channel(false);
    tokio::spawn(watch_child(child, kill_rx, exit.clone(), exited_tx));

    Ok((
        (rmcp_read, rmcp_write),
        StdioChild {
            kill: Mutex::new(Some(kill)),
            exit,
            exited,
            noise,
        },
    ))
}

fn spawn_error(
    command: &str,
    cwd: &Option<std::path::PathBuf>,
    error: &std::io::Error,
) -> SessionError {
    match (error.kind(), cwd) {
        (std::io::ErrorKind::NotFound, Some(cwd)) if !cwd.is_dir() => SessionError::SpawnFailed {
            command: command.to_owned(),
            reason: format!("the working directory {} does not exist", cwd.display()),
        },
        (std::io::ErrorKind::NotFound, _) => SessionError::CommandNotFound {
            command: command.to_owned(),
        },
        (std::io::ErrorKind::PermissionDenied, _) => SessionError::SpawnFailed {
            command: command.to_owned(),
            reason: "permission denied: is it executable?".to_owned(),
        },
        _ => SessionError::SpawnFailed {
            command: command.to_owned(),
            reason: error.to_string(),
        },
    }
}

async fn watch_child(
    mut child: Child,
    kill: oneshot::Receiver<()>,
    exit: Arc<Mutex<Option<String>>>,
    exited: tokio::sync::watch::Sender<bool>,
) {
    let status = tokio::select! {
        status = child.wait() => status,
        _ = kill => {
            let _ = child.start_kill();
            child.wait().await
        }
    };
    let text = match status {
        Ok(status) => status.to_string(),
        Err(error) => format!("unknown exit: {error}"),
    };
    *exit
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(text);
    let _ = exited.send(true);
}

/// Server stdout → tap → rmcp. Only JSON lines are passed on: rmcp would skip the rest anyway.
async fn tee_server_output(
    mut stdout: impl AsyncBufRead + Unpin,
    mut to_rmcp: DuplexStream,
    tap: ProtocolTap,
    raw: RawResponses,
    noise: Arc<Mutex<StdoutNoise>>,
) {
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_line_bounded(&mut stdout, &mut line).await {
            Ok(LineRead::Eof) | Err(_) => break,
            Ok(LineRead::TooLong(bytes)) => {
                let text = format!("(a stdout line of over {bytes} bytes was dropped: too long)");
                tap.record_message(Direction::FromServer, Fidelity::Exact, &text, None);
                continue;
            }
            Ok(LineRead::Line) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            continue;
        }
        let parsed: Option<Value> = serde_json::from_str(text).ok();
        tap.record_message(
            Direction::FromServer,
            Fidelity::Exact,
            text,
            parsed.as_ref(),
        );
        match &parsed {
            Some(message) => {
                raw.offer(message);
                let write = async {
                    to_rmcp.write_all(text.as_bytes()).await?;
                    to_rmcp.write_all(b"\n").await?;
                    to_rmcp.flush().await
                };
                if write.await.is_err() {
                    break;
                }
            }
            None => {
                let mut noise = noise
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                noise.non_json_lines += 1;
                if noise.first.is_none() {
                    noise.first = Some(text.chars().take(200).collect());
                }
            }
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// rmcp → tap → server stdin. Logged before the write so the log stays in causal order.
async fn tee_client_output(
    from_rmcp: DuplexStream,
    mut stdin: tokio::process::ChildStdin,
    tap: ProtocolTap,
) {
    let mut lines = BufReader::new(from_rmcp).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let parsed: Option<Value> = serde_json::from_str(&line).ok();
        tap.record_message(Direction::ToServer, Fidelity::Exact, &line, parsed.as_ref());
        let write = async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.write_all(b"\n").await?;
            stdin.flush().await
        };
        if write.await.is_err() {
            break;
        }
    }
}

async fn capture_stderr(mut stderr: impl AsyncBufRead + Unpin, tap: ProtocolTap) {
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_line_bounded(&mut stderr, &mut line).await {
            Ok(LineRead::Line) => {
                let text = String::from_utf8_lossy(&line);
                tap.record_stderr(text.trim_end_matches(['\n', '\r']));
            }
            Ok(LineRead::TooLong(bytes)) => {
                tap.record_stderr(&format!(
                    "(a stderr line of over {bytes} bytes was dropped)"
                ));
            }
            Ok(LineRead::Eof) | Err(_) => break,
        }
    }
}

enum LineRead {
    Line,
    Eof,
    /// The line passed the limit; it was skipped up to its end.
    TooLong(usize),
}

/// Reads one line into `line`, refusing to hold more than [`MAX_LINE_BYTES`] of it.
async fn read_line_bounded(
    reader: &mut (impl AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
) -> std::io::Result<LineRead> {
    let mut skipped = 0usize;
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(if skipped > 0 {
                LineRead::TooLong(skipped)
            } else if line.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        let (chunk, done) = match buffer.iter().position(|&byte| byte == b'\n') {
            Some(end) => (&buffer[..=end], true),
            None => (buffer, false),
        };
        let used = chunk.len();
        if skipped > 0 || line.len() + used > MAX_LINE_BYTES {
            skipped += line.len() + used;
            line.clear();
        } else {
            line.extend_from_slice(chunk);
        }
        reader.consume(used);
        if done {
            return Ok(if skipped > 0 {
                LineRead::TooLong(skipped)
            } else {
                LineRead::Line
            });
        }
    }
}
