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

#[cfg(test)]
mod tests {
    use super::*;

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
