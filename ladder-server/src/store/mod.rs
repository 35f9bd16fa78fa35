//! Where ladders live: SQLite (the embedded default) or PostgreSQL (several server
//! instances on one database). Both keep the same tables (`migrations/`) and apply matches
//! with the same engine code ([`crate::model::apply_match`]); they differ in how a
//! transaction locks (see `docs/ladder-server.md`).

pub mod postgres;
pub mod sqlite;

use std::sync::Arc;

use ranking_elo::pool::{Pool, RatingSum};
use ranking_elo::{Config, Rules};
use serde::Serialize;

use crate::error::ApiError;
use crate::model::{current, JournalEntry, MatchRequest, PlayerRow, PlayerView, ZeroSum};

/// A ladder as the server caches it (rules never change once a ladder exists).
#[derive(Debug, Clone)]
pub struct Ladder {
    /// Row id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// The validated rules.
    pub rules: Rules,
    /// The canonical configuration JSON (what `PUT` compares).
    pub config_json: String,
}

impl Ladder {
    /// The zero-sum total, when the ladder has one.
    #[must_use]
    pub fn zero_sum_total(&self) -> Option<f64> {
        self.rules.config().zero_sum_total
    }
}

/// The canonical JSON of a configuration: every field written out.
#[must_use]
pub fn canonical_config(rules: &Rules) -> String {
    rules.config().to_json()
}

/// Rules from the stored canonical JSON.
///
/// # Errors
/// 500 when the stored text no longer parses (it was written by this server).
pub fn stored_rules(json: &str) -> Result<Rules, ApiError> {
    Config::from_json(json).map_err(|e| ApiError::internal(format!("stored ladder configuration: {e}")))
}

/// What `PUT /v1/ladders/{ladder}` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PutOutcome {
    /// The ladder was created (201).
    Created,
    /// It existed with identical rules (200).
    Same,
    /// It exists with other rules (409).
    Differs,
}

/// An API key's record.
#[derive(Debug, Clone)]
pub struct KeyRecord {
    /// SHA-256 of the secret.
    pub hash: [u8; 32],
    /// `read`, `report` or `admin`.
    pub scope: String,
    /// The one ladder the key may use, if limited.
    pub ladder: Option<String>,
    /// Revoked keys are refused.
    pub revoked: bool,
}

/// A leaderboard line.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct BoardEntry {
    /// 1 = best (ties: the earlier player first).
    pub rank: i64,
    /// Name.
    pub player: String,
    /// Current rating.
    pub rating: f32,
    /// League held (0 = lowest).
    pub league: u32,
}

/// A player with rank, for `GET …/players/{player}`.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerWithRank {
    /// Name and current state.
    #[serde(flatten)]
    pub view: PlayerView,
    /// 1 = best.
    pub rank: i64,
}

/// The two databases.
#[derive(Clone)]
pub enum Store {
    /// SQLite: one writer thread with group commit, reader connections.
    Sqlite(Arc<sqlite::SqliteStore>),
    /// PostgreSQL: a connection pool; row locks make concurrent writers safe.
    Postgres(Arc<postgres::PgStore>),
}

/// `sqlite://PATH` (optionally `?synchronous=normal`) or `postgres://…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// A SQLite file and whether commits wait for the disk (`synchronous=FULL`).
    Sqlite {
        /// The file.
        path: String,
        /// `FULL` (default) or `NORMAL`.
        full_sync: bool,
    },
    /// A PostgreSQL connection string.
    Postgres(String),
}

impl DatabaseUrl {
    /// Parses a database URL.
    ///
    /// # Errors
    /// Anything but `sqlite://PATH[?synchronous=full|normal]` or `postgres://…` /
    /// `postgresql://…`.
    pub fn parse(url: &str) -> Result<Self, String> {
        if let Some(rest) = url.strip_prefix("sqlite://") {
            let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
            if path.is_empty() {
                return Err(format!("{url}: sqlite://PATH needs a file path"));
            }
            let full_sync = match query {
                "" | "synchronous=full" => true,
                "synchronous=normal" => false,
                other => return Err(format!("{url}: unknown option {other:?} (sqlite://PATH?synchronous=full or normal)")),
            };
            Ok(Self::Sqlite { path: path.to_owned(), full_sync })
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Self::Postgres(url.to_owned()))
        } else {
            Err(format!("{url}: the database is sqlite://PATH or postgres://USER@HOST/NAME"))
        }
    }
}

impl Store {
    /// Opens the database and runs the migrations.
    ///
    /// # Errors
    /// The database cannot be opened or migrated.
    pub async fn open(url: &DatabaseUrl) -> Result<Self, String> {
        match url {
            DatabaseUrl::Sqlite { path, full_sync } => {
                let (path, full_sync) = (path.clone(), *full_sync);
                let store = tokio::task::spawn_blocking(move || sqlite::SqliteStore::open(&path, full_sync)).await.map_err(|e| e.to_string())??;
                Ok(Self::Sqlite(Arc::new(store)))
            }
            DatabaseUrl::Postgres(url) => Ok(Self::Postgres(Arc::new(postgres::PgStore::open(url).await?))),
        }
    }

    /// Creates a ladder or compares its rules.
    ///
    /// # Errors
    /// Database failures.
    pub async fn put_ladder(&self, name: &str, config_json: &str) -> Result<PutOutcome, ApiError> {
        match self {
            Self::Sqlite(s) => s.put_ladder(name, config_json).await,
            Self::Postgres(s) => s.put_ladder(name, config_json).await,
        }
    }

    /// A ladder by name.
    ///
    /// # Errors
    /// Database failures.
    pub async fn ladder(&self, name: &str) -> Result<Option<Ladder>, ApiError> {
        match self {
            Self::Sqlite(s) => s.ladder(name).await,
            Self::Postgres(s) => s.ladder(name).await,
        }
    }

    /// Applies a match exactly once per `(ladder, id)`; returns the 200 body.
    ///
    /// # Errors
    /// 409 for an id reused with another match, 422 for a match the engine refuses,
    /// database failures (nothing committed).
    pub async fn report(&self, ladder: &Ladder, request: MatchRequest) -> Result<String, ApiError> {
        match self {
            Self::Sqlite(s) => s.report(ladder, request).await,
            Self::Postgres(s) => s.report(ladder, request).await,
        }
    }

    /// A player's current state and rank.
    ///
    /// # Errors
    /// Database failures.
    pub async fn player(&self, ladder: &Ladder, name: &str) -> Result<Option<PlayerWithRank>, ApiError> {
        match self {
            Self::Sqlite(s) => s.player(ladder, name).await,
            Self::Postgres(s) => s.player(ladder, name).await,
        }
    }

    /// `limit` leaderboard lines from rank `offset + 1`.
    ///
    /// # Errors
    /// Database failures.
    pub async fn leaderboard(&self, ladder: &Ladder, limit: i64, offset: i64) -> Result<Vec<BoardEntry>, ApiError> {
        match self {
            Self::Sqlite(s) => s.leaderboard(ladder, limit, offset).await,
            Self::Postgres(s) => s.leaderboard(ladder, limit, offset).await,
        }
    }

    /// Journal entries after `after`, in `seq` order, and whether later entries exist that
    /// are held back until every lower `seq` has committed (PostgreSQL with several
    /// writers; ask again).
    ///
    /// # Errors
    /// Database failures.
    pub async fn journal(&self, ladder: &Ladder, after: i64, limit: i64) -> Result<(Vec<JournalEntry>, bool), ApiError> {
        match self {
            Self::Sqlite(s) => s.journal(ladder, after, limit).await,
            Self::Postgres(s) => s.journal(ladder, after, limit).await,
        }
    }

    /// Ends the season (records, then the soft reset) or applies decay, atomically.
    ///
    /// # Errors
    /// Database failures.
    pub async fn ladder_event(&self, ladder: &Ladder, event: LadderEvent) -> Result<String, ApiError> {
        match self {
            Self::Sqlite(s) => s.ladder_event(ladder, event).await,
            Self::Postgres(s) => s.ladder_event(ladder, event).await,
        }
    }

    /// A key's record by its public id.
    ///
    /// # Errors
    /// Database failures.
    pub async fn key(&self, id: &str) -> Result<Option<KeyRecord>, ApiError> {
        match self {
            Self::Sqlite(s) => s.key(id).await,
            Self::Postgres(s) => s.key(id).await,
        }
    }

    /// Stores a new key's hash.
    ///
    /// # Errors
    /// Database failures.
    pub async fn create_key(&self, id: &str, hash: &[u8; 32], scope: &str, ladder: Option<&str>) -> Result<(), ApiError> {
        match self {
            Self::Sqlite(s) => s.create_key(id, hash, scope, ladder).await,
            Self::Postgres(s) => s.create_key(id, hash, scope, ladder).await,
        }
    }

    /// Revokes a key; false when there is no such key.
    ///
    /// # Errors
    /// Database failures.
    pub async fn revoke_key(&self, id: &str) -> Result<bool, ApiError> {
        match self {
            Self::Sqlite(s) => s.revoke_key(id).await,
            Self::Postgres(s) => s.revoke_key(id).await,
        }
    }

    /// Whether the database answers.
    ///
    /// # Errors
    /// It does not.
    pub async fn ping(&self) -> Result<(), ApiError> {
        match self {
            Self::Sqlite(s) => s.ping().await,
            Self::Postgres(s) => s.ping().await,
        }
    }
}

/// A ladder-wide change (admin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LadderEvent {
    /// `POST …/seasons/end`.
    SeasonEnd,
    /// `POST …/decay`.
    Decay,
}

impl LadderEvent {
    /// The journal's `kind`.
    #[must_use]
    pub fn kind(self) -> &'static str {
        match self {
            Self::SeasonEnd => "season_end",
            Self::Decay => "decay",
        }
    }
}

/// A ladder-wide change computed by the engine's pool over every player.
pub struct EventResult {
    /// Changed stored states by row id.
    pub writes: Vec<(i64, ranking_elo::PlayerState)>,
    /// The zero-sum numbers after it.
    pub zero_sum: Option<ZeroSum>,
    /// The time decay has been applied through.
    pub decayed_through: Option<f64>,
    /// The response's fields after `seq`: a JSON object's text (floats in their shortest
    /// round-trip form, ratings as `f32`).
    pub results: String,
    /// What the journal keeps of it (a JSON object's text).
    pub summary: String,
}

/// A season end's response fields.
#[derive(Serialize)]
struct SeasonEndView<'a> {
    season_end: f64,
    leagues: Vec<&'a str>,
    records: Vec<RecordView<'a>>,
}

/// A decay's response fields (also its journal entry).
#[derive(Serialize)]
struct DecayView {
    decayed_through: f64,
    moved: usize,
}

/// One season record in the API (the engine's record with the player's name).
#[derive(Serialize)]
struct RecordView<'a> {
    player: &'a str,
    rating: f32,
    peak_rating: f32,
    league: u32,
    peak_league: u32,
    games: u32,
    wins: u32,
}

/// Runs a season end or decay through the engine's [`Pool`] built from every stored player
/// (`rows` in id order), so the server applies exactly the engine's season rules.
///
/// # Errors
/// 500 when a stored state is refused by the engine (a damaged database).
pub fn run_event(ladder: &Ladder, event: LadderEvent, rows: &[PlayerRow], zero_sum: Option<ZeroSum>, decayed_through: Option<f64>, now: f64) -> Result<EventResult, ApiError> {
    let states = rows.iter().map(|row| row.state).collect();
    let offset = zero_sum.map_or(0.0, |z| z.offset);
    let mut pool = Pool::from_stored(ladder.rules.clone(), states, offset, now, decayed_through).map_err(|e| ApiError::internal(format!("stored ladder: {e}")))?;
    let (results, summary, decayed_through) = match event {
        LadderEvent::SeasonEnd => {
            let records = pool.end_season(None);
            let views: Vec<RecordView<'_>> = records
                .iter()
                .map(|r| RecordView { player: &rows[r.player].name, rating: r.rating, peak_rating: r.peak_rating, league: r.league, peak_league: r.peak_league, games: r.games, wins: r.wins })
                .collect();
            let leagues: Vec<&str> = ladder.rules.config().leagues.as_slice().iter().map(|l| l.name.as_str()).collect();
            let summary = serde_json::json!({ "season_end": now, "players": rows.len() }).to_string();
            (json_text(&SeasonEndView { season_end: now, leagues, records: views }), summary, decayed_through)
        }
        LadderEvent::Decay => {
            let at = decayed_through.map_or(now, |through| now.max(through));
            let moved = pool.apply_decay(at, None).map_err(|e| ApiError::internal(format!("decay: {e}")))?;
            let view = json_text(&DecayView { decayed_through: at, moved });
            (view.clone(), view, pool.decayed_through())
        }
    };
    let mut writes = Vec::new();
    let mut stored = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let state = pool.stored_player(i).ok_or_else(|| ApiError::internal("pool lost a player"))?;
        if state != row.state {
            writes.push((row.id, state));
        }
        stored.push(state.rating);
    }
    let zero_sum = zero_sum.map(|z| ZeroSum { offset: pool.offset(), sum: RatingSum::of(stored.into_iter()), ..z });
    Ok(EventResult { writes, zero_sum, decayed_through, results, summary })
}

/// A stored player made current for the API.
#[must_use]
pub fn view(row: PlayerRow, zero_sum: Option<&ZeroSum>) -> PlayerView {
    PlayerView { state: current(&row.state, zero_sum), player: row.name }
}

/// The answer to a match id already in the journal: the stored response when the match is
/// the same, 409 when the id was used for another match.
///
/// # Errors
/// 409 `match_id_reused`.
pub fn replay_answer(id: &str, seq: i64, stored_inputs: &str, inputs: &str, results: &str) -> Result<String, ApiError> {
    if stored_inputs == inputs {
        Ok(crate::model::match_response(seq, results))
    } else {
        Err(ApiError::conflict(
            "match_id_reused",
            format!("match id {id:?} was already used for another match ({stored_inputs}); nothing was changed"),
        ))
    }
}

/// The body of a season end's or decay's 200: `{"seq": N, …results}` (`results` is a JSON
/// object's text).
#[must_use]
pub fn event_response(seq: i64, results: &str) -> String {
    let fields = results.trim().trim_start_matches('{');
    if fields.trim_start().starts_with('}') {
        format!("{{\"seq\":{seq}}}")
    } else {
        format!("{{\"seq\":{seq},{fields}")
    }
}

/// A view as JSON text.
fn json_text<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| unreachable!("views always serialize"))
}

/// A journal row as the API shows it.
///
/// # Errors
/// 500 when stored JSON does not parse.
pub fn journal_entry(seq: i64, kind: String, id: Option<String>, time: f64, inputs: &str, joined: &str, results: &str) -> Result<JournalEntry, ApiError> {
    let broken = |e: serde_json::Error| ApiError::internal(format!("journal {seq}: {e}"));
    let raw = |text: &str| serde_json::value::RawValue::from_string(text.to_owned()).map_err(broken);
    Ok(JournalEntry { seq, kind, id, time, inputs: raw(inputs)?, joined: serde_json::from_str(joined).map_err(broken)?, results: raw(results)? })
}
