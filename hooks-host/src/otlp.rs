//! Hook runs exported as OpenTelemetry spans over OTLP/HTTP (feature `otlp`).
//!
//! With `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
//! set, [`crate::Host`] registers an [`OtlpRuns`] observer on its bus: every
//! [`HookRun`] becomes one `hook_run` span, with its real start and end, sent
//! in batches by the OpenTelemetry SDK's own thread (an emit never waits for
//! the collector). The standard `OTEL_EXPORTER_OTLP_*` variables (endpoint,
//! headers, timeout) apply; the transport is OTLP/HTTP with protobuf bodies.
//!
//! Span attributes: `hook.mechanism`, `hook.source`, `hook.event`,
//! `hook.status`, `hook.elapsed_ms`, `hook.decision` (JSON text, when the hook
//! contributed one), `hook.skip_reason`, `hook.diagnostics` (a string array).
//! A failed or timed-out run has the span status `Error`.

mod client;

use std::time::{Duration, SystemTime};

use hermes_hooks_core::{HookRun, RunObserver, RunStatus};
use opentelemetry::trace::{Span, SpanBuilder, SpanKind, Status, Tracer, TracerProvider};
use opentelemetry::{Array, KeyValue, StringValue, Value};
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

/// The variables that switch the export on (either is enough).
pub const ENDPOINT_VARIABLES: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
];

/// The exporter of hook runs: a [`RunObserver`] for [`hermes_hooks_core::HooksBuilder::observe_runs`].
pub struct OtlpRuns {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
}

impl std::fmt::Debug for OtlpRuns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtlpRuns").finish_non_exhaustive()
    }
}

impl OtlpRuns {
    /// The exporter the environment asks for: `None` when no endpoint
    /// variable is set (or set empty), an error naming the variable when the
    /// exporter cannot be built from it.
    pub fn from_env() -> Option<Result<OtlpRuns, String>> {
        let set = ENDPOINT_VARIABLES
            .iter()
            .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()));
        set.then(|| OtlpRuns::build(None))
    }

    /// An exporter sending to `endpoint` (the full traces URL, e.g.
    /// `http://127.0.0.1:4318/v1/traces`); `None` reads the environment.
    pub fn build(endpoint: Option<&str>) -> Result<OtlpRuns, String> {
        let mut builder = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
            .with_http_client(client::BlockingClient::default());
        if let Some(endpoint) = endpoint {
            builder = builder.with_endpoint(endpoint);
        }
        let exporter = builder.build().map_err(|error| {
            format!(
                "OTLP export of hook runs is off: {} cannot be used: {error}",
                ENDPOINT_VARIABLES.join(" / ")
            )
        })?;
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(
                Resource::builder()
                    .with_service_name("hermes-hooks")
                    .build(),
            )
            .build();
        let tracer = provider.tracer("hermes-hooks");
        Ok(OtlpRuns { provider, tracer })
    }

    /// Sends every span ended so far; blocks until the collector answered or
    /// the export timed out. Call it off async threads.
    pub fn flush(&self) {
        if let Err(error) = self.provider.force_flush() {
            tracing::warn!("OTLP export of hook runs failed: {error}");
        }
    }

    /// Flushes and stops the exporter (at most `timeout`). Blocks.
    pub fn shutdown(&self, timeout: Duration) {
        if let Err(error) = self.provider.shutdown_with_timeout(timeout) {
            tracing::debug!("OTLP exporter shutdown: {error}");
        }
    }

    fn export(&self, run: &HookRun) {
        let mut attributes = vec![
            KeyValue::new("hook.mechanism", run.mechanism.to_string()),
            KeyValue::new("hook.source", run.source.to_string()),
            KeyValue::new("hook.event", run.event.to_string()),
            KeyValue::new("hook.status", run.status.as_str()),
            KeyValue::new("hook.elapsed_ms", run.elapsed_ms()),
            KeyValue::new(
                "hook.diagnostics",
                Value::Array(Array::String(
                    run.diagnostics
                        .iter()
                        .map(|line| StringValue::from(line.clone()))
                        .collect(),
                )),
            ),
        ];
        if let Some(decision) = &run.decision {
            attributes.push(KeyValue::new("hook.decision", decision.to_string()));
        }
        if let Some(reason) = run.status.skip_reason() {
            attributes.push(KeyValue::new("hook.skip_reason", reason.to_owned()));
        }
        let builder = SpanBuilder::from_name("hook_run")
            .with_kind(SpanKind::Internal)
            .with_start_time(run.started)
            .with_attributes(attributes);
        let mut span = self.tracer.build(builder);
        if matches!(run.status, RunStatus::Failed | RunStatus::TimedOut) {
            let description = run
                .diagnostics
                .first()
                .cloned()
                .unwrap_or_else(|| run.status.as_str().to_owned());
            span.set_status(Status::error(description));
        }
        let end = run
            .started
            .checked_add(run.elapsed)
            .unwrap_or_else(SystemTime::now);
        span.end_with_timestamp(end);
    }
}

impl RunObserver for OtlpRuns {
    fn observe(&self, runs: &[HookRun]) {
        for run in runs {
            self.export(run);
        }
    }
}
