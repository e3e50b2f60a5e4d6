//! TLS to the database with rustls, as libpq's `sslmode` says: `disable`; `prefer` (the
//! default: TLS when the server offers it) and `require` (encrypted, the certificate not
//! checked, as libpq does); `verify-ca` (signed by a trusted authority) and `verify-full`
//! (and issued for the host). `sslrootcert=FILE` trusts that PEM file's authorities instead
//! of the system's.

use std::sync::Arc;

use rustls::{
    ClientConfig, DigitallySignedStruct, SignatureScheme,
    client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier},
    pki_types::{CertificateDer, ServerName, UnixTime, pem::PemObject as _},
};

use super::{PostgresProblem, PostgresUrl};

/// The URL's query parameters this module reads (the client library knows only some).
const TLS_PARAMETERS: [&str; 2] = ["sslmode", "sslrootcert"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl Mode {
    /// The URL's `sslmode`, else `PGSSLMODE`, else `prefer`.
    pub(super) fn of(url: &PostgresUrl) -> Result<Self, PostgresProblem> {
        let chosen = url
            .parameter("sslmode")
            .or_else(|| std::env::var("PGSSLMODE").ok())
            .unwrap_or_else(|| "prefer".to_owned());
        Ok(match chosen.as_str() {
            "disable" => Self::Disable,
            "allow" | "prefer" => Self::Prefer,
            "require" => Self::Require,
            "verify-ca" => Self::VerifyCa,
            "verify-full" => Self::VerifyFull,
            other => {
                return Err(PostgresProblem::SslMode(
                    crate::text_util::terminal_safe(other).into_owned(),
                ));
            }
        })
    }

    /// What the client library is told: try TLS, or insist on it.
    pub(super) fn library_mode(self) -> postgres::config::SslMode {
        match self {
            Self::Disable => postgres::config::SslMode::Disable,
            Self::Prefer => postgres::config::SslMode::Prefer,
            Self::Require | Self::VerifyCa | Self::VerifyFull => postgres::config::SslMode::Require,
        }
    }

    /// The rustls configuration (`None`: no TLS).
    pub(super) fn client_config(
        self,
        url: &PostgresUrl,
    ) -> Result<Option<ClientConfig>, PostgresProblem> {
        crate::tls::install_crypto_provider();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier: Arc<dyn ServerCertVerifier> = match self {
            Self::Disable => return Ok(None),
            Self::Prefer | Self::Require => Arc::new(Unchecked(provider.clone())),
            Self::VerifyCa | Self::VerifyFull => {
                let checked = trusted(url, provider.clone())?;
                if self == Self::VerifyCa {
                    Arc::new(AnyName(checked))
                } else {
                    checked
                }
            }
        };
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|error| PostgresProblem::TrustedCertificates {
                from: "rustls".to_owned(),
                reason: error.to_string(),
            })?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(Some(config))
    }
}

/// The URL as the client library reads it: without the parameters read here.
pub(super) fn without_tls_parameters(url: &PostgresUrl) -> String {
    let Ok(mut parsed) = url::Url::parse(url.secret_text()) else {
        return url.secret_text().to_owned();
    };
    let kept: Vec<(String, String)> = parsed
        .query_pairs()
        .filter(|(key, _)| !TLS_PARAMETERS.contains(&key.as_ref()))
        .map(|(key, value)| (key.into_owned(), value.into_owned()))
        .collect();
    if kept.is_empty() {
        parsed.set_query(None);
    } else {
        parsed.query_pairs_mut().clear().extend_pairs(kept);
    }
    parsed.to_string()
}

/// The verifier of `verify-ca` and `verify-full`: the authorities of `sslrootcert`, else the
/// system's.
fn trusted(
    url: &PostgresUrl,
    provider: Arc<rustls::crypto::CryptoProvider>,
) -> Result<Arc<dyn ServerCertVerifier>, PostgresProblem> {
    let Some(file) = url.parameter("sslrootcert").filter(|file| file != "system") else {
        let verifier = rustls_platform_verifier::Verifier::new(provider).map_err(|error| {
            PostgresProblem::TrustedCertificates {
                from: "the system's".to_owned(),
                reason: error.to_string(),
            }
        })?;
        return Ok(Arc::new(verifier));
    };
    let failed = |reason: String| PostgresProblem::TrustedCertificates {
        from: format!("sslrootcert {file}"),
        reason,
    };
    let mut roots = rustls::RootCertStore::empty();
    let certificates =
        CertificateDer::pem_file_iter(&file).map_err(|error| failed(error.to_string()))?;
    for certificate in certificates {
        let certificate = certificate.map_err(|error| failed(error.to_string()))?;
        roots
            .add(certificate)
            .map_err(|error| failed(error.to_string()))?;
    }
    if roots.is_empty() {
        return Err(failed("it holds no certificate".to_owned()));
    }
    rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
        .build()
        .map(|verifier| verifier as Arc<dyn ServerCertVerifier>)
        .map_err(|error| failed(error.to_string()))
}

/// `prefer` and `require`: the connection is encrypted, whoever the certificate names.
#[derive(Debug)]
struct Unchecked(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: a trusted authority signed it, whichever host it names.
#[derive(Debug)]
struct AnyName(Arc<dyn ServerCertVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForName
                | rustls::CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}
