//! The app host's two loopback listeners. The host page's (`http://127.0.0.1:P`) serves the
//! page, an event stream of what goes to the app, and takes what the app sends and the
//! browser's CSP reports; the sandbox's (`http://localhost:Q`, another site) serves only the
//! sandbox proxy, under the app's Content Security Policy. Every path carries the run's
//! unguessable token; `Host` and `Origin` are checked as the HTTP proxy checks them.

use std::{
    convert::Infallible,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use bytes::Bytes;
use futures::StreamExt as _;
use http::{HeaderValue, Request, Response, StatusCode, header};
use http_body_util::{BodyExt as _, Full, StreamBody, combinators::UnsyncBoxBody};
use hyper::body::{Frame, Incoming};
use hyper_util::{
    rt::{TokioExecutor, TokioIo},
    server::conn::auto,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The largest message an app may send at once.
pub const MAX_APP_MESSAGE_BYTES: usize = 4 << 20;
/// How many messages a second an app may send; more are dropped and said.
pub const MAX_APP_MESSAGES_PER_SECOND: u32 = 500;

type Body = UnsyncBoxBody<Bytes, Infallible>;

/// What the listeners hand to the app's host.
#[derive(Debug)]
pub(super) enum Arrived {
    FromApp(serde_json::Value),
    CspReport(serde_json::Value),
    /// A message refused at the door (too large, a flood): what happened.
    Refused(String),
    PageOpened,
    PageClosed,
}

/// What both listeners share with the host.
pub(super) struct Door {
    pub token: String,
    pub host_origin: String,
    pub host_authority: String,
    pub sandbox_authority: String,
    pub host_page: String,
    pub sandbox_page: String,
    pub sandbox_csp: String,
    pub host_csp: String,
    pub arrived: mpsc::UnboundedSender<Arrived>,
    /// The page's event stream, while one is open, and what waits for it.
    page: Mutex<PageLink>,
    rate: Mutex<(Instant, u32, u32)>,
}

#[derive(Default)]
struct PageLink {
    stream: Option<mpsc::UnboundedSender<String>>,
    waiting: Vec<String>,
    /// Counts the streams opened (and the pages said closed): a stream that ends says the
    /// page closed only while it is still the page's.
    generation: u64,
}

/// How often the page's event stream carries a comment when nothing else goes to it: a
/// browser killed without saying the page closed is noticed when one cannot be written.
const KEEP_ALIVE: Duration = Duration::from_secs(5);

/// Held by a page's event stream: when the stream ends (the connection went away) and no
/// newer page took its place, the page is said closed.
struct PageGone {
    door: std::sync::Weak<Door>,
    generation: u64,
}

impl Drop for PageGone {
    fn drop(&mut self) {
        let Some(door) = self.door.upgrade() else {
            return;
        };
        let mut link = lock(&door.page);
        if link.generation == self.generation {
            link.generation += 1;
            link.stream = None;
            let _ = door.arrived.send(Arrived::PageClosed);
        }
    }
}

impl Door {
    #[allow(
        clippy::too_many_arguments,
        reason = "the door's fixed parts, each named"
    )]
    pub fn new(
        token: String,
        host_origin: String,
        host_authority: String,
        sandbox_authority: String,
        host_page: String,
        sandbox_page: String,
        sandbox_csp: String,
        host_csp: String,
        arrived: mpsc::UnboundedSender<Arrived>,
    ) -> Self {
        Self {
            token,
            host_origin,
            host_authority,
            sandbox_authority,
            host_page,
            sandbox_page,
            sandbox_csp,
            host_csp,
            arrived,
            page: Mutex::new(PageLink::default()),
            rate: Mutex::new((Instant::now(), 0, 0)),
        }
    }

    /// Sends `event` (JSON text) to the page, or keeps it until the page is there.
    pub fn to_page(&self, event: String) {
        let mut link = lock(&self.page);
        if let Some(stream) = &link.stream
            && stream.send(event.clone()).is_ok()
        {
            return;
        }
        link.stream = None;
        link.waiting.push(event);
    }

    /// Whether one more message fits this second; the count dropped in the last one that
    /// overflowed, once a second.
    fn admit(&self) -> (bool, Option<u32>) {
        let mut rate = lock(&self.rate);
        let (since, count, dropped) = &mut *rate;
        let mut said = None;
        if since.elapsed() >= Duration::from_secs(1) {
            if *dropped > 0 {
                said = Some(*dropped);
            }
            *since = Instant::now();
            *count = 0;
            *dropped = 0;
        }
        *count += 1;
        if *count > MAX_APP_MESSAGES_PER_SECOND {
            *dropped += 1;
            return (false, said);
        }
        (true, said)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Serves `listener` as the host page's (`sandbox` false) or the sandbox's until `stop`.
pub(super) async fn serve(
    door: Arc<Door>,
    listener: tokio::net::TcpListener,
    sandbox: bool,
    stop: CancellationToken,
) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => break,
        };
        let Ok((stream, _)) = accepted else { continue };
        let door = Arc::clone(&door);
        let stop = stop.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let door = Arc::clone(&door);
                async move {
                    Ok::<_, Infallible>(if sandbox {
                        sandbox_route(&door, &request)
                    } else {
                        host_route(&door, request).await
                    })
                }
            });
            let builder = auto::Builder::new(TokioExecutor::new());
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = connection => {}
                () = stop.cancelled() => {}
            }
        });
    }
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text.to_owned())).boxed_unsync());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

fn html(page: &str, csp: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(page.to_owned())).boxed_unsync());
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(csp) = HeaderValue::from_str(csp) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    response
}

fn host_of<B>(request: &Request<B>) -> &str {
    request
        .headers()
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
}

fn sandbox_route<B>(door: &Door, request: &Request<B>) -> Response<Body> {
    if host_of(request) != door.sandbox_authority {
        return plain(
            StatusCode::FORBIDDEN,
            "this address serves an app's sandbox only",
        );
    }
    if request.method() != http::Method::GET
        || request.uri().path() != format!("/{}/sandbox.html", door.token)
    {
        return plain(StatusCode::NOT_FOUND, "no such page");
    }
    html(&door.sandbox_page, &door.sandbox_csp)
}

async fn host_route(door: &Arc<Door>, request: Request<Incoming>) -> Response<Body> {
    if host_of(&request) != door.host_authority {
        return plain(
            StatusCode::FORBIDDEN,
            "this address answers to its own name only (a page of another site was refused)",
        );
    }
    let path = request.uri().path().to_owned();
    let Some(rest) = path
        .strip_prefix('/')
        .and_then(|path| path.strip_prefix(door.token.as_str()))
    else {
        return plain(
            StatusCode::NOT_FOUND,
            "no such page: the address needs its token",
        );
    };
    let origin = request
        .headers()
        .get(header::ORIGIN)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    match (request.method().clone(), rest) {
        (http::Method::GET, "/" | "") => html(&door.host_page, &door.host_csp),
        (http::Method::GET, "/events") => events(door),
        (http::Method::POST, "/from-app") => {
            if origin.as_deref() != Some(door.host_origin.as_str()) {
                return plain(
                    StatusCode::FORBIDDEN,
                    "messages come from the host page only",
                );
            }
            let (admitted, dropped) = door.admit();
            if let Some(dropped) = dropped {
                let _ = door.arrived.send(Arrived::Refused(format!(
                    "{dropped} message(s) from the app were dropped: it sent more than \
                     {MAX_APP_MESSAGES_PER_SECOND} a second"
                )));
            }
            if !admitted {
                return plain(StatusCode::TOO_MANY_REQUESTS, "too many messages");
            }
            match read_json(request).await {
                Ok(message) => {
                    let _ = door.arrived.send(Arrived::FromApp(message));
                    plain(StatusCode::NO_CONTENT, "")
                }
                Err(why) => {
                    let _ = door.arrived.send(Arrived::Refused(why.to_string()));
                    plain(StatusCode::PAYLOAD_TOO_LARGE, &why.to_string())
                }
            }
        }
        // The browser posts these itself, from the sandbox's document (its origin, or none).
        (http::Method::POST, "/csp-report") => {
            if let Ok(report) = read_json(request).await {
                let _ = door.arrived.send(Arrived::CspReport(report));
            }
            plain(StatusCode::NO_CONTENT, "")
        }
        (http::Method::POST, "/closed") => {
            let mut link = lock(&door.page);
            // Said once: the stream that ends next is not the page's any more.
            link.generation += 1;
            link.stream = None;
            let _ = door.arrived.send(Arrived::PageClosed);
            plain(StatusCode::NO_CONTENT, "")
        }
        _ => plain(StatusCode::NOT_FOUND, "no such page"),
    }
}

/// One event as server-sent events frame it: a `data:` line per line of the event (JSON
/// text has none, but a value may).
fn event_frame(event: &str) -> String {
    let mut frame = String::new();
    for line in event.split('\n') {
        frame.push_str("data: ");
        frame.push_str(line);
        frame.push('\n');
    }
    frame.push('\n');
    frame
}

/// Why a message from the page was not taken.
#[derive(Debug, thiserror::Error)]
enum MessageRefused {
    #[error("a message from the app was refused: larger than {} MiB", MAX_APP_MESSAGE_BYTES >> 20)]
    TooLarge,
    #[error("a message from the app is not JSON: {0}")]
    NotJson(#[from] serde_json::Error),
}

/// A message's JSON, at most [`MAX_APP_MESSAGE_BYTES`].
async fn read_json(request: Request<Incoming>) -> Result<serde_json::Value, MessageRefused> {
    let limited = http_body_util::Limited::new(request.into_body(), MAX_APP_MESSAGE_BYTES);
    let bytes = limited
        .collect()
        .await
        .map_err(|_| MessageRefused::TooLarge)?;
    Ok(crate::deep_json::parse_slice(&bytes.to_bytes())?)
}

/// The page's event stream: what waited for it first, then each event as it comes, and a
/// comment every [`KEEP_ALIVE`] so a page gone without a word is noticed. A new stream (the
/// page reloaded) replaces the old one.
fn events(door: &Arc<Door>) -> Response<Body> {
    let (sender, receiver) = mpsc::unbounded_channel::<String>();
    let generation = {
        let mut link = lock(&door.page);
        for waiting in link.waiting.drain(..) {
            let _ = sender.send(waiting);
        }
        link.stream = Some(sender);
        link.generation += 1;
        link.generation
    };
    let _ = door.arrived.send(Arrived::PageOpened);
    let gone = PageGone {
        door: Arc::downgrade(door),
        generation,
    };
    let ticks = tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
    let stream = futures::stream::unfold(
        (receiver, ticks, gone),
        |(mut receiver, mut ticks, gone)| async move {
            let frame = tokio::select! {
                event = receiver.recv() => event_frame(&event?),
                _ = ticks.tick() => ": keep-alive\n\n".to_owned(),
            };
            Some((
                Ok::<_, Infallible>(Frame::data(Bytes::from(frame))),
                (receiver, ticks, gone),
            ))
        },
    )
    .boxed();
    let mut response = Response::new(StreamBody::new(stream).boxed_unsync());
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
