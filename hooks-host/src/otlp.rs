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

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use hermes_hooks_core::redact::redact_url;
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

/// How long [`crate::Host::flush`] waits for the collector (40 ms) unless
/// [`WAIT_VARIABLE`] says otherwise: with the exporter's own start (a few
/// ms), a hanging or absent collector adds at most 50 ms to a host's exit,
/// or to `hooks emit` (issue 27's bound; the audit measured +59 ms with a
/// 50 ms wait). The export itself goes on on the exporter's own thread; a
/// process that exits meanwhile drops those spans.
pub const FLUSH_WAIT: Duration = Duration::from_millis(40);

/// The variable that changes [`FLUSH_WAIT`], in milliseconds (a collector
/// far away, a test that needs every span).
pub const WAIT_VARIABLE: &str = "HOOKS_OTLP_WAIT_MS";

/// How long the exporter's last flush may run, on a thread of its own, when
/// the exporter is dropped (nothing waits for it).
const STOP_BOUND: Duration = Duration::from_secs(5);

/// The exporter of hook runs: a [`RunObserver`] for [`hermes_hooks_core::HooksBuilder::observe_runs`].
pub struct OtlpRuns {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
    /// A flush still waiting for the collector (another one is not started).
    flushing: Arc<AtomicBool>,
    /// How long a host's flush waits for the collector.
    flush_wait: Duration,
}

impl std::fmt::Debug for OtlpRuns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtlpRuns").finish_non_exhaustive()
    }
}

/// `text` (an exporter's error) with each endpoint it may quote (`endpoint`,
/// the endpoint variables' values) masked as [`redact_url`] masks it: a
/// password in `http://u:PW@…` is never printed (red team R46-5).
fn masked(text: &str, endpoint: Option<&str>) -> String {
    let values = ENDPOINT_VARIABLES
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .chain(endpoint.map(str::to_owned))
        .filter(|value| !value.trim().is_empty());
    values.fold(text.to_owned(), |text, value| {
        text.replace(value.trim(), &redact_url(value.trim()))
            .replace(&value, &redact_url(&value))
    })
}

impl OtlpRuns {
    /// The exporter the environment asks for: `None` when no endpoint
    /// variable is set (or set empty), an error naming the variable when the
    /// exporter cannot be built from it.
    pub fn from_env() -> Option<Result<OtlpRuns, String>> {
        let set = ENDPOINT_VARIABLES
            .iter()
            .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()));
        set.then(|| {
            let mut runs = OtlpRuns::build(None)?;
            let wait = std::env::var(WAIT_VARIABLE).ok();
            if let Some(wait) = wait.filter(|wait| !wait.trim().is_empty()) {
                let millis = wait.trim().parse::<u64>().map_err(|_| {
                    format!("{WAIT_VARIABLE} must be a number of milliseconds; got '{wait}'")
                })?;
                runs.flush_wait = Duration::from_millis(millis);
            }
            Ok(runs)
        })
    }

    /// How long [`crate::Host::flush`] waits for the collector: [`FLUSH_WAIT`]
    /// unless [`WAIT_VARIABLE`] said otherwise.
    pub fn flush_wait(&self) -> Duration {
        self.flush_wait
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
            let error = masked(&error.to_string(), endpoint);
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
        Ok(OtlpRuns {
            provider,
            tracer,
            flushing: Arc::new(AtomicBool::new(false)),
            flush_wait: FLUSH_WAIT,
        })
    }

    /// Sends every span ended so far; blocks until the collector answered or
    /// the export timed out. Call it off async threads.
    pub fn flush(&self) {
        if let Err(error) = self.provider.force_flush() {
            let error = masked(&error.to_string(), None);
            tracing::warn!("OTLP export of hook runs failed: {error}");
        }
    }

    /// Sends every span ended so far, waiting at most `wait` for the
    /// collector: `true` when it answered in time, `false` when the wait was
    /// abandoned (the send goes on, on a thread of its own; while it does,
    /// another flush does not start one more and returns `false` at once).
    /// Blocks the caller for at most `wait`.
    pub fn flush_within(&self, wait: Duration) -> bool {
        if self.flushing.swap(true, Ordering::AcqRel) {
            return false;
        }
        let (done, finished) = std::sync::mpsc::channel();
        let provider = self.provider.clone();
        let flushing = Arc::clone(&self.flushing);
        let started = std::thread::Builder::new()
            .name("hooks-otlp-flush".into())
            .spawn(move || {
                if let Err(error) = provider.force_flush() {
                    tracing::debug!("OTLP export of hook runs failed: {error}");
                }
                flushing.store(false, Ordering::Release);
                let _ = done.send(());
            });
        if started.is_err() {
            self.flushing.store(false, Ordering::Release);
            return false;
        }
        finished.recv_timeout(wait).is_ok()
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

/// The last flush runs on a thread of its own, bounded: dropping the
/// exporter (a host's end) never waits for a collector that does not answer.
impl Drop for OtlpRuns {
    fn drop(&mut self) {
        // The clones keep the provider alive past this drop, on that thread.
        let (provider, tracer) = (self.provider.clone(), self.tracer.clone());
        let _ = std::thread::Builder::new()
            .name("hooks-otlp-stop".into())
            .spawn(move || {
                let _ = provider.shutdown_with_timeout(STOP_BOUND);
                drop(tracer);
            });
    }
}

impl RunObserver for OtlpRuns {
    fn observe(&self, runs: &[HookRun]) {
        for run in runs {
            self.export(run);
        }
    }
}
