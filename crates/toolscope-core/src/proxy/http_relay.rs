//! `toolscope proxy --url`: a local Streamable HTTP endpoint in front of a remote server.
//! Each request is forwarded with its headers (`Mcp-Session-Id`, `MCP-Protocol-Version`,
//! `Last-Event-ID`…) and the answer streamed back as it arrives (an SSE stream event by
//! event), bytes unchanged. The listener is on loopback only and refuses a request whose
//! `Host` or `Origin` is not this machine (DNS rebinding). Where the remote server wants OAuth,
//! a token source adds the token (the client sees a local server without auth). What passes
//! is offered to a recorder per MCP session, as the stdio relay offers lines.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use bytes::Bytes;
use futures::StreamExt as _;
use http_body_util::{BodyExt as _, StreamBody, combinators::UnsyncBoxBody};
use hyper::{Request, Response, StatusCode, body::Frame, body::Incoming, service::service_fn};
use hyper_util::{rt::TokioExecutor, rt::TokioIo, server::conn::auto};
use tokio_util::sync::CancellationToken;

use super::{RelayEnd, Traffic, TrafficSide};

/// A request body bigger than this is refused (a client's JSON-RPC messages are small).
const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// Headers that belong to one hop, never forwarded (RFC 9110 §7.6.1), and those the relay
/// sets itself.
const NOT_FORWARDED: [&str; 11] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "origin",
];

/// Where the token for the remote server comes from (OAuth), when it wants one.
#[async_trait::async_trait]
pub trait BearerSource: Send + Sync {
    /// The access token to send now, if there is one.
    async fn token(&self) -> Option<String>;
    /// The server refused the token (a 401 with this challenge): sign in again; true when
    /// the request is worth sending once more.
    async fn refused(&self, challenge: Option<&str>) -> bool;
}

/// Starts a recorder for a new MCP session (the relay offers it what passes).
pub type NewRecording = Arc<dyn Fn() -> Traffic + Send + Sync>;

/// The remote server and what to add on the way.
pub struct HttpRelay {
    pub upstream: reqwest::Url,
    /// Headers the user gave (`--header`), added to every request.
    pub headers: Vec<(http::HeaderName, http::HeaderValue)>,
    pub bearer: Option<Arc<dyn BearerSource>>,
    pub recording: Option<NewRecording>,
    pub client: reqwest::Client,
}

type ProxyBody = UnsyncBoxBody<Bytes, std::io::Error>;

/// The MCP sessions seen, each with its recorder (by `Mcp-Session-Id`; "" for requests
/// without one).
struct Recorders {
    new: Option<NewRecording>,
    sessions: Mutex<HashMap<String, Traffic>>,
}

impl Recorders {
    fn traffic(&self, session: &str) -> Option<Traffic> {
        let new = self.new.as_ref()?;
        let mut sessions = self
            .sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Some(
            sessions
                .entry(session.to_owned())
                .or_insert_with(|| new())
                .clone(),
        )
    }

    fn end(&self, session: &str, how: &str) {
        let ended = self
            .sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(session);
        if let Some(traffic) = ended {
            traffic.ended(&http_end(how));
        }
    }

    fn end_all(&self, how: &str) {
        let all: Vec<Traffic> = self
            .sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .drain()
            .map(|(_, traffic)| traffic)
            .collect();
        for traffic in all {
            traffic.ended(&http_end(how));
        }
    }
}

fn http_end(how: &str) -> RelayEnd {
    RelayEnd {
        client_left: true,
        server_exit: Some(how.to_owned()),
        server_code: None,
    }
}

/// Serves on `listener` until `stop`; every MCP session's recording ends then.
pub async fn serve(
    relay: HttpRelay,
    listener: tokio::net::TcpListener,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let port = listener.local_addr()?.port();
    let recorders = Arc::new(Recorders {
        new: relay.recording.clone(),
        sessions: Mutex::new(HashMap::new()),
    });
    let relay = Arc::new(relay);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => break,
        };
        let Ok((stream, _)) = accepted else {
            continue;
        };
        let (relay, recorders) = (Arc::clone(&relay), Arc::clone(&recorders));
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                let (relay, recorders) = (Arc::clone(&relay), Arc::clone(&recorders));
                async move {
                    Ok::<_, std::convert::Infallible>(
                        forward(&relay, &recorders, request, port).await,
                    )
                }
            });
            let _ = auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
    recorders.end_all("the proxy stopped");
    Ok(())
}

/// A plain answer of the relay's own.
fn answer(status: StatusCode, text: &str) -> Response<ProxyBody> {
    let body = http_body_util::Full::new(Bytes::from(text.to_owned()))
        .map_err(|never| match never {})
        .boxed_unsync();
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Whether `host` (a `Host` header, or an `Origin`'s host and port) names this machine.
fn is_local(host: &str, port: u16) -> bool {
    let port = port.to_string();
    ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .any(|name| host == *name || host == format!("{name}:{port}"))
}

/// Refuses what did not come from this machine's own pages or clients: a `Host` that is not
/// loopback (a DNS rebinding page), an `Origin` of another site.
fn refused(request: &Request<Incoming>, port: u16) -> Option<String> {
    let host = request
        .headers()
        .get(http::header::HOST)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    if !is_local(host, port) {
        return Some(format!(
            "this proxy answers requests to 127.0.0.1:{port} or localhost:{port} only, not to \
             Host {host:?}"
        ));
    }
    let origin = request
        .headers()
        .get(http::header::ORIGIN)
        .and_then(|value| value.to_str().ok())?;
    (!is_local_origin(origin)).then(|| format!("requests from the origin {origin:?} are refused"))
}

/// Whether an `Origin` is a page of this machine, on any port (a local tool's own page).
fn is_local_origin(origin: &str) -> bool {
    reqwest::Url::parse(origin).is_ok_and(|origin| {
        matches!(origin.scheme(), "http" | "https")
            && matches!(
                origin.host(),
                Some(
                    url::Host::Domain("localhost")
                        | url::Host::Ipv4(std::net::Ipv4Addr::LOCALHOST)
                        | url::Host::Ipv6(std::net::Ipv6Addr::LOCALHOST)
                )
            )
    })
}

async fn forward(
    relay: &HttpRelay,
    recorders: &Recorders,
    request: Request<Incoming>,
    port: u16,
) -> Response<ProxyBody> {
    if let Some(why) = refused(&request, port) {
        return answer(StatusCode::FORBIDDEN, &why);
    }
    let (parts, body) = request.into_parts();
    let body = match http_body_util::Limited::new(body, MAX_REQUEST_BYTES)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            return answer(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("the request body could not be read: {error}"),
            );
        }
    };
    let session_sent = header_text(&parts.headers, "mcp-session-id");
    let mut url = relay.upstream.clone();
    if let Some(query) = parts.uri.query() {
        let joined = match url.query() {
            Some(own) => format!("{own}&{query}"),
            None => query.to_owned(),
        };
        url.set_query(Some(&joined));
    }
    let mut retried = false;
    let upstream = loop {
        let mut outgoing = relay
            .client
            .request(parts.method.clone(), url.clone())
            .body(body.clone());
        for (name, value) in &parts.headers {
            if !NOT_FORWARDED.contains(&name.as_str()) && name != http::header::CONTENT_LENGTH {
                outgoing = outgoing.header(name, value);
            }
        }
        for (name, value) in &relay.headers {
            outgoing = outgoing.header(name, value);
        }
        if let Some(bearer) = &relay.bearer
            && let Some(token) = bearer.token().await
        {
            outgoing = outgoing.bearer_auth(token);
        }
        let sent = match outgoing.send().await {
            Ok(sent) => sent,
            Err(error) => {
                return answer(
                    StatusCode::BAD_GATEWAY,
                    &format!(
                        "the server at {} could not be reached: {error}",
                        relay.upstream
                    ),
                );
            }
        };
        if sent.status() == StatusCode::UNAUTHORIZED
            && !retried
            && let Some(bearer) = &relay.bearer
        {
            let challenge = header_text(sent.headers(), "www-authenticate");
            if bearer.refused(challenge.as_deref()).await {
                retried = true;
                continue;
            }
        }
        break sent;
    };
    let session = session_sent
        .clone()
        .or_else(|| header_text(upstream.headers(), "mcp-session-id"))
        .unwrap_or_default();
    let traffic = recorders.traffic(&session);
    if let Some(traffic) = &traffic
        && !body.is_empty()
    {
        traffic.offer(TrafficSide::ToServer, &body);
    }
    let mut response = Response::builder().status(upstream.status());
    for (name, value) in upstream.headers() {
        if !NOT_FORWARDED.contains(&name.as_str()) {
            response = response.header(name, value);
        }
    }
    let event_stream = header_text(upstream.headers(), "content-type")
        .is_some_and(|kind| kind.starts_with("text/event-stream"));
    if parts.method == http::Method::DELETE && session_sent.is_some() {
        recorders.end(&session, "the client closed the session");
    }
    let mut messages = MessageTap::new(traffic, event_stream);
    let stream = upstream.bytes_stream().map(move |chunk| match chunk {
        Ok(bytes) => {
            messages.pass(&bytes);
            Ok(Frame::data(bytes))
        }
        Err(error) => Err(std::io::Error::other(error)),
    });
    response
        .body(StreamBody::new(stream).boxed_unsync())
        .unwrap_or_else(|error| answer(StatusCode::BAD_GATEWAY, &error.to_string()))
}

fn header_text(headers: &http::HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

/// Cuts what passes to the client into messages for the recorder: a JSON body whole once it
/// ended, an event stream event by event (its `data:` lines).
struct MessageTap {
    traffic: Option<Traffic>,
    event_stream: bool,
    pending: Vec<u8>,
}

impl MessageTap {
    fn new(traffic: Option<Traffic>, event_stream: bool) -> Self {
        Self {
            traffic,
            event_stream,
            pending: Vec::new(),
        }
    }

    fn pass(&mut self, bytes: &[u8]) {
        if self.traffic.is_none() {
            return;
        }
        self.pending.extend_from_slice(bytes);
        if self.event_stream {
            while let Some((end, gap)) = event_end(&self.pending) {
                let event: Vec<u8> = self.pending.drain(..end + gap).collect();
                self.offer_event(&event[..end]);
            }
        }
    }

    fn offer_event(&self, event: &[u8]) {
        let Some(traffic) = &self.traffic else { return };
        let text = String::from_utf8_lossy(event);
        let data: Vec<&str> = text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| data.strip_prefix(' ').unwrap_or(data))
            .collect();
        if !data.is_empty() && data.iter().any(|line| !line.is_empty()) {
            traffic.offer(TrafficSide::ToClient, data.join("\n").as_bytes());
        }
    }
}

impl Drop for MessageTap {
    /// The body ended: a JSON answer is whole now.
    fn drop(&mut self) {
        if let Some(traffic) = &self.traffic
            && !self.event_stream
            && !self.pending.is_empty()
        {
            traffic.offer(TrafficSide::ToClient, &self.pending);
        }
    }
}

/// Where the first event in `bytes` ends, and the blank line's length after it.
fn event_end(bytes: &[u8]) -> Option<(usize, usize)> {
    let lf = bytes
        .windows(2)
        .position(|pair| pair == b"\n\n")
        .map(|at| (at, 2));
    let crlf = bytes
        .windows(4)
        .position(|four| four == b"\r\n\r\n")
        .map(|at| (at, 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (one, other) => one.or(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_machine_is_answered() {
        assert!(is_local("127.0.0.1:6277", 6277));
        assert!(is_local("localhost:6277", 6277));
        assert!(is_local("[::1]:6277", 6277));
        assert!(is_local("localhost", 6277));
        assert!(!is_local("evil.example:6277", 6277));
        assert!(!is_local("127.0.0.1.evil.example:6277", 6277));
        assert!(!is_local("127.0.0.1:80", 6277));
        for local in [
            "http://localhost:6274",
            "http://127.0.0.1",
            "https://[::1]:3000",
        ] {
            assert!(is_local_origin(local), "{local}");
        }
        for foreign in [
            "http://attacker.example",
            "http://localhost.attacker.example",
            "null",
            "file://",
        ] {
            assert!(!is_local_origin(foreign), "{foreign}");
        }
    }

    #[test]
    fn an_event_stream_is_cut_into_its_events() {
        let (traffic, events) = Traffic::bounded(1024);
        let mut tap = MessageTap::new(Some(traffic), true);
        tap.pass(b"id: 1\ndata: {\"a\":");
        tap.pass(b"1}\n\n: keep-alive\n\r\ndata: {\"b\":2}\r\n\r\n");
        drop(tap);
        let texts: Vec<String> = std::iter::from_fn(|| events.try_recv())
            .filter_map(|event| match event {
                super::super::TrafficEvent::Line { bytes, .. } => {
                    Some(String::from_utf8(bytes).unwrap_or_default())
                }
                super::super::TrafficEvent::Ended { .. } => None,
            })
            .collect();
        assert_eq!(texts, ["{\"a\":1}", "{\"b\":2}"]);
    }
}
