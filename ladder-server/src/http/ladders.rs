//! `PUT /v1/ladders/{ladder}`: creates a ladder with its rules, once.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, put};
use axum::Router;
use ranking_elo::team::{TeamRating, TeamSplit};
use ranking_elo::{Config, Error as EngineError, Rules};
use serde::Serialize;

use super::auth::{Admin, Caller, KeyAccess, LadderAccess, LadderName, Public};
use super::query::QueryParams;
use super::{body, detached, json, json_ok, AppState};
use crate::cron::Cron;
use crate::error::ApiError;
use crate::ladder::LadderOptions;
use crate::store::{canonical_config, LadderSummary, NextTimes, PutOutcome, ScheduleView};

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/v1/ladders", get(list))
        .route("/v1/ladders/{ladder}", put(put_ladder).get(describe))
        .route("/v1/ladders/{ladder}/next-rules", put(put_next_rules))
        .route("/v1/ladders/{ladder}/schedule", put(put_schedule))
        .route("/v1/ladders/{ladder}/options", put(put_options))
}

/// `PUT …/options` (admin): the ladder's server-side options, replaced whole
/// ([`LadderOptions`]); every server sees them within [`super::auth::LADDER_CACHE`].
async fn put_options(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    query.only(&[])?;
    let options = LadderOptions::from_body(&body(payload)?)?;
    state.store.set_options(&access.ladder, &options).await?;
    state.forget_ladder(&access.ladder.name);
    json_ok(&serde_json::json!({ "ladder": access.ladder.name, "options": options }))
}

/// The configuration in a body: 400 for unreadable JSON, 422 for rules the engine or the API
/// refuses.
fn rules_of(payload: &[u8]) -> Result<Rules, ApiError> {
    let text = std::str::from_utf8(payload).map_err(|_| ApiError::bad_request("the configuration is not UTF-8 text"))?;
    let rules = Config::from_json(text).map_err(|error| match error {
        EngineError::InvalidJson(message) => ApiError::bad_request(format!("configuration: {message}")),
        other => ApiError::invalid("invalid_config", format!("configuration: {other}")),
    })?;
    check_servable(&rules)?;
    Ok(rules)
}

/// `PUT …/next-rules` (admin): the rules that take effect at the next season end (the
/// season end resets with the ending season's rules, then brings these in).
async fn put_next_rules(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    query.only(&[])?;
    let rules = rules_of(&body(payload)?)?;
    let config_json = canonical_config(&rules);
    state.store.set_next_rules(&access.ladder, &config_json).await?;
    let rules = serde_json::value::RawValue::from_string(config_json).map_err(|e| ApiError::internal(e.to_string()))?;
    json_ok(&serde_json::json!({ "ladder": access.ladder.name, "next_rules": rules }))
}

/// `PUT …/schedule` (admin): `{"season_end": "CRON", "decay": "CRON", "period_end": "CRON"}`
/// (five-field cron, UTC; each may be null or absent). The servers run them, once per scheduled time.
async fn put_schedule(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    query.only(&[])?;
    let schedule: ScheduleView = serde_json::from_slice(&body(payload)?).map_err(|e| ApiError::bad_request(format!("schedule: {e}")))?;
    let now = crate::model::now();
    let next_of = |cron: &Option<String>, what: &str| -> Result<Option<f64>, ApiError> {
        cron.as_deref()
            .map(|text| {
                let parsed = Cron::parse(text).map_err(|e| ApiError::invalid("invalid_schedule", format!("{what}: {e}")))?;
                parsed.next_after(now).ok_or_else(|| ApiError::invalid("invalid_schedule", format!("{what}: {text:?} names no time in the next eight years")))
            })
            .transpose()
    };
    let next =
        NextTimes { season_end: next_of(&schedule.season_end, "season_end")?, decay: next_of(&schedule.decay, "decay")?, period_end: next_of(&schedule.period_end, "period_end")? };
    state.store.set_schedule(&access.ladder, &schedule, next).await?;
    json_ok(&serde_json::json!({ "ladder": access.ladder.name, "schedule": schedule, "next": next }))
}

/// `{"ladders": [...]}`.
#[derive(Serialize)]
struct Ladders {
    ladders: Vec<LadderSummary>,
}

/// `GET /v1/ladders`: the ladders the key may see.
async fn list(State(state): State<Arc<AppState>>, access: KeyAccess<Public>, query: QueryParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let only = match &access.caller {
        Caller::Key { only, .. } => only.as_deref(),
        Caller::Player(_) => None,
    };
    json_ok(&Ladders { ladders: state.store.ladders(only).await? })
}

/// A ladder as `GET /v1/ladders/{ladder}` shows it.
#[derive(Serialize)]
struct Description<'a> {
    #[serde(flatten)]
    summary: &'a LadderSummary,
    /// The canonical configuration: `elo_config_from_json` / `EloRules.FromJson` of it gives
    /// the server's rules exactly.
    rules: &'a serde_json::value::RawValue,
    /// The rules from the next season end on, if set.
    next_rules: Option<&'a serde_json::value::RawValue>,
    /// The server-side options.
    options: &'a LadderOptions,
}

async fn describe(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let ladder = &access.ladder;
    let summary =
        state.store.ladders(Some(&ladder.name)).await?.into_iter().next().ok_or_else(|| ApiError::not_found("unknown_ladder", format!("there is no ladder {:?}", ladder.name)))?;
    // The rules of the season now (the cached ladder may be from before a season end).
    let fresh = state.store.ladder(&ladder.name).await?.ok_or_else(|| ApiError::not_found("unknown_ladder", format!("there is no ladder {:?}", ladder.name)))?;
    let raw = |text: &str| serde_json::value::RawValue::from_string(text.to_owned()).map_err(|e| ApiError::internal(format!("stored configuration: {e}")));
    let rules = raw(&fresh.config_json)?;
    let next_rules = summary.next_config_json.as_deref().map(raw).transpose()?;
    json_ok(&Description { summary: &summary, rules: &rules, next_rules: next_rules.as_deref(), options: &fresh.options })
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
    let rules = rules_of(&body(payload)?)?;
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
