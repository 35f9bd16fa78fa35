//! `GET /v1/keys/me`: what the request's own key may do (its public id, scope and ladder),
//! so that a client such as the console shows only the actions the key allows, without
//! trying an admin route to find out.

use std::sync::Arc;

use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::auth::{KeyAccess, Read};
use super::query::QueryParams;
use super::{json_ok, AppState};
use crate::error::ApiError;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/v1/keys/me", get(me))
}

/// `{"id", "scope", "ladder"}`: never the secret (the caller has it) nor its hash.
#[derive(Serialize)]
struct Me<'a> {
    id: &'a str,
    scope: &'static str,
    ladder: Option<&'a str>,
}

async fn me(access: KeyAccess<Read>, query: QueryParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    json_ok(&Me { id: &access.id, scope: access.scope.as_str(), ladder: access.only.as_deref() })
}
