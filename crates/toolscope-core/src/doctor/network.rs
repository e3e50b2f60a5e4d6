//! The network steps of a URL's diagnosis: the name resolved to addresses, then a TCP
//! connection to one of them.

use std::net::SocketAddr;

use super::{Failed, STEP_TIMEOUT, Step, timed};

/// Resolves `host:port`; the addresses found.
pub async fn resolve_step(host: &str, port: u16) -> (Step, Option<Vec<SocketAddr>>) {
    let target = format!("{host}:{port}");
    timed("resolve", async {
        match tokio::time::timeout(STEP_TIMEOUT, tokio::net::lookup_host(&target)).await {
            Err(_) => Err(Failed::new(
                format!(
                    "{host} was not resolved within {} s",
                    STEP_TIMEOUT.as_secs()
                ),
                "check the name server (resolv.conf) and the network",
            )),
            Ok(Err(error)) => Err(Failed::new(
                format!("{host} does not resolve: {error}"),
                "check the host name's spelling, or use an address",
            )),
            Ok(Ok(found)) => {
                let addresses: Vec<SocketAddr> = found.collect();
                if addresses.is_empty() {
                    return Err(Failed::new(
                        format!("{host} resolves to no address"),
                        "check the name's DNS records",
                    ));
                }
                let shown: Vec<String> = addresses.iter().map(ToString::to_string).collect();
                Ok((addresses, format!("{host} is {}", shown.join(", "))))
            }
        }
    })
    .await
}

/// Connects to the first address that answers.
pub async fn connect_step(addresses: &[SocketAddr]) -> (Step, Option<SocketAddr>) {
    timed("connect", async {
        let mut failures = Vec::new();
        for address in addresses {
            match tokio::time::timeout(STEP_TIMEOUT, tokio::net::TcpStream::connect(address)).await
            {
                Ok(Ok(_)) => return Ok((*address, format!("connected to {address}"))),
                Ok(Err(error)) => failures.push((address, error.kind(), error.to_string())),
                Err(_) => failures.push((
                    address,
                    std::io::ErrorKind::TimedOut,
                    format!("no answer within {} s", STEP_TIMEOUT.as_secs()),
                )),
            }
        }
        let refused = failures
            .iter()
            .any(|(_, kind, _)| *kind == std::io::ErrorKind::ConnectionRefused);
        let said: Vec<String> = failures
            .iter()
            .map(|(address, _, error)| format!("{address}: {error}"))
            .collect();
        let advice = if refused {
            "nothing listens on that port: start the server, or check the port in the URL"
        } else {
            "a firewall or the network drops the connection: check the address and the route"
        };
        Err(Failed::new(said.join("; "), advice))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_closed_port_fails_at_connect_and_says_nothing_listens() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let (resolved, addresses) = resolve_step("127.0.0.1", port).await;
        assert!(resolved.ok, "{resolved:?}");
        let (connected, _) = connect_step(&addresses.unwrap()).await;
        assert!(!connected.ok);
        assert!(
            connected.detail.contains(&format!("127.0.0.1:{port}")),
            "{connected:?}"
        );
        assert!(
            connected
                .advice
                .as_deref()
                .unwrap()
                .contains("nothing listens"),
            "{connected:?}"
        );
    }

    #[tokio::test]
    async fn a_name_that_does_not_resolve_fails_at_resolve() {
        let (resolved, addresses) = resolve_step("no-such-host.invalid", 80).await;
        assert!(!resolved.ok);
        assert!(addresses.is_none());
        assert!(
            resolved.detail.contains("no-such-host.invalid"),
            "{resolved:?}"
        );
    }

    #[tokio::test]
    async fn a_listening_port_connects() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (connected, to) = connect_step(&[address]).await;
        assert!(connected.ok, "{connected:?}");
        assert_eq!(to, Some(address));
    }
}
