//! The redirect target of a sign-in: a listener on 127.0.0.1 (RFC 8252 §7.3) that exists only
//! while the flow waits for the browser to come back, and takes the one request to /callback
//! that carries this sign-in's `state`. Connections are served side by side: a browser's
//! speculative connection that never sends anything, or a stale tab of an earlier sign-in,
//! does not hold up the real callback.

use std::time::Duration;

use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    net::{TcpListener, TcpStream},
};
use tokio_util::sync::CancellationToken;

/// The path the authorization server redirects to.
const CALLBACK_PATH: &str = "/callback";
/// A browser's request head is small; more is not a browser.
const MAX_REQUEST_BYTES: usize = 16 * 1024;
/// How long one connection may take to send its request.
const REQUEST_LIMIT: Duration = Duration::from_secs(10);
/// Connections served at once (more wait to be accepted).
const MAX_CONNECTIONS: usize = 16;

/// A listening redirect target.
pub struct Loopback {
    listener: TcpListener,
    redirect_uri: String,
}

/// Why no callback came.
#[derive(Debug)]
pub enum WaitError {
    /// Nothing of this sign-in came back in time; `stale` redirects of another state did.
    TimedOut {
        after: Duration,
        stale: usize,
    },
    Cancelled,
    Failed(String),
}

impl Loopback {
    /// Listens on `127.0.0.1:port`, or on a random free port when `port` is 0 or taken.
    pub async fn bind(port: u16) -> Result<Self, std::io::Error> {
        let listener = match TcpListener::bind(("127.0.0.1", port)).await {
            Ok(listener) => listener,
            Err(_) if port != 0 => TcpListener::bind(("127.0.0.1", 0)).await?,
            Err(error) => return Err(error),
        };
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener,
            redirect_uri: format!("http://127.0.0.1:{port}{CALLBACK_PATH}"),
        })
    }

    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Waits for the browser's request to the callback with `state` (when given) and answers
    /// it with a page telling the user to go back to Toolscope. Returns the whole callback URL.
    /// Other requests (a favicon, a probe, a callback of another sign-in) are answered and the
    /// wait goes on. The listener closes when this returns.
    pub async fn wait(
        self,
        state: Option<&str>,
        limit: Duration,
        cancel: &CancellationToken,
    ) -> Result<String, WaitError> {
        let state: Option<std::sync::Arc<str>> = state.map(Into::into);
        let stale = std::sync::atomic::AtomicUsize::new(0);
        let accept_loop = async {
            let mut serving = tokio::task::JoinSet::new();
            loop {
                tokio::select! {
                    accepted = self.listener.accept(), if serving.len() < MAX_CONNECTIONS => {
                        let (stream, _) = accepted.map_err(|error| {
                            WaitError::Failed(format!("the redirect listener: {error}"))
                        })?;
                        let state = state.clone();
                        serving.spawn(async move {
                            tokio::time::timeout(REQUEST_LIMIT, answer(stream, state.as_deref()))
                                .await
                                .unwrap_or(Answered::Other)
                        });
                    }
                    Some(served) = serving.join_next() => match served {
                        Ok(Answered::Callback(target)) => {
                            return Ok(format!("http://{}{target}", self.host()));
                        }
                        Ok(Answered::Stale) => {
                            stale.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        _ => {}
                    }
                }
            }
        };
        tokio::select! {
            result = accept_loop => result,
            () = tokio::time::sleep(limit) => Err(WaitError::TimedOut {
                after: limit,
                stale: stale.load(std::sync::atomic::Ordering::Relaxed),
            }),
            () = cancel.cancelled() => Err(WaitError::Cancelled),
        }
    }

    fn host(&self) -> &str {
        self.redirect_uri
            .trim_start_matches("http://")
            .trim_end_matches(CALLBACK_PATH)
    }
}

/// What one connection brought.
enum Answered {
    /// The callback of this sign-in (its request target).
    Callback(String),
    /// A callback with another state.
    Stale,
    /// Anything else (a favicon, a probe, nothing).
    Other,
}

/// Reads one request head and answers it.
async fn answer(mut stream: TcpStream, state: Option<&str>) -> Answered {
    let mut head = Vec::new();
    let mut buffer = [0u8; 2048];
    while !head.windows(4).any(|window| window == b"\r\n\r\n") {
        let Ok(read) = stream.read(&mut buffer).await else {
            return Answered::Other;
        };
        if read == 0 || head.len() + read > MAX_REQUEST_BYTES {
            return Answered::Other;
        }
        head.extend_from_slice(&buffer[..read]);
    }
    let head = String::from_utf8_lossy(&head);
    let mut words = head.lines().next().unwrap_or_default().split_whitespace();
    let (Some(method), Some(target)) = (words.next(), words.next()) else {
        return Answered::Other;
    };
    let path = target.split('?').next().unwrap_or_default();
    if method != "GET" || path != CALLBACK_PATH {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .await;
        return Answered::Other;
    }
    let query = |name: &str| {
        url::Url::parse(&format!("http://127.0.0.1{target}"))
            .ok()
            .and_then(|url| {
                url.query_pairs()
                    .find(|(key, _)| key == name)
                    .map(|(_, value)| value.into_owned())
            })
    };
    // A redirect of another sign-in (a stale tab, a forged link) is not this one's answer.
    let ours = state.is_none_or(|state| query("state").as_deref() == Some(state));
    let (status, page) = if ours {
        ("200 OK", page(query("error").as_deref()))
    } else {
        ("400 Bad Request", stale_page())
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    if ours {
        Answered::Callback(target.to_owned())
    } else {
        Answered::Stale
    }
}

fn stale_page() -> String {
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>Toolscope sign-in</title></head>\
     <body style=\"font-family:sans-serif;margin:3em\"><h1>Toolscope</h1><p>This page belongs \
     to another sign-in (an earlier one, or a link Toolscope did not make), so it was not used. \
     Finish the sign-in in the tab Toolscope opened last.</p></body></html>"
        .to_owned()
}

fn page(refused: Option<&str>) -> String {
    let message = match refused {
        // The error code is the server's: only its safe characters are shown.
        Some(error) => format!(
            "The sign-in was refused ({}). Go back to Toolscope to see why.",
            error
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                .take(64)
                .collect::<String>()
        ),
        None => "Toolscope has what it needs. You can close this tab and go back.".to_owned(),
    };
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Toolscope sign-in</title>\
         </head><body style=\"font-family:sans-serif;margin:3em\"><h1>Toolscope</h1><p>{message}\
         </p></body></html>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(uri: &str) -> String {
        let address = uri.trim_start_matches("http://");
        let (host, path) = address.split_at(address.find('/').unwrap_or(address.len()));
        let mut stream = TcpStream::connect(host).await.expect("connects");
        stream
            .write_all(format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes())
            .await
            .expect("sends");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.expect("reads");
        answer
    }

    #[tokio::test]
    async fn takes_the_callback_and_ignores_the_rest() {
        let loopback = Loopback::bind(0).await.expect("listens");
        let uri = loopback.redirect_uri().to_owned();
        assert!(uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback"));
        let base = uri.trim_end_matches("/callback").to_owned();
        let waiting = tokio::spawn(async move {
            loopback
                .wait(
                    Some("xyz"),
                    Duration::from_secs(10),
                    &CancellationToken::new(),
                )
                .await
        });
        // A connection that never sends a request does not hold up the others.
        let _silent = TcpStream::connect(base.trim_start_matches("http://"))
            .await
            .expect("connects");
        assert!(
            get(&format!("{base}/favicon.ico"))
                .await
                .starts_with("HTTP/1.1 404")
        );
        // Another sign-in's redirect is answered, and the wait goes on.
        let stale = get(&format!("{uri}?code=old&state=earlier")).await;
        assert!(stale.starts_with("HTTP/1.1 400") && stale.contains("another sign-in"));
        let page = get(&format!("{uri}?code=abc&state=xyz")).await;
        assert!(page.starts_with("HTTP/1.1 200") && page.contains("close this tab"));
        let callback = waiting.await.expect("joins").expect("a callback");
        assert_eq!(callback, format!("{uri}?code=abc&state=xyz"));
        // The listener is gone once the flow has its callback.
        assert!(
            TcpStream::connect(base.trim_start_matches("http://"))
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn gives_up_when_told_or_late() {
        let loopback = Loopback::bind(0).await.expect("listens");
        let cancel = CancellationToken::new();
        cancel.cancel();
        let waited = loopback.wait(None, Duration::from_secs(10), &cancel).await;
        assert!(matches!(waited, Err(WaitError::Cancelled)));
        let loopback = Loopback::bind(0).await.expect("listens");
        let waited = loopback
            .wait(None, Duration::from_millis(50), &CancellationToken::new())
            .await;
        assert!(matches!(waited, Err(WaitError::TimedOut { stale: 0, .. })));
    }
}
