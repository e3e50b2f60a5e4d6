//! Why an HTTP exchange with a server failed, read from the typed errors of rmcp, reqwest and
//! hyper rather than from their text, and put in words a user can act on.

use std::error::Error;

use rmcp::{
    service::{ClientInitializeError, ServiceError},
    transport::streamable_http_client::{
        AuthRequiredError, InsufficientScopeError, StreamableHttpError,
    },
};

use crate::session::{
    error::SessionError,
    transports::http_redirect::{RefusalReason, RefusedRedirect},
};

type HttpError = StreamableHttpError<reqwest::Error>;
type Cause<'a> = &'a (dyn Error + 'static);

/// Causes looked at, at most: error chains are short, but a cycle must not hang us.
const MAX_CAUSES: usize = 64;

/// What went wrong, as far as the types tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpFailure {
    /// A redirect that was not followed (see `http_redirect`).
    Redirect {
        status: u16,
        to: String,
        reason: RefusalReason,
    },
    /// The response head was over hyper's limit (about 400 KB, or more than 100 headers).
    HeadersTooLarge,
    /// 401 (rmcp's `AuthRequired`) or 403 (its `InsufficientScope`) with a `WWW-Authenticate`
    /// challenge: the status is the type's, never guessed from the challenge's words.
    Unauthorized {
        status: u16,
        challenge: Option<String>,
    },
    /// An HTTP status that is not a success.
    Status(u16),
    Timeout,
    ConnectionRefused,
    Connect,
    /// A success whose content type is neither JSON nor SSE.
    NotMcp {
        content_type: Option<String>,
    },
    BodyTooLarge {
        max_size: usize,
    },
}

/// Classifies an error of any layer (rmcp's handshake or request errors, the transport's,
/// reqwest's), or `None` when no typed cause says what happened.
pub fn classify(error: Cause<'_>) -> Option<HttpFailure> {
    let causes = causes(error);
    let tests: [fn(Cause<'_>) -> Option<HttpFailure>; 5] = [
        redirect,
        headers_too_large,
        rmcp_failure,
        io_failure,
        reqwest_failure,
    ];
    tests
        .iter()
        .find_map(|test| causes.iter().find_map(|cause| test(*cause)))
}

/// The error and its causes, deepest last. rmcp holds some causes in fields that are not
/// `source()`: the transport error of a failed handshake, both attempts of a failed legacy
/// fallback (the fallback's first), and reqwest's error inside its transport error.
fn causes(error: Cause<'_>) -> Vec<Cause<'_>> {
    let mut found = Vec::new();
    let mut pending = vec![error];
    while let Some(error) = pending.pop() {
        if found.len() >= MAX_CAUSES {
            break;
        }
        found.push(error);
        if let Some(source) = error.source() {
            pending.push(source);
        }
        match error.downcast_ref::<ClientInitializeError>() {
            Some(ClientInitializeError::TransportError { error, .. }) => pending.push(error),
            Some(ClientInitializeError::LegacyFallbackFailed { discover, fallback }) => {
                pending.push(discover.as_ref());
                pending.push(fallback.as_ref());
            }
            _ => {}
        }
        if let Some(StreamableHttpError::Client(inner)) = error.downcast_ref::<HttpError>() {
            pending.push(inner);
        }
    }
    found
}

fn redirect(cause: Cause<'_>) -> Option<HttpFailure> {
    let refused = cause.downcast_ref::<RefusedRedirect>()?;
    Some(HttpFailure::Redirect {
        status: refused.status,
        to: refused.to.clone(),
        reason: refused.reason,
    })
}

fn headers_too_large(cause: Cause<'_>) -> Option<HttpFailure> {
    cause
        .downcast_ref::<hyper::Error>()
        .filter(|error| error.is_parse_too_large())
        .map(|_| HttpFailure::HeadersTooLarge)
}

fn rmcp_failure(cause: Cause<'_>) -> Option<HttpFailure> {
    let unauthorized = |status: u16, challenge: &str| {
        Some(HttpFailure::Unauthorized {
            status,
            challenge: Some(challenge.to_owned()),
        })
    };
    if let Some(error) = cause.downcast_ref::<AuthRequiredError>() {
        return unauthorized(401, &error.www_authenticate_header);
    }
    if let Some(error) = cause.downcast_ref::<InsufficientScopeError>() {
        return unauthorized(403, &error.www_authenticate_header);
    }
    match cause.downcast_ref::<HttpError>()? {
        HttpError::AuthRequired(error) => unauthorized(401, &error.www_authenticate_header),
        HttpError::InsufficientScope(error) => unauthorized(403, &error.www_authenticate_header),
        HttpError::HttpStatus(error) => Some(HttpFailure::Status(error.status)),
        HttpError::UnexpectedServerResponse(text) => rmcp_status(text).map(HttpFailure::Status),
        HttpError::UnexpectedContentType(content_type) => Some(HttpFailure::NotMcp {
            content_type: content_type.clone(),
        }),
        HttpError::ResponseBodyTooLarge { max_size } => Some(HttpFailure::BodyTooLarge {
            max_size: *max_size,
        }),
        _ => None,
    }
}

/// rmcp's reqwest client reports a 4xx (other than a 401/403 challenge) only as this variant,
/// whose text it builds as `HTTP {status}: {body}`; the status is its first three digits.
fn rmcp_status(text: &str) -> Option<u16> {
    let digits = text.strip_prefix("HTTP ")?.get(..3)?;
    digits
        .parse()
        .ok()
        .filter(|status| (100..600).contains(status))
}

fn io_failure(cause: Cause<'_>) -> Option<HttpFailure> {
    match cause.downcast_ref::<std::io::Error>()?.kind() {
        std::io::ErrorKind::ConnectionRefused => Some(HttpFailure::ConnectionRefused),
        std::io::ErrorKind::TimedOut => Some(HttpFailure::Timeout),
        _ => None,
    }
}

fn reqwest_failure(cause: Cause<'_>) -> Option<HttpFailure> {
    let error = cause.downcast_ref::<reqwest::Error>()?;
    if let Some(status) = error.status() {
        Some(HttpFailure::Status(status.as_u16()))
    } else if error.is_timeout() {
        Some(HttpFailure::Timeout)
    } else if error.is_connect() {
        Some(HttpFailure::Connect)
    } else {
        None
    }
}

/// The error for a handshake that failed over HTTP.
pub fn handshake_error(url: &str, error: &ClientInitializeError) -> SessionError {
    let unreachable = |reason: String| SessionError::Unreachable {
        url: url.to_owned(),
        reason,
    };
    let request = "the handshake";
    match classify(error) {
        Some(HttpFailure::Unauthorized { status, challenge }) => SessionError::Unauthorized {
            url: url.to_owned(),
            status,
            challenge,
        },
        Some(HttpFailure::Status(status @ (401 | 403))) => SessionError::Unauthorized {
            url: url.to_owned(),
            status,
            challenge: None,
        },
        Some(HttpFailure::Redirect { status, to, reason }) => SessionError::Redirected {
            request: request.to_owned(),
            status,
            to,
            reason,
        },
        Some(HttpFailure::HeadersTooLarge) => SessionError::ResponseHeadersTooLarge {
            request: request.to_owned(),
        },
        Some(HttpFailure::Status(429)) => unreachable(
            "the server answered HTTP 429 (too many requests) to the MCP handshake. Wait, then \
             connect again"
                .to_owned(),
        ),
        Some(HttpFailure::Status(status)) if status >= 500 && status != 501 => {
            unreachable(format!(
                "the server failed with HTTP {status} during the MCP handshake. Check the \
                 server's logs, and that this URL is its MCP endpoint (often ending in /mcp)"
            ))
        }
        Some(HttpFailure::Status(status)) => unreachable(format!(
            "the server answered HTTP {status} to the MCP handshake. Is this URL an MCP \
             Streamable HTTP endpoint (often ending in /mcp)?"
        )),
        Some(HttpFailure::ConnectionRefused) => unreachable(
            "connection refused: nothing is listening there. Is the server running, and is the \
             port right?"
                .to_owned(),
        ),
        Some(HttpFailure::Timeout) => unreachable(format!(
            "the connection timed out ({})",
            deepest_cause(error)
        )),
        Some(HttpFailure::Connect) => {
            unreachable(format!("cannot connect ({})", deepest_cause(error)))
        }
        Some(HttpFailure::NotMcp { content_type }) => unreachable(format!(
            "the server's answer is not MCP Streamable HTTP (its content type is {}). Check \
             the URL path (often /mcp)",
            content_type.as_deref().unwrap_or("missing")
        )),
        Some(HttpFailure::BodyTooLarge { max_size }) => unreachable(format!(
            "the server's answer to the handshake is larger than {max_size} bytes"
        )),
        None => unreachable(deepest_cause(error)),
    }
}

/// The error for a request that failed over HTTP after the handshake, when the types say
/// more than "the connection closed".
pub fn request_error(request: &str, error: &ServiceError) -> Option<SessionError> {
    let protocol = |reason: String| SessionError::Protocol {
        request: request.to_owned(),
        reason,
    };
    match classify(error)? {
        HttpFailure::Redirect { status, to, reason } => Some(SessionError::Redirected {
            request: request.to_owned(),
            status,
            to,
            reason,
        }),
        HttpFailure::HeadersTooLarge => Some(SessionError::ResponseHeadersTooLarge {
            request: request.to_owned(),
        }),
        HttpFailure::Unauthorized { status, challenge } => Some(SessionError::AuthRejected {
            request: request.to_owned(),
            status,
            challenge,
        }),
        HttpFailure::Status(status @ (401 | 403)) => Some(SessionError::AuthRejected {
            request: request.to_owned(),
            status,
            challenge: None,
        }),
        HttpFailure::Status(status) => Some(protocol(format!("the server answered HTTP {status}"))),
        HttpFailure::NotMcp { content_type } => Some(protocol(format!(
            "the server's answer is not MCP Streamable HTTP (its content type is {})",
            content_type.as_deref().unwrap_or("missing")
        ))),
        HttpFailure::BodyTooLarge { max_size } => Some(protocol(format!(
            "the server's answer is larger than {max_size} bytes"
        ))),
        HttpFailure::Timeout | HttpFailure::ConnectionRefused | HttpFailure::Connect => None,
    }
}

/// The deepest cause's text, for a failure no type explains: rmcp's outer layers only name
/// its own types. Of a failed legacy fallback, the fallback's.
fn deepest_cause(error: Cause<'_>) -> String {
    let mut deepest = error;
    for _ in 0..MAX_CAUSES {
        let next = match deepest.downcast_ref::<ClientInitializeError>() {
            Some(ClientInitializeError::TransportError { error, .. }) => Some(error as Cause<'_>),
            Some(ClientInitializeError::LegacyFallbackFailed { fallback, .. }) => {
                Some(fallback.as_ref() as Cause<'_>)
            }
            _ => match deepest.downcast_ref::<HttpError>() {
                Some(StreamableHttpError::Client(inner)) => Some(inner as Cause<'_>),
                _ => deepest.source(),
            },
        };
        let Some(next) = next else { break };
        deepest = next;
    }
    let text = deepest.to_string();
    // rmcp's transport errors read "Send message error Transport [<type name>] error: …".
    if let Some(start) = text.find(" Transport [")
        && let Some(end) = text[start..].find("] error: ")
    {
        return format!("{}{}", &text[..start], &text[start + end + 8..]);
    }
    text
}

#[cfg(test)]
mod tests {
    use rmcp::transport::{DynamicTransportError, streamable_http_client::HttpStatusError};

    use super::*;

    fn handshake_failure(error: HttpError) -> ClientInitializeError {
        ClientInitializeError::TransportError {
            error: DynamicTransportError::from_parts(
                "streamable-http",
                std::any::TypeId::of::<HttpError>(),
                Box::new(error),
            ),
            context: "send initialize request".into(),
        }
    }

    #[test]
    fn statuses_come_from_rmcp_types() {
        let error = handshake_failure(HttpError::HttpStatus(HttpStatusError::new(503, None)));
        assert_eq!(classify(&error), Some(HttpFailure::Status(503)));
        let error = handshake_failure(HttpError::UnexpectedServerResponse(
            "HTTP 404 Not Found: no such page".into(),
        ));
        assert_eq!(classify(&error), Some(HttpFailure::Status(404)));
        let message = handshake_error("http://x/mcp", &error).to_string();
        assert!(
            message.contains("HTTP 404 to the MCP handshake"),
            "{message}"
        );
    }

    #[test]
    fn a_failed_fallback_is_read_through_both_attempts() {
        let error = ClientInitializeError::LegacyFallbackFailed {
            discover: Box::new(ClientInitializeError::Cancelled),
            fallback: Box::new(handshake_failure(HttpError::UnexpectedServerResponse(
                "HTTP 401 Unauthorized: go away".into(),
            ))),
        };
        assert!(matches!(
            handshake_error("http://x/mcp", &error),
            SessionError::Unauthorized { .. }
        ));
    }

    #[test]
    fn text_that_only_mentions_a_status_is_not_a_status() {
        let error = handshake_failure(HttpError::UnexpectedServerResponse(
            "expect initialized, got HTTP 401 in a body".into(),
        ));
        assert_eq!(classify(&error), None);
        let error = handshake_failure(HttpError::UnexpectedContentType(Some(
            "text/html".to_owned(),
        )));
        let message = handshake_error("http://x/mcp", &error).to_string();
        assert!(message.contains("content type is text/html"), "{message}");
    }

    #[test]
    fn an_unexplained_fallback_failure_keeps_the_fallback_words() {
        let error = ClientInitializeError::LegacyFallbackFailed {
            discover: Box::new(ClientInitializeError::Cancelled),
            fallback: Box::new(handshake_failure(HttpError::UnexpectedServerResponse(
                "empty sse stream".into(),
            ))),
        };
        let message = handshake_error("http://x/mcp", &error).to_string();
        assert!(message.ends_with("empty sse stream"), "{message}");
    }

    #[test]
    fn an_unexplained_failure_keeps_its_deepest_words() {
        let error = handshake_failure(HttpError::TransportChannelClosed);
        assert_eq!(classify(&error), None);
        let message = handshake_error("http://x/mcp", &error).to_string();
        assert!(message.contains("Transport channel closed"), "{message}");
    }
}
