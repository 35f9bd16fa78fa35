//! PostgreSQL: several `elo-ladder serve` processes on one database. A match locks its
//! players' rows (`SELECT … FOR UPDATE`, in name order, so two matches never wait for each
//! other in a cycle), takes its `seq` after those locks, and commits; a zero-sum ladder
//! first locks its ladder row, which serializes its matches. Season ends and decay take an
//! exclusive advisory lock of the ladder that every match takes shared. Statements are
//! prepared once per connection and pipelined: a match costs two round trips.

use std::collections::HashMap;
use std::sync::Mutex;

use futures_util::future::join_all;
use ranking_elo::PlayerState;
use tokio::sync::{Semaphore, SemaphorePermit};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, NoTls, Row, Statement};

use super::{canonical_config, run_event, stored_rules, view, BoardEntry, KeyRecord, Ladder, LadderEvent, PlayerWithRank, PutOutcome};
use crate::error::ApiError;
use crate::model::{self, apply_match, joining_state, JournalEntry, MatchRequest, PlayerRow, ZeroSum};

/// The migrations, in order.
const MIGRATIONS: [&str; 1] = [include_str!("../../migrations/postgres/0001_ladders.sql")];

/// The class of this server's advisory locks (the object is the ladder id).
const LOCK_CLASS: i32 = 0x454C_4F00; // "ELO\0"

/// Connections one server process keeps at most.
const MAX_CONNECTIONS: usize = 32;

/// How often a transaction that lost a deadlock or serialization race is tried again.
const ATTEMPTS: usize = 20;

const PLAYER_COLUMNS: &str = super::sqlite::PLAYER_COLUMNS;

/// One connection with its prepared statements.
struct Conn {
    client: Client,
    statements: HashMap<&'static str, Statement>,
    /// A transaction is open (a connection dropped in one is closed, not reused).
    in_transaction: bool,
}

impl Conn {
    async fn prepare(&mut self, sql: &'static str) -> Result<Statement, tokio_postgres::Error> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql).await?;
        self.statements.insert(sql, statement.clone());
        Ok(statement)
    }
}

/// A connection borrowed from the pool; returned on drop unless it is broken or inside a
/// transaction.
struct Pooled<'a> {
    conn: Option<Conn>,
    store: &'a PgStore,
    _permit: SemaphorePermit<'a>,
}

impl std::ops::Deref for Pooled<'_> {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        self.conn.as_ref().unwrap_or_else(|| unreachable!("a pooled connection is present until dropped"))
    }
}

impl std::ops::DerefMut for Pooled<'_> {
    fn deref_mut(&mut self) -> &mut Conn {
        self.conn.as_mut().unwrap_or_else(|| unreachable!("a pooled connection is present until dropped"))
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            if !conn.in_transaction && !conn.client.is_closed() {
                if let Ok(mut idle) = self.store.idle.lock() {
                    idle.push(conn);
                }
            }
        }
    }
}

/// The PostgreSQL store.
pub struct PgStore {
    config: tokio_postgres::Config,
    idle: Mutex<Vec<Conn>>,
    permits: Semaphore,
}

/// Whether a failed transaction should simply be tried again.
fn retryable(error: &tokio_postgres::Error) -> bool {
    matches!(error.code(), Some(code) if *code == SqlState::T_R_DEADLOCK_DETECTED || *code == SqlState::T_R_SERIALIZATION_FAILURE)
}

fn unique_violation(error: &tokio_postgres::Error) -> bool {
    error.code() == Some(&SqlState::UNIQUE_VIOLATION)
}

impl PgStore {
    /// Connects, runs the migrations (under an advisory lock, so several servers starting
    /// together migrate once).
    ///
    /// # Errors
    /// The URL is invalid, the server cannot be reached, or a migration fails.
    pub async fn open(url: &str) -> Result<Self, String> {
        let config: tokio_postgres::Config = url.parse().map_err(|e| format!("{url}: {e}"))?;
        let store = Self { config, idle: Mutex::new(Vec::new()), permits: Semaphore::new(MAX_CONNECTIONS) };
        {
            let conn = store.get().await.map_err(|e| e.message)?;
            migrate(&conn.client).await.map_err(|e| format!("postgres migration: {e}"))?;
        }
        Ok(store)
    }

    async fn get(&self) -> Result<Pooled<'_>, ApiError> {
        let permit = self.permits.acquire().await.map_err(|_| ApiError::unavailable("connection pool closed"))?;
        let idle = self.idle.lock().map_err(|_| ApiError::internal("pool lock poisoned"))?.pop();
        let conn = match idle {
            Some(conn) => conn,
            None => {
                let (client, connection) = self.config.connect(NoTls).await.map_err(|e| ApiError::unavailable(format!("postgres: {e}")))?;
                tokio::spawn(async move {
                    let _ = connection.await;
                });
                Conn { client, statements: HashMap::new(), in_transaction: false }
            }
        };
        Ok(Pooled { conn: Some(conn), store: self, _permit: permit })
    }

    pub(super) async fn put_ladder(&self, name: &str, config_json: &str) -> Result<PutOutcome, ApiError> {
        let conn = self.get().await?;
        let inserted = conn
            .client
            .execute("INSERT INTO ladders (name, config, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING", &[&name, &config_json, &model::now()])
            .await?;
        if inserted == 1 {
            return Ok(PutOutcome::Created);
        }
        let stored: String = conn.client.query_one("SELECT config FROM ladders WHERE name = $1", &[&name]).await?.get(0);
        Ok(if canonical_config(&stored_rules(&stored)?) == config_json { PutOutcome::Same } else { PutOutcome::Differs })
    }

    pub(super) async fn ladder(&self, name: &str) -> Result<Option<Ladder>, ApiError> {
        let mut conn = self.get().await?;
        let statement = conn.prepare("SELECT id, config FROM ladders WHERE name = $1").await?;
        let Some(row) = conn.client.query_opt(&statement, &[&name]).await? else {
            return Ok(None);
        };
        let config_json: String = row.get(1);
        Ok(Some(Ladder { id: row.get(0), rules: stored_rules(&config_json)?, name: name.to_owned(), config_json }))
    }

    pub(super) async fn report(&self, ladder: &Ladder, request: MatchRequest) -> Result<String, ApiError> {
        let inputs = request.inputs_json();
        let mut last = None;
        for attempt in 0..ATTEMPTS {
            let mut conn = self.get().await?;
            match report_once(&mut conn, ladder, &request, &inputs).await {
                Ok(answer) => return answer,
                Err(error) if retryable(&error) || unique_violation(&error) => {
                    // Lost a deadlock, or another request with the same id committed first
                    // (the next attempt finds it in the journal).
                    last = Some(error);
                    let _ = conn.client.batch_execute("ROLLBACK").await;
                    conn.in_transaction = false;
                    tokio::time::sleep(std::time::Duration::from_millis(1 + (attempt as u64 % 8))).await;
                }
                Err(error) => {
                    let _ = conn.client.batch_execute("ROLLBACK").await;
                    conn.in_transaction = false;
                    return Err(error.into());
                }
            }
        }
        Err(last.map_or_else(|| ApiError::internal("gave up"), ApiError::from))
    }

    pub(super) async fn player(&self, ladder: &Ladder, name: &str) -> Result<Option<PlayerWithRank>, ApiError> {
        let mut conn = self.get().await?;
        let statement = conn
            .prepare(
                "SELECT p.id, p.name, p.rating, p.games_played, p.win_streak, p.period_games, p.is_junior, p.has_reached_2400, p.league, p.protected_games, \
                 p.season_games, p.season_wins, p.peak_rating, p.peak_league, p.last_played, l.zero_sum_offset, l.zero_sum_sum, l.players, \
                 (SELECT count(*) FROM players q WHERE q.ladder_id = p.ladder_id AND q.rating > p.rating) \
                 + (SELECT count(*) FROM players q WHERE q.ladder_id = p.ladder_id AND q.rating = p.rating AND q.id < p.id) \
                 FROM players p JOIN ladders l ON l.id = p.ladder_id WHERE p.ladder_id = $1 AND p.name = $2",
            )
            .await?;
        let Some(row) = conn.client.query_opt(&statement, &[&ladder.id, &name]).await? else {
            return Ok(None);
        };
        let zero_sum = ladder.zero_sum_total().map(|total| ZeroSum::from_stored(total, row.get(15), row.get::<_, &str>(16), row.get(17))).transpose()?;
        let rank = row.get::<_, i64>(18) + 1;
        Ok(Some(PlayerWithRank { view: view(player_row(&row), zero_sum.as_ref()), rank }))
    }

    pub(super) async fn leaderboard(&self, ladder: &Ladder, limit: i64, offset: i64) -> Result<Vec<BoardEntry>, ApiError> {
        let mut conn = self.get().await?;
        let statement = conn
            .prepare(
                "SELECT p.name, p.rating, p.league, l.zero_sum_offset FROM players p JOIN ladders l ON l.id = p.ladder_id \
                 WHERE p.ladder_id = $1 ORDER BY p.rating DESC, p.id LIMIT $2 OFFSET $3",
            )
            .await?;
        let rows = conn.client.query(&statement, &[&ladder.id, &limit, &offset]).await?;
        Ok(rows
            .iter()
            .enumerate()
            .map(|(i, row)| BoardEntry {
                rank: offset + i as i64 + 1,
                player: row.get(0),
                rating: ranking_elo::pool::effective_rating(row.get(1), row.get(3)),
                league: u32::try_from(row.get::<_, i64>(2)).unwrap_or(0),
            })
            .collect())
    }

    pub(super) async fn journal(&self, ladder: &Ladder, after: i64, limit: i64) -> Result<(Vec<JournalEntry>, bool), ApiError> {
        let mut conn = self.get().await?;
        // An entry is shown once no transaction that could still commit a lower seq is
        // running: every transaction that took its seq before this entry's had its id
        // before `horizon`, so all have ended when the oldest running one is past it.
        let statement = conn
            .prepare(
                "SELECT seq, kind, match_id, time, inputs, joined, results, horizon, pg_snapshot_xmin(pg_current_snapshot())::text::bigint \
                 FROM journal WHERE ladder_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
            )
            .await?;
        let rows = conn.client.query(&statement, &[&ladder.id, &after, &limit]).await?;
        let mut entries = Vec::with_capacity(rows.len());
        for row in rows {
            if row.get::<_, i64>(7) > row.get::<_, i64>(8) {
                return Ok((entries, true));
            }
            entries.push(super::journal_entry(row.get(0), row.get(1), row.get(2), row.get(3), row.get(4), row.get(5), row.get(6))?);
        }
        Ok((entries, false))
    }

    pub(super) async fn ladder_event(&self, ladder: &Ladder, event: LadderEvent) -> Result<String, ApiError> {
        let mut conn = self.get().await?;
        conn.in_transaction = true;
        let result = ladder_event_once(&conn.client, ladder, event).await;
        if result.is_err() {
            let _ = conn.client.batch_execute("ROLLBACK").await;
        }
        conn.in_transaction = false;
        result
    }

    pub(super) async fn key(&self, id: &str) -> Result<Option<KeyRecord>, ApiError> {
        let mut conn = self.get().await?;
        let statement = conn.prepare("SELECT hash, scope, ladder, revoked_at FROM api_keys WHERE id = $1").await?;
        let row = conn.client.query_opt(&statement, &[&id]).await?;
        Ok(row.and_then(|row| {
            let hash: Vec<u8> = row.get(0);
            Some(KeyRecord { hash: hash.try_into().ok()?, scope: row.get(1), ladder: row.get(2), revoked: row.get::<_, Option<f64>>(3).is_some() })
        }))
    }

    pub(super) async fn create_key(&self, id: &str, hash: &[u8; 32], scope: &str, ladder: Option<&str>) -> Result<(), ApiError> {
        let conn = self.get().await?;
        conn.client
            .execute("INSERT INTO api_keys (id, hash, scope, ladder, created_at) VALUES ($1, $2, $3, $4, $5)", &[&id, &hash.as_slice(), &scope, &ladder, &model::now()])
            .await?;
        Ok(())
    }

    pub(super) async fn revoke_key(&self, id: &str) -> Result<bool, ApiError> {
        let conn = self.get().await?;
        Ok(conn.client.execute("UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL", &[&id, &model::now()]).await? > 0)
    }

    pub(super) async fn ping(&self) -> Result<(), ApiError> {
        self.get().await?.client.simple_query("SELECT 1").await?;
        Ok(())
    }
}

async fn migrate(client: &Client) -> Result<(), tokio_postgres::Error> {
    client.execute("SELECT pg_advisory_lock($1, 0)", &[&LOCK_CLASS]).await?;
    let result = async {
        client.batch_execute("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)").await?;
        for (i, sql) in MIGRATIONS.iter().enumerate() {
            let version = i as i64 + 1;
            if client.query_opt("SELECT 1 FROM schema_migrations WHERE version = $1", &[&version]).await?.is_none() {
                client.batch_execute(&format!("BEGIN; {sql}")).await?;
                client.execute("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", &[&version, &model::now()]).await?;
                client.batch_execute("COMMIT").await?;
            }
        }
        Ok(())
    }
    .await;
    if result.is_err() {
        let _ = client.batch_execute("ROLLBACK").await;
    }
    client.execute("SELECT pg_advisory_unlock($1, 0)", &[&LOCK_CLASS]).await?;
    result
}

fn player_row(row: &Row) -> PlayerRow {
    let count = |i: usize| u32::try_from(row.get::<_, i64>(i)).unwrap_or(u32::MAX);
    PlayerRow {
        id: row.get(0),
        name: row.get(1),
        state: PlayerState {
            rating: row.get(2),
            games_played: count(3),
            win_streak: count(4),
            period_games: count(5),
            is_junior: row.get(6),
            has_reached_2400: row.get(7),
            league: Some(count(8)),
            protected_games: count(9),
            season_games: count(10),
            season_wins: count(11),
            peak_rating: row.get(12),
            peak_league: count(13),
            last_played: row.get(14),
        },
    }
}

/// Column arrays for `unnest`: one element per written player.
#[derive(Default)]
struct Columns {
    ids: Vec<i64>,
    names: Vec<String>,
    rating: Vec<f32>,
    games_played: Vec<i64>,
    win_streak: Vec<i64>,
    period_games: Vec<i64>,
    is_junior: Vec<bool>,
    has_reached_2400: Vec<bool>,
    league: Vec<i64>,
    protected_games: Vec<i64>,
    season_games: Vec<i64>,
    season_wins: Vec<i64>,
    peak_rating: Vec<f32>,
    peak_league: Vec<i64>,
    last_played: Vec<f64>,
}

impl Columns {
    fn push(&mut self, id: i64, name: &str, s: &PlayerState) {
        self.ids.push(id);
        self.names.push(name.to_owned());
        self.rating.push(s.rating);
        self.games_played.push(s.games_played.into());
        self.win_streak.push(s.win_streak.into());
        self.period_games.push(s.period_games.into());
        self.is_junior.push(s.is_junior);
        self.has_reached_2400.push(s.has_reached_2400);
        self.league.push(s.league.unwrap_or(0).into());
        self.protected_games.push(s.protected_games.into());
        self.season_games.push(s.season_games.into());
        self.season_wins.push(s.season_wins.into());
        self.peak_rating.push(s.peak_rating);
        self.peak_league.push(s.peak_league.into());
        self.last_played.push(s.last_played);
    }

    /// The state arrays (`$2` to `$14` of [`UPDATE_PLAYERS`] and [`INSERT_PLAYERS`]).
    fn states(&self) -> [&(dyn ToSql + Sync); 13] {
        [
            &self.rating,
            &self.games_played,
            &self.win_streak,
            &self.period_games,
            &self.is_junior,
            &self.has_reached_2400,
            &self.league,
            &self.protected_games,
            &self.season_games,
            &self.season_wins,
            &self.peak_rating,
            &self.peak_league,
            &self.last_played,
        ]
    }
}

const UPDATE_PLAYERS: &str = "UPDATE players p SET rating = u.rating, games_played = u.games_played, win_streak = u.win_streak, period_games = u.period_games, \
     is_junior = u.is_junior, has_reached_2400 = u.has_reached_2400, league = u.league, protected_games = u.protected_games, season_games = u.season_games, \
     season_wins = u.season_wins, peak_rating = u.peak_rating, peak_league = u.peak_league, last_played = u.last_played \
     FROM unnest($2::real[], $3::bigint[], $4::bigint[], $5::bigint[], $6::boolean[], $7::boolean[], $8::bigint[], $9::bigint[], $10::bigint[], \
     $11::bigint[], $12::real[], $13::bigint[], $14::float8[], $1::bigint[]) AS u(rating, games_played, win_streak, period_games, \
     is_junior, has_reached_2400, league, protected_games, season_games, season_wins, peak_rating, peak_league, last_played, key) WHERE p.id = u.key";

/// Inserts joining players (`$15` the ladder, `$1` their names), skipping names another
/// transaction inserted first; returns the inserted ids and names.
const INSERT_PLAYERS: &str = "INSERT INTO players (ladder_id, name, rating, games_played, win_streak, period_games, is_junior, has_reached_2400, league, \
     protected_games, season_games, season_wins, peak_rating, peak_league, last_played) \
     SELECT $15, u.key, u.rating, u.games_played, u.win_streak, u.period_games, u.is_junior, u.has_reached_2400, u.league, u.protected_games, \
     u.season_games, u.season_wins, u.peak_rating, u.peak_league, u.last_played \
     FROM unnest($2::real[], $3::bigint[], $4::bigint[], $5::bigint[], $6::boolean[], $7::boolean[], $8::bigint[], $9::bigint[], $10::bigint[], \
     $11::bigint[], $12::real[], $13::bigint[], $14::float8[], $1::text[]) AS u(rating, games_played, win_streak, period_games, \
     is_junior, has_reached_2400, league, protected_games, season_games, season_wins, peak_rating, peak_league, last_played, key) \
     ORDER BY u.key ON CONFLICT (ladder_id, name) DO NOTHING RETURNING id, name";

const SELECT_PLAYERS: &str = "SELECT id, name, rating, games_played, win_streak, period_games, is_junior, has_reached_2400, league, protected_games, \
     season_games, season_wins, peak_rating, peak_league, last_played FROM players WHERE ladder_id = $1 AND name = ANY($2) ORDER BY name FOR UPDATE";

const FIND_MATCH: &str = "SELECT seq, inputs, results FROM journal WHERE ladder_id = $1 AND match_id = $2";
const LOCK_LADDER_SHARED: &str = "SELECT pg_advisory_xact_lock_shared($1, $2)";
const LOCK_ZERO_SUM: &str = "SELECT zero_sum_offset, zero_sum_sum, players FROM ladders WHERE id = $1 FOR UPDATE";
const UPDATE_ZERO_SUM: &str = "UPDATE ladders SET zero_sum_offset = $2, zero_sum_sum = $3, players = $4 WHERE id = $1";
const NEXT_SEQ: &str = "SELECT nextval('journal_seq')";
/// Opens the subtransaction whose first write, the journal insert, takes a transaction id
/// after the seq was taken (see [`SET_HORIZON`]).
const HORIZON_SAVEPOINT: &str = "SAVEPOINT journal_horizon";
/// The seq taken by [`NEXT_SEQ`] in the statement before; `horizon` is set by
/// [`SET_HORIZON`] in the same transaction (the placeholder is never seen: a reader sees the
/// row only after the commit).
const INSERT_JOURNAL: &str = "INSERT INTO journal (seq, ladder_id, match_id, kind, inputs, time, joined, results, horizon) \
     VALUES (currval('journal_seq'), $1, $2, $3, $4, $5, $6, $7, 9223372036854775807)";
/// `horizon` = the transaction id of the subtransaction that inserted the row, widened to 64
/// bits with the top-level transaction's epoch (a subtransaction's id follows its parent's,
/// less than 2^32 later). Transaction ids are handed out in order, so every transaction
/// that took a lower seq (each takes its id before its seq) has a lower id. The snapshot's
/// `xmax` is not such a bound: it is one past the newest *finished* transaction, and a
/// running transaction can hold an id at or above it.
const SET_HORIZON: &str = "UPDATE journal SET horizon = t.top + ((journal.xmin::text::bigint - t.top) % 4294967296 + 4294967296) % 4294967296 \
     FROM (SELECT pg_current_xact_id()::text::bigint AS top) AS t WHERE journal.seq = currval('journal_seq')";

/// One attempt at a match: `Ok` carries the API's answer (including a replayed or refused
/// retry); `Err` a database error (the transaction is then rolled back or to be).
async fn report_once(conn: &mut Conn, ladder: &Ladder, request: &MatchRequest, inputs: &str) -> Result<Result<String, ApiError>, tokio_postgres::Error> {
    let find = conn.prepare(FIND_MATCH).await?;
    let lock = conn.prepare(LOCK_LADDER_SHARED).await?;
    let select = conn.prepare(SELECT_PLAYERS).await?;
    let zero_sum_lock = conn.prepare(LOCK_ZERO_SUM).await?;
    let insert = conn.prepare(INSERT_PLAYERS).await?;
    let update = conn.prepare(UPDATE_PLAYERS).await?;
    let update_zero_sum = conn.prepare(UPDATE_ZERO_SUM).await?;
    let next = conn.prepare(NEXT_SEQ).await?;
    let insert_journal = conn.prepare(INSERT_JOURNAL).await?;
    let set_horizon = conn.prepare(SET_HORIZON).await?;
    let mut names: Vec<&str> = request.players();
    names.sort_unstable();
    let ladder_key = i32::try_from(ladder.id).unwrap_or(i32::MAX);
    let c = &conn.client;
    conn.in_transaction = true;
    // Round trip 1: begin, the id check, the ladder's shared lock, the zero-sum row, the
    // players' row locks.
    let find_params: [&(dyn ToSql + Sync); 2] = [&ladder.id, &request.id];
    let lock_params: [&(dyn ToSql + Sync); 2] = [&LOCK_CLASS, &ladder_key];
    let ladder_params: [&(dyn ToSql + Sync); 1] = [&ladder.id];
    let select_params: [&(dyn ToSql + Sync); 2] = [&ladder.id, &names];
    let (begun, previous, locked, zero_sum_row, rows) = tokio::join!(
        c.batch_execute("BEGIN"),
        c.query_opt(&find, &find_params),
        c.execute(&lock, &lock_params),
        async {
            if ladder.zero_sum_total().is_some() {
                c.query_opt(&zero_sum_lock, &ladder_params).await
            } else {
                Ok(None)
            }
        },
        c.query(&select, &select_params),
    );
    begun?;
    let previous = previous?;
    locked?;
    let zero_sum_row = zero_sum_row?;
    let rows = rows?;
    if let Some(found) = previous {
        c.batch_execute("ROLLBACK").await?;
        conn.in_transaction = false;
        return Ok(super::replay_answer(&request.id, found.get(0), found.get(1), inputs, found.get(2)));
    }
    let mut zero_sum = match (ladder.zero_sum_total(), zero_sum_row) {
        (Some(total), Some(row)) => match ZeroSum::from_stored(total, row.get(0), row.get(1), row.get(2)) {
            Ok(z) => Some(z),
            Err(error) => return Ok(Err(error)),
        },
        _ => None,
    };
    let now = model::now();
    let mut by_name: HashMap<String, PlayerRow> = rows.iter().map(player_row).map(|row| (row.name.clone(), row)).collect();
    let mut joined = Vec::new();
    let missing: Vec<&str> = names.iter().copied().filter(|name| !by_name.contains_key(*name)).collect();
    if !missing.is_empty() {
        let mut columns = Columns::default();
        let mut states = HashMap::new();
        for name in &missing {
            let state = joining_state(&ladder.rules, zero_sum.as_mut(), now);
            columns.push(0, name, &state);
            states.insert((*name).to_owned(), state);
        }
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&columns.names];
        params.extend(columns.states());
        params.push(&ladder.id);
        for row in c.query(&insert, &params).await? {
            let name: String = row.get(1);
            let state = states[&name];
            joined.push(name.clone());
            by_name.insert(name.clone(), PlayerRow { id: row.get(0), name, state });
        }
        if joined.len() < missing.len() {
            // Another transaction added some of them first (only without zero-sum, whose
            // ladder row lock serializes): lock and read them as they are now.
            for row in c.query(&select, &[&ladder.id, &names]).await? {
                let row = player_row(&row);
                by_name.entry(row.name.clone()).or_insert(row);
            }
        }
        // Joining order is name order (as inserted).
        joined.sort_unstable();
    }
    let applied = match apply_match(&ladder.rules, zero_sum.as_mut(), &by_name, request, now) {
        Ok(applied) => applied,
        Err(error) => {
            c.batch_execute("ROLLBACK").await?;
            conn.in_transaction = false;
            return Ok(Err(error));
        }
    };
    let mut columns = Columns::default();
    for (id, state) in &applied.writes {
        columns.push(*id, "", state);
    }
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&columns.ids];
    params.extend(columns.states());
    let results = model::results_json(&applied.players);
    let joined_json = serde_json::to_string(&joined).unwrap_or_else(|_| "[]".into());
    let kind = request.game.kind();
    let (sum_text, players) = zero_sum.map_or((String::new(), 0), |z| (z.sum_text(), i64::try_from(z.players).unwrap_or(i64::MAX)));
    let offset = zero_sum.map_or(0.0, |z| z.offset);
    // Round trip 2: write the players (and the zero-sum row), take the seq after the row
    // locks, journal, commit. A failed statement makes COMMIT roll back.
    let zero_sum_params: [&(dyn ToSql + Sync); 4] = [&ladder.id, &offset, &sum_text, &players];
    let journal_params: [&(dyn ToSql + Sync); 7] = [&ladder.id, &request.id, &kind, &inputs, &now, &joined_json, &results];
    let (updated, zero_sum_updated, seq, savepoint, journaled, horizon, committed) = tokio::join!(
        c.execute(&update, &params),
        async {
            if zero_sum.is_some() {
                c.execute(&update_zero_sum, &zero_sum_params).await
            } else {
                Ok(0)
            }
        },
        c.query_one(&next, &[]),
        c.simple_query(HORIZON_SAVEPOINT),
        c.execute(&insert_journal, &journal_params),
        c.execute(&set_horizon, &[]),
        c.simple_query("COMMIT"),
    );
    let outcome = (|| {
        updated?;
        zero_sum_updated?;
        let seq: i64 = seq?.get(0);
        savepoint?;
        journaled?;
        horizon?;
        committed?;
        Ok(seq)
    })();
    match outcome {
        Ok(seq) => {
            conn.in_transaction = false;
            Ok(Ok(model::match_response(seq, &results)))
        }
        Err(error) => {
            // COMMIT of a failed transaction rolled it back.
            conn.in_transaction = false;
            Err(error)
        }
    }
}

async fn ladder_event_once(c: &Client, ladder: &Ladder, event: LadderEvent) -> Result<String, ApiError> {
    let ladder_key = i32::try_from(ladder.id).unwrap_or(i32::MAX);
    c.batch_execute("BEGIN").await?;
    // Waits for the matches in flight and keeps new ones out until the commit.
    c.execute("SELECT pg_advisory_xact_lock($1, $2)", &[&LOCK_CLASS, &ladder_key]).await?;
    let row = c.query_one("SELECT zero_sum_offset, zero_sum_sum, players, decayed_through FROM ladders WHERE id = $1 FOR UPDATE", &[&ladder.id]).await?;
    let zero_sum = ladder.zero_sum_total().map(|total| ZeroSum::from_stored(total, row.get(0), row.get::<_, &str>(1), row.get(2))).transpose()?;
    let decayed_through: Option<f64> = row.get(3);
    let rows: Vec<PlayerRow> = c.query(&format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = $1 ORDER BY id"), &[&ladder.id]).await?.iter().map(player_row).collect();
    let now = model::now();
    let result = run_event(ladder, event, &rows, zero_sum, decayed_through, now)?;
    let update = c.prepare(UPDATE_PLAYERS).await?;
    let mut pending = Vec::new();
    for chunk in result.writes.chunks(10_000) {
        let mut columns = Columns::default();
        for (id, state) in chunk {
            columns.push(*id, "", state);
        }
        pending.push(columns);
    }
    let writes = pending.iter().map(|columns| {
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&columns.ids];
        params.extend(columns.states());
        let update = &update;
        async move { c.execute(update, &params).await }
    });
    for written in join_all(writes).await {
        written?;
    }
    if let Some(z) = result.zero_sum {
        c.execute("UPDATE ladders SET zero_sum_offset = $2, zero_sum_sum = $3 WHERE id = $1", &[&ladder.id, &z.offset, &z.sum_text()]).await?;
    }
    c.execute("UPDATE ladders SET decayed_through = $2 WHERE id = $1", &[&ladder.id, &result.decayed_through]).await?;
    let seq: i64 = c.query_one(NEXT_SEQ, &[]).await?.get(0);
        let none: Option<&str> = None;
    c.batch_execute(HORIZON_SAVEPOINT).await?;
    c.execute(INSERT_JOURNAL, &[&ladder.id, &none, &event.kind(), &"{}", &now, &"[]", &result.summary]).await?;
    c.execute(SET_HORIZON, &[]).await?;
    c.batch_execute("COMMIT").await?;
    Ok(super::event_response(seq, &result.results))
}
