//! One attempt of a spooled row (a POST, or a NATS publish), and the
//! worker's WAL checkpoints.

use std::sync::Arc;
use std::time::SystemTime;

use reqwest::header::LOCATION;

use super::{Spool, SpoolRow};
use crate::TargetSpec;
use crate::request::{EventDocument, PreparedDelivery, iso_timestamp};

/// The worker's WAL checkpoints, on a blocking thread (never on the emit
/// path): after [`CHECKPOINT_EVERY`] rows settled, and when idle.
#[derive(Default)]
pub(super) struct Checkpoints {
    settled: usize,
    running: Option<tokio::task::JoinHandle<()>>,
}

/// Rows settled between two checkpoints while the worker is busy.
const CHECKPOINT_EVERY: usize = 1024;

impl Checkpoints {
    pub(super) fn after(&mut self, spool: &Arc<Spool>, settled: usize) {
        self.settled += settled;
        if self.settled >= CHECKPOINT_EVERY {
            self.start(spool);
        }
    }

    pub(super) fn idle(&mut self, spool: &Arc<Spool>) {
        if self.settled > 0 {
            self.start(spool);
        }
    }

    fn start(&mut self, spool: &Arc<Spool>) {
        if self
            .running
            .as_ref()
            .is_some_and(|task| !task.is_finished())
        {
            return;
        }
        self.settled = 0;
        let spool = spool.clone();
        self.running = Some(tokio::task::spawn_blocking(move || {
            if let Err(error) = spool.checkpoint() {
                tracing::debug!("outbound spool checkpoint: {error}");
            }
        }));
    }
}

pub(super) enum Attempt {
    Delivered,
    Retry(String),
    Dead(String),
}

/// One publish of `row` to its NATS target (fresh timestamp, same id).
#[cfg(feature = "nats")]
pub(super) async fn publish(publisher: &crate::nats::NatsPublisher, row: &SpoolRow) -> Attempt {
    let now = SystemTime::now();
    let document = EventDocument::from_bytes(row.document.clone());
    let delivery = PreparedDelivery::taking(document, &row.delivery_id, now, &iso_timestamp(now));
    match publisher.publish(&row.event, &delivery).await {
        Ok(_) => Attempt::Delivered,
        Err(error) => Attempt::Retry(error),
    }
}

/// One POST of `row` to `target`: its document with the same `delivery_id`
/// and a fresh `timestamp`, signed now.
pub(super) async fn attempt(
    client: &reqwest::Client,
    url: &reqwest::Url,
    target: &TargetSpec,
    row: &SpoolRow,
) -> Attempt {
    let now = SystemTime::now();
    let document = EventDocument::from_bytes(row.document.clone());
    let delivery = PreparedDelivery::taking(document, &row.delivery_id, now, &iso_timestamp(now));
    let headers = delivery.headers(&row.event, target);
    let sent = client
        .post(url.clone())
        .timeout(target.timeout)
        .headers(headers)
        .body(delivery.body)
        .send()
        .await;
    let response = match sent {
        Ok(response) => response,
        Err(error) => return Attempt::Retry(crate::delivery::describe(&error, target)),
    };
    let status = response.status();
    let location = response
        .headers()
        .get(LOCATION)
        .and_then(|value| value.to_str().ok())
        .map(crate::redact::redact_url);
    crate::delivery::drain(response).await;
    let code = status.as_u16();
    if status.is_success() {
        Attempt::Delivered
    } else if status.is_redirection() {
        Attempt::Dead(format!(
            "HTTP {code} redirect to {} (not followed)",
            location.as_deref().unwrap_or("?")
        ))
    } else if status.is_client_error() {
        Attempt::Dead(format!("HTTP {code} (rejected)"))
    } else {
        Attempt::Retry(format!("HTTP {code}"))
    }
}
