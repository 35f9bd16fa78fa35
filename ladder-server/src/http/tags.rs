//! `GET` and `PUT /v1/ladders/{ladder}/players/{player}/tags`: a player's tags
//! ([`crate::tags`]), whose boards `GET …/leaderboard?tag=key:value` reads.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{RawPathParams, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::auth::{Admin, LadderAccess, Public};
use super::query::QueryParams;
use super::{body, detached, json_ok, AppState};
use crate::error::ApiError;
use crate::model::check_name;
use crate::tags::Tags;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/v1/ladders/{ladder}/players/{player}/tags", get(read).put(set))
}

/// `{"player": NAME, "tags": {key: value}}`.
#[derive(Serialize)]
struct PlayerTags {
    player: String,
    tags: Tags,
}

/// The path's `{player}`, checked.
fn path_player(params: &RawPathParams) -> Result<String, ApiError> {
    let player = params.iter().find(|(name, _)| *name == "player").map(|(_, value)| value.to_owned()).unwrap_or_default();
    check_name(&player, "player")?;
    Ok(player)
}

/// `GET …/players/{player}/tags` (any read access): the player's tags.
async fn read(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let player = path_player(&params)?;
    let tags = state.store.tags(&access.ladder, &player).await?.ok_or_else(|| unknown(&access.ladder.name, &player))?;
    json_ok(&PlayerTags { player, tags })
}

/// `PUT …/players/{player}/tags` (admin), `{"region": "eu", "platform": null}`: each key
/// given takes its value (`null` removes it), the others stay; answers the tags after.
async fn set(
    State(state): State<Arc<AppState>>,
    access: LadderAccess<Admin>,
    query: QueryParams,
    params: RawPathParams,
    payload: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    query.only(&[])?;
    let player = path_player(&params)?;
    let value: serde_json::Value = serde_json::from_slice(&body(payload)?).map_err(|e| ApiError::bad_request(format!("tags: {e}")))?;
    let changes = crate::tags::changes_from_json(&value, "tags")?;
    let store = Arc::clone(&state.store);
    let (ladder, name) = (Arc::clone(&access.ladder), player.clone());
    let tags = detached(async move { store.set_tags(&ladder, &name, &changes).await }).await?.ok_or_else(|| unknown(&access.ladder.name, &player))?;
    json_ok(&PlayerTags { player, tags })
}

fn unknown(ladder: &str, player: &str) -> ApiError {
    ApiError::not_found("unknown_player", format!("ladder {ladder:?} has no player {player:?}"))
}
