//! The TLS step of an https URL: a handshake with the address that connected, checked as the
//! session checks it (the platform's verifier, so `SSL_CERT_FILE` and the system's
//! authorities count), and the server's certificate read whatever the verdict: a refused
//! certificate is explained by what it says (its names, its issuer, its dates).

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use rustls::{
    CertificateError, DigitallySignedStruct, Error as TlsError, SignatureScheme,
    client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier},
    pki_types::{CertificateDer, ServerName, UnixTime},
};
use x509_cert::{
    Certificate, der::Decode, ext::pkix::SubjectAltName, ext::pkix::name::GeneralName,
};

use super::{Failed, STEP_TIMEOUT, Step, timed};

/// A certificate that ends within this many days is said (the step still passes).
const EXPIRES_SOON_DAYS: u64 = 14;

/// Shakes hands with `host` at `address`.
pub async fn tls_step(host: &str, address: SocketAddr) -> Step {
    timed("tls", handshake(host.to_owned(), address)).await.0
}

async fn handshake(host: String, address: SocketAddr) -> Result<((), String), Failed> {
    crate::tls::install_crypto_provider();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let platform = rustls_platform_verifier::Verifier::new(provider.clone()).map_err(|error| {
        Failed::new(
            format!("the system's trusted certificates could not be read: {error}"),
            "check the system's certificate store (ca-certificates), or SSL_CERT_FILE",
        )
    })?;
    let seen = Arc::new(Mutex::new(None));
    let verifier = Arc::new(Recording {
        inner: Arc::new(platform),
        seen: seen.clone(),
    });
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| Failed::new(error.to_string(), "this build's TLS cannot start"))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    let name = ServerName::try_from(host.clone()).map_err(|_| {
        Failed::new(
            format!("{host:?} is not a name a certificate can be checked against"),
            "use the server's host name in the URL",
        )
    })?;
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let exchange = async {
        let tcp = tokio::net::TcpStream::connect(address).await?;
        connector.connect(name, tcp).await
    };
    let outcome = tokio::time::timeout(STEP_TIMEOUT, exchange).await;
    let certificate = seen.lock().ok().and_then(|mut seen| seen.take());
    let described = certificate.as_deref().map(describe);
    match outcome {
        Err(_) => Err(Failed::new(
            format!(
                "no TLS handshake within {} s from {address}",
                STEP_TIMEOUT.as_secs()
            ),
            "the port may not speak TLS: check the URL's scheme (http or https) and port",
        )),
        Ok(Ok(stream)) => {
            let (_, session) = stream.get_ref();
            let protocol = session.protocol_version().map_or_else(
                || "TLS".to_owned(),
                |version| format!("{version:?}").replace('_', "."),
            );
            let mut detail = protocol;
            if let Some(described) = &described {
                detail.push_str(", ");
                detail.push_str(&described.text);
                if described.days_left < EXPIRES_SOON_DAYS {
                    detail.push_str(&format!(
                        "; it expires in {} day(s): renew it",
                        described.days_left
                    ));
                }
            }
            Ok(((), detail))
        }
        Ok(Err(error)) => Err(refused(&host, &error, described.as_ref())),
    }
}

/// Why the handshake failed, with the certificate's own words where one came.
fn refused(host: &str, error: &std::io::Error, described: Option<&Described>) -> Failed {
    let tls_error = error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<TlsError>());
    let evidence = described
        .map(|described| format!(": the certificate is {}", described.text))
        .unwrap_or_default();
    let (what, advice) = match tls_error {
        Some(TlsError::InvalidCertificate(certificate)) => match certificate {
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => (
                "the certificate has expired".to_owned(),
                "the server's certificate must be renewed (on the server)",
            ),
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => (
                "the certificate is not valid yet".to_owned(),
                "check this machine's clock, or the certificate's start date",
            ),
            CertificateError::UnknownIssuer => (
                "the certificate is signed by an authority this machine does not trust".to_owned(),
                "a self-signed or private authority: add its certificate to the system's store, \
                 or point SSL_CERT_FILE at it",
            ),
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                (
                    format!("the certificate is not for {host}"),
                    "use the name the certificate is for, or have the certificate cover this one",
                )
            }
            CertificateError::Revoked => (
                "the certificate was revoked".to_owned(),
                "the server needs a new certificate",
            ),
            other => (
                format!("the certificate was refused ({other:?})"),
                "check the server's certificate chain",
            ),
        },
        Some(TlsError::InvalidMessage(_) | TlsError::InappropriateMessage { .. }) => (
            format!("the answer is not TLS ({error})"),
            "the port may speak plain HTTP: try http:// instead of https://",
        ),
        Some(TlsError::PeerIncompatible(_) | TlsError::AlertReceived(_)) => (
            format!("no TLS version or cipher in common ({error})"),
            "the server may offer only old TLS versions (before 1.2), which Toolscope refuses",
        ),
        _ => (
            format!("the handshake failed: {error}"),
            "check that this port speaks TLS",
        ),
    };
    Failed::new(format!("{what}{evidence}"), advice)
}

/// A certificate in a line.
struct Described {
    text: String,
    days_left: u64,
}

fn describe(der: &[u8]) -> Described {
    let Ok(certificate) = Certificate::from_der(der) else {
        return Described {
            text: "a certificate that cannot be read".to_owned(),
            days_left: u64::MAX,
        };
    };
    let tbs = &certificate.tbs_certificate;
    let names: Vec<String> = match tbs.get::<SubjectAltName>() {
        Ok(Some((_, alternatives))) => alternatives
            .0
            .iter()
            .filter_map(|name| match name {
                GeneralName::DnsName(dns) => Some(dns.to_string()),
                GeneralName::IpAddress(octets) => ip_text(octets.as_bytes()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let not_after = tbs.validity.not_after.to_unix_duration();
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO);
    let days_left = not_after.saturating_sub(now).as_secs() / 86_400;
    let until = date(&tbs.validity.not_after.to_string());
    let ended = if not_after < now {
        "ended"
    } else {
        "valid until"
    };
    let issuer = tbs.issuer.to_string();
    let subject = tbs.subject.to_string();
    let issued = if issuer == subject {
        "self-signed".to_owned()
    } else {
        format!("issued by {issuer}")
    };
    let named = if names.is_empty() {
        format!("for {subject}")
    } else {
        format!("for {}", names.join(", "))
    };
    Described {
        text: format!("{named}, {issued}, {ended} {until}"),
        days_left,
    }
}

/// `2027-01-02` of an RFC 3339 time.
fn date(time: &str) -> String {
    time.get(..10).unwrap_or(time).to_owned()
}

fn ip_text(octets: &[u8]) -> Option<String> {
    match octets.len() {
        4 => <[u8; 4]>::try_from(octets)
            .ok()
            .map(|four| std::net::Ipv4Addr::from(four).to_string()),
        16 => <[u8; 16]>::try_from(octets)
            .ok()
            .map(|sixteen| std::net::Ipv6Addr::from(sixteen).to_string()),
        _ => None,
    }
}

/// The platform's verifier, keeping the end-entity certificate it was shown.
#[derive(Debug)]
struct Recording {
    inner: Arc<dyn ServerCertVerifier>,
    seen: Arc<Mutex<Option<Vec<u8>>>>,
}

impl ServerCertVerifier for Recording {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, TlsError> {
        if let Ok(mut seen) = self.seen.lock() {
            *seen = Some(end_entity.to_vec());
        }
        self.inner
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}
