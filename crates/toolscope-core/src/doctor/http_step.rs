//! The HTTP step of a URL: the session's first request (`server/discover`) posted once with
//! the server's headers, redirects not followed, and the answer judged as HTTP only (status,
//! content type, where a redirect points); what it means for MCP is the handshake's to say.

use std::collections::BTreeMap;

use reqwest::header::{CONTENT_TYPE, LOCATION, WWW_AUTHENTICATE};

use super::{Failed, STEP_TIMEOUT, Step, timed};
use crate::session::transports::{
    discover_probe::discover_message, http::custom_headers, http_discover_probe::probe_headers,
};

/// How much of an error answer's body is quoted.
const QUOTED_BODY_CHARS: usize = 200;

/// What the HTTP answer leaves for the next steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpAnswer {
    pub status: u16,
    /// `WWW-Authenticate`, as sent.
    pub challenge: Option<String>,
}

impl HttpAnswer {
    /// The server wants credentials first.
    pub fn wants_credentials(&self) -> bool {
        matches!(self.status, 401 | 403)
    }
}

/// Posts the probe to `url` with `headers` (and `bearer`, a kept token, when there is one).
pub async fn http_step(
    url: &str,
    headers: &BTreeMap<String, String>,
    bearer: Option<&str>,
) -> (Step, Option<HttpAnswer>) {
    timed("http", probe(url, headers, bearer)).await
}

async fn probe(
    url: &str,
    headers: &BTreeMap<String, String>,
    bearer: Option<&str>,
) -> Result<(HttpAnswer, String), Failed> {
    let mut custom = custom_headers(headers).map_err(|error| {
        Failed::new(error.to_string(), "fix the header in the server's settings")
    })?;
    crate::tls::install_crypto_provider();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(STEP_TIMEOUT)
        .build()
        .map_err(|error| Failed::new(error.to_string(), "this build's HTTP client cannot start"))?;
    let identity = crate::session::asks::client_handler::toolscope_identity();
    let body = serde_json::to_string(&discover_message(&identity, &Default::default()))
        .unwrap_or_default();
    // A kept token goes with it as the session's own probe sends it; a header given wins.
    if let Some(token) = bearer
        && let Ok(value) = http::HeaderValue::try_from(format!("Bearer {token}"))
    {
        custom.entry(http::header::AUTHORIZATION).or_insert(value);
    }
    let request = client.post(url).headers(probe_headers(&custom));
    let response = request.body(body).send().await.map_err(|error| {
        let why = crate::error_chain::error_chain(&error);
        if error.is_timeout() {
            Failed::new(
                format!("no HTTP answer within {} s: {why}", STEP_TIMEOUT.as_secs()),
                "the server accepted the connection but never answered: is it busy, or not HTTP?",
            )
        } else {
            Failed::new(
                format!("the request failed: {why}"),
                "the port may not speak HTTP (or speaks TLS: try https://)",
            )
        }
    })?;
    let status = response.status();
    let header = |name| {
        response
            .headers()
            .get(name)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
    };
    let content_type = header(CONTENT_TYPE).unwrap_or_default();
    let location = header(LOCATION);
    let challenge = header(WWW_AUTHENTICATE);
    let seen = format!(
        "HTTP {}{}",
        status,
        if content_type.is_empty() {
            String::new()
        } else {
            format!(", {content_type}")
        }
    );
    let answer = HttpAnswer {
        status: status.as_u16(),
        challenge,
    };
    if status.is_redirection() {
        let to = location.unwrap_or_else(|| "nowhere (no Location)".to_owned());
        return Err(Failed::new(
            format!("{seen}: redirected to {to}"),
            "use the URL the redirect points at (Toolscope follows no redirect to another origin, \
             and a POST is not re-sent across one)",
        ));
    }
    if status.is_success() {
        let media = content_type.split(';').next().unwrap_or("").trim();
        if media != "application/json" && media != "text/event-stream" {
            return Err(Failed::new(
                format!("{seen}: not JSON or an event stream"),
                "this URL serves something else (a web page?): check the path of the MCP \
                 endpoint (often /mcp)",
            ));
        }
        return Ok((answer, seen));
    }
    if answer.wants_credentials() {
        return Ok((answer, format!("{seen}: credentials wanted")));
    }
    let quoted = quoted_body(response).await;
    match status.as_u16() {
        404 => Err(Failed::new(
            format!("{seen}: nothing at this path{quoted}"),
            "check the path of the MCP endpoint (often /mcp)",
        )),
        405 => Err(Failed::new(
            format!("{seen}: POST is not allowed here{quoted}"),
            "an older server may speak HTTP+SSE (2024-11-05), which Toolscope does not: use its \
             Streamable HTTP endpoint, or run it over stdio",
        )),
        // A server that wants `initialize` first, or fails at it, answers so: the handshake's
        // step says what it means.
        _ => Ok((answer, format!("{seen}{quoted}"))),
    }
}

/// `: "first line of the body"`, bounded, or nothing.
async fn quoted_body(response: reqwest::Response) -> String {
    let Ok(body) = tokio::time::timeout(STEP_TIMEOUT, response.bytes()).await else {
        return String::new();
    };
    let Ok(body) = body else {
        return String::new();
    };
    let text = String::from_utf8_lossy(&body[..body.len().min(4096)]).into_owned();
    let line = text
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("");
    if line.is_empty() {
        return String::new();
    }
    let cut: String = line.trim().chars().take(QUOTED_BODY_CHARS).collect();
    format!(": \"{cut}\"")
}
