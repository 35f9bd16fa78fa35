//! `POST /v1/ladders/{ladder}/import` (admin): a studio's players and match history, as
//! NDJSON lines ([`crate::import`]); `elo-ladder import` reads the same lines from a file of
//! any size.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::post;
use axum::Router;

use super::auth::{Admin, LadderAccess};
use super::query::QueryParams;
use super::{detached, json_ok, AppState};
use crate::error::ApiError;

/// The largest body the route takes (about 100,000 match lines); a larger history goes
/// through `elo-ladder import`, which reads a file of any size.
pub const IMPORT_BODY_LIMIT: usize = 8 * 1024 * 1024;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/v1/ladders/{ladder}/import", post(import).layer(DefaultBodyLimit::max(IMPORT_BODY_LIMIT)))
}

/// Checks every line, then applies them in order, each once per id; answers
/// `{"lines", "applied", "already_applied"}`, or the lines' errors (nothing applied), or the
/// line the ladder refused (the lines before it applied).
async fn import(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    query.only(&[])?;
    let bytes = payload.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::too_large(IMPORT_BODY_LIMIT),
        _ => ApiError::bad_request(rejection.body_text()),
    })?;
    let text = String::from_utf8(bytes.to_vec()).map_err(|e| ApiError::bad_request(format!("the body is not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))?;
    let store = Arc::clone(&state.store);
    let summary = detached(async move {
        let text = Arc::new(text);
        let source = move || -> Result<Box<dyn Iterator<Item = Result<String, ApiError>> + Send>, ApiError> { Ok(Box::new(crate::import::TextLines::new(Arc::clone(&text)))) };
        crate::import::run(&store, access.ladder, &source, |_| {}).await
    })
    .await?;
    json_ok(&summary)
}
