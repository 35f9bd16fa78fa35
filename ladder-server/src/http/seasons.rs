//! Season ends and decay (`POST …/seasons/end`, `POST …/decay`, each once per id), the
//! ended seasons (`GET …/seasons`) and their final standings
//! (`GET …/seasons/{season}/leaderboard`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{RawPathParams, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde::Serialize;

use super::auth::{Admin, LadderAccess, Public};
use super::query::QueryParams;
use super::{body, detached, json, json_ok, AppState};
use crate::error::ApiError;
use crate::events::{EventRequest, LadderEvent};
use crate::store::{SeasonSummary, StandingView};

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/v1/ladders/{ladder}/seasons/end", post(end_season))
        .route("/v1/ladders/{ladder}/decay", post(decay))
        .route("/v1/ladders/{ladder}/seasons", get(seasons))
        .route("/v1/ladders/{ladder}/seasons/{season}/leaderboard", get(standings))
}

/// A ladder-wide event posted by an admin (`{"id": "…"}`), applied once per id.
pub(super) async fn ladder_event(
    state: Arc<AppState>,
    access: LadderAccess<Admin>,
    query: QueryParams,
    payload: Result<Bytes, BytesRejection>,
    event: LadderEvent,
) -> Result<Response, ApiError> {
    query.only(&[])?;
    let request = EventRequest::parse(&body(payload)?, event)?;
    let store = Arc::clone(&state.store);
    let answer = detached(async move { store.ladder_event(access.ladder, request).await }).await?;
    Ok(json(StatusCode::OK, answer))
}

async fn end_season(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    ladder_event(state, access, query, payload, LadderEvent::SeasonEnd).await
}

async fn decay(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    ladder_event(state, access, query, payload, LadderEvent::Decay).await
}

/// `{"seasons": [...]}`.
#[derive(Serialize)]
struct Seasons {
    seasons: Vec<SeasonSummary>,
}

async fn seasons(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    json_ok(&Seasons { seasons: state.store.seasons(&access.ladder).await? })
}

/// `{"season": n, "entries": [...]}`.
#[derive(Serialize)]
struct Standings {
    season: i64,
    entries: Vec<StandingView>,
}

async fn standings(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    let query = query.only(&["limit", "offset"])?;
    let limit = query.number("limit", 100, 1..=1000)?;
    let offset = query.number("offset", 0, 0..=100_000_000)?;
    let text = params.iter().find(|(name, _)| *name == "season").map(|(_, value)| value.to_owned()).unwrap_or_default();
    let season = text.parse::<i64>().ok().filter(|s| *s >= 1).ok_or_else(|| ApiError::bad_request(format!("the season is a number from 1 (got {text:?})")))?;
    let entries = state
        .store
        .season_standings(&access.ladder, season, limit, offset)
        .await?
        .ok_or_else(|| ApiError::not_found("unknown_season", format!("ladder {:?} has no ended season {season}", access.ladder.name)))?;
    json_ok(&Standings { season, entries })
}
