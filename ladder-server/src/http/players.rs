//! `GET /v1/ladders/{ladder}/players/{player}` and `GET /v1/ladders/{ladder}/leaderboard`.

use std::sync::Arc;

use axum::extract::{RawPathParams, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::auth::{Admin, LadderAccess, Public};
use super::query::QueryParams;
use super::{json_ok, AppState};
use crate::error::ApiError;
use crate::model::check_name;
use crate::store::{BoardEntry, HistoryEntry};

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/v1/ladders/{ladder}/players/{player}", get(player).delete(erase))
        .route("/v1/ladders/{ladder}/players/{player}/matches", get(history))
        .route("/v1/ladders/{ladder}/leaderboard", get(leaderboard))
}

/// The path's `{player}`, checked.
fn path_player(params: &RawPathParams) -> Result<String, ApiError> {
    let player = params.iter().find(|(name, _)| *name == "player").map(|(_, value)| value.to_owned()).unwrap_or_default();
    check_name(&player, "player")?;
    Ok(player)
}

/// `DELETE …/players/{player}` (admin): the player's name replaced by a pseudonym
/// everywhere; nothing else changes.
async fn erase(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let player = path_player(&params)?;
    let store = Arc::clone(&state.store);
    let ladder = Arc::clone(&access.ladder);
    let name = player.clone();
    let pseudonym = super::detached(async move { store.erase(ladder, &name).await })
        .await?
        .ok_or_else(|| ApiError::not_found("unknown_player", format!("ladder {:?} has no player {player:?}", access.ladder.name)))?;
    json_ok(&serde_json::json!({ "erased": true, "pseudonym": pseudonym }))
}

/// `{"entries": [...], "before": SEQ}`: `before` is the seq to ask for the next (older)
/// page with, absent at the end.
#[derive(Serialize)]
struct History {
    entries: Vec<HistoryEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    before: Option<i64>,
}

async fn history(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    let query = query.only(&["before", "limit"])?;
    let before = query.text("before").map(|_| query.number("before", 0, 1..=i64::MAX)).transpose()?;
    let limit = query.number("limit", 20, 1..=1000)?;
    let player = path_player(&params)?;
    if !(access.caller.may_act_for(&player) || access.ladder.options.public_histories) {
        return Err(ApiError::forbidden("a player token reads its own player's history only on this ladder (an admin may set its option public_histories)"));
    }
    let ladder = &access.ladder;
    let entries = state
        .store
        .history(ladder, &player, before, limit)
        .await?
        .ok_or_else(|| ApiError::not_found("unknown_player", format!("ladder {:?} has no player {player:?}", ladder.name)))?;
    let before = (i64::try_from(entries.len()).unwrap_or(0) == limit).then(|| entries.last().map(|e| e.seq)).flatten();
    json_ok(&History { entries, before })
}

async fn player(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let player = path_player(&params)?;
    let ladder = &access.ladder;
    let found = state.store.player(ladder, &player).await?.ok_or_else(|| ApiError::not_found("unknown_player", format!("ladder {:?} has no player {player:?}", ladder.name)))?;
    json_ok(&found)
}

/// `{"entries": [...]}`.
#[derive(Serialize)]
struct Entries<T> {
    entries: Vec<T>,
}

async fn leaderboard(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams) -> Result<Response, ApiError> {
    let query = query.only(&["limit", "offset", "around"])?;
    let limit = query.number("limit", 100, 1..=1000)?;
    let entries: Vec<BoardEntry> = match query.text("around") {
        Some(player) => {
            if query.text("offset").is_some() {
                return Err(ApiError::bad_request("around and offset cannot be combined"));
            }
            check_name(player, "player")?;
            state
                .store
                .around(&access.ladder, player, limit)
                .await?
                .ok_or_else(|| ApiError::not_found("unknown_player", format!("ladder {:?} has no player {player:?}", access.ladder.name)))?
        }
        None => {
            let offset = query.number("offset", 0, 0..=100_000_000)?;
            state.store.leaderboard(&access.ladder, limit, offset).await?
        }
    };
    json_ok(&Entries { entries })
}
