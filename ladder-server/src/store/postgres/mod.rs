//! PostgreSQL: several `elo-ladder serve` processes on one database.
//!
//! Matches are committed by a few committer tasks per process, each taking every report
//! waiting (group commit) into one transaction of three pipelined round trips
//! ([`commit`]). Locks are always taken in one global order (the ladders' shared advisory
//! locks, zero-sum ladder rows by id, player rows by ladder and name), so transactions of
//! different processes cannot wait for each other in a cycle. The journal's `seq` values
//! and new players' ids are taken under one transaction-level advisory lock held only for
//! the final round trip and the commit, so entries become visible in `seq` order and player
//! ids follow the journal. Season ends and decay take their ladder's advisory lock
//! exclusively; a batch that finds a ladder so locked leaves its reports waiting in memory
//! (holding no connection) and commits the others.
//!
//! This module holds the connections, the migrations and what every resource shares; each
//! resource's store trait is implemented in a module of its own (`ladders`, `matches`,
//! `players`, `seasons`, `keys`), beside `amend` and the chain's.

mod amend;
mod boards;

use self::amend::{amend_once, erase_once, history_lines_since, save_checkpoint};
mod chainer;
mod commit;
mod import;
pub(crate) mod tls;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::{pin_mut, TryStreamExt};
use tokio::sync::{Semaphore, SemaphorePermit};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Statement};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::database_url::{PgSettings, TlsMode};
use super::rows::{player_row, StateValues, PLAYER_COLUMNS};
use super::{
    canonical_config, entry_bytes, journal_entry, page_length, replay_answer, stored_rules, BoardEntry, HistoryEntry, JournalPage, JournalRow, KeyListing, KeyRecord, Ladder,
    LadderStore, LadderSummary, NewEntry, NextTimes, PlayerWithRank, Provisional, PutOutcome, ScheduleView, SeasonSummary, StandingView, StoreFuture,
};
use crate::error::{describe_postgres, ApiError};
use crate::events::{event_response, run_event, EventRequest, LadderEvent};
use crate::model::{self, view, MatchRequest, ZeroSum};

/// The migrations, in order.
const MIGRATIONS: [&str; 15] = [
    include_str!("../../../migrations/postgres/0001_ladders.sql"),
    include_str!("../../../migrations/postgres/0002_operations.sql"),
    include_str!("../../../migrations/postgres/0003_rank_buckets.sql"),
    include_str!("../../../migrations/postgres/0004_history_by_seq.sql"),
    include_str!("../../../migrations/postgres/0005_amendments.sql"),
    include_str!("../../../migrations/postgres/0006_chain_2.sql"),
    include_str!("../../../migrations/postgres/0007_checkpoints.sql"),
    include_str!("../../../migrations/postgres/0008_no_statistics_on_names.sql"),
    include_str!("../../../migrations/postgres/0009_ladder_options.sql"),
    include_str!("../../../migrations/postgres/0010_queues.sql"),
    include_str!("../../../migrations/postgres/0011_provisional.sql"),
    include_str!("../../../migrations/postgres/0012_tags.sql"),
    include_str!("../../../migrations/postgres/0013_webhooks.sql"),
    include_str!("../../../migrations/postgres/0014_period_schedule.sql"),
    include_str!("../../../migrations/postgres/0015_rating_periods.sql"),
];

/// The players above player row `p` (see [`super::ranks`]) on the whole board: the coarse
/// buckets above (every shard), the fine buckets above within its coarse bucket, and an
/// index count within its fine bucket (`real` bounds, so the rating index serves it). One
/// statement: one snapshot.
macro_rules! players_above {
    () => {
        "(SELECT coalesce(sum(b.count), 0) FROM rank_buckets b \
      WHERE b.ladder_id = p.ladder_id AND b.level = 1 AND b.bucket > floor(p.rating::float8 / 16)::bigint)::bigint \
    + (SELECT coalesce(sum(b.count), 0) FROM rank_buckets b \
      WHERE b.ladder_id = p.ladder_id AND b.level = 0 AND b.bucket > floor(p.rating::float8 * 4)::bigint \
      AND b.bucket < (floor(p.rating::float8 / 16)::bigint + 1) * 64)::bigint \
    + (SELECT count(*) FROM players q WHERE q.ladder_id = p.ladder_id AND q.rating > p.rating \
      AND q.rating < ((floor(p.rating::float8 * 4) + 1) / 4)::real) \
    + (SELECT count(*) FROM players q WHERE q.ladder_id = p.ladder_id AND q.rating = p.rating AND q.id < p.id)"
    };
}

/// The same on the board without the provisional players (of `players p JOIN ladders l`):
/// their levels (3 and 2) subtracted, and the index counts only of players with at least
/// the ladder's `provisional_games` (the board index includes `games_played`).
macro_rules! settled_players_above {
    () => {
        "(SELECT coalesce(sum(CASE WHEN b.level = 1 THEN b.count ELSE -b.count END), 0) FROM rank_buckets b \
      WHERE b.ladder_id = p.ladder_id AND b.level IN (1, 3) AND b.bucket > floor(p.rating::float8 / 16)::bigint)::bigint \
    + (SELECT coalesce(sum(CASE WHEN b.level = 0 THEN b.count ELSE -b.count END), 0) FROM rank_buckets b \
      WHERE b.ladder_id = p.ladder_id AND b.level IN (0, 2) AND b.bucket > floor(p.rating::float8 * 4)::bigint \
      AND b.bucket < (floor(p.rating::float8 / 16)::bigint + 1) * 64)::bigint \
    + (SELECT count(*) FROM players q WHERE q.ladder_id = p.ladder_id AND q.rating > p.rating \
      AND q.rating < ((floor(p.rating::float8 * 4) + 1) / 4)::real AND q.games_played >= l.provisional_games) \
    + (SELECT count(*) FROM players q WHERE q.ladder_id = p.ladder_id AND q.rating = p.rating AND q.id < p.id \
      AND q.games_played >= l.provisional_games)"
    };
}

/// A statement with the players above `p` on the board of a mode: `$head players_above
/// $tail` for the whole board, and the same with the settled count.
macro_rules! ranked_statements {
    ($head:expr, $tail:expr) => {
        [concat!($head, players_above!(), $tail), concat!($head, settled_players_above!(), $tail)]
    };
}

/// Which of [`ranked_statements`] a read runs: the whole board when it includes the
/// provisional players or the ladder has none (`threshold` 0), the settled count otherwise.
fn ranked(statements: &[&'static str; 2], mode: Provisional, threshold: i64) -> &'static str {
    if mode == Provisional::Included || threshold == 0 {
        statements[0]
    } else {
        statements[1]
    }
}

/// The class of this server's advisory locks; the object is the ladder id (0 for the
/// migrations).
const LOCK_CLASS: i32 = 0x454C_4F00; // "ELO\0"

/// New players' ids are `PLAYER_ID_BASE + seq * 1024 + position`: the `seq` of the entry
/// they joined with and their place in its `joined` list, so ids (and leaderboard ties)
/// follow the journal's order whichever transaction commits first. Ids of version 0.1
/// (from a sequence) are all below it, as those players all joined earlier.
const PLAYER_ID_BASE: i64 = 1 << 40;

/// How often a transaction that lost a deadlock, serialization or unique-key race is tried
/// again.
const ATTEMPTS: usize = 20;

/// How many rows one statement of a season end writes.
const CHUNK: usize = 10_000;

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

    /// Rolls back after a failure (the connection is closed instead if that fails too).
    async fn rollback(&mut self) {
        if self.client.batch_execute("ROLLBACK").await.is_ok() {
            self.in_transaction = false;
        }
    }
}

/// A connection borrowed from the pool; returned on drop unless it is broken or inside a
/// transaction.
struct Pooled<'a> {
    conn: Option<Conn>,
    pool: &'a Pool,
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
        self.pool.in_use.fetch_sub(1, Ordering::Relaxed);
        if let Some(conn) = self.conn.take() {
            if !conn.in_transaction && !conn.client.is_closed() {
                if let Ok(mut idle) = self.pool.idle.lock() {
                    idle.push(conn);
                }
            }
        }
    }
}

/// The connections of one server process.
struct Pool {
    settings: PgSettings,
    connector: MakeRustlsConnect,
    idle: Mutex<Vec<Conn>>,
    permits: Semaphore,
    in_use: AtomicUsize,
}

impl Pool {
    async fn get(&self) -> Result<Pooled<'_>, ApiError> {
        let permit = self.permits.acquire().await.map_err(|_| ApiError::unavailable("connection pool closed"))?;
        self.in_use.fetch_add(1, Ordering::Relaxed);
        let idle = self.idle.lock().map_err(|_| ApiError::internal("pool lock poisoned"))?.pop();
        let mut pooled = Pooled { conn: None, pool: self, _permit: permit };
        pooled.conn = Some(match idle {
            Some(conn) => conn,
            None => self.connect().await?,
        });
        Ok(pooled)
    }

    async fn connect(&self) -> Result<Conn, ApiError> {
        let (client, connection) = self
            .settings
            .config
            .connect(self.connector.clone())
            .await
            .map_err(|e| ApiError::unavailable(format!("cannot connect to {}: {}", self.settings.redacted, describe_postgres(&e))))?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        // No JIT compilation: the planner's cost of a rank read at 1,000,000 players passes
        // `jit_above_cost`, and compiling it took 370 ms of a 0.3 ms query (BENCHMARKS.md,
        // "Ranks at 10,000,000 players after provisional players"). Every statement here is
        // short; none gains from JIT.
        client
            .batch_execute("SET jit = off")
            .await
            .map_err(|e| ApiError::unavailable(format!("cannot configure the connection to {}: {}", self.settings.redacted, describe_postgres(&e))))?;
        Ok(Conn { client, statements: HashMap::new(), in_transaction: false })
    }
}

/// What the store's tasks share.
struct Shared {
    pool: Pool,
    queue: commit::Queue,
    /// Held by the committer in its first round trip (see [`commit`]).
    front: tokio::sync::Mutex<()>,
    /// Wakes the chainer (after a commit).
    chain_wake: tokio::sync::Notify,
    /// One turn per ladder for the operations that take its lock exclusively (amendments,
    /// season ends, decay, erasures): taken before a pool connection, so that requests
    /// queued behind one ladder's rebuild wait in memory and leave the pool to the others.
    turns: std::sync::Mutex<HashMap<i64, Arc<tokio::sync::Mutex<()>>>>,
}

impl Shared {
    /// Waits for this server's turn at `ladder`'s exclusive operations (the advisory lock
    /// then orders the servers).
    async fn turn(&self, ladder: i64) -> tokio::sync::OwnedMutexGuard<()> {
        let turn = {
            let mut turns = self.turns.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(turns.entry(ladder).or_default())
        };
        turn.lock_owned().await
    }
}

/// The PostgreSQL store.
pub struct PgStore {
    shared: Arc<Shared>,
}

/// Whether a failed transaction should simply be tried again.
fn retryable(error: &tokio_postgres::Error) -> bool {
    matches!(error.code(), Some(code) if *code == SqlState::T_R_DEADLOCK_DETECTED || *code == SqlState::T_R_SERIALIZATION_FAILURE || *code == SqlState::UNIQUE_VIOLATION)
}

impl PgStore {
    /// Connects, runs the migrations (under an advisory lock, so several servers starting
    /// together migrate once) and starts the committers.
    ///
    /// # Errors
    /// The server cannot be reached, TLS fails, or a migration fails (messages never show
    /// the password).
    pub async fn open(settings: PgSettings) -> Result<Self, String> {
        let connector = tls::connector(&settings)?;
        let max = settings.max_connections.max(2);
        let pool = Pool { connector, idle: Mutex::new(Vec::new()), permits: Semaphore::new(max), in_use: AtomicUsize::new(0), settings };
        let shared = Arc::new(Shared {
            pool,
            queue: commit::Queue::default(),
            front: tokio::sync::Mutex::new(()),
            chain_wake: tokio::sync::Notify::new(),
            turns: std::sync::Mutex::new(HashMap::new()),
        });
        {
            let conn = shared.pool.get().await.map_err(|e| e.message)?;
            migrate(&conn.client).await.map_err(|e| format!("postgres migration: {}", describe_postgres(&e)))?;
            let encrypted: Option<bool> = conn.client.query_one("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", &[]).await.ok().map(|r| r.get(0));
            if shared.pool.settings.tls == TlsMode::Prefer && encrypted == Some(false) {
                tracing::warn!(database = %shared.pool.settings.redacted, "connected to PostgreSQL WITHOUT TLS (sslmode=prefer and the server offers no TLS); pass sslmode=verify-full to require it");
            }
        }
        for _ in 0..shared.pool.settings.committers.max(1) {
            tokio::spawn(commit::committer(Arc::clone(&shared)));
        }
        tokio::spawn(chainer::chainer(Arc::clone(&shared)));
        Ok(Self { shared })
    }

    fn pool(&self) -> &Pool {
        &self.shared.pool
    }
}

impl LadderStore for PgStore {
    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.pool().get().await?.client.simple_query("SELECT 1").await?;
            Ok(())
        })
    }

    fn scrub(&self) -> StoreFuture<'_, String> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            // (Not in a transaction: VACUUM cannot run in one.)
            conn.client.batch_execute("VACUUM (FULL) players, journal, rebuild_checkpoints, tickets, waiting_players, queue_matches").await?;
            let checkpoint = match conn.client.batch_execute("CHECKPOINT").await {
                Ok(()) => "then a CHECKPOINT".to_owned(),
                Err(error) => format!(
                    "no CHECKPOINT ({}; the next one PostgreSQL runs itself removes the old files)",
                    error.as_db_error().map_or_else(|| error.to_string(), |e| e.message().to_owned())
                ),
            };
            Ok(format!("VACUUM (FULL) rewrote the players, the journal, the rebuild checkpoints and the matchmaking tickets and matches; {checkpoint}"))
        })
    }

    fn connections_in_use(&self) -> usize {
        self.pool().in_use.load(Ordering::Relaxed)
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

/// Column arrays for `unnest`: one element per player row written.
#[derive(Default)]
struct Columns {
    ids: Vec<i64>,
    /// New players: the 1-based index of the entry they join with, and their position in
    /// its `joined` list.
    entries: Vec<i64>,
    positions: Vec<i64>,
    ladders: Vec<i64>,
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
    fn push(&mut self, id: i64, ladder: i64, name: &str, s: &ranking_elo::PlayerState) {
        let v = StateValues::from(s);
        self.ids.push(id);
        self.ladders.push(ladder);
        self.names.push(name.to_owned());
        self.rating.push(v.rating);
        self.games_played.push(v.games_played);
        self.win_streak.push(v.win_streak);
        self.period_games.push(v.period_games);
        self.is_junior.push(v.is_junior);
        self.has_reached_2400.push(v.has_reached_2400);
        self.league.push(v.league);
        self.protected_games.push(v.protected_games);
        self.season_games.push(v.season_games);
        self.season_wins.push(v.season_wins);
        self.peak_rating.push(v.peak_rating);
        self.peak_league.push(v.peak_league);
        self.last_played.push(v.last_played);
    }

    fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The state arrays (`$2` to `$14` of [`UPDATE_PLAYERS`], `$14` to `$26` of [`APPEND`]).
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

    /// Parameters of [`UPDATE_PLAYERS`].
    fn update_params(&self) -> Vec<&(dyn ToSql + Sync)> {
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&self.ids];
        params.extend(self.states());
        params
    }
}

/// Writes player states by row id (`$1` the ids, `$2`..`$14` the state arrays).
const UPDATE_PLAYERS: &str = "UPDATE players p SET rating = u.rating, games_played = u.games_played, win_streak = u.win_streak, period_games = u.period_games, \
     is_junior = u.is_junior, has_reached_2400 = u.has_reached_2400, league = u.league, protected_games = u.protected_games, season_games = u.season_games, \
     season_wins = u.season_wins, peak_rating = u.peak_rating, peak_league = u.peak_league, last_played = u.last_played \
     FROM unnest($2::real[], $3::bigint[], $4::bigint[], $5::bigint[], $6::boolean[], $7::boolean[], $8::bigint[], $9::bigint[], $10::bigint[], \
     $11::bigint[], $12::real[], $13::bigint[], $14::float8[], $1::bigint[]) AS u(rating, games_played, win_streak, period_games, \
     is_junior, has_reached_2400, league, protected_games, season_games, season_wins, peak_rating, peak_league, last_played, key) WHERE p.id = u.key";

/// Appends a batch's journal entries and inserts its new players, in one statement run in
/// its own subtransaction (see [`HORIZON`]): `$9` values of `journal_seq`, given to the
/// entries in ascending order (they are unique and increase in the order they are taken,
/// though other transactions' may fall between them), the entries' columns in `$1`..`$8`;
/// the new players (`$10` names, `$11` ladders, `$12` the entry each joins with, `$13` its
/// position there, `$14`..`$26` their states) with ids from their entry's seq above `$27`,
/// [`PLAYER_ID_BASE`]; and each player's history line (`$28` ladders, `$29` the entry,
/// `$30` the player's id or -1 for a new one, `$31`/`$32` the entry a new one joined with
/// and its position there, `$33`/`$34` the ratings before and after). Returns each entry's
/// seq. A new player that another server added first is not inserted (no unique violation,
/// whose message would put the player's name in the database's log): the statement then
/// fails with a serialization failure that names nobody, and the batch runs again.
const APPEND: &str = "WITH taken AS (SELECT nextval('journal_seq') AS seq FROM generate_series(1, $9::bigint)), \
     block AS (SELECT seq, row_number() OVER (ORDER BY seq) AS ord FROM taken), \
     entries AS (INSERT INTO journal (seq, ladder_id, match_id, kind, inputs, time, joined, results, bytes) \
       SELECT block.seq, u.ladder, u.id, u.kind, u.inputs, u.time, u.joined, u.results, u.bytes \
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::text[], $7::text[], $8::bigint[]) \
       WITH ORDINALITY AS u(ladder, id, kind, inputs, time, joined, results, bytes, ord) JOIN block ON block.ord = u.ord \
       RETURNING seq, ladder_id, match_id), \
     joiners AS (INSERT INTO players (id, ladder_id, name, rating, games_played, win_streak, period_games, is_junior, has_reached_2400, league, \
       protected_games, season_games, season_wins, peak_rating, peak_league, last_played) \
       SELECT $27 + block.seq * 1024 + p.position, p.ladder, p.name, p.rating, p.games_played, p.win_streak, p.period_games, \
       p.is_junior, p.has_reached_2400, p.league, p.protected_games, p.season_games, p.season_wins, p.peak_rating, p.peak_league, p.last_played \
       FROM unnest($10::text[], $11::bigint[], $12::bigint[], $13::bigint[], $14::real[], $15::bigint[], $16::bigint[], $17::bigint[], \
       $18::boolean[], $19::boolean[], $20::bigint[], $21::bigint[], $22::bigint[], $23::bigint[], $24::real[], $25::bigint[], $26::float8[]) \
       AS p(name, ladder, entry, position, rating, games_played, win_streak, period_games, is_junior, has_reached_2400, league, protected_games, \
       season_games, season_wins, peak_rating, peak_league, last_played) JOIN block ON block.ord = p.entry \
       ON CONFLICT (ladder_id, name) DO NOTHING RETURNING id), \
     history AS (INSERT INTO player_entries (player_id, seq, ladder_id, rating_before, rating_after) \
       SELECT h.id, h.seq, h.ladder, h.before, h.after FROM (SELECT CASE WHEN h.player < 0 THEN $27 + joined.seq * 1024 + h.position ELSE h.player END AS id, \
       h.player < 0 AS new, block.seq, h.ladder, h.before, h.after \
       FROM unnest($28::bigint[], $29::bigint[], $30::bigint[], $31::bigint[], $32::bigint[], $33::real[], $34::real[]) \
       AS h(ladder, entry, player, joined_entry, position, before, after) \
       JOIN block ON block.ord = h.entry LEFT JOIN block AS joined ON joined.ord = h.joined_entry) AS h \
       WHERE NOT h.new OR h.id IN (SELECT id FROM joiners) RETURNING 1) \
     SELECT seq, ladder_id, match_id, \
       CASE WHEN (SELECT count(*) FROM joiners) < cardinality($10::text[]) THEN elo_ladder_lost_race() END AS lost \
     FROM entries";

/// A page of the journal (`$4`: a kind, or null), columns as [`JOURNAL_COLUMNS`].
const JOURNAL_PAGE: &str = "SELECT seq, kind, match_id, time, inputs, joined, results, annulled, annul_reason, corrected_inputs, hash, player_keys FROM journal \
     WHERE ladder_id = $1 AND seq > $2 AND seq <= $3 AND ($4::text IS NULL OR kind = $4) ORDER BY seq";

/// A batch's rank bucket changes (`$1` ladders, `$2` levels, `$3` buckets, `$4` deltas, in
/// key order, none zero), applied to this backend's shard as the triggers would; the
/// committer turns the triggers off for its transaction and sends this last, so a
/// transaction locks bucket rows once, in key order.
const APPLY_BUCKETS: &str = "INSERT INTO rank_buckets AS r (ladder_id, level, bucket, shard, count) \
     SELECT u.ladder_id, u.level, u.bucket, pg_backend_pid() % 4, u.delta FROM unnest($1::bigint[], $2::smallint[], $3::bigint[], $4::bigint[]) AS u(ladder_id, level, bucket, delta) \
     ORDER BY u.ladder_id, u.level, u.bucket \
     ON CONFLICT (ladder_id, level, bucket, shard) DO UPDATE SET count = r.count + excluded.count";

/// A page of the journal, newest first (`$2` to `$3`, chained entries; `$4`: a kind, or
/// null), columns as [`JOURNAL_COLUMNS`].
const JOURNAL_PAGE_NEWEST: &str = "SELECT seq, kind, match_id, time, inputs, joined, results, annulled, annul_reason, corrected_inputs, hash, player_keys FROM journal \
     WHERE ladder_id = $1 AND seq >= $2 AND seq <= $3 AND ($4::text IS NULL OR kind = $4) AND hash IS NOT NULL ORDER BY seq DESC";

/// The subtransaction [`APPEND`] runs in. Its first write, the journal insert, gives it a
/// transaction id taken after the entries' `seq` block: every transaction that took a lower
/// `seq` had its own id before (each takes one before its `seq`: `pg_current_xact_id()` in
/// the first round trip), hence a lower one. So once the cluster's oldest running
/// transaction is past an entry's `xmin` (that subtransaction's id), every lower `seq` has
/// committed or rolled back, and the journal shows the entry ([`settled`]).
const HORIZON: &str = "SAVEPOINT journal";

/// Whether a journal row whose `xmin` is `xmin` (32 bits) is settled under a snapshot whose
/// oldest running transaction is `horizon` (64 bits): `xmin` precedes it, modulo 2^32 as
/// PostgreSQL compares transaction ids (frozen rows, `xmin` 2, are long settled).
fn settled(xmin: i64, horizon: i64) -> bool {
    if xmin < 3 {
        return true;
    }
    let distance = (horizon - xmin).rem_euclid(1 << 32);
    distance > 0 && distance < (1 << 31)
}

/// The entry arrays of [`APPEND`], with the players' history lines.
#[derive(Default)]
struct EntryColumns {
    history_ladders: Vec<i64>,
    history_entries: Vec<i64>,
    history_players: Vec<i64>,
    history_joined_entries: Vec<i64>,
    history_positions: Vec<i64>,
    history_before: Vec<f32>,
    history_after: Vec<f32>,
    ladders: Vec<i64>,
    ids: Vec<String>,
    kinds: Vec<String>,
    inputs: Vec<String>,
    times: Vec<f64>,
    joined: Vec<String>,
    results: Vec<String>,
    bytes: Vec<i64>,
    count: i64,
}

impl EntryColumns {
    fn push(&mut self, entry: &NewEntry<'_>) {
        self.ladders.push(entry.ladder);
        self.ids.push(entry.id.to_owned());
        self.kinds.push(entry.kind.to_owned());
        self.inputs.push(entry.inputs.to_owned());
        self.times.push(entry.time);
        self.bytes.push(entry_bytes(entry.inputs, &entry.joined, &entry.results));
        self.joined.push(entry.joined.clone());
        self.results.push(entry.results.clone());
        self.count += 1;
    }

    /// A history line of the entry last pushed: `player` is the row id, or `None` for a player
    /// who joined with entry `joined` (1-based) at `position`.
    fn push_history(&mut self, ladder: i64, player: Option<i64>, joined: (i64, i64), before: f32, after: f32) {
        self.history_ladders.push(ladder);
        self.history_entries.push(self.count);
        self.history_players.push(player.unwrap_or(-1));
        self.history_joined_entries.push(joined.0);
        self.history_positions.push(joined.1);
        self.history_before.push(before);
        self.history_after.push(after);
    }

    /// [`APPEND`]'s parameters with `players` joining.
    fn params<'a>(&'a self, players: &'a Columns) -> Vec<&'a (dyn ToSql + Sync)> {
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&self.ladders, &self.ids, &self.kinds, &self.inputs, &self.times, &self.joined, &self.results, &self.bytes, &self.count];
        params.extend([&players.names as &(dyn ToSql + Sync), &players.ladders, &players.entries, &players.positions]);
        params.extend(players.states());
        params.push(&PLAYER_ID_BASE);
        params.extend([
            &self.history_ladders as &(dyn ToSql + Sync),
            &self.history_entries,
            &self.history_players,
            &self.history_joined_entries,
            &self.history_positions,
            &self.history_before,
            &self.history_after,
        ]);
        params
    }
}

// (After the macros above, which they use.)
mod keys;
mod ladders;
mod matches;
mod players;
mod queues;
mod seasons;
mod tags;
mod webhooks;

#[cfg(test)]
mod tests {
    #[test]
    fn the_journal_page_reads_the_journal_columns() {
        assert!(super::JOURNAL_PAGE.starts_with(&format!("SELECT {} FROM", crate::store::JOURNAL_COLUMNS)));
        assert!(super::JOURNAL_PAGE_NEWEST.starts_with(&format!("SELECT {} FROM", crate::store::JOURNAL_COLUMNS)));
    }

    #[test]
    fn settled_compares_transaction_ids_modulo_two_to_the_32() {
        use super::settled;
        assert!(settled(100, 101));
        assert!(!settled(101, 101), "the oldest running transaction itself");
        assert!(!settled(102, 101));
        assert!(settled(2, 5), "frozen");
        // The 64-bit horizon past a wraparound: epoch 1, low 10; xmin near the top of epoch 0.
        let horizon = (1i64 << 32) + 10;
        assert!(settled(4_294_967_000, horizon));
        assert!(!settled(11, horizon));
        assert!(settled(9, horizon));
    }
}
