//! `/v1/ladders/{ladder}/webhooks` (admin): subscriptions that send the ladder's journal
//! entries to a URL ([`crate::webhooks`]), and how their deliveries stand.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{RawPathParams, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::auth::{Admin, LadderAccess};
use super::query::QueryParams;
use super::{body, detached, json, json_ok, AppState};
use crate::error::ApiError;
use crate::model::check_name;
use crate::webhooks::{WebhookPut, WebhookView};

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new().route("/v1/ladders/{ladder}/webhooks", get(list)).route("/v1/ladders/{ladder}/webhooks/{webhook}", get(read).put(put).delete(delete))
}

/// `{"webhooks": [...]}`.
#[derive(Serialize)]
struct List<'a> {
    webhooks: Vec<WebhookView<'a>>,
}

/// The path's `{webhook}`, checked.
fn path_name(params: &RawPathParams) -> Result<String, ApiError> {
    let name = params.iter().find(|(name, _)| *name == "webhook").map(|(_, value)| value.to_owned()).unwrap_or_default();
    check_name(&name, "webhook")?;
    Ok(name)
}

fn unknown(ladder: &str, name: &str) -> ApiError {
    ApiError::not_found("unknown_webhook", format!("ladder {ladder:?} has no webhook {name:?}"))
}

fn to_json<T: Serialize>(value: &T) -> Result<String, ApiError> {
    serde_json::to_string(value).map_err(|e| ApiError::internal(e.to_string()))
}

/// `GET …/webhooks`: every subscription of the ladder with how its deliveries stand (no
/// secrets).
async fn list(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let webhooks = state.store.webhooks(Some(&access.ladder)).await?;
    json_ok(&List { webhooks: webhooks.iter().map(|w| WebhookView::of(w, false)).collect() })
}

/// `GET …/webhooks/{webhook}`: one subscription (no secret).
async fn read(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let name = path_name(&params)?;
    let webhooks = state.store.webhooks(Some(&access.ladder)).await?;
    let webhook = webhooks.iter().find(|w| w.name == name).ok_or_else(|| unknown(&access.ladder.name, &name))?;
    json_ok(&WebhookView::of(webhook, false))
}

/// `PUT …/webhooks/{webhook}` `{"url", "kinds"?, "secret"?, "from"?, "paused"?}`: creates
/// the subscription (201) or updates it (200; its cursor stays, a waiting retry is made at
/// once); the answer carries its secret.
async fn put(
    State(state): State<Arc<AppState>>,
    access: LadderAccess<Admin>,
    query: QueryParams,
    params: RawPathParams,
    payload: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    query.only(&[])?;
    let name = path_name(&params)?;
    let put = WebhookPut::parse(&body(payload)?)?;
    let new_secret = crate::webhooks::new_secret()?;
    let store = Arc::clone(&state.store);
    let ladder = Arc::clone(&access.ladder);
    let (created, webhook) = detached(async move { store.put_webhook(&ladder, &name, &put, &new_secret).await }).await?;
    let status = if created { StatusCode::CREATED } else { StatusCode::OK };
    Ok(json(status, to_json(&WebhookView::of(&webhook, true))?))
}

/// `DELETE …/webhooks/{webhook}`: no more deliveries (one under way may still arrive).
async fn delete(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let name = path_name(&params)?;
    if !state.store.delete_webhook(&access.ladder, &name).await? {
        return Err(unknown(&access.ladder.name, &name));
    }
    json_ok(&serde_json::json!({ "deleted": name }))
}
