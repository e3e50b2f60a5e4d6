//! A collector that cannot be reached is said once, on one line of stderr, and never again:
//! calls go on without their traces. The exporter is wrapped so its first failure is that
//! line (the SDK's own diagnostics are not built in).

use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry_sdk::{
    error::OTelSdkResult,
    trace::{SpanData, SpanExporter},
};

static WARNED: AtomicBool = AtomicBool::new(false);

/// Prints `warning: traces: {what}` on stderr, the first time only, made safe for a terminal
/// (a collector's answer or a variable may hold escape sequences).
pub fn warn_once(what: &str) {
    if WARNED.swap(true, Ordering::Relaxed) {
        return;
    }
    let line = crate::text_util::one_line(&format!("warning: traces: {what}"), 400);
    eprintln!("{}", crate::text_util::terminal_safe(&line));
}

/// Whether the one warning was said.
pub fn warned() -> bool {
    WARNED.load(Ordering::Relaxed)
}

/// An exporter whose first failure is said once.
#[derive(Debug)]
pub struct WarnOnFailure<E> {
    pub inner: E,
    /// Where spans go, in words.
    pub target: String,
}

impl<E: SpanExporter> SpanExporter for WarnOnFailure<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let result = self.inner.export(batch).await;
        if let Err(error) = &result {
            warn_once(&format!(
                "cannot export to {}: {error}; calls go on without their traces",
                self.target
            ));
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: std::time::Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.inner.set_resource(resource);
    }
}
