//! Logs and metrics. Logs go to standard error through `tracing` (text or JSON lines, one
//! line per request with its request id); metrics are kept by the `metrics` facade and
//! rendered in the Prometheus text format by `metrics-exporter-prometheus` (`GET /metrics`).
//! Nothing here ever sees a key or a password: requests are logged by method, route,
//! status and time, and database URLs only in their redacted form.

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Requests by route, method and status.
pub const REQUESTS: &str = "elo_ladder_http_requests_total";
/// Request latency (seconds) by route.
pub const REQUEST_SECONDS: &str = "elo_ladder_http_request_duration_seconds";
/// Matches applied (committed).
pub const MATCHES: &str = "elo_ladder_matches_applied_total";
/// Time of one database commit of a batch (seconds), by database.
pub const COMMIT_SECONDS: &str = "elo_ladder_commit_duration_seconds";
/// Requests per committed batch, by database.
pub const BATCH_SIZE: &str = "elo_ladder_commit_batch_size";
/// Open client connections.
pub const CONNECTIONS: &str = "elo_ladder_http_connections";
/// Client connections refused by the connection caps, by cap.
pub const CONNECTIONS_REFUSED: &str = "elo_ladder_http_connections_refused_total";
/// Database connections in use.
pub const DB_CONNECTIONS: &str = "elo_ladder_db_connections_in_use";
/// Requests refused by a rate limit, by limit (`key` or `auth_failures`).
pub const RATE_LIMITED: &str = "elo_ladder_rate_limited_total";
/// Batches rolled back and run again (PostgreSQL), by SQLSTATE.
pub const COMMIT_RETRIES: &str = "elo_ladder_commit_retries_total";
/// Reports put back in the queue because their ladder was held by a season end or decay.
pub const DEFERRED: &str = "elo_ladder_reports_deferred_total";
/// Failed authentications (401 and 403).
pub const AUTH_FAILURES: &str = "elo_ladder_auth_failures_total";
/// Tickets waiting in a queue (set by the queue's matcher), by ladder and queue.
pub const QUEUE_WAITING: &str = "elo_ladder_queue_waiting_tickets";
/// Seconds a ticket waited until matched, by ladder and queue.
pub const QUEUE_WAIT_SECONDS: &str = "elo_ladder_queue_time_to_match_seconds";
/// Rating distance between a match's sides (means; a free-for-all: highest to lowest), by
/// ladder and queue.
pub const QUEUE_MATCH_DISTANCE: &str = "elo_ladder_queue_match_distance";
/// Rating spread of a match's players (highest to lowest), by ladder and queue.
pub const QUEUE_MATCH_SPREAD: &str = "elo_ladder_queue_match_spread";
/// Time of one matcher tick that had waiting tickets (read, match, commit), by ladder and
/// queue.
pub const QUEUE_TICK_SECONDS: &str = "elo_ladder_queue_tick_duration_seconds";
/// Webhook delivery attempts, by ladder, subscription and outcome (`delivered`, `failed`).
pub const WEBHOOK_DELIVERIES: &str = "elo_ladder_webhook_deliveries_total";
/// Time of one delivery attempt (seconds), by ladder and subscription.
pub const WEBHOOK_SECONDS: &str = "elo_ladder_webhook_delivery_duration_seconds";
/// 1 while a subscription's last attempt failed, by ladder and subscription.
pub const WEBHOOK_FAILING: &str = "elo_ladder_webhook_failing";
/// Failed attempts in a row at a subscription's next entry, by ladder and subscription.
pub const WEBHOOK_ATTEMPTS: &str = "elo_ladder_webhook_failed_attempts";

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the Prometheus recorder (once per process; later calls do nothing).
pub fn install_metrics() {
    HANDLE.get_or_init(|| {
        let seconds = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];
        let sizes = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];
        let builder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(REQUEST_SECONDS.to_owned()), &seconds)
            .and_then(|b| b.set_buckets_for_metric(Matcher::Full(COMMIT_SECONDS.to_owned()), &seconds))
            .and_then(|b| b.set_buckets_for_metric(Matcher::Full(BATCH_SIZE.to_owned()), &sizes))
            .and_then(|b| b.set_buckets_for_metric(Matcher::Full(QUEUE_TICK_SECONDS.to_owned()), &seconds))
            .and_then(|b| b.set_buckets_for_metric(Matcher::Full(WEBHOOK_SECONDS.to_owned()), &seconds))
            .and_then(|b| b.set_buckets_for_metric(Matcher::Full(QUEUE_WAIT_SECONDS.to_owned()), &[0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0]))
            .and_then(|b| b.set_buckets_for_metric(Matcher::Full(QUEUE_MATCH_DISTANCE.to_owned()), &[10.0, 25.0, 50.0, 100.0, 150.0, 200.0, 300.0, 400.0, 600.0, 800.0]))
            .and_then(|b| b.set_buckets_for_metric(Matcher::Full(QUEUE_MATCH_SPREAD.to_owned()), &[10.0, 25.0, 50.0, 100.0, 150.0, 200.0, 300.0, 400.0, 600.0, 800.0]));
        let recorder = builder.ok()?.build_recorder();
        let handle = recorder.handle();
        metrics::set_global_recorder(recorder).ok()?;
        metrics::describe_counter!(REQUESTS, "HTTP requests by route, method and status");
        metrics::describe_histogram!(REQUEST_SECONDS, metrics::Unit::Seconds, "HTTP request latency by route");
        metrics::describe_counter!(MATCHES, "matches applied and committed");
        metrics::describe_histogram!(COMMIT_SECONDS, metrics::Unit::Seconds, "time of one batch's database transaction");
        metrics::describe_histogram!(BATCH_SIZE, "requests per committed batch");
        metrics::describe_gauge!(CONNECTIONS, "open client connections");
        metrics::describe_counter!(CONNECTIONS_REFUSED, "client connections closed at once by a connection cap");
        metrics::describe_gauge!(DB_CONNECTIONS, "database connections in use");
        metrics::describe_counter!(RATE_LIMITED, "requests refused by a rate limit");
        metrics::describe_counter!(AUTH_FAILURES, "failed authentications (401, 403)");
        metrics::describe_gauge!(QUEUE_WAITING, "tickets waiting in a queue, as its matcher last saw them");
        metrics::describe_histogram!(QUEUE_WAIT_SECONDS, metrics::Unit::Seconds, "seconds a ticket waited until matched");
        metrics::describe_histogram!(QUEUE_MATCH_DISTANCE, "rating distance between a match's sides");
        metrics::describe_histogram!(QUEUE_MATCH_SPREAD, "rating spread of a match's players");
        metrics::describe_histogram!(QUEUE_TICK_SECONDS, metrics::Unit::Seconds, "time of a matcher tick with waiting tickets");
        metrics::describe_counter!(COMMIT_RETRIES, "batches rolled back and run again, by SQLSTATE");
        metrics::describe_counter!(DEFERRED, "reports waiting because their ladder was held by a season end or decay");
        metrics::describe_counter!(WEBHOOK_DELIVERIES, "webhook delivery attempts by outcome");
        metrics::describe_histogram!(WEBHOOK_SECONDS, metrics::Unit::Seconds, "time of one webhook delivery attempt");
        metrics::describe_gauge!(WEBHOOK_FAILING, "1 while a webhook subscription's last attempt failed");
        metrics::describe_gauge!(WEBHOOK_ATTEMPTS, "failed attempts in a row at a webhook subscription's next entry");
        Some(handle)
    });
}

/// The metrics in the Prometheus text format.
#[must_use]
pub fn render() -> String {
    HANDLE.get().and_then(Option::as_ref).map(PrometheusHandle::render).unwrap_or_default()
}

/// One committed batch.
pub fn record_commit(database: &'static str, size: usize, took: Duration) {
    metrics::histogram!(COMMIT_SECONDS, "database" => database).record(took.as_secs_f64());
    #[allow(clippy::cast_precision_loss)]
    metrics::histogram!(BATCH_SIZE, "database" => database).record(size as f64);
}

/// Matches applied.
pub fn record_matches(count: usize) {
    metrics::counter!(MATCHES).increment(count as u64);
}

/// How logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Starts logging to standard error; the level comes from `RUST_LOG` (default `info`).
pub fn init_logs(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(false).with_target(false);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(false).try_init(),
    };
}
