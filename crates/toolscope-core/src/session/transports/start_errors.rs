//! Why a connection could not start, worked out from what rmcp, the child process and the
//! network said, in words a user can act on.

use rmcp::service::ClientInitializeError;

use crate::error_chain::error_chain;

use crate::session::{
    error::SessionError, transports::http_failure, transports::stdio::StdioChild,
    transports::tap::ProtocolTap,
};

/// How many stderr lines an error message quotes.
pub(in crate::session) const STDERR_TAIL: usize = 12;

pub(in crate::session) async fn stdio_start_error(
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

pub(in crate::session) async fn stdio_timeout_error(
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

/// Why an HTTP handshake failed, from the typed errors underneath (see `http_failure`).
pub(in crate::session) fn http_start_error(
    url: &str,
    error: &ClientInitializeError,
) -> SessionError {
    http_failure::handshake_error(url, error)
}
