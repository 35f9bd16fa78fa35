//! Who may do what: the extractors every handler takes. [`LadderAccess`] authorizes the
//! request's key for a scope and the ladder in the path, checks the ladder's name and loads
//! the ladder; [`LadderName`] stops after the name (a ladder being created);
//! [`KeyAccess`] authorizes a key for routes without a ladder. Each spends one request of
//! the key's (or player's) rate; failures count against the client address.
//!
//! A player token ([`crate::tokens`]) is taken only where the scope is [`Public`]: the
//! public reads (ladders, leaderboards, players, seasons) and its player's own resources;
//! every other route answers it 403.

use std::marker::PhantomData;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequestParts, RawPathParams};
use axum::http::header;
use axum::http::request::Parts;

use super::AppState;
use crate::error::ApiError;
use crate::keys::{self, Scope};
use crate::model::check_name;
use crate::store::{KeyRecord, Ladder};

/// How long a checked key (or an unknown id) is trusted before it is read again: a
/// revocation takes effect within this time on every server.
pub const KEY_CACHE: Duration = Duration::from_secs(1);

/// How long a ladder is cached before it is read again.
pub const LADDER_CACHE: Duration = Duration::from_secs(5);

/// A scope an extractor asks for.
pub trait NeededScope: Send + Sync + 'static {
    /// The scope.
    const SCOPE: Scope;
    /// Whether a player token is taken.
    const TOKENS: bool = false;
}

impl NeededScope for Public {
    const SCOPE: Scope = Scope::Read;
    const TOKENS: bool = true;
}

/// `read` keys, and player tokens: ladders, leaderboards, players, seasons (what a game
/// client shows).
pub struct Public;
/// `read`: players, leaderboards, the journal, seasons.
pub struct Read;
/// `report`: matches.
pub struct Report;
/// `admin`: ladders, season ends, decay, metrics.
pub struct Admin;

impl NeededScope for Read {
    const SCOPE: Scope = Scope::Read;
}
impl NeededScope for Report {
    const SCOPE: Scope = Scope::Report;
}
impl NeededScope for Admin {
    const SCOPE: Scope = Scope::Admin;
}

/// Who is calling: a key, or a player's token.
#[derive(Debug, Clone)]
pub enum Caller {
    /// An API key.
    Key {
        /// The key's public id.
        id: String,
        /// The key's scope.
        scope: Scope,
        /// The one ladder the key is limited to, if any.
        only: Option<String>,
    },
    /// A player token, acting as this player.
    Player(String),
}

impl Caller {
    /// Whether the caller may read `player`'s own resources (their history): any key, or
    /// that player's token.
    #[must_use]
    pub fn may_act_for(&self, player: &str) -> bool {
        match self {
            Self::Key { .. } => true,
            Self::Player(name) => name == player,
        }
    }
}

/// A key (or, for [`Public`], a player token) authorized for `S` (no ladder in the path).
pub struct KeyAccess<S> {
    /// Who.
    pub caller: Caller,
    _scope: PhantomData<S>,
}

/// A key authorized for `S` on the path's ladder, whose name is valid (the ladder may not
/// exist yet).
pub struct LadderName<S> {
    /// The ladder's name.
    pub name: String,
    /// Who.
    pub caller: Caller,
    _scope: PhantomData<S>,
}

/// A key authorized for `S` on the path's ladder, and the ladder.
pub struct LadderAccess<S> {
    /// The ladder.
    pub ladder: Arc<Ladder>,
    /// Who.
    pub caller: Caller,
    _scope: PhantomData<S>,
}

fn client_address(parts: &Parts) -> Option<IpAddr> {
    parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(address)| address.ip())
}

/// The path's `{ladder}`.
async fn path_ladder(parts: &mut Parts, state: &Arc<AppState>) -> Result<String, ApiError> {
    let params = RawPathParams::from_request_parts(parts, state).await.map_err(|_| ApiError::bad_request("the path is not valid UTF-8 text"))?;
    params.iter().find(|(name, _)| *name == "ladder").map(|(_, value)| value.to_owned()).ok_or_else(|| ApiError::internal("route without a ladder"))
}

impl AppState {
    /// Checks the bearer credential: a key known, not revoked, the secret's hash equal
    /// (constant time), a scope at least `needed`, limited to `ladder` if the key names one;
    /// or, where `tokens` allows, a player token that verifies ([`crate::tokens`]). Then
    /// spends one request of the key's (or player's) rate. Refused addresses are stopped
    /// before any lookup. Who called.
    async fn authorize(&self, parts: &Parts, needed: Scope, ladder: Option<&str>, tokens: bool) -> Result<Caller, ApiError> {
        let address = client_address(parts);
        self.limits.check_address(address)?;
        match self.check_credential(parts, needed, ladder, tokens).await {
            Ok(caller) => {
                let budget = match &caller {
                    Caller::Key { id, .. } => id.clone(),
                    // (Not the name: a budget row outlives an erasure.)
                    Caller::Player(name) => crate::tokens::budget_key(name),
                };
                self.limits.spend(self.store.as_ref(), &budget).await?;
                Ok(caller)
            }
            Err(error) => {
                if matches!(error.status.as_u16(), 401 | 403) {
                    self.limits.record_failure(address);
                }
                Err(error)
            }
        }
    }

    /// Who the bearer credential is, when it may do this (`ladder` `None`: a route without a
    /// ladder, which any key may use).
    async fn check_credential(&self, parts: &Parts, needed: Scope, ladder: Option<&str>, tokens: bool) -> Result<Caller, ApiError> {
        let value = parts.headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).unwrap_or("");
        // The scheme is case-insensitive (RFC 9110, 11.1).
        let token = match value.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => return Err(ApiError::unauthorized("send the API key (or a player token) as Authorization: Bearer KEY")),
        };
        if crate::tokens::looks_like_token(token) {
            let verifier = self.settings.tokens.as_ref().ok_or_else(|| ApiError::unauthorized("this server takes no player tokens (it was started without --jwt-… keys)"))?;
            let player = verifier.player(token)?;
            if !tokens {
                return Err(ApiError::forbidden("a player token reads ladders, leaderboards, players and seasons, and acts for its player only; this needs an API key"));
            }
            return Ok(Caller::Player(player));
        }
        let (id, secret) = keys::split(token).ok_or_else(|| ApiError::unauthorized("the API key is malformed"))?;
        let record = self.key_record(id).await?.ok_or_else(|| ApiError::unauthorized("unknown API key"))?;
        if !keys::same_hash(&keys::hash(secret), &record.hash) || record.revoked {
            return Err(ApiError::unauthorized("unknown or revoked API key"));
        }
        let scope = Scope::parse(&record.scope).map_err(ApiError::internal)?;
        if scope < needed {
            return Err(ApiError::forbidden(format!("this key's scope is {}; this needs {}", scope.as_str(), needed.as_str())));
        }
        if let (Some(only), Some(ladder)) = (&record.ladder, ladder) {
            if ladder != only {
                return Err(ApiError::forbidden(format!("this key is limited to ladder {only:?}")));
            }
        }
        Ok(Caller::Key { id: id.to_owned(), scope, only: record.ladder })
    }

    /// A key's record, cached for [`KEY_CACHE`] (unknown ids too, so that guessing them
    /// does not reach the database each time).
    async fn key_record(&self, id: &str) -> Result<Option<KeyRecord>, ApiError> {
        let cached = self.keys.lock().map_err(|_| ApiError::internal("key cache poisoned"))?.get(id).filter(|(_, at)| at.elapsed() < KEY_CACHE).map(|(r, _)| r.clone());
        if let Some(record) = cached {
            return Ok(record);
        }
        let record = self.store.key(id).await?;
        let mut cache = self.keys.lock().map_err(|_| ApiError::internal("key cache poisoned"))?;
        if cache.len() >= 100_000 {
            cache.retain(|_, (_, at)| at.elapsed() < KEY_CACHE);
        }
        cache.insert(id.to_owned(), (record.clone(), Instant::now()));
        Ok(record)
    }

    /// Drops a ladder from this server's cache (its options changed); other servers read it
    /// again within [`LADDER_CACHE`].
    pub fn forget_ladder(&self, name: &str) {
        if let Ok(mut ladders) = self.ladders.write() {
            ladders.remove(name);
        }
    }

    /// A ladder by name (cached for [`LADDER_CACHE`]), or 404.
    pub async fn ladder(&self, name: &str) -> Result<Arc<Ladder>, ApiError> {
        if let Some((ladder, at)) = self.ladders.read().map_err(|_| ApiError::internal("ladder cache poisoned"))?.get(name) {
            if at.elapsed() < LADDER_CACHE {
                return Ok(Arc::clone(ladder));
            }
        }
        let ladder = Arc::new(self.store.ladder(name).await?.ok_or_else(|| ApiError::not_found("unknown_ladder", format!("there is no ladder {name:?}")))?);
        self.ladders.write().map_err(|_| ApiError::internal("ladder cache poisoned"))?.insert(name.to_owned(), (Arc::clone(&ladder), Instant::now()));
        Ok(ladder)
    }
}

impl<S: NeededScope> FromRequestParts<Arc<AppState>> for KeyAccess<S> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<AppState>) -> Result<Self, ApiError> {
        let caller = state.authorize(parts, S::SCOPE, None, S::TOKENS).await?;
        Ok(Self { caller, _scope: PhantomData })
    }
}

impl<S: NeededScope> FromRequestParts<Arc<AppState>> for LadderName<S> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<AppState>) -> Result<Self, ApiError> {
        let name = path_ladder(parts, state).await?;
        let caller = state.authorize(parts, S::SCOPE, Some(&name), S::TOKENS).await?;
        check_name(&name, "ladder")?;
        Ok(Self { name, caller, _scope: PhantomData })
    }
}

impl<S: NeededScope> FromRequestParts<Arc<AppState>> for LadderAccess<S> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<AppState>) -> Result<Self, ApiError> {
        let LadderName { name, caller, .. } = LadderName::<S>::from_request_parts(parts, state).await?;
        Ok(Self { ladder: state.ladder(&name).await?, caller, _scope: PhantomData })
    }
}
