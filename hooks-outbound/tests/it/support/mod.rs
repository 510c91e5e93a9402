//! A tiny recording HTTP server on 127.0.0.1 that answers as a test tells it:
//! a status (with an optional `Location`, or after a wait), or never (hang).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::Notify;

pub mod logs;
#[cfg(feature = "nats")]
pub mod nats;

/// One request the sink saw.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
    pub at: Instant,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// How the sink answers one request.
#[derive(Debug, Clone)]
pub enum Answer {
    Status(u16),
    Redirect(u16, String),
    /// The status, after a wait (a slow receiver).
    After(Duration, u16),
    Hang,
}

type Behaviour = Arc<dyn Fn(&Recorded, usize) -> Answer + Send + Sync>;

/// The recording server; stops when dropped.
pub struct Sink {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    arrived: Arc<Notify>,
    connections: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Sink {
    /// Answers every request with `status`.
    pub async fn status(status: u16) -> Sink {
        Sink::start(move |_, _| Answer::Status(status)).await
    }

    /// Answers with `behaviour(request, index of the request)`.
    pub async fn start(
        behaviour: impl Fn(&Recorded, usize) -> Answer + Send + Sync + 'static,
    ) -> Sink {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local addr");
        let requests: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let arrived = Arc::new(Notify::new());
        let behaviour: Behaviour = Arc::new(behaviour);
        let connections = Arc::new(AtomicUsize::new(0));
        let task = tokio::spawn({
            let requests = requests.clone();
            let arrived = arrived.clone();
            let connections = connections.clone();
            async move {
                while let Ok((stream, _)) = listener.accept().await {
                    connections.fetch_add(1, Ordering::Relaxed);
                    let (requests, arrived, behaviour) =
                        (requests.clone(), arrived.clone(), behaviour.clone());
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(
                            move |request: Request<hyper::body::Incoming>| {
                                let (requests, arrived, behaviour) =
                                    (requests.clone(), arrived.clone(), behaviour.clone());
                                async move {
                                    let (parts, body) = request.into_parts();
                                    let body = body
                                        .collect()
                                        .await
                                        .map(|c| c.to_bytes())
                                        .unwrap_or_default();
                                    let recorded = Recorded {
                                        method: parts.method.to_string(),
                                        path: parts.uri.path().to_owned(),
                                        headers: parts
                                            .headers
                                            .iter()
                                            .map(|(k, v)| {
                                                (k.to_string(), v.to_str().unwrap_or("").to_owned())
                                            })
                                            .collect(),
                                        body,
                                        at: Instant::now(),
                                    };
                                    let index = {
                                        let mut all = requests.lock().expect("lock");
                                        all.push(recorded.clone());
                                        all.len() - 1
                                    };
                                    arrived.notify_waiters();
                                    let answer = behaviour(&recorded, index);
                                    let mut response =
                                        Response::new(Full::new(Bytes::from_static(b"ok")));
                                    match answer {
                                        Answer::Status(code) => {
                                            *response.status_mut() =
                                                StatusCode::from_u16(code).expect("status");
                                        }
                                        Answer::Redirect(code, location) => {
                                            *response.status_mut() =
                                                StatusCode::from_u16(code).expect("status");
                                            response.headers_mut().insert(
                                                "location",
                                                location.parse().expect("location"),
                                            );
                                        }
                                        Answer::After(wait, code) => {
                                            tokio::time::sleep(wait).await;
                                            *response.status_mut() =
                                                StatusCode::from_u16(code).expect("status");
                                        }
                                        Answer::Hang => std::future::pending::<()>().await,
                                    }
                                    Ok::<_, Infallible>(response)
                                }
                            },
                        );
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            }
        });
        Sink {
            addr,
            requests,
            arrived,
            connections,
            task,
        }
    }

    /// How many TCP connections were accepted so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::Relaxed)
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("lock").clone()
    }

    /// Waits until at least `count` requests arrived (or `timeout`), and returns them all.
    pub async fn wait_for(&self, count: usize, timeout: Duration) -> Vec<Recorded> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.arrived.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let seen = self.requests();
            if seen.len() >= count {
                return seen;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.requests();
            }
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A url on 127.0.0.1 where nothing listens (connection refused).
pub async fn dead_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    format!("http://{addr}/hook")
}
