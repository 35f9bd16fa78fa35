//! `GET /v1/ladders/{ladder}/players/{player}` and `GET /v1/ladders/{ladder}/leaderboard`
//! (the ladder's board, or a tag's with `?tag=key:value`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, RawPathParams, State};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde::Serialize;

use super::auth::{Admin, LadderAccess, Public};
use super::query::QueryParams;
use super::{json_ok, AppState};
use crate::error::ApiError;
use crate::model::check_name;
use crate::store::{BoardEntry, HistoryEntry, Provisional, TagAround};
use crate::tags::Tag;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/v1/ladders/{ladder}/players/{player}", get(player).delete(erase))
        .route("/v1/ladders/{ladder}/players/{player}/matches", get(history))
        .route("/v1/ladders/{ladder}/leaderboard", get(leaderboard))
        .route("/v1/ladders/{ladder}/leaderboard/of", post(lines_of).layer(DefaultBodyLimit::max(LINES_OF_BODY_LIMIT)))
}

/// The largest body of `leaderboard/of`: 1,000 names of 64 characters, quoted.
const LINES_OF_BODY_LIMIT: usize = 80 * 1024;

/// The most players one `leaderboard/of` names.
pub const MAX_PLAYERS_OF: usize = 1000;

/// `{"players": [...]}` of `POST …/leaderboard/of`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayersOf {
    players: Vec<String>,
}

/// `{"entries": [...], "unknown": [...], "provisional": [...]}`: the named players' lines,
/// best first; the names the ladder has no player for, in the order given; and (when the
/// board leaves them out) the provisional players named, best first.
#[derive(Serialize)]
struct LinesOf {
    entries: Vec<BoardEntry>,
    unknown: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    provisional: Vec<String>,
}

/// `POST …/leaderboard/of` (any read access, a player's token too), `{"players": [names]}`
/// (1 to 1,000): a friends board, each line with the player's exact rank on the whole board.
async fn lines_of(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    let mode = provisional_mode(query.only(&["provisional"])?)?;
    let bytes = payload.map_err(|rejection| match rejection.status() {
        axum::http::StatusCode::PAYLOAD_TOO_LARGE => ApiError::too_large(LINES_OF_BODY_LIMIT),
        _ => ApiError::bad_request(rejection.body_text()),
    })?;
    let body: PlayersOf = serde_json::from_slice(&bytes).map_err(|e| ApiError::bad_request(format!("{{\"players\": [names]}}: {e}")))?;
    if body.players.is_empty() || body.players.len() > MAX_PLAYERS_OF {
        return Err(ApiError::invalid("invalid_players", format!("players names 1 to {MAX_PLAYERS_OF} players (got {})", body.players.len())));
    }
    let mut players: Vec<String> = Vec::with_capacity(body.players.len());
    let mut seen = std::collections::HashSet::with_capacity(body.players.len());
    for name in body.players {
        check_name(&name, "player")?;
        if seen.insert(name.clone()) {
            players.push(name);
        }
    }
    let lines = state.store.lines_of(&access.ladder, &players, mode).await?;
    let unknown = players.into_iter().filter(|name| !lines.iter().any(|e| &e.player == name)).collect();
    let (provisional, entries): (Vec<BoardEntry>, Vec<BoardEntry>) = lines.into_iter().partition(|e| e.provisional && mode == Provisional::Excluded);
    json_ok(&LinesOf { entries, unknown, provisional: provisional.into_iter().map(|e| e.player).collect() })
}

/// `?provisional=include` (provisional players on the board, ranked among everybody) or
/// `exclude` (the default: they are left out of the board and of everybody's ranks).
fn provisional_mode(query: &QueryParams) -> Result<Provisional, ApiError> {
    match query.text("provisional") {
        None | Some("exclude") => Ok(Provisional::Excluded),
        Some("include") => Ok(Provisional::Included),
        Some(other) => Err(ApiError::bad_request(format!("provisional must be include or exclude (got {other:?})"))),
    }
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
    let mode = provisional_mode(query.only(&["provisional"])?)?;
    let player = path_player(&params)?;
    let ladder = &access.ladder;
    let found =
        state.store.player(ladder, &player, mode).await?.ok_or_else(|| ApiError::not_found("unknown_player", format!("ladder {:?} has no player {player:?}", ladder.name)))?;
    json_ok(&found)
}

/// `{"entries": [...]}`.
#[derive(Serialize)]
struct Entries<T> {
    entries: Vec<T>,
}

async fn leaderboard(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams) -> Result<Response, ApiError> {
    let query = query.only(&["limit", "offset", "around", "provisional", "tag"])?;
    let limit = query.number("limit", 100, 1..=1000)?;
    let mode = provisional_mode(query)?;
    if let Some(tag) = query.text("tag") {
        return tag_board(&state, &access, query, &Tag::parse(tag)?, limit, mode).await;
    }
    let entries: Vec<BoardEntry> = match query.text("around") {
        Some(player) => {
            if query.text("offset").is_some() {
                return Err(ApiError::bad_request("around and offset cannot be combined"));
            }
            check_name(player, "player")?;
            let unknown = || ApiError::not_found("unknown_player", format!("ladder {:?} has no player {player:?}", access.ladder.name));
            if mode == Provisional::Excluded {
                // A provisional player is not on this board: nothing to centre on.
                let found = state.store.player(&access.ladder, player, mode).await?.ok_or_else(unknown)?;
                if found.provisional {
                    return Err(ApiError::conflict(
                        "provisional_player",
                        format!(
                            "player {player:?} is provisional ({} of the ladder's {} games) and not on the board yet: ask with provisional=include",
                            found.view.state.games_played, access.ladder.options.provisional_games
                        ),
                    ));
                }
            }
            state.store.around(&access.ladder, player, limit, mode).await?.ok_or_else(unknown)?
        }
        None => {
            let offset = query.number("offset", 0, 0..=100_000_000)?;
            state.store.leaderboard(&access.ladder, limit, offset, mode).await?
        }
    };
    json_ok(&Entries { entries })
}

/// `…/leaderboard?tag=key:value`: the tag's board, ranks counted among its players (a tag
/// nobody holds has an empty board).
async fn tag_board(state: &AppState, access: &LadderAccess<Public>, query: &QueryParams, tag: &Tag, limit: i64, mode: Provisional) -> Result<Response, ApiError> {
    let ladder = &access.ladder;
    let entries = match query.text("around") {
        Some(player) => {
            if query.text("offset").is_some() {
                return Err(ApiError::bad_request("around and offset cannot be combined"));
            }
            check_name(player, "player")?;
            match state.store.tag_around(ladder, tag, player, limit, mode).await? {
                TagAround::Lines(lines) => lines,
                TagAround::UnknownPlayer => return Err(ApiError::not_found("unknown_player", format!("ladder {:?} has no player {player:?}", ladder.name))),
                TagAround::NotTagged => {
                    return Err(ApiError::conflict("not_tagged", format!("player {player:?} does not hold tag {tag} (GET …/players/{player}/tags lists its tags)")))
                }
                TagAround::Provisional(games) => {
                    return Err(ApiError::conflict(
                        "provisional_player",
                        format!(
                            "player {player:?} is provisional ({games} of the ladder's {} games) and not on the board yet: ask with provisional=include",
                            ladder.options.provisional_games
                        ),
                    ))
                }
            }
        }
        None => {
            let offset = query.number("offset", 0, 0..=100_000_000)?;
            state.store.tag_leaderboard(ladder, tag, limit, offset, mode).await?
        }
    };
    json_ok(&Entries { entries })
}
