//! `POST /v1/ladders/{ladder}/matches` (report a match, once per id) and
//! `GET /v1/ladders/{ladder}/matches` (the journal, paged by `seq` and by size).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{RawPathParams, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use super::auth::{Admin, LadderAccess, Read, Report};
use super::query::QueryParams;
use super::{body, detached, json, json_ok, AppState};
use crate::amend::{self, Kind};
use crate::error::ApiError;
use crate::model::MatchRequest;

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/v1/ladders/{ladder}/matches", post(report).get(journal))
        .route("/v1/ladders/{ladder}/matches/{id}/annul", post(annul))
        .route("/v1/ladders/{ladder}/matches/{id}/correct", post(correct))
        .route("/v1/ladders/{ladder}/export", get(export))
}

async fn amend(
    state: Arc<AppState>,
    access: LadderAccess<Admin>,
    query: QueryParams,
    params: RawPathParams,
    payload: Result<Bytes, BytesRejection>,
    kind: Kind,
) -> Result<Response, ApiError> {
    query.only(&[])?;
    let id = params.iter().find(|(name, _)| *name == "id").map(|(_, value)| value.to_owned()).unwrap_or_default();
    let request = amend::Request::new(&id, kind, &body(payload)?)?;
    let store = Arc::clone(&state.store);
    let answer = detached(async move { store.amend(access.ladder, request).await }).await?;
    Ok(json(StatusCode::OK, answer))
}

/// `POST …/matches/{id}/annul` (admin), `{"reason": "…"}`: the match counts for nothing;
/// every later state is rebuilt.
async fn annul(
    State(state): State<Arc<AppState>>,
    access: LadderAccess<Admin>,
    query: QueryParams,
    params: RawPathParams,
    payload: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    amend(state, access, query, params, payload, Kind::Annul).await
}

/// `POST …/matches/{id}/correct` (admin), `{"score_a": …}` or `{"places": […]}`: the match
/// counts with the corrected result at its place; every later state is rebuilt.
async fn correct(
    State(state): State<Arc<AppState>>,
    access: LadderAccess<Admin>,
    query: QueryParams,
    params: RawPathParams,
    payload: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    amend(state, access, query, params, payload, Kind::Correct).await
}

/// The journal's kinds (the `kind` filter).
const KINDS: [&str; 9] = ["pair", "team", "free_for_all", "import", "season_end", "decay", "period_end", "annul", "correct"];

/// A `kind` filter, checked.
fn kind_filter(query: &QueryParams) -> Result<Option<String>, ApiError> {
    match query.text("kind") {
        None => Ok(None),
        Some(kind) if KINDS.contains(&kind) => Ok(Some(kind.to_owned())),
        Some(other) => Err(ApiError::bad_request(format!("kind must be one of {} (got {other:?})", KINDS.join(", ")))),
    }
}

async fn report(State(state): State<Arc<AppState>>, access: LadderAccess<Report>, query: QueryParams, payload: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    query.only(&[])?;
    let (request, tags) = MatchRequest::parse_report(&body(payload)?, &access.ladder.rules)?;
    // A match a queue made is reported with its players as matched; a ladder may take no
    // other (`matched_only`).
    match state.store.queue_match(&access.ladder, &request.id).await? {
        Some(made) => made.check_report(&request.game)?,
        None if access.ladder.options.matched_only => {
            return Err(ApiError::invalid(
                "not_matched",
                format!("ladder {:?} takes only matches its queues made (matched_only): {:?} is no match id of its queues", access.ladder.name, request.id),
            ))
        }
        None => {}
    }
    let store = Arc::clone(&state.store);
    let ladder = Arc::clone(&access.ladder);
    let answer = detached(async move { store.report(ladder, request).await }).await?;
    if tags.is_empty() {
        return Ok(json(StatusCode::OK, answer));
    }
    // The tags after the match is committed (its players exist then), each player's in a
    // transaction of its own; a retry of the report sets them again, to the same values.
    let store = Arc::clone(&state.store);
    let (set, refused) = detached(async move {
        let (mut set, mut refused) = (serde_json::Map::new(), Vec::new());
        for (player, changes) in &tags {
            match store.set_tags(&access.ladder, player, changes).await {
                Ok(Some(now)) => {
                    set.insert(player.clone(), serde_json::json!(now));
                }
                // Erased between the commit and now: nobody of that name to tag.
                Ok(None) => refused.push(serde_json::json!({"player": player, "status": 404, "code": "unknown_player", "message": format!("no player {player:?} any more")})),
                // A refusal (422: a 17th key) stays one; a failure (5xx) may pass on a retry.
                Err(error) => refused.push(serde_json::json!({"player": player, "status": error.status.as_u16(), "code": error.code, "message": error.message})),
            }
        }
        Ok((set, refused))
    })
    .await?;
    let mut answer: serde_json::Value = serde_json::from_str(&answer).map_err(|e| ApiError::internal(e.to_string()))?;
    answer["tags"] = serde_json::Value::Object(set);
    if !refused.is_empty() {
        // The match counts either way; these players' tags were not set.
        answer["tags_refused"] = serde_json::Value::Array(refused);
    }
    Ok(json(StatusCode::OK, answer.to_string()))
}

/// `?after=SEQ`: entries after it, oldest first (from the start when absent); `?before=SEQ`:
/// entries before it, newest first (a reader starts from the newest with `before` above
/// the ladder's `last_seq`).
async fn journal(State(state): State<Arc<AppState>>, access: LadderAccess<Read>, query: QueryParams) -> Result<Response, ApiError> {
    let query = query.only(&["after", "before", "limit", "kind"])?;
    let limit = query.number("limit", 100, 1..=1000)?;
    let kind = kind_filter(query)?;
    if query.text("before").is_some() {
        if query.text("after").is_some() {
            return Err(ApiError::bad_request("after and before cannot be combined"));
        }
        let before = query.number("before", 0, 1..=i64::MAX)?;
        return json_ok(&state.store.journal_newest(&access.ladder, before, limit, kind.as_deref()).await?);
    }
    let after = query.number("after", 0, 0..=i64::MAX)?;
    json_ok(&state.store.journal(&access.ladder, after, limit, kind.as_deref()).await?)
}

/// The whole journal as NDJSON: a header line (`{"format", "ladder", "rules"}`), then one
/// entry per line as `GET …/matches` shows them, streamed page by page (the server holds
/// one page at a time), then an end line ([`crate::verify::End`]) that says how many entries
/// came, through which seq and chain head, and whether they reach every entry committed when
/// the export started (if not, why). Every page is read in one snapshot, and an export whose
/// ladder is amended or has a player erased meanwhile stops at the next page with the reason
/// in its end line: what it sent is one state of the journal or says it is not.
/// `elo-ladder verify --journal FILE` checks it, end line included: an export cut short, or
/// one that stopped early, does not verify.
async fn export(State(state): State<Arc<AppState>>, access: LadderAccess<Admin>, query: QueryParams) -> Result<Response, ApiError> {
    query.only(&[])?;
    let store = Arc::clone(&state.store);
    let ladder = access.ladder;
    // The first season's rules: a replay starts with them (a season end that changes them
    // says so in its inputs).
    let rules: serde_json::Value = serde_json::from_str(&ladder.initial_config_json).map_err(|e| ApiError::internal(format!("stored configuration: {e}")))?;
    let mut header = serde_json::to_vec(&crate::verify::Header { format: crate::verify::FORMAT.to_owned(), ladder: ladder.name.clone(), rules })
        .map_err(|e| ApiError::internal(e.to_string()))?;
    header.push(b'\n');
    // Every entry committed before now must be in the export.
    let committed = store.ladders(Some(&ladder.name)).await?.first().map_or(0, |s| s.last_seq);
    let header = futures_util::stream::once(async move { Ok::<_, std::io::Error>(header) });
    let progress = Export { committed, ..Export::default() };
    let patience = state.settings.pending_timeout;
    let pages = futures_util::stream::unfold(Some(progress), move |progress| {
        let (store, ladder) = (Arc::clone(&store), Arc::clone(&ladder));
        async move {
            let mut progress = progress?;
            let page = match store.journal(&ladder, progress.end.last_seq, 1000, None).await {
                Ok(page) => page,
                Err(error) => return Some((Ok(progress.finish(Some(format!("reading the journal failed: {}", error.message)))), None)),
            };
            // One state of the journal: an amendment or erasure after the first page was read
            // may have changed entries already sent (a mark, a name), so the export stops.
            match (progress.amendments, page.amendments) {
                (None, now) => progress.amendments = now,
                (Some(then), Some(now)) if then != now => {
                    let reason = format!(
                        "the ladder was amended (an annulment, a correction or an erasure) while it was exported, after seq {}: entries already sent may have changed; export again",
                        progress.end.last_seq
                    );
                    return Some((Ok(progress.finish(Some(reason))), None));
                }
                _ => {}
            }
            if page.entries.is_empty() {
                if page.pending && progress.held.is_none_or(|since| since.elapsed() < patience) {
                    // Entries held back until lower seqs commit: wait for them.
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    progress.held = Some(progress.held.unwrap_or_else(std::time::Instant::now));
                    return Some((Ok(Vec::new()), Some(progress)));
                }
                let reason = page.pending.then(|| format!("entries after it were held back for {} s by a transaction still open (PostgreSQL); export again", patience.as_secs()));
                return Some((Ok(progress.finish(reason)), None));
            }
            progress.held = None;
            let mut text = Vec::new();
            for entry in &page.entries {
                if serde_json::to_writer(&mut text, entry).is_err() {
                    return Some((Ok(progress.finish(Some(format!("entry {} does not serialize", entry.seq)))), None));
                }
                text.push(b'\n');
                progress.end.entries += 1;
                progress.end.last_seq = entry.seq;
                progress.end.head.clone_from(&entry.hash);
            }
            Some((Ok(text), Some(progress)))
        }
    });
    let body = axum::body::Body::from_stream(futures_util::StreamExt::chain(header, pages));
    Ok(([(axum::http::header::CONTENT_TYPE, "application/x-ndjson")], body).into_response())
}

/// An export under way: what has been sent, and since when entries are held back.
#[derive(Default)]
struct Export {
    end: crate::verify::End,
    committed: i64,
    /// The ladder's amendment generation when the first page was read.
    amendments: Option<i64>,
    held: Option<std::time::Instant>,
}

impl Export {
    /// The end line: complete when the entries reach every entry committed at the start and
    /// nothing went wrong (`trouble`).
    fn finish(mut self, trouble: Option<String>) -> Vec<u8> {
        self.end.complete = trouble.is_none() && self.end.last_seq >= self.committed;
        self.end.reason = match trouble {
            Some(reason) => Some(reason),
            None if !self.end.complete => Some(format!("the journal reached seq {} when the export started; it stops at seq {}", self.committed, self.end.last_seq)),
            None => None,
        };
        let mut line = serde_json::to_vec(&serde_json::json!({ "end": self.end })).unwrap_or_default();
        line.push(b'\n');
        line
    }
}
