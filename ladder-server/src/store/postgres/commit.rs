//! Group commit of match reports on PostgreSQL.
//!
//! Reports wait in an in-memory [`Queue`]; each of the committer tasks (`--committers`, 2
//! by default: one batch's commit overlaps the next one's first round trip, and only one
//! is ever in its first round trip, so the reports that arrive meanwhile make the next
//! batch) takes every report ready (up to [`MAX_BATCH`]) and commits them in one transaction of two pipelined round
//! trips:
//!
//! 1. `BEGIN`, the transaction's id, a try-lock (shared) of each ladder's advisory lock,
//!    the lookup of the ids in the journal, and `SELECT … FOR UPDATE` of the zero-sum
//!    ladders' rows (by id) and of every player row of the batch (by ladder, then name in
//!    byte order): one global lock order for every server. The row locks skip ladders whose
//!    try-lock failed (held by a season end or decay): their reports go back to the queue
//!    for a moment, holding no connection. A known id gets its stored answer.
//! 2. The rank triggers off for the transaction, the players' new states, the zero-sum
//!    rows, a savepoint, the journal entries and the new players in one statement
//!    ([`super::APPEND`]: one block of `seq` values in the batch's order, new players' ids
//!    from their entry's `seq`), the batch's rank bucket changes in key order
//!    ([`super::APPLY_BUCKETS`]: the only bucket rows the transaction locks, last), `COMMIT`.
//!
//! Nothing is held across another transaction's commit, so the commits of concurrent
//! batches (this server's other committer, other servers) share PostgreSQL's WAL flushes.
//! The engine applies the batch's matches in order on the states read in step 1, each
//! match on the results of the ones before it; a match the engine refuses changes nothing
//! and gets its 422. A lost deadlock or unique-key race (two servers adding the same new
//! player, or reporting the same id) rolls the batch back and runs it again; any other
//! database error runs its reports one by one, so one cannot fail the others.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ranking_elo::PlayerState;
use tokio::sync::{oneshot, Notify};
use tokio_postgres::types::ToSql;

use super::{retryable, Columns, EntryColumns, Shared, APPEND, ATTEMPTS, HORIZON, LOCK_CLASS, UPDATE_PLAYERS};
use crate::error::ApiError;
use crate::model::{self, apply_match, joining_state, MatchRequest, PlayerRow, ZeroSum};
use crate::store::rows::player_row;
use crate::store::{replay_answer, Ladder, NewEntry};

/// The most reports one transaction commits.
pub const MAX_BATCH: usize = 128;

/// A report waiting for a committer.
pub struct Pending {
    ladder: Arc<Ladder>,
    request: MatchRequest,
    inputs: String,
    answer: oneshot::Sender<Result<String, ApiError>>,
    ready_at: Instant,
    deferrals: u32,
}

/// The reports waiting, in arrival order.
#[derive(Default)]
pub struct Queue {
    waiting: Mutex<VecDeque<Pending>>,
    wake: Notify,
}

impl Queue {
    /// Queues a report; the receiver gets its answer once its transaction has ended.
    pub fn submit(&self, ladder: Arc<Ladder>, request: MatchRequest) -> oneshot::Receiver<Result<String, ApiError>> {
        let (answer, receiver) = oneshot::channel();
        let inputs = request.inputs_json();
        self.push(Pending { ladder, request, inputs, answer, ready_at: Instant::now(), deferrals: 0 });
        receiver
    }

    fn push(&self, pending: Pending) {
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.push_back(pending);
        }
        self.wake.notify_one();
    }

    /// Every report ready now (up to [`MAX_BATCH`]), waiting until there is one.
    async fn take(&self) -> Vec<Pending> {
        loop {
            let now = Instant::now();
            let (batch, next, more) = {
                let Ok(mut waiting) = self.waiting.lock() else {
                    return Vec::new();
                };
                let mut batch = Vec::new();
                let mut kept = VecDeque::with_capacity(waiting.len());
                let mut next: Option<Instant> = None;
                while let Some(pending) = waiting.pop_front() {
                    if pending.ready_at <= now && batch.len() < MAX_BATCH {
                        batch.push(pending);
                    } else {
                        if pending.ready_at > now {
                            next = Some(next.map_or(pending.ready_at, |n| n.min(pending.ready_at)));
                        }
                        kept.push_back(pending);
                    }
                }
                let more = kept.iter().any(|p| p.ready_at <= now);
                *waiting = kept;
                (batch, next, more)
            };
            if more {
                // Another committer can take the rest now.
                self.wake.notify_one();
            }
            if !batch.is_empty() {
                return batch;
            }
            match next {
                Some(at) => {
                    tokio::select! {
                        () = self.wake.notified() => {}
                        () = tokio::time::sleep_until(at.into()) => {}
                    }
                }
                None => self.wake.notified().await,
            }
        }
    }
}

/// One committer: batches until the process ends.
pub async fn committer(shared: Arc<Shared>) {
    loop {
        let front = shared.front.lock().await;
        let batch = shared.queue.take().await;
        run(&shared, batch, Some(front)).await;
    }
}

/// Held by the committer in its first round trip.
type Front<'a> = tokio::sync::MutexGuard<'a, ()>;

/// What became of one report of a batch.
enum Outcome {
    /// Its answer (sent once the transaction has ended).
    Answer(Result<String, ApiError>),
    /// Its ladder is held by a season end or decay: back to the queue.
    Defer,
    /// The same id as an earlier report of the batch: that one's answer, if the request is
    /// the same.
    SameAs(usize),
    /// A season end brought in rules this report's cached ones do not fit (zero-sum on or
    /// off): back to the queue at once, with the ladder as it is now.
    Rebind(Arc<Ladder>),
}

async fn run(shared: &Shared, batch: Vec<Pending>, mut front: Option<Front<'_>>) {
    let mut attempt = 0;
    loop {
        let started = Instant::now();
        let mut conn = match shared.pool.get().await {
            Ok(conn) => conn,
            Err(error) => return answer_all(batch, &error),
        };
        conn.in_transaction = true;
        match batch_once(&mut conn, &batch, front.take()).await {
            Ok(outcomes) => {
                conn.in_transaction = false;
                drop(conn);
                let applied = outcomes.iter().filter(|o| matches!(o, Outcome::Answer(Ok(_)))).count();
                crate::telemetry::record_commit("postgres", batch.len(), started.elapsed());
                crate::telemetry::record_matches(applied);
                shared.chain_wake.notify_one();
                deliver(shared, batch, outcomes);
                return;
            }
            Err(error) => {
                conn.rollback().await;
                drop(conn);
                attempt += 1;
                metrics::counter!(crate::telemetry::COMMIT_RETRIES, "sqlstate" => error.code().map_or("none", |c| c.code()).to_owned()).increment(1);
                tracing::debug!(attempt, reports = batch.len(), error = %crate::error::describe_postgres(&error), "batch rolled back");
                if retryable(&error) && attempt < ATTEMPTS {
                    tokio::time::sleep(Duration::from_millis(1 + (attempt as u64 % 8))).await;
                    continue;
                }
                if batch.len() > 1 {
                    // One report must not fail the others: each on its own.
                    for pending in batch {
                        Box::pin(run(shared, vec![pending], None)).await;
                    }
                    return;
                }
                return answer_all(batch, &ApiError::from(error));
            }
        }
    }
}

fn answer_all(batch: Vec<Pending>, error: &ApiError) {
    for pending in batch {
        let _ = pending.answer.send(Err(error.clone()));
    }
}

/// Sends the answers (deferred reports go back to the queue).
fn deliver(shared: &Shared, batch: Vec<Pending>, outcomes: Vec<Outcome>) {
    let mut answers: Vec<Option<Result<String, ApiError>>> = Vec::with_capacity(batch.len());
    for (i, outcome) in outcomes.iter().enumerate() {
        answers.push(match outcome {
            Outcome::Answer(answer) => Some(answer.clone()),
            Outcome::Defer | Outcome::Rebind(_) => None,
            Outcome::SameAs(first) => {
                let first = *first;
                match &answers[first] {
                    None => None,
                    Some(Err(error)) => Some(Err(error.clone())),
                    Some(Ok(text)) => {
                        let (a, b) = (&batch[first], &batch[i]);
                        let same = a.request.game.kind() == b.request.game.kind() && a.inputs == b.inputs;
                        Some(if same {
                            Ok(text.clone())
                        } else {
                            Err(ApiError::conflict("match_id_reused", format!("id {:?} was already used for another match ({}); nothing was changed", b.request.id, a.inputs)))
                        })
                    }
                }
            }
        });
    }
    for ((mut pending, answer), outcome) in batch.into_iter().zip(answers).zip(outcomes) {
        match answer {
            Some(answer) => {
                let _ = pending.answer.send(answer);
            }
            None if matches!(outcome, Outcome::Rebind(_)) => {
                if let Outcome::Rebind(ladder) = outcome {
                    pending.ladder = ladder;
                }
                pending.ready_at = Instant::now();
                shared.queue.push(pending);
            }
            None => {
                metrics::counter!(crate::telemetry::DEFERRED).increment(1);
                pending.deferrals += 1;
                let wait = Duration::from_millis((5u64 << pending.deferrals.min(6)).min(250));
                pending.ready_at = Instant::now() + wait;
                shared.queue.push(pending);
            }
        }
    }
}

/// A player of the batch.
struct Slot {
    /// The row id; `None` until a new player is inserted.
    id: Option<i64>,
    state: PlayerState,
    /// The state as read (`None` for a new player).
    read: Option<PlayerState>,
}

/// One attempt at a batch (the transaction is open; `Err` leaves it to be rolled back).
async fn batch_once(conn: &mut super::Conn, batch: &[Pending], front: Option<Front<'_>>) -> Result<Vec<Outcome>, tokio_postgres::Error> {
    let try_locks = conn.prepare("SELECT l, pg_try_advisory_xact_lock_shared($1, l) FROM unnest($2::int4[]) AS l").await?;
    let find = conn
        .prepare(
            "SELECT j.ladder_id, j.match_id, j.seq, j.kind, j.inputs, j.results FROM journal j \
             JOIN unnest($1::bigint[], $2::text[]) AS u(ladder, id) ON j.ladder_id = u.ladder AND j.match_id = u.id",
        )
        .await?;
    let lock_zero_sum = conn
        .prepare(
            "SELECT id, zero_sum_offset, zero_sum_sum, players FROM ladders \
             WHERE id = ANY($2) AND pg_try_advisory_xact_lock_shared($1, id::int4) ORDER BY id FOR NO KEY UPDATE",
        )
        .await?;
    let lock_players = conn.prepare(LOCK_PLAYERS).await?;
    let seasons = conn.prepare("SELECT id, season, config, provisional_games, rating_periods FROM ladders WHERE id = ANY($1)").await?;
    let update_players = conn.prepare(UPDATE_PLAYERS).await?;
    let update_zero_sum = conn
        .prepare(
            "UPDATE ladders l SET zero_sum_offset = u.offset, zero_sum_sum = u.sum, players = u.players \
             FROM unnest($1::bigint[], $2::float8[], $3::text[], $4::bigint[]) AS u(id, \"offset\", sum, players) WHERE l.id = u.id",
        )
        .await?;
    let append = conn.prepare(APPEND).await?;
    let count_players = conn.prepare("UPDATE ladders l SET players = l.players + u.joined FROM unnest($1::bigint[], $2::bigint[]) AS u(id, joined) WHERE l.id = u.id").await?;
    let apply_buckets = conn.prepare(super::APPLY_BUCKETS).await?;
    let c = &conn.client;

    // Round trip 1.
    let mut ladder_keys: Vec<i32> = batch.iter().map(|p| i32::try_from(p.ladder.id).unwrap_or(i32::MAX)).collect();
    ladder_keys.sort_unstable();
    ladder_keys.dedup();
    let find_ladders: Vec<i64> = batch.iter().map(|p| p.ladder.id).collect();
    let find_ids: Vec<&str> = batch.iter().map(|p| p.request.id.as_str()).collect();
    let mut zero_sum_ladders: Vec<i64> = batch.iter().filter(|p| p.ladder.zero_sum_total().is_some()).map(|p| p.ladder.id).collect();
    zero_sum_ladders.sort_unstable();
    zero_sum_ladders.dedup();
    let mut wanted: Vec<(i64, &str)> = batch.iter().flat_map(|p| p.request.players().into_iter().map(move |name| (p.ladder.id, name))).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let (wanted_ladders, wanted_names): (Vec<i64>, Vec<&str>) = wanted.iter().copied().unzip();
    let lock_params: [&(dyn ToSql + Sync); 2] = [&LOCK_CLASS, &ladder_keys];
    let find_params: [&(dyn ToSql + Sync); 2] = [&find_ladders, &find_ids];
    let zero_sum_params: [&(dyn ToSql + Sync); 2] = [&LOCK_CLASS, &zero_sum_ladders];
    let player_params: [&(dyn ToSql + Sync); 3] = [&LOCK_CLASS, &wanted_ladders, &wanted_names];
    let mut ladder_ids: Vec<i64> = batch.iter().map(|p| p.ladder.id).collect();
    ladder_ids.sort_unstable();
    ladder_ids.dedup();
    let season_params: [&(dyn ToSql + Sync); 1] = [&ladder_ids];
    let (begun, xid, locked, found, zero_sum_rows, player_rows, season_rows) = tokio::join!(
        c.batch_execute("BEGIN"),
        // The transaction's id before any seq is taken (see super::HORIZON).
        c.batch_execute("SELECT pg_current_xact_id()"),
        c.query(&try_locks, &lock_params),
        c.query(&find, &find_params),
        async {
            if zero_sum_ladders.is_empty() {
                Ok(Vec::new())
            } else {
                c.query(&lock_zero_sum, &zero_sum_params).await
            }
        },
        c.query(&lock_players, &player_params),
        c.query(&seasons, &season_params),
    );
    // The next batch may start its first round trip.
    drop(front);
    begun?;
    xid?;
    let locked: HashSet<i64> = locked?.iter().filter(|r| r.get::<_, bool>(1)).map(|r| i64::from(r.get::<_, i32>(0))).collect();
    let found = found?;
    let zero_sum_rows = zero_sum_rows?;
    let player_rows = player_rows?;
    // The rules of each ladder's season now: a season end may have brought in others since
    // this server cached them.
    let mut current: HashMap<i64, Arc<Ladder>> = HashMap::new();
    // Each ladder's provisional_games (for the rank counts of provisional players).
    let mut provisional: HashMap<i64, i64> = HashMap::new();
    // Each ladder's option rating_periods as it is now (the cached options may be seconds old).
    let mut held_by: HashMap<i64, bool> = HashMap::new();
    for row in &season_rows? {
        let (id, season): (i64, i64) = (row.get(0), row.get(1));
        provisional.insert(id, row.get(3));
        held_by.insert(id, row.get(4));
        if let Some(pending) = batch.iter().find(|p| p.ladder.id == id && p.ladder.season != season) {
            match crate::store::stored_rules(row.get(2)) {
                Ok(rules) => {
                    current.insert(id, Arc::new(Ladder { rules, config_json: row.get(2), season, ..(*pending.ladder).clone() }));
                }
                Err(error) => {
                    c.batch_execute("ROLLBACK").await?;
                    return Ok(finish_with(outcomes_for(batch), &(0..batch.len()).collect::<Vec<_>>(), &error));
                }
            }
        }
    }
    let mut known: HashMap<(i64, &str), (i64, String, String, String)> = HashMap::new();
    for row in &found {
        known.insert((row.get("ladder_id"), row.get("match_id")), (row.get("seq"), row.get("kind"), row.get("inputs"), row.get("results")));
    }
    let mut outcomes: Vec<Option<Outcome>> = outcomes_for(batch);
    // A season end that turned zero-sum on or off: the rows locked above do not fit the
    // new rules; these reports go back to the queue with the ladder as it is now, and run
    // in the next batch (no client sees the change).
    for (i, pending) in batch.iter().enumerate() {
        if let Some(now) = current.get(&pending.ladder.id).filter(|now| now.zero_sum_total().is_some() != pending.ladder.zero_sum_total().is_some()) {
            outcomes[i] = Some(Outcome::Rebind(Arc::clone(now)));
        }
    }
    let mut first_of: HashMap<(i64, &str), usize> = HashMap::new();
    let mut active = Vec::new();
    for (i, pending) in batch.iter().enumerate() {
        if outcomes[i].is_some() {
            continue;
        }
        let key = (pending.ladder.id, pending.request.id.as_str());
        if let Some(&first) = first_of.get(&key) {
            outcomes[i] = Some(Outcome::SameAs(first));
            continue;
        }
        first_of.insert(key, i);
        if let Some((seq, kind, inputs, results)) = known.get(&key) {
            let answer = replay_answer(&pending.request.id, kind, inputs, pending.request.game.kind(), &pending.inputs, || model::match_response(*seq, results));
            outcomes[i] = Some(Outcome::Answer(answer));
        } else if !locked.contains(&pending.ladder.id) {
            outcomes[i] = Some(Outcome::Defer);
        } else {
            active.push(i);
        }
    }
    if active.is_empty() {
        c.batch_execute("ROLLBACK").await?;
        return Ok(finish(outcomes));
    }
    let mut zero_sums: HashMap<i64, ZeroSum> = HashMap::new();
    for row in &zero_sum_rows {
        let id: i64 = row.get("id");
        let total = active.iter().find(|&&i| batch[i].ladder.id == id).and_then(|&i| batch[i].ladder.zero_sum_total()).unwrap_or(0.0);
        match ZeroSum::from_stored(total, row.get("zero_sum_offset"), row.get::<_, &str>("zero_sum_sum"), row.get("players")) {
            Ok(z) => {
                zero_sums.insert(id, z);
            }
            Err(error) => {
                // A damaged ladder row: its reports fail, the others go on.
                for &i in &active {
                    if batch[i].ladder.id == id {
                        outcomes[i] = Some(Outcome::Answer(Err(error.clone())));
                    }
                }
            }
        }
    }
    let mut slots: HashMap<(i64, String), Slot> = HashMap::with_capacity(player_rows.len() + 8);
    for row in &player_rows {
        let ladder: i64 = row.get("ladder_id");
        if !locked.contains(&ladder) {
            // Locked by the second try after a season end ended: its reports wait anyway.
            continue;
        }
        match player_row(row) {
            Ok(player) => {
                slots.insert((ladder, player.name), Slot { id: Some(player.id), state: player.state, read: Some(player.state) });
            }
            Err(error) => {
                c.batch_execute("ROLLBACK").await?;
                return Ok(finish_with(outcomes, &active, &error));
            }
        }
    }

    // The engine, match after match.
    let mut entries: Vec<(usize, NewEntry<'_>)> = Vec::new();
    let mut joining = Columns::default();
    let mut joining_keys: Vec<(i64, String)> = Vec::new();
    // New players: the entry (1-based) they joined with and their position in its list.
    let mut joined_at: HashMap<(i64, String), (i64, i64)> = HashMap::new();
    let mut journal = EntryColumns::default();
    let mut joins_by_ladder: HashMap<i64, i64> = HashMap::new();
    for &i in &active {
        if outcomes[i].is_some() {
            continue;
        }
        let pending = &batch[i];
        let ladder = current.get(&pending.ladder.id).unwrap_or(&pending.ladder);
        let now = model::now();
        let mut zero_sum = zero_sums.get(&ladder.id).copied();
        let mut names = pending.request.players();
        names.sort_unstable();
        let mut rows: HashMap<String, PlayerRow> = HashMap::with_capacity(names.len());
        let mut joined = Vec::new();
        for (position, name) in names.iter().enumerate() {
            let state = match slots.get(&(ladder.id, (*name).to_owned())) {
                Some(slot) => slot.state,
                None => {
                    joined.push((*name).to_owned());
                    joining_state(&ladder.rules, zero_sum.as_mut(), now)
                }
            };
            // Row ids are the match's positions here; the slots hold the real ones.
            rows.insert((*name).to_owned(), PlayerRow { id: position as i64, name: (*name).to_owned(), state });
        }
        let rated = if held_by.get(&ladder.id).copied().unwrap_or(ladder.options.rating_periods) {
            crate::periods::hold_match(zero_sum.as_ref(), &rows, &pending.request, now)
        } else {
            apply_match(&ladder.rules, zero_sum.as_mut(), &rows, &pending.request, now)
        };
        match rated {
            Ok(applied) => {
                for (position, state) in applied.writes {
                    let name = names[usize::try_from(position).unwrap_or(0)];
                    slots.entry((ladder.id, name.to_owned())).and_modify(|slot| slot.state = state).or_insert(Slot { id: None, state, read: None });
                }
                if let Some(z) = zero_sum {
                    zero_sums.insert(ladder.id, z);
                }
                let entry = i64::try_from(entries.len() + 1).unwrap_or(i64::MAX);
                for (position, name) in joined.iter().enumerate() {
                    let position = i64::try_from(position).unwrap_or(i64::MAX);
                    joining_keys.push((ladder.id, name.clone()));
                    joining.entries.push(entry);
                    joining.positions.push(position);
                    joined_at.insert((ladder.id, name.clone()), (entry, position));
                }
                if ladder.zero_sum_total().is_none() && !joined.is_empty() {
                    *joins_by_ladder.entry(ladder.id).or_insert(0) += i64::try_from(joined.len()).unwrap_or(i64::MAX);
                }
                let results = model::results_json(&applied.players);
                let joined_text = serde_json::to_string(&joined).unwrap_or_else(|_| "[]".into());
                let new_entry =
                    NewEntry { ladder: ladder.id, id: &pending.request.id, kind: pending.request.game.kind(), inputs: &pending.inputs, time: now, joined: joined_text, results };
                journal.push(&new_entry);
                for ((view, before), name) in applied.players.iter().zip(&applied.before).zip(pending.request.players()) {
                    let key = (ladder.id, name.to_owned());
                    let id = slots.get(&key).and_then(|slot| slot.id);
                    let join = if id.is_some() { (0, 0) } else { joined_at.get(&key).copied().unwrap_or((0, 0)) };
                    journal.push_history(ladder.id, id, join, *before, view.state.rating);
                }
                entries.push((i, new_entry));
            }
            Err(error) => outcomes[i] = Some(Outcome::Answer(Err(error))),
        }
    }
    if entries.is_empty() {
        c.batch_execute("ROLLBACK").await?;
        return Ok(finish(outcomes));
    }
    // New players with their final states in the batch.
    for (ladder, name) in &joining_keys {
        if let Some(slot) = slots.get(&(*ladder, name.clone())) {
            joining.push(0, *ladder, name, &slot.state);
        }
    }

    // Round trip 2.
    let mut updates = Columns::default();
    // The batch's rank bucket changes, applied by one statement at the end in key order
    // (the tables' triggers are off for this transaction): a batch's insert and update
    // statements each locking their buckets in their own order deadlocked against another
    // server's batch.
    let mut buckets = crate::store::ranks::BucketDeltas::default();
    for ((ladder, name), slot) in &slots {
        let below = provisional.get(ladder).copied().unwrap_or(0);
        let counted = |state: &PlayerState| (state.rating, i64::from(state.games_played) < below);
        if let (Some(id), Some(read)) = (slot.id, slot.read) {
            if slot.state != read || slot.state.rating.to_bits() != read.rating.to_bits() {
                updates.push(id, *ladder, name, &slot.state);
                buckets.moved(*ladder, counted(&read), counted(&slot.state));
            }
        } else if slot.id.is_none() {
            buckets.joined(*ladder, counted(&slot.state));
        }
    }
    let (bucket_ladders, bucket_levels, bucket_numbers, bucket_deltas) = buckets.columns();
    let bucket_params: [&(dyn ToSql + Sync); 4] = [&bucket_ladders, &bucket_levels, &bucket_numbers, &bucket_deltas];
    let mut zero_sum_ids = Vec::new();
    let mut zero_sum_offsets = Vec::new();
    let mut zero_sum_texts = Vec::new();
    let mut zero_sum_players = Vec::new();
    for (id, z) in &zero_sums {
        zero_sum_ids.push(*id);
        zero_sum_offsets.push(z.offset);
        zero_sum_texts.push(z.sum_text());
        zero_sum_players.push(i64::try_from(z.players).unwrap_or(i64::MAX));
    }
    let (count_ladders, count_joins): (Vec<i64>, Vec<i64>) = joins_by_ladder.into_iter().unzip();
    let update_params = updates.update_params();
    let zero_sum_write_params: [&(dyn ToSql + Sync); 4] = [&zero_sum_ids, &zero_sum_offsets, &zero_sum_texts, &zero_sum_players];
    let append_params = journal.params(&joining);
    let count_params: [&(dyn ToSql + Sync); 2] = [&count_ladders, &count_joins];
    let (triggers_off, updated, zero_sum_updated, counted, savepoint, appended, bucketed, committed) = tokio::join!(
        c.batch_execute("SET LOCAL elo.rank_bulk = 'on'"),
        async {
            if updates.is_empty() {
                Ok(0)
            } else {
                c.execute(&update_players, &update_params).await
            }
        },
        async {
            if zero_sum_ids.is_empty() {
                Ok(0)
            } else {
                c.execute(&update_zero_sum, &zero_sum_write_params).await
            }
        },
        async {
            if count_ladders.is_empty() {
                Ok(0)
            } else {
                c.execute(&count_players, &count_params).await
            }
        },
        c.batch_execute(HORIZON),
        c.query(&append, &append_params),
        async {
            if bucket_ladders.is_empty() {
                Ok(0)
            } else {
                c.execute(&apply_buckets, &bucket_params).await
            }
        },
        c.batch_execute("COMMIT"),
    );
    triggers_off?;
    updated?;
    zero_sum_updated?;
    counted?;
    savepoint?;
    let appended = appended?;
    bucketed?;
    // A failed statement above turned COMMIT into a rollback and was reported first.
    committed?;
    let seqs: HashMap<(i64, String), i64> = appended.iter().map(|r| ((r.get("ladder_id"), r.get("match_id")), r.get("seq"))).collect();
    for (i, entry) in &entries {
        let seq = seqs.get(&(entry.ladder, entry.id.to_owned())).copied().unwrap_or(0);
        outcomes[*i] = Some(Outcome::Answer(Ok(model::match_response(seq, &entry.results))));
    }
    Ok(finish(outcomes))
}

/// Player rows of the batch (`$2` ladders, `$3` names), locked in one global order: by
/// ladder, then name in byte order (independent of the database's collation); rows of a
/// ladder whose advisory lock (class `$1`) is held by a season end are skipped, not waited
/// for. The columns are [`crate::store::rows::PLAYER_COLUMNS`]' and the ladder id.
const LOCK_PLAYERS: &str = "SELECT p.id, p.name, p.rating, p.games_played, p.win_streak, p.period_games, p.is_junior, p.has_reached_2400, p.league, \
     p.protected_games, p.season_games, p.season_wins, p.peak_rating, p.peak_league, p.last_played, p.ladder_id \
     FROM players p JOIN unnest($2::bigint[], $3::text[]) AS u(ladder, name) ON p.ladder_id = u.ladder AND p.name = u.name \
     WHERE pg_try_advisory_xact_lock_shared($1, p.ladder_id::int4) \
     ORDER BY p.ladder_id, p.name COLLATE \"C\" FOR NO KEY UPDATE OF p";

/// No outcome yet for any report of the batch.
fn outcomes_for(batch: &[Pending]) -> Vec<Option<Outcome>> {
    (0..batch.len()).map(|_| None).collect()
}

fn finish(outcomes: Vec<Option<Outcome>>) -> Vec<Outcome> {
    outcomes.into_iter().map(|o| o.unwrap_or(Outcome::Defer)).collect()
}

fn finish_with(mut outcomes: Vec<Option<Outcome>>, active: &[usize], error: &ApiError) -> Vec<Outcome> {
    for &i in active {
        if outcomes[i].is_none() {
            outcomes[i] = Some(Outcome::Answer(Err(error.clone())));
        }
    }
    finish(outcomes)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_lock_statement_selects_every_player_column() {
        for column in crate::store::rows::PLAYER_COLUMNS.split(", ") {
            assert!(super::LOCK_PLAYERS.contains(&format!("p.{column}")), "{column}");
        }
    }
}
