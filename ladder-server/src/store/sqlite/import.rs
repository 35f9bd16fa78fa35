//! SQLite: imports ([`crate::import`]): a batch of lines in one write transaction, each
//! line in a savepoint of its own, so that a line the ladder refuses leaves nothing and the
//! lines before it are committed.

use super::matches::{report_at, season_moved};
use super::*;
use crate::import::{self, BatchOutcome, Item, Line, Tally};

/// Applies `lines` in order until one is refused.
pub(super) fn import_batch(c: &Connection, ladder: &Ladder, lines: &[Line]) -> Result<BatchOutcome, ApiError> {
    let mut tally = Tally::default();
    // The newest entry's time (entries are in time order: reports take the server's time,
    // imports refuse an earlier one).
    let mut latest: f64 =
        c.prepare_cached("SELECT time FROM journal WHERE ladder_id = ?1 ORDER BY seq DESC LIMIT 1")?.query_row([ladder.id], |r| r.get(0)).optional()?.unwrap_or(0.0);
    for line in lines {
        c.execute_batch("SAVEPOINT import_line")?;
        match import_line(c, ladder, line, latest) {
            Ok(true) => {
                c.execute_batch("RELEASE import_line")?;
                tally.applied += 1;
                latest = latest.max(line.time);
            }
            Ok(false) => {
                c.execute_batch("RELEASE import_line")?;
                tally.already_applied += 1;
            }
            Err(error) => {
                c.execute_batch("ROLLBACK TO import_line; RELEASE import_line")?;
                return Ok(BatchOutcome { tally, refused: Some(import::at_line(line.number, error)) });
            }
        }
    }
    Ok(BatchOutcome { tally, refused: None })
}

/// One line: `true` when applied now, `false` when an earlier run applied it.
fn import_line(c: &Connection, ladder: &Ladder, line: &Line, latest: f64) -> Result<bool, ApiError> {
    let inputs = line.inputs_json();
    if let Some((_, stored_kind, stored_inputs, _)) = find_entry(c, ladder.id, line.journal_id())? {
        return replay_answer(line.journal_id(), &stored_kind, &stored_inputs, line.kind(), &inputs, String::new).map(|_| false);
    }
    if line.time < latest {
        return Err(import::out_of_order(line.time, latest));
    }
    match &line.item {
        Item::Match(request) => {
            report_at(c, ladder, request, line.time)?;
        }
        Item::Player { journal_id, player, state } => {
            let moved = season_moved(c, ladder)?;
            if moved.as_ref().unwrap_or(ladder).zero_sum_total().is_some() {
                return Err(import::zero_sum_refused());
            }
            let exists: bool = c.prepare_cached("SELECT EXISTS (SELECT 1 FROM players WHERE ladder_id = ?1 AND name = ?2)")?.query_row(params![ladder.id, player], |r| r.get(0))?;
            if exists {
                return Err(import::player_exists(player));
            }
            let id = insert_player(c, ladder.id, player, state)?;
            c.prepare_cached("UPDATE ladders SET players = players + 1 WHERE id = ?1")?.execute([ladder.id])?;
            let joined = serde_json::to_string(&[player]).unwrap_or_else(|_| "[]".into());
            let results = import::player_results(player, state);
            let seq = append_journal(c, &NewEntry { ladder: ladder.id, id: journal_id, kind: import::KIND, inputs: &inputs, time: line.time, joined, results })?;
            chain_ladder(c, ladder.id)?;
            c.prepare_cached("INSERT INTO player_entries (player_id, seq, ladder_id, rating_before, rating_after) VALUES (?1, ?2, ?3, ?4, ?4)")?.execute(params![
                id,
                seq,
                ladder.id,
                f64::from(state.rating)
            ])?;
        }
    }
    Ok(true)
}
