//! The one error type of the API: every failure becomes `{"error": {"code", "message"}}`
//! with its HTTP status, in one place.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// An API error: status, a stable machine-readable code and a readable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable code (`invalid_match`, `unknown_ladder`, …).
    pub code: &'static str,
    /// What went wrong, for a person.
    pub message: String,
    /// Seconds to wait before retrying (429).
    pub retry_after: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into(), retry_after: None }
    }

    /// 400: the request cannot be read (malformed JSON, wrong types, a bad query).
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 401: no key, or a key that is unknown or revoked.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }

    /// 403: the key's scope or ladder does not allow this.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    /// 404 with a code (`unknown_ladder`, `unknown_player`, `not_found`).
    pub fn not_found(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, code, message)
    }

    /// 409 with a code (`ladder_rules_differ`, `match_id_reused`).
    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, message)
    }

    /// 413: the body is larger than the cap.
    pub fn too_large(limit: usize) -> Self {
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, "body_too_large", format!("the request body is larger than {limit} bytes"))
    }

    /// 422: well-formed but refused (a score of 2, a player twice, 65 in a team, bad rules).
    pub fn invalid(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }

    /// 429: the key's request rate is used up.
    pub fn rate_limited(retry_after: u64) -> Self {
        let mut error = Self::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", format!("too many requests for this key; retry in {retry_after} s"));
        error.retry_after = Some(retry_after);
        error
    }

    /// 500: the database failed (nothing was committed).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    /// 503: the database cannot be reached.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message)
    }

    /// The JSON body.
    #[must_use]
    pub fn body(&self) -> String {
        serde_json::json!({ "error": { "code": self.code, "message": self.message } }).to_string()
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

impl From<rusqlite::Error> for ApiError {
    fn from(error: rusqlite::Error) -> Self {
        Self::internal(format!("sqlite: {error}"))
    }
}

impl From<tokio_postgres::Error> for ApiError {
    fn from(error: tokio_postgres::Error) -> Self {
        if error.is_closed() {
            Self::unavailable(format!("postgres: {error}"))
        } else {
            Self::internal(format!("postgres: {error}"))
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            eprintln!("elo-ladder: {self}");
        }
        let mut response = (self.status, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], self.body()).into_response();
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}
