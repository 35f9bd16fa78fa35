//! SQLite: the embedded default, for one server process. One writer thread owns the write
//! connection and commits the requests that arrived together in one transaction (group
//! commit: one `fsync` for all of them under `synchronous=FULL`), each inside its own
//! savepoint so that a refused match changes nothing; every reply waits for the commit.
//! Reads use their own connections (WAL lets them run beside the writer), each request in
//! one read transaction.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use ranking_elo::PlayerState;
use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::oneshot;

mod amend;
mod chain;

use self::amend::{history_lines_since, replay_entries, save_checkpoint};
use self::chain::{chain_everything, chain_ladder};
use super::ranks;
use super::rows::{player_row, StateValues, PLAYER_COLUMNS, STATE_COLUMNS};
use super::Role;
use super::{
    canonical_config, entry_bytes, journal_entry, page_length, replay_answer, stored_rules, BoardEntry, HistoryEntry, JournalPage, JournalRow, KeyListing, KeyRecord, Ladder,
    LadderStore, LadderSummary, NewEntry, NextTimes, PlayerWithRank, PutOutcome, ScheduleView, SeasonSummary, StandingView, StoreFuture, JOURNAL_COLUMNS,
};
use crate::error::ApiError;
use crate::events::{event_response, run_event, EventRequest, EventRules, LadderEvent};
use crate::model::{self, apply_match, joining_state, view, MatchRequest, PlayerRow, PlayerView, ZeroSum};

/// The history lines of a ladder's entries `?2 < seq <= ?3` (`elo-ladder verify`).
const HISTORY_LINES: &str = "SELECT e.seq, p.name, e.rating_before, e.rating_after FROM player_entries e JOIN players p ON p.id = e.player_id \
     WHERE e.seq > ?2 AND e.seq <= ?3 AND e.ladder_id = ?1 ORDER BY e.seq, p.name";

/// The migrations, in order.
const MIGRATIONS: [&str; 8] = [
    include_str!("../../../migrations/sqlite/0001_ladders.sql"),
    include_str!("../../../migrations/sqlite/0002_operations.sql"),
    include_str!("../../../migrations/sqlite/0003_rank_buckets.sql"),
    include_str!("../../../migrations/sqlite/0004_staged_events.sql"),
    include_str!("../../../migrations/sqlite/0005_amendments.sql"),
    include_str!("../../../migrations/sqlite/0006_chain_2.sql"),
    include_str!("../../../migrations/sqlite/0007_checkpoints.sql"),
    include_str!("../../../migrations/sqlite/0008_amend_progress.sql"),
];

/// The players above one (see [`ranks`]): the coarse buckets above, the fine buckets above
/// within its coarse bucket, and an index count within its fine bucket.
const PLAYERS_ABOVE: &str = "SELECT \
    (SELECT coalesce(sum(count), 0) FROM rank_buckets WHERE ladder_id = ?1 AND level = 1 AND bucket > ?2) \
  + (SELECT coalesce(sum(count), 0) FROM rank_buckets WHERE ladder_id = ?1 AND level = 0 AND bucket > ?3 AND bucket < ?4) \
  + (SELECT count(*) FROM players WHERE ladder_id = ?1 AND rating > ?5 AND rating < ?6) \
  + (SELECT count(*) FROM players WHERE ladder_id = ?1 AND rating = ?5 AND id < ?7)";

/// The rank buckets of ladder `?1` counted from its players: `(level, bucket, count)`, with
/// `floor(x)` of any sign written without SQLite's math functions (as the triggers do).
macro_rules! counted_buckets {
    () => {
        "SELECT 0 AS level, CAST(rating * 4 AS INTEGER) - (rating * 4 < CAST(rating * 4 AS INTEGER)) AS bucket, count(*) AS count \
         FROM players WHERE ladder_id = ?1 GROUP BY 2 \
         UNION ALL \
         SELECT 1, CAST(rating / 16 AS INTEGER) - (rating / 16 < CAST(rating / 16 AS INTEGER)), count(*) FROM players WHERE ladder_id = ?1 GROUP BY 2"
    };
}

/// A ladder's rank buckets counted afresh.
const RECOUNT: &str = concat!("INSERT INTO rank_buckets (ladder_id, level, bucket, count) SELECT ?1, level, bucket, count FROM (", counted_buckets!(), ")");

/// The buckets whose stored count is not the players' count.
const RANK_MISMATCHES: &str = concat!(
    "SELECT level, bucket, sum(stored), sum(counted) FROM ( \
       SELECT level, bucket, count AS stored, 0 AS counted FROM rank_buckets WHERE ladder_id = ?1 \
       UNION ALL SELECT level, bucket, 0, count FROM (",
    counted_buckets!(),
    ")) GROUP BY level, bucket HAVING sum(stored) <> sum(counted) ORDER BY level, bucket LIMIT 10"
);

/// The most requests one transaction commits together.
const MAX_BATCH: usize = 256;

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
    path: String,
    busy: Arc<AtomicUsize>,
    /// Players per step of a season end or decay (see [`SqliteStore::staged_event`]).
    event_step: usize,
    /// Each ladder's gate: every read and write of the ladder holds it shared; a season end
    /// or decay applied in steps holds it exclusively, so nothing sees it half done.
    gates: Mutex<HashMap<i64, Arc<tokio::sync::RwLock<()>>>>,
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

/// Removes a finished event's saved rows, `step` at a time (each its own writer job); what
/// is left when the server stops is removed when it starts.
async fn remove_saved_rows(jobs: mpsc::Sender<Job>, seq: i64, step: usize) {
    let limit = i64::try_from(step).unwrap_or(i64::MAX);
    loop {
        let (answer, removed) = oneshot::channel();
        let job: Job = Box::new(Pending {
            work: move |c: &Connection| {
                Ok(c.prepare_cached("DELETE FROM event_undo WHERE seq = ?1 AND player_id IN (SELECT player_id FROM event_undo WHERE seq = ?1 LIMIT ?2)")?
                    .execute(params![seq, limit])?)
            },
            answer,
        });
        if jobs.send(job).is_err() {
            return;
        }
        match removed.await {
            Ok(Ok(0)) | Err(_) => return,
            Ok(Ok(_)) => {}
            Ok(Err(_)) => {
                tracing::warn!(seq, "the saved rows of a finished season end or decay were not removed (the server removes them when it starts)");
                return;
            }
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
        if serving.is_some() {
            writer.execute_batch("BEGIN IMMEDIATE").map_err(describe)?;
            // Events a stopped server left half applied are undone before anything is read or
            // chained (their journal entries were never chained).
            // Amendments a stopped server left unfinished are finished (they are chained as
            // they are journaled).
            let repaired = undo_unfinished_events(&writer, None)
                .and_then(|undone| chain_everything(&writer).map(|()| undone))
                .and_then(|undone| amend::finish_unfinished(&writer, None).map(|finished| (undone, finished)));
            match repaired {
                Ok((undone, finished)) => {
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
            path: path.to_owned(),
            busy,
            event_step,
            gates: Mutex::new(HashMap::new()),
            broken: Arc::new(Mutex::new(HashSet::new())),
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

    /// A season end or decay: in one writer transaction for a ladder of at most
    /// [`Self::event_step`] players, else in steps ([`Self::staged_event`]).
    async fn event(&self, ladder: Arc<Ladder>, request: EventRequest) -> Result<String, ApiError> {
        let id = ladder.id;
        let players: i64 = self.read(move |c| Ok(c.prepare_cached("SELECT players FROM ladders WHERE id = ?1")?.query_row([id], |r| r.get(0))?)).await?;
        if usize::try_from(players).unwrap_or(usize::MAX) <= self.event_step {
            return self.write_ladder(id, move |c| ladder_event(c, &ladder, &request)).await;
        }
        self.staged_event(ladder, request).await
    }

    /// A season end or decay of a large ladder, in steps of [`Self::event_step`] players,
    /// each its own writer transaction: other ladders' writes go on between them, so none
    /// waits for more than one step. The ladder's own reads and writes wait at its gate,
    /// held exclusively throughout, and see it before or after, never half done.
    ///
    /// The ladder is read and run through the engine on a reader connection; then a first
    /// step writes the journal entry (not chained yet) and an `event_progress` row, each step
    /// saves the rows it changes in `event_undo` and writes their new states, history lines
    /// and standings, and the last step writes the ladder's own row and chains the entry. A
    /// step that fails, or a server that stops, leaves the `event_progress` row: the event is
    /// undone (at once, or when the server starts again), and a retry with the same id
    /// applies it afresh.
    async fn staged_event(&self, ladder: Arc<Ladder>, request: EventRequest) -> Result<String, ApiError> {
        let exclusive = self.gate(ladder.id)?.write_owned().await;
        self.check_open(ladder.id)?;
        let prepared = {
            let (ladder, request) = (Arc::clone(&ladder), request.clone());
            self.read(move |c| prepare_event(c, &ladder, &request)).await?
        };
        let event: Arc<PreparedEvent> = match prepared {
            Prepared::Answer(answer) => return Ok(answer),
            Prepared::Event(event) => Arc::from(event),
        };
        let ladder_id = ladder.id;
        let jobs = self.jobs.lock().map_err(|_| ApiError::internal("sqlite writer lock poisoned"))?.clone();
        // From here until it is disarmed, leaving this function (an error, or the future
        // dropped) undoes the event before the gate opens.
        let mut unfinished = Unfinished { jobs: jobs.clone(), ladder_id, staged: Staged::Event, gate: Some(exclusive), broken: Arc::clone(&self.broken) };
        let seq = {
            let (event, id) = (Arc::clone(&event), request.id.clone());
            self.write(move |c| {
                let seq = append_journal(c, &event_entry(ladder_id, &id, &event))?;
                c.execute("INSERT INTO event_progress (ladder_id, seq, season) VALUES (?1, ?2, ?3)", params![ladder_id, seq, event.season])?;
                Ok(seq)
            })
            .await?
        };
        let outcome = &event.outcome;
        let step = self.event_step;
        let steps = outcome.writes.len().max(outcome.history.len()).max(outcome.standings.len()).div_ceil(step);
        let season_end = request.event == LadderEvent::SeasonEnd;
        for k in 0..steps {
            let event = Arc::clone(&event);
            let range = move |len: usize| (k * step).min(len)..((k + 1) * step).min(len);
            self.write(move |c| {
                let outcome = &event.outcome;
                let save = format!("INSERT INTO event_undo (seq, player_id, {columns}) SELECT ?1, id, {columns} FROM players WHERE id = ?2", columns = STATE_COLUMNS.join(", "));
                let mut save = c.prepare_cached(&save)?;
                for (id, state) in &outcome.writes[range(outcome.writes.len())] {
                    save.execute(params![seq, id])?;
                    write_player(c, *id, state)?;
                }
                write_event_history(c, ladder_id, seq, &outcome.history[range(outcome.history.len())])?;
                if season_end {
                    write_standings(c, ladder_id, event.season, &outcome.standings[range(outcome.standings.len())])?;
                }
                Ok(())
            })
            .await?;
        }
        {
            let event = Arc::clone(&event);
            let kind = request.event;
            self.write(move |c| {
                finish_event(c, ladder_id, seq, kind, &event)?;
                chain_ladder(c, ladder_id)?;
                c.execute("DELETE FROM event_progress WHERE ladder_id = ?1", [ladder_id])?;
                Ok(())
            })
            .await?;
        }
        // Done: the gate opens, and the saved rows are removed in steps behind the answer.
        drop(unfinished.gate.take());
        tokio::spawn(remove_saved_rows(jobs, seq, step));
        Ok(event_response(seq, &request.id, &event.outcome.results))
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
    fn put_ladder<'a>(&'a self, name: &'a str, config_json: &'a str) -> StoreFuture<'a, PutOutcome> {
        let (name, config_json) = (name.to_owned(), config_json.to_owned());
        Box::pin(self.write(move |c| {
            let existing: Option<String> = c.query_row("SELECT config FROM ladders WHERE name = ?1", [&name], |r| r.get(0)).optional()?;
            match existing {
                Some(stored) if canonical_config(&stored_rules(&stored)?) == config_json => Ok(PutOutcome::Same),
                Some(_) => Ok(PutOutcome::Differs),
                None => {
                    c.execute("INSERT INTO ladders (name, config, initial_config, created_at) VALUES (?1, ?2, ?2, ?3)", params![name, config_json, model::now()])?;
                    Ok(PutOutcome::Created)
                }
            }
        }))
    }

    fn ladder<'a>(&'a self, name: &'a str) -> StoreFuture<'a, Option<Ladder>> {
        let name = name.to_owned();
        Box::pin(self.read(move |c| {
            let row: Option<(i64, String, i64, Option<String>)> = c
                .prepare_cached("SELECT id, config, season, initial_config FROM ladders WHERE name = ?1")?
                .query_row([&name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .optional()?;
            row.map(|(id, config_json, season, initial)| Ladder::from_row(id, name, config_json, season, initial)).transpose()
        }))
    }

    fn report(&self, ladder: Arc<Ladder>, request: MatchRequest) -> StoreFuture<'_, String> {
        Box::pin(self.write_ladder(ladder.id, move |c| report(c, &ladder, &request)))
    }

    fn player<'a>(&'a self, ladder: &'a Ladder, name: &'a str) -> StoreFuture<'a, Option<PlayerWithRank>> {
        let (ladder_id, name) = (ladder.id, name.to_owned());
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let offset = stored_offset(c, ladder_id)?;
            let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1 AND name = ?2");
            let mut statement = c.prepare_cached(&sql)?;
            let mut rows = statement.query(params![ladder_id, name])?;
            let Some(row) = rows.next()? else {
                return Ok(None);
            };
            let row = player_row(row)?;
            let better = players_above(c, ladder_id, row.state.rating, row.id)?;
            Ok(Some(PlayerWithRank { view: view(row, offset), rank: better + 1 }))
        }))
    }

    fn leaderboard<'a>(&'a self, ladder: &'a Ladder, limit: i64, offset: i64) -> StoreFuture<'a, Vec<BoardEntry>> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let zero_sum_offset = stored_offset(c, ladder_id)?;
            // The top from the index; a deeper page from the bucket holding its first line, so
            // the index skips at most one quarter point's players (see [`ranks`]).
            let (top, skip) = if offset == 0 {
                (f64::INFINITY, 0)
            } else {
                match locate(c, ladder_id, offset)? {
                    Some((fine, before)) => (f64::from(ranks::fine_top(fine)), offset - before),
                    None => return Ok(Vec::new()),
                }
            };
            let mut statement = c.prepare_cached("SELECT name, rating, league FROM players WHERE ladder_id = ?1 AND rating < ?4 ORDER BY rating DESC, id LIMIT ?2 OFFSET ?3")?;
            let rows = statement.query_map(params![ladder_id, limit, skip, top], |r| Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?, r.get::<_, i64>(2)?)))?;
            let mut entries = Vec::new();
            for (i, row) in rows.enumerate() {
                let (player, rating, league) = row?;
                #[allow(clippy::cast_possible_truncation)]
                let rating = ranking_elo::pool::effective_rating(rating as f32, zero_sum_offset);
                entries.push(BoardEntry { rank: offset + i as i64 + 1, player, rating, league: u32::try_from(league).unwrap_or(0) });
            }
            Ok(entries)
        }))
    }

    fn journal<'a>(&'a self, ladder: &'a Ladder, after: i64, limit: i64, kind: Option<&'a str>) -> StoreFuture<'a, JournalPage> {
        let id = ladder.id;
        let kind = kind.map(str::to_owned);
        Box::pin(self.read_ladder(id, move |c| {
            // The sizes first (one more than asked, to know whether more exist), then only
            // the entries that fit on the page.
            let sizes: Vec<(i64, i64)> = match &kind {
                None => c
                    .prepare_cached("SELECT seq, bytes FROM journal WHERE ladder_id = ?1 AND seq > ?2 AND hash IS NOT NULL ORDER BY seq LIMIT ?3")?
                    .query_map(params![id, after, limit + 1], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()?,
                Some(kind) => c
                    .prepare_cached("SELECT seq, bytes FROM journal WHERE ladder_id = ?1 AND kind = ?4 AND seq > ?2 AND hash IS NOT NULL ORDER BY seq LIMIT ?3")?
                    .query_map(params![id, after, limit + 1, kind], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()?,
            };
            let pending = event_under_way(c, id)?;
            let amendments: i64 = c.prepare_cached("SELECT amendments FROM ladders WHERE id = ?1")?.query_row([id], |r| r.get(0))?;
            let asked = sizes.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
            let fits = page_length(&sizes[..asked].iter().map(|(_, b)| *b).collect::<Vec<_>>());
            let Some(&(last, _)) = sizes[..fits].last() else {
                return Ok(JournalPage { entries: Vec::new(), pending, more: false, amendments: Some(amendments) });
            };
            let sql =
                format!("SELECT {JOURNAL_COLUMNS} FROM journal WHERE ladder_id = ?1 AND seq > ?2 AND seq <= ?3 AND (?4 IS NULL OR kind = ?4) AND hash IS NOT NULL ORDER BY seq");
            let mut statement = c.prepare_cached(&sql)?;
            let rows = statement.query_map(params![id, after, last, kind], |r| {
                Ok(JournalRow {
                    seq: r.get(0)?,
                    kind: r.get(1)?,
                    id: r.get(2)?,
                    time: r.get(3)?,
                    inputs: r.get(4)?,
                    joined: r.get(5)?,
                    results: r.get(6)?,
                    annulled: r.get(7)?,
                    annul_reason: r.get(8)?,
                    corrected: r.get(9)?,
                    hash: r.get::<_, Option<Vec<u8>>>(10)?.unwrap_or_default(),
                    keys: r.get(11)?,
                })
            })?;
            let mut entries = Vec::with_capacity(fits);
            for row in rows {
                entries.push(journal_entry(row?)?);
            }
            Ok(JournalPage { entries, pending, more: sizes.len() > fits, amendments: Some(amendments) })
        }))
    }

    fn journal_newest<'a>(&'a self, ladder: &'a Ladder, before: i64, limit: i64, kind: Option<&'a str>) -> StoreFuture<'a, JournalPage> {
        let id = ladder.id;
        let kind = kind.map(str::to_owned);
        Box::pin(self.read_ladder(id, move |c| {
            // As `journal`, downwards: the sizes of the newest entries below `before` (one
            // more than asked), then the entries that fit, between the newest and the oldest
            // of them (an entry committed in between is above that range).
            let sizes: Vec<(i64, i64)> = match &kind {
                None => c
                    .prepare_cached("SELECT seq, bytes FROM journal WHERE ladder_id = ?1 AND seq < ?2 AND hash IS NOT NULL ORDER BY seq DESC LIMIT ?3")?
                    .query_map(params![id, before, limit + 1], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()?,
                Some(kind) => c
                    .prepare_cached("SELECT seq, bytes FROM journal WHERE ladder_id = ?1 AND kind = ?4 AND seq < ?2 AND hash IS NOT NULL ORDER BY seq DESC LIMIT ?3")?
                    .query_map(params![id, before, limit + 1, kind], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()?,
            };
            let pending = event_under_way(c, id)?;
            let asked = sizes.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
            let fits = page_length(&sizes[..asked].iter().map(|(_, b)| *b).collect::<Vec<_>>());
            let (Some(&(newest, _)), Some(&(oldest, _))) = (sizes.first(), sizes[..fits].last()) else {
                return Ok(JournalPage { entries: Vec::new(), pending, more: false, amendments: None });
            };
            let sql = format!(
                "SELECT {JOURNAL_COLUMNS} FROM journal WHERE ladder_id = ?1 AND seq >= ?2 AND seq <= ?3 AND (?4 IS NULL OR kind = ?4) AND hash IS NOT NULL ORDER BY seq DESC"
            );
            let mut statement = c.prepare_cached(&sql)?;
            let rows = statement.query_map(params![id, oldest, newest, kind], |r| {
                Ok(JournalRow {
                    seq: r.get(0)?,
                    kind: r.get(1)?,
                    id: r.get(2)?,
                    time: r.get(3)?,
                    inputs: r.get(4)?,
                    joined: r.get(5)?,
                    results: r.get(6)?,
                    annulled: r.get(7)?,
                    annul_reason: r.get(8)?,
                    corrected: r.get(9)?,
                    hash: r.get::<_, Option<Vec<u8>>>(10)?.unwrap_or_default(),
                    keys: r.get(11)?,
                })
            })?;
            let mut entries = Vec::with_capacity(fits);
            for row in rows {
                entries.push(journal_entry(row?)?);
            }
            Ok(JournalPage { entries, pending, more: sizes.len() > fits, amendments: None })
        }))
    }

    fn ladder_event(&self, ladder: Arc<Ladder>, request: EventRequest) -> StoreFuture<'_, String> {
        Box::pin(self.event(ladder, request))
    }

    fn ladders<'a>(&'a self, only: Option<&'a str>) -> StoreFuture<'a, Vec<LadderSummary>> {
        let only = only.map(str::to_owned);
        Box::pin(self.read(move |c| {
            let mut statement = c.prepare_cached(
                "SELECT l.name, l.players, l.season, coalesce((SELECT j.seq FROM journal j WHERE j.ladder_id = l.id AND j.hash IS NOT NULL ORDER BY j.seq DESC LIMIT 1), 0), \
                 l.schedule_season_end, l.schedule_decay, l.next_season_end, l.next_decay, l.next_config FROM ladders l \
                 WHERE ?1 IS NULL OR l.name = ?1 ORDER BY l.name",
            )?;
            let rows = statement.query_map(params![only], |r| {
                Ok(LadderSummary {
                    name: r.get(0)?,
                    players: r.get(1)?,
                    season: r.get(2)?,
                    last_seq: r.get(3)?,
                    schedule: ScheduleView { season_end: r.get(4)?, decay: r.get(5)? },
                    next: NextTimes { season_end: r.get(6)?, decay: r.get(7)? },
                    next_config_json: r.get(8)?,
                })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        }))
    }

    fn history<'a>(&'a self, ladder: &'a Ladder, player: &'a str, before: Option<i64>, limit: i64) -> StoreFuture<'a, Option<Vec<HistoryEntry>>> {
        let (ladder_id, player) = (ladder.id, player.to_owned());
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let id: Option<i64> = c.prepare_cached("SELECT id FROM players WHERE ladder_id = ?1 AND name = ?2")?.query_row(params![ladder_id, player], |r| r.get(0)).optional()?;
            let Some(id) = id else {
                return Ok(None);
            };
            let mut statement = c.prepare_cached(
                "SELECT e.seq, j.kind, j.match_id, j.time, e.rating_before, e.rating_after, j.annulled FROM player_entries e JOIN journal j ON j.seq = e.seq \
                 WHERE e.player_id = ?1 AND e.seq < ?2 ORDER BY e.seq DESC LIMIT ?3",
            )?;
            #[allow(clippy::cast_possible_truncation)]
            let rows = statement.query_map(params![id, before.unwrap_or(i64::MAX), limit], |r| {
                Ok(HistoryEntry {
                    seq: r.get(0)?,
                    kind: r.get(1)?,
                    id: r.get(2)?,
                    time: r.get(3)?,
                    rating_before: r.get::<_, f64>(4)? as f32,
                    rating_after: r.get::<_, f64>(5)? as f32,
                    annulled: r.get(6)?,
                })
            })?;
            Ok(Some(rows.collect::<Result<_, _>>()?))
        }))
    }

    fn around<'a>(&'a self, ladder: &'a Ladder, player: &'a str, limit: i64) -> StoreFuture<'a, Option<Vec<BoardEntry>>> {
        let (ladder_id, player) = (ladder.id, player.to_owned());
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let found: Option<(i64, f64)> = c
                .prepare_cached("SELECT id, rating FROM players WHERE ladder_id = ?1 AND name = ?2")?
                .query_row(params![ladder_id, player], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let Some((id, rating)) = found else {
                return Ok(None);
            };
            let offset = stored_offset(c, ladder_id)?;
            #[allow(clippy::cast_possible_truncation)]
            let better = players_above(c, ladder_id, rating as f32, id)?;
            let above_wanted = (limit - 1) / 2;
            let line = |r: &rusqlite::Row<'_>| -> Result<(String, f64, i64), rusqlite::Error> { Ok((r.get(0)?, r.get(1)?, r.get(2)?)) };
            // The players just above, nearest first: the same rating with a lower id, then higher ratings.
            let mut above: Vec<(String, f64, i64)> = c
                .prepare_cached("SELECT name, rating, league FROM players WHERE ladder_id = ?1 AND rating = ?2 AND id < ?3 ORDER BY id DESC LIMIT ?4")?
                .query_map(params![ladder_id, rating, id, above_wanted], line)?
                .collect::<Result<_, _>>()?;
            let more = above_wanted - i64::try_from(above.len()).unwrap_or(0);
            if more > 0 {
                let higher: Vec<(String, f64, i64)> = c
                    .prepare_cached("SELECT name, rating, league FROM players WHERE ladder_id = ?1 AND rating > ?2 ORDER BY rating ASC, id DESC LIMIT ?3")?
                    .query_map(params![ladder_id, rating, more], line)?
                    .collect::<Result<_, _>>()?;
                above.extend(higher);
            }
            above.reverse();
            let below_wanted = limit - above_wanted;
            // The player and those just below: the same rating with a higher id, then lower ratings.
            let mut below: Vec<(String, f64, i64)> = c
                .prepare_cached("SELECT name, rating, league FROM players WHERE ladder_id = ?1 AND rating = ?2 AND id >= ?3 ORDER BY id LIMIT ?4")?
                .query_map(params![ladder_id, rating, id, below_wanted], line)?
                .collect::<Result<_, _>>()?;
            let more = below_wanted - i64::try_from(below.len()).unwrap_or(0);
            if more > 0 {
                let lower: Vec<(String, f64, i64)> = c
                    .prepare_cached("SELECT name, rating, league FROM players WHERE ladder_id = ?1 AND rating < ?2 ORDER BY rating DESC, id LIMIT ?3")?
                    .query_map(params![ladder_id, rating, more], line)?
                    .collect::<Result<_, _>>()?;
                below.extend(lower);
            }
            let first_rank = better + 1 - i64::try_from(above.len()).unwrap_or(0);
            #[allow(clippy::cast_possible_truncation)]
            let entries = above
                .into_iter()
                .chain(below)
                .enumerate()
                .map(|(i, (player, rating, league))| BoardEntry {
                    rank: first_rank + i as i64,
                    player,
                    rating: ranking_elo::pool::effective_rating(rating as f32, offset),
                    league: u32::try_from(league).unwrap_or(0),
                })
                .collect();
            Ok(Some(entries))
        }))
    }

    fn set_next_rules<'a>(&'a self, ladder: &'a Ladder, config_json: &'a str) -> StoreFuture<'a, ()> {
        let (id, config_json) = (ladder.id, config_json.to_owned());
        // After a season end under way, which brings in the next rules it found.
        Box::pin(self.write_ladder(id, move |c| {
            c.execute("UPDATE ladders SET next_config = ?2 WHERE id = ?1", params![id, config_json])?;
            Ok(())
        }))
    }

    fn set_schedule<'a>(&'a self, ladder: &'a Ladder, schedule: &'a ScheduleView, next: NextTimes) -> StoreFuture<'a, ()> {
        let (id, schedule) = (ladder.id, schedule.clone());
        Box::pin(self.write(move |c| {
            c.execute(
                "UPDATE ladders SET schedule_season_end = ?2, schedule_decay = ?3, next_season_end = ?4, next_decay = ?5 WHERE id = ?1",
                params![id, schedule.season_end, schedule.decay, next.season_end, next.decay],
            )?;
            Ok(())
        }))
    }

    fn due<'a>(&'a self, now: f64) -> StoreFuture<'a, Vec<(String, LadderEvent, f64)>> {
        Box::pin(self.read(move |c| {
            let mut statement = c.prepare_cached("SELECT name, next_season_end, next_decay FROM ladders WHERE next_season_end <= ?1 OR next_decay <= ?1")?;
            let rows = statement.query_map([now], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<f64>>(1)?, r.get::<_, Option<f64>>(2)?)))?;
            let mut due = Vec::new();
            for row in rows {
                let (name, season_end, decay) = row?;
                if let Some(at) = season_end.filter(|at| *at <= now) {
                    due.push((name.clone(), LadderEvent::SeasonEnd, at));
                }
                if let Some(at) = decay.filter(|at| *at <= now) {
                    due.push((name, LadderEvent::Decay, at));
                }
            }
            Ok(due)
        }))
    }

    fn advance<'a>(&'a self, ladder: &'a Ladder, event: LadderEvent, from: f64, to: Option<f64>) -> StoreFuture<'a, bool> {
        let id = ladder.id;
        Box::pin(self.write(move |c| {
            let sql = match event {
                LadderEvent::SeasonEnd => "UPDATE ladders SET next_season_end = ?3 WHERE id = ?1 AND next_season_end = ?2",
                LadderEvent::Decay => "UPDATE ladders SET next_decay = ?3 WHERE id = ?1 AND next_decay = ?2",
            };
            Ok(c.execute(sql, params![id, from, to])? == 1)
        }))
    }

    fn erase<'a>(&'a self, ladder: Arc<Ladder>, player: &'a str) -> StoreFuture<'a, Option<String>> {
        let player = player.to_owned();
        let erased = self.write_ladder(ladder.id, move |c| amend::erase(c, &ladder, &player));
        Box::pin(async move {
            let pseudonym = erased.await?;
            // Committed: now out of the file's slack and the write-ahead log too (a failure
            // is logged, not answered: the erasure holds, and the next erasure scrubs again).
            if pseudonym.is_some() {
                let path = self.path.clone();
                let done = tokio::task::spawn_blocking(move || scrub(&path)).await.map_err(|e| ApiError::internal(e.to_string())).and_then(|r| r);
                if let Err(error) = done {
                    tracing::warn!(error = %error, "after an erasure: the file could not be scrubbed; old copies of the name may remain until the next erasure");
                }
            }
            Ok(pseudonym)
        })
    }

    fn rank_mismatches<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<(i64, i64, i64, i64)>> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let mut statement = c.prepare(RANK_MISMATCHES)?;
            let rows = statement.query_map([ladder_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            Ok(rows.collect::<Result<_, _>>()?)
        }))
    }

    fn rebuild_base<'a>(&'a self, ladder: &'a Ladder, limit: i64) -> StoreFuture<'a, super::RebuildBase> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let generation: i64 = c.prepare_cached("SELECT amendments FROM ladders WHERE id = ?1")?.query_row([ladder_id], |r| r.get(0))?;
            let latest: Option<(i64, String)> = c
                .prepare_cached("SELECT seq, state FROM rebuild_checkpoints WHERE ladder_id = ?1 ORDER BY seq DESC LIMIT 1")?
                .query_row([ladder_id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let after = latest.as_ref().map_or(0, |(seq, _)| *seq);
            let entries_after: i64 = c
                .prepare_cached("SELECT count(*) FROM (SELECT 1 FROM journal WHERE ladder_id = ?1 AND seq > ?2 AND hash IS NOT NULL LIMIT ?3)")?
                .query_row(params![ladder_id, after, limit], |r| r.get(0))?;
            Ok(super::RebuildBase { state: latest.map(|(_, state)| state), seq: after, generation, entries_after })
        }))
    }

    fn replay_page<'a>(&'a self, ladder: &'a Ladder, after: i64, limit: i64) -> StoreFuture<'a, Vec<crate::replay::StoredEntry>> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| replay_entries(c, ladder_id, after, limit, true)))
    }

    fn keep_checkpoint<'a>(&'a self, ladder: &'a Ladder, seq: i64, state: &'a str, generation: i64) -> StoreFuture<'a, bool> {
        let (ladder_id, state) = (ladder.id, state.to_owned());
        Box::pin(self.write_ladder(ladder_id, move |c| {
            let now: i64 = c.prepare_cached("SELECT amendments FROM ladders WHERE id = ?1")?.query_row([ladder_id], |r| r.get(0))?;
            if now != generation {
                return Ok(false);
            }
            save_checkpoint(c, ladder_id, seq, &state)?;
            Ok(true)
        }))
    }

    fn history_kept_since<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, f64> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| history_lines_since(c, ladder_id)))
    }

    fn history_lines<'a>(&'a self, ladder: &'a Ladder, after: i64, through: i64) -> StoreFuture<'a, Vec<super::HistoryLine>> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let mut statement = c.prepare_cached(HISTORY_LINES)?;
            let lines = statement.query_map(params![ladder_id, after, through], |r| {
                Ok(super::HistoryLine { seq: r.get(0)?, player: r.get(1)?, before: r.get::<_, f64>(2)? as f32, after: r.get::<_, f64>(3)? as f32 })
            })?;
            Ok(lines.collect::<Result<_, _>>()?)
        }))
    }

    fn amendment_generation<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, (i64, bool)> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| {
            Ok(c.prepare_cached(
                "SELECT amendments, EXISTS (SELECT 1 FROM event_progress WHERE ladder_id = ?1) OR EXISTS (SELECT 1 FROM amend_progress WHERE ladder_id = ?1) FROM ladders WHERE id = ?1",
            )?
            .query_row([ladder_id], |r| Ok((r.get(0)?, r.get(1)?)))?)
        }))
    }

    fn all_players<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<PlayerView>> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let offset = stored_offset(c, ladder_id)?;
            let mut statement = c.prepare(&format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1 ORDER BY id"))?;
            let mut rows = statement.query([ladder_id])?;
            let mut players = Vec::new();
            while let Some(row) = rows.next()? {
                players.push(view(player_row(row)?, offset));
            }
            Ok(players)
        }))
    }

    fn amend(&self, ladder: Arc<Ladder>, request: crate::amend::Request) -> StoreFuture<'_, String> {
        Box::pin(self.staged_amend(ladder, request))
    }

    fn seasons<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<SeasonSummary>> {
        let id = ladder.id;
        Box::pin(self.read_ladder(id, move |c| {
            let mut statement = c.prepare_cached("SELECT season, ended, players, seq FROM seasons WHERE ladder_id = ?1 ORDER BY season")?;
            let rows = statement.query_map([id], |r| Ok(SeasonSummary { season: r.get(0)?, ended: r.get(1)?, players: r.get(2)?, seq: r.get(3)? }))?;
            Ok(rows.collect::<Result<_, _>>()?)
        }))
    }

    fn season_standings<'a>(&'a self, ladder: &'a Ladder, season: i64, limit: i64, offset: i64) -> StoreFuture<'a, Option<Vec<StandingView>>> {
        let id = ladder.id;
        Box::pin(self.read_ladder(id, move |c| {
            let ended: Option<i64> =
                c.prepare_cached("SELECT season FROM seasons WHERE ladder_id = ?1 AND season = ?2")?.query_row(params![id, season], |r| r.get(0)).optional()?;
            if ended.is_none() {
                return Ok(None);
            }
            let mut statement = c.prepare_cached(
                "SELECT s.rank, p.name, s.rating, s.peak_rating, s.league, s.peak_league, s.games, s.wins FROM season_records s JOIN players p ON p.id = s.player_id \
                 WHERE s.ladder_id = ?1 AND s.season = ?2 AND s.rank > ?3 ORDER BY s.rank LIMIT ?4",
            )?;
            let count = |v: i64| u32::try_from(v).unwrap_or(u32::MAX);
            #[allow(clippy::cast_possible_truncation)]
            let rows = statement.query_map(params![id, season, offset, limit], |r| {
                Ok(StandingView {
                    rank: r.get(0)?,
                    player: r.get(1)?,
                    rating: r.get::<_, f64>(2)? as f32,
                    peak_rating: r.get::<_, f64>(3)? as f32,
                    league: count(r.get(4)?),
                    peak_league: count(r.get(5)?),
                    games: count(r.get(6)?),
                    wins: count(r.get(7)?),
                })
            })?;
            Ok(Some(rows.collect::<Result<_, _>>()?))
        }))
    }

    fn key<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<KeyRecord>> {
        let id = id.to_owned();
        Box::pin(self.read(move |c| {
            let row = c
                .prepare_cached("SELECT hash, scope, ladder, revoked_at FROM api_keys WHERE id = ?1")?
                .query_row([&id], |r| Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?, r.get::<_, Option<f64>>(3)?)))
                .optional()?;
            Ok(row.and_then(|(hash, scope, ladder, revoked)| Some(KeyRecord { hash: hash.try_into().ok()?, scope, ladder, revoked: revoked.is_some() })))
        }))
    }

    fn create_key<'a>(&'a self, id: &'a str, hash: &'a [u8; 32], scope: &'a str, ladder: Option<&'a str>) -> StoreFuture<'a, ()> {
        let (id, hash, scope, ladder) = (id.to_owned(), hash.to_vec(), scope.to_owned(), ladder.map(str::to_owned));
        Box::pin(self.write(move |c| {
            c.execute("INSERT INTO api_keys (id, hash, scope, ladder, created_at) VALUES (?1, ?2, ?3, ?4, ?5)", params![id, hash, scope, ladder, model::now()])?;
            Ok(())
        }))
    }

    fn revoke_key<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let id = id.to_owned();
        Box::pin(self.write(move |c| Ok(c.execute("UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL", params![id, model::now()])? > 0)))
    }

    fn list_keys(&self) -> StoreFuture<'_, Vec<KeyListing>> {
        Box::pin(self.read(|c| {
            let mut statement = c.prepare("SELECT id, scope, ladder, created_at, revoked_at FROM api_keys ORDER BY created_at, id")?;
            let rows = statement.query_map([], |r| Ok(KeyListing { id: r.get(0)?, scope: r.get(1)?, ladder: r.get(2)?, created: r.get(3)?, revoked: r.get(4)? }))?;
            Ok(rows.collect::<Result<_, _>>()?)
        }))
    }

    fn lease_tokens<'a>(&'a self, _key: &'a str, _rate: f64, _burst: f64, _want: u32) -> Option<StoreFuture<'a, u32>> {
        None
    }

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

/// How many players of the ladder rank above the player with stored `rating` and row `id`.
fn players_above(c: &Connection, ladder_id: i64, rating: f32, id: i64) -> Result<i64, ApiError> {
    let (fine, coarse) = ranks::buckets(rating);
    Ok(c.prepare_cached(PLAYERS_ABOVE)?
        .query_row(params![ladder_id, coarse, fine, (coarse + 1) * ranks::FINE_PER_COARSE, f64::from(rating), f64::from(ranks::fine_top(fine)), id], |r| r.get(0))?)
}

/// The fine bucket holding 0-based position `position` of the ladder's board and the players
/// above it, walking the coarse counts and then the fine ones within (`None` past the end).
fn locate(c: &Connection, ladder_id: i64, position: i64) -> Result<Option<(i64, i64)>, ApiError> {
    let coarse: Vec<(i64, i64)> = c
        .prepare_cached("SELECT bucket, count FROM rank_buckets WHERE ladder_id = ?1 AND level = 1 AND count <> 0 ORDER BY bucket DESC")?
        .query_map([ladder_id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let Some((coarse, before)) = ranks::walk(coarse, position, 0) else {
        return Ok(None);
    };
    let fine: Vec<(i64, i64)> = c
        .prepare_cached("SELECT bucket, count FROM rank_buckets WHERE ladder_id = ?1 AND level = 0 AND bucket >= ?2 AND bucket < ?3 AND count <> 0 ORDER BY bucket DESC")?
        .query_map(params![ladder_id, coarse * ranks::FINE_PER_COARSE, (coarse + 1) * ranks::FINE_PER_COARSE], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(ranks::walk(fine, position, before))
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

/// One match in the writer's transaction (see the module documentation).
fn report(c: &Connection, ladder: &Ladder, request: &MatchRequest) -> Result<String, ApiError> {
    // The rules of the ladder's season now (a season end may have brought in others since
    // this server cached them).
    let (season, config): (i64, String) = c.prepare_cached("SELECT season, config FROM ladders WHERE id = ?1")?.query_row([ladder.id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let current;
    let ladder = if season == ladder.season {
        ladder
    } else {
        current = Ladder { rules: stored_rules(&config)?, config_json: config, season, ..ladder.clone() };
        &current
    };
    let inputs = request.inputs_json();
    let kind = request.game.kind();
    if let Some((seq, stored_kind, stored_inputs, results)) = find_entry(c, ladder.id, &request.id)? {
        return replay_answer(&request.id, &stored_kind, &stored_inputs, kind, &inputs, || model::match_response(seq, &results));
    }
    let now = model::now();
    let mut zero_sum = zero_sum(c, ladder.id, ladder.zero_sum_total())?;
    let mut names: Vec<&str> = request.players();
    names.sort_unstable();
    let mut rows = HashMap::with_capacity(names.len());
    let mut joined = Vec::new();
    let select = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1 AND name = ?2");
    for name in names {
        let found = {
            let mut statement = c.prepare_cached(&select)?;
            let mut result = statement.query(params![ladder.id, name])?;
            match result.next()? {
                Some(row) => Some(player_row(row)?),
                None => None,
            }
        };
        let row = match found {
            Some(row) => row,
            None => {
                let state = joining_state(&ladder.rules, zero_sum.as_mut(), now);
                let id = insert_player(c, ladder.id, name, &state)?;
                joined.push(name.to_owned());
                PlayerRow { id, name: name.to_owned(), state }
            }
        };
        rows.insert(row.name.clone(), row);
    }
    let applied = apply_match(&ladder.rules, zero_sum.as_mut(), &rows, request, now)?;
    for (id, state) in &applied.writes {
        write_player(c, *id, state)?;
    }
    if let Some(z) = zero_sum {
        c.prepare_cached("UPDATE ladders SET zero_sum_offset = ?2, zero_sum_sum = ?3, players = ?4 WHERE id = ?1")?.execute(params![
            ladder.id,
            z.offset,
            z.sum_text(),
            i64::try_from(z.players).unwrap_or(i64::MAX)
        ])?;
    }
    if zero_sum.is_none() && !joined.is_empty() {
        c.prepare_cached("UPDATE ladders SET players = players + ?2 WHERE id = ?1")?.execute(params![ladder.id, i64::try_from(joined.len()).unwrap_or(i64::MAX)])?;
    }
    let results = model::results_json(&applied.players);
    let joined = serde_json::to_string(&joined).unwrap_or_else(|_| "[]".into());
    let seq = append_journal(c, &NewEntry { ladder: ladder.id, id: &request.id, kind, inputs: &inputs, time: now, joined, results: results.clone() })?;
    chain_ladder(c, ladder.id)?;
    let mut history = c.prepare_cached("INSERT INTO player_entries (player_id, seq, ladder_id, rating_before, rating_after) VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for ((view, before), name) in applied.players.iter().zip(&applied.before).zip(request.players()) {
        history.execute(params![rows[name].id, seq, ladder.id, f64::from(*before), f64::from(view.state.rating)])?;
    }
    crate::telemetry::record_matches(1);
    Ok(model::match_response(seq, &results))
}

/// A season end or decay worked out from the ladder as stored, not yet written.
struct PreparedEvent {
    /// The journal entry's kind and inputs.
    kind: &'static str,
    inputs: String,
    /// The rules the season end brings in, when the next season has others.
    next_config: Option<String>,
    /// The ladder's season when the event began.
    season: i64,
    /// When it happened.
    now: f64,
    outcome: crate::events::EventOutcome,
}

/// What [`prepare_event`] found.
enum Prepared {
    /// The id is in the journal already: its answer (or a refusal).
    Answer(String),
    /// The event to write.
    Event(Box<PreparedEvent>),
}

/// Reads the ladder and runs the event through the engine's pool: what to write.
fn prepare_event(c: &Connection, ladder: &Ladder, request: &EventRequest) -> Result<Prepared, ApiError> {
    let kind = request.event.kind();
    if let Some((seq, stored_kind, stored_inputs, results)) = find_entry(c, ladder.id, &request.id)? {
        // The same event when the kind is the same (its inputs record what it found then).
        return replay_answer(&request.id, &stored_kind, &stored_inputs, kind, &stored_inputs, || event_response(seq, &request.id, &results)).map(Prepared::Answer);
    }
    // A scheduled event an older server ran under the old form of its id.
    if let Some(legacy) = request.legacy_id() {
        if let Some((seq, _, _, results)) = find_entry(c, ladder.id, &legacy)?.filter(|(_, stored_kind, _, _)| stored_kind == kind) {
            return Ok(Prepared::Answer(event_response(seq, &legacy, &results)));
        }
    }
    let now = model::now();
    let (decayed_through, season, config, next_config): (Option<f64>, i64, String, Option<String>) =
        c.query_row("SELECT decayed_through, season, config, next_config FROM ladders WHERE id = ?1", [ladder.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    let rules = stored_rules(&config)?;
    let zero_sum = zero_sum(c, ladder.id, rules.config().zero_sum_total)?;
    let next_config = next_config.filter(|_| request.event == crate::events::LadderEvent::SeasonEnd);
    let next_rules = next_config.as_deref().map(stored_rules).transpose()?;
    let inputs = request.inputs_json(next_config.as_deref());
    let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1 ORDER BY id");
    let mut rows = Vec::new();
    {
        let mut statement = c.prepare(&sql)?;
        let mut result = statement.query([ladder.id])?;
        while let Some(row) = result.next()? {
            rows.push(player_row(row)?);
        }
    }
    let outcome = run_event(&EventRules { rules: &rules, next: next_rules.as_ref() }, request.event, &rows, zero_sum, decayed_through, now, season)?;
    Ok(Prepared::Event(Box::new(PreparedEvent { kind, inputs, next_config, season, now, outcome })))
}

/// A season end or decay in the writer's transaction: every player of the ladder through
/// the engine's pool, the changed rows written, a season's standings kept.
fn ladder_event(c: &Connection, ladder: &Ladder, request: &EventRequest) -> Result<String, ApiError> {
    let event = match prepare_event(c, ladder, request)? {
        Prepared::Answer(answer) => return Ok(answer),
        Prepared::Event(event) => event,
    };
    bulk_rank_writes(c)?;
    for (id, state) in &event.outcome.writes {
        write_player(c, *id, state)?;
    }
    recount(c, ladder.id)?;
    let seq = append_journal(c, &event_entry(ladder.id, &request.id, &event))?;
    chain_ladder(c, ladder.id)?;
    write_event_history(c, ladder.id, seq, &event.outcome.history)?;
    if request.event == LadderEvent::SeasonEnd {
        write_standings(c, ladder.id, event.season, &event.outcome.standings)?;
    }
    finish_event(c, ladder.id, seq, request.event, &event)?;
    Ok(event_response(seq, &request.id, &event.outcome.results))
}

/// The journal entry of an event.
fn event_entry<'a>(ladder: i64, id: &'a str, event: &'a PreparedEvent) -> NewEntry<'a> {
    NewEntry { ladder, id, kind: event.kind, inputs: &event.inputs, time: event.now, joined: "[]".to_owned(), results: event.outcome.results.clone() }
}

/// The history lines of an event's changed players.
fn write_event_history(c: &Connection, ladder_id: i64, seq: i64, history: &[(i64, f32, f32)]) -> Result<(), ApiError> {
    let mut insert = c.prepare_cached("INSERT INTO player_entries (player_id, seq, ladder_id, rating_before, rating_after) VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for (player, before, after) in history {
        insert.execute(params![player, seq, ladder_id, f64::from(*before), f64::from(*after)])?;
    }
    Ok(())
}

/// A season's final standings (read only once its `seasons` row exists).
fn write_standings(c: &Connection, ladder_id: i64, season: i64, standings: &[crate::events::Standing]) -> Result<(), ApiError> {
    let mut insert = c.prepare_cached(
        "INSERT INTO season_records (ladder_id, season, rank, player_id, rating, peak_rating, league, peak_league, games, wins) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for s in standings {
        insert.execute(params![ladder_id, season, s.rank, s.player_id, f64::from(s.rating), f64::from(s.peak_rating), s.league, s.peak_league, s.games, s.wins])?;
    }
    Ok(())
}

/// The ladder's own row after an event: its zero-sum numbers, how far decay has run and,
/// for a season end, the season's row, the next season's number and rules.
fn finish_event(c: &Connection, ladder_id: i64, seq: i64, event_kind: LadderEvent, event: &PreparedEvent) -> Result<(), ApiError> {
    // Written whether or not the rules now have a total: reads apply the offset as stored,
    // so a ladder whose season end drops its total keeps 0.
    let (offset, sum) = event.outcome.zero_sum.map_or((0.0, "0".to_owned()), |z| (z.offset, z.sum_text()));
    c.execute("UPDATE ladders SET zero_sum_offset = ?2, zero_sum_sum = ?3 WHERE id = ?1", params![ladder_id, offset, sum])?;
    c.execute("UPDATE ladders SET decayed_through = ?2 WHERE id = ?1", params![ladder_id, event.outcome.decayed_through])?;
    if event_kind == LadderEvent::SeasonEnd {
        c.execute(
            "INSERT INTO seasons (ladder_id, season, ended, players, seq) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![ladder_id, event.season, event.now, i64::try_from(event.outcome.standings.len()).unwrap_or(i64::MAX), seq],
        )?;
        c.execute("UPDATE ladders SET season = season + 1 WHERE id = ?1", [ladder_id])?;
        if let Some(next) = &event.next_config {
            c.execute("UPDATE ladders SET config = ?2, next_config = NULL WHERE id = ?1", params![ladder_id, next])?;
        }
    }
    Ok(())
}

/// Undoes the steps of every event that did not finish (the server stopped, or a step
/// failed): each changed player row back as it was, the event's journal entry, history
/// lines and standings deleted, then the saved rows of finished events. In the caller's
/// transaction; the rank buckets follow the restored ratings through their triggers.
/// `only`: the events of one ladder (the others' may still be under way).
fn undo_unfinished_events(c: &Connection, only: Option<i64>) -> Result<usize, ApiError> {
    let unfinished: Vec<(i64, i64, i64)> = c
        .prepare("SELECT ladder_id, seq, season FROM event_progress WHERE ?1 IS NULL OR ladder_id = ?1")?
        .query_map([only], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let sets: Vec<String> = STATE_COLUMNS.iter().map(|column| format!("{column} = u.{column}")).collect();
    let restore = format!("UPDATE players SET {} FROM event_undo u WHERE u.seq = ?1 AND players.id = u.player_id", sets.join(", "));
    for (ladder_id, seq, season) in &unfinished {
        c.execute(&restore, [seq])?;
        c.execute("DELETE FROM player_entries WHERE seq = ?1", [seq])?;
        c.execute(
            "DELETE FROM season_records WHERE ladder_id = ?1 AND season = ?2 AND NOT EXISTS (SELECT 1 FROM seasons WHERE ladder_id = ?1 AND season = ?2)",
            params![ladder_id, season],
        )?;
        c.execute("DELETE FROM journal WHERE seq = ?1 AND ladder_id = ?2 AND hash IS NULL", params![seq, ladder_id])?;
        c.execute("DELETE FROM event_progress WHERE ladder_id = ?1", [ladder_id])?;
        c.execute("DELETE FROM event_undo WHERE seq = ?1", [seq])?;
    }
    if only.is_none() {
        // The saved rows of events that finished (removed after them, unless the server
        // stopped first).
        c.execute("DELETE FROM event_undo", [])?;
    }
    Ok(unfinished.len())
}
