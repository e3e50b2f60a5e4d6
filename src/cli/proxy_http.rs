//! `toolscope proxy --url URL --listen 127.0.0.1:PORT`: a local Streamable HTTP endpoint in
//! front of a remote server, for a client configured with a URL. The client sees a local
//! server without auth; Toolscope signs in where the remote server wants OAuth (its usual
//! flow, tokens kept in the secret store) and adds the token. Each MCP session through it is
//! kept in the history as the stdio proxy keeps one.

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use super::{CliError, EXIT_OK, output::say, proxy_command::ProxyArgs};
use toolscope_core::{
    proxy::{self, NewRecording},
    session::config::url_label,
};

/// Where the local endpoint listens unless told: the port the MCP Inspector's proxy uses.
const DEFAULT_LISTEN: std::net::SocketAddr =
    std::net::SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 6277);

pub async fn run(args: ProxyArgs) -> Result<u8, CliError> {
    let Some(url) = args.url.clone() else {
        return Err("--url is needed".into());
    };
    let options = args.sign_in.options()?;
    if options.extensions.dpop {
        // The relay hands the upstream server a bearer token on the client's requests.
        return Err(
            "--oauth-dpop is not supported by the proxy: it relays requests with a bearer token"
                .into(),
        );
    }
    // One recorder per MCP session; their threads are waited for at the end.
    let recorders = Arc::new(Mutex::new(Vec::new()));
    let recording: Option<NewRecording> = (!args.no_history).then(|| {
        let label = args.label();
        let history = args.history.clone();
        let recorders = Arc::clone(&recorders);
        let new: NewRecording = Arc::new(move || {
            let (traffic, recorder) = super::proxy_command::start_recording(
                label.clone(),
                history.clone(),
                toolscope_core::telemetry::Transport::Tcp,
            );
            recorders
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push((traffic.clone(), recorder));
            traffic
        });
        new
    });
    let said = Arc::new(|problem: String| say(&format!("toolscope proxy: {problem}")));
    let (relay, signing_in) = proxy::http_relay(&url, &args.headers, &options, recording, said)?;
    let listen = args.listen.unwrap_or(DEFAULT_LISTEN);
    let listener = proxy::listen_locally(listen).await?;
    let bound = listener.local_addr().map_or(listen, |bound| bound);
    say(&format!(
        "toolscope proxy: {} is served at http://{bound}/mcp (Ctrl+C stops)",
        url_label(&url)
    ));
    let stop = CancellationToken::new();
    let stopping = stop.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stopping.cancel();
        }
    });
    let served = proxy::http_relay::serve(relay, listener, stop).await;
    signing_in.cancel();
    let ended: Vec<_> = recorders
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .drain(..)
        .collect();
    for (traffic, recorder) in ended {
        super::proxy_command::traffic_end(traffic, recorder);
    }
    served.map_err(|error| error.to_string())?;
    Ok(EXIT_OK)
}
