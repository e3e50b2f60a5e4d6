//! Secrets kept out of a diagnosis: the values of the server's headers and environment (a
//! server's error or stderr may echo them), kept tokens, and any `Bearer`/`DPoP` credential
//! quoted in what a server said.

use super::Diagnosis;

const REDACTED: &str = "‹redacted›";

/// Values shorter than this are not searched for (they would hide ordinary words).
const SHORTEST_SECRET: usize = 4;

impl Diagnosis {
    /// Replaces every `secret` (and every credential after an auth scheme) in the steps.
    pub fn redact(&mut self, secrets: &[String]) {
        for step in &mut self.steps {
            step.detail = redacted(&step.detail, secrets);
            // The advice is Toolscope's own words (`Bearer …` there is an example).
            if let Some(advice) = &mut step.advice {
                *advice = without(advice, secrets);
            }
        }
    }
}

pub(crate) fn redacted(text: &str, secrets: &[String]) -> String {
    after_schemes(&without(text, secrets))
}

/// `text` with each of `secrets` (and its credential part) replaced.
fn without(text: &str, secrets: &[String]) -> String {
    let mut text = text.to_owned();
    for secret in secrets {
        for part in [secret.as_str(), credential_of(secret)] {
            if part.len() >= SHORTEST_SECRET && text.contains(part) {
                text = text.replace(part, REDACTED);
            }
        }
    }
    text
}

/// The credential of a header value such as `Bearer abc`.
fn credential_of(value: &str) -> &str {
    value
        .split_once(' ')
        .map_or(value, |(_, credential)| credential.trim())
}

/// `Bearer x`, `DPoP x` and `Basic x` with the credential replaced.
fn after_schemes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while !rest.is_empty() {
        for scheme in ["Bearer ", "bearer ", "DPoP ", "Basic "] {
            if let Some(tail) = rest.strip_prefix(scheme) {
                let end = tail
                    .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ';'))
                    .unwrap_or(tail.len());
                out.push_str(scheme);
                // A challenge's parameters (`Bearer realm="x"`) are not a credential.
                if end == 0 || is_parameter(tail) {
                    rest = tail;
                } else {
                    out.push_str(REDACTED);
                    rest = &tail[end..];
                }
                continue 'scan;
            }
        }
        let next = rest.chars().next().map_or(1, char::len_utf8);
        out.push_str(&rest[..next]);
        rest = &rest[next..];
    }
    out
}

/// `name=value` or `name="value"` (a challenge's parameter), not a token's `=` padding.
fn is_parameter(text: &str) -> bool {
    let Some((name, after)) = text.split_once('=') else {
        return false;
    };
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && after
            .chars()
            .next()
            .is_some_and(|c| c != '=' && !c.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_and_quoted_credentials_are_redacted_and_challenges_kept() {
        let secrets = vec!["Bearer sekrit-123".to_owned(), "api-key-9".to_owned()];
        let text = "echo: Authorization: Bearer sekrit-123, key api-key-9; \
                    WWW-Authenticate: Bearer realm=\"mcp\", resource_metadata=\"x\"; \
                    a token DPoP eyJhbGciOi.abc, a padded Basic dXNlcjpwYXNz==";
        let out = redacted(text, &secrets);
        assert!(!out.contains("sekrit-123"), "{out}");
        assert!(!out.contains("api-key-9"), "{out}");
        assert!(!out.contains("eyJhbGciOi"), "{out}");
        assert!(!out.contains("dXNlcjpw"), "{out}");
        assert!(out.contains("Bearer realm=\"mcp\""), "{out}");
    }

    #[test]
    fn a_credential_without_its_scheme_is_found_too() {
        let out = redacted(
            "the token xyz-secret-1 was refused",
            &["Bearer xyz-secret-1".into()],
        );
        assert_eq!(out, "the token ‹redacted› was refused");
    }
}
