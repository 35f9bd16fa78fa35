//! `GET /metrics` with an admin key: the Prometheus text format (the same as the metrics
//! listener of `--metrics-listen`, which needs no key and should not be public).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::auth::{Admin, KeyAccess};
use super::AppState;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/metrics", get(metrics))
}

/// The Prometheus text exposition (the gauges read now).
#[must_use]
pub fn exposition(state: &AppState) -> Response {
    #[allow(clippy::cast_precision_loss)]
    ::metrics::gauge!(crate::telemetry::DB_CONNECTIONS).set(state.store.connections_in_use() as f64);
    (StatusCode::OK, [(header::CONTENT_TYPE, "text/plain; version=0.0.4")], crate::telemetry::render()).into_response()
}

async fn metrics(State(state): State<Arc<AppState>>, _: KeyAccess<Admin>) -> Response {
    exposition(&state)
}
