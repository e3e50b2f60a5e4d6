//! The server editor's OAuth extensions: the grant (browser, client credentials, a workload's
//! JWT bearer assertion, enterprise-managed), the client's private key (`private_key_jwt`),
//! DPoP, and what each grant reads. Secret values are masked; saving moves them to the secret
//! store with the server's other secrets.

use std::path::PathBuf;

use toolscope_core::auth::{EnterpriseIdp, Grant, OAuthExtensions, TokenSource};

const GRANTS: [Grant; 4] = [
    Grant::AuthorizationCode,
    Grant::ClientCredentials,
    Grant::JwtBearer,
    Grant::Enterprise,
];

/// What a grant needs and the fields lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MissingField {
    #[error("The JWT bearer grant needs the file or variable holding the workload's assertion")]
    Assertion,
    #[error(
        "Enterprise-managed sign-in needs the identity provider, Toolscope's client id there \
         and where the ID token is read"
    )]
    IdentityProvider,
}

/// Where a token is read: the text is a path or a variable's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum From {
    File,
    Variable,
}

/// The fields as typed.
pub struct OAuthFields {
    grant: Grant,
    dpop: bool,
    private_key_file: String,
    /// A PEM key pasted here (kept in the secret store).
    private_key: String,
    assertion_from: From,
    assertion: String,
    idp_issuer: String,
    idp_token_url: String,
    idp_client_id: String,
    idp_client_secret: String,
    id_token_from: From,
    id_token: String,
}

fn split(source: Option<&TokenSource>) -> (From, String) {
    match source {
        Some(TokenSource::File(path)) => (From::File, path.display().to_string()),
        Some(TokenSource::Env(name)) => (From::Variable, name.clone()),
        None => (From::File, String::new()),
    }
}

fn source(from: From, text: &str) -> Option<TokenSource> {
    let text = text.trim();
    (!text.is_empty()).then(|| match from {
        From::File => TokenSource::File(PathBuf::from(text)),
        From::Variable => TokenSource::Env(text.to_owned()),
    })
}

fn optional(text: &str) -> Option<String> {
    Some(text.trim().to_owned()).filter(|text| !text.is_empty())
}

impl OAuthFields {
    pub fn new(extensions: &OAuthExtensions) -> Self {
        let (assertion_from, assertion) = split(extensions.assertion.as_ref());
        let idp = extensions.idp.clone().unwrap_or_default();
        let (id_token_from, id_token) = split(idp.id_token.as_ref());
        Self {
            grant: extensions.grant,
            dpop: extensions.dpop,
            private_key_file: extensions
                .private_key_file
                .as_ref()
                .map(|path| path.display().to_string())
                .unwrap_or_default(),
            private_key: extensions.private_key.clone().unwrap_or_default(),
            assertion_from,
            assertion,
            idp_issuer: idp.issuer,
            idp_token_url: idp.token_endpoint.unwrap_or_default(),
            idp_client_id: idp.client_id,
            idp_client_secret: idp.client_secret.unwrap_or_default(),
            id_token_from,
            id_token,
        }
    }

    /// The "OAuth sign-in" section.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        egui::CollapsingHeader::new("OAuth sign-in")
            .id_salt("oauth_extensions")
            .default_open(!self.build().is_ok_and(|built| built.is_default()))
            .show(ui, |ui| {
                egui::Grid::new("oauth_fields")
                    .num_columns(2)
                    .spacing([8.0, 6.0])
                    .show(ui, |ui| self.grid(ui));
            });
    }

    fn grid(&mut self, ui: &mut egui::Ui) {
        ui.label("Grant");
        ui.vertical(|ui| {
            for grant in GRANTS {
                ui.radio_value(&mut self.grant, grant, grant.label());
            }
        });
        ui.end_row();
        ui.label("DPoP");
        ui.checkbox(
            &mut self.dpop,
            "bind tokens to this server's key (a proof with every request)",
        );
        ui.end_row();
        if self.grant != Grant::AuthorizationCode {
            text_row(
                ui,
                "Private key file",
                &mut self.private_key_file,
                "(private_key_jwt: a PEM key file instead of the client secret)",
                false,
            );
            text_row(
                ui,
                "Private key",
                &mut self.private_key,
                "(or the PEM text itself; kept in the secret store)",
                true,
            );
        }
        match self.grant {
            Grant::JwtBearer => {
                source_row(
                    ui,
                    "Workload assertion",
                    &mut self.assertion_from,
                    &mut self.assertion,
                );
            }
            Grant::Enterprise => {
                text_row(
                    ui,
                    "Identity provider",
                    &mut self.idp_issuer,
                    "https://idp.example (its issuer)",
                    false,
                );
                text_row(
                    ui,
                    "Its token endpoint",
                    &mut self.idp_token_url,
                    "(from its metadata)",
                    false,
                );
                text_row(
                    ui,
                    "Client id there",
                    &mut self.idp_client_id,
                    "toolscope",
                    false,
                );
                text_row(
                    ui,
                    "Client secret there",
                    &mut self.idp_client_secret,
                    "(a confidential client's; kept in the secret store)",
                    true,
                );
                source_row(ui, "ID token", &mut self.id_token_from, &mut self.id_token);
            }
            Grant::AuthorizationCode | Grant::ClientCredentials => {}
        }
    }

    /// The extensions as entered, checked for what the grant needs.
    pub fn build(&self) -> Result<OAuthExtensions, MissingField> {
        let mut extensions = OAuthExtensions {
            grant: self.grant,
            dpop: self.dpop,
            ..OAuthExtensions::default()
        };
        if self.grant != Grant::AuthorizationCode {
            extensions.private_key_file = optional(&self.private_key_file).map(PathBuf::from);
            extensions.private_key = optional(&self.private_key);
        }
        match self.grant {
            Grant::JwtBearer => {
                extensions.assertion = source(self.assertion_from, &self.assertion);
                if extensions.assertion.is_none() {
                    return Err(MissingField::Assertion);
                }
            }
            Grant::Enterprise => {
                let idp = EnterpriseIdp {
                    issuer: self.idp_issuer.trim().to_owned(),
                    token_endpoint: optional(&self.idp_token_url),
                    client_id: self.idp_client_id.trim().to_owned(),
                    client_secret: optional(&self.idp_client_secret),
                    id_token: source(self.id_token_from, &self.id_token),
                };
                if idp.issuer.is_empty() || idp.client_id.is_empty() || idp.id_token.is_none() {
                    return Err(MissingField::IdentityProvider);
                }
                extensions.idp = Some(idp);
            }
            Grant::AuthorizationCode | Grant::ClientCredentials => {}
        }
        Ok(extensions)
    }
}

fn text_row(ui: &mut egui::Ui, label: &str, text: &mut String, hint: &str, secret: bool) {
    let label = ui.label(label);
    ui.add(
        egui::TextEdit::singleline(text)
            .password(secret)
            .hint_text(hint)
            .desired_width(360.0),
    )
    .labelled_by(label.id);
    ui.end_row();
}

fn source_row(ui: &mut egui::Ui, label: &str, from: &mut From, text: &mut String) {
    let label = ui.label(label);
    ui.horizontal(|ui| {
        ui.radio_value(from, From::File, "file");
        ui.radio_value(from, From::Variable, "variable");
        ui.add(
            egui::TextEdit::singleline(text)
                .hint_text(match from {
                    From::File => "/var/run/secrets/tokens/mcp",
                    From::Variable => "CI_JOB_JWT",
                })
                .desired_width(240.0),
        )
        .labelled_by(label.id);
    });
    ui.end_row();
}
