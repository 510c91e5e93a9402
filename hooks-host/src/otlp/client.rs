//! The HTTP client the OTLP exporter sends with: reqwest's blocking client,
//! built on first use on the exporter's own thread (the SDK's batch thread has
//! no tokio runtime, and a blocking client must not be made or dropped on one).

use std::sync::OnceLock;
use std::time::Duration;

use bytes::Bytes;
use opentelemetry_http::{HttpClient, HttpError, Request, Response};

/// How long one export may take when `OTEL_EXPORTER_OTLP_TIMEOUT` says nothing
/// shorter (the SDK bounds the export too).
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// A reqwest blocking client, made lazily.
#[derive(Debug, Default)]
pub(super) struct BlockingClient {
    client: OnceLock<Result<reqwest::blocking::Client, String>>,
}

#[hermes_hooks_core::async_trait]
impl HttpClient for BlockingClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let client = self
            .client
            .get_or_init(|| {
                reqwest::blocking::Client::builder()
                    .timeout(SEND_TIMEOUT)
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .map_err(|error| error.to_string())
            })
            .as_ref()
            .map_err(|error| HttpError::from(error.clone()))?;
        let (parts, body) = request.into_parts();
        let mut outgoing = client
            .request(parts.method, parts.uri.to_string())
            .body(body.to_vec());
        for (name, value) in &parts.headers {
            outgoing = outgoing.header(name, value);
        }
        let answer = outgoing.send()?;
        let status = answer.status();
        let headers = answer.headers().clone();
        let body = answer.bytes()?;
        let mut response = Response::builder().status(status);
        if let Some(map) = response.headers_mut() {
            *map = headers;
        }
        Ok(response.body(body)?)
    }
}
