//! Where a load run may go: a stdio server (a process on this machine) or an HTTP server on a
//! loopback address. A load run against someone else's server is an attack on it, so any
//! other host is refused unless the person allows it.

use std::net::IpAddr;

use super::plan::LoadError;
use crate::session::ServerConfig;

/// `Ok` when `config` may be loaded: stdio, a loopback URL, or anything when `allow_remote`.
pub fn refuse_remote(config: &ServerConfig, allow_remote: bool) -> Result<(), LoadError> {
    let ServerConfig::Http { url, .. } = config else {
        return Ok(());
    };
    let parsed = url::Url::parse(url).map_err(|error| LoadError::InvalidUrl {
        url: crate::session::config::url_label(url),
        reason: error.to_string(),
    })?;
    if allow_remote || is_loopback(&parsed) {
        return Ok(());
    }
    Err(LoadError::Remote {
        url: crate::session::config::url_label(url),
    })
}

/// The host is this machine by its address or by the name `localhost` (not resolved: a name
/// that resolves to a loopback address elsewhere is still a name of someone else's choosing).
fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(address)) => address.is_loopback(),
        Some(url::Host::Ipv6(address)) => {
            address.is_loopback()
                || address
                    .to_ipv4_mapped()
                    .is_some_and(|v4| IpAddr::V4(v4).is_loopback())
        }
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(url: &str) -> ServerConfig {
        ServerConfig::Http {
            url: url.to_owned(),
            headers: Default::default(),
            oauth_client_id: None,
            oauth_client_secret: None,
            oauth: Default::default(),
        }
    }

    #[test]
    fn loopback_and_stdio_are_loaded_and_other_hosts_only_when_allowed() {
        for url in [
            "http://127.0.0.1:8000/mcp",
            "http://127.8.9.10/mcp",
            "http://localhost:3000/mcp",
            "http://LOCALHOST./mcp",
            "http://[::1]:9000/mcp",
            "http://[::ffff:127.0.0.1]/mcp",
        ] {
            assert!(refuse_remote(&http(url), false).is_ok(), "{url}");
        }
        for url in [
            "https://example.com/mcp",
            "http://10.0.0.5/mcp",
            "http://127.0.0.1.example.com/mcp",
            "http://[2001:db8::1]/mcp",
        ] {
            let refused = refuse_remote(&http(url), false);
            assert!(
                matches!(&refused, Err(LoadError::Remote { .. })),
                "{url}: {refused:?}"
            );
            assert!(refuse_remote(&http(url), true).is_ok());
        }
        let message = refuse_remote(&http("https://user:pw@example.com/mcp?key=s"), false)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("https://example.com/mcp is not on this machine"),
            "{message}"
        );
        assert!(
            message.contains("--allow-remote") && !message.contains("pw"),
            "{message}"
        );
        assert!(matches!(
            refuse_remote(&http("not a url"), false),
            Err(LoadError::InvalidUrl { .. })
        ));
        assert!(refuse_remote(&ServerConfig::demo(), false).is_ok());
    }
}
