//! An error in words with its causes, the one writer every layer uses: `what failed: why:
//! the cause beneath`, each cause once (a message that already quotes its cause is not
//! repeated) and at most eight deep.

/// `error` and its chain of sources, joined with `: `.
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    let mut depth = 0;
    while let Some(next) = cause {
        depth += 1;
        if depth > 8 {
            break;
        }
        let part = next.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        cause = next.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] Inner);

    #[derive(Debug, thiserror::Error)]
    #[error("inner")]
    struct Inner;

    #[derive(Debug, thiserror::Error)]
    #[error("outer: inner")]
    struct Quoting(#[source] Inner);

    #[test]
    fn each_cause_is_said_once() {
        assert_eq!(error_chain(&Outer(Inner)), "outer: inner");
        assert_eq!(error_chain(&Quoting(Inner)), "outer: inner");
    }
}
