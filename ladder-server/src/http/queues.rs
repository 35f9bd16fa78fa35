//! Matchmaking queues (`docs/matchmaking.md`): `PUT`/`GET /v1/ladders/{ladder}/queues/{queue}`,
//! `GET /v1/ladders/{ladder}/queues`, tickets (`POST …/tickets`, `GET`/`DELETE
//! …/tickets/{ticket}` with long-polls) and the matches a queue made (`GET …/matches`).
//!
//! A player token joins, reads and cancels its own player's tickets only; a game backend
//! does the same for any player with a report or admin key; read keys and tokens read
//! queues.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{RawPathParams, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post, put};
use axum::Router;

use super::auth::{Admin, Caller, LadderAccess, Public, Report};
use super::query::QueryParams;
use super::{body, detached, json, json_ok, AppState};
use crate::error::ApiError;
use crate::keys::Scope;
use crate::model::{self, check_name};
use crate::queue::{NewTicket, QueueSettings, TicketRecord, TicketState};
use crate::store::{Joined, Ladder, QueueListing, QueuePut};

/// The longest a long-poll waits, in seconds.
pub const MAX_WAIT: i64 = 30;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/v1/ladders/{ladder}/queues", get(list))
        .route("/v1/ladders/{ladder}/queues/{queue}", put(put_queue).get(show))
        .route("/v1/ladders/{ladder}/queues/{queue}/tickets", post(join))
        .route("/v1/ladders/{ladder}/queues/{queue}/tickets/{ticket}", get(ticket).delete(cancel))
        .route("/v1/ladders/{ladder}/queues/{queue}/matches", get(matches))
}

/// A path parameter, checked as a name.
fn path_name(params: &RawPathParams, name: &str) -> Result<String, ApiError> {
    let value = params.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_owned()).unwrap_or_default();
    check_name(&value, name)?;
    Ok(value)
}

/// The longest a long-poll may wait on this server: [`MAX_WAIT`], or less when the request
/// timeout (`--request-timeout`) would cut it short.
fn longest_wait(state: &AppState) -> i64 {
    i64::try_from(state.settings.request_timeout.as_secs()).unwrap_or(i64::MAX).saturating_sub(2).clamp(0, MAX_WAIT)
}

/// The 404 of a queue the ladder does not have.
fn unknown_queue(ladder: &Ladder, name: &str) -> ApiError {
    ApiError::not_found("unknown_queue", format!("ladder {:?} has no queue {name:?}", ladder.name))
}

/// The path's queue, which must exist, with its tickets counted.
async fn existing_queue(state: &AppState, ladder: &Ladder, params: &RawPathParams) -> Result<QueueListing, ApiError> {
    let name = path_name(params, "queue")?;
    state.store.queues(ladder, Some(&name)).await?.into_iter().next().ok_or_else(|| unknown_queue(ladder, &name))
}

/// A queue as the ticket routes need it: its name and settings (one row read; nothing
/// counted, whatever the number of tickets).
struct QueueRef {
    name: String,
    settings: QueueSettings,
}

/// The path's queue, which must exist, without counting.
async fn queue_ref(state: &AppState, ladder: &Ladder, params: &RawPathParams) -> Result<QueueRef, ApiError> {
    let name = path_name(params, "queue")?;
    let settings = state.store.queue_settings(ladder, &name).await?.ok_or_else(|| unknown_queue(ladder, &name))?;
    Ok(QueueRef { name, settings })
}

/// `PUT …/queues/{queue}` (admin): creates (201) or replaces (200) the queue's settings.
/// Waiting tickets stay and are matched under the new settings.
async fn put_queue(
    State(state): State<Arc<AppState>>,
    access: LadderAccess<Admin>,
    query: QueryParams,
    params: RawPathParams,
    payload: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    query.only(&[])?;
    let name = path_name(&params, "queue")?;
    let settings = QueueSettings::from_body(&body(payload)?)?;
    let outcome = state.store.put_queue(&access.ladder, &name, &settings.to_json()).await?;
    let listing = state.store.queues(&access.ladder, Some(&name)).await?.into_iter().next().ok_or_else(|| ApiError::internal("a queue vanished"))?;
    let status = if outcome == QueuePut::Created { StatusCode::CREATED } else { StatusCode::OK };
    Ok(json(status, serde_json::to_string(&listing).map_err(|e| ApiError::internal(e.to_string()))?))
}

/// `GET …/queues/{queue}`: the settings and the waiting tickets' count.
async fn show(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    json_ok(&existing_queue(&state, &access.ladder, &params).await?)
}

/// `GET …/queues`: every queue of the ladder.
async fn list(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    json_ok(&serde_json::json!({ "queues": state.store.queues(&access.ladder, None).await? }))
}

/// Refuses a caller that may not change tickets of `players`: a token of another player, or
/// a read key.
fn may_change(caller: &Caller, players: &[String], joining: bool) -> Result<(), ApiError> {
    match caller {
        Caller::Player(me) if joining && (players.len() != 1 || &players[0] != me) => {
            Err(ApiError::forbidden(format!("a player token joins for its own player only ({me:?}); a game backend queues others with a report key")))
        }
        Caller::Player(me) if !players.contains(me) => Err(ApiError::forbidden(format!("this ticket is not {me:?}'s"))),
        Caller::Key { scope, .. } if *scope < Scope::Report => Err(ApiError::forbidden("tickets are joined and cancelled with a report or admin key, or the player's token")),
        _ => Ok(()),
    }
}

/// `POST …/tickets`: joins the queue (201), or, for a retried id, the same ticket (200).
async fn join(
    State(state): State<Arc<AppState>>,
    access: LadderAccess<Public>,
    query: QueryParams,
    params: RawPathParams,
    payload: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    query.only(&[])?;
    let listing = queue_ref(&state, &access.ladder, &params).await?;
    let mut ticket = NewTicket::parse(&body(payload)?, &listing.settings)?;
    may_change(&access.caller, &ticket.players, true)?;
    // Retry ids are the caller's own: another player's token or key can neither take one
    // nor learn of it.
    ticket.client_id = ticket.client_id.map(|id| match &access.caller {
        Caller::Player(name) => format!("{}/{id}", crate::tokens::budget_key(name)),
        Caller::Key { id: key, .. } => format!("key/{key}/{id}"),
    });
    let store = Arc::clone(&state.store);
    let (ladder, queue) = (Arc::clone(&access.ladder), listing.name.clone());
    let joined = detached(async move { store.join_queue(ladder, queue, ticket).await }).await?;
    let (status, record) = match joined {
        Joined::Created(record) => (StatusCode::CREATED, record),
        Joined::Again(record) => (StatusCode::OK, record),
    };
    Ok(json(status, serde_json::to_string(&record.view(&listing.settings, model::now())?).map_err(|e| ApiError::internal(e.to_string()))?))
}

/// The path's ticket, which the caller may read.
async fn readable_ticket(state: &AppState, access: &LadderAccess<Public>, listing: &QueueRef, params: &RawPathParams) -> Result<TicketRecord, ApiError> {
    let id = path_name(params, "ticket")?;
    let record = state
        .store
        .ticket(&access.ladder, &listing.name, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("unknown_ticket", format!("queue {:?} has no ticket {id:?}", listing.name)))?;
    if let Caller::Player(me) = &access.caller {
        if !record.players.contains(me) {
            return Err(ApiError::forbidden(format!("this ticket is not {me:?}'s")));
        }
    }
    Ok(record)
}

/// `GET …/tickets/{ticket}?wait=SECONDS`: the ticket now, or (with `wait`, up to 30 s) once
/// its state changes from `waiting`, whichever comes first.
async fn ticket(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    let query = query.only(&["wait"])?;
    let wait = query.number("wait", 0, 0..=MAX_WAIT)?.min(longest_wait(&state));
    let listing = queue_ref(&state, &access.ladder, &params).await?;
    let mut record = readable_ticket(&state, &access, &listing, &params).await?;
    if wait > 0 && record.state == TicketState::Waiting {
        let deadline = Instant::now() + Duration::from_secs(u64::try_from(wait).unwrap_or(0));
        let waiter = state.tickets.subscribe(&record.id);
        loop {
            let notified = waiter.notify().notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            // Read after registering: a change between the two is not missed.
            record = state.store.ticket(&access.ladder, &listing.name, &record.id).await?.ok_or_else(|| ApiError::internal("a ticket vanished"))?;
            let left = deadline.saturating_duration_since(Instant::now());
            if record.state != TicketState::Waiting || left.is_zero() {
                break;
            }
            // Woken by this server's change at once, another server's within the watcher's
            // interval; the read every few seconds is a safety net only.
            tokio::select! {
                () = notified => {}
                () = tokio::time::sleep(left.min(Duration::from_secs(5))) => {}
            }
        }
    }
    json_ok(&record.view(&listing.settings, model::now())?)
}

/// `DELETE …/tickets/{ticket}`: cancels a waiting ticket (200, also when it was cancelled
/// already); 409 once it is matched or expired.
async fn cancel(State(state): State<Arc<AppState>>, access: LadderAccess<Public>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let listing = queue_ref(&state, &access.ladder, &params).await?;
    let record = readable_ticket(&state, &access, &listing, &params).await?;
    may_change(&access.caller, &record.players, false)?;
    let store = Arc::clone(&state.store);
    let (ladder, queue, id) = (Arc::clone(&access.ladder), listing.name.clone(), record.id.clone());
    let after = detached(async move { store.cancel_ticket(&ladder, &queue, &id).await }).await?.ok_or_else(|| ApiError::internal("a ticket vanished"))?;
    state.tickets.wake(std::slice::from_ref(&after.id));
    match after.state {
        TicketState::Cancelled => json_ok(&after.view(&listing.settings, model::now())?),
        other => Err(ApiError::conflict(
            "ticket_not_waiting",
            format!("ticket {} is {}: it can no longer be cancelled{}", after.id, other.as_str(), if other == TicketState::Matched { " (report or annul its match)" } else { "" }),
        )),
    }
}

/// `GET …/queues/{queue}/matches?after=SEQ&limit=N&wait=SECONDS` (report or admin key): the
/// matches the queue made after `after`, oldest first, for a backend that starts game
/// servers; with `wait`, an empty answer waits up to 30 s for the next match.
async fn matches(State(state): State<Arc<AppState>>, access: LadderAccess<Report>, query: QueryParams, params: RawPathParams) -> Result<Response, ApiError> {
    let query = query.only(&["after", "limit", "wait"])?;
    let after = query.number("after", 0, 0..=i64::MAX)?;
    let limit = query.number("limit", 100, 1..=1000)?;
    let wait = query.number("wait", 0, 0..=MAX_WAIT)?.min(longest_wait(&state));
    let listing = queue_ref(&state, &access.ladder, &params).await?;
    let deadline = Instant::now() + Duration::from_secs(u64::try_from(wait).unwrap_or(0));
    loop {
        let found = state.store.queue_matches(&access.ladder, &listing.name, after, limit).await?;
        if !found.is_empty() || Instant::now() >= deadline {
            let next = found.last().map_or(after, |m| m.seq);
            return json_ok(&serde_json::json!({ "matches": found, "after": next }));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
