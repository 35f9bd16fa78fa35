//! `GET /healthz` (the process and its database answer) and `GET /readyz` (for load
//! balancers: the database answers, the migrations are done, and the server is not
//! shutting down).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::{json, AppState};
use crate::error::ApiError;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/healthz", get(healthz)).route("/readyz", get(readyz))
}

async fn healthz(State(state): State<Arc<AppState>>) -> Result<Response, ApiError> {
    state.store.ping().await?;
    Ok(json(StatusCode::OK, r#"{"status":"ok"}"#.into()))
}

async fn readyz(State(state): State<Arc<AppState>>) -> Result<Response, ApiError> {
    if state.draining.load(Ordering::SeqCst) {
        return Err(ApiError::unavailable("the server is shutting down"));
    }
    // The store exists only once its migrations have run.
    state.store.ping().await?;
    Ok(json(StatusCode::OK, r#"{"status":"ready"}"#.into()))
}
