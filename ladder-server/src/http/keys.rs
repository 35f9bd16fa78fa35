//! `GET /v1/keys/me`: what the request's own key may do (its public id, scope and ladder),
//! so that a client such as the console shows only the actions the key allows, without
//! trying an admin route to find out; for a player token, the player it acts as.

use std::sync::Arc;

use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::auth::{Caller, KeyAccess, Public};
use super::query::QueryParams;
use super::{json_ok, AppState};
use crate::error::ApiError;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/v1/keys/me", get(me))
}

/// `{"id", "scope", "ladder"}`: never the secret (the caller has it) nor its hash; for a
/// token, `{"scope": "player", "player"}`.
#[derive(Serialize)]
struct Me<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    scope: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    player: Option<&'a str>,
    ladder: Option<&'a str>,
}

async fn me(access: KeyAccess<Public>, query: QueryParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    json_ok(&match &access.caller {
        Caller::Key { id, scope, only } => Me { id: Some(id), scope: scope.as_str(), player: None, ladder: only.as_deref() },
        Caller::Player(name) => Me { id: None, scope: "player", player: Some(name), ladder: None },
    })
}
