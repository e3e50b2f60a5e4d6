//! A stdio server as a child process, with its stdout and stdin teed through the tap so the
//! log holds the exact lines (a non-JSON line too), and its stderr captured line by line.
//! Closing follows the spec: close its stdin, wait, SIGTERM, wait, SIGKILL, and reap it.

use std::{
    process::Stdio,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, DuplexStream},
    process::{Child, Command},
    sync::{Notify, oneshot, watch},
};
use tokio_util::sync::CancellationToken;

use crate::json_doc::{JsonDoc, JsonRef};
use crate::session::{
    config::ServerConfig,
    error::SessionError,
    requests::raw_responses::{Claim, Offered, RawResponses},
    transports::tap::{Direction, Fidelity, ProtocolTap, id_text_of, message_label},
};

/// The longest stdout line we accept (a huge result is one line). rmcp gets the same limit.
pub(in crate::session) const MAX_LINE_BYTES: usize = 512 * 1024 * 1024;
/// Buffer of the in-memory pipes between the tee and rmcp.
const PIPE_BYTES: usize = 1024 * 1024;
/// How long a server gets to exit after its stdin closes, and again after SIGTERM.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// Child processes not yet reaped, across all sessions (the CLI waits for them before exit).
static LIVE_CHILDREN: AtomicUsize = AtomicUsize::new(0);
static CHILD_REAPED: Notify = Notify::const_new();

/// Waits until every stdio server started by this process has been reaped, or `limit` passed.
/// Returns whether all were.
pub async fn wait_for_all_children(limit: Duration) -> bool {
    let all_gone = async {
        loop {
            let reaped = CHILD_REAPED.notified();
            if LIVE_CHILDREN.load(Ordering::SeqCst) == 0 {
                return;
            }
            reaped.await;
        }
    };
    tokio::time::timeout(limit, all_gone).await.is_ok()
}

/// What stdout carried that was not JSON-RPC, for error messages.
#[derive(Debug, Default)]
pub struct StdoutNoise {
    pub non_json_lines: usize,
    pub first: Option<String>,
}

/// A running child process. Dropping it starts a graceful close in the background; the
/// process is always reaped.
pub struct StdioChild {
    /// Starts the close sequence: stdin, SIGTERM, SIGKILL.
    ending: Mutex<Option<oneshot::Sender<()>>>,
    exit: Arc<Mutex<Option<String>>>,
    exited: watch::Receiver<bool>,
    pub noise: Arc<Mutex<StdoutNoise>>,
    /// The process id, for reading its memory while it runs (`toolscope load`).
    pid: Option<u32>,
}

impl StdioChild {
    /// The process id (`None` when the system did not give one).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

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
    pub async fn wait_for_exit(&self, limit: Duration) -> Option<String> {
        let mut exited = self.exited.clone();
        let _ = tokio::time::timeout(limit, exited.wait_for(|done| *done)).await;
        self.exit_status()
    }

    /// Starts the graceful close in the background: stdin, SIGTERM, SIGKILL.
    pub fn start_close(&self) {
        let sender = self
            .ending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(sender) = sender {
            let _ = sender.send(());
        }
    }

    /// Closes the process gracefully and waits until it has been reaped.
    pub async fn close(&self) -> Option<String> {
        self.start_close();
        let mut exited = self.exited.clone();
        let _ = exited.wait_for(|done| *done).await;
        self.exit_status()
    }
}

impl Drop for StdioChild {
    fn drop(&mut self) {
        self.start_close();
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
    let ServerConfig::Stdio { command, cwd, .. } = config else {
        return Err(SessionError::InvalidConfig("not a stdio server".to_owned()));
    };
    let Some(mut builder) = server_command(config) else {
        return Err(SessionError::InvalidConfig("not a stdio server".to_owned()));
    };
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
    LIVE_CHILDREN.fetch_add(1, Ordering::SeqCst);
    let pid = child.id();

    let (rmcp_read, tee_to_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (tee_from_rmcp, rmcp_write) = tokio::io::duplex(PIPE_BYTES);
    let noise = Arc::new(Mutex::new(StdoutNoise::default()));
    let close_stdin = CancellationToken::new();

    tokio::spawn(tee_server_output(
        BufReader::with_capacity(64 * 1024, stdout),
        tee_to_rmcp,
        tap.clone(),
        raw.clone(),
        noise.clone(),
    ));
    tokio::spawn(tee_client_output(
        tee_from_rmcp,
        stdin,
        tap.clone(),
        raw.clone(),
        close_stdin.clone(),
    ));
    tokio::spawn(capture_stderr(BufReader::new(stderr), tap.clone()));

    let (ending, ending_rx) = oneshot::channel();
    let exit = Arc::new(Mutex::new(None));
    let (exited_tx, exited) = watch::channel(false);
    tokio::spawn(watch_child(
        Reaped(Some(child)),
        ending_rx,
        close_stdin,
        exit.clone(),
        exited_tx,
    ));

    Ok((
        (rmcp_read, rmcp_write),
        StdioChild {
            ending: Mutex::new(Some(ending)),
            exit,
            exited,
            noise,
            pid,
        },
    ))
}

/// The process of a stdio server: its command line, environment and folder, its three
/// streams piped, killed and reaped by tokio as a last resort if nobody else does. `None` for
/// an HTTP server. A session and the proxy start servers the same way.
pub(crate) fn server_command(config: &ServerConfig) -> Option<Command> {
    let ServerConfig::Stdio {
        command,
        args,
        env,
        cwd,
    } = config
    else {
        return None;
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
    Some(builder)
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

/// The child, counted live until it has been reaped (or, if the runtime drops this first,
/// handed to tokio's kill-on-drop, which kills and reaps it).
struct Reaped(Option<Child>);

impl Drop for Reaped {
    fn drop(&mut self) {
        drop(self.0.take());
        LIVE_CHILDREN.fetch_sub(1, Ordering::SeqCst);
        CHILD_REAPED.notify_waiters();
    }
}

async fn watch_child(
    mut reaped: Reaped,
    ending: oneshot::Receiver<()>,
    close_stdin: CancellationToken,
    exit: Arc<Mutex<Option<String>>>,
    exited: watch::Sender<bool>,
) {
    let Some(child) = reaped.0.as_mut() else {
        return;
    };
    let status = tokio::select! {
        status = child.wait() => status,
        // A dropped handle means the session is gone: close all the same.
        _ = ending => end_child(child, &close_stdin).await,
    };
    let text = match status {
        Ok(status) => status.to_string(),
        Err(error) => format!("unknown exit: {error}"),
    };
    *exit
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(text);
    drop(reaped);
    let _ = exited.send(true);
}

/// Ends a running child the way the spec says, and reaps it.
async fn end_child(
    child: &mut Child,
    close_stdin: &CancellationToken,
) -> std::io::Result<std::process::ExitStatus> {
    close_stdin.cancel();
    if let Ok(status) = tokio::time::timeout(CLOSE_GRACE, child.wait()).await {
        return status;
    }
    if let Some(pid) = child.id() {
        terminate(pid).await;
        if let Ok(status) = tokio::time::timeout(CLOSE_GRACE, child.wait()).await {
            return status;
        }
    }
    let _ = child.start_kill();
    child.wait().await
}

/// Sends SIGTERM. `kill(1)` keeps the build free of a libc binding; the child is not yet
/// reaped, so its pid cannot have been reused. Without kill(1) the caller goes on to SIGKILL.
#[cfg(unix)]
pub(crate) async fn terminate(pid: u32) {
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await;
}

#[cfg(not(unix))]
pub(crate) async fn terminate(_pid: u32) {}

/// Lines this long or longer are parsed on a blocking thread, not on an async worker.
const BLOCKING_PARSE_BYTES: usize = 256 * 1024;

/// Server stdout → tap → rmcp. Only JSON lines are passed on: rmcp would skip the rest anyway.
/// Each line is parsed once, here, at any depth. A response to a request of ours is kept raw
/// and rmcp gets a tiny stand-in with the same id; a duplicate response is logged and flagged,
/// never passed on. What goes to rmcp is held back while the next line is already buffered,
/// so a duplicate sent right behind its original is seen before the call returns.
async fn tee_server_output<R: AsyncRead + Unpin>(
    mut stdout: BufReader<R>,
    mut to_rmcp: DuplexStream,
    tap: ProtocolTap,
    raw: RawResponses,
    noise: Arc<Mutex<StdoutNoise>>,
) {
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let mut line = Vec::new();
        match read_line_bounded(&mut stdout, &mut line).await {
            Ok(LineRead::Eof) | Err(_) => break,
            Ok(LineRead::TooLong(bytes)) => {
                let text = format!("(a stdout line of over {bytes} bytes was dropped: too long)");
                tap.record_message(Direction::FromServer, Fidelity::Exact, &text, None);
            }
            Ok(LineRead::Line) => {
                pass_line(line, &mut pending, &tap, &raw, &noise).await;
            }
        }
        let more_buffered = stdout.buffer().contains(&b'\n');
        if !pending.is_empty() && (!more_buffered || pending.len() >= PIPE_BYTES) {
            let write = async {
                to_rmcp.write_all(&pending).await?;
                to_rmcp.flush().await
            };
            if write.await.is_err() {
                break;
            }
            pending.clear();
            if pending.capacity() > PIPE_BYTES {
                pending.shrink_to(PIPE_BYTES);
            }
        }
    }
    if !pending.is_empty() {
        let _ = to_rmcp.write_all(&pending).await;
    }
    let _ = to_rmcp.shutdown().await;
}

/// Parses, logs and routes one stdout line; what rmcp should get is appended to `pending`.
async fn pass_line(
    line: Vec<u8>,
    pending: &mut Vec<u8>,
    tap: &ProtocolTap,
    raw: &RawResponses,
    noise: &Mutex<StdoutNoise>,
) {
    match parse_line(line).await {
        Line::Blank => {}
        Line::Json(message) => {
            let text = message.text().trim_end_matches(['\n', '\r']);
            match route_message(&message, tap, raw) {
                Forward::Line => {
                    pending.extend_from_slice(text.as_bytes());
                    pending.push(b'\n');
                }
                Forward::StandIn(stand_in) => {
                    pending.extend_from_slice(stand_in.as_bytes());
                    pending.push(b'\n');
                }
                Forward::Nothing => {}
            }
        }
        Line::NotJson(text) => {
            let trimmed = text.trim_end_matches(['\n', '\r']);
            tap.record_message(Direction::FromServer, Fidelity::Exact, trimmed, None);
            let mut noise = noise
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            noise.non_json_lines += 1;
            if noise.first.is_none() {
                noise.first = Some(trimmed.chars().take(200).collect());
            }
        }
    }
}

/// What the tee passes on to rmcp for one JSON message.
enum Forward {
    /// The line as the server sent it.
    Line,
    /// A small message in place of a response that is delivered raw.
    StandIn(String),
    Nothing,
}

/// Logs one parsed message and decides what rmcp gets; keeps responses raw.
fn route_message(message: &Arc<JsonDoc>, tap: &ProtocolTap, raw: &RawResponses) -> Forward {
    let root = message.root();
    let label = message_label(root);
    let id = root.get("id").map(JsonRef::to_value).unwrap_or_default();
    let (offered, note) = raw.offer_message(message.clone());
    tap.record_labelled(
        Direction::FromServer,
        Fidelity::Exact,
        message.text().trim_end_matches(['\n', '\r']),
        label,
        true,
        note,
    );
    match offered {
        Offered::Kept {
            claim: Some(Claim::StandIn),
        } => Forward::StandIn(stand_in(&id)),
        Offered::Kept { claim: None } | Offered::NotAResponse => Forward::Line,
        Offered::Kept {
            claim: Some(Claim::Own),
        }
        | Offered::Duplicate { .. } => Forward::Nothing,
    }
}

/// An error response rmcp parses in microseconds; the caller reads the raw response instead.
fn stand_in(id: &Value) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": STAND_IN_CODE, "message": "the response is kept raw by Toolscope"},
    })
    .to_string()
}

/// The code of a stand-in error (from the JSON-RPC range reserved for implementations).
pub(in crate::session) const STAND_IN_CODE: i64 = -32_099;

/// One stdout line, decoded and parsed.
enum Line {
    Blank,
    Json(Arc<JsonDoc>),
    NotJson(String),
}

/// Decodes one line (lossy UTF-8, like the server meant it) and parses it at any depth into a
/// compact document that keeps the text. A big line is parsed on a blocking thread so the
/// runtime's workers stay free.
async fn parse_line(line: Vec<u8>) -> Line {
    let text = match String::from_utf8(line) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    };
    if text.len() < BLOCKING_PARSE_BYTES {
        return parse_text(text);
    }
    tokio::task::spawn_blocking(move || parse_text(text))
        .await
        .unwrap_or(Line::Blank)
}

fn parse_text(text: String) -> Line {
    if text.trim().is_empty() {
        return Line::Blank;
    }
    // A leading byte order mark is allowed by RFC 8259 (rmcp skips it too; so does JsonDoc).
    match JsonDoc::try_parse(text) {
        Ok(doc) => Line::Json(Arc::new(doc)),
        Err((_, text)) => Line::NotJson(text),
    }
}

/// rmcp → tap → server stdin. Logged before the write so the log stays in causal order. The
/// id of each request whose answer is read raw (`tools/call`, `tools/list`, `tasks/result`,
/// `resources/read`) is claimed before the server can answer it. Ends
/// (closing the server's stdin) when rmcp closes or `close_stdin` fires.
async fn tee_client_output(
    from_rmcp: DuplexStream,
    mut stdin: tokio::process::ChildStdin,
    tap: ProtocolTap,
    raw: RawResponses,
    close_stdin: CancellationToken,
) {
    let mut lines = BufReader::new(from_rmcp).lines();
    loop {
        let line = tokio::select! {
            line = lines.next_line() => line,
            () = close_stdin.cancelled() => break,
        };
        let Ok(Some(line)) = line else { break };
        let (line, parsed) = match JsonDoc::try_parse(line) {
            Ok(doc) => (doc.text().to_owned(), Some(doc)),
            Err((_, line)) => (line, None),
        };
        let message = parsed.as_ref().map(JsonDoc::root);
        if let Some(message) = message
            && let Some(method) = message.get("method").and_then(JsonRef::as_plain_str)
            && matches!(
                method,
                "tools/call" | "tools/list" | "tasks/result" | "resources/read"
            )
            && let Some(id) = message.get("id")
        {
            raw.claim(id_text_of(id), Claim::StandIn);
        }
        tap.record_message(Direction::ToServer, Fidelity::Exact, &line, message);
        let write = async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.write_all(b"\n").await?;
            stdin.flush().await
        };
        if write.await.is_err() {
            break;
        }
    }
    // Dropping stdin closes it: the first step of closing a stdio server.
    drop(stdin);
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
