//! The webhook deliverer ([`crate::webhooks`]): every server runs one task that reads the
//! subscriptions each interval and delivers those with entries waiting, each while it holds
//! the subscription's lease (PostgreSQL: one server at a time, taken over within
//! [`Settings::lease`] when the holder dies; SQLite: the one server).
//!
//! A subscription's deliveries go one at a time, in `seq` order: the entry after the cursor
//! is read under the ladder's names lock (an erasure waits), built into a body, signed and
//! sent; the cursor moves past it only when the receiver answers 2xx, under the lease. A
//! failure keeps the cursor and waits a backoff ([`crate::webhooks::backoff`]) before the
//! same entry is sent again with the same `webhook-id`. So a receiver gets each entry at
//! least once and in order, and sees one twice only after a failure (an answer that did not
//! arrive, a server killed between the answer and the cursor's move, a lease lost to a
//! server frozen longer than it lasts).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

use crate::error::ApiError;
use crate::http::AppState;
use crate::model;
use crate::store::NextDelivery;
use crate::webhooks::{self, Attempt, Webhook};

/// Entries one subscription sends in a turn before the others get theirs.
const PER_TURN: usize = 100;

/// The most bytes of a receiver's answer read (the rest is dropped with the connection).
const ANSWER_BYTES: usize = 64 * 1024;

/// The longest failure kept in `last_error`.
const ERROR_CHARS: usize = 300;

/// How the deliverer runs (`elo-ladder serve --webhook-…`).
#[derive(Debug, Clone)]
pub struct Settings {
    /// How often the subscriptions are read.
    pub interval: Duration,
    /// The longest one attempt may take (connect, send, answer).
    pub timeout: Duration,
    /// The first retry's wait; each failure in a row doubles it (at most an hour).
    pub backoff: Duration,
    /// Subscriptions this server delivers at once.
    pub parallel: usize,
    /// A PEM file of the roots that `https` receivers' certificates must chain to (none: the
    /// operating system's).
    pub root_cert: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Self { interval: Duration::from_millis(500), timeout: Duration::from_secs(10), backoff: Duration::from_secs(5), parallel: 8, root_cert: None }
    }
}

impl Settings {
    /// How long a lease lasts: three attempts' time, so a server sending at its slowest
    /// renews it long before another may take it.
    #[must_use]
    pub fn lease(&self) -> f64 {
        (self.timeout.as_secs_f64() * 3.0).max(5.0)
    }
}

/// The TLS client configuration for `https` receivers: the roots of `root_cert`, or the
/// operating system's.
///
/// # Errors
/// The file cannot be read or holds no certificate; with no file, the system has no roots.
pub fn client_config(root_cert: Option<&Path>) -> Result<Arc<rustls::ClientConfig>, String> {
    let source = root_cert.map_or(crate::store::database_url::RootCerts::System, |path| crate::store::database_url::RootCerts::File(path.to_owned()));
    let roots = crate::store::postgres::tls::roots(&source, "--webhook-root-cert")?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The subscriptions being delivered by this server; an entry leaves when its turn ends.
#[derive(Default)]
struct Running(Mutex<HashSet<i64>>);

/// One subscription's turn: removes it from [`Running`] when dropped.
struct Turn {
    running: Arc<Running>,
    id: i64,
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Ok(mut running) = self.running.0.lock() {
            running.remove(&self.id);
        }
    }
}

/// Runs the deliveries until the server stops.
pub async fn run(state: Arc<AppState>) {
    let settings = state.settings.webhooks.clone();
    let tls = match client_config(settings.root_cert.as_deref()) {
        Ok(config) => Some(config),
        Err(error) => {
            tracing::warn!(error = %error, "webhooks: no TLS roots; deliveries to https URLs fail until this is mended");
            None
        }
    };
    let running = Arc::new(Running::default());
    let mut shown: HashSet<(String, String)> = HashSet::new();
    let mut last_started = 0i64;
    let mut interval = tokio::time::interval(settings.interval);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        if state.draining.load(std::sync::atomic::Ordering::SeqCst) {
            continue;
        }
        let subscriptions = match state.store.webhooks(None).await {
            Ok(subscriptions) => subscriptions,
            Err(error) => {
                tracing::warn!(error = %error.message, "webhooks: the subscriptions could not be read");
                continue;
            }
        };
        shown = publish(&subscriptions, shown);
        let now = model::now();
        // Round robin: each tick starts after the subscription the last one started last, so
        // a few catching up on a long journal cannot keep the others waiting.
        let count = subscriptions.len();
        let first = subscriptions.iter().position(|w| w.id == last_started).map_or(0, |i| i + 1);
        for webhook in subscriptions.into_iter().cycle().skip(first).take(count) {
            if webhook.paused || webhook.next_attempt > now || webhook.delivered_through >= webhook.last_seq {
                continue;
            }
            {
                let Ok(mut taken) = running.0.lock() else { break };
                if taken.len() >= settings.parallel {
                    break;
                }
                if !taken.insert(webhook.id) {
                    continue;
                }
            }
            last_started = webhook.id;
            let turn = Turn { running: Arc::clone(&running), id: webhook.id };
            let (state, tls) = (Arc::clone(&state), tls.clone());
            tokio::spawn(async move {
                let _turn = turn;
                if let Err(error) = deliver_some(&state, tls.as_ref(), webhook.id).await {
                    tracing::warn!(ladder = %webhook.ladder, webhook = %webhook.name, error = %error.message, "webhooks: a delivery turn failed; the next one tries again");
                }
            });
        }
    }
}

/// Sets each subscription's gauges (the same on every server: read from the database) and
/// zeroes those of subscriptions deleted since; the labels shown now.
fn publish(subscriptions: &[Webhook], before: HashSet<(String, String)>) -> HashSet<(String, String)> {
    let mut now = HashSet::with_capacity(subscriptions.len());
    for webhook in subscriptions {
        let labels = [("ladder", webhook.ladder.clone()), ("webhook", webhook.name.clone())];
        metrics::gauge!(crate::telemetry::WEBHOOK_FAILING, &labels).set(if webhook.failing() { 1.0 } else { 0.0 });
        #[allow(clippy::cast_precision_loss)]
        metrics::gauge!(crate::telemetry::WEBHOOK_ATTEMPTS, &labels).set(webhook.attempts as f64);
        now.insert((webhook.ladder.clone(), webhook.name.clone()));
    }
    for (ladder, name) in before.difference(&now) {
        let labels = [("ladder", ladder.clone()), ("webhook", name.clone())];
        metrics::gauge!(crate::telemetry::WEBHOOK_FAILING, &labels).set(0.0);
        metrics::gauge!(crate::telemetry::WEBHOOK_ATTEMPTS, &labels).set(0.0);
    }
    now
}

/// Delivers up to [`PER_TURN`] entries of one subscription, while this server holds its
/// lease; stops at the first failure.
///
/// # Errors
/// A store error (the cursor stays where the last recorded attempt left it).
pub async fn deliver_some(state: &AppState, tls: Option<&Arc<rustls::ClientConfig>>, id: i64) -> Result<(), ApiError> {
    let settings = &state.settings.webhooks;
    let store = &state.store;
    for _ in 0..PER_TURN {
        if state.draining.load(std::sync::atomic::Ordering::SeqCst) {
            return Ok(());
        }
        let Some(webhook) = store.take_webhook_lease(id, &state.instance, settings.lease()).await? else {
            return Ok(()); // another server delivers it
        };
        if webhook.paused || webhook.next_attempt > model::now() {
            return Ok(());
        }
        let (entry, held) = match store.next_delivery(&webhook, &state.instance, settings.timeout.as_secs_f64()).await? {
            NextDelivery::Nothing => return Ok(()),
            NextDelivery::Skip(seq) => {
                store.record_attempt(id, &state.instance, &Attempt::Skipped(seq)).await?;
                return Ok(());
            }
            NextDelivery::Entry(entry, held) => (entry, held),
        };
        let labels = [("ladder", webhook.ladder.clone()), ("webhook", webhook.name.clone())];
        let started = Instant::now();
        let sent = match webhooks::payload(&webhook.ladder, &entry) {
            Ok(body) => send(&webhook, &webhooks::message_id(&webhook.ladder, entry.seq), body, settings.timeout, tls).await,
            Err(error) => Err(error.message),
        };
        held.release().await;
        metrics::histogram!(crate::telemetry::WEBHOOK_SECONDS, &labels).record(started.elapsed().as_secs_f64());
        let attempt = match sent {
            Ok(()) => Attempt::Delivered(entry.seq),
            Err(error) => {
                let error: String = error.chars().take(ERROR_CHARS).collect();
                let wait = webhooks::backoff(settings.backoff.as_secs_f64(), webhook.attempts + 1);
                tracing::warn!(ladder = %webhook.ladder, webhook = %webhook.name, seq = entry.seq, attempts = webhook.attempts + 1, retry_in_s = wait, error = %error, "webhooks: a delivery failed");
                Attempt::Failed { error, retry_at: model::now() + wait, revision: webhook.revision }
            }
        };
        let outcome = if matches!(attempt, Attempt::Delivered(_)) { "delivered" } else { "failed" };
        metrics::counter!(crate::telemetry::WEBHOOK_DELIVERIES, "ladder" => webhook.ladder.clone(), "webhook" => webhook.name.clone(), "outcome" => outcome).increment(1);
        if !store.record_attempt(id, &state.instance, &attempt).await? || outcome == "failed" {
            return Ok(());
        }
    }
    Ok(())
}

/// Any stream a request goes over (TCP, or TLS over TCP).
trait Stream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static {}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static> Stream for T {}

/// POSTs one signed delivery; `Ok` on a 2xx answer.
///
/// # Errors
/// What went wrong, in words (never the URL's path or query, which may carry a token).
async fn send(webhook: &Webhook, message_id: &str, body: String, timeout: Duration, tls: Option<&Arc<rustls::ClientConfig>>) -> Result<(), String> {
    let uri: hyper::Uri = webhook.url.parse().map_err(|e| format!("url: {e}"))?;
    let https = uri.scheme_str() == Some("https");
    let authority = uri.authority().ok_or("url: no host")?.clone();
    let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_owned();
    let port = authority.port_u16().unwrap_or(if https { 443 } else { 80 });
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    let timestamp = model::now().floor();
    #[allow(clippy::cast_possible_truncation)]
    let timestamp = timestamp as i64;
    let signature = webhooks::sign(&webhook.secret, message_id, timestamp, body.as_bytes()).map_err(|e| e.message)?;
    // Everything of the attempt, the connection included, runs inside the timeout: when it
    // ends nothing more is written (the names' hold is let go right after).
    let attempt = async {
        let tcp = tokio::net::TcpStream::connect((host.as_str(), port)).await.map_err(|e| format!("cannot connect to {host}:{port}: {e}"))?;
        let _ = tcp.set_nodelay(true);
        let stream: Box<dyn Stream> = if https {
            let config = tls.ok_or("https: this server has no TLS roots (see its log)")?;
            let name = rustls::pki_types::ServerName::try_from(host.clone()).map_err(|e| format!("https: {host}: {e}"))?;
            let tls = tokio_rustls::TlsConnector::from(Arc::clone(config)).connect(name, tcp).await.map_err(|e| format!("TLS with {host}:{port}: {e}"))?;
            Box::new(tls)
        } else {
            Box::new(tcp)
        };
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| format!("HTTP with {host}:{port}: {e}"))?;
        let request = hyper::Request::post(path.as_str())
            .header(hyper::header::HOST, authority.as_str())
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .header(hyper::header::USER_AGENT, concat!("elo-ladder/", env!("CARGO_PKG_VERSION")))
            .header("webhook-id", message_id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| format!("request: {e}"))?;
        let exchange = async {
            let response = sender.send_request(request).await.map_err(|e| format!("POST to {host}:{port}: {e}"))?;
            let status = response.status();
            // The answer is read (up to a cap) and dropped: its text is never kept, so a
            // receiver echoing a body cannot put a name into the status or the log.
            let _ = Limited::new(response.into_body(), ANSWER_BYTES).collect().await;
            if status.is_success() {
                Ok(())
            } else {
                Err(format!("{host}:{port} answered {status}"))
            }
        };
        tokio::pin!(exchange, connection);
        tokio::select! {
            done = &mut exchange => done,
            closed = &mut connection => match closed {
                Ok(()) => exchange.await,
                Err(e) => Err(format!("POST to {host}:{port}: {e}")),
            },
        }
    };
    tokio::time::timeout(timeout, attempt).await.unwrap_or_else(|_| Err(format!("no answer from {host}:{port} within {:.1} s", timeout.as_secs_f64())))
}
