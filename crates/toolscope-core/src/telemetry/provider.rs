//! The process's one tracer: set up once when exporting is asked for (a batch processor on a
//! thread of its own, its queue bounded by the SDK's 2,048 spans, dropping past that), and
//! shut down within a short bound before the process exits. Without it nothing is set up and
//! every span helper is a check of one `Option`.

use std::{sync::OnceLock, time::Duration};

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

use super::{
    config::{ExportTarget, Exporting, TelemetrySettings, exporting},
    one_warning::{WarnOnFailure, warn_once, warned},
};

/// How long a command waits for its spans to reach the collector before it exits: a
/// collector on this machine or the LAN answers in milliseconds, and one that never answers
/// costs no more than this.
pub const EXPORT_AT_EXIT_LIMIT: Duration = Duration::from_millis(500);

struct Tracing {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
    target: String,
}

static TRACING: OnceLock<Tracing> = OnceLock::new();

/// The tracer, when traces are exported.
pub(super) fn tracer() -> Option<&'static SdkTracer> {
    TRACING.get().map(|tracing| &tracing.tracer)
}

/// Whether traces are exported in this process.
pub fn is_on() -> bool {
    TRACING.get().is_some()
}

/// Sets up exporting when the standard variables or `settings` ask for it (once per process;
/// later calls change nothing). Returns whether traces are exported. A setup that fails is
/// said once on stderr and leaves nothing set up.
pub fn start(settings: &TelemetrySettings) -> bool {
    if is_on() {
        return true;
    }
    match exporting(|name| std::env::var(name).ok(), settings) {
        Exporting::Off => false,
        Exporting::Refused(why) => {
            warn_once(&why);
            false
        }
        Exporting::To(target) => match build(&target) {
            Ok(tracing) => {
                let _ = TRACING.set(tracing);
                true
            }
            Err(error) => {
                warn_once(&format!("cannot export to {}: {error}", target.described));
                false
            }
        },
    }
}

fn build(target: &ExportTarget) -> Result<Tracing, opentelemetry_otlp::ExporterBuildError> {
    // An https collector goes through rustls, as every HTTP client of Toolscope's does.
    crate::tls::install_crypto_provider();
    // One attempt per batch: a collector that refuses is said at once, and a short command
    // does not spend its last moments backing off (the next batch is the retry).
    let mut exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_retry_policy(opentelemetry_otlp::RetryPolicy::disabled());
    if let Some(endpoint) = &target.endpoint_from_settings {
        exporter = exporter.with_endpoint(endpoint);
    }
    let exporter = WarnOnFailure {
        inner: exporter.build()?,
        target: target.described.clone(),
    };
    let mut resource = opentelemetry_sdk::Resource::builder();
    if !target.service_named {
        resource = resource.with_service_name("toolscope");
    }
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.build())
        .build();
    let tracer = provider.tracer_with_scope(
        opentelemetry::InstrumentationScope::builder("toolscope")
            .with_version(env!("CARGO_PKG_VERSION"))
            .build(),
    );
    Ok(Tracing {
        provider,
        tracer,
        target: target.described.clone(),
    })
}

/// Exports what is left and stops, waiting at most `limit`; a collector that did not take
/// the spans in time is said once. Blocks: call it outside the async runtime's workers.
pub fn finish(limit: Duration) {
    let Some(tracing) = TRACING.get() else {
        return;
    };
    if tracing.provider.shutdown_with_timeout(limit).is_err() && !warned() {
        warn_once(&format!(
            "{} did not take this run's traces within {} ms; they were dropped",
            tracing.target,
            limit.as_millis()
        ));
    }
}
