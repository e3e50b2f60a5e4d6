//! W3C Trace Context in a request's `params._meta` (SEP-414: the unprefixed `traceparent`
//! and `tracestate` keys): what Toolscope writes for its own spans, and what it reads from a
//! client's request through the proxy. A client's value is untrusted: anything too long or
//! malformed is no parent at all.

use opentelemetry::{
    Context,
    propagation::{Extractor, TextMapPropagator as _},
    trace::{SpanContext, TraceContextExt as _},
};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::Value;

/// A version-00 `traceparent` is 55 characters; later versions may add fields.
const TRACEPARENT_MAX: usize = 256;
/// W3C: 32 list members of at most 256 characters each would be 8 KiB; a client's longer one
/// is not taken (the parent still is).
const TRACESTATE_MAX: usize = 1024;

/// The `traceparent` of a span.
pub fn traceparent(context: &SpanContext) -> String {
    format!(
        "00-{}-{}-{:02x}",
        context.trace_id(),
        context.span_id(),
        context.trace_flags().to_u8()
    )
}

/// The `tracestate` of a span, when it has one.
pub fn tracestate(context: &SpanContext) -> Option<String> {
    let state = context.trace_state().header();
    (!state.is_empty()).then_some(state)
}

/// The remote parent a request's `params._meta` names, when it names a valid one.
pub fn parent_in_meta(meta: &Value) -> Option<SpanContext> {
    let parent = meta.get("traceparent")?.as_str()?;
    if parent.len() > TRACEPARENT_MAX {
        return None;
    }
    let state = meta
        .get("tracestate")
        .and_then(Value::as_str)
        .filter(|state| state.len() <= TRACESTATE_MAX);
    let carrier = Carrier { parent, state };
    let context = TraceContextPropagator::new().extract_with_context(&Context::new(), &carrier);
    let span = context.span().span_context().clone();
    span.is_valid().then_some(span)
}

struct Carrier<'a> {
    parent: &'a str,
    state: Option<&'a str>,
}

impl Extractor for Carrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => Some(self.parent),
            "tracestate" => self.state,
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_valid_parent_is_read_with_its_state() {
        let meta = json!({
            "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "tracestate": "rojo=00f067aa0ba902b7",
        });
        let parent = parent_in_meta(&meta).expect("a valid parent");
        assert_eq!(
            parent.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(parent.span_id().to_string(), "00f067aa0ba902b7");
        assert!(parent.is_remote());
        assert_eq!(
            tracestate(&parent).as_deref(),
            Some("rojo=00f067aa0ba902b7")
        );
        assert_eq!(
            traceparent(&parent),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        );
    }

    #[test]
    fn bad_parents_are_no_parent_and_never_panic() {
        let huge = format!(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01{}",
            "-x".repeat(1_000_000)
        );
        for bad in [
            json!({"traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}),
            json!({"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"}),
            json!({"traceparent": "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}),
            json!({"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7"}),
            json!({"traceparent": "\u{1b}]0;pwned\u{7}00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}),
            json!({"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e473é-00f067aa0ba902b7-01"}),
            json!({"traceparent": huge}),
            json!({"traceparent": 42}),
            json!({"traceparent": null}),
            json!("not an object"),
            json!({}),
        ] {
            assert!(parent_in_meta(&bad).is_none(), "{:.80}", bad.to_string());
        }
        let long_state = json!({
            "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "tracestate": "a=b,".repeat(10_000),
        });
        let parent = parent_in_meta(&long_state).expect("the parent without its state");
        assert_eq!(tracestate(&parent), None);
    }
}
