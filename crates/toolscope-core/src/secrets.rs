//! Which configured values are secrets, and how they are shown.

/// Environment variable names that usually hold credentials.
const SECRET_WORDS: &[&str] = &[
    "token",
    "key",
    "secret",
    "password",
    "passwd",
    "auth",
    "credential",
    "cookie",
];

/// Whether an env var or header with this name should be masked.
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|word| lower.contains(word))
}

/// `Bearer abcdef…` → `Bearer ••••••`; anything else → dots. The length is not revealed.
pub fn mask(value: &str) -> String {
    match value.split_once(' ') {
        Some((scheme, _))
            if scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("basic") =>
        {
            format!("{scheme} ••••••")
        }
        _ if value.is_empty() => String::new(),
        _ => "••••••".to_owned(),
    }
}

/// A command line's arguments as they may be shown (a list of servers, an agent's answer): a
/// URL without its user, password and query, the value of a secret-looking option masked
/// (`--api-key X`, `--token=X`, `API_KEY=X`). Masking too much is the safe side.
pub fn shown_arguments(args: &[String]) -> Vec<String> {
    let mut shown = Vec::with_capacity(args.len());
    let mut hide_next = false;
    for arg in args {
        if std::mem::take(&mut hide_next) {
            shown.push(mask(arg));
            continue;
        }
        if let Some((name, value)) = arg.split_once('=')
            && is_secret_name(name.trim_start_matches('-'))
        {
            shown.push(format!("{name}={}", mask(value)));
            continue;
        }
        if arg.starts_with('-') && is_secret_name(arg.trim_start_matches('-')) {
            hide_next = true;
            shown.push(arg.clone());
            continue;
        }
        if arg.contains("://") {
            shown.push(crate::session::config::url_label(arg));
            continue;
        }
        shown.push(arg.clone());
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_lines_secrets_are_not_shown() {
        let args: Vec<String> = [
            "-y",
            "@modelcontextprotocol/server-postgres",
            "postgresql://ana:s3cret@db.example/shop?sslmode=require",
            "--api-key",
            "sk-live-1",
            "--token=abc",
            "GITHUB_TOKEN=ghp_x",
            "--port",
            "8080",
        ]
        .map(str::to_owned)
        .to_vec();
        let shown = shown_arguments(&args).join(" ");
        for secret in ["s3cret", "ana", "sk-live-1", "abc", "ghp_x", "sslmode"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(
            shown.contains("postgresql://db.example/shop --api-key ••••••"),
            "{shown}"
        );
        assert!(shown.ends_with("--port 8080"), "{shown}");
    }

    #[test]
    fn names_and_masks() {
        assert!(is_secret_name("GITHUB_TOKEN"));
        assert!(is_secret_name("Authorization"));
        assert!(is_secret_name("OPENAI_API_KEY"));
        assert!(!is_secret_name("PATH"));
        assert_eq!(mask("Bearer abc"), "Bearer ••••••");
        assert_eq!(mask("hunter2"), "••••••");
    }
}
