//! A collector for the telemetry tests: a loopback OTLP/HTTP receiver (plain HTTP/1.1 on a
//! std listener) that decodes each `POST /v1/traces` body with the OTLP protobuf types and
//! keeps the spans, flattened.

use std::{
    collections::HashMap,
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use opentelemetry_proto::tonic::{
    collector::trace::v1::ExportTraceServiceRequest,
    common::v1::{AnyValue, any_value},
};
use prost::Message as _;

/// One exported span, its ids in hex.
#[derive(Debug, Clone)]
pub struct ExportedSpan {
    pub name: String,
    pub trace_id: String,
    pub span_id: String,
    pub parent_span_id: String,
    /// OTLP's numbering: 3 is CLIENT.
    pub kind: i32,
    pub attributes: HashMap<String, String>,
    /// OTLP's numbering: 2 is ERROR.
    pub status_code: i32,
    pub status_message: String,
    pub service_name: String,
}

impl ExportedSpan {
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn text(value: Option<&AnyValue>) -> String {
    match value.and_then(|value| value.value.as_ref()) {
        Some(any_value::Value::StringValue(text)) => text.clone(),
        Some(any_value::Value::IntValue(number)) => number.to_string(),
        Some(any_value::Value::BoolValue(flag)) => flag.to_string(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

/// The receiver: its address, and the spans it got so far.
pub struct OtlpReceiver {
    pub endpoint: String,
    spans: Arc<Mutex<Vec<ExportedSpan>>>,
}

impl OtlpReceiver {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let endpoint = format!("http://{}", listener.local_addr().expect("its address"));
        let spans = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&spans);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = Arc::clone(&kept);
                std::thread::spawn(move || serve(stream, &kept));
            }
        });
        Self { endpoint, spans }
    }

    pub fn spans(&self) -> Vec<ExportedSpan> {
        self.spans.lock().expect("not poisoned").clone()
    }

    /// The spans once one named `name` arrived (within a few seconds).
    pub fn spans_with(&self, name: &str) -> Vec<ExportedSpan> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let spans = self.spans();
            if spans.iter().any(|span| span.name == name) || Instant::now() > deadline {
                return spans;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Answers every request on one connection (reqwest keeps it alive).
fn serve(stream: TcpStream, kept: &Mutex<Vec<ExportedSpan>>) {
    let mut writer = stream.try_clone().expect("a second handle");
    let mut reader = BufReader::new(stream);
    loop {
        let mut length = 0;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        if let Ok(request) = ExportTraceServiceRequest::decode(body.as_slice()) {
            let mut kept = kept.lock().expect("not poisoned");
            for resource_spans in request.resource_spans {
                let service_name = resource_spans
                    .resource
                    .iter()
                    .flat_map(|resource| &resource.attributes)
                    .find(|attribute| attribute.key == "service.name")
                    .map(|attribute| text(attribute.value.as_ref()))
                    .unwrap_or_default();
                for span in resource_spans
                    .scope_spans
                    .into_iter()
                    .flat_map(|scope| scope.spans)
                {
                    let status = span.status.unwrap_or_default();
                    kept.push(ExportedSpan {
                        name: span.name,
                        trace_id: hex(&span.trace_id),
                        span_id: hex(&span.span_id),
                        parent_span_id: hex(&span.parent_span_id),
                        kind: span.kind,
                        attributes: span
                            .attributes
                            .iter()
                            .map(|attribute| {
                                (attribute.key.clone(), text(attribute.value.as_ref()))
                            })
                            .collect(),
                        status_code: status.code,
                        status_message: status.message,
                        service_name: service_name.clone(),
                    });
                }
            }
        }
        let answer =
            "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}
