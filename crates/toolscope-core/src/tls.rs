//! rustls needs one process-wide crypto provider; we build with `ring` only. Everything that
//! builds an HTTP client (sessions, sign-ins) calls this first.

pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
