//! The end of a rating period (`POST …/periods/end`, once per id): the ladder's held
//! matches rated at once ([`crate::periods`]).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use axum::Router;

use super::auth::{Admin, LadderAccess};
use super::query::QueryParams;
use super::seasons::ladder_event;
use super::AppState;
use crate::error::ApiError;
use crate::events::LadderEvent;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/v1/ladders/{ladder}/periods/end", post(end_period))
}

async fn end_period(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    ladder_event(state, access, query, payload, LadderEvent::PeriodEnd).await
}
