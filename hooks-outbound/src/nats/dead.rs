//! Dead letters of a stream: `<subject>.dead` holds every message a target
//! refused (3xx, 4xx) or that ran out of attempts, with the original
//! headers, the body, and why (`Hermes-Dead-Status`, `Hermes-Dead-Target`,
//! `Hermes-Dead-Reason`, `Hermes-Dead-Subject`). `hooks deliver --from URL
//! --dead` lists them ([`list_dead`]); `--retry-dead` republishes each to
//! its subject, for its one target, and removes it ([`retry_dead`]).

use std::time::Duration;

use async_nats::jetstream::{self, consumer::pull};
use futures::StreamExt;
use serde::Serialize;

use super::MSG_ID_HEADER;
use super::consumer::{DEAD_REASON_HEADER, StreamError, StreamSource};
use crate::config::TargetSpec;

/// The HTTP status that refused the message (absent: it ran out of attempts).
pub const DEAD_STATUS_HEADER: &str = "Hermes-Dead-Status";
/// The target (its label) that refused the message.
pub const DEAD_TARGET_HEADER: &str = "Hermes-Dead-Target";
/// The subject the message was first published to.
pub const DEAD_SUBJECT_HEADER: &str = "Hermes-Dead-Subject";
/// On a republished dead letter: the one target (label) it is for.
pub const RETRY_TARGET_HEADER: &str = "Hermes-Retry-Target";

/// A refusal no retry changes.
#[derive(Debug, Clone)]
pub struct Rejection {
    /// The HTTP status (0: the message could not be sent at all).
    pub status: u16,
    /// Why, in words.
    pub reason: String,
}

impl Rejection {
    /// A refusal with `status` and `reason`.
    pub fn new(status: u16, reason: String) -> Rejection {
        Rejection { status, reason }
    }
}

/// Publishes the dead letters of one message.
pub(crate) struct DeadLetters<'a> {
    pub(crate) nats: &'a jetstream::Context,
    pub(crate) subject: &'a str,
    pub(crate) original: &'a str,
    pub(crate) headers: &'a async_nats::HeaderMap,
    pub(crate) payload: &'a bytes::Bytes,
}

impl DeadLetters<'_> {
    /// Publishes one dead letter (for `target`, or for every target when
    /// `None`) and waits for the stream to store it; false when it did not.
    /// Its id derives from the delivery's, so it is stored once however
    /// often this runs.
    pub(crate) async fn publish(
        &self,
        target: Option<&str>,
        status: Option<u16>,
        reason: &str,
    ) -> bool {
        // A fresh map: a parsed header name may not be the key an insert
        // replaces, and a second `Nats-Msg-Id` would make it a duplicate.
        let mut dead = async_nats::HeaderMap::new();
        let mut id = String::new();
        for (name, values) in self.headers.iter() {
            let name = name.to_string();
            if name.eq_ignore_ascii_case(MSG_ID_HEADER) {
                id = values.first().map(|v| v.to_string()).unwrap_or_default();
                continue;
            }
            if is_dead_header(&name) {
                continue;
            }
            for value in values {
                dead.append(name.as_str(), value.as_str());
            }
        }
        dead.insert(DEAD_REASON_HEADER, reason);
        dead.insert(DEAD_SUBJECT_HEADER, self.original);
        if let Some(status) = status {
            dead.insert(DEAD_STATUS_HEADER, status.to_string().as_str());
        }
        let suffix = match target {
            Some(target) => {
                dead.insert(DEAD_TARGET_HEADER, target);
                format!("dead.{target}")
            }
            None => "dead".to_owned(),
        };
        dead.insert(MSG_ID_HEADER, format!("{id}.{suffix}").as_str());
        let published = self
            .nats
            .publish_with_headers(self.subject.to_owned(), dead, self.payload.clone())
            .await;
        match published {
            Ok(ack) => ack.await.is_ok(),
            Err(_) => false,
        }
    }
}

fn is_dead_header(name: &str) -> bool {
    [
        DEAD_REASON_HEADER,
        DEAD_STATUS_HEADER,
        DEAD_TARGET_HEADER,
        DEAD_SUBJECT_HEADER,
        RETRY_TARGET_HEADER,
    ]
    .iter()
    .any(|header| header.eq_ignore_ascii_case(name))
}

/// One dead letter, as `--dead` lists it.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct DeadLetter {
    /// Its sequence in the stream.
    pub sequence: u64,
    /// The subject the message was first published to.
    pub subject: String,
    /// The event (`X-Hermes-Event`).
    pub event: String,
    /// The delivery id (`X-Hermes-Delivery`).
    pub delivery_id: String,
    /// The target that refused it (absent: it ran out of attempts on every target).
    pub target: Option<String>,
    /// The HTTP status that refused it.
    pub status: Option<u16>,
    /// Why it is dead.
    pub reason: String,
}

/// Every dead letter of `source`'s stream, oldest first.
pub async fn list_dead(source: &StreamSource) -> Result<Vec<DeadLetter>, StreamError> {
    let (_client, stream) = open(source).await?;
    Ok(read_dead(source, &stream)
        .await?
        .into_iter()
        .map(|(letter, _, _)| letter)
        .collect())
}

/// Republishes the dead letters of `source` (only `delivery_id`'s, when
/// given) to their subjects, each for the one target that refused it, and
/// removes them from `<subject>.dead`; returns how many.
pub async fn retry_dead(
    source: &StreamSource,
    delivery_id: Option<&str>,
) -> Result<usize, StreamError> {
    let (client, stream) = open(source).await?;
    let context = jetstream::new(client);
    let scrub = |error: &dyn std::fmt::Display| scrub(source, error);
    let mut count = 0;
    for (letter, headers, payload) in read_dead(source, &stream).await? {
        if delivery_id.is_some_and(|id| id != letter.delivery_id) {
            continue;
        }
        let mut again = async_nats::HeaderMap::new();
        for (name, values) in headers.iter() {
            let name = name.to_string();
            if is_dead_header(&name) || name.eq_ignore_ascii_case(MSG_ID_HEADER) {
                continue;
            }
            for value in values {
                again.append(name.as_str(), value.as_str());
            }
        }
        if let Some(target) = &letter.target {
            again.insert(RETRY_TARGET_HEADER, target.as_str());
        }
        // A new id: the original is still inside the stream's duplicate window.
        let id = format!("{}.retry.{}", letter.delivery_id, letter.sequence);
        again.insert(MSG_ID_HEADER, id.as_str());
        context
            .publish_with_headers(letter.subject.clone(), again, payload)
            .await
            .map_err(|error| scrub(&error))?
            .await
            .map_err(|error| scrub(&error))?;
        stream
            .delete_message(letter.sequence)
            .await
            .map_err(|error| scrub(&error))?;
        count += 1;
    }
    Ok(count)
}

fn scrub(source: &StreamSource, error: &dyn std::fmt::Display) -> StreamError {
    StreamError::new(crate::redact::scrub(&format!("nats: {error}"), &source.url))
}

async fn open(
    source: &StreamSource,
) -> Result<(async_nats::Client, jetstream::stream::Stream), StreamError> {
    let mut as_target = TargetSpec::new(source.url.clone(), []);
    as_target.nats = Some(source.nats.clone());
    as_target.timeout = Duration::from_secs(10);
    let (client, context) = super::connect(&as_target)
        .await
        .map_err(|error| scrub(source, &*error))?;
    let stream = super::ensure_stream(&context, &source.nats.stream, &source.nats.subject)
        .await
        .map_err(|error| scrub(source, &*error))?;
    Ok((client, stream))
}

/// The dead letters with their headers and bodies, through an ordered
/// consumer that ends at the last one stored now.
async fn read_dead(
    source: &StreamSource,
    stream: &jetstream::stream::Stream,
) -> Result<Vec<(DeadLetter, async_nats::HeaderMap, bytes::Bytes)>, StreamError> {
    let subject = format!("{}.dead", source.nats.subject);
    let Ok(last) = stream.get_last_raw_message_by_subject(&subject).await else {
        return Ok(Vec::new()); // none stored
    };
    let consumer = stream
        .create_consumer(pull::OrderedConfig {
            filter_subject: subject,
            ..Default::default()
        })
        .await
        .map_err(|error| scrub(source, &error))?;
    let mut messages = consumer
        .messages()
        .await
        .map_err(|error| scrub(source, &error))?;
    let mut letters = Vec::new();
    loop {
        let next = tokio::time::timeout(Duration::from_secs(10), messages.next()).await;
        let message = match next {
            Ok(Some(Ok(message))) => message,
            Ok(Some(Err(error))) => return Err(scrub(source, &error)),
            Ok(None) | Err(_) => break,
        };
        let sequence = message.info().map(|info| info.stream_sequence).unwrap_or(0);
        let headers = message.headers.clone().unwrap_or_default();
        let header = |name: &str| headers.get(name).map(|value| value.as_str().to_owned());
        let event = header("X-Hermes-Event").unwrap_or_default();
        let letter = DeadLetter {
            sequence,
            subject: header(DEAD_SUBJECT_HEADER)
                .unwrap_or_else(|| super::subject_for(&source.nats.subject, &event)),
            delivery_id: header("X-Hermes-Delivery").unwrap_or_default(),
            event,
            target: header(DEAD_TARGET_HEADER),
            status: header(DEAD_STATUS_HEADER).and_then(|status| status.parse().ok()),
            reason: header(DEAD_REASON_HEADER).unwrap_or_default(),
        };
        letters.push((letter, headers.clone(), message.payload.clone()));
        if sequence >= last.sequence {
            break;
        }
    }
    Ok(letters)
}
