//! OpenTelemetry traces, exported over OTLP/HTTP (protobuf) when an
//! endpoint is configured: `--otlp-endpoint`, or the standard
//! `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
//! variables. Off by default; then no layer is installed and the call
//! spans below are disabled, which costs a level check.
//!
//! A call's span continues the trace its request names: the W3C
//! `traceparent` (and `tracestate`) in the request's `_meta` (2026-07-28),
//! or else in the HTTP request's headers. The runtime's `#[instrument]`
//! spans of the call become its children.

use std::collections::HashMap;
use std::time::Duration;

use opentelemetry::propagation::TextMapPropagator as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::Layer;
use tracing_subscriber::registry::LookupSpan;

/// The variables that turn the exporter on without the flag.
pub const ENDPOINT_VARS: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
];

/// The path of the traces signal below a base endpoint.
const TRACES_PATH: &str = "/v1/traces";

/// How long one export may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the exporter could not start.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The OTLP exporter refused its configuration.
    #[error("cannot export traces over OTLP: {0}")]
    Exporter(String),
}

/// The exporter's HTTP client: ureq, blocking, with rustls (ring) and the
/// webpki roots as the host's own TLS uses. The SDK's batch processor runs
/// exports on its own thread, where a blocking client needs no runtime.
#[derive(Debug)]
struct Client(ureq::Agent);

#[async_trait::async_trait]
impl HttpClient for Client {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let (parts, body) = request.into_parts();
        let request = Request::from_parts(parts, body.to_vec());
        let mut response = self.0.run(request)?;
        let status = response.status();
        let body = response
            .body_mut()
            .with_config()
            .limit(4 << 20)
            .read_to_vec()?;
        let mut out = Response::new(Bytes::from(body));
        *out.status_mut() = status;
        Ok(out)
    }
}

/// The running exporter: flushes what it holds when shut down.
#[derive(Debug)]
pub struct Tracing {
    provider: SdkTracerProvider,
}

impl Tracing {
    /// Starts exporting to `endpoint` (a base URL such as
    /// `http://127.0.0.1:4318`, to which `/v1/traces` is added), or else to
    /// what the standard variables say; `None` when neither is set.
    pub fn from_config(endpoint: Option<&str>) -> Result<Option<Tracing>, TraceError> {
        let configured = ENDPOINT_VARS
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
        if endpoint.is_none() && !configured {
            return Ok(None);
        }
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(EXPORT_TIMEOUT))
            .build()
            .new_agent();
        let mut builder = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(Client(agent))
            .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
            .with_timeout(EXPORT_TIMEOUT);
        if let Some(base) = endpoint {
            builder = builder.with_endpoint(format!("{}{TRACES_PATH}", base.trim_end_matches('/')));
        }
        let exporter = builder
            .build()
            .map_err(|e| TraceError::Exporter(e.to_string()))?;
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(
                Resource::builder()
                    .with_service_name(env!("CARGO_PKG_NAME"))
                    .build(),
            )
            .build();
        Ok(Some(Tracing { provider }))
    }

    /// The `tracing` layer that turns this crate's spans into OpenTelemetry
    /// spans (events and other crates' spans are left out).
    pub fn layer<S>(&self) -> impl Layer<S> + use<S>
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        let tracer = self.provider.tracer(env!("CARGO_PKG_NAME"));
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(tracing_subscriber::filter::filter_fn(|meta| {
                meta.is_span() && meta.target().starts_with("mcp_wasm_host")
            }))
    }

    /// Exports what is left and stops.
    pub fn shutdown(&self) {
        if let Err(e) = self.provider.shutdown() {
            tracing::warn!("the trace exporter did not shut down cleanly: {e}");
        }
    }
}

/// Makes `span` continue the trace named by `traceparent` (and
/// `tracestate`), as found in `_meta` or the HTTP headers; a missing or
/// malformed one leaves the span a root.
pub fn continue_trace(span: &tracing::Span, traceparent: &str, tracestate: Option<&str>) {
    if span.is_disabled() {
        return;
    }
    let mut carrier = HashMap::with_capacity(2);
    carrier.insert("traceparent".to_string(), traceparent.to_string());
    if let Some(state) = tracestate {
        carrier.insert("tracestate".to_string(), state.to_string());
    }
    let parent = TraceContextPropagator::new().extract(&carrier);
    let _ = span.set_parent(parent);
}
