//! The redirect target of a sign-in: a listener on 127.0.0.1 (RFC 8252 §7.3) that exists only
//! while the flow waits for the browser to come back, and takes the one request to /callback.

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

/// A listening redirect target.
pub struct Loopback {
    listener: TcpListener,
    redirect_uri: String,
}

/// Why no callback came.
#[derive(Debug)]
pub enum WaitError {
    TimedOut(Duration),
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

    /// Waits for the browser's request to the callback and answers it with a page telling the
    /// user to go back to Toolscope. Returns the whole callback URL. Other requests (a
    /// favicon, a probe) get 404 and the wait goes on. The listener closes when this returns.
    pub async fn wait(
        self,
        limit: Duration,
        cancel: &CancellationToken,
    ) -> Result<String, WaitError> {
        let accept_loop = async {
            loop {
                let (stream, _) = self.listener.accept().await.map_err(|error| {
                    WaitError::Failed(format!("the redirect listener: {error}"))
                })?;
                if let Ok(Some(target)) = tokio::time::timeout(REQUEST_LIMIT, answer(stream)).await
                {
                    return Ok(format!("http://{}{target}", self.host()));
                }
            }
        };
        tokio::select! {
            result = accept_loop => result,
            () = tokio::time::sleep(limit) => Err(WaitError::TimedOut(limit)),
            () = cancel.cancelled() => Err(WaitError::Cancelled),
        }
    }

    fn host(&self) -> &str {
        self.redirect_uri
            .trim_start_matches("http://")
            .trim_end_matches(CALLBACK_PATH)
    }
}

/// Reads one request head; answers it. `Some(target)` for a GET of the callback.
async fn answer(mut stream: TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 2048];
    while !head.windows(4).any(|window| window == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 || head.len() + read > MAX_REQUEST_BYTES {
            return None;
        }
        head.extend_from_slice(&buffer[..read]);
    }
    let head = String::from_utf8_lossy(&head);
    let mut words = head.lines().next().unwrap_or_default().split_whitespace();
    let (method, target) = (words.next()?, words.next()?);
    let path = target.split('?').next().unwrap_or_default();
    if method != "GET" || path != CALLBACK_PATH {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .await;
        return None;
    }
    let refused = url::Url::parse(&format!("http://127.0.0.1{target}"))
        .ok()
        .and_then(|url| {
            url.query_pairs()
                .find(|(key, _)| key == "error")
                .map(|(_, value)| value.into_owned())
        });
    let page = page(refused.as_deref());
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    Some(target.to_owned())
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
                .wait(Duration::from_secs(10), &CancellationToken::new())
                .await
        });
        assert!(
            get(&format!("{base}/favicon.ico"))
                .await
                .starts_with("HTTP/1.1 404")
        );
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
        let waited = loopback.wait(Duration::from_secs(10), &cancel).await;
        assert!(matches!(waited, Err(WaitError::Cancelled)));
        let loopback = Loopback::bind(0).await.expect("listens");
        let waited = loopback
            .wait(Duration::from_millis(50), &CancellationToken::new())
            .await;
        assert!(matches!(waited, Err(WaitError::TimedOut(_))));
    }
}
