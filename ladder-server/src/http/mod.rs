//! The HTTP API (axum): one module per resource, each with its own `router()` (and the
//! operator's console, static files that call the API), merged here
//! with the layers every route shares: request ids, the request log and metrics, CORS, the
//! request and body timeouts, the body cap, and JSON for every error. Every error is an
//! [`ApiError`].

pub mod auth;
pub mod console;
mod health;
mod import;
mod keys;
mod ladders;
mod matches;
pub mod metrics;
mod periods;
mod players;
mod query;
mod queues;
mod seasons;
mod tags;
mod webhooks;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{header, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::request_id::{MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer};
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutLayer};

use crate::error::ApiError;
use crate::limits::Limits;
use crate::store::{KeyRecord, Ladder, Store};

/// The largest request body, in bytes.
pub const BODY_LIMIT: usize = 64 * 1024;

/// The response header that carries each request's id (also in the request log).
pub const REQUEST_ID: &str = "x-request-id";

/// Settings of the API.
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// Requests per second per key (the bucket holds one second's worth); 0 for no limit.
    pub rate_limit: u32,
    /// Failed authentications per minute per client address; 0 for no limit.
    pub auth_failures_per_minute: u32,
    /// The longest a request may take before the client gets a 503 (its work goes on).
    pub request_timeout: Duration,
    /// The longest a client may take to send a request's body (408).
    pub body_timeout: Duration,
    /// Origins allowed to call the API from a browser (CORS); none by default.
    pub cors_origins: Vec<String>,
    /// How long an export waits for journal entries held back by a transaction still open
    /// elsewhere (PostgreSQL) before it ends, saying so in its end line.
    pub pending_timeout: Duration,
    /// The player tokens this server takes (`--jwt-…`); none: every token is refused.
    pub tokens: Option<Arc<crate::tokens::Tokens>>,
    /// How often each queue's matcher ticks.
    pub matchmaking_interval: Duration,
    /// How webhooks are delivered.
    pub webhooks: crate::deliver::Settings,
}

impl Default for ApiSettings {
    fn default() -> Self {
        Self {
            rate_limit: 200,
            auth_failures_per_minute: 30,
            request_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(10),
            cors_origins: Vec::new(),
            pending_timeout: Duration::from_secs(30),
            tokens: None,
            matchmaking_interval: Duration::from_secs(1),
            webhooks: crate::deliver::Settings::default(),
        }
    }
}

/// Shared state of the handlers.
pub struct AppState {
    /// The database.
    pub store: Store,
    /// The API's settings.
    pub settings: ApiSettings,
    /// Rate limits.
    pub limits: Limits,
    /// Set once the server is shutting down (`/readyz` answers 503).
    pub draining: AtomicBool,
    /// This server's name as a matcher lease holder (random, per process).
    pub instance: String,
    /// Long-polls waiting for tickets.
    pub tickets: crate::matcher::TicketWatch,
    keys: Mutex<HashMap<String, (Option<KeyRecord>, Instant)>>,
    ladders: RwLock<HashMap<String, (Arc<Ladder>, Instant)>>,
}

impl AppState {
    /// The state over `store`.
    #[must_use]
    pub fn new(store: Store, settings: ApiSettings) -> Arc<Self> {
        let limits = Limits::new(settings.rate_limit, settings.auth_failures_per_minute);
        let instance = crate::queue::random_id("server-").unwrap_or_else(|_| format!("server-{}", std::process::id()));
        Arc::new(Self {
            store,
            settings,
            limits,
            draining: AtomicBool::new(false),
            instance,
            tickets: crate::matcher::TicketWatch::default(),
            keys: Mutex::default(),
            ladders: RwLock::default(),
        })
    }

    /// Marks the server as shutting down.
    pub fn drain(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }
}

/// The router over `state`.
pub fn router(state: Arc<AppState>) -> Router {
    let settings = state.settings.clone();
    let routes = Router::new()
        .merge(health::router())
        .merge(console::router())
        .merge(keys::router())
        .merge(ladders::router())
        .merge(import::router())
        .merge(matches::router())
        .merge(players::router())
        .merge(queues::router())
        .merge(seasons::router())
        .merge(periods::router())
        .merge(tags::router())
        .merge(webhooks::router())
        .merge(metrics::router())
        .fallback(|| async { ApiError::not_found("not_found", "no such route (see the API table in the README)") })
        .method_not_allowed_fallback(|method: Method| async move { ApiError::method_not_allowed(format!("this route does not take {method}")) })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(RequestBodyTimeoutLayer::new(settings.body_timeout))
        .layer(TimeoutLayer::with_status_code(StatusCode::GATEWAY_TIMEOUT, settings.request_timeout))
        .layer(middleware::from_fn_with_state(Arc::clone(&state), observe));
    let routes = match cors(&settings.cors_origins) {
        Some(cors) => routes.layer(cors),
        None => routes,
    };
    routes
        .layer(PropagateRequestIdLayer::new(HeaderName::from_static(REQUEST_ID)))
        .layer(SetRequestIdLayer::new(HeaderName::from_static(REQUEST_ID), RandomId))
        // Outermost: a client's id that is not short and plain is dropped before the layer
        // above looks (it keeps any id it finds), so a new one replaces it in the answer and
        // the log.
        .layer(tower::util::MapRequestLayer::new(drop_unplain_request_id))
        .with_state(state)
}

/// Whether a client's request id may be kept: 1 to 64 characters from `A-Z a-z 0-9 - _ .`
/// (nothing a log line could be confused by).
fn plain_request_id(value: &HeaderValue) -> bool {
    let bytes = value.as_bytes();
    !bytes.is_empty() && bytes.len() <= 64 && bytes.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Removes every `x-request-id` of a request unless it carries exactly one plain id.
fn drop_unplain_request_id<B>(mut request: axum::http::Request<B>) -> axum::http::Request<B> {
    let headers = request.headers_mut();
    let mut given = headers.get_all(REQUEST_ID).iter();
    let keep = matches!((given.next(), given.next()), (Some(value), None) if plain_request_id(value));
    if !keep {
        headers.remove(REQUEST_ID);
    }
    request
}

/// CORS for the allowed origins: preflights answered, the key's header and JSON bodies
/// allowed, the request id and `Retry-After` readable by the page.
fn cors(origins: &[String]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let allowed: Vec<HeaderValue> = origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()).collect();
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(allowed))
            .allow_methods([Method::GET, Method::POST, Method::PUT, Method::DELETE])
            .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE, HeaderName::from_static(REQUEST_ID)])
            .expose_headers([HeaderName::from_static(REQUEST_ID), header::RETRY_AFTER])
            .max_age(Duration::from_secs(600)),
    )
}

/// Request ids: 16 random hex digits (a client's own `x-request-id` is kept when it is
/// short and plain).
#[derive(Clone, Copy)]
struct RandomId;

impl MakeRequestId for RandomId {
    fn make_request_id<B>(&mut self, request: &axum::http::Request<B>) -> Option<RequestId> {
        if let Some(given) = request.headers().get(REQUEST_ID).filter(|given| plain_request_id(given)) {
            return Some(RequestId::new(given.clone()));
        }
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).ok()?;
        let text: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        HeaderValue::from_str(&text).ok().map(RequestId::new)
    }
}

/// Logs one line per request (never a key: the method, the route, the status, the time, the
/// request id and the client address), counts it, and turns any error that is not already
/// JSON (a timeout, a refused path) into the API's error format.
async fn observe(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let route = request.extensions().get::<MatchedPath>().map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let id = request.headers().get(REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let client = request.extensions().get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0.ip().to_string()).unwrap_or_default();
    let response = next.run(request).await;
    let response = json_errors(response, &state).await;
    let status = response.status().as_u16();
    let seconds = started.elapsed().as_secs_f64();
    ::metrics::counter!(crate::telemetry::REQUESTS, "route" => route.clone(), "method" => method.to_string(), "status" => status.to_string()).increment(1);
    ::metrics::histogram!(crate::telemetry::REQUEST_SECONDS, "route" => route.clone()).record(seconds);
    tracing::info!(request_id = %id, method = %method, route = %route, status, ms = seconds * 1000.0, client = %client, "request");
    response
}

/// An error response in the API's JSON format.
async fn json_errors(response: Response, state: &AppState) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let is_json = response.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if is_json {
        return response;
    }
    let text = axum::body::to_bytes(response.into_body(), 4096).await.map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let error = match status {
        StatusCode::GATEWAY_TIMEOUT => ApiError::timed_out(state.settings.request_timeout.as_secs()),
        StatusCode::REQUEST_TIMEOUT => ApiError::body_timeout(state.settings.body_timeout.as_secs()),
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::too_large(BODY_LIMIT),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::method_not_allowed(text),
        s if s.is_server_error() => ApiError::internal(if text.is_empty() { s.to_string() } else { text }),
        _ => ApiError::bad_request(if text.is_empty() { status.to_string() } else { text }),
    };
    error.into_response()
}

/// A 200 or 201 with a JSON body.
fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// A value as a JSON 200.
fn json_ok<T: serde::Serialize>(value: &T) -> Result<Response, ApiError> {
    Ok(json(StatusCode::OK, serde_json::to_string(value).map_err(|e| ApiError::internal(e.to_string()))?))
}

/// A body within the cap, or 413 (400 when it cannot be read, for instance because it
/// did not arrive within the body timeout).
fn body(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::too_large(BODY_LIMIT),
        _ => ApiError::bad_request(rejection.body_text()),
    })
}

/// Runs `work` as its own task, so that a client hanging up (or the request timeout)
/// cannot cancel a transaction half way.
async fn detached<T: Send + 'static>(work: impl std::future::Future<Output = Result<T, ApiError>> + Send + 'static) -> Result<T, ApiError> {
    tokio::spawn(work).await.map_err(|e| ApiError::internal(format!("request task failed: {e}")))?
}
