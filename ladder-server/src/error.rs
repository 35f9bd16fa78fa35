//! The one error type of the API: every failure becomes `{"error": {"code", "message"}}`
//! with its HTTP status, in one place. Server errors are logged here (with the database's
//! own error code when there is one), never with a key or a password.

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
    /// Seconds to wait before retrying (429, 503).
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

    /// 405: the route exists, the method does not.
    pub fn method_not_allowed(message: impl Into<String>) -> Self {
        Self::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", message)
    }

    /// 409 with a code (`ladder_rules_differ`, `match_id_reused`).
    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, message)
    }

    /// 413: the body is larger than the cap.
    pub fn too_large(limit: usize) -> Self {
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, "body_too_large", format!("the request body is larger than {limit} bytes"))
    }

    /// 408: the client did not send its body in time.
    pub fn body_timeout(seconds: u64) -> Self {
        Self::new(StatusCode::REQUEST_TIMEOUT, "request_timeout", format!("the request body did not arrive within {seconds} s"))
    }

    /// 422: well-formed but refused (a score of 2, a player twice, 65 in a team, bad rules).
    pub fn invalid(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }

    /// 429: the key's request rate (or the address's failed authentications) is used up.
    pub fn rate_limited(retry_after: u64, message: impl Into<String>) -> Self {
        let mut error = Self::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", message);
        error.retry_after = Some(retry_after.max(1));
        error
    }

    /// 500: the database failed (nothing was committed).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    /// 503: the database cannot be reached, or the server is shutting down; retry (with
    /// the same match id) in `retry_after` seconds.
    pub fn unavailable(message: impl Into<String>) -> Self {
        let mut error = Self::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message);
        error.retry_after = Some(1);
        error
    }

    /// 503: the request took longer than the server's request timeout. Its work may still
    /// complete: retrying with the same id gives its answer once it has.
    pub fn timed_out(seconds: u64) -> Self {
        let mut error = Self::new(StatusCode::SERVICE_UNAVAILABLE, "timeout", format!("no answer within {seconds} s; the request may still complete: retry it (with the same id)"));
        error.retry_after = Some(1);
        error
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
        let code = match &error {
            rusqlite::Error::SqliteFailure(failure, _) => format!(" (SQLite error code {}, extended {})", failure.code as i32, failure.extended_code),
            _ => String::new(),
        };
        Self::internal(format!("sqlite: {error}{code}"))
    }
}

/// A PostgreSQL error with everything that helps an operator: the SQLSTATE code, the
/// server's message and detail, or the chain of causes of a connection failure.
#[must_use]
pub fn describe_postgres(error: &tokio_postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        let detail = db.detail().map(|d| format!(" ({d})")).unwrap_or_default();
        return format!("postgres error {} ({}): {}{detail}", db.code().code(), db.severity(), db.message());
    }
    let mut text = format!("postgres: {error}");
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// Whether a PostgreSQL error means the database cannot be reached now (a closed or broken
/// connection, a failed connect), as opposed to a refused statement.
fn unreachable_database(error: &tokio_postgres::Error) -> bool {
    if error.is_closed() {
        return true;
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause.downcast_ref::<std::io::Error>().is_some() {
            return true;
        }
        source = cause.source();
    }
    let text = error.to_string();
    text.starts_with("error connecting") || text.starts_with("timeout") || text.starts_with("error performing TLS")
}

impl From<tokio_postgres::Error> for ApiError {
    fn from(error: tokio_postgres::Error) -> Self {
        let text = describe_postgres(&error);
        if unreachable_database(&error) {
            Self::unavailable(text)
        } else {
            Self::internal(text)
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::error!(status = self.status.as_u16(), code = self.code, "{}", self.message);
        }
        let mut response = (self.status, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], self.body()).into_response();
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}
