//! Why a connection could not start, worked out from what rmcp, the child process and the
//! network said, in words a user can act on.

use rmcp::service::ClientInitializeError;

use super::{connection::STDERR_TAIL, error::SessionError, stdio::StdioChild, tap::ProtocolTap};

/// An error and its sources, joined: rmcp wraps the useful part several levels deep.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    text
}

pub(super) async fn stdio_start_error(
    error: &ClientInitializeError,
    child: &StdioChild,
    tap: &ProtocolTap,
) -> SessionError {
    if let Some(status) = child
        .wait_for_exit(std::time::Duration::from_millis(500))
        .await
    {
        // Let the stderr reader catch up with the last lines.
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        return SessionError::ExitedEarly {
            status,
            stderr_tail: tap.stderr_tail(STDERR_TAIL),
        };
    }
    SessionError::HandshakeFailed {
        reason: error_chain(error),
        stderr_tail: tap.stderr_tail(STDERR_TAIL),
    }
}

pub(super) async fn stdio_timeout_error(
    limit: std::time::Duration,
    child: &StdioChild,
    tap: &ProtocolTap,
) -> SessionError {
    if let Some(status) = child.exit_status() {
        return SessionError::ExitedEarly {
            status,
            stderr_tail: tap.stderr_tail(STDERR_TAIL),
        };
    }
    let (non_json_lines, first_non_json) = {
        let noise = child
            .noise
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (noise.non_json_lines, noise.first.clone())
    };
    SessionError::HandshakeTimeout {
        after: limit,
        non_json_lines,
        first_non_json,
        stderr_tail: tap.stderr_tail(STDERR_TAIL),
    }
}

/// The deepest cause of an HTTP failure, in words: rmcp's outer layers name its own types.
fn http_failure_reason(error: &dyn std::error::Error, chain: &str) -> String {
    let mut deepest = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        deepest = cause.to_string();
        source = cause.source();
    }
    // rmcp's transport errors read "Send message error Transport [<type name>] error: …".
    if let Some(start) = deepest.find(" Transport [")
        && let Some(end) = deepest[start..].find("] error: ")
    {
        deepest = format!("{}{}", &deepest[..start], &deepest[start + end + 8..]);
    }
    let lower = chain.to_lowercase();
    if lower.contains("connection refused") {
        "connection refused: nothing is listening there. Is the server running, and is the port right?".to_owned()
    } else if lower.contains("dns error") || lower.contains("failed to lookup") {
        format!("the host name could not be resolved ({deepest})")
    } else if lower.contains("timed out") {
        format!("the connection timed out ({deepest})")
    } else if let Some(status) = http_status(&lower) {
        format!(
            "the server answered HTTP {status} to the MCP handshake. Is this URL an MCP \
             Streamable HTTP endpoint (often ending in /mcp)?"
        )
    } else if lower.contains("unexpected content type")
        || lower.contains("unexpected server response")
    {
        format!(
            "the server's answer is not MCP Streamable HTTP ({deepest}). Check the URL path (often /mcp)"
        )
    } else {
        deepest
    }
}

/// `501` from "… HTTP 501, when …".
fn http_status(lower: &str) -> Option<&str> {
    let at = lower.find("http ")? + 5;
    let digits = lower.get(at..at + 3)?;
    digits.chars().all(|c| c.is_ascii_digit()).then_some(digits)
}

pub(super) fn http_start_error(url: &str, error: &ClientInitializeError) -> SessionError {
    if error.is_authorization_required() || error.auth_challenge().is_some() {
        return SessionError::Unauthorized {
            url: url.to_owned(),
            challenge: error.auth_challenge().map(str::to_owned),
        };
    }
    let reason = error_chain(error);
    if reason.contains("401") || reason.contains("403") {
        return SessionError::Unauthorized {
            url: url.to_owned(),
            challenge: None,
        };
    }
    SessionError::Unreachable {
        url: url.to_owned(),
        reason: http_failure_reason(error, &reason),
    }
}
