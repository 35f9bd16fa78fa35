//! `POST /v1/ladders/{ladder}/matches` (report a match, once per id) and
//! `GET /v1/ladders/{ladder}/matches` (the journal, paged by `seq` and by size).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::post;
use axum::Router;

use super::auth::{LadderAccess, Read, Report};
use super::query::QueryParams;
use super::{body, detached, json, json_ok, AppState};
use crate::error::ApiError;
use crate::model::MatchRequest;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/v1/ladders/{ladder}/matches", post(report).get(journal))
}

async fn report(State(state): State<Arc<AppState>>, access: LadderAccess<Report>, query: QueryParams, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    query.only(&[])?;
    let request = MatchRequest::parse(&body(payload)?, &access.ladder.rules)?;
    let store = Arc::clone(&state.store);
    let answer = detached(async move { store.report(access.ladder, request).await }).await?;
    Ok(json(StatusCode::OK, answer))
}

async fn journal(State(state): State<Arc<AppState>>, access: LadderAccess<Read>, query: QueryParams) -> Result<Response, ApiError> {
    let query = query.only(&["after", "limit"])?;
    let after = query.number("after", 0, 0..=i64::MAX)?;
    let limit = query.number("limit", 100, 1..=1000)?;
    json_ok(&state.store.journal(&access.ladder, after, limit).await?)
}
