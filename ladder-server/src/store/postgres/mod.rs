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

mod amend;

use self::amend::{amend_once, erase_once, history_lines_since, save_checkpoint};
mod chainer;
mod commit;
mod tls;

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
    LadderStore, LadderSummary, NewEntry, NextTimes, PlayerWithRank, PutOutcome, ScheduleView, SeasonSummary, StandingView, StoreFuture,
};
use crate::error::{describe_postgres, ApiError};
use crate::events::{event_response, run_event, EventRequest, LadderEvent};
use crate::model::{self, view, MatchRequest, ZeroSum};

/// The migrations, in order.
const MIGRATIONS: [&str; 8] = [
    include_str!("../../../migrations/postgres/0001_ladders.sql"),
    include_str!("../../../migrations/postgres/0002_operations.sql"),
    include_str!("../../../migrations/postgres/0003_rank_buckets.sql"),
    include_str!("../../../migrations/postgres/0004_history_by_seq.sql"),
    include_str!("../../../migrations/postgres/0005_amendments.sql"),
    include_str!("../../../migrations/postgres/0006_chain_2.sql"),
    include_str!("../../../migrations/postgres/0007_checkpoints.sql"),
    include_str!("../../../migrations/postgres/0008_no_statistics_on_names.sql"),
];

/// The players above player row `p` (see [`super::ranks`]): the coarse buckets above (every
/// shard), the fine buckets above within its coarse bucket, and an index count within its
/// fine bucket (`real` bounds, so the rating index serves it). One statement: one snapshot.
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
    fn put_ladder<'a>(&'a self, name: &'a str, config_json: &'a str) -> StoreFuture<'a, PutOutcome> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let inserted = conn
                .client
                .execute(
                    "INSERT INTO ladders (name, config, initial_config, created_at) VALUES ($1, $2, $2, $3) ON CONFLICT (name) DO NOTHING",
                    &[&name, &config_json, &model::now()],
                )
                .await?;
            if inserted == 1 {
                return Ok(PutOutcome::Created);
            }
            let stored: String = conn.client.query_one("SELECT config FROM ladders WHERE name = $1", &[&name]).await?.get(0);
            Ok(if canonical_config(&stored_rules(&stored)?) == config_json { PutOutcome::Same } else { PutOutcome::Differs })
        })
    }

    fn ladder<'a>(&'a self, name: &'a str) -> StoreFuture<'a, Option<Ladder>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let statement = conn.prepare("SELECT id, config, season, initial_config FROM ladders WHERE name = $1").await?;
            let Some(row) = conn.client.query_opt(&statement, &[&name]).await? else {
                return Ok(None);
            };
            Ok(Some(Ladder::from_row(row.get("id"), name.to_owned(), row.get("config"), row.get("season"), row.get("initial_config"))?))
        })
    }

    fn report(&self, ladder: Arc<Ladder>, request: MatchRequest) -> StoreFuture<'_, String> {
        let receiver = self.shared.queue.submit(ladder, request);
        Box::pin(async move { receiver.await.unwrap_or_else(|_| Err(ApiError::unavailable("the committer stopped"))) })
    }

    fn player<'a>(&'a self, ladder: &'a Ladder, name: &'a str) -> StoreFuture<'a, Option<PlayerWithRank>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let statement = conn
                .prepare(concat!(
                    "SELECT p.id, p.name, p.rating, p.games_played, p.win_streak, p.period_games, p.is_junior, p.has_reached_2400, p.league, p.protected_games, \
                     p.season_games, p.season_wins, p.peak_rating, p.peak_league, p.last_played, l.zero_sum_offset, l.zero_sum_sum, l.players AS ladder_players, \
                     ",
                    players_above!(),
                    " AS better FROM players p JOIN ladders l ON l.id = p.ladder_id WHERE p.ladder_id = $1 AND p.name = $2",
                ))
                .await?;
            let Some(row) = conn.client.query_opt(&statement, &[&ladder.id, &name]).await? else {
                return Ok(None);
            };
            // The offset as stored (0 unless the rules now have a total): a cached ladder's
            // rules may predate a season end that changed them.
            let rank = row.get::<_, i64>("better") + 1;
            Ok(Some(PlayerWithRank { view: view(player_row(&row)?, row.get("zero_sum_offset")), rank }))
        })
    }

    fn leaderboard<'a>(&'a self, ladder: &'a Ladder, limit: i64, offset: i64) -> StoreFuture<'a, Vec<BoardEntry>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let statement = conn
                .prepare(
                    "SELECT p.name, p.rating, p.league, l.zero_sum_offset FROM players p JOIN ladders l ON l.id = p.ladder_id \
                     WHERE p.ladder_id = $1 AND p.rating < $4 ORDER BY p.rating DESC, p.id LIMIT $2 OFFSET $3",
                )
                .await?;
            let coarse = conn
                .prepare("SELECT bucket, sum(count)::bigint FROM rank_buckets WHERE ladder_id = $1 AND level = 1 GROUP BY bucket HAVING sum(count) <> 0 ORDER BY bucket DESC")
                .await?;
            let fine = conn
                .prepare(
                    "SELECT bucket, sum(count)::bigint FROM rank_buckets WHERE ladder_id = $1 AND level = 0 AND bucket >= $2 AND bucket < $3 \
                     GROUP BY bucket HAVING sum(count) <> 0 ORDER BY bucket DESC",
                )
                .await?;
            // The top from the index; a deeper page from the fine bucket holding its first
            // line (the counts and the page in one snapshot), so the index skips at most one
            // quarter point's players.
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
            let result: Result<Vec<BoardEntry>, ApiError> = async {
                let (top, skip) = if offset == 0 {
                    (f32::INFINITY, 0)
                } else {
                    let counts = |rows: Vec<tokio_postgres::Row>| rows.into_iter().map(|r| (r.get::<_, i64>(0), r.get::<_, i64>(1))).collect::<Vec<_>>();
                    let Some((bucket, before)) = super::ranks::walk(counts(conn.client.query(&coarse, &[&ladder.id]).await?), offset, 0) else {
                        return Ok(Vec::new());
                    };
                    let (low, high) = (bucket * super::ranks::FINE_PER_COARSE, (bucket + 1) * super::ranks::FINE_PER_COARSE);
                    let Some((bucket, before)) = super::ranks::walk(counts(conn.client.query(&fine, &[&ladder.id, &low, &high]).await?), offset, before) else {
                        return Ok(Vec::new());
                    };
                    (super::ranks::fine_top(bucket), offset - before)
                };
                let rows = conn.client.query(&statement, &[&ladder.id, &limit, &skip, &top]).await?;
                Ok(rows
                    .iter()
                    .enumerate()
                    .map(|(i, row)| BoardEntry {
                        rank: offset + i as i64 + 1,
                        player: row.get("name"),
                        rating: ranking_elo::pool::effective_rating(row.get("rating"), row.get("zero_sum_offset")),
                        league: u32::try_from(row.get::<_, i64>("league")).unwrap_or(0),
                    })
                    .collect())
            }
            .await;
            conn.client.batch_execute("COMMIT").await?;
            conn.in_transaction = false;
            result
        })
    }

    fn journal<'a>(&'a self, ladder: &'a Ladder, after: i64, limit: i64, kind: Option<&'a str>) -> StoreFuture<'a, JournalPage> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            // The sizes first (one more than asked, to know whether more exist) with what
            // says whether each entry is settled, then only the entries that fit on the
            // page; both in one snapshot.
            let sizes_statement = match kind {
                None => {
                    conn.prepare(
                        "SELECT seq, bytes, $4::text AS kind, hash IS NOT NULL AS chained \
                         FROM journal WHERE ladder_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                    )
                    .await?
                }
                Some(_) => {
                    conn.prepare(
                        "SELECT seq, bytes, kind, hash IS NOT NULL AS chained \
                         FROM journal WHERE ladder_id = $1 AND kind = $4 AND seq > $2 ORDER BY seq LIMIT $3",
                    )
                    .await?
                }
            };
            let entries_statement = conn.prepare(JOURNAL_PAGE).await?;
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
            let result = async {
                let amendments: i64 = conn.client.query_one("SELECT amendments FROM ladders WHERE id = $1", &[&ladder.id]).await?.get(0);
                let rows = conn.client.query(&sizes_statement, &[&ladder.id, &after, &(limit + 1), &kind]).await?;
                // Entries up to the first one not chained: the chainer hashes only settled
                // entries, in seq order, so a chained entry has every lower seq committed.
                let settled_rows = rows.iter().take_while(|r| r.get::<_, bool>("chained")).count();
                let pending = settled_rows < rows.len();
                let sizes: Vec<(i64, i64)> = rows[..settled_rows].iter().map(|r| (r.get("seq"), r.get("bytes"))).collect();
                let asked = sizes.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
                let fits = page_length(&sizes[..asked].iter().map(|(_, b)| *b).collect::<Vec<_>>());
                let Some(&(last, _)) = sizes[..fits].last() else {
                    return Ok(JournalPage { entries: Vec::new(), pending, more: pending, amendments: Some(amendments) });
                };
                let found = conn.client.query(&entries_statement, &[&ladder.id, &after, &last, &kind]).await?;
                let mut entries = Vec::with_capacity(found.len());
                for row in found {
                    entries.push(journal_entry(JournalRow {
                        seq: row.get(0),
                        kind: row.get(1),
                        id: row.get(2),
                        time: row.get(3),
                        inputs: row.get(4),
                        joined: row.get(5),
                        results: row.get(6),
                        annulled: row.get(7),
                        annul_reason: row.get(8),
                        corrected: row.get(9),
                        hash: row.get::<_, Option<Vec<u8>>>(10).unwrap_or_default(),
                        keys: row.get(11),
                    })?);
                }
                Ok(JournalPage { entries, pending: pending && fits == sizes.len(), more: rows.len() > fits, amendments: Some(amendments) })
            }
            .await;
            conn.client.batch_execute("COMMIT").await?;
            conn.in_transaction = false;
            result
        })
    }

    fn journal_newest<'a>(&'a self, ladder: &'a Ladder, before: i64, limit: i64, kind: Option<&'a str>) -> StoreFuture<'a, JournalPage> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            // Chained entries only: the chainer hashes entries in seq order once every lower
            // seq has committed, so the chained ones are the journal up to some seq, and the
            // newest page below `before` starts at the newest chained entry. The sizes first
            // (one more than asked), then the entries that fit; both in one snapshot.
            let sizes_statement = match kind {
                None => conn.prepare("SELECT seq, bytes FROM journal WHERE ladder_id = $1 AND seq < $2 AND hash IS NOT NULL ORDER BY seq DESC LIMIT $3").await?,
                Some(_) => conn.prepare("SELECT seq, bytes FROM journal WHERE ladder_id = $1 AND kind = $4 AND seq < $2 AND hash IS NOT NULL ORDER BY seq DESC LIMIT $3").await?,
            };
            let held_statement = conn.prepare("SELECT EXISTS (SELECT 1 FROM journal WHERE ladder_id = $1 AND seq < $2 AND hash IS NULL)").await?;
            let entries_statement = conn.prepare(JOURNAL_PAGE_NEWEST).await?;
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
            let result = async {
                let limit_plus_one = limit + 1;
                let rows = match kind {
                    None => conn.client.query(&sizes_statement, &[&ladder.id, &before, &limit_plus_one]).await?,
                    Some(kind) => conn.client.query(&sizes_statement, &[&ladder.id, &before, &limit_plus_one, &kind]).await?,
                };
                let pending: bool = conn.client.query_one(&held_statement, &[&ladder.id, &before]).await?.get(0);
                let sizes: Vec<(i64, i64)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
                let asked = sizes.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
                let fits = page_length(&sizes[..asked].iter().map(|(_, b)| *b).collect::<Vec<_>>());
                let (Some(&(newest, _)), Some(&(oldest, _))) = (sizes.first(), sizes[..fits].last()) else {
                    return Ok(JournalPage { entries: Vec::new(), pending, more: false, amendments: None });
                };
                let found = conn.client.query(&entries_statement, &[&ladder.id, &oldest, &newest, &kind]).await?;
                let mut entries = Vec::with_capacity(found.len());
                for row in found {
                    entries.push(journal_entry(JournalRow {
                        seq: row.get(0),
                        kind: row.get(1),
                        id: row.get(2),
                        time: row.get(3),
                        inputs: row.get(4),
                        joined: row.get(5),
                        results: row.get(6),
                        annulled: row.get(7),
                        annul_reason: row.get(8),
                        corrected: row.get(9),
                        hash: row.get::<_, Option<Vec<u8>>>(10).unwrap_or_default(),
                        keys: row.get(11),
                    })?);
                }
                Ok(JournalPage { entries, pending, more: sizes.len() > fits, amendments: None })
            }
            .await;
            conn.client.batch_execute("COMMIT").await?;
            conn.in_transaction = false;
            result
        })
    }

    fn ladder_event(&self, ladder: Arc<Ladder>, request: EventRequest) -> StoreFuture<'_, String> {
        Box::pin(async move {
            let _turn = self.shared.turn(ladder.id).await;
            let mut attempt = 0;
            loop {
                let mut conn = self.pool().get().await?;
                conn.in_transaction = true;
                match ladder_event_once(&conn.client, &ladder, &request).await {
                    Ok(answer) => {
                        self.shared.chain_wake.notify_one();
                        // Ends a transaction left open by an early answer (a warning only
                        // after a COMMIT).
                        if conn.client.batch_execute("ROLLBACK").await.is_ok() {
                            conn.in_transaction = false;
                        }
                        return answer;
                    }
                    Err(error) => {
                        conn.rollback().await;
                        attempt += 1;
                        if !retryable(&error) || attempt >= ATTEMPTS {
                            return Err(error.into());
                        }
                    }
                }
            }
        })
    }

    fn ladders<'a>(&'a self, only: Option<&'a str>) -> StoreFuture<'a, Vec<LadderSummary>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let statement = conn
                .prepare(
                    "SELECT l.name, l.players, l.season, coalesce((SELECT max(j.seq) FROM journal j WHERE j.ladder_id = l.id), 0) AS last_seq, \
                     l.schedule_season_end, l.schedule_decay, l.next_season_end, l.next_decay, l.next_config \
                     FROM ladders l WHERE $1::text IS NULL OR l.name = $1 ORDER BY l.name",
                )
                .await?;
            let rows = conn.client.query(&statement, &[&only]).await?;
            Ok(rows
                .iter()
                .map(|r| LadderSummary {
                    name: r.get("name"),
                    players: r.get("players"),
                    season: r.get("season"),
                    last_seq: r.get("last_seq"),
                    schedule: ScheduleView { season_end: r.get("schedule_season_end"), decay: r.get("schedule_decay") },
                    next: NextTimes { season_end: r.get("next_season_end"), decay: r.get("next_decay") },
                    next_config_json: r.get("next_config"),
                })
                .collect())
        })
    }

    fn history<'a>(&'a self, ladder: &'a Ladder, player: &'a str, before: Option<i64>, limit: i64) -> StoreFuture<'a, Option<Vec<HistoryEntry>>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let find = conn.prepare("SELECT id FROM players WHERE ladder_id = $1 AND name = $2").await?;
            let lines = conn
                .prepare(
                    "SELECT e.seq, j.kind, j.match_id, j.time, e.rating_before, e.rating_after, j.annulled FROM player_entries e JOIN journal j ON j.seq = e.seq \
                     WHERE e.player_id = $1 AND e.seq < $2 ORDER BY e.seq DESC LIMIT $3",
                )
                .await?;
            let Some(row) = conn.client.query_opt(&find, &[&ladder.id, &player]).await? else {
                return Ok(None);
            };
            let id: i64 = row.get(0);
            let rows = conn.client.query(&lines, &[&id, &before.unwrap_or(i64::MAX), &limit]).await?;
            Ok(Some(
                rows.iter()
                    .map(|r| HistoryEntry { seq: r.get(0), kind: r.get(1), id: r.get(2), time: r.get(3), rating_before: r.get(4), rating_after: r.get(5), annulled: r.get(6) })
                    .collect(),
            ))
        })
    }

    fn around<'a>(&'a self, ladder: &'a Ladder, player: &'a str, limit: i64) -> StoreFuture<'a, Option<Vec<BoardEntry>>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let find = conn
                .prepare(concat!(
                    "SELECT p.id, p.rating, l.zero_sum_offset, ",
                    players_above!(),
                    " AS better FROM players p JOIN ladders l ON l.id = p.ladder_id WHERE p.ladder_id = $1 AND p.name = $2",
                ))
                .await?;
            let same_above = conn.prepare("SELECT name, rating, league FROM players WHERE ladder_id = $1 AND rating = $2 AND id < $3 ORDER BY id DESC LIMIT $4").await?;
            let higher = conn.prepare("SELECT name, rating, league FROM players WHERE ladder_id = $1 AND rating > $2 ORDER BY rating ASC, id DESC LIMIT $3").await?;
            let same_below = conn.prepare("SELECT name, rating, league FROM players WHERE ladder_id = $1 AND rating = $2 AND id >= $3 ORDER BY id LIMIT $4").await?;
            let lower = conn.prepare("SELECT name, rating, league FROM players WHERE ladder_id = $1 AND rating < $2 ORDER BY rating DESC, id LIMIT $3").await?;
            // One snapshot for the rank and the lines.
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
            let result: Result<Option<Vec<BoardEntry>>, ApiError> = async {
                let Some(row) = conn.client.query_opt(&find, &[&ladder.id, &player]).await? else {
                    return Ok(None);
                };
                let (id, rating, offset, better): (i64, f32, f64, i64) = (row.get(0), row.get(1), row.get(2), row.get(3));
                let line = |r: &tokio_postgres::Row| (r.get::<_, String>(0), r.get::<_, f32>(1), r.get::<_, i64>(2));
                let above_wanted = (limit - 1) / 2;
                let mut above: Vec<(String, f32, i64)> = conn.client.query(&same_above, &[&ladder.id, &rating, &id, &above_wanted]).await?.iter().map(line).collect();
                let more = above_wanted - i64::try_from(above.len()).unwrap_or(0);
                if more > 0 {
                    above.extend(conn.client.query(&higher, &[&ladder.id, &rating, &more]).await?.iter().map(line));
                }
                above.reverse();
                let below_wanted = limit - above_wanted;
                let mut below: Vec<(String, f32, i64)> = conn.client.query(&same_below, &[&ladder.id, &rating, &id, &below_wanted]).await?.iter().map(line).collect();
                let more = below_wanted - i64::try_from(below.len()).unwrap_or(0);
                if more > 0 {
                    below.extend(conn.client.query(&lower, &[&ladder.id, &rating, &more]).await?.iter().map(line));
                }
                let first_rank = better + 1 - i64::try_from(above.len()).unwrap_or(0);
                Ok(Some(
                    above
                        .into_iter()
                        .chain(below)
                        .enumerate()
                        .map(|(i, (player, rating, league))| BoardEntry {
                            rank: first_rank + i as i64,
                            player,
                            rating: ranking_elo::pool::effective_rating(rating, offset),
                            league: u32::try_from(league).unwrap_or(0),
                        })
                        .collect(),
                ))
            }
            .await;
            conn.client.batch_execute("COMMIT").await?;
            conn.in_transaction = false;
            result
        })
    }

    fn set_next_rules<'a>(&'a self, ladder: &'a Ladder, config_json: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            conn.client.execute("UPDATE ladders SET next_config = $2 WHERE id = $1", &[&ladder.id, &config_json]).await?;
            Ok(())
        })
    }

    fn set_schedule<'a>(&'a self, ladder: &'a Ladder, schedule: &'a ScheduleView, next: NextTimes) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            conn.client
                .execute(
                    "UPDATE ladders SET schedule_season_end = $2, schedule_decay = $3, next_season_end = $4, next_decay = $5 WHERE id = $1",
                    &[&ladder.id, &schedule.season_end, &schedule.decay, &next.season_end, &next.decay],
                )
                .await?;
            Ok(())
        })
    }

    fn due<'a>(&'a self, now: f64) -> StoreFuture<'a, Vec<(String, LadderEvent, f64)>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn.client.query("SELECT name, next_season_end, next_decay FROM ladders WHERE next_season_end <= $1 OR next_decay <= $1", &[&now]).await?;
            let mut due = Vec::new();
            for r in rows {
                let (name, season_end, decay): (String, Option<f64>, Option<f64>) = (r.get(0), r.get(1), r.get(2));
                if let Some(at) = season_end.filter(|at| *at <= now) {
                    due.push((name.clone(), LadderEvent::SeasonEnd, at));
                }
                if let Some(at) = decay.filter(|at| *at <= now) {
                    due.push((name, LadderEvent::Decay, at));
                }
            }
            Ok(due)
        })
    }

    fn advance<'a>(&'a self, ladder: &'a Ladder, event: LadderEvent, from: f64, to: Option<f64>) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let sql = match event {
                LadderEvent::SeasonEnd => "UPDATE ladders SET next_season_end = $3 WHERE id = $1 AND next_season_end = $2",
                LadderEvent::Decay => "UPDATE ladders SET next_decay = $3 WHERE id = $1 AND next_decay = $2",
            };
            Ok(conn.client.execute(sql, &[&ladder.id, &from, &to]).await? == 1)
        })
    }

    fn erase<'a>(&'a self, ladder: Arc<Ladder>, player: &'a str) -> StoreFuture<'a, Option<String>> {
        Box::pin(async move {
            let _turn = self.shared.turn(ladder.id).await;
            let mut conn = self.pool().get().await?;
            conn.in_transaction = true;
            let result = erase_once(&conn.client, &ladder, player).await;
            let _ = conn.client.batch_execute("ROLLBACK").await;
            conn.in_transaction = false;
            result
        })
    }

    fn rank_mismatches<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<(i64, i64, i64, i64)>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn
                .client
                .query(
                    "SELECT level::bigint, bucket, sum(stored)::bigint, sum(counted)::bigint FROM ( \
                       SELECT level, bucket, count AS stored, 0 AS counted FROM rank_buckets WHERE ladder_id = $1 \
                       UNION ALL SELECT 0, floor(rating::float8 * 4)::bigint, 0, 1 FROM players WHERE ladder_id = $1 \
                       UNION ALL SELECT 1, floor(rating::float8 / 16)::bigint, 0, 1 FROM players WHERE ladder_id = $1 \
                     ) c GROUP BY level, bucket HAVING sum(stored) <> sum(counted) ORDER BY level, bucket LIMIT 10",
                    &[&ladder.id],
                )
                .await?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect())
        })
    }

    fn rebuild_base<'a>(&'a self, ladder: &'a Ladder, limit: i64) -> StoreFuture<'a, crate::store::RebuildBase> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let row = conn
                .client
                .query_one(
                    "WITH latest AS (SELECT seq, state FROM rebuild_checkpoints WHERE ladder_id = $1 ORDER BY seq DESC LIMIT 1) \
                     SELECT (SELECT amendments FROM ladders WHERE id = $1), (SELECT state FROM latest), coalesce((SELECT seq FROM latest), 0), \
                     (SELECT count(*) FROM (SELECT 1 FROM journal WHERE ladder_id = $1 AND seq > coalesce((SELECT seq FROM latest), 0) AND hash IS NOT NULL LIMIT $2) AS f)",
                    &[&ladder.id, &limit],
                )
                .await?;
            Ok(crate::store::RebuildBase { generation: row.get(0), state: row.get(1), seq: row.get(2), entries_after: row.get(3) })
        })
    }

    fn replay_page<'a>(&'a self, ladder: &'a Ladder, after: i64, limit: i64) -> StoreFuture<'a, Vec<crate::replay::StoredEntry>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn
                .client
                .query(
                    &format!("SELECT {} FROM journal WHERE ladder_id = $1 AND seq > $2 AND hash IS NOT NULL ORDER BY seq LIMIT $3", amend::REPLAY_COLUMNS),
                    &[&ladder.id, &after, &limit],
                )
                .await?;
            Ok(rows.iter().map(amend::stored_entry).collect())
        })
    }

    fn keep_checkpoint<'a>(&'a self, ladder: &'a Ladder, seq: i64, state: &'a str, generation: i64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            conn.in_transaction = true;
            let key = i32::try_from(ladder.id).unwrap_or(i32::MAX);
            let kept = async {
                conn.client.batch_execute("BEGIN").await?;
                // Shared with reports, exclusive with amendments and erasures: one of those
                // under way commits first, and its new generation refuses this checkpoint.
                conn.client.execute("SELECT pg_advisory_xact_lock_shared($1, $2)", &[&LOCK_CLASS, &key]).await?;
                let now: i64 = conn.client.query_one("SELECT amendments FROM ladders WHERE id = $1", &[&ladder.id]).await?.get(0);
                if now == generation {
                    save_checkpoint(&conn.client, ladder.id, seq, state).await?;
                }
                conn.client.batch_execute("COMMIT").await?;
                Ok::<bool, tokio_postgres::Error>(now == generation)
            }
            .await;
            match kept {
                Ok(kept) => {
                    conn.in_transaction = false;
                    Ok(kept)
                }
                Err(error) => {
                    conn.rollback().await;
                    Err(error.into())
                }
            }
        })
    }

    fn history_kept_since<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, f64> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            Ok(history_lines_since(&conn.client, ladder.id).await?)
        })
    }

    fn history_lines<'a>(&'a self, ladder: &'a Ladder, after: i64, through: i64) -> StoreFuture<'a, Vec<crate::store::HistoryLine>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn
                .client
                .query(
                    "SELECT e.seq, p.name, e.rating_before, e.rating_after FROM player_entries e JOIN players p ON p.id = e.player_id \
                     WHERE e.seq > $2 AND e.seq <= $3 AND e.ladder_id = $1 ORDER BY e.seq, p.name COLLATE \"C\"",
                    &[&ladder.id, &after, &through],
                )
                .await?;
            Ok(rows.iter().map(|r| crate::store::HistoryLine { seq: r.get(0), player: r.get(1), before: r.get(2), after: r.get(3) }).collect())
        })
    }

    fn amendment_generation<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, (i64, bool)> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            // (An amendment or event is one transaction here: never seen half done.)
            let generation: i64 = conn.client.query_one("SELECT amendments FROM ladders WHERE id = $1", &[&ladder.id]).await?.get(0);
            Ok((generation, false))
        })
    }

    fn all_players<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<crate::model::PlayerView>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            // One snapshot for the offset and the rows.
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
            let read = async {
                let offset: f64 = conn.client.query_one("SELECT zero_sum_offset FROM ladders WHERE id = $1", &[&ladder.id]).await?.get(0);
                let rows = conn.client.query(&format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = $1 ORDER BY id"), &[&ladder.id]).await?;
                rows.iter().map(|row| Ok(view(player_row(row)?, offset))).collect::<Result<Vec<_>, ApiError>>()
            }
            .await;
            conn.client.batch_execute("COMMIT").await?;
            conn.in_transaction = false;
            read
        })
    }

    fn amend(&self, ladder: Arc<Ladder>, request: crate::amend::Request) -> StoreFuture<'_, String> {
        Box::pin(async move {
            let _turn = self.shared.turn(ladder.id).await;
            let mut attempt = 0;
            loop {
                let mut conn = self.pool().get().await?;
                conn.in_transaction = true;
                match amend_once(&conn.client, &ladder, &request).await {
                    Ok(answer) => {
                        self.shared.chain_wake.notify_one();
                        // Ends a transaction left open by an early answer (a warning only
                        // after a COMMIT).
                        if conn.client.batch_execute("ROLLBACK").await.is_ok() {
                            conn.in_transaction = false;
                        }
                        return answer;
                    }
                    Err(error) => {
                        conn.rollback().await;
                        attempt += 1;
                        if !retryable(&error) || attempt >= ATTEMPTS {
                            return Err(error.into());
                        }
                    }
                }
            }
        })
    }

    fn seasons<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<SeasonSummary>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn.client.query("SELECT season, ended, players, seq FROM seasons WHERE ladder_id = $1 ORDER BY season", &[&ladder.id]).await?;
            Ok(rows.iter().map(|r| SeasonSummary { season: r.get("season"), ended: r.get("ended"), players: r.get("players"), seq: r.get("seq") }).collect())
        })
    }

    fn season_standings<'a>(&'a self, ladder: &'a Ladder, season: i64, limit: i64, offset: i64) -> StoreFuture<'a, Option<Vec<StandingView>>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let ended = conn.client.query_opt("SELECT 1 FROM seasons WHERE ladder_id = $1 AND season = $2", &[&ladder.id, &season]).await?;
            if ended.is_none() {
                return Ok(None);
            }
            let statement = conn
                .prepare(
                    "SELECT s.rank, p.name, s.rating, s.peak_rating, s.league, s.peak_league, s.games, s.wins FROM season_records s JOIN players p ON p.id = s.player_id \
                     WHERE s.ladder_id = $1 AND s.season = $2 AND s.rank > $3 ORDER BY s.rank LIMIT $4",
                )
                .await?;
            let count = |v: i64| u32::try_from(v).unwrap_or(u32::MAX);
            let rows = conn.client.query(&statement, &[&ladder.id, &season, &offset, &limit]).await?;
            Ok(Some(
                rows.iter()
                    .map(|r| StandingView {
                        rank: r.get("rank"),
                        player: r.get("name"),
                        rating: r.get("rating"),
                        peak_rating: r.get("peak_rating"),
                        league: count(r.get("league")),
                        peak_league: count(r.get("peak_league")),
                        games: count(r.get("games")),
                        wins: count(r.get("wins")),
                    })
                    .collect(),
            ))
        })
    }

    fn key<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<KeyRecord>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let statement = conn.prepare("SELECT hash, scope, ladder, revoked_at FROM api_keys WHERE id = $1").await?;
            let row = conn.client.query_opt(&statement, &[&id]).await?;
            Ok(row.and_then(|row| {
                let hash: Vec<u8> = row.get("hash");
                Some(KeyRecord { hash: hash.try_into().ok()?, scope: row.get("scope"), ladder: row.get("ladder"), revoked: row.get::<_, Option<f64>>("revoked_at").is_some() })
            }))
        })
    }

    fn create_key<'a>(&'a self, id: &'a str, hash: &'a [u8; 32], scope: &'a str, ladder: Option<&'a str>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            conn.client
                .execute("INSERT INTO api_keys (id, hash, scope, ladder, created_at) VALUES ($1, $2, $3, $4, $5)", &[&id, &hash.as_slice(), &scope, &ladder, &model::now()])
                .await?;
            Ok(())
        })
    }

    fn revoke_key<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            Ok(conn.client.execute("UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL", &[&id, &model::now()]).await? > 0)
        })
    }

    fn list_keys(&self) -> StoreFuture<'_, Vec<KeyListing>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn.client.query("SELECT id, scope, ladder, created_at, revoked_at FROM api_keys ORDER BY created_at, id", &[]).await?;
            Ok(rows
                .iter()
                .map(|r| KeyListing { id: r.get("id"), scope: r.get("scope"), ladder: r.get("ladder"), created: r.get("created_at"), revoked: r.get("revoked_at") })
                .collect())
        })
    }

    fn lease_tokens<'a>(&'a self, key: &'a str, rate: f64, burst: f64, want: u32) -> Option<StoreFuture<'a, u32>> {
        Some(Box::pin(async move {
            let mut conn = self.pool().get().await?;
            // One statement: refill the key's shared bucket to now (the database's clock,
            // so servers' clocks do not matter), take up to `want` whole tokens.
            let statement = conn
                .prepare(
                    "INSERT INTO rate_buckets AS b (key_id, tokens, at, granted) \
                     VALUES ($1, $2 - least($3, floor($2)), extract(epoch from now()), least($3, floor($2))) \
                     ON CONFLICT (key_id) DO UPDATE SET \
                     granted = least($3, floor(least($2, b.tokens + greatest(0, extract(epoch from now()) - b.at) * $4))), \
                     tokens = least($2, b.tokens + greatest(0, extract(epoch from now()) - b.at) * $4) \
                              - least($3, floor(least($2, b.tokens + greatest(0, extract(epoch from now()) - b.at) * $4))), \
                     at = greatest(b.at, extract(epoch from now())) \
                     RETURNING granted",
                )
                .await?;
            let row = conn.client.query_one(&statement, &[&key, &burst, &f64::from(want), &rate]).await?;
            let granted: f64 = row.get(0);
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Ok(granted.max(0.0) as u32)
        }))
    }

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
            conn.client.batch_execute("VACUUM (FULL) players, journal, rebuild_checkpoints").await?;
            let checkpoint = match conn.client.batch_execute("CHECKPOINT").await {
                Ok(()) => "then a CHECKPOINT".to_owned(),
                Err(error) => format!(
                    "no CHECKPOINT ({}; the next one PostgreSQL runs itself removes the old files)",
                    error.as_db_error().map_or_else(|| error.to_string(), |e| e.message().to_owned())
                ),
            };
            Ok(format!("VACUUM (FULL) rewrote the players, the journal and the rebuild checkpoints; {checkpoint}"))
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

/// One season end or decay in its own transaction (see the module documentation). `Ok`
/// carries the API's answer, including a refused retry; `Err` a database error.
async fn ladder_event_once(c: &Client, ladder: &Ladder, request: &EventRequest) -> Result<Result<String, ApiError>, tokio_postgres::Error> {
    let ladder_key = i32::try_from(ladder.id).unwrap_or(i32::MAX);
    let kind = request.event.kind();
    c.batch_execute("BEGIN").await?;
    // Waits for the matches in flight and keeps new ones out until the commit.
    c.execute("SELECT pg_advisory_xact_lock($1, $2)", &[&LOCK_CLASS, &ladder_key]).await?;
    if let Some(found) = c.query_opt("SELECT seq, kind, inputs, results FROM journal WHERE ladder_id = $1 AND match_id = $2", &[&ladder.id, &request.id]).await? {
        c.batch_execute("ROLLBACK").await?;
        let (seq, results, stored_inputs): (i64, &str, &str) = (found.get("seq"), found.get("results"), found.get("inputs"));
        // The same event when the kind is the same (its inputs record what it found then).
        return Ok(replay_answer(&request.id, found.get("kind"), stored_inputs, kind, stored_inputs, || event_response(seq, &request.id, results)));
    }
    // A scheduled event an older server ran under the old form of its id.
    if let Some(legacy) = request.legacy_id() {
        if let Some(found) = c.query_opt("SELECT seq, results FROM journal WHERE ladder_id = $1 AND match_id = $2 AND kind = $3", &[&ladder.id, &legacy, &kind]).await? {
            return Ok(Ok(event_response(found.get(0), &legacy, found.get(1))));
        }
    }
    let row = c
        .query_one("SELECT zero_sum_offset, zero_sum_sum, players, decayed_through, season, config, next_config FROM ladders WHERE id = $1 FOR NO KEY UPDATE", &[&ladder.id])
        .await?;
    let rules = match stored_rules(row.get("config")) {
        Ok(rules) => rules,
        Err(error) => return Ok(Err(error)),
    };
    let next_config: Option<String> = row.get::<_, Option<String>>("next_config").filter(|_| request.event == LadderEvent::SeasonEnd);
    let next_rules = match next_config.as_deref().map(stored_rules).transpose() {
        Ok(next) => next,
        Err(error) => return Ok(Err(error)),
    };
    let inputs = request.inputs_json(next_config.as_deref());
    let zero_sum = match rules
        .config()
        .zero_sum_total
        .map(|total| ZeroSum::from_stored(total, row.get("zero_sum_offset"), row.get::<_, &str>("zero_sum_sum"), row.get("players")))
        .transpose()
    {
        Ok(z) => z,
        Err(error) => return Ok(Err(error)),
    };
    let decayed_through: Option<f64> = row.get("decayed_through");
    let season: i64 = row.get("season");
    // Streamed, so only the engine's records are held, not the driver's rows.
    let select = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = $1 ORDER BY id");
    let stream = c.query_raw(&select, [&ladder.id]).await?;
    pin_mut!(stream);
    let mut rows = Vec::new();
    while let Some(row) = stream.try_next().await? {
        match player_row(&row) {
            Ok(row) => rows.push(row),
            Err(error) => return Ok(Err(error)),
        }
    }
    let now = model::now();
    let outcome = match run_event(&crate::events::EventRules { rules: &rules, next: next_rules.as_ref() }, request.event, &rows, zero_sum, decayed_through, now, season) {
        Ok(outcome) => outcome,
        Err(error) => return Ok(Err(error)),
    };
    drop(rows);
    let update = c.prepare(UPDATE_PLAYERS).await?;
    let mut chunks = Vec::new();
    for chunk in outcome.writes.chunks(CHUNK) {
        let mut columns = Columns::default();
        for (id, state) in chunk {
            columns.push(*id, 0, "", state);
        }
        chunks.push(columns);
    }
    let writes = chunks.iter().map(|columns| {
        let update = &update;
        async move { c.execute(update, &columns.update_params()).await }
    });
    for written in futures_util::future::join_all(writes).await {
        written?;
    }
    // Written whether or not the rules now have a total: reads apply the offset as stored,
    // so a ladder whose season end drops its total keeps 0.
    let (offset, sum) = outcome.zero_sum.map_or((0.0, "0".to_owned()), |z| (z.offset, z.sum_text()));
    c.execute("UPDATE ladders SET zero_sum_offset = $2, zero_sum_sum = $3 WHERE id = $1", &[&ladder.id, &offset, &sum]).await?;
    c.execute("UPDATE ladders SET decayed_through = $2 WHERE id = $1", &[&ladder.id, &outcome.decayed_through]).await?;
    if request.event == LadderEvent::SeasonEnd {
        let insert = c
            .prepare(
                "INSERT INTO season_records (ladder_id, season, rank, player_id, rating, peak_rating, league, peak_league, games, wins) \
                 SELECT $1, $2, u.rank, u.player, u.rating, u.peak, u.league, u.peak_league, u.games, u.wins \
                 FROM unnest($3::bigint[], $4::bigint[], $5::real[], $6::real[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[]) \
                 AS u(rank, player, rating, peak, league, peak_league, games, wins)",
            )
            .await?;
        let mut pending = Vec::new();
        for chunk in outcome.standings.chunks(CHUNK) {
            let ranks: Vec<i64> = chunk.iter().map(|s| s.rank).collect();
            let players: Vec<i64> = chunk.iter().map(|s| s.player_id).collect();
            let ratings: Vec<f32> = chunk.iter().map(|s| s.rating).collect();
            let peaks: Vec<f32> = chunk.iter().map(|s| s.peak_rating).collect();
            let leagues: Vec<i64> = chunk.iter().map(|s| i64::from(s.league)).collect();
            let peak_leagues: Vec<i64> = chunk.iter().map(|s| i64::from(s.peak_league)).collect();
            let games: Vec<i64> = chunk.iter().map(|s| i64::from(s.games)).collect();
            let wins: Vec<i64> = chunk.iter().map(|s| i64::from(s.wins)).collect();
            pending.push((ranks, players, ratings, peaks, leagues, peak_leagues, games, wins));
        }
        let inserts = pending.iter().map(|(ranks, players, ratings, peaks, leagues, peak_leagues, games, wins)| {
            let insert = &insert;
            async move { c.execute(insert, &[&ladder.id, &season, ranks, players, ratings, peaks, leagues, peak_leagues, games, wins]).await }
        });
        for inserted in futures_util::future::join_all(inserts).await {
            inserted?;
        }
        c.execute("UPDATE ladders SET season = season + 1 WHERE id = $1", &[&ladder.id]).await?;
        if let Some(next) = &next_config {
            c.execute("UPDATE ladders SET config = $2, next_config = NULL WHERE id = $1", &[&ladder.id, next]).await?;
        }
    }
    let mut entry = EntryColumns::default();
    entry.push(&NewEntry { ladder: ladder.id, id: &request.id, kind, inputs: &inputs, time: now, joined: "[]".to_owned(), results: outcome.results.clone() });
    for (player, before, after) in &outcome.history {
        entry.push_history(ladder.id, Some(*player), (0, 0), *before, *after);
    }
    let nobody = Columns::default();
    c.batch_execute(HORIZON).await?;
    let seq: i64 = c.query_one(APPEND, &entry.params(&nobody)).await?.get("seq");
    if request.event == LadderEvent::SeasonEnd {
        c.execute(
            "INSERT INTO seasons (ladder_id, season, ended, players, seq) VALUES ($1, $2, $3, $4, $5)",
            &[&ladder.id, &season, &now, &i64::try_from(outcome.standings.len()).unwrap_or(i64::MAX), &seq],
        )
        .await?;
    }
    c.batch_execute("COMMIT").await?;
    Ok(Ok(event_response(seq, &request.id, &outcome.results)))
}

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
