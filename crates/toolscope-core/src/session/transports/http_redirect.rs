//! Which HTTP redirects a session follows. A redirect must never carry the session (tool calls,
//! arguments, the configured headers such as `X-Api-Key`) to another origin without the user
//! choosing that address, so:
//!
//! - a 307 or 308 to the same origin (scheme, host and port) is followed, with the configured
//!   headers, up to [`MAX_REDIRECTS`] times: it keeps the method and the body;
//! - a redirect to another origin is refused before anything is sent there;
//! - a 301, 302 or 303 is refused even within the origin: it would resend the POST as a GET
//!   without its JSON-RPC message.
//!
//! A refusal fails the request with a [`RefusedRedirect`] that names the target, so the user can
//! make that address the server URL if they trust it.

use thiserror::Error;

/// Same-origin redirects followed for one request before giving up.
pub const MAX_REDIRECTS: usize = 10;

/// Why a redirect was not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalReason {
    /// The target has another scheme, host or port.
    OtherOrigin,
    /// A 301, 302 or 303: the POST would be resent as a GET without its message.
    DropsTheMessage,
    /// More than [`MAX_REDIRECTS`] hops within the origin.
    TooMany,
}

/// A redirect the session did not follow; nothing was sent to `to`.
#[derive(Debug, Clone, Error)]
#[error("redirect (HTTP {status}) to {to} not followed")]
pub struct RefusedRedirect {
    pub status: u16,
    pub to: String,
    pub reason: RefusalReason,
}

/// The redirect policy of every session's HTTP client.
pub fn policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let status = attempt.status();
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        let keeps_the_body = matches!(
            status,
            http::StatusCode::TEMPORARY_REDIRECT | http::StatusCode::PERMANENT_REDIRECT
        );
        let reason = if !same_origin {
            RefusalReason::OtherOrigin
        } else if !keeps_the_body {
            RefusalReason::DropsTheMessage
        } else if attempt.previous().len() > MAX_REDIRECTS {
            RefusalReason::TooMany
        } else {
            return attempt.follow();
        };
        let refused = RefusedRedirect {
            status: status.as_u16(),
            to: attempt.url().to_string(),
            reason,
        };
        attempt.error(refused)
    })
}
