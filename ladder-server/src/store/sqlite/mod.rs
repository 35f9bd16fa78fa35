//! SQLite: the embedded default, for one server process. One writer thread owns the write
//! connection and commits the requests that arrived together in one transaction (group
//! commit: one `fsync` for all of them under `synchronous=FULL`), each inside its own
//! savepoint so that a refused match changes nothing; every reply waits for the commit.
//! Reads use their own connections (WAL lets them run beside the writer), each request in
//! one read transaction.
//!
//! This module holds the connections, the migrations and what every resource shares; each
//! resource's store trait is implemented in a module of its own (`ladders`, `matches`,
//! `players`, `seasons`, `keys`), beside `amend` and the chain's.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use ranking_elo::PlayerState;
use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::oneshot;

mod amend;
mod boards;
mod chain;
mod import;
mod keys;
mod ladders;
mod matches;
mod players;
mod queues;
mod seasons;
mod tags;
mod webhooks;

use self::amend::{history_lines_since, replay_entries, save_checkpoint};
use self::chain::{chain_everything, chain_ladder};
use self::seasons::undo_unfinished_events;
use super::ranks;
use super::rows::{player_row, StateValues, PLAYER_COLUMNS, STATE_COLUMNS};
use super::Role;
use super::{
    canonical_config, entry_bytes, journal_entry, page_length, replay_answer, stored_rules, BoardEntry, HistoryEntry, JournalPage, JournalRow, KeyListing, KeyRecord, Ladder,
    LadderStore, LadderSummary, NewEntry, NextTimes, PlayerWithRank, Provisional, PutOutcome, ScheduleView, SeasonSummary, StandingView, StoreFuture, JOURNAL_COLUMNS,
};
use crate::error::ApiError;
use crate::events::{event_response, run_event, EventContext, EventRequest, EventRules, LadderEvent};
use crate::model::{self, apply_match, joining_state, view, MatchRequest, PlayerRow, PlayerView, ZeroSum};

/// The migrations, in order.
const MIGRATIONS: [&str; 15] = [
    include_str!("../../../migrations/sqlite/0001_ladders.sql"),
    include_str!("../../../migrations/sqlite/0002_operations.sql"),
    include_str!("../../../migrations/sqlite/0003_rank_buckets.sql"),
    include_str!("../../../migrations/sqlite/0004_staged_events.sql"),
    include_str!("../../../migrations/sqlite/0005_amendments.sql"),
    include_str!("../../../migrations/sqlite/0006_chain_2.sql"),
    include_str!("../../../migrations/sqlite/0007_checkpoints.sql"),
    include_str!("../../../migrations/sqlite/0008_amend_progress.sql"),
    include_str!("../../../migrations/sqlite/0009_ladder_options.sql"),
    include_str!("../../../migrations/sqlite/0010_queues.sql"),
    include_str!("../../../migrations/sqlite/0011_provisional.sql"),
    include_str!("../../../migrations/sqlite/0012_tags.sql"),
    include_str!("../../../migrations/sqlite/0013_webhooks.sql"),
    include_str!("../../../migrations/sqlite/0014_period_schedule.sql"),
    include_str!("../../../migrations/sqlite/0015_rating_periods.sql"),
];

/// The rank buckets of ladder `?1` counted from its players: `(level, bucket, count)`, with
/// `floor(x)` of any sign written without SQLite's math functions (as the triggers do);
/// levels 2 and 3 count the provisional players (migration 0011).
macro_rules! counted_buckets {
    () => {
        "SELECT 0 AS level, CAST(rating * 4 AS INTEGER) - (rating * 4 < CAST(rating * 4 AS INTEGER)) AS bucket, count(*) AS count \
         FROM players WHERE ladder_id = ?1 GROUP BY 2 \
         UNION ALL \
         SELECT 1, CAST(rating / 16 AS INTEGER) - (rating / 16 < CAST(rating / 16 AS INTEGER)), count(*) FROM players WHERE ladder_id = ?1 GROUP BY 2 \
         UNION ALL \
         SELECT 2, CAST(rating * 4 AS INTEGER) - (rating * 4 < CAST(rating * 4 AS INTEGER)), count(*) FROM players \
         WHERE ladder_id = ?1 AND games_played < (SELECT provisional_games FROM ladders WHERE id = ?1) GROUP BY 2 \
         UNION ALL \
         SELECT 3, CAST(rating / 16 AS INTEGER) - (rating / 16 < CAST(rating / 16 AS INTEGER)), count(*) FROM players \
         WHERE ladder_id = ?1 AND games_played < (SELECT provisional_games FROM ladders WHERE id = ?1) GROUP BY 2"
    };
}

/// A ladder's rank buckets counted afresh.
const RECOUNT: &str = concat!("INSERT INTO rank_buckets (ladder_id, level, bucket, count) SELECT ?1, level, bucket, count FROM (", counted_buckets!(), ")");

/// A ladder's provisional players' rank buckets (levels 2 and 3) counted afresh.
const RECOUNT_PROVISIONAL: &str =
    concat!("INSERT INTO rank_buckets (ladder_id, level, bucket, count) SELECT ?1, level, bucket, count FROM (", counted_buckets!(), ") WHERE level >= 2");

/// The buckets whose stored count is not the players' count.
const RANK_MISMATCHES: &str = concat!(
    "SELECT level, bucket, sum(stored), sum(counted) FROM ( \
       SELECT level, bucket, count AS stored, 0 AS counted FROM rank_buckets WHERE ladder_id = ?1 \
       UNION ALL SELECT level, bucket, 0, count FROM (",
    counted_buckets!(),
    ")) GROUP BY level, bucket HAVING sum(stored) <> sum(counted) ORDER BY level, bucket LIMIT 10"
);

/// The tag buckets of ladder `?1`'s tags counted from their members: `(tag_id, level,
/// bucket, count)`, as [`counted_buckets`] counts a ladder's.
macro_rules! counted_tag_buckets {
    () => {
        "SELECT m.tag_id, 0 AS level, CAST(m.rating * 4 AS INTEGER) - (m.rating * 4 < CAST(m.rating * 4 AS INTEGER)) AS bucket, count(*) AS count FROM tag_members m JOIN tags t ON t.id = m.tag_id WHERE t.ladder_id = ?1 GROUP BY 1, 3 \
         UNION ALL \
         SELECT m.tag_id, 1, CAST(m.rating / 16 AS INTEGER) - (m.rating / 16 < CAST(m.rating / 16 AS INTEGER)), count(*) FROM tag_members m JOIN tags t ON t.id = m.tag_id WHERE t.ladder_id = ?1 GROUP BY 1, 3 \
         UNION ALL \
         SELECT m.tag_id, 2, CAST(m.rating * 4 AS INTEGER) - (m.rating * 4 < CAST(m.rating * 4 AS INTEGER)), count(*) FROM tag_members m JOIN tags t ON t.id = m.tag_id \
         WHERE t.ladder_id = ?1 AND m.games_played < (SELECT provisional_games FROM ladders WHERE id = ?1) GROUP BY 1, 3 \
         UNION ALL \
         SELECT m.tag_id, 3, CAST(m.rating / 16 AS INTEGER) - (m.rating / 16 < CAST(m.rating / 16 AS INTEGER)), count(*) FROM tag_members m JOIN tags t ON t.id = m.tag_id \
         WHERE t.ladder_id = ?1 AND m.games_played < (SELECT provisional_games FROM ladders WHERE id = ?1) GROUP BY 1, 3"
    };
}

/// A ladder's tags' provisional members' buckets (levels 2 and 3) counted afresh.
const RECOUNT_TAG_PROVISIONAL: &str =
    concat!("INSERT INTO tag_buckets (tag_id, level, bucket, count) SELECT tag_id, level, bucket, count FROM (", counted_tag_buckets!(), ") WHERE level >= 2");

/// A ladder's tags' buckets whose stored count is not their members' count:
/// `(key, value, level, bucket, stored, counted)`.
const TAG_BUCKET_MISMATCHES: &str = concat!(
    "SELECT t.key, t.value, c.level, c.bucket, sum(c.stored), sum(c.counted) FROM ( \
       SELECT b.tag_id, b.level, b.bucket, b.count AS stored, 0 AS counted FROM tag_buckets b JOIN tags t ON t.id = b.tag_id WHERE t.ladder_id = ?1 \
       UNION ALL SELECT tag_id, level, bucket, 0, count FROM (",
    counted_tag_buckets!(),
    ")) c JOIN tags t ON t.id = c.tag_id GROUP BY c.tag_id, c.level, c.bucket HAVING sum(c.stored) <> sum(c.counted) ORDER BY c.tag_id, c.level, c.bucket LIMIT 10"
);

/// The most requests one transaction commits together.
const MAX_BATCH: usize = 256;

/// The most reads at once (and reader connections kept).
const READERS: usize = 32;

type Reply = Box<dyn FnOnce(Option<ApiError>) + Send>;
type Job = Box<dyn WriteJob>;

/// A request waiting for the writer.
trait WriteJob: Send {
    /// Runs the work; returns whether it succeeded and how to answer once the transaction
    /// is committed (or not).
    fn run(self: Box<Self>, connection: &Connection) -> (bool, Reply);
    /// Answers without running (no transaction could be started).
    fn refuse(self: Box<Self>, error: ApiError);
}

struct Pending<T, F> {
    work: F,
    answer: oneshot::Sender<Result<T, ApiError>>,
}

impl<T: Send + 'static, F: FnOnce(&Connection) -> Result<T, ApiError> + Send> WriteJob for Pending<T, F> {
    fn run(self: Box<Self>, connection: &Connection) -> (bool, Reply) {
        let Self { work, answer } = *self;
        let result = work(connection);
        let ok = result.is_ok();
        let reply: Reply = Box::new(move |commit_error| {
            let _ = answer.send(match (result, commit_error) {
                (Ok(_), Some(error)) => Err(error),
                (result, _) => result,
            });
        });
        (ok, reply)
    }

    fn refuse(self: Box<Self>, error: ApiError) {
        let _ = self.answer.send(Err(error));
    }
}

/// The SQLite store.
pub struct SqliteStore {
    jobs: Mutex<mpsc::Sender<Job>>,
    readers: Mutex<Vec<Connection>>,
    /// Reads under way, at most [`READERS`] (so at most that many reader connections).
    reader_slots: tokio::sync::Semaphore,
    path: String,
    busy: Arc<AtomicUsize>,
    /// Players per step of a season end or decay (see [`SqliteStore::staged_event`]).
    event_step: usize,
    /// Each ladder's gate: every read and write of the ladder holds it shared; a season end
    /// or decay applied in steps holds it exclusively, so nothing sees it half done.
    gates: Mutex<HashMap<i64, Arc<tokio::sync::RwLock<()>>>>,
    /// Each ladder's names: a webhook delivery holds it shared from reading its entry until
    /// it is sent, an erasure exclusively (so nothing read before an erasure is sent after).
    names: Mutex<HashMap<i64, Arc<tokio::sync::RwLock<()>>>>,
    /// Ladders whose unfinished event could not be undone: closed until a restart.
    broken: Arc<Mutex<HashSet<i64>>>,
    /// The serve lock, held while this server runs (see [`SqliteStore::open`]).
    _serving: Option<std::fs::File>,
}

/// What a ladder has under way in steps.
#[derive(Clone, Copy)]
enum Staged {
    /// A season end or decay: undone when it does not finish.
    Event,
    /// An annulment or correction: finished in one transaction when its steps do not.
    Amendment,
}

/// A staged season end, decay or amendment under way: dropped before it is disarmed (a
/// step failed, or the future was dropped), it queues the event's undo (or the amendment's
/// finish) in the writer and opens the ladder's gate only once that is committed; if that
/// fails too, the ladder is closed (503) until the server restarts, which repairs it.
struct Unfinished {
    jobs: mpsc::Sender<Job>,
    ladder_id: i64,
    staged: Staged,
    gate: Option<tokio::sync::OwnedRwLockWriteGuard<()>>,
    broken: Arc<Mutex<HashSet<i64>>>,
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        let Some(gate) = self.gate.take() else { return };
        let (ladder_id, staged) = (self.ladder_id, self.staged);
        let (answer, repaired) = oneshot::channel();
        let job: Job = Box::new(Pending {
            work: move |c: &Connection| match staged {
                Staged::Event => undo_unfinished_events(c, Some(ladder_id)).map(|_| ()),
                Staged::Amendment => amend::finish_unfinished(c, Some(ladder_id)).map(|_| ()),
            },
            answer,
        });
        let queued = self.jobs.send(job).is_ok();
        let broken = Arc::clone(&self.broken);
        let settle = async move {
            if !(queued && matches!(repaired.await, Ok(Ok(())))) {
                tracing::error!(ladder_id, "a season end, decay or amendment failed half way and could not be repaired; the ladder is closed until the server restarts");
                if let Ok(mut broken) = broken.lock() {
                    broken.insert(ladder_id);
                }
            }
            drop(gate);
        };
        // Without a runtime the process is ending: the next start repairs it.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(settle);
        }
    }
}

/// Takes `PATH-serve.lock` exclusively without waiting: `None` when another process holds
/// it. (The operating system releases it when the process ends, `kill -9` included.)
///
/// # Errors
/// The lock file cannot be created.
fn serve_lock(path: &str) -> Result<Option<std::fs::File>, String> {
    let name = format!("{path}-serve.lock");
    let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&name).map_err(|e| format!("sqlite://{path}: the serve lock {name}: {e}"))?;
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this function owns; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let error = std::io::Error::last_os_error();
            return if error.raw_os_error() == Some(libc::EWOULDBLOCK) { Ok(None) } else { Err(format!("sqlite://{path}: the serve lock {name}: {error}")) };
        }
    }
    Ok(Some(file))
}

fn connect(path: &str, full_sync: bool) -> Result<Connection, rusqlite::Error> {
    let connection = Connection::open(path)?;
    connection.busy_timeout(std::time::Duration::from_secs(10))?;
    let sync = if full_sync { "FULL" } else { "NORMAL" };
    connection.execute_batch(&format!("PRAGMA journal_mode = WAL; PRAGMA synchronous = {sync}; PRAGMA foreign_keys = ON;"))?;
    Ok(connection)
}

/// Scrubs the file after an erasure: `VACUUM` rewrites the database into fresh pages (freed
/// pages, and the slack of pages SQLite rebuilt earlier, can still hold old versions of rows,
/// which even `secure_delete` does not reach), then every page of the write-ahead log is
/// copied into the file and the log truncated to zero bytes (its frames hold the pages as
/// they were). Other
/// writes wait meanwhile (the whole file is copied: seconds per gigabyte). Waits up to the
/// busy timeout for readers of older snapshots; `Err` when it could not finish.
fn scrub(path: &str) -> Result<(), ApiError> {
    let connection = connect(path, false)?;
    connection.execute_batch("VACUUM")?;
    let (busy, frames, copied): (i64, i64, i64) = connection.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    if busy != 0 {
        return Err(ApiError::unavailable(format!("the write-ahead log could not be truncated ({copied} of {frames} pages copied); it is retried at the next erasure")));
    }
    Ok(())
}

/// Counts a connection in use while alive.
struct InUse(Arc<AtomicUsize>);

impl InUse {
    fn new(counter: &Arc<AtomicUsize>) -> Self {
        counter.fetch_add(1, Ordering::Relaxed);
        Self(Arc::clone(counter))
    }
}

impl Drop for InUse {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl SqliteStore {
    /// Opens (creating) the file, runs the migrations and starts the writer thread. A
    /// server ([`Role::Serve`]) takes the file's serve lock (`PATH-serve.lock`, released
    /// when the process ends, however it ends) and is refused when another process holds
    /// it; then it undoes what a stopped server left half done. A command ([`Role::Tool`])
    /// repairs that only while no server holds the lock.
    ///
    /// # Errors
    /// The file cannot be opened or migrated, or another server serves it.
    pub fn open(path: &str, full_sync: bool, event_step: usize, role: Role) -> Result<Self, String> {
        let describe = |e: rusqlite::Error| format!("sqlite://{path}: {e}");
        let lock = serve_lock(path)?;
        let serving = match (role, lock) {
            (Role::Serve, Some(lock)) => Some(lock),
            (Role::Serve, None) => {
                return Err(format!(
                    "sqlite://{path}: another elo-ladder serve uses this file (it holds {path}-serve.lock); SQLite is served by one process: stop it first, or use PostgreSQL for several"
                ))
            }
            // A command repairs only while no server runs; it lets the lock go at once.
            (Role::Tool, lock) => lock,
        };
        let mut writer = connect(path, full_sync).map_err(describe)?;
        migrate(&mut writer).map_err(describe)?;
        let mut closed = HashSet::new();
        if serving.is_some() {
            writer.execute_batch("BEGIN IMMEDIATE").map_err(describe)?;
            // Events a stopped server left half applied are undone before anything is read or
            // chained (their journal entries were never chained).
            // Amendments a stopped server left unfinished are finished (they are chained as
            // they are journaled).
            // A ladder whose amendment cannot be finished is closed (503), not the server.
            // The webhook leases of a stopped server are let go (one server serves the file:
            // its deliveries go on at once).
            let repaired = undo_unfinished_events(&writer, None)
                .and_then(|undone| writer.execute("UPDATE webhooks SET lease_holder = NULL WHERE lease_holder IS NOT NULL", []).map(|_| undone).map_err(ApiError::from))
                .and_then(|undone| chain_everything(&writer).map(|()| undone))
                .and_then(|undone| amend::finish_each_unfinished(&writer).map(|(finished, failed)| (undone, finished, failed)));
            match repaired {
                Ok((undone, finished, failed)) => {
                    for (ladder_id, error) in &failed {
                        tracing::error!(ladder_id, error = %error, "an unfinished annulment or correction could not be finished; the ladder is closed until it can be");
                    }
                    closed.extend(failed.into_iter().map(|(ladder_id, _)| ladder_id));
                    writer.execute_batch("COMMIT").map_err(describe)?;
                    if undone > 0 {
                        tracing::warn!(undone, "undid season ends or decay left unfinished by a stopped server");
                    }
                    if finished > 0 {
                        tracing::warn!(finished, "finished annulments or corrections left unfinished by a stopped server");
                    }
                }
                Err(error) => {
                    let _ = writer.execute_batch("ROLLBACK");
                    return Err(format!("sqlite://{path}: undoing unfinished events, chaining the journal and finishing amendments: {}", error.message));
                }
            }
        }
        let serving = if role == Role::Serve { serving } else { None };
        let (sender, receiver) = mpsc::channel::<Job>();
        let busy = Arc::new(AtomicUsize::new(0));
        let writer_busy = Arc::clone(&busy);
        std::thread::Builder::new().name("elo-ladder-sqlite-writer".into()).spawn(move || write_loop(&writer, &receiver, &writer_busy)).map_err(|e| e.to_string())?;
        Ok(Self {
            jobs: Mutex::new(sender),
            readers: Mutex::new(Vec::new()),
            reader_slots: tokio::sync::Semaphore::new(READERS),
            path: path.to_owned(),
            busy,
            event_step,
            gates: Mutex::new(HashMap::new()),
            names: Mutex::new(HashMap::new()),
            broken: Arc::new(Mutex::new(closed)),
            _serving: serving,
        })
    }

    /// A ladder's gate, once open: 503 for a ladder whose unfinished event could not be
    /// undone (until the server restarts and undoes it).
    fn check_open(&self, ladder: i64) -> Result<(), ApiError> {
        if self.broken.lock().map_err(|_| ApiError::internal("ladder gates poisoned"))?.contains(&ladder) {
            return Err(ApiError::unavailable("a season end, decay or amendment of this ladder failed half way and could not be repaired; it is closed until the server restarts"));
        }
        Ok(())
    }

    /// The ladder's gate (see [`SqliteStore::gates`]).
    fn gate(&self, ladder: i64) -> Result<Arc<tokio::sync::RwLock<()>>, ApiError> {
        let mut gates = self.gates.lock().map_err(|_| ApiError::internal("ladder gates poisoned"))?;
        Ok(Arc::clone(gates.entry(ladder).or_default()))
    }

    /// The ladder's names lock (see [`SqliteStore::names`]).
    fn names(&self, ladder: i64) -> Result<Arc<tokio::sync::RwLock<()>>, ApiError> {
        let mut names = self.names.lock().map_err(|_| ApiError::internal("ladder names locks poisoned"))?;
        Ok(Arc::clone(names.entry(ladder).or_default()))
    }

    /// [`Self::read`] of one ladder, after any event being applied to it in steps.
    async fn read_ladder<T: Send + 'static>(&self, ladder: i64, work: impl FnOnce(&Connection) -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
        let gate = self.gate(ladder)?;
        let _shared = gate.read().await;
        self.check_open(ladder)?;
        self.read(work).await
    }

    /// [`Self::write`] to one ladder, after any event being applied to it in steps.
    async fn write_ladder<T: Send + 'static>(&self, ladder: i64, work: impl FnOnce(&Connection) -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
        let gate = self.gate(ladder)?;
        let _shared = gate.read().await;
        self.check_open(ladder)?;
        self.write(work).await
    }

    /// Runs `work` in the writer's next transaction; the result comes back after the commit.
    async fn write<T: Send + 'static>(&self, work: impl FnOnce(&Connection) -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
        let (answer, receiver) = oneshot::channel();
        let job: Job = Box::new(Pending { work, answer });
        self.jobs.lock().map_err(|_| ApiError::internal("sqlite writer lock poisoned"))?.send(job).map_err(|_| ApiError::unavailable("the sqlite writer has stopped"))?;
        receiver.await.unwrap_or_else(|_| Err(ApiError::unavailable("the sqlite writer has stopped")))
    }

    /// Runs `work` on a reader connection in one read transaction (one snapshot).
    async fn read<T: Send + 'static>(&self, work: impl FnOnce(&Connection) -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
        // At most READERS reads at once, each on a pooled connection: a crowd of requests
        // (10,000 long-polls waking together) waits here instead of opening a connection
        // (and its files) each.
        let _slot = self.reader_slots.acquire().await.map_err(|_| ApiError::unavailable("the store is closing"))?;
        let connection = self.readers.lock().map_err(|_| ApiError::internal("reader lock poisoned"))?.pop();
        let path = self.path.clone();
        let in_use = InUse::new(&self.busy);
        let (connection, result) = tokio::task::spawn_blocking(move || {
            let _in_use = in_use;
            let connection = match connection {
                Some(c) => c,
                None => match connect(&path, true) {
                    Ok(c) => c,
                    Err(e) => return (None, Err(ApiError::from(e))),
                },
            };
            let result = (|| {
                connection.execute_batch("BEGIN")?;
                let result = work(&connection);
                connection.execute_batch("COMMIT")?;
                result
            })();
            if result.is_err() {
                let _ = connection.execute_batch("ROLLBACK");
            }
            (Some(connection), result)
        })
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
        if let Some(connection) = connection {
            if let Ok(mut readers) = self.readers.lock() {
                readers.push(connection);
            }
        }
        result
    }
}

impl LadderStore for SqliteStore {
    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(self.read(|c| Ok(c.query_row("SELECT 1", [], |_| Ok(()))?)))
    }

    fn scrub(&self) -> StoreFuture<'_, String> {
        let path = self.path.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || scrub(&path)).await.map_err(|e| ApiError::internal(e.to_string()))??;
            Ok("VACUUM rewrote the file and the write-ahead log was truncated".to_owned())
        })
    }

    fn connections_in_use(&self) -> usize {
        self.busy.load(Ordering::Relaxed)
    }
}

/// Applies the migrations not applied yet, each in its own transaction.
fn migrate(connection: &mut Connection) -> Result<(), rusqlite::Error> {
    connection.execute_batch("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)")?;
    for (i, sql) in MIGRATIONS.iter().enumerate() {
        let version = i as i64 + 1;
        let transaction = connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let done: bool = transaction.query_row("SELECT count(*) > 0 FROM schema_migrations WHERE version = ?1", [version], |r| r.get(0))?;
        if !done {
            transaction.execute_batch(sql)?;
            transaction.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (?1, ?2)", params![version, model::now()])?;
        }
        transaction.commit()?;
    }
    Ok(())
}

/// The writer: takes every job waiting (up to [`MAX_BATCH`]), runs each in a savepoint of
/// one transaction, commits, then answers them all.
fn write_loop(connection: &Connection, jobs: &mpsc::Receiver<Job>, busy: &Arc<AtomicUsize>) {
    while let Ok(first) = jobs.recv() {
        let _in_use = InUse::new(busy);
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let started = std::time::Instant::now();
        if let Err(error) = connection.execute_batch("BEGIN IMMEDIATE") {
            let error = ApiError::from(error);
            for job in batch {
                job.refuse(error.clone());
            }
            continue;
        }
        let size = batch.len();
        let mut replies = Vec::with_capacity(size);
        let mut broken = None;
        for job in batch {
            if let Some(error) = &broken {
                job.refuse(ApiError::clone(error));
                continue;
            }
            if let Err(error) = connection.execute_batch("SAVEPOINT job") {
                broken = Some(ApiError::from(error));
                job.refuse(ApiError::internal("the transaction failed"));
                continue;
            }
            let (ok, reply) = job.run(connection);
            let end = if ok { "RELEASE job" } else { "ROLLBACK TO job; RELEASE job" };
            if let Err(error) = connection.execute_batch(end) {
                // The transaction cannot be trusted any more: nothing of it is committed.
                broken = Some(ApiError::from(error));
            }
            replies.push(reply);
        }
        let commit_error = match broken {
            Some(error) => Some(error),
            None => connection.execute_batch("COMMIT").err().map(ApiError::from),
        };
        if commit_error.is_some() {
            let _ = connection.execute_batch("ROLLBACK");
        }
        crate::telemetry::record_commit("sqlite", size, started.elapsed());
        for reply in replies {
            reply(commit_error.clone());
        }
    }
}

fn state_params(s: &PlayerState) -> [rusqlite::types::Value; 13] {
    use rusqlite::types::Value::{Integer, Real};
    let v = StateValues::from(s);
    [
        Real(f64::from(v.rating)),
        Integer(v.games_played),
        Integer(v.win_streak),
        Integer(v.period_games),
        Integer(v.is_junior.into()),
        Integer(v.has_reached_2400.into()),
        Integer(v.league),
        Integer(v.protected_games),
        Integer(v.season_games),
        Integer(v.season_wins),
        Real(f64::from(v.peak_rating)),
        Integer(v.peak_league),
        Real(v.last_played),
    ]
}

/// Inserts a joining player; returns the row id.
fn insert_player(c: &Connection, ladder: i64, name: &str, s: &PlayerState) -> Result<i64, rusqlite::Error> {
    let placeholders: Vec<String> = (3..3 + STATE_COLUMNS.len()).map(|i| format!("?{i}")).collect();
    let sql = format!("INSERT INTO players (ladder_id, name, {}) VALUES (?1, ?2, {})", STATE_COLUMNS.join(", "), placeholders.join(", "));
    let head = [rusqlite::types::Value::Integer(ladder), rusqlite::types::Value::Text(name.to_owned())];
    c.prepare_cached(&sql)?.execute(rusqlite::params_from_iter(head.into_iter().chain(state_params(s))))?;
    Ok(c.last_insert_rowid())
}

fn write_player(c: &Connection, id: i64, s: &PlayerState) -> Result<(), rusqlite::Error> {
    let sets: Vec<String> = STATE_COLUMNS.iter().enumerate().map(|(i, column)| format!("{column} = ?{}", i + 2)).collect();
    let sql = format!("UPDATE players SET {} WHERE id = ?1", sets.join(", "));
    c.prepare_cached(&sql)?.execute(rusqlite::params_from_iter(std::iter::once(rusqlite::types::Value::Integer(id)).chain(state_params(s))))?;
    Ok(())
}

/// The ladder's zero-sum numbers (none for an ordinary ladder).
fn zero_sum(c: &Connection, ladder_id: i64, total: Option<f64>) -> Result<Option<ZeroSum>, ApiError> {
    let Some(total) = total else {
        return Ok(None);
    };
    let (offset, sum, players): (f64, String, i64) =
        c.prepare_cached("SELECT zero_sum_offset, zero_sum_sum, players FROM ladders WHERE id = ?1")?.query_row([ladder_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    ZeroSum::from_stored(total, offset, &sum, players).map(Some)
}

/// The ladder's zero-sum offset as reads apply it (0 unless its rules have a total), read
/// with the rows: reads never trust a cached ladder's rules, which a season end may change.
fn stored_offset(c: &Connection, ladder_id: i64) -> Result<f64, ApiError> {
    Ok(c.prepare_cached("SELECT zero_sum_offset FROM ladders WHERE id = ?1")?.query_row([ladder_id], |r| r.get(0))?)
}

/// Turns the rank triggers off for a bulk write of one ladder (in the writer's transaction,
/// so no reader sees it); [`recount`] turns them on again.
fn bulk_rank_writes(c: &Connection) -> Result<(), ApiError> {
    c.execute("UPDATE rank_control SET bulk = 1", [])?;
    Ok(())
}

/// Counts the ladder's rank buckets afresh and turns the triggers on again.
fn recount(c: &Connection, ladder_id: i64) -> Result<(), ApiError> {
    c.prepare_cached("DELETE FROM rank_buckets WHERE ladder_id = ?1")?.execute([ladder_id])?;
    c.prepare_cached(RECOUNT)?.execute([ladder_id])?;
    c.execute("UPDATE rank_control SET bulk = 0", [])?;
    Ok(())
}

/// An id already in the ladder's journal: `(seq, kind, inputs, results)`.
fn find_entry(c: &Connection, ladder_id: i64, id: &str) -> Result<Option<(i64, String, String, String)>, ApiError> {
    Ok(c.prepare_cached("SELECT seq, kind, inputs, results FROM journal WHERE ladder_id = ?1 AND match_id = ?2")?
        .query_row(params![ladder_id, id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .optional()?)
}

/// Whether a season end or decay of the ladder is under way. Its journal entry is not chained
/// yet, so journal pages say `pending` (only another process sees this: this one's reads of
/// the ladder wait at its gate).
fn event_under_way(c: &Connection, ladder_id: i64) -> Result<bool, ApiError> {
    Ok(c.prepare_cached("SELECT EXISTS (SELECT 1 FROM event_progress WHERE ladder_id = ?1)")?.query_row([ladder_id], |r| r.get(0))?)
}

/// Appends an entry; its `seq` (the row id: one writer, so seq follows commit order, except
/// that a season end applied in steps takes its `seq` first and is chained last; its ladder
/// is gated meanwhile, so within a ladder the order holds).
fn append_journal(c: &Connection, e: &NewEntry<'_>) -> Result<i64, ApiError> {
    c.prepare_cached("INSERT INTO journal (ladder_id, match_id, kind, inputs, time, joined, results, bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")?.execute(params![
        e.ladder,
        e.id,
        e.kind,
        e.inputs,
        e.time,
        e.joined,
        e.results,
        entry_bytes(e.inputs, &e.joined, &e.results)
    ])?;
    Ok(c.last_insert_rowid())
}
