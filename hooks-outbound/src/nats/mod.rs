//! NATS JetStream publishing (feature `nats`): a target with `url: nats://…`
//! publishes each delivery to `<subject>.<event>` with the webhook's signed
//! body and `X-Hermes-*` headers plus `Nats-Msg-Id: <delivery_id>`, and counts
//! it delivered only when the stream acknowledged it. The stream deduplicates
//! on the id within its duplicate window, so a retry never stores it twice.
//!
//! One connection per target, made on first use and made again after it was
//! lost: a publish is never handed to a disconnected client (which would
//! buffer it and send it on reconnection, behind the retry's back).

pub mod consumer;
pub mod dead;

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream;
use tokio::sync::Mutex;

use crate::config::TargetSpec;
use crate::request::PreparedDelivery;

/// The header JetStream deduplicates on.
pub const MSG_ID_HEADER: &str = "Nats-Msg-Id";

/// The duplicate window of a stream this crate creates: longer than the
/// longest backoff between two attempts (5 min), so every retry of a delivery
/// lands inside the window of the one before.
pub const DUPLICATE_WINDOW: Duration = Duration::from_secs(10 * 60);

/// The subject a delivery of `event` goes to.
pub fn subject_for(prefix: &str, event: &str) -> String {
    format!("{prefix}.{event}")
}

/// Publishes one target's deliveries.
pub(crate) struct NatsPublisher {
    target: Arc<TargetSpec>,
    connection: Mutex<Option<(async_nats::Client, jetstream::Context)>>,
}

impl NatsPublisher {
    /// A publisher for `target` (which has [`TargetSpec::nats`]); it connects on first use.
    pub(crate) fn new(target: Arc<TargetSpec>) -> NatsPublisher {
        NatsPublisher {
            target,
            connection: Mutex::new(None),
        }
    }

    /// Publishes `delivery` of `event` and waits for the stream's
    /// acknowledgement, within the target's timeout. `Ok(true)`: the stream
    /// already held it (a duplicate, dropped by its id).
    pub(crate) async fn publish(
        &self,
        event: &str,
        delivery: &PreparedDelivery,
    ) -> Result<bool, String> {
        let timeout = self.target.timeout;
        match tokio::time::timeout(timeout, self.publish_now(event, delivery)).await {
            Ok(Ok(duplicate)) => Ok(duplicate),
            Ok(Err(error)) => {
                self.forget().await;
                Err(error)
            }
            Err(_) => {
                self.forget().await;
                Err(format!(
                    "no acknowledgement within {}s",
                    timeout.as_secs_f64()
                ))
            }
        }
    }

    async fn publish_now(&self, event: &str, delivery: &PreparedDelivery) -> Result<bool, String> {
        let context = self.context().await?;
        let Some(nats) = &self.target.nats else {
            return Err("not a NATS target".to_owned());
        };
        let mut headers = async_nats::HeaderMap::new();
        for (name, value) in delivery.headers(event, &self.target).iter() {
            if let Ok(value) = value.to_str() {
                headers.insert(canonical(name.as_str()), value);
            }
        }
        headers.insert(MSG_ID_HEADER, delivery.delivery_id.as_str());
        let subject = subject_for(&nats.subject, event);
        let ack = context
            .publish_with_headers(subject, headers, delivery.body.clone())
            .await
            .map_err(|error| self.describe(&error))?
            .await
            .map_err(|error| self.describe(&error))?;
        Ok(ack.duplicate)
    }

    /// The connection, made (and the stream ensured) when there is none or
    /// the last one was lost.
    async fn context(&self) -> Result<jetstream::Context, String> {
        let mut slot = self.connection.lock().await;
        if let Some((client, context)) = slot.as_ref() {
            if client.connection_state() == async_nats::connection::State::Connected {
                return Ok(context.clone());
            }
            *slot = None;
        }
        let (client, context) = connect(&self.target)
            .await
            .map_err(|error| self.describe(&*error))?;
        *slot = Some((client, context.clone()));
        Ok(context)
    }

    async fn forget(&self) {
        *self.connection.lock().await = None;
    }

    /// An error as one line, with the url (and its credentials) scrubbed.
    fn describe(&self, error: &dyn std::fmt::Display) -> String {
        crate::redact::scrub(&format!("nats: {error}"), &self.target.url)
    }
}

/// `x-hermes-event` as `X-Hermes-Event`: NATS header names keep their case,
/// and readers of a stream expect the names the doc spells.
fn canonical(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// Connects to `target`'s server with its credentials and makes sure its
/// stream exists (created with subjects `<subject>.>` and [`DUPLICATE_WINDOW`]).
pub(crate) async fn connect(
    target: &TargetSpec,
) -> Result<(async_nats::Client, jetstream::Context), Box<dyn std::error::Error + Send + Sync>> {
    let Some(nats) = &target.nats else {
        return Err("not a NATS target".into());
    };
    let mut options = async_nats::ConnectOptions::new()
        .name("hermes-hooks")
        .connection_timeout(target.timeout);
    if let (Some(user), Some(password)) = (&nats.user, &nats.password) {
        options = options.user_and_password(user.expose().to_owned(), password.expose().to_owned());
    }
    if let Some(token) = &nats.token {
        options = options.token(token.expose().to_owned());
    }
    let client = options.connect(target.url.as_str()).await?;
    let context = jetstream::new(client.clone());
    ensure_stream(&context, &nats.stream, &nats.subject).await?;
    Ok((client, context))
}

/// The stream `name`, created when missing with subjects `<subject>.>`.
pub(crate) async fn ensure_stream(
    context: &jetstream::Context,
    name: &str,
    subject: &str,
) -> Result<jetstream::stream::Stream, Box<dyn std::error::Error + Send + Sync>> {
    let stream = context
        .get_or_create_stream(jetstream::stream::Config {
            name: name.to_owned(),
            subjects: vec![format!("{subject}.>")],
            duplicate_window: DUPLICATE_WINDOW,
            ..Default::default()
        })
        .await?;
    Ok(stream)
}

/// What [`probe`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// The server answered and the stream exists.
    StreamReady,
    /// The server answered; the stream does not exist yet (the first publish creates it).
    StreamMissing,
    /// The server did not answer (or refused the credentials): the error, url scrubbed.
    Unreachable(String),
}

/// Whether `target`'s server answers within `timeout` and its stream exists;
/// creates nothing (what `hooks list` and `hooks doctor` show).
pub async fn probe(target: &TargetSpec, timeout: Duration) -> Probe {
    let Some(nats) = &target.nats else {
        return Probe::Unreachable("not a NATS target".to_owned());
    };
    let attempt = async {
        let mut options = async_nats::ConnectOptions::new()
            .name("hermes-hooks-probe")
            .connection_timeout(timeout);
        if let (Some(user), Some(password)) = (&nats.user, &nats.password) {
            options =
                options.user_and_password(user.expose().to_owned(), password.expose().to_owned());
        }
        if let Some(token) = &nats.token {
            options = options.token(token.expose().to_owned());
        }
        let client = options
            .connect(target.url.as_str())
            .await
            .map_err(|error| error.to_string())?;
        let context = jetstream::new(client);
        Ok::<_, String>(match context.get_stream(&nats.stream).await {
            Ok(_) => Probe::StreamReady,
            Err(_) => Probe::StreamMissing,
        })
    };
    match tokio::time::timeout(timeout, attempt).await {
        Ok(Ok(probe)) => probe,
        Ok(Err(error)) => Probe::Unreachable(crate::redact::scrub(&error, &target.url)),
        Err(_) => Probe::Unreachable(format!("no answer within {}s", timeout.as_secs_f64())),
    }
}
