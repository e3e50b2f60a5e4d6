//! What `toolscope proxy --url` needs before it serves: the remote server's URL and headers
//! checked, its OAuth (the session layer's sign-in, tokens in the secret store) as the token
//! source, and a listener on loopback only.

use std::{net::SocketAddr, sync::Arc};

use tokio_util::sync::CancellationToken;

use super::{BearerSource, HttpRelay, NewRecording};
use crate::{
    auth::AuthOptions,
    session::{
        ProtocolTap, SessionError,
        config::{ConfigError, parse_header},
        transports::http_auth::SessionAuth,
        transports::tap::TapLimits,
    },
};

/// Why the HTTP proxy cannot start serving.
#[derive(Debug, thiserror::Error)]
pub enum HttpProxyError {
    #[error("{0} is not an http(s) URL")]
    NotHttp(String),
    /// A `--header` not written as `Name: value`.
    #[error(transparent)]
    Header(#[from] ConfigError),
    #[error("{0:?} is not a header name")]
    HeaderName(String),
    /// The value of the header named.
    #[error("the value of {0:?} is not a header value")]
    HeaderValue(String),
    /// The HTTP client could not be made.
    #[error(transparent)]
    Client(#[from] SessionError),
    #[error("the proxy listens on this machine only: use 127.0.0.1:PORT or [::1]:PORT, not {0}")]
    NotLoopback(SocketAddr),
    #[error("cannot listen on {address}: {source}")]
    Listen {
        address: SocketAddr,
        source: std::io::Error,
    },
}

/// The remote server's OAuth, through the session layer's sign-in.
struct OAuthBearer {
    auth: SessionAuth,
    manager: tokio::sync::Mutex<Option<rmcp::transport::AuthorizationManager>>,
    said: Arc<dyn Fn(String) + Send + Sync>,
}

#[async_trait::async_trait]
impl BearerSource for OAuthBearer {
    async fn token(&self) -> Option<String> {
        let mut manager = self.manager.lock().await;
        if manager.is_none() {
            *manager = self.auth.token_source().await.ok();
        }
        manager.as_ref()?.get_access_token().await.ok()
    }

    async fn refused(&self, challenge: Option<&str>) -> bool {
        let seen = self.auth.sign_ins();
        match self.auth.sign_in(challenge, seen).await {
            Ok(()) => {
                // The next token comes from the manager the sign-in left.
                *self.manager.lock().await = None;
                true
            }
            Err(error) => {
                (self.said)(error.to_string());
                false
            }
        }
    }
}

/// The relay to `url`: `headers` ("Name: value") added to each request, OAuth as `options`
/// say (problems signing in told to `say`), what passes offered to `recording`. Cancelling
/// the token stops a sign-in under way.
pub fn http_relay(
    url: &str,
    headers: &[String],
    options: &AuthOptions,
    recording: Option<NewRecording>,
    say: Arc<dyn Fn(String) + Send + Sync>,
) -> Result<(HttpRelay, CancellationToken), HttpProxyError> {
    let upstream = match reqwest::Url::parse(url) {
        Ok(upstream) if matches!(upstream.scheme(), "http" | "https") => upstream,
        _ => return Err(HttpProxyError::NotHttp(url.to_owned())),
    };
    let mut added = Vec::new();
    for header in headers {
        let (name, value) = parse_header(header)?;
        added.push((
            http::HeaderName::try_from(name.as_str())
                .map_err(|_| HttpProxyError::HeaderName(name.clone()))?,
            http::HeaderValue::try_from(value.as_str())
                .map_err(|_| HttpProxyError::HeaderValue(name.clone()))?,
        ));
    }
    let cancel = CancellationToken::new();
    let tap = ProtocolTap::new(TapLimits::default(), None);
    let bearer: Arc<dyn BearerSource> = Arc::new(OAuthBearer {
        auth: SessionAuth::new(
            url,
            crate::session::transports::http_auth::OAuthSettings {
                client_id: None,
                client_secret: None,
                extensions: &crate::auth::OAuthExtensions::default(),
            },
            options,
            &tap,
            cancel.clone(),
        ),
        manager: tokio::sync::Mutex::new(None),
        said: say,
    });
    let client = crate::session::transports::http::client()?;
    Ok((
        HttpRelay {
            upstream,
            headers: added,
            bearer: Some(bearer),
            recording,
            client,
        },
        cancel,
    ))
}

/// A listener on `address`, which must be this machine's (loopback): the proxy adds the
/// user's token to what it forwards, so nobody else may reach it.
pub async fn listen_locally(
    address: SocketAddr,
) -> Result<tokio::net::TcpListener, HttpProxyError> {
    if !address.ip().is_loopback() {
        return Err(HttpProxyError::NotLoopback(address));
    }
    tokio::net::TcpListener::bind(address)
        .await
        .map_err(|source| HttpProxyError::Listen { address, source })
}
