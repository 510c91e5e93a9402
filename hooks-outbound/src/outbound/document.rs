//! The JSON document of one event, built once and shared by every target
//! that takes it.

#[allow(unused_imports)]
use super::*;

impl Outbound {
    /// The event's document built so far, else built now with the event's
    /// clocks read (`None`: it cannot be serialised, which was warned).
    pub(super) fn take_document(
        &self,
        built: &mut Option<Built>,
        event: &Event,
        hook: HookEvent,
    ) -> Option<Built> {
        if let Some(built) = built.take() {
            return Some(built);
        }
        let created = SystemTime::now();
        match self.document(event, hook) {
            Ok(document) => Some(Built {
                document,
                timestamp: iso_timestamp(created),
                created,
                enqueued: Instant::now(),
            }),
            Err(error) => {
                tracing::warn!(
                    "outbound webhook payload serialization failed (event={}): {error}",
                    hook.as_str()
                );
                None
            }
        }
    }

    /// Serialises `event`'s document into a recycled buffer with room for the
    /// last document of its kind plus the delivery metadata.
    pub(super) fn document(
        &self,
        event: &Event,
        hook: HookEvent,
    ) -> Result<EventDocument, serde_json::Error> {
        let size = &self.document_sizes[hook.index()];
        let capacity = size.load(Ordering::Relaxed).max(128) + METADATA_LEN;
        let buffer = self.shared.pool.take(capacity);
        let document = EventDocument::in_buffer(event, &self.context, buffer)?;
        size.store(document.as_bytes().len(), Ordering::Relaxed);
        Ok(document)
    }

    /// Queues `event` and waits, at most `timeout`, for this event's deliveries
    /// to finish (what `hooks emit` does); other deliveries are not waited for.
    pub async fn emit_and_wait(&self, event: &Event, timeout: Duration) -> EventDeliveries {
        // Subscribed first, so the `Dropped` reports made while queueing arrive too.
        let mut reports = self.subscribe();
        let mut waiting = Vec::new();
        self.enqueue_with(event, |lane, delivery_id, _accepted| {
            waiting.push(EnqueuedDelivery {
                target: lane.label.as_ref().to_owned(),
                delivery_id: delivery_id.to_owned(),
            });
        });
        let deadline = tokio::time::Instant::now() + timeout;
        let mut finished = Vec::with_capacity(waiting.len());
        while !waiting.is_empty() {
            let report = match tokio::time::timeout_at(deadline, reports.recv()).await {
                Ok(Ok(report)) => report,
                // A burst of other events' reports overflowed the channel: keep going.
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
                Ok(Err(broadcast::error::RecvError::Closed)) | Err(_) => break,
            };
            if let Some(index) = waiting
                .iter()
                .position(|delivery| delivery.delivery_id == report.delivery_id)
            {
                waiting.swap_remove(index);
                finished.push(report);
            }
        }
        EventDeliveries {
            finished,
            unfinished: waiting,
        }
    }

    /// Waits until every queued delivery has finished, at most `timeout`;
    /// true when nothing is left.
    pub async fn wait_idle(&self, timeout: Duration) -> bool {
        self.shared.wait_idle(timeout).await
    }
}
