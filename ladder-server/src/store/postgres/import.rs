//! PostgreSQL: imports ([`crate::import`]). A batch of lines is one transaction under the
//! ladder's advisory lock taken exclusively (as a season end takes it: reports of the
//! ladder wait, the other ladders' go on): the lines' ids and players are read at once, the
//! engine applies the lines in order in memory, and the states, journal entries, new
//! players, history lines and rank buckets are written in one round trip as the committer
//! writes a batch of reports ([`super::commit`]). A line the ladder refuses is left out and
//! ends the batch; the lines before it commit. The batch's entries are then chained
//! ([`super::chainer::catch_up`]) before the next batch takes the lock again.

use std::collections::HashMap;

use ranking_elo::PlayerState;

use super::*;
use crate::import::{self, BatchOutcome, Item, Line, Tally};
use crate::model::{apply_match, joining_state, PlayerRow};

/// A player of the batch: the row id (`None` for a player who joins in it), the state now,
/// and the state as read (`None` for a new player).
struct Slot {
    id: Option<i64>,
    state: PlayerState,
    read: Option<PlayerState>,
}

/// The writes of a batch, built line by line.
#[derive(Default)]
struct Writes {
    journal: EntryColumns,
    joining: Columns,
    /// New players (ladder's name), in joining order.
    joining_names: Vec<String>,
    /// A new player's entry (1-based) and position there.
    joined_at: HashMap<String, (i64, i64)>,
    joins: i64,
}

/// Applies `lines` (see the module documentation), retrying a transaction that lost a race.
pub(super) async fn import_batch(store: &PgStore, ladder: &Ladder, lines: &[Line]) -> Result<BatchOutcome, ApiError> {
    let _turn = store.shared.turn(ladder.id).await;
    let mut attempt = 0;
    loop {
        let mut conn = store.pool().get().await?;
        conn.in_transaction = true;
        match import_once(&conn.client, ladder, lines).await {
            Ok(outcome) => {
                if conn.client.batch_execute("ROLLBACK").await.is_ok() {
                    conn.in_transaction = false;
                }
                drop(conn);
                super::chainer::catch_up(&store.shared, ladder.id).await?;
                return outcome;
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
}

async fn import_once(c: &Client, ladder: &Ladder, lines: &[Line]) -> Result<Result<BatchOutcome, ApiError>, tokio_postgres::Error> {
    let ladder_key = i32::try_from(ladder.id).unwrap_or(i32::MAX);
    c.batch_execute("BEGIN").await?;
    // The transaction's id before any seq is taken (see super::HORIZON).
    c.batch_execute("SELECT pg_current_xact_id()").await?;
    c.execute("SELECT pg_advisory_xact_lock($1, $2)", &[&LOCK_CLASS, &ladder_key]).await?;
    let row = c.query_one("SELECT season, config, zero_sum_offset, zero_sum_sum, players, provisional_games FROM ladders WHERE id = $1 FOR NO KEY UPDATE", &[&ladder.id]).await?;
    let provisional_games: i64 = row.get("provisional_games");
    let season: i64 = row.get("season");
    let current = if season == ladder.season {
        None
    } else {
        match stored_rules(row.get("config")) {
            Ok(rules) => Some(Ladder { rules, config_json: row.get("config"), season, ..ladder.clone() }),
            Err(error) => return Ok(Err(error)),
        }
    };
    let ladder = current.as_ref().unwrap_or(ladder);
    let mut zero_sum =
        match ladder.zero_sum_total().map(|total| ZeroSum::from_stored(total, row.get("zero_sum_offset"), row.get::<_, &str>("zero_sum_sum"), row.get("players"))).transpose() {
            Ok(z) => z,
            Err(error) => return Ok(Err(error)),
        };
    // The newest entry's time (entries are in time order: reports take the server's time,
    // imports refuse an earlier one).
    let mut latest: f64 = c.query_opt("SELECT time FROM journal WHERE ladder_id = $1 ORDER BY seq DESC LIMIT 1", &[&ladder.id]).await?.map_or(0.0, |r| r.get(0));
    let ids: Vec<&str> = lines.iter().map(Line::journal_id).collect();
    let mut known: HashMap<String, (String, String)> = HashMap::new();
    for row in c.query("SELECT match_id, kind, inputs FROM journal WHERE ladder_id = $1 AND match_id = ANY($2)", &[&ladder.id, &ids]).await? {
        known.insert(row.get(0), (row.get(1), row.get(2)));
    }
    let mut names: Vec<&str> = lines
        .iter()
        .flat_map(|line| match &line.item {
            Item::Player { player, .. } => vec![player.as_str()],
            Item::Match(request) => request.players(),
        })
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut slots: HashMap<String, Slot> = HashMap::with_capacity(names.len());
    let select = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = $1 AND name = ANY($2)");
    for row in c.query(&select, &[&ladder.id, &names]).await? {
        match player_row(&row) {
            Ok(player) => {
                slots.insert(player.name, Slot { id: Some(player.id), state: player.state, read: Some(player.state) });
            }
            Err(error) => return Ok(Err(error)),
        }
    }

    let mut tally = Tally::default();
    let mut refused = None;
    let mut writes = Writes::default();
    for line in lines {
        let inputs = line.inputs_json();
        if let Some((kind, stored)) = known.get(line.journal_id()) {
            match replay_answer(line.journal_id(), kind, stored, line.kind(), &inputs, String::new) {
                Ok(_) => {
                    tally.already_applied += 1;
                    continue;
                }
                Err(error) => {
                    refused = Some(import::at_line(line.number, error));
                    break;
                }
            }
        }
        if line.time < latest {
            refused = Some(import::at_line(line.number, import::out_of_order(line.time, latest)));
            break;
        }
        let applied = match &line.item {
            Item::Player { journal_id, player, state } => add_player(ladder, zero_sum.is_some(), &mut slots, &mut writes, line, journal_id, player, state, &inputs),
            Item::Match(request) => add_match(ladder, zero_sum.as_mut(), &mut slots, &mut writes, line, request, &inputs),
        };
        if let Err(error) = applied {
            refused = Some(import::at_line(line.number, error));
            break;
        }
        // The same id twice in one input: the second is compared with the first.
        known.insert(line.journal_id().to_owned(), (line.kind().to_owned(), inputs));
        tally.applied += 1;
        latest = latest.max(line.time);
    }
    if writes.journal.count == 0 {
        c.batch_execute("ROLLBACK").await?;
        return Ok(Ok(BatchOutcome { tally, refused }));
    }
    write(c, ladder.id, provisional_games, zero_sum, slots, writes).await?;
    Ok(Ok(BatchOutcome { tally, refused }))
}

/// A player line: the player joins with the line's state.
#[allow(clippy::too_many_arguments)]
fn add_player(
    ladder: &Ladder,
    zero_sum: bool,
    slots: &mut HashMap<String, Slot>,
    writes: &mut Writes,
    line: &Line,
    journal_id: &str,
    player: &str,
    state: &PlayerState,
    inputs: &str,
) -> Result<(), ApiError> {
    if zero_sum {
        return Err(import::zero_sum_refused());
    }
    if slots.contains_key(player) {
        return Err(import::player_exists(player));
    }
    slots.insert(player.to_owned(), Slot { id: None, state: *state, read: None });
    let entry = writes.journal.count + 1;
    writes.joining_names.push(player.to_owned());
    writes.joining.entries.push(entry);
    writes.joining.positions.push(0);
    writes.joined_at.insert(player.to_owned(), (entry, 0));
    writes.joins += 1;
    let joined = serde_json::to_string(&[player]).unwrap_or_else(|_| "[]".into());
    writes.journal.push(&NewEntry { ladder: ladder.id, id: journal_id, kind: import::KIND, inputs, time: line.time, joined, results: import::player_results(player, state) });
    writes.journal.push_history(ladder.id, None, (entry, 0), state.rating, state.rating);
    Ok(())
}

/// A match line: applied by the engine at the line's time, as a report.
fn add_match(
    ladder: &Ladder,
    zero_sum: Option<&mut ZeroSum>,
    slots: &mut HashMap<String, Slot>,
    writes: &mut Writes,
    line: &Line,
    request: &MatchRequest,
    inputs: &str,
) -> Result<(), ApiError> {
    let mut working = zero_sum.as_deref().copied();
    let mut names = request.players();
    names.sort_unstable();
    let mut rows: HashMap<String, PlayerRow> = HashMap::with_capacity(names.len());
    let mut joined = Vec::new();
    for (position, name) in names.iter().enumerate() {
        let state = match slots.get(*name) {
            Some(slot) => slot.state,
            None => {
                joined.push((*name).to_owned());
                joining_state(&ladder.rules, working.as_mut(), line.time)
            }
        };
        // Row ids are the match's positions here; the slots hold the real ones.
        rows.insert((*name).to_owned(), PlayerRow { id: i64::try_from(position).unwrap_or(i64::MAX), name: (*name).to_owned(), state });
    }
    let applied = if ladder.options.rating_periods {
        crate::periods::hold_match(working.as_ref(), &rows, request, line.time)?
    } else {
        apply_match(&ladder.rules, working.as_mut(), &rows, request, line.time)?
    };
    for (position, state) in applied.writes {
        let name = names[usize::try_from(position).unwrap_or(0)];
        slots.entry(name.to_owned()).and_modify(|slot| slot.state = state).or_insert(Slot { id: None, state, read: None });
    }
    if let (Some(z), Some(w)) = (zero_sum, working) {
        *z = w;
    }
    let entry = writes.journal.count + 1;
    for (position, name) in joined.iter().enumerate() {
        let position = i64::try_from(position).unwrap_or(i64::MAX);
        writes.joining_names.push(name.clone());
        writes.joining.entries.push(entry);
        writes.joining.positions.push(position);
        writes.joined_at.insert(name.clone(), (entry, position));
    }
    if ladder.zero_sum_total().is_none() {
        writes.joins += i64::try_from(joined.len()).unwrap_or(i64::MAX);
    }
    let joined_text = serde_json::to_string(&joined).unwrap_or_else(|_| "[]".into());
    let results = model::results_json(&applied.players);
    writes.journal.push(&NewEntry { ladder: ladder.id, id: &request.id, kind: request.game.kind(), inputs, time: line.time, joined: joined_text, results });
    for ((view, before), name) in applied.players.iter().zip(&applied.before).zip(request.players()) {
        let id = slots.get(name).and_then(|slot| slot.id);
        let join = if id.is_some() { (0, 0) } else { writes.joined_at.get(name).copied().unwrap_or((0, 0)) };
        writes.journal.push_history(ladder.id, id, join, *before, view.state.rating);
    }
    Ok(())
}

/// The batch's writes in one round trip, then the commit.
async fn write(c: &Client, ladder: i64, provisional_games: i64, zero_sum: Option<ZeroSum>, slots: HashMap<String, Slot>, mut writes: Writes) -> Result<(), tokio_postgres::Error> {
    for name in &writes.joining_names {
        if let Some(slot) = slots.get(name) {
            writes.joining.push(0, ladder, name, &slot.state);
        }
    }
    let mut updates = Columns::default();
    let mut buckets = crate::store::ranks::BucketDeltas::default();
    let counted = |state: &PlayerState| (state.rating, i64::from(state.games_played) < provisional_games);
    for (name, slot) in &slots {
        match (slot.id, slot.read) {
            (Some(id), Some(read)) => {
                if slot.state != read || slot.state.rating.to_bits() != read.rating.to_bits() {
                    updates.push(id, ladder, name, &slot.state);
                    buckets.moved(ladder, counted(&read), counted(&slot.state));
                }
            }
            _ => buckets.joined(ladder, counted(&slot.state)),
        }
    }
    let update_players = c.prepare(UPDATE_PLAYERS).await?;
    let append = c.prepare(APPEND).await?;
    let apply_buckets = c.prepare(APPLY_BUCKETS).await?;
    let (bucket_ladders, bucket_levels, bucket_numbers, bucket_deltas) = buckets.columns();
    let bucket_params: [&(dyn ToSql + Sync); 4] = [&bucket_ladders, &bucket_levels, &bucket_numbers, &bucket_deltas];
    let update_params = updates.update_params();
    let append_params = writes.journal.params(&writes.joining);
    let (offset, sum, players) = zero_sum.map_or((None, None, None), |z| (Some(z.offset), Some(z.sum_text()), Some(i64::try_from(z.players).unwrap_or(i64::MAX))));
    let (triggers_off, updated, counted, savepoint, appended, bucketed, committed) = tokio::join!(
        c.batch_execute("SET LOCAL elo.rank_bulk = 'on'"),
        async {
            if updates.is_empty() {
                Ok(0)
            } else {
                c.execute(&update_players, &update_params).await
            }
        },
        async {
            match (&offset, &sum, &players) {
                (Some(offset), Some(sum), Some(players)) => {
                    c.execute("UPDATE ladders SET zero_sum_offset = $2, zero_sum_sum = $3, players = $4 WHERE id = $1", &[&ladder, offset, sum, players]).await
                }
                _ => c.execute("UPDATE ladders SET players = players + $2 WHERE id = $1", &[&ladder, &writes.joins]).await,
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
    counted?;
    savepoint?;
    appended?;
    bucketed?;
    committed?;
    Ok(())
}
