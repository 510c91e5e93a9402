//! A small local receiver for outbound webhooks (what `hooks listen` runs):
//! verifies each POST and hands it to a callback.
//!
//! Answers: 200 for a verified delivery (or any JSON POST when no secret is
//! configured), 401 for a missing or bad signature, stale timestamp or
//! mismatched ids, 409 for a `delivery_id` already accepted (a replay inside
//! the timestamp window; the id is the one the delivery was signed under: the
//! body's for Hermes signatures, `webhook-id` / `svix-id` for Standard
//! Webhooks, whether or not the body has one), 400 for a body that is not
//! JSON, 405 for other methods, 408 for a body that does not arrive in time
//! and 413 for bodies over the limit. A connection that does not send its request head within
//! the read timeout is closed. The callback sees every POST, rejected ones
//! included, with the status it was answered.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8644").await?;
//! hermes_hooks_outbound::receiver::serve(listener, Some(b"secret".to_vec()), |delivery| {
//!     println!("{} {:?} {:?}", delivery.status, delivery.event, delivery.verification);
//! })
//! .await;
//! # Ok(()) }
//! ```

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;

use crate::verify::{DEFAULT_TOLERANCE, HeaderLookup, Scheme, VerifyError, verify};

mod replay;

/// The largest body accepted (Hermes inbound uses the same 1 MiB limit).
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;

/// How long a client may take to send a request head, and then its body.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How many accepted delivery ids are remembered for replay protection.
pub const DEFAULT_REPLAY_MEMORY: usize = 10_000;

/// Headers copied into [`ReceivedDelivery::headers`]; signature values never are.
const SUMMARY_HEADERS: [&str; 8] = [
    "content-type",
    "user-agent",
    "x-hermes-event",
    "x-hermes-delivery",
    "webhook-id",
    "webhook-timestamp",
    "svix-id",
    "svix-timestamp",
];
const SIGNATURE_HEADERS: [&str; 4] = [
    "x-hermes-signature-256",
    "x-hub-signature-256",
    "webhook-signature",
    "svix-signature",
];

/// Settings of [`serve_with`].
#[derive(Clone)]
#[non_exhaustive]
pub struct ReceiverConfig {
    /// The shared secret; `None` accepts every JSON POST unverified.
    pub secret: Option<Vec<u8>>,
    /// The replay window for timestamps.
    pub tolerance: Duration,
    /// The largest body accepted.
    pub max_body_bytes: usize,
    /// The time a client has to send its request head, and again its body: a
    /// connection that sends nothing is closed, it does not hold a slot forever.
    pub read_timeout: Duration,
    /// Accepted delivery ids remembered to refuse replays (0: no check).
    pub replay_memory: usize,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            secret: None,
            tolerance: DEFAULT_TOLERANCE,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            read_timeout: DEFAULT_READ_TIMEOUT,
            replay_memory: DEFAULT_REPLAY_MEMORY,
        }
    }
}

impl std::fmt::Debug for ReceiverConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReceiverConfig")
            .field("secret", &self.secret.as_ref().map(|_| "<redacted>"))
            .field("tolerance", &self.tolerance)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("read_timeout", &self.read_timeout)
            .field("replay_memory", &self.replay_memory)
            .finish()
    }
}

/// What the receiver made of a request's signature.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verification {
    /// The signature, timestamp and ids checked out.
    Verified(Scheme),
    /// No secret is configured, so nothing was checked.
    NoSecret,
    /// Refused (answered 401 or 400).
    Rejected(VerifyError),
}

impl Verification {
    /// Whether the delivery was verified.
    pub fn is_verified(&self) -> bool {
        matches!(self, Verification::Verified(_))
    }
}

/// One POST the receiver answered.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ReceivedDelivery {
    /// The status it was answered with.
    pub status: u16,
    /// The event (body `hook_event_name`, else `X-Hermes-Event`).
    pub event: Option<String>,
    /// The delivery id: the signed one when verified, else body `delivery_id`,
    /// else `X-Hermes-Delivery` / `webhook-id` / `svix-id`.
    pub delivery_id: Option<String>,
    /// The verification result.
    pub verification: Verification,
    /// The parsed body (`Null` when it is not JSON).
    pub body: Value,
    /// Selected headers (content type, user agent, Hermes and Standard Webhooks
    /// ids), lowercase names; signature headers appear as `<present>`.
    pub headers: Vec<(String, String)>,
    /// The sender's address.
    pub remote: SocketAddr,
}

/// Serves `listener` until the future is dropped, with the default tolerance and body limit.
pub async fn serve<F>(listener: TcpListener, secret: Option<Vec<u8>>, on_delivery: F)
where
    F: Fn(ReceivedDelivery) + Send + Sync + 'static,
{
    let config = ReceiverConfig {
        secret,
        ..ReceiverConfig::default()
    };
    serve_with(listener, config, on_delivery).await;
}

/// Serves `listener` with `config` until the future is dropped.
pub async fn serve_with<F>(listener: TcpListener, config: ReceiverConfig, on_delivery: F)
where
    F: Fn(ReceivedDelivery) + Send + Sync + 'static,
{
    let state = Arc::new(State {
        seen: replay::SeenIds::new(config.replay_memory),
        config,
        on_delivery: Box::new(on_delivery),
    });
    loop {
        let (stream, remote) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Usually out of file descriptors: back off instead of spinning.
                tracing::warn!("webhook receiver: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let state = state.clone();
        let read_timeout = state.config.read_timeout;
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(state.handle(request, remote).await) }
            });
            if let Err(error) = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(read_timeout)
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                tracing::debug!("webhook receiver: connection from {remote} ended: {error}");
            }
        });
    }
}

type Callback = Box<dyn Fn(ReceivedDelivery) + Send + Sync>;

struct State {
    config: ReceiverConfig,
    seen: replay::SeenIds,
    on_delivery: Callback,
}

impl State {
    async fn handle(
        &self,
        request: Request<Incoming>,
        remote: SocketAddr,
    ) -> Response<Full<Bytes>> {
        if request.method() != Method::POST {
            return answer(StatusCode::METHOD_NOT_ALLOWED, "POST deliveries here\n");
        }
        let (parts, body) = request.into_parts();
        let collect = Limited::new(body, self.config.max_body_bytes).collect();
        let body = match tokio::time::timeout(self.config.read_timeout, collect).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(_)) => {
                return answer(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body too large or unreadable\n",
                );
            }
            Err(_) => return answer(StatusCode::REQUEST_TIMEOUT, "body not sent in time\n"),
        };
        let headers = &parts.headers;
        let parsed: Option<Value> = serde_json::from_slice(&body).ok();
        // The id a verified delivery was signed under (the body's for the
        // Hermes scheme, `webhook-id` / `svix-id` for Standard Webhooks) is the
        // one replays are refused by.
        let (verification, signed_id) = match &self.config.secret {
            None => (Verification::NoSecret, None),
            Some(secret) => match verify(
                secret,
                headers,
                &body,
                SystemTime::now(),
                self.config.tolerance,
            ) {
                Ok(verified) => (
                    Verification::Verified(verified.scheme),
                    Some(verified.delivery_id),
                ),
                Err(error) => (Verification::Rejected(error), None),
            },
        };
        // Authentication first: a bad signature is a 401 whatever the body is.
        let not_json = || (StatusCode::BAD_REQUEST, "body is not JSON\n".to_owned());
        let (status, text) = match (&verification, &parsed) {
            (Verification::Rejected(VerifyError::NotJson(_)), _) => not_json(),
            (Verification::Rejected(error), _) => (StatusCode::UNAUTHORIZED, format!("{error}\n")),
            (_, None) => not_json(),
            _ => (StatusCode::OK, "ok\n".to_owned()),
        };
        let body = parsed.unwrap_or(Value::Null);
        let field = |key: &str, header: &[&str]| {
            body.get(key)
                .and_then(Value::as_str)
                .or_else(|| header.iter().find_map(|name| headers.header(name)))
                .map(str::to_owned)
        };
        let delivery_id = signed_id.or_else(|| {
            field(
                "delivery_id",
                &["x-hermes-delivery", "webhook-id", "svix-id"],
            )
        });
        // Only a delivery that would be accepted is remembered; a second copy
        // of one (a replay inside the timestamp window) is refused.
        let (status, text, verification) = match &delivery_id {
            Some(id) if status == StatusCode::OK && !self.seen.accept(id) => {
                let error = VerifyError::Replayed {
                    delivery_id: id.clone(),
                };
                (
                    StatusCode::CONFLICT,
                    format!("{error}\n"),
                    Verification::Rejected(error),
                )
            }
            _ => (status, text, verification),
        };
        let delivery = ReceivedDelivery {
            status: status.as_u16(),
            event: field("hook_event_name", &["x-hermes-event"]),
            delivery_id,
            verification,
            headers: summary(headers),
            body,
            remote,
        };
        (self.on_delivery)(delivery);
        answer(status, &text)
    }
}

fn summary(headers: &hyper::HeaderMap) -> Vec<(String, String)> {
    let mut summary: Vec<(String, String)> = SUMMARY_HEADERS
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), headers.header(name)?.to_owned())))
        .collect();
    summary.extend(
        SIGNATURE_HEADERS
            .iter()
            .filter(|name| headers.contains_key(**name))
            .map(|name| ((*name).to_owned(), "<present>".to_owned())),
    );
    summary
}

fn answer(status: StatusCode, text: &str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(text.to_owned())));
    *response.status_mut() = status;
    response
}

setters!(ReceiverConfig {
    with_secret => secret: Option<Vec<u8>>,
    with_tolerance => tolerance: Duration,
    with_max_body_bytes => max_body_bytes: usize,
    with_read_timeout => read_timeout: Duration,
    with_replay_memory => replay_memory: usize,
});
