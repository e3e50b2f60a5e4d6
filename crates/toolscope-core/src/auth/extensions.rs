//! The OAuth extensions a server's sign-in may use, as its settings and the command line name
//! them: the grant (client credentials, a JWT bearer assertion for workload identity, or
//! enterprise-managed authorization through an identity provider), `private_key_jwt` client
//! authentication, and DPoP-bound tokens. Secrets are not kept here: a private key or the
//! identity provider's client secret typed in the window goes to the secret store (the settings
//! hold a reference, as for any secret), and tokens are read from a file or an environment
//! variable when they are needed.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The OAuth grant a sign-in uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grant {
    /// Authorization code with PKCE, through the browser (a person signs in).
    #[default]
    AuthorizationCode,
    /// Client credentials (the MCP client-credentials extension): no person, no browser; the
    /// client authenticates with its secret or its private key (`private_key_jwt`).
    ClientCredentials,
    /// A JWT bearer assertion (RFC 7523 §2.1) the platform issued to this workload (workload
    /// identity federation: a CI job's or a cluster's token), read from a file or a variable.
    JwtBearer,
    /// Enterprise-managed authorization: the enterprise identity provider's ID token exchanged
    /// there for an ID-JAG (RFC 8693), which the MCP server's authorization server takes as a
    /// JWT bearer grant.
    Enterprise,
}

impl Grant {
    /// Its name on the command line and in the window.
    pub fn label(self) -> &'static str {
        match self {
            Grant::AuthorizationCode => "authorization code (browser)",
            Grant::ClientCredentials => "client credentials",
            Grant::JwtBearer => "JWT bearer (workload identity)",
            Grant::Enterprise => "enterprise-managed (ID-JAG)",
        }
    }

    /// Whether it needs a person at a browser.
    pub fn is_interactive(self) -> bool {
        self == Grant::AuthorizationCode
    }
}

/// Where a token someone else issued is read from, each time it is needed (CI systems and
/// clusters rotate them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenSource {
    /// A file holding the token (surrounding whitespace ignored).
    File(PathBuf),
    /// An environment variable holding it.
    Env(String),
}

/// Why a token could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenSourceError {
    #[error("cannot read the {what} from {path}: {reason}")]
    File {
        what: &'static str,
        path: String,
        reason: String,
    },
    #[error("the {what} variable {name} is not set")]
    Unset { what: &'static str, name: String },
    #[error("the {what} from {from} is empty")]
    Empty { what: &'static str, from: String },
}

impl TokenSource {
    /// Reads the token now; `what` names it in a failure ("workload assertion").
    pub fn read(&self, what: &'static str) -> Result<String, TokenSourceError> {
        let (text, from) = match self {
            TokenSource::File(path) => (
                std::fs::read_to_string(path).map_err(|error| TokenSourceError::File {
                    what,
                    path: path.display().to_string(),
                    reason: error.to_string(),
                })?,
                path.display().to_string(),
            ),
            TokenSource::Env(name) => (
                std::env::var(name).map_err(|_| TokenSourceError::Unset {
                    what,
                    name: name.clone(),
                })?,
                format!("${name}"),
            ),
        };
        let token = text.trim();
        if token.is_empty() {
            return Err(TokenSourceError::Empty { what, from });
        }
        Ok(token.to_owned())
    }

    /// Where it is read from, for the timeline.
    pub fn describe(&self) -> String {
        match self {
            TokenSource::File(path) => path.display().to_string(),
            TokenSource::Env(name) => format!("${name}"),
        }
    }
}

/// The enterprise identity provider of enterprise-managed authorization.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct EnterpriseIdp {
    /// Its issuer (the ID-JAG's `iss`).
    pub issuer: String,
    /// Its token endpoint; empty: found in its metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// Toolscope's client id there.
    pub client_id: String,
    /// That client's secret (HTTP Basic at the token exchange), if it is confidential; a
    /// secret: in the settings only as a reference to the secret store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// Where the ID token the identity provider issued to the user is read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_token: Option<TokenSource>,
}

/// A server's OAuth extensions (all off by default).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OAuthExtensions {
    #[serde(skip_serializing_if = "is_default_grant")]
    pub grant: Grant,
    /// `private_key_jwt`: the client's private key (PEM) in this file…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_key_file: Option<PathBuf>,
    /// …or the key itself (in the settings only as a reference to the secret store).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_key: Option<String>,
    /// Ask for DPoP-bound tokens and present them with proofs.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dpop: bool,
    /// The JWT bearer grant's assertion (workload identity).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assertion: Option<TokenSource>,
    /// Enterprise-managed authorization's identity provider.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idp: Option<EnterpriseIdp>,
}

/// A server's settings hold no extensions (settings.json then says nothing of them).
#[allow(
    clippy::borrowed_box,
    reason = "serde's skip_serializing_if passes the field as it is"
)]
pub fn none_chosen(extensions: &Box<OAuthExtensions>) -> bool {
    extensions.is_default()
}

fn is_default_grant(grant: &Grant) -> bool {
    *grant == Grant::default()
}

impl OAuthExtensions {
    /// Nothing beyond the default sign-in.
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// The private key's PEM text: the one given, else the file's.
    pub fn private_key_pem(&self) -> Result<Option<String>, TokenSourceError> {
        if let Some(pem) = self
            .private_key
            .as_ref()
            .filter(|pem| !pem.trim().is_empty())
        {
            return Ok(Some(pem.clone()));
        }
        self.private_key_file
            .as_ref()
            .map(|path| TokenSource::File(path.clone()).read("private key"))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_writes_nothing_and_a_choice_reads_back() {
        assert_eq!(
            serde_json::to_string(&OAuthExtensions::default()).unwrap(),
            "{}"
        );
        let chosen = OAuthExtensions {
            grant: Grant::JwtBearer,
            dpop: true,
            assertion: Some(TokenSource::Env("CI_JOB_JWT".to_owned())),
            ..OAuthExtensions::default()
        };
        let text = serde_json::to_string(&chosen).unwrap();
        assert_eq!(
            text,
            r#"{"grant":"jwt_bearer","dpop":true,"assertion":{"env":"CI_JOB_JWT"}}"#
        );
        assert_eq!(
            serde_json::from_str::<OAuthExtensions>(&text).unwrap(),
            chosen
        );
    }

    #[test]
    fn a_token_is_read_when_needed_and_its_absence_said() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("token");
        std::fs::write(&path, "  eyJ.a.b\n").unwrap();
        assert_eq!(
            TokenSource::File(path.clone()).read("assertion").unwrap(),
            "eyJ.a.b"
        );
        std::fs::write(&path, "\n").unwrap();
        assert!(matches!(
            TokenSource::File(path).read("assertion"),
            Err(TokenSourceError::Empty { .. })
        ));
        let unset = TokenSource::Env("TOOLSCOPE_TEST_NO_SUCH_VARIABLE".to_owned())
            .read("assertion")
            .unwrap_err();
        assert!(unset.to_string().contains("is not set"), "{unset}");
    }
}
