//! Whether traces are exported, and where: the OpenTelemetry SDK's standard variables first,
//! then the `telemetry` part of settings.json. Nothing is set up without an endpoint.

use serde::{Deserialize, Serialize};

/// The `telemetry` part of settings.json.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TelemetrySettings {
    /// An OTLP/HTTP collector's base URL (`http://localhost:4318`), as
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` would give it; the variables win when set.
    pub otlp_endpoint: Option<String>,
    /// A trace viewer's page for one trace, `{trace_id}` standing for its id
    /// (`http://localhost:16686/trace/{trace_id}` for Jaeger): the window offers "Open trace".
    pub trace_viewer: Option<String>,
}

impl TelemetrySettings {
    /// The viewer's page for `trace_id`, when a pattern with `{trace_id}` is set.
    pub fn trace_page(&self, trace_id: &str) -> Option<String> {
        trace_page(self.trace_viewer.as_deref()?, trace_id)
    }
}

/// The `telemetry` part of the settings file at `path`; a missing or unreadable file (said by
/// whoever loads the settings) is no telemetry setting.
pub fn settings_in(path: Option<&std::path::Path>) -> TelemetrySettings {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct TelemetryPart {
        telemetry: TelemetrySettings,
    }
    path.and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str::<TelemetryPart>(&text).ok())
        .unwrap_or_default()
        .telemetry
}

/// `pattern` with `{trace_id}` replaced, when it has the placeholder.
pub fn trace_page(pattern: &str, trace_id: &str) -> Option<String> {
    let pattern = pattern.trim();
    pattern
        .contains("{trace_id}")
        .then(|| pattern.replace("{trace_id}", trace_id))
}

/// What the variables and the settings ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exporting {
    /// No endpoint anywhere (or the SDK is disabled): nothing is set up.
    Off,
    /// Export to a collector.
    To(ExportTarget),
    /// Asked for, but not in a way this build can do (said once, then nothing is set up).
    Refused(String),
}

/// Where spans go, as far as Toolscope decides it (the OTLP exporter reads the rest of the
/// standard variables itself: headers, timeout, compression).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportTarget {
    /// The traces URL from the settings (`…/v1/traces`); `None` when a variable names it.
    pub endpoint_from_settings: Option<String>,
    /// Where spans go, in words (for the one warning when they cannot).
    pub described: String,
    /// `OTEL_SERVICE_NAME` is set (else the service is `toolscope`).
    pub service_named: bool,
}

const ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
const TRACES_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
const PROTOCOL: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
const TRACES_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL";

/// Decides from the variables (`variable` reads one; tests pass their own) and the settings.
pub fn exporting(
    variable: impl Fn(&str) -> Option<String>,
    settings: &TelemetrySettings,
) -> Exporting {
    let set = |name: &str| variable(name).filter(|value| !value.trim().is_empty());
    if set("OTEL_SDK_DISABLED").is_some_and(|value| value.trim().eq_ignore_ascii_case("true"))
        || set("OTEL_TRACES_EXPORTER").is_some_and(|value| value.trim() == "none")
    {
        return Exporting::Off;
    }
    let from_variables = set(TRACES_ENDPOINT).or_else(|| set(ENDPOINT));
    let from_settings = settings
        .otlp_endpoint
        .as_deref()
        .map(str::trim)
        .filter(|endpoint| !endpoint.is_empty());
    let (endpoint_from_settings, described) = match (from_variables, from_settings) {
        (Some(endpoint), _) => (None, endpoint),
        (None, Some(base)) => {
            let traces = format!("{}/v1/traces", base.trim_end_matches('/'));
            (Some(traces.clone()), traces)
        }
        (None, None) => return Exporting::Off,
    };
    if let Some(protocol) = set(TRACES_PROTOCOL).or_else(|| set(PROTOCOL))
        && protocol.trim() != "http/protobuf"
    {
        return Exporting::Refused(format!(
            "OTEL_EXPORTER_OTLP_PROTOCOL={} is not built into Toolscope, which exports \
             OTLP over http/protobuf (a collector's port 4318): no traces are exported",
            crate::text_util::one_line(&protocol, 40)
        ));
    }
    Exporting::To(ExportTarget {
        endpoint_from_settings,
        described: crate::text_util::one_line(&described, 200),
        service_named: set("OTEL_SERVICE_NAME").is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(variables: &[(&str, &str)], settings: &TelemetrySettings) -> Exporting {
        let variables: Vec<(String, String)> = variables
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        exporting(
            |name| {
                variables
                    .iter()
                    .find(|(key, _)| key == name)
                    .map(|(_, value)| value.clone())
            },
            settings,
        )
    }

    #[test]
    fn nothing_is_set_up_without_an_endpoint() {
        let none = TelemetrySettings::default();
        assert_eq!(decide(&[], &none), Exporting::Off);
        assert_eq!(
            decide(&[("OTEL_SERVICE_NAME", "x")], &none),
            Exporting::Off,
            "a service name alone exports nothing"
        );
        assert_eq!(decide(&[(ENDPOINT, "  ")], &none), Exporting::Off);
    }

    #[test]
    fn the_variables_win_over_the_settings() {
        let settings = TelemetrySettings {
            otlp_endpoint: Some("http://collector:4318/".to_owned()),
            trace_viewer: None,
        };
        let Exporting::To(target) = decide(&[], &settings) else {
            panic!("the setting exports")
        };
        assert_eq!(
            target.endpoint_from_settings.as_deref(),
            Some("http://collector:4318/v1/traces")
        );
        let Exporting::To(target) = decide(&[(ENDPOINT, "http://env:4318")], &settings) else {
            panic!("the variable exports")
        };
        assert_eq!(target.endpoint_from_settings, None);
        assert_eq!(target.described, "http://env:4318");
        assert_eq!(
            decide(
                &[(ENDPOINT, "http://env:4318"), ("OTEL_SDK_DISABLED", "true")],
                &settings
            ),
            Exporting::Off
        );
    }

    #[test]
    fn a_protocol_not_built_in_is_refused_in_safe_words() {
        let none = TelemetrySettings::default();
        let Exporting::Refused(why) = decide(
            &[(ENDPOINT, "http://x:4317"), (PROTOCOL, "grpc\u{1b}[31m")],
            &none,
        ) else {
            panic!("grpc is refused")
        };
        assert!(why.contains("grpc"), "{why}");
        assert!(
            matches!(
                decide(
                    &[(ENDPOINT, "http://x"), (PROTOCOL, "http/protobuf")],
                    &none
                ),
                Exporting::To(_)
            ),
            "http/protobuf is the one built in"
        );
    }

    #[test]
    fn a_trace_page_needs_the_placeholder() {
        let mut settings = TelemetrySettings::default();
        assert_eq!(settings.trace_page("ab"), None);
        settings.trace_viewer = Some("http://localhost:16686/trace/{trace_id}".to_owned());
        assert_eq!(
            settings.trace_page("ab").as_deref(),
            Some("http://localhost:16686/trace/ab")
        );
        settings.trace_viewer = Some("http://no-placeholder".to_owned());
        assert_eq!(settings.trace_page("ab"), None);
    }
}
