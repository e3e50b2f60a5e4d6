//! The demo server over Streamable HTTP, for trying the HTTP transport (and for tests).

use super::DemoServerError;
use std::{net::SocketAddr, sync::Arc};

use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, body::Incoming, service::service_fn};
use hyper_util::{rt::TokioExecutor, rt::TokioIo, server::conn::auto};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tower_service::Service as _;

use super::DemoServer;

/// Serves on `address` until the process ends. Prints the URL on stdout once listening.
/// With `token`, requests without `Authorization: Bearer <token>` get a 401.
pub async fn serve_http(
    address: SocketAddr,
    token: Option<String>,
    extra_tools: usize,
) -> Result<(), DemoServerError> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| DemoServerError::Listen {
            address,
            reason: error.to_string(),
        })?;
    let bound = listener
        .local_addr()
        .map_err(|error| DemoServerError::Address(error.to_string()))?;
    println!("toolscope demo server listening on http://{bound}/mcp");
    let mcp = StreamableHttpService::new(
        move || Ok(DemoServer::with_extra_tools(extra_tools)),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let expected = token.map(|token| format!("Bearer {token}"));
    loop {
        let (stream, _) = listener
            .accept()
            .await
            .map_err(|error| DemoServerError::Stopped(format!("accept failed: {error}")))?;
        let mcp = mcp.clone();
        let expected = expected.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                let mut mcp = mcp.clone();
                let authorized = expected.as_ref().is_none_or(|expected| {
                    request
                        .headers()
                        .get(hyper::header::AUTHORIZATION)
                        .and_then(|value| value.to_str().ok())
                        == Some(expected.as_str())
                });
                async move {
                    if !authorized {
                        let body = Full::new(bytes::Bytes::from_static(b"unauthorized"))
                            .map_err(|never| match never {})
                            .boxed_unsync();
                        let mut response = Response::new(body);
                        *response.status_mut() = hyper::StatusCode::UNAUTHORIZED;
                        response.headers_mut().insert(
                            hyper::header::WWW_AUTHENTICATE,
                            hyper::header::HeaderValue::from_static(
                                "Bearer realm=\"toolscope-demo\"",
                            ),
                        );
                        return Ok::<_, std::convert::Infallible>(response);
                    }
                    let response = mcp.call(request).await?;
                    let (parts, body) = response.into_parts();
                    Ok(Response::from_parts(parts, body.boxed_unsync()))
                }
            });
            let _ = auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
