//! Why a session could not do what was asked, in words a user can act on.

use std::time::Duration;

use thiserror::Error;

use crate::session::transports::http_redirect::{MAX_REDIRECTS, RefusalReason};

/// A session failure. Each message names what failed and hints at what to do.
#[derive(Debug, Error)]
pub enum SessionError {
    #[error("cannot start {command:?}: no such program. Check the command name and your PATH")]
    CommandNotFound { command: String },

    #[error("cannot start {command:?}: {reason}")]
    SpawnFailed { command: String, reason: String },

    #[error(
        "the server exited before the handshake finished ({status}){}",
        tail_text(stderr_tail)
    )]
    ExitedEarly {
        status: String,
        stderr_tail: Vec<String>,
    },

    #[error("the handshake failed: {reason}{}", tail_text(stderr_tail))]
    HandshakeFailed {
        reason: String,
        stderr_tail: Vec<String>,
    },

    #[error("the server did not answer the handshake within {}{}{}", seconds(*after), garbage_text(*non_json_lines, first_non_json.as_deref()), tail_text(stderr_tail))]
    HandshakeTimeout {
        after: Duration,
        non_json_lines: usize,
        first_non_json: Option<String>,
        stderr_tail: Vec<String>,
    },

    #[error("the server at {url} refused the request as unauthorized (HTTP {status}). Pass a token, for example --header 'Authorization: Bearer …'{}", challenge.as_ref().map(|c| format!(" (it asked for: {c})")).unwrap_or_default())]
    Unauthorized {
        url: String,
        /// 401 or 403, as the server answered.
        status: u16,
        challenge: Option<String>,
    },

    /// A request after the handshake refused with 401/403 (an expired or revoked token, or a
    /// scope the token lacks).
    #[error("{request} was refused as unauthorized (HTTP {status}){}. {}", challenge.as_ref().map(|c| format!(" (the server said: {c})")).unwrap_or_default(), if *status == 403 { "The token lacks a scope: sign in again to grant it" } else { "The token may have expired or been revoked: sign in again, or connect again with a valid one, for example --header 'Authorization: Bearer …'" })]
    AuthRejected {
        request: String,
        status: u16,
        challenge: Option<String>,
    },

    #[error("{0}")]
    SignIn(#[from] crate::auth::SignInError),

    #[error("cannot reach {url}: {reason}")]
    Unreachable { url: String, reason: String },

    #[error("{}", redirect_text(request, *status, to, *reason))]
    Redirected {
        request: String,
        status: u16,
        to: String,
        reason: RefusalReason,
    },

    #[error(
        "the response to {request} had headers too large to accept (more than about 400 KB, or more than 100 header lines), so it was refused. The server, or a proxy in front of it, is misbehaving: check its logs and configuration"
    )]
    ResponseHeadersTooLarge { request: String },

    #[error("invalid server settings: {0}")]
    InvalidConfig(String),

    #[error("{request} got no answer within {}: the server may be stuck. Raise the timeout if it is just slow", seconds(*after))]
    Timeout { request: String, after: Duration },

    #[error("{request} was cancelled")]
    Cancelled { request: String },

    #[error("the connection closed during {request}{}{}", exit.as_ref().map(|e| format!(" (server {e})")).unwrap_or_default(), tail_text(stderr_tail))]
    ConnectionClosed {
        request: String,
        exit: Option<String>,
        stderr_tail: Vec<String>,
    },

    #[error("{request} failed: {reason}")]
    Protocol { request: String, reason: String },
}

fn seconds(duration: Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

fn redirect_text(request: &str, status: u16, to: &str, reason: RefusalReason) -> String {
    match reason {
        RefusalReason::OtherOrigin => format!(
            "the server redirected {request} to another origin (HTTP {status}); not followed, so \
             nothing was sent there (no tool call, no header). If you trust that server, use its \
             address as the server URL: {to}"
        ),
        RefusalReason::DropsTheMessage => format!(
            "the server redirected {request} with HTTP {status}, which would resend it as a GET \
             without its message; not followed. Use the address it points to as the server \
             URL: {to}"
        ),
        RefusalReason::TooMany => format!(
            "the server redirected {request} more than {MAX_REDIRECTS} times; stopped. Check \
             the server URL; the last redirect pointed to {to}"
        ),
    }
}

fn tail_text(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut text = String::from("\nLast lines the server wrote to stderr:");
    for line in lines {
        text.push_str("\n  ");
        text.push_str(line);
    }
    text
}

fn garbage_text(count: usize, first: Option<&str>) -> String {
    match (count, first) {
        (0, _) | (_, None) => String::new(),
        (count, Some(first)) => format!(
            ". It printed {count} line(s) on stdout that are not JSON-RPC, first: {first:?}. \
             A stdio server must write only protocol messages to stdout (logs go to stderr)"
        ),
    }
}
