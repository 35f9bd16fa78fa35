//! The HTTP API (axum): routes, authentication with scopes and per-ladder keys, the
//! per-key rate limit and the body cap. Every error is an [`ApiError`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::Router;
use ranking_elo::{Config, Error as EngineError};

use crate::error::ApiError;
use crate::keys::{self, Scope};
use crate::model::{check_name, MatchRequest};
use crate::store::{canonical_config, Ladder, LadderEvent, PutOutcome, Store};

/// The largest request body, in bytes.
pub const BODY_LIMIT: usize = 64 * 1024;

/// How long a checked key is trusted before it is read again (a revocation takes effect
/// within this time on every server).
const KEY_CACHE: Duration = Duration::from_secs(1);

/// Settings of the API.
#[derive(Debug, Clone, Copy)]
pub struct ApiSettings {
    /// Requests per second per key (the bucket holds one second's worth); 0 for no limit.
    pub rate_limit: u32,
}

impl Default for ApiSettings {
    fn default() -> Self {
        Self { rate_limit: 200 }
    }
}

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Shared state of the handlers.
pub struct AppState {
    store: Store,
    settings: ApiSettings,
    ladders: RwLock<HashMap<String, Arc<Ladder>>>,
    keys: Mutex<HashMap<String, (crate::store::KeyRecord, Instant)>>,
    buckets: Mutex<HashMap<String, Bucket>>,
}

/// The router over `store`.
pub fn router(store: Store, settings: ApiSettings) -> Router {
    let state = Arc::new(AppState { store, settings, ladders: RwLock::default(), keys: Mutex::default(), buckets: Mutex::default() });
    Router::new()
        .route("/healthz", get(healthz))
        .route("/v1/ladders/{ladder}", put(put_ladder))
        .route("/v1/ladders/{ladder}/matches", post(report_match).get(journal))
        .route("/v1/ladders/{ladder}/players/{player}", get(player))
        .route("/v1/ladders/{ladder}/leaderboard", get(leaderboard))
        .route("/v1/ladders/{ladder}/seasons/end", post(end_season))
        .route("/v1/ladders/{ladder}/decay", post(decay))
        .fallback(|| async { ApiError::not_found("not_found", "no such route (see the API table in the README)") })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

type Shared = State<Arc<AppState>>;

/// A 200 or 201 with a JSON body.
fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

impl AppState {
    /// Checks the bearer key: known, not revoked, the secret's hash equal (constant time),
    /// a scope at least `needed`, limited to `ladder` if the key names one; then spends
    /// one request of the key's rate.
    async fn authorize(&self, headers: &HeaderMap, needed: Scope, ladder: &str) -> Result<(), ApiError> {
        let value = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).unwrap_or("");
        let token = value.strip_prefix("Bearer ").ok_or_else(|| ApiError::unauthorized("send the API key as Authorization: Bearer KEY"))?;
        let (id, secret) = keys::split(token.trim()).ok_or_else(|| ApiError::unauthorized("the API key is malformed"))?;
        let cached = self.keys.lock().map_err(|_| ApiError::internal("key cache poisoned"))?.get(id).filter(|(_, at)| at.elapsed() < KEY_CACHE).map(|(r, _)| r.clone());
        let record = match cached {
            Some(record) => record,
            None => {
                let record = self.store.key(id).await?.ok_or_else(|| ApiError::unauthorized("unknown API key"))?;
                self.keys.lock().map_err(|_| ApiError::internal("key cache poisoned"))?.insert(id.to_owned(), (record.clone(), Instant::now()));
                record
            }
        };
        if !keys::same_hash(&keys::hash(secret), &record.hash) || record.revoked {
            return Err(ApiError::unauthorized("unknown or revoked API key"));
        }
        let scope = Scope::parse(&record.scope).map_err(ApiError::internal)?;
        if scope < needed {
            return Err(ApiError::forbidden(format!("this key's scope is {}; this needs {}", scope.as_str(), needed.as_str())));
        }
        if let Some(only) = &record.ladder {
            if only != ladder {
                return Err(ApiError::forbidden(format!("this key is limited to ladder {only:?}")));
            }
        }
        self.spend(id)
    }

    /// The per-key token bucket.
    fn spend(&self, id: &str) -> Result<(), ApiError> {
        let rate = f64::from(self.settings.rate_limit);
        if rate == 0.0 {
            return Ok(());
        }
        let mut buckets = self.buckets.lock().map_err(|_| ApiError::internal("rate limiter poisoned"))?;
        let now = Instant::now();
        let bucket = buckets.entry(id.to_owned()).or_insert(Bucket { tokens: rate, at: now });
        bucket.tokens = (bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * rate).min(rate);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(ApiError::rate_limited(((1.0 - bucket.tokens) / rate).ceil().max(1.0) as u64))
        }
    }

    /// A ladder by name (cached: a ladder's rules never change), or 404.
    async fn ladder(&self, name: &str) -> Result<Arc<Ladder>, ApiError> {
        if let Some(ladder) = self.ladders.read().map_err(|_| ApiError::internal("ladder cache poisoned"))?.get(name) {
            return Ok(Arc::clone(ladder));
        }
        let ladder = Arc::new(self.store.ladder(name).await?.ok_or_else(|| ApiError::not_found("unknown_ladder", format!("there is no ladder {name:?}")))?);
        self.ladders.write().map_err(|_| ApiError::internal("ladder cache poisoned"))?.insert(name.to_owned(), Arc::clone(&ladder));
        Ok(ladder)
    }
}

/// A body within the cap, or 413 (or 400 for a body that cannot be read).
fn body(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large(BODY_LIMIT)
        } else {
            ApiError::bad_request(rejection.body_text())
        }
    })
}

/// Runs `work` as its own task, so that a client hanging up cannot cancel a transaction
/// half way.
async fn detached<T: Send + 'static>(work: impl std::future::Future<Output = Result<T, ApiError>> + Send + 'static) -> Result<T, ApiError> {
    tokio::spawn(work).await.map_err(|e| ApiError::internal(format!("request task failed: {e}")))?
}

async fn healthz(State(state): Shared) -> Result<Response, ApiError> {
    state.store.ping().await?;
    Ok(json(StatusCode::OK, r#"{"status":"ok"}"#.into()))
}

async fn put_ladder(State(state): Shared, Path(ladder): Path<String>, headers: HeaderMap, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    state.authorize(&headers, Scope::Admin, &ladder).await?;
    check_name(&ladder, "ladder")?;
    let payload = body(payload)?;
    let text = std::str::from_utf8(&payload).map_err(|_| ApiError::bad_request("the configuration is not UTF-8 text"))?;
    let rules = Config::from_json(text).map_err(|error| match error {
        EngineError::InvalidJson(message) => ApiError::bad_request(format!("configuration: {message}")),
        other => ApiError::invalid("invalid_config", format!("configuration: {other}")),
    })?;
    let config_json = canonical_config(&rules);
    let store = state.store.clone();
    let name = ladder.clone();
    let outcome = detached(async move { store.put_ladder(&name, &config_json).await }).await?;
    let body = |status: &str| format!("{{\"ladder\":{},\"status\":\"{status}\"}}", serde_json::Value::from(ladder.as_str()));
    match outcome {
        PutOutcome::Created => Ok(json(StatusCode::CREATED, body("created"))),
        PutOutcome::Same => Ok(json(StatusCode::OK, body("unchanged"))),
        PutOutcome::Differs => Err(ApiError::conflict("ladder_rules_differ", format!("ladder {ladder:?} exists with other rules; nothing was changed"))),
    }
}

async fn report_match(State(state): Shared, Path(ladder): Path<String>, headers: HeaderMap, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    state.authorize(&headers, Scope::Report, &ladder).await?;
    check_name(&ladder, "ladder")?;
    let ladder = state.ladder(&ladder).await?;
    let request = MatchRequest::parse(&body(payload)?, &ladder.rules)?;
    let store = state.store.clone();
    let answer = detached(async move { store.report(&ladder, request).await }).await?;
    Ok(json(StatusCode::OK, answer))
}

/// `{"entries": [...]}`, the entries serialized as they are (no reordering, floats as
/// stored).
#[derive(serde::Serialize)]
struct Entries<T> {
    entries: Vec<T>,
}

/// `{"entries": [...], "pending": bool}`: `pending` says that later entries exist but are
/// held back until every lower `seq` has committed.
#[derive(serde::Serialize)]
struct JournalPage {
    entries: Vec<crate::model::JournalEntry>,
    pending: bool,
}

/// A query number within bounds, or 400.
fn number(query: &HashMap<String, String>, name: &str, default: i64, range: std::ops::RangeInclusive<i64>) -> Result<i64, ApiError> {
    let Some(text) = query.get(name) else {
        return Ok(default);
    };
    text.parse::<i64>()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| ApiError::bad_request(format!("{name} must be a whole number from {} to {} (got {text:?})", range.start(), range.end())))
}

async fn journal(State(state): Shared, Path(ladder): Path<String>, headers: HeaderMap, Query(query): Query<HashMap<String, String>>) -> Result<Response, ApiError> {
    state.authorize(&headers, Scope::Read, &ladder).await?;
    check_name(&ladder, "ladder")?;
    let after = number(&query, "after", 0, 0..=i64::MAX)?;
    let limit = number(&query, "limit", 100, 1..=1000)?;
    let ladder = state.ladder(&ladder).await?;
    let (entries, pending) = state.store.journal(&ladder, after, limit).await?;
    let body = serde_json::to_string(&JournalPage { entries, pending }).map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(json(StatusCode::OK, body))
}

async fn player(State(state): Shared, Path((ladder, player)): Path<(String, String)>, headers: HeaderMap) -> Result<Response, ApiError> {
    state.authorize(&headers, Scope::Read, &ladder).await?;
    check_name(&ladder, "ladder")?;
    check_name(&player, "player")?;
    let ladder = state.ladder(&ladder).await?;
    let found = state.store.player(&ladder, &player).await?.ok_or_else(|| ApiError::not_found("unknown_player", format!("ladder {:?} has no player {player:?}", ladder.name)))?;
    Ok(json(StatusCode::OK, serde_json::to_string(&found).map_err(|e| ApiError::internal(e.to_string()))?))
}

async fn leaderboard(State(state): Shared, Path(ladder): Path<String>, headers: HeaderMap, Query(query): Query<HashMap<String, String>>) -> Result<Response, ApiError> {
    state.authorize(&headers, Scope::Read, &ladder).await?;
    check_name(&ladder, "ladder")?;
    let limit = number(&query, "limit", 100, 1..=1000)?;
    let offset = number(&query, "offset", 0, 0..=100_000_000)?;
    let ladder = state.ladder(&ladder).await?;
    let entries = state.store.leaderboard(&ladder, limit, offset).await?;
    let body = serde_json::to_string(&Entries { entries }).map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(json(StatusCode::OK, body))
}

async fn ladder_event(state: Arc<AppState>, ladder: String, headers: HeaderMap, event: LadderEvent) -> Result<Response, ApiError> {
    state.authorize(&headers, Scope::Admin, &ladder).await?;
    check_name(&ladder, "ladder")?;
    let ladder = state.ladder(&ladder).await?;
    let store = state.store.clone();
    let body = detached(async move { store.ladder_event(&ladder, event).await }).await?;
    Ok(json(StatusCode::OK, body))
}

async fn end_season(State(state): Shared, Path(ladder): Path<String>, headers: HeaderMap) -> Result<Response, ApiError> {
    ladder_event(state, ladder, headers, LadderEvent::SeasonEnd).await
}

async fn decay(State(state): Shared, Path(ladder): Path<String>, headers: HeaderMap) -> Result<Response, ApiError> {
    ladder_event(state, ladder, headers, LadderEvent::Decay).await
}
