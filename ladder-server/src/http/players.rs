//! `GET /v1/ladders/{ladder}/players/{player}` and `GET /v1/ladders/{ladder}/leaderboard`.

use std::sync::Arc;

use axum::extract::{RawPathParams, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::auth::{LadderAccess, Read};
use super::query::QueryParams;
use super::{json_ok, AppState};
use crate::error::ApiError;
use crate::model::check_name;
use crate::store::BoardEntry;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/v1/ladders/{ladder}/players/{player}", get(player)).route("/v1/ladders/{ladder}/leaderboard", get(leaderboard))
}

async fn player(State(state): State<Arc<AppState>>, access: LadderAccess<Read>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let player = params.iter().find(|(name, _)| *name == "player").map(|(_, value)| value.to_owned()).unwrap_or_default();
    check_name(&player, "player")?;
    let ladder = &access.ladder;
    let found = state.store.player(ladder, &player).await?.ok_or_else(|| ApiError::not_found("unknown_player", format!("ladder {:?} has no player {player:?}", ladder.name)))?;
    json_ok(&found)
}

/// `{"entries": [...]}`.
#[derive(Serialize)]
struct Entries<T> {
    entries: Vec<T>,
}

async fn leaderboard(State(state): State<Arc<AppState>>, access: LadderAccess<Read>, query: QueryParams) -> Result<Response, ApiError> {
    let query = query.only(&["limit", "offset"])?;
    let limit = query.number("limit", 100, 1..=1000)?;
    let offset = query.number("offset", 0, 0..=100_000_000)?;
    let entries: Vec<BoardEntry> = state.store.leaderboard(&access.ladder, limit, offset).await?;
    json_ok(&Entries { entries })
}
