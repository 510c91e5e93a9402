//! One lane's task: POST its target's deliveries, `concurrency` at a time,
//! with the reference's retry rules.
//!
//! 2xx is success; 3xx is never followed (logged with its `Location`); 4xx is
//! not retried; connection errors, timeouts and 5xx are retried after
//! `retry_delay × attempt`, up to `max_attempts`. Response bodies are read (up
//! to a cap, so keep-alive connections can be reused) and ignored. Nothing here
//! logs a secret or a signature.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use reqwest::header::LOCATION;
use tokio::runtime::Handle;

use futures::stream::{FuturesUnordered, StreamExt};

use crate::config::TargetSpec;
use crate::jobs::JobReceiver;
use crate::queue::{Job, Shared};
use crate::report::{DeliveryOutcome, DeliveryReport};

/// How much of a response body is read before the connection is given up.
const RESPONSE_DRAIN_LIMIT: usize = 64 * 1024;

/// Retry settings shared by every lane.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RetryPolicy {
    pub(crate) max_attempts: u32,
    pub(crate) retry_delay: Duration,
}

/// One lane's tasks on `runtime` (two, or one with `concurrency: 1`): they
/// take jobs from its queue and keep up to `target.concurrency` deliveries in
/// flight between them, until the sender is gone and nothing is queued or in
/// flight. The deliveries share the keep-alive
/// `client` (so up to that many connections to the target stay open) and,
/// for a NATS target, one publisher.
///
/// Not one task per slot: the emitting thread wakes a lane task only
/// when it waits for work ([`crate::jobs`]), and a lane that just had work
/// does not wait for a wake ([`run_lane`]): a burst costs one wake-up, where
/// `concurrency` tasks taking turns on one queue were each woken from it in
/// turn (at most two are woken per burst here). The requests' sockets are
/// driven by the HTTP client's own connection tasks, so two lane tasks
/// keep both cores busy.
pub(crate) fn spawn_lane(runtime: &Handle, lane: LaneWork) {
    let work = Arc::new(Worker {
        // Parsed once here; config validation already checked it.
        url: reqwest::Url::parse(&lane.target.url).map_err(|error| error.to_string()),
        #[cfg(feature = "nats")]
        publisher: lane
            .target
            .nats
            .is_some()
            .then(|| crate::nats::NatsPublisher::new(lane.target.clone())),
        client: lane.client,
        target: lane.target,
        label: lane.label,
        shared: lane.shared,
        policy: lane.policy,
    });
    // Two tasks when there are two slots or more: on a loaded machine the
    // OS deschedules a runtime worker for tens of ms, and a lane whose only
    // task ran there fell a queue behind (drops in the 4-target bench row).
    let concurrency = work.target.concurrency.max(1);
    let tasks = concurrency.min(LANE_TASKS);
    let jobs = Arc::new(lane.jobs);
    for task in 0..tasks {
        // The slots split as evenly as they go: 5 is 3 + 2.
        let limit = concurrency / tasks + usize::from(task < concurrency % tasks);
        runtime.spawn(run_lane(work.clone(), jobs.clone(), limit));
    }
}

/// Tasks per lane (fewer when `concurrency` is smaller).
const LANE_TASKS: usize = 2;

/// What a lane's task is built from.
pub(crate) struct LaneWork {
    pub(crate) client: reqwest::Client,
    pub(crate) target: Arc<TargetSpec>,
    pub(crate) label: Arc<str>,
    pub(crate) jobs: JobReceiver<Job>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) policy: RetryPolicy,
}

/// What every delivery of one lane shares.
struct Worker {
    client: reqwest::Client,
    url: Result<reqwest::Url, String>,
    #[cfg(feature = "nats")]
    publisher: Option<crate::nats::NatsPublisher>,
    target: Arc<TargetSpec>,
    label: Arc<str>,
    shared: Arc<Shared>,
    policy: RetryPolicy,
}

/// How long a lane that just had work keeps looking at its queue by itself
/// (every [`LINGER_POLL`]) before it asks the emitting thread to wake it.
const LINGER: Duration = Duration::from_millis(5);
/// How often a lingering lane looks (tokio's timer granularity).
const LINGER_POLL: Duration = Duration::from_millis(1);

/// A lane task's loop over its `limit` slots: fill the free ones from the
/// queue, then wait for a slot to free or, with one free and the queue
/// empty, for a job.
///
/// A wake-up costs the emitting thread a syscall, and on a busy machine its
/// core: the woken worker is scheduled on it (40–200 µs per emit measured at
/// load 4 on 2 vCPUs, on each of a fresh queue's first `concurrency` emits,
/// because the lane woke, took the job and waited again before the next).
/// So a lane that had work within [`LINGER`] does not ask for one: it looks
/// again after [`LINGER_POLL`] (or when a push fills half its queue, so a
/// timer late on a loaded machine never costs a drop), and a burst costs
/// one wake-up at its start.
/// Deliveries finishing drive the loop as well, so a busy lane never waits
/// for the poll.
async fn run_lane(work: Arc<Worker>, jobs: Arc<JobReceiver<Job>>, limit: usize) {
    let limit = limit.max(1);
    let mut in_flight = FuturesUnordered::new();
    let mut open = true;
    let mut last_work = tokio::time::Instant::now();
    loop {
        while in_flight.len() < limit {
            let Some(job) = jobs.try_recv() else {
                break;
            };
            in_flight.push(deliver_job(work.clone(), job));
            last_work = tokio::time::Instant::now();
        }
        if !open || in_flight.len() >= limit {
            if in_flight.next().await.is_none() {
                return; // the sender is gone and nothing is left
            }
            last_work = tokio::time::Instant::now();
            continue;
        }
        let lingering = last_work.elapsed() < LINGER;
        tokio::select! {
            // A finished delivery first: its slot takes the next job.
            biased;
            Some(()) = in_flight.next(), if !in_flight.is_empty() => {
                last_work = tokio::time::Instant::now();
            }
            () = tokio::time::sleep(LINGER_POLL), if lingering => {}
            // Half the queue filled before the timer: look now.
            () = jobs.nudged(), if lingering => {}
            more = jobs.ready(), if !lingering => open = more,
        }
        if !open && in_flight.is_empty() {
            return;
        }
    }
}

/// Delivers one job and records it; its body's memory goes back to the pool.
async fn deliver_job(work: Arc<Worker>, job: Job) {
    let report = work.attempt(&job).await;
    work.shared.finish(report);
    work.shared.pool.give(job.delivery.body);
}

impl Worker {
    async fn attempt(&self, job: &Job) -> DeliveryReport {
        let target = &self.target;
        #[cfg(feature = "nats")]
        if let Some(publisher) = &self.publisher {
            return publish(publisher, &self.label, job, &self.shared, self.policy).await;
        }
        match &self.url {
            Ok(url) => {
                deliver(
                    &self.client,
                    url,
                    target,
                    &self.label,
                    job,
                    &self.shared,
                    self.policy,
                )
                .await
            }
            Err(error) => finished(
                &self.label,
                job,
                0,
                None,
                DeliveryOutcome::Failed {
                    error: format!("invalid url: {error}"),
                },
            ),
        }
    }
}

async fn deliver(
    client: &reqwest::Client,
    url: &reqwest::Url,
    target: &TargetSpec,
    label: &str,
    job: &Job,
    shared: &Shared,
    policy: RetryPolicy,
) -> DeliveryReport {
    let event = job.event.as_str();
    let headers = job.delivery.headers(event, target);
    let max_attempts = policy.max_attempts.max(1);
    let mut last_status = None;
    let mut last_error = String::new();
    for attempt in 1..=max_attempts {
        if attempt > 1 {
            shared.retries.fetch_add(1, Ordering::Relaxed);
        }
        let sent = client
            .post(url.clone())
            .timeout(target.timeout)
            .headers(headers.clone())
            .body(job.delivery.body.clone())
            .send()
            .await;
        match sent {
            Ok(response) => {
                let status = response.status();
                last_status = Some(status.as_u16());
                let location = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned);
                drain(response).await;
                let code = status.as_u16();
                if status.is_success() {
                    tracing::debug!("outbound webhook delivered: {event} -> {label} (HTTP {code})");
                    return finished(label, job, attempt, last_status, DeliveryOutcome::Delivered);
                }
                if status.is_redirection() {
                    // A Location can carry credentials as well.
                    let location = location.as_deref().map(crate::redact::redact_url);
                    tracing::warn!(
                        "outbound webhook target redirected (event={event} target={label}): HTTP {code} -> {} — redirects are not followed; update the configured url",
                        location.as_deref().unwrap_or("?")
                    );
                    let outcome = DeliveryOutcome::Redirected { location };
                    return finished(label, job, attempt, last_status, outcome);
                }
                if status.is_client_error() {
                    tracing::warn!(
                        "outbound webhook rejected (event={event} target={label}): HTTP {code} — not retrying"
                    );
                    return finished(label, job, attempt, last_status, DeliveryOutcome::Rejected);
                }
                last_error = format!("HTTP {code}");
            }
            Err(error) => last_error = describe(&error, target),
        }
        if attempt < max_attempts {
            tracing::debug!(
                "outbound webhook attempt {attempt} failed (event={event} target={label}): {last_error} — retrying"
            );
            tokio::time::sleep(policy.retry_delay * attempt).await;
        }
    }
    tracing::warn!(
        "outbound webhook delivery failed after {max_attempts} attempt(s) (event={event} target={label}): {last_error}"
    );
    let outcome = DeliveryOutcome::Failed { error: last_error };
    finished(label, job, max_attempts, last_status, outcome)
}

/// A best-effort NATS delivery: published until the stream acknowledged it,
/// at most `max_attempts` times (the stream drops a repeat by its id).
#[cfg(feature = "nats")]
async fn publish(
    publisher: &crate::nats::NatsPublisher,
    label: &str,
    job: &Job,
    shared: &Shared,
    policy: RetryPolicy,
) -> DeliveryReport {
    let event = job.event.as_str();
    let max_attempts = policy.max_attempts.max(1);
    let mut last_error = String::new();
    for attempt in 1..=max_attempts {
        if attempt > 1 {
            shared.retries.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(policy.retry_delay * (attempt - 1)).await;
        }
        match publisher.publish(event, &job.delivery).await {
            Ok(_) => return finished(label, job, attempt, None, DeliveryOutcome::Published),
            Err(error) => last_error = error,
        }
    }
    tracing::warn!(
        "outbound NATS publish failed after {max_attempts} attempt(s) (event={event} target={label}): {last_error}"
    );
    let outcome = DeliveryOutcome::Failed { error: last_error };
    finished(label, job, max_attempts, None, outcome)
}

fn finished(
    label: &str,
    job: &Job,
    attempts: u32,
    status: Option<u16>,
    outcome: DeliveryOutcome,
) -> DeliveryReport {
    DeliveryReport {
        target: label.to_owned(),
        event: job.event.as_str().to_owned(),
        delivery_id: job.delivery.delivery_id.clone(),
        attempts,
        status,
        outcome,
        elapsed: job.enqueued.elapsed(),
    }
}

/// Reads and discards the body (bounded), so the connection can go back to the pool.
pub(crate) async fn drain(mut response: reqwest::Response) {
    let mut read = 0;
    while let Ok(Some(chunk)) = response.chunk().await {
        read += chunk.len();
        if read > RESPONSE_DRAIN_LIMIT {
            break;
        }
    }
}

/// A one-line description of a transport error, without the url (it is in
/// the label); any quoted url is scrubbed all the same.
pub(crate) fn describe(error: &reqwest::Error, target: &TargetSpec) -> String {
    if error.is_timeout() {
        return format!("timed out after {}s", target.timeout.as_secs_f64());
    }
    let mut parts = Vec::new();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|part: &String| part.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    if parts.is_empty() {
        parts.push(error.to_string());
    }
    let kind = if error.is_connect() {
        "connection failed"
    } else {
        "request failed"
    };
    crate::redact::scrub(&format!("{kind}: {}", parts.join(": ")), &target.url)
}
