//! A Streamable HTTP server, through rmcp's transport over a capturing reqwest client.
//!
//! What the server sends is captured below rmcp (see `http_capture`). What we send is logged
//! here, as rmcp serialized it: that is exactly what goes on the wire.

use std::{collections::HashMap, sync::Arc, time::Duration};

use rmcp::{
    RoleClient,
    service::{RxJsonRpcMessage, TxJsonRpcMessage},
    transport::{
        AuthClient, AuthorizationManager, StreamableHttpClientTransport, Transport,
        common::client_side_sse::ExponentialBackoff,
        streamable_http_client::StreamableHttpClientTransportConfig,
    },
};

use crate::session::{
    config::ServerConfig,
    error::SessionError,
    requests::raw_responses::RawResponses,
    transports::http_capture::CapturingClient,
    transports::http_dpop::DpopPresenter,
    transports::http_redirect,
    transports::tap::{Direction, Fidelity, ProtocolTap},
};

/// The largest response body accepted (a huge structured result is one body).
const MAX_RESPONSE_BYTES: usize = 512 * 1024 * 1024;

/// The transport of an HTTP session: requests carry the token `tokens` hands out, if any
/// (it refreshes one that is about to expire, and once after a 401, before the 401 is given
/// up on); without a sign-in it hands out none.
pub type HttpTransport = OutgoingTap<StreamableHttpClientTransport<AuthClient<CapturingClient>>>;

/// Builds the transport for an HTTP server config.
pub fn transport(
    config: &ServerConfig,
    tap: &ProtocolTap,
    raw: &RawResponses,
    tokens: AuthorizationManager,
    dpop: Option<Arc<DpopPresenter>>,
) -> Result<HttpTransport, SessionError> {
    let ServerConfig::Http { url, headers, .. } = config else {
        return Err(SessionError::InvalidConfig("not an HTTP server".to_owned()));
    };
    crate::tls::install_crypto_provider();
    let parsed = reqwest::Url::parse(url)
        .map_err(|error| SessionError::InvalidConfig(format!("{url:?} is not a URL: {error}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(SessionError::InvalidConfig(format!(
            "{url:?} is not an http:// or https:// URL"
        )));
    }
    let custom_headers = custom_headers(headers)?;
    let mut transport_config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
    transport_config.custom_headers = custom_headers;
    transport_config.max_json_response_size = MAX_RESPONSE_BYTES;
    transport_config.max_sse_event_size = MAX_RESPONSE_BYTES;
    transport_config.retry_config = Arc::new(resume_policy());
    let client = CapturingClient {
        inner: client()?,
        tap: tap.clone(),
        raw: raw.clone(),
        dpop,
    };
    Ok(OutgoingTap {
        inner: StreamableHttpClientTransport::with_client(
            AuthClient::new(client, tokens),
            transport_config,
        ),
        tap: tap.clone(),
    })
}

/// How an SSE stream that ends before its response is resumed (GET with `Last-Event-ID`, as
/// the transport spec says): at the server's `retry:` interval if it sent one, else after
/// 0.5 s, 1 s, 2 s… for a few attempts, so a server that never resumes fails the call instead
/// of being retried forever.
fn resume_policy() -> ExponentialBackoff {
    let mut policy = ExponentialBackoff::default();
    policy.max_times = Some(5);
    policy.base_duration = Duration::from_millis(500);
    policy.max_delay = Some(Duration::from_secs(5));
    policy
}

/// Checks that the URL's host resolves and accepts TCP connections, so the common failures get a
/// plain message (rmcp reports them wrapped in its transport's type names).
pub async fn preflight(url: &str) -> Result<(), SessionError> {
    let unreachable = |reason: String| SessionError::Unreachable {
        url: url.to_owned(),
        reason,
    };
    let parsed = reqwest::Url::parse(url)
        .map_err(|error| SessionError::InvalidConfig(format!("{url:?} is not a URL: {error}")))?;
    let host = parsed
        .host_str()
        .ok_or_else(|| SessionError::InvalidConfig(format!("{url:?} has no host")))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = parsed.port_or_known_default().unwrap_or(80);
    let lookup = tokio::time::timeout(
        Duration::from_secs(10),
        tokio::net::lookup_host((host.as_str(), port)),
    );
    let addresses: Vec<_> = match lookup.await {
        Ok(Ok(addresses)) => addresses.collect(),
        Ok(Err(error)) => {
            return Err(unreachable(format!(
                "the host name {host:?} could not be resolved ({error})"
            )));
        }
        Err(_) => return Err(unreachable(format!("looking up {host:?} timed out"))),
    };
    let Some(address) = addresses.first() else {
        return Err(unreachable(format!(
            "the host name {host:?} has no address"
        )));
    };
    match tokio::time::timeout(
        Duration::from_secs(10),
        tokio::net::TcpStream::connect(address),
    )
    .await
    {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(error)) if error.kind() == std::io::ErrorKind::ConnectionRefused => {
            Err(unreachable(format!(
                "connection refused: nothing is listening on {address}. Is the server running, and is the port right?"
            )))
        }
        Ok(Err(error)) => Err(unreachable(format!("cannot connect to {address}: {error}"))),
        Err(_) => Err(unreachable(format!("connecting to {address} timed out"))),
    }
}

/// The reqwest client of a session: redirects only within the origin (see `http_redirect`).
pub fn client() -> Result<reqwest::Client, SessionError> {
    crate::tls::install_crypto_provider();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .redirect(http_redirect::policy())
        .build()
        .map_err(|error| SessionError::InvalidConfig(format!("HTTP client: {error}")))
}

/// The user's configured headers, checked.
pub fn custom_headers(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<HashMap<http::HeaderName, http::HeaderValue>, SessionError> {
    let mut custom_headers = HashMap::new();
    for (name, value) in headers {
        let header_name = http::HeaderName::try_from(name.as_str()).map_err(|_| {
            SessionError::InvalidConfig(format!("{name:?} is not a valid header name"))
        })?;
        let header_value = http::HeaderValue::try_from(value.as_str()).map_err(|_| {
            SessionError::InvalidConfig(format!("the value of header {name:?} is not valid"))
        })?;
        custom_headers.insert(header_name, header_value);
    }
    Ok(custom_headers)
}

/// A transport that logs every message it sends.
pub struct OutgoingTap<T> {
    inner: T,
    tap: ProtocolTap,
}

impl<T> Transport<RoleClient> for OutgoingTap<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let Ok(text) = serde_json::to_string(&item)
            && let Ok(message) = crate::json_doc::JsonDoc::parse(text)
        {
            self.tap.record_message(
                Direction::ToServer,
                Fidelity::Exact,
                message.text(),
                Some(message.root()),
            );
        }
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
