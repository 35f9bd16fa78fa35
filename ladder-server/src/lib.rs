//! # elo-ladder
//!
//! An authoritative ladder server over the ranking-elo engine: game servers report matches
//! over HTTP, the server rates them with the engine (the same bits as the plugin on a
//! client) and keeps the ladder in SQLite (the embedded default) or PostgreSQL (several
//! server instances on one database). `docs/ladder-server.md` in the repository has the
//! schema and the transaction design; the README has the API.
//!
//! The layers: [`model`] (what a report is and how the engine applies it) and [`events`]
//! (season ends and decay through the engine's pool); [`store`] (the two databases behind
//! one trait); [`http`] (one module per resource, the authorization extractors, the shared
//! layers); [`limits`] (rate limits); [`serve`] (connections, timeouts, shutdown);
//! [`telemetry`] (logs and metrics).

#![warn(missing_docs)]

pub mod amend;
pub mod chain;
pub mod checkpoint;
pub mod cron;
pub mod deliver;
pub mod erase;
pub mod error;
pub mod events;
pub mod healthcheck;
pub mod http;
pub mod import;
pub mod keys;
pub mod ladder;
pub mod limits;
pub mod matcher;
pub mod model;
pub mod periods;
pub mod queue;
pub mod replay;
pub mod schedule;
pub mod serve;
pub mod store;
pub mod tags;
pub mod telemetry;
pub mod tokens;
pub mod verify;
pub mod webhooks;

use std::future::Future;
use std::sync::Arc;

pub use http::{router, ApiSettings, AppState};
pub use serve::ConnectionLimits;
pub use store::{DatabaseUrl, Store};

/// Serves the API on `listener` until `shutdown` completes (then drains: `/readyz` says
/// so, requests in flight finish within the grace period).
///
/// # Errors
/// The listener fails.
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<AppState>, limits: ConnectionLimits, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
    tokio::spawn(schedule::run(Arc::clone(&state)));
    tokio::spawn(checkpoint::run(Arc::clone(&state)));
    tracing::info!(instance = %state.instance, "matchmaking: this server's matcher takes queue leases as {}", state.instance);
    tokio::spawn(matcher::run(Arc::clone(&state)));
    tokio::spawn(matcher::watch(Arc::clone(&state)));
    tokio::spawn(deliver::run(Arc::clone(&state)));
    let draining = Arc::clone(&state);
    let delay = limits.drain_delay;
    let shutdown = async move {
        shutdown.await;
        draining.drain();
        if !delay.is_zero() {
            tracing::info!(seconds = delay.as_secs_f64(), "draining: /readyz answers 503; still serving");
            tokio::time::sleep(delay).await;
        }
        tracing::info!("shutting down: no new connections, requests in flight finish");
    };
    serve::serve(listener, router(state), limits, shutdown).await
}

/// Serves `GET /metrics` (no key) on its own listener until the process ends: for a
/// Prometheus scraper on a private address.
///
/// # Errors
/// The listener fails.
pub async fn serve_metrics(listener: tokio::net::TcpListener, state: Arc<AppState>) -> std::io::Result<()> {
    let app = axum::Router::new()
        .route("/metrics", axum::routing::get(|axum::extract::State(state): axum::extract::State<Arc<AppState>>| async move { http::metrics::exposition(&state) }));
    axum::serve(listener, app.with_state(state)).await
}

/// Completes on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}
