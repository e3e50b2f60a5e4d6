//! Spans as the OpenTelemetry semantic conventions for MCP draw them: one CLIENT span per
//! request, named `{mcp.method.name} {target}` (the tool's or prompt's name; a resource's
//! URI is an attribute, not part of the name, to keep names few), inside one span per
//! session. Every constructor answers `None` when traces are not exported, at the cost of
//! one check.

use std::time::SystemTime;

use opentelemetry::{
    Context, KeyValue,
    trace::{Span as _, SpanContext, SpanKind, Status, TraceContextExt as _, Tracer as _},
};
use opentelemetry_sdk::trace::Span;

use super::provider::tracer;

/// How the server is reached (`network.transport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// stdio: `pipe`.
    Pipe,
    /// Streamable HTTP: `tcp`.
    Tcp,
}

impl Transport {
    fn attribute(self) -> KeyValue {
        KeyValue::new(
            "network.transport",
            match self {
                Transport::Pipe => "pipe",
                Transport::Tcp => "tcp",
            },
        )
    }
}

/// What a request is about, for its name and attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    Nothing,
    Tool(&'a str),
    Prompt(&'a str),
    Resource(&'a str),
}

/// One request as its span describes it.
#[derive(Debug, Clone, Copy)]
pub struct McpRequest<'a> {
    pub method: &'a str,
    pub target: Target<'a>,
    pub protocol_version: Option<&'a str>,
    pub transport: Transport,
}

/// How a request ended, for `error.type` and the span's status.
#[derive(Debug, Clone, Copy)]
pub enum Answer<'a> {
    /// A result; `tool_error` when a tool's result says `isError: true`.
    Result { tool_error: bool },
    /// A JSON-RPC error.
    RpcError { code: i64, message: &'a str },
    /// No answer: `kind` is a low-cardinality word (`timeout`, `cancelled`, …).
    Failed { kind: &'a str, message: &'a str },
}

/// A status description is a server's words: kept short.
const STATUS_DESCRIPTION_MAX: usize = 256;

/// The span of one connection: requests made on it are its children.
#[derive(Debug)]
pub struct SessionSpan {
    context: Context,
    transport: Transport,
}

impl SessionSpan {
    /// Starts the span of a connection that began at `began`.
    pub fn start(
        began: SystemTime,
        transport: Transport,
        protocol_version: Option<&str>,
    ) -> Option<Self> {
        let tracer = tracer()?;
        let mut attributes = vec![transport.attribute()];
        if let Some(version) = protocol_version.filter(|version| !version.is_empty()) {
            attributes.push(KeyValue::new("mcp.protocol.version", version.to_owned()));
        }
        let span = tracer
            .span_builder("mcp session")
            .with_kind(SpanKind::Client)
            .with_start_time(began)
            .with_attributes(attributes)
            .start_with_context(tracer, &Context::new());
        Some(Self {
            context: Context::new().with_span(span),
            transport,
        })
    }

    /// The trace's id (32 hex digits), which every request of the session shares.
    pub fn trace_id(&self) -> String {
        self.context.span().span_context().trace_id().to_string()
    }

    pub fn transport(&self) -> Transport {
        self.transport
    }

    pub fn span_context(&self) -> SpanContext {
        self.context.span().span_context().clone()
    }

    /// Ends the span now (it also ends when dropped).
    pub fn end(&self) {
        self.context.span().end();
    }

    /// Ends the span at `at`.
    pub fn end_at(&self, at: SystemTime) {
        self.context.span().end_with_timestamp(at);
    }
}

/// Where a request's span hangs.
#[derive(Debug, Clone, Copy)]
pub enum Parent<'a> {
    Session(&'a SessionSpan),
    /// A client's span, from its request's `params._meta`.
    Remote(&'a SpanContext),
}

/// The span of one request, from sending it to its answer.
#[derive(Debug)]
pub struct RequestSpan {
    span: Span,
}

impl RequestSpan {
    /// Starts a request's span (at `at`, else now) under `parent`.
    pub fn start(
        parent: Parent<'_>,
        request: &McpRequest<'_>,
        at: Option<SystemTime>,
    ) -> Option<Self> {
        let tracer = tracer()?;
        let mut attributes = vec![
            KeyValue::new("mcp.method.name", request.method.to_owned()),
            request.transport.attribute(),
        ];
        let name = match request.target {
            Target::Tool(tool) => {
                attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
                attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
                format!("{} {tool}", request.method)
            }
            Target::Prompt(prompt) => {
                attributes.push(KeyValue::new("gen_ai.prompt.name", prompt.to_owned()));
                format!("{} {prompt}", request.method)
            }
            Target::Resource(uri) => {
                attributes.push(KeyValue::new("mcp.resource.uri", uri.to_owned()));
                request.method.to_owned()
            }
            Target::Nothing => request.method.to_owned(),
        };
        if let Some(version) = request
            .protocol_version
            .filter(|version| !version.is_empty())
        {
            attributes.push(KeyValue::new("mcp.protocol.version", version.to_owned()));
        }
        let parent = match parent {
            Parent::Session(session) => session.context.clone(),
            Parent::Remote(remote) => Context::new().with_remote_span_context(remote.clone()),
        };
        let mut builder = tracer
            .span_builder(name)
            .with_kind(SpanKind::Client)
            .with_attributes(attributes);
        if let Some(at) = at {
            builder = builder.with_start_time(at);
        }
        Some(Self {
            span: tracer.build_with_context(builder, &parent),
        })
    }

    pub fn span_context(&self) -> &SpanContext {
        self.span.span_context()
    }

    /// `jsonrpc.request.id`, once the request has one.
    pub fn set_request_id(&mut self, id: &str) {
        self.span
            .set_attribute(KeyValue::new("jsonrpc.request.id", id.to_owned()));
    }

    /// `mcp.session.id`, when the transport has a session (an HTTP server's `Mcp-Session-Id`).
    pub fn set_session_id(&mut self, id: &str) {
        self.span
            .set_attribute(KeyValue::new("mcp.session.id", id.to_owned()));
    }

    /// `mcp.protocol.version`, when it was not known as the span started.
    pub fn set_protocol_version(&mut self, version: &str) {
        self.span
            .set_attribute(KeyValue::new("mcp.protocol.version", version.to_owned()));
    }

    /// Ends the span with how the request ended (at `at`, else now).
    pub fn end(mut self, answer: Answer<'_>, at: Option<SystemTime>) {
        let error = match answer {
            Answer::Result { tool_error: false } => None,
            Answer::Result { tool_error: true } => Some(("tool_error".to_owned(), "")),
            Answer::RpcError { code, message } => {
                self.span
                    .set_attribute(KeyValue::new("rpc.response.status_code", code.to_string()));
                Some((code.to_string(), message))
            }
            Answer::Failed { kind, message } => Some((kind.to_owned(), message)),
        };
        if let Some((kind, message)) = error {
            self.span.set_attribute(KeyValue::new("error.type", kind));
            let message = crate::text_util::one_line(message, STATUS_DESCRIPTION_MAX);
            self.span.set_status(Status::error(message));
        }
        match at {
            Some(at) => self.span.end_with_timestamp(at),
            None => self.span.end(),
        }
    }
}
