//! SQLite: the embedded default. One writer thread owns the write connection and commits
//! the requests that arrived together in one transaction (group commit: one `fsync` for
//! all of them under `synchronous=FULL`), each inside its own savepoint so that a refused
//! match changes nothing; every reply waits for the commit. Reads use their own
//! connections (WAL lets them run beside the writer).

use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension, Row};
use tokio::sync::oneshot;

use super::{canonical_config, run_event, stored_rules, view, BoardEntry, KeyRecord, Ladder, LadderEvent, PlayerWithRank, PutOutcome};
use crate::error::ApiError;
use crate::model::{self, apply_match, joining_state, JournalEntry, MatchRequest, PlayerRow, ZeroSum};
use ranking_elo::PlayerState;

/// The migrations, in order.
const MIGRATIONS: [&str; 1] = [include_str!("../../migrations/sqlite/0001_ladders.sql")];

/// The player columns, in [`player_row`]'s order.
pub(crate) const PLAYER_COLUMNS: &str = "id, name, rating, games_played, win_streak, period_games, is_junior, has_reached_2400, league, protected_games, season_games, season_wins, peak_rating, peak_league, last_played";

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
}

fn connect(path: &str, full_sync: bool) -> Result<Connection, rusqlite::Error> {
    let connection = Connection::open(path)?;
    connection.busy_timeout(std::time::Duration::from_secs(10))?;
    let sync = if full_sync { "FULL" } else { "NORMAL" };
    connection.execute_batch(&format!("PRAGMA journal_mode = WAL; PRAGMA synchronous = {sync}; PRAGMA foreign_keys = ON;"))?;
    Ok(connection)
}

impl SqliteStore {
    /// Opens (creating) the file, runs the migrations and starts the writer thread.
    ///
    /// # Errors
    /// The file cannot be opened or migrated.
    pub fn open(path: &str, full_sync: bool) -> Result<Self, String> {
        let describe = |e: rusqlite::Error| format!("sqlite://{path}: {e}");
        let mut writer = connect(path, full_sync).map_err(describe)?;
        migrate(&mut writer).map_err(describe)?;
        let (sender, receiver) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("elo-ladder-sqlite-writer".into())
            .spawn(move || write_loop(&writer, &receiver))
            .map_err(|e| e.to_string())?;
        Ok(Self { jobs: Mutex::new(sender), readers: Mutex::new(Vec::new()), path: path.to_owned() })
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
        let (connection, result) = tokio::task::spawn_blocking(move || {
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

    pub(super) async fn put_ladder(&self, name: &str, config_json: &str) -> Result<PutOutcome, ApiError> {
        let (name, config_json) = (name.to_owned(), config_json.to_owned());
        self.write(move |c| {
            let existing: Option<String> = c.query_row("SELECT config FROM ladders WHERE name = ?1", [&name], |r| r.get(0)).optional()?;
            match existing {
                Some(stored) if canonical_config(&stored_rules(&stored)?) == config_json => Ok(PutOutcome::Same),
                Some(_) => Ok(PutOutcome::Differs),
                None => {
                    c.execute("INSERT INTO ladders (name, config, created_at) VALUES (?1, ?2, ?3)", params![name, config_json, model::now()])?;
                    Ok(PutOutcome::Created)
                }
            }
        })
        .await
    }

    pub(super) async fn ladder(&self, name: &str) -> Result<Option<Ladder>, ApiError> {
        let name = name.to_owned();
        self.read(move |c| {
            let row: Option<(i64, String)> = c.query_row("SELECT id, config FROM ladders WHERE name = ?1", [&name], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
            row.map(|(id, config_json)| Ok(Ladder { id, rules: stored_rules(&config_json)?, name, config_json })).transpose()
        })
        .await
    }

    pub(super) async fn report(&self, ladder: &Ladder, request: MatchRequest) -> Result<String, ApiError> {
        let ladder = ladder.clone();
        self.write(move |c| report(c, &ladder, &request)).await
    }

    pub(super) async fn player(&self, ladder: &Ladder, name: &str) -> Result<Option<PlayerWithRank>, ApiError> {
        let (ladder, name) = (ladder.clone(), name.to_owned());
        self.read(move |c| {
            let zero_sum = zero_sum(c, &ladder)?;
            let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1 AND name = ?2");
            let Some(row) = c.prepare_cached(&sql)?.query_row(params![ladder.id, name], player_row).optional()? else {
                return Ok(None);
            };
            // Two index range counts (an OR would scan the ladder).
            let better: i64 = c
                .prepare_cached("SELECT (SELECT count(*) FROM players WHERE ladder_id = ?1 AND rating > ?2) + (SELECT count(*) FROM players WHERE ladder_id = ?1 AND rating = ?2 AND id < ?3)")?
                .query_row(
                params![ladder.id, f64::from(row.state.rating), row.id],
                |r| r.get(0),
            )?;
            Ok(Some(PlayerWithRank { view: view(row, zero_sum.as_ref()), rank: better + 1 }))
        })
        .await
    }

    pub(super) async fn leaderboard(&self, ladder: &Ladder, limit: i64, offset: i64) -> Result<Vec<BoardEntry>, ApiError> {
        let ladder = ladder.clone();
        self.read(move |c| {
            let zero_sum = zero_sum(c, &ladder)?;
            let mut statement = c.prepare_cached("SELECT name, rating, league FROM players WHERE ladder_id = ?1 ORDER BY rating DESC, id LIMIT ?2 OFFSET ?3")?;
            let rows = statement.query_map(params![ladder.id, limit, offset], |r| Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?, r.get::<_, i64>(2)?)))?;
            let mut entries = Vec::new();
            for (i, row) in rows.enumerate() {
                let (player, rating, league) = row?;
                let rating = ranking_elo::pool::effective_rating(rating as f32, zero_sum.map_or(0.0, |z| z.offset));
                entries.push(BoardEntry { rank: offset + i as i64 + 1, player, rating, league: u32::try_from(league).unwrap_or(0) });
            }
            Ok(entries)
        })
        .await
    }

    pub(super) async fn journal(&self, ladder: &Ladder, after: i64, limit: i64) -> Result<(Vec<JournalEntry>, bool), ApiError> {
        let id = ladder.id;
        self.read(move |c| {
            let mut statement = c.prepare_cached("SELECT seq, kind, match_id, time, inputs, joined, results FROM journal WHERE ladder_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3")?;
            let rows = statement.query_map(params![id, after, limit], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?, r.get::<_, f64>(3)?, r.get::<_, String>(4)?, r.get::<_, String>(5)?, r.get::<_, String>(6)?))
            })?;
            let mut entries = Vec::new();
            for row in rows {
                let (seq, kind, id, time, inputs, joined, results) = row?;
                entries.push(super::journal_entry(seq, kind, id, time, &inputs, &joined, &results)?);
            }
            // One writer commits in seq order: nothing is ever held back.
            Ok((entries, false))
        })
        .await
    }

    pub(super) async fn ladder_event(&self, ladder: &Ladder, event: LadderEvent) -> Result<String, ApiError> {
        let ladder = ladder.clone();
        self.write(move |c| {
            let now = model::now();
            let zero_sum = zero_sum(c, &ladder)?;
            let decayed_through: Option<f64> = c.query_row("SELECT decayed_through FROM ladders WHERE id = ?1", [ladder.id], |r| r.get(0))?;
            let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1 ORDER BY id");
            let rows = c.prepare(&sql)?.query_map([ladder.id], player_row)?.collect::<Result<Vec<_>, _>>()?;
            let result = run_event(&ladder, event, &rows, zero_sum, decayed_through, now)?;
            for (id, state) in &result.writes {
                write_player(c, *id, state)?;
            }
            if let Some(z) = result.zero_sum {
                c.execute("UPDATE ladders SET zero_sum_offset = ?2, zero_sum_sum = ?3 WHERE id = ?1", params![ladder.id, z.offset, z.sum_text()])?;
            }
            c.execute("UPDATE ladders SET decayed_through = ?2 WHERE id = ?1", params![ladder.id, result.decayed_through])?;
                        c.execute(
                "INSERT INTO journal (ladder_id, match_id, kind, inputs, time, joined, results) VALUES (?1, NULL, ?2, '{}', ?3, '[]', ?4)",
                params![ladder.id, event.kind(), now, result.summary],
            )?;
            Ok(super::event_response(c.last_insert_rowid(), &result.results))
        })
        .await
    }

    pub(super) async fn key(&self, id: &str) -> Result<Option<KeyRecord>, ApiError> {
        let id = id.to_owned();
        self.read(move |c| {
            let row = c
                .prepare_cached("SELECT hash, scope, ladder, revoked_at FROM api_keys WHERE id = ?1")?
                .query_row([&id], |r| Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?, r.get::<_, Option<f64>>(3)?)))
                .optional()?;
            Ok(row.and_then(|(hash, scope, ladder, revoked)| Some(KeyRecord { hash: hash.try_into().ok()?, scope, ladder, revoked: revoked.is_some() })))
        })
        .await
    }

    pub(super) async fn create_key(&self, id: &str, hash: &[u8; 32], scope: &str, ladder: Option<&str>) -> Result<(), ApiError> {
        let (id, hash, scope, ladder) = (id.to_owned(), hash.to_vec(), scope.to_owned(), ladder.map(str::to_owned));
        self.write(move |c| {
            c.execute("INSERT INTO api_keys (id, hash, scope, ladder, created_at) VALUES (?1, ?2, ?3, ?4, ?5)", params![id, hash, scope, ladder, model::now()])?;
            Ok(())
        })
        .await
    }

    pub(super) async fn revoke_key(&self, id: &str) -> Result<bool, ApiError> {
        let id = id.to_owned();
        self.write(move |c| Ok(c.execute("UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL", params![id, model::now()])? > 0)).await
    }

    pub(super) async fn ping(&self) -> Result<(), ApiError> {
        self.read(|c| Ok(c.query_row("SELECT 1", [], |_| Ok(()))?)).await
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
fn write_loop(connection: &Connection, jobs: &mpsc::Receiver<Job>) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if let Err(error) = connection.execute_batch("BEGIN IMMEDIATE") {
            let error = ApiError::from(error);
            for job in batch {
                job.refuse(error.clone());
            }
            continue;
        }
        let mut replies = Vec::with_capacity(batch.len());
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
        for reply in replies {
            reply(commit_error.clone());
        }
    }
}

/// Reads a player row (columns as [`PLAYER_COLUMNS`]).
pub(crate) fn player_row(r: &Row<'_>) -> Result<PlayerRow, rusqlite::Error> {
    let count = |i: usize| -> Result<u32, rusqlite::Error> { Ok(u32::try_from(r.get::<_, i64>(i)?).unwrap_or(u32::MAX)) };
    Ok(PlayerRow {
        id: r.get(0)?,
        name: r.get(1)?,
        state: PlayerState {
            rating: r.get::<_, f64>(2)? as f32,
            games_played: count(3)?,
            win_streak: count(4)?,
            period_games: count(5)?,
            is_junior: r.get(6)?,
            has_reached_2400: r.get(7)?,
            league: Some(count(8)?),
            protected_games: count(9)?,
            season_games: count(10)?,
            season_wins: count(11)?,
            peak_rating: r.get::<_, f64>(12)? as f32,
            peak_league: count(13)?,
            last_played: r.get(14)?,
        },
    })
}

/// The state columns' values, in [`PLAYER_COLUMNS`]' order after `name`.
fn state_values(s: &PlayerState) -> [rusqlite::types::Value; 13] {
    use rusqlite::types::Value::{Integer, Real};
    [
        Real(f64::from(s.rating)),
        Integer(s.games_played.into()),
        Integer(s.win_streak.into()),
        Integer(s.period_games.into()),
        Integer(s.is_junior.into()),
        Integer(s.has_reached_2400.into()),
        Integer(s.league.unwrap_or(0).into()),
        Integer(s.protected_games.into()),
        Integer(s.season_games.into()),
        Integer(s.season_wins.into()),
        Real(f64::from(s.peak_rating)),
        Integer(s.peak_league.into()),
        Real(s.last_played),
    ]
}

/// Inserts a joining player; returns the row id.
fn insert_player(c: &Connection, ladder: i64, name: &str, s: &PlayerState) -> Result<i64, rusqlite::Error> {
    let columns = PLAYER_COLUMNS.replacen("id, ", "ladder_id, ", 1);
    let sql = format!("INSERT INTO players ({columns}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
    let head = [rusqlite::types::Value::Integer(ladder), rusqlite::types::Value::Text(name.to_owned())];
    c.prepare_cached(&sql)?.execute(rusqlite::params_from_iter(head.into_iter().chain(state_values(s))))?;
    Ok(c.last_insert_rowid())
}

fn write_player(c: &Connection, id: i64, s: &PlayerState) -> Result<(), rusqlite::Error> {
    c.prepare_cached(
        "UPDATE players SET rating = ?2, games_played = ?3, win_streak = ?4, period_games = ?5, is_junior = ?6, has_reached_2400 = ?7, league = ?8, \
         protected_games = ?9, season_games = ?10, season_wins = ?11, peak_rating = ?12, peak_league = ?13, last_played = ?14 WHERE id = ?1",
    )?
    .execute(rusqlite::params_from_iter(std::iter::once(rusqlite::types::Value::Integer(id)).chain(state_values(s))))?;
    Ok(())
}

/// The ladder's zero-sum numbers (none for an ordinary ladder).
fn zero_sum(c: &Connection, ladder: &Ladder) -> Result<Option<ZeroSum>, ApiError> {
    let Some(total) = ladder.zero_sum_total() else {
        return Ok(None);
    };
    let (offset, sum, players): (f64, String, i64) =
        c.prepare_cached("SELECT zero_sum_offset, zero_sum_sum, players FROM ladders WHERE id = ?1")?.query_row([ladder.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    ZeroSum::from_stored(total, offset, &sum, players).map(Some)
}

/// One match in the writer's transaction (see the module documentation).
fn report(c: &Connection, ladder: &Ladder, request: &MatchRequest) -> Result<String, ApiError> {
    let inputs = request.inputs_json();
    let previous: Option<(i64, String, String)> = c
        .prepare_cached("SELECT seq, inputs, results FROM journal WHERE ladder_id = ?1 AND match_id = ?2")?
        .query_row(params![ladder.id, request.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    if let Some((seq, stored_inputs, results)) = previous {
        return super::replay_answer(&request.id, seq, &stored_inputs, &inputs, &results);
    }
    let now = model::now();
    let mut zero_sum = zero_sum(c, ladder)?;
    let mut names: Vec<&str> = request.players();
    names.sort_unstable();
    let mut rows = HashMap::with_capacity(names.len());
    let mut joined = Vec::new();
    let select = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1 AND name = ?2");
    for name in names {
        let row = c.prepare_cached(&select)?.query_row(params![ladder.id, name], player_row).optional()?;
        let row = match row {
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
    let results = model::results_json(&applied.players);
    let joined = serde_json::to_string(&joined).unwrap_or_else(|_| "[]".into());
    c.prepare_cached("INSERT INTO journal (ladder_id, match_id, kind, inputs, time, joined, results) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?.execute(params![
        ladder.id,
        request.id,
        request.game.kind(),
        inputs,
        now,
        joined,
        results
    ])?;
    Ok(model::match_response(c.last_insert_rowid(), &results))
}
