//! `PUT /v1/ladders/{ladder}`: creates a ladder with its rules, once.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, put};
use serde::Serialize;
use axum::Router;
use ranking_elo::team::{TeamRating, TeamSplit};
use ranking_elo::{Config, Error as EngineError, Rules};

use super::auth::{Admin, KeyAccess, LadderAccess, LadderName, Read};
use super::query::QueryParams;
use super::{body, detached, json, json_ok, AppState};
use crate::error::ApiError;
use crate::store::{canonical_config, LadderSummary, PutOutcome};

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/v1/ladders", get(list)).route("/v1/ladders/{ladder}", put(put_ladder).get(describe))
}

/// `{"ladders": [...]}`.
#[derive(Serialize)]
struct Ladders {
    ladders: Vec<LadderSummary>,
}

/// `GET /v1/ladders`: the ladders the key may see.
async fn list(State(state): State<Arc<AppState>>, access: KeyAccess<Read>, query: QueryParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    json_ok(&Ladders { ladders: state.store.ladders(access.only.as_deref()).await? })
}

/// A ladder as `GET /v1/ladders/{ladder}` shows it.
#[derive(Serialize)]
struct Description<'a> {
    #[serde(flatten)]
    summary: &'a LadderSummary,
    /// The canonical configuration: `elo_config_from_json` / `EloRules.FromJson` of it gives
    /// the server's rules exactly.
    rules: &'a serde_json::value::RawValue,
}

async fn describe(State(state): State<Arc<AppState>>, access: LadderAccess<Read>, query: QueryParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let ladder = &access.ladder;
    let summary = state.store.ladders(Some(&ladder.name)).await?.into_iter().next().ok_or_else(|| ApiError::not_found("unknown_ladder", format!("there is no ladder {:?}", ladder.name)))?;
    let rules = serde_json::value::RawValue::from_string(ladder.config_json.clone()).map_err(|e| ApiError::internal(format!("stored configuration: {e}")))?;
    json_ok(&Description { summary: &summary, rules: &rules })
}

/// Rules the API can serve: a report carries no member weights, so team rules that need
/// them would refuse every team match.
fn check_servable(rules: &Rules) -> Result<(), ApiError> {
    let config = rules.config();
    if config.team_split == TeamSplit::Weights {
        return Err(ApiError::invalid("invalid_config", "configuration: team_split \"weights\" needs member weights, which match reports do not carry; use \"equal\""));
    }
    if config.team_rating == TeamRating::WeightedMean {
        return Err(ApiError::invalid(
            "invalid_config",
            "configuration: team_rating \"weighted_mean\" needs member weights, which match reports do not carry; use \"mean\" or \"sum\"",
        ));
    }
    Ok(())
}

async fn put_ladder(State(state): State<Arc<AppState>>, access: LadderName<Admin>, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    let payload = body(payload)?;
    let text = std::str::from_utf8(&payload).map_err(|_| ApiError::bad_request("the configuration is not UTF-8 text"))?;
    let rules = Config::from_json(text).map_err(|error| match error {
        EngineError::InvalidJson(message) => ApiError::bad_request(format!("configuration: {message}")),
        other => ApiError::invalid("invalid_config", format!("configuration: {other}")),
    })?;
    check_servable(&rules)?;
    let config_json = canonical_config(&rules);
    let store = Arc::clone(&state.store);
    let name = access.name.clone();
    let outcome = detached(async move { store.put_ladder(&name, &config_json).await }).await?;
    let body = |status: &str| format!("{{\"ladder\":{},\"status\":\"{status}\"}}", serde_json::Value::from(access.name.as_str()));
    match outcome {
        PutOutcome::Created => Ok(json(StatusCode::CREATED, body("created"))),
        PutOutcome::Same => Ok(json(StatusCode::OK, body("unchanged"))),
        PutOutcome::Differs => Err(ApiError::conflict("ladder_rules_differ", format!("ladder {:?} exists with other rules; nothing was changed", access.name))),
    }
}
