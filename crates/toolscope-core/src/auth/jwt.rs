//! The JSON Web Tokens Toolscope signs itself (compact JWS, RFC 7515): client assertions for
//! `private_key_jwt` (RFC 7523) and DPoP proofs (RFC 9449). Keys are read from PEM (PKCS#8, or
//! PKCS#1 for RSA) and signed with ring, the crypto rustls already brings.

use base64::Engine as _;
use ring::{
    rand::SystemRandom,
    signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _, RsaKeyPair},
};
use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};

/// Why a key cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the private key is not PEM text (it should start with -----BEGIN PRIVATE KEY-----)")]
    NotPem,
    #[error(
        "the private key is a SEC1 EC key (BEGIN EC PRIVATE KEY): convert it to PKCS#8 with \
         `openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.p8`"
    )]
    Sec1,
    #[error("the private key is encrypted: give it without a passphrase (PKCS#8, unencrypted)")]
    Encrypted,
    #[error(
        "the private key is not an ECDSA P-256/P-384, RSA or Ed25519 key Toolscope can read \
         ({0})"
    )]
    Unreadable(String),
    #[error(
        "the authorization server takes signatures with {advertised}, and this {kind} key \
         signs with {supported}: use a key of a kind it takes"
    )]
    NoCommonAlgorithm {
        kind: &'static str,
        advertised: String,
        supported: String,
    },
    #[error("signing failed: {0}")]
    Signing(String),
    #[error("no random numbers for a key: {0}")]
    NoRandom(String),
}

/// A private key that signs JWTs.
pub enum SigningKey {
    Ecdsa {
        pair: EcdsaKeyPair,
        /// `ES256` or `ES384`.
        alg: &'static str,
    },
    Rsa(RsaKeyPair),
    Ed25519(Ed25519KeyPair),
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({})", self.kind())
    }
}

const RSA_ALGORITHMS: &[&str] = &["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];

impl SigningKey {
    /// Reads a PEM private key: `PRIVATE KEY` (PKCS#8: ECDSA P-256 or P-384, RSA, Ed25519) or
    /// `RSA PRIVATE KEY` (PKCS#1).
    pub fn from_pem(pem: &str) -> Result<Self, KeyError> {
        let (label, der) = pem_block(pem)?;
        match label.as_str() {
            "PRIVATE KEY" => Self::from_pkcs8(&der),
            "RSA PRIVATE KEY" => RsaKeyPair::from_der(&der)
                .map(Self::Rsa)
                .map_err(|error| KeyError::Unreadable(error.to_string())),
            "EC PRIVATE KEY" => Err(KeyError::Sec1),
            "ENCRYPTED PRIVATE KEY" => Err(KeyError::Encrypted),
            other => Err(KeyError::Unreadable(format!(
                "a PEM block of {other}, not a private key"
            ))),
        }
    }

    /// Reads an unencrypted PKCS#8 key of any kind ring signs with.
    pub fn from_pkcs8(der: &[u8]) -> Result<Self, KeyError> {
        let rng = SystemRandom::new();
        if let Ok(pair) =
            EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, der, &rng)
        {
            return Ok(Self::Ecdsa { pair, alg: "ES256" });
        }
        if let Ok(pair) =
            EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P384_SHA384_FIXED_SIGNING, der, &rng)
        {
            return Ok(Self::Ecdsa { pair, alg: "ES384" });
        }
        if let Ok(pair) = Ed25519KeyPair::from_pkcs8_maybe_unchecked(der) {
            return Ok(Self::Ed25519(pair));
        }
        RsaKeyPair::from_pkcs8(der)
            .map(Self::Rsa)
            .map_err(|error| KeyError::Unreadable(error.to_string()))
    }

    /// A new P-256 key (a DPoP key), and its PKCS#8 form to keep.
    pub fn generate_es256() -> Result<(Self, Vec<u8>), KeyError> {
        let rng = SystemRandom::new();
        let document =
            EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
                .map_err(|error| KeyError::NoRandom(error.to_string()))?;
        let der = document.as_ref().to_vec();
        Ok((Self::from_pkcs8(&der)?, der))
    }

    fn kind(&self) -> &'static str {
        match self {
            Self::Ecdsa { alg: "ES384", .. } => "ECDSA P-384",
            Self::Ecdsa { .. } => "ECDSA P-256",
            Self::Rsa(_) => "RSA",
            Self::Ed25519(_) => "Ed25519",
        }
    }

    /// The JWS algorithms this key signs with, the preferred first.
    pub fn algorithms(&self) -> Vec<&'static str> {
        match self {
            Self::Ecdsa { alg, .. } => vec![alg],
            Self::Rsa(_) => RSA_ALGORITHMS.to_vec(),
            Self::Ed25519(_) => vec!["EdDSA"],
        }
    }

    /// The algorithm to sign with: the first of this key's that the server advertises (its
    /// metadata's `…_signing_alg_values_supported`), else the key's preferred one.
    pub fn choose_algorithm(
        &self,
        advertised: Option<&[String]>,
    ) -> Result<&'static str, KeyError> {
        let mine = self.algorithms();
        match advertised.filter(|list| !list.is_empty()) {
            None => Ok(mine[0]),
            Some(list) => mine
                .iter()
                .find(|alg| list.iter().any(|offered| offered == *alg))
                .copied()
                .ok_or_else(|| KeyError::NoCommonAlgorithm {
                    kind: self.kind(),
                    advertised: list.join(", "),
                    supported: mine.join(", "),
                }),
        }
    }

    /// The compact JWS of `claims`, with `header` (its `alg` set here).
    pub fn sign(
        &self,
        alg: &str,
        mut header: Map<String, Value>,
        claims: &Value,
    ) -> Result<String, KeyError> {
        header.insert("alg".to_owned(), Value::String(alg.to_owned()));
        let input = format!(
            "{}.{}",
            base64url(Value::Object(header).to_string().as_bytes()),
            base64url(claims.to_string().as_bytes())
        );
        let rng = SystemRandom::new();
        let failed = |error: ring::error::Unspecified| KeyError::Signing(error.to_string());
        let signature = match self {
            Self::Ecdsa { pair, .. } => pair
                .sign(&rng, input.as_bytes())
                .map_err(failed)?
                .as_ref()
                .to_vec(),
            Self::Ed25519(pair) => pair.sign(input.as_bytes()).as_ref().to_vec(),
            Self::Rsa(pair) => {
                let padding: &'static dyn signature::RsaEncoding = match alg {
                    "RS256" => &signature::RSA_PKCS1_SHA256,
                    "RS384" => &signature::RSA_PKCS1_SHA384,
                    "RS512" => &signature::RSA_PKCS1_SHA512,
                    "PS256" => &signature::RSA_PSS_SHA256,
                    "PS384" => &signature::RSA_PSS_SHA384,
                    "PS512" => &signature::RSA_PSS_SHA512,
                    other => {
                        return Err(KeyError::Signing(format!(
                            "{other} is not an RSA algorithm"
                        )));
                    }
                };
                let mut out = vec![0; pair.public().modulus_len()];
                pair.sign(padding, &rng, input.as_bytes(), &mut out)
                    .map_err(failed)?;
                out
            }
        };
        Ok(format!("{input}.{}", base64url(&signature)))
    }

    /// The public key as a JWK (RFC 7517), members in the order RFC 7638 hashes them.
    pub fn public_jwk(&self) -> Value {
        match self {
            Self::Ecdsa { pair, alg } => {
                // An uncompressed point: 0x04, x, y.
                let point = &pair.public_key().as_ref()[1..];
                let (x, y) = point.split_at(point.len() / 2);
                json!({
                    "crv": if *alg == "ES384" { "P-384" } else { "P-256" },
                    "kty": "EC",
                    "x": base64url(x),
                    "y": base64url(y),
                })
            }
            Self::Rsa(pair) => {
                let components: signature::RsaPublicKeyComponents<Vec<u8>> = pair.public().into();
                json!({
                    "e": base64url(&components.e),
                    "kty": "RSA",
                    "n": base64url(&components.n),
                })
            }
            Self::Ed25519(pair) => json!({
                "crv": "Ed25519",
                "kty": "OKP",
                "x": base64url(pair.public_key().as_ref()),
            }),
        }
    }
}

/// The JWK SHA-256 thumbprint (RFC 7638): the required members, sorted, without spaces.
pub fn jwk_thumbprint(jwk: &Value) -> String {
    let required: &[&str] = match jwk.get("kty").and_then(Value::as_str) {
        Some("EC") => &["crv", "kty", "x", "y"],
        Some("RSA") => &["e", "kty", "n"],
        _ => &["crv", "kty", "x"],
    };
    let members: Vec<String> = required
        .iter()
        .map(|name| {
            format!(
                "\"{name}\":{}",
                jwk.get(*name).cloned().unwrap_or(Value::Null)
            )
        })
        .collect();
    base64url(&Sha256::digest(
        format!("{{{}}}", members.join(",")).as_bytes(),
    ))
}

/// base64url without padding, as JOSE writes it.
pub fn base64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Seconds since the epoch (`iat`, `exp`).
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// A fresh `jti`: 16 random bytes.
pub fn random_id() -> Result<String, KeyError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| KeyError::NoRandom(error.to_string()))?;
    Ok(base64url(&bytes))
}

/// The label and DER of the first PEM block.
fn pem_block(pem: &str) -> Result<(String, Vec<u8>), KeyError> {
    let start = pem.find("-----BEGIN ").ok_or(KeyError::NotPem)?;
    let rest = &pem[start + "-----BEGIN ".len()..];
    let label_end = rest.find("-----").ok_or(KeyError::NotPem)?;
    let label = rest[..label_end].trim().to_owned();
    let body = &rest[label_end + 5..];
    let end = body
        .find(&format!("-----END {label}-----"))
        .ok_or(KeyError::NotPem)?;
    let text: String = body[..end]
        .lines()
        // RFC 7468 allows explanatory headers (PKCS#1's Proc-Type): an encrypted key.
        .filter(|line| !line.contains(':'))
        .flat_map(|line| line.chars().filter(|c| !c.is_whitespace()))
        .collect();
    if body[..end].contains("Proc-Type:") {
        return Err(KeyError::Encrypted);
    }
    let der = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|_| KeyError::NotPem)?;
    Ok((label, der))
}

/// The PEM text of a PKCS#8 key (how a generated DPoP key is kept).
pub fn pkcs8_pem(der: &[u8]) -> String {
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> = body
        .as_bytes()
        .chunks(64)
        .map(|chunk| std::str::from_utf8(chunk).unwrap_or_default())
        .collect();
    format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        lines.join("\n")
    )
}

/// The header and claims of a compact JWT, decoded without checking its signature (what
/// Toolscope reads of tokens others signed, to say what they are).
pub fn decode_unverified(token: &str) -> Option<(Value, Value)> {
    let mut parts = token.split('.');
    let decode = |part: Option<&str>| -> Option<Value> {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part?.trim_end_matches('='))
            .ok()?;
        serde_json::from_slice(&bytes).ok()
    };
    Some((decode(parts.next())?, decode(parts.next())?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verify_es256(token: &str, jwk: &Value) -> bool {
        let (input, signature) = token.rsplit_once('.').unwrap();
        let x = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(jwk["x"].as_str().unwrap())
            .unwrap();
        let y = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(jwk["y"].as_str().unwrap())
            .unwrap();
        let mut point = vec![4u8];
        point.extend(x);
        point.extend(y);
        let signature = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(signature)
            .unwrap();
        signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, point)
            .verify(input.as_bytes(), &signature)
            .is_ok()
    }

    #[test]
    fn a_generated_key_signs_a_jwt_its_public_jwk_verifies() {
        let (key, der) = SigningKey::generate_es256().unwrap();
        let again = SigningKey::from_pem(&pkcs8_pem(&der)).unwrap();
        let mut header = Map::new();
        header.insert("typ".to_owned(), json!("dpop+jwt"));
        let token = again.sign("ES256", header, &json!({"a": 1})).unwrap();
        let (header, claims) = decode_unverified(&token).unwrap();
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(claims["a"], 1);
        assert!(verify_es256(&token, &key.public_jwk()));
        // Other claims under the same signature do not verify.
        let (_, signature) = token.rsplit_once('.').unwrap();
        let forged = format!(
            "{}.{}.{signature}",
            token.split('.').next().unwrap(),
            base64url(br#"{"a":2}"#)
        );
        assert!(!verify_es256(&forged, &key.public_jwk()));
    }

    #[test]
    fn the_thumbprint_is_rfc_7638s_example() {
        // RFC 7638 §3.1.
        let jwk = json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        });
        assert_eq!(
            jwk_thumbprint(&jwk),
            "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        );
    }

    #[test]
    fn the_algorithm_is_one_the_server_advertises() {
        let (key, _) = SigningKey::generate_es256().unwrap();
        assert_eq!(key.choose_algorithm(None).unwrap(), "ES256");
        assert_eq!(
            key.choose_algorithm(Some(&["RS256".into(), "ES256".into()]))
                .unwrap(),
            "ES256"
        );
        let refused = key.choose_algorithm(Some(&["RS256".into()])).unwrap_err();
        assert!(refused.to_string().contains("RS256"), "{refused}");
    }

    #[test]
    fn a_key_pasted_on_one_line_is_read() {
        let (key, der) = SigningKey::generate_es256().unwrap();
        let one_line = pkcs8_pem(&der).replace('\n', "");
        let again = SigningKey::from_pem(&one_line).unwrap();
        assert_eq!(again.public_jwk(), key.public_jwk());
    }

    #[test]
    fn keys_that_cannot_be_read_say_what_to_do() {
        assert_eq!(
            SigningKey::from_pem("not a key").unwrap_err(),
            KeyError::NotPem
        );
        let sec1 = "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n";
        assert_eq!(SigningKey::from_pem(sec1).unwrap_err(), KeyError::Sec1);
    }
}
