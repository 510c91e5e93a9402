//! `hooks deliver --from nats://…`: a delivery worker on a JetStream stream.
//!
//! It reads through a durable pull consumer (shared by every worker that
//! names it, on any machine) and POSTs each message to the HTTP targets of its
//! home whose `events`/`matcher` take it, signed with each target's own
//! secret, the body's `delivery_id` kept and its `timestamp` fresh. The
//! message is acked when every target answered 2xx; a target that answers
//! 3xx or 4xx (which no retry changes) gets a dead letter on
//! `<subject>.dead` (status, target, reason: [`super::dead`]) and the
//! message is then terminated; 5xx, connection errors and timeouts nak it
//! with backoff, and at its `max_deliver`-th attempt it is dead-lettered
//! too. A worker killed mid-delivery loses nothing: JetStream redelivers
//! after `ack_wait` (to it or another worker), and receivers dedupe on
//! `delivery_id`.
//!
//! A worker pulls one message at a time: a message waiting in one worker's
//! buffer while its `ack_wait` runs out would be redelivered to another and
//! sent twice.

use std::future::Future;
use std::time::{Duration, SystemTime};

use async_nats::jetstream::{self, AckKind, consumer::pull};
use futures::StreamExt;
use hermes_hooks_core::HookEvent;
use reqwest::header::HeaderMap;

use crate::config::{NatsTarget, TargetSpec};
use crate::request::{PreparedDelivery, iso_timestamp};

/// The consumer name when none is given.
pub const DEFAULT_CONSUMER: &str = "hooks-deliver";
/// Attempts per message before it becomes a dead letter.
pub const DEFAULT_MAX_DELIVER: i64 = 5;
/// How long a message may go unacknowledged before JetStream redelivers it.
pub const DEFAULT_ACK_WAIT: Duration = Duration::from_secs(30);
/// The header a dead letter carries its reason in.
pub const DEAD_REASON_HEADER: &str = "Hermes-Dead-Reason";

/// Where a stream worker reads, and how.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StreamSource {
    /// `nats://HOST:PORT` (or `tls://`), credentials from [`NatsTarget`].
    pub url: String,
    /// The stream (its subject prefix is `nats.subject`); created when missing.
    pub nats: NatsTarget,
    /// The durable consumer every worker shares.
    pub consumer: String,
    /// Attempts per message before `<subject>.dead`.
    pub max_deliver: i64,
    /// Redelivery after this long without an ack (also bounds one delivery).
    pub ack_wait: Duration,
    /// The first nak's delay, doubled per attempt up to 5 min.
    pub backoff: Duration,
}

impl StreamSource {
    /// `url`'s stream `HERMES_HOOKS` through consumer `hooks-deliver`, with the defaults.
    pub fn new(url: impl Into<String>) -> StreamSource {
        StreamSource {
            url: url.into(),
            nats: NatsTarget::default(),
            consumer: DEFAULT_CONSUMER.to_owned(),
            max_deliver: DEFAULT_MAX_DELIVER,
            ack_wait: DEFAULT_ACK_WAIT,
            backoff: Duration::from_secs(1),
        }
    }
}

/// What a stream worker did before it stopped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamTotals {
    /// Messages acknowledged (every target answered).
    pub acked: u64,
    /// Messages nakked for a later attempt.
    pub nakked: u64,
    /// Messages published to `<subject>.dead` and terminated.
    pub dead: u64,
    /// Messages no target of this home takes (acked).
    pub skipped: u64,
}

/// Why a stream worker could not run.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StreamError(String);

impl StreamError {
    /// An error with `message` (credentials already scrubbed).
    pub(crate) fn new(message: String) -> StreamError {
        StreamError(message)
    }
}

/// Consumes `source` and delivers to `targets` (their HTTP ones) until `stop`
/// resolves; the message in hand is finished first.
pub async fn run_stream_worker(
    source: &StreamSource,
    targets: &[TargetSpec],
    stop: impl Future<Output = ()>,
) -> Result<StreamTotals, StreamError> {
    let scrub = |error: &dyn std::fmt::Display| {
        StreamError(crate::redact::scrub(&format!("nats: {error}"), &source.url))
    };
    let targets: Vec<TargetSpec> = targets
        .iter()
        .filter(|target| target.nats.is_none())
        .cloned()
        .collect();
    let client = crate::outbound::http_client().map_err(|e| StreamError(e.to_string()))?;
    let mut as_target = TargetSpec::new(source.url.clone(), []);
    as_target.nats = Some(source.nats.clone());
    as_target.timeout = Duration::from_secs(10);
    let (nats_client, context) = super::connect(&as_target)
        .await
        .map_err(|error| scrub(&*error))?;
    let stream = super::ensure_stream(&context, &source.nats.stream, &source.nats.subject)
        .await
        .map_err(|error| scrub(&*error))?;
    let consumer: jetstream::consumer::Consumer<pull::Config> = stream
        .get_or_create_consumer(
            &source.consumer,
            pull::Config {
                durable_name: Some(source.consumer.clone()),
                ack_policy: jetstream::consumer::AckPolicy::Explicit,
                ack_wait: source.ack_wait,
                // One spare attempt: a dead letter that could not be published
                // at the last one is tried again, never left unacknowledged.
                max_deliver: source.max_deliver.saturating_add(1),
                ..Default::default()
            },
        )
        .await
        .map_err(|error| scrub(&error))?;
    // One at a time: see the module docs.
    let mut messages = consumer
        .stream()
        .max_messages_per_batch(1)
        .messages()
        .await
        .map_err(|error| scrub(&error))?;
    let mut totals = StreamTotals::default();
    tokio::pin!(stop);
    loop {
        let message = tokio::select! {
            () = &mut stop => break,
            next = messages.next() => match next {
                Some(Ok(message)) => message,
                Some(Err(error)) => {
                    tracing::warn!("{}", scrub(&error));
                    continue;
                }
                None => return Err(StreamError("nats: the consumer's message stream ended".into())),
            },
        };
        let worker = Handling {
            client: &client,
            nats: &context,
            source,
            targets: &targets,
        };
        worker.handle(&message, &mut totals).await;
    }
    drop(nats_client);
    Ok(totals)
}

struct Handling<'a> {
    client: &'a reqwest::Client,
    nats: &'a jetstream::Context,
    source: &'a StreamSource,
    targets: &'a [TargetSpec],
}

impl Handling<'_> {
    async fn handle(&self, message: &jetstream::Message, totals: &mut StreamTotals) {
        let subject = message.subject.as_str();
        let dead_subject = format!("{}.dead", self.source.nats.subject);
        let headers = message.headers.clone().unwrap_or_default();
        let event = headers
            .get("X-Hermes-Event")
            .map(|value| value.as_str().to_owned())
            .or_else(|| subject.rsplit('.').next().map(str::to_owned))
            .unwrap_or_default();
        // A republished dead letter names the one target it is for.
        let only = headers
            .get(super::dead::RETRY_TARGET_HEADER)
            .map(|value| value.as_str().to_owned());
        let wanted: Vec<&TargetSpec> = match (subject == dead_subject, event.parse::<HookEvent>()) {
            (false, Ok(hook)) => {
                let tool = serde_json::from_slice::<serde_json::Value>(&message.payload)
                    .ok()
                    .and_then(|body| body["tool_name"].as_str().map(str::to_owned));
                self.targets
                    .iter()
                    .filter(|target| target.wants(hook, tool.as_deref()))
                    .filter(|target| only.as_ref().is_none_or(|only| *only == target.label()))
                    .collect()
            }
            _ => Vec::new(),
        };
        if wanted.is_empty() {
            // Dead letters, events this home does not deliver: nothing to do here.
            totals.skipped += 1;
            let _ = message.ack().await;
            return;
        }
        let mut retry = None;
        let mut refused = Vec::new();
        for target in wanted {
            // Each POST may take its whole timeout: keep the message ours meanwhile.
            let _ = message.ack_with(AckKind::Progress).await;
            match self.post(target, &event, &message.payload).await {
                Ok(None) => {}
                Ok(Some(rejection)) => refused.push((target.label(), rejection)),
                Err(error) => {
                    tracing::debug!(
                        "stream delivery to {} failed (event={event}): {error}",
                        target.label()
                    );
                    retry = Some(error);
                }
            }
        }
        let dead_letters = super::dead::DeadLetters {
            nats: self.nats,
            subject: &dead_subject,
            original: subject,
            headers: &headers,
            payload: &message.payload,
        };
        // A refusal no retry changes: its dead letter first (stored once by its id).
        let mut stored = true;
        for (label, rejection) in &refused {
            tracing::warn!(
                "stream delivery refused by {label} (event={event}): {} — dead-lettered to {dead_subject}",
                rejection.reason
            );
            stored &= dead_letters
                .publish(Some(label), Some(rejection.status), &rejection.reason)
                .await;
        }
        let delivered = message.info().map(|info| info.delivered).unwrap_or(1);
        if retry.is_none() && stored {
            if refused.is_empty() {
                totals.acked += 1;
                let _ = message.ack().await;
            } else {
                totals.dead += 1;
                let _ = message.ack_with(AckKind::Term).await;
            }
            return;
        }
        let error = retry.unwrap_or_else(|| "the dead letter could not be stored".to_owned());
        if delivered >= self.source.max_deliver && dead_letters.publish(None, None, &error).await {
            tracing::warn!(
                "stream message dead-lettered after {delivered} attempt(s) (event={event}): {error}"
            );
            totals.dead += 1;
            let _ = message.ack_with(AckKind::Term).await;
            return;
        }
        totals.nakked += 1;
        let exponent = u32::try_from(delivered.saturating_sub(1).clamp(0, 20)).unwrap_or(20);
        let delay = self
            .source
            .backoff
            .saturating_mul(1 << exponent)
            .min(Duration::from_secs(300));
        let _ = message.ack_with(AckKind::Nak(Some(delay))).await;
    }

    /// POSTs `payload` to `target` with a fresh timestamp, signed with its
    /// secret: `Ok(None)` on a 2xx, `Ok(Some(..))` on a 3xx/4xx (or a body
    /// that cannot be sent), `Err` for what a retry can change (5xx,
    /// connection errors, timeouts).
    async fn post(
        &self,
        target: &TargetSpec,
        event: &str,
        payload: &[u8],
    ) -> Result<Option<super::dead::Rejection>, String> {
        use super::dead::Rejection;
        let now = SystemTime::now();
        let mut body: serde_json::Value = match serde_json::from_slice(payload) {
            Ok(body) => body,
            Err(error) => {
                return Ok(Some(Rejection::new(
                    0,
                    format!("body is not JSON: {error}"),
                )));
            }
        };
        let delivery_id = body["delivery_id"].as_str().unwrap_or_default().to_owned();
        if body.is_object() {
            body["timestamp"] = serde_json::Value::String(iso_timestamp(now));
        }
        let bytes = serde_json::to_vec(&body).map_err(|error| error.to_string())?;
        let delivery = PreparedDelivery {
            delivery_id,
            created: now,
            body: bytes.into(),
        };
        let headers: HeaderMap = delivery.headers(event, target);
        let url = match reqwest::Url::parse(&target.url) {
            Ok(url) => url,
            Err(error) => return Ok(Some(Rejection::new(0, format!("invalid url: {error}")))),
        };
        let response = self
            .client
            .post(url)
            .timeout(target.timeout)
            .headers(headers)
            .body(delivery.body)
            .send()
            .await
            .map_err(|error| crate::delivery::describe(&error, target))?;
        let status = response.status();
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|value| value.to_str().ok())
            .map(crate::redact::redact_url);
        crate::delivery::drain(response).await;
        let code = status.as_u16();
        if status.is_server_error() {
            return Err(format!("HTTP {code}"));
        }
        if status.is_success() {
            return Ok(None);
        }
        let reason = if status.is_redirection() {
            format!(
                "HTTP {code} redirect to {} (not followed)",
                location.as_deref().unwrap_or("?")
            )
        } else {
            format!("HTTP {code} (rejected)")
        };
        Ok(Some(Rejection::new(code, reason)))
    }
}

setters!(StreamSource {
    with_nats => nats: NatsTarget,
    with_consumer => consumer: String,
    with_max_deliver => max_deliver: i64,
    with_ack_wait => ack_wait: Duration,
    with_backoff => backoff: Duration,
});
