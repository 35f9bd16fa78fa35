//! Annulments, corrections and erasures on SQLite: the writes that rewrite a ladder's
//! journal-derived rows in the writer's transaction (a rebuild from the latest checkpoint,
//! see [`crate::replay`] and [`crate::checkpoint`]; a rename, see [`crate::erase`]).

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension};

use super::chain::chain_ladder;
use super::player_row;
use super::{append_journal, bulk_rank_writes, recount, write_player, NewEntry, PLAYER_COLUMNS};
use crate::error::ApiError;
use crate::ladder::Ladder;
use crate::model::{self, PlayerRow};

/// An annulment or correction in the writer's transaction: the match marked, every state
/// after it rebuilt from the journal, the amendment journaled (see [`crate::replay`]).
pub(super) fn amend(c: &Connection, ladder: &Ladder, request: &crate::amend::Request) -> Result<String, ApiError> {
    use crate::amend::{plan, Action, Outcome, Plan, Target};
    let target: Option<Target> = c
        .prepare_cached("SELECT seq, kind, inputs, corrected_inputs, annulled FROM journal WHERE ladder_id = ?1 AND match_id = ?2")?
        .query_row(params![ladder.id, request.match_id], |r| Ok(Target { seq: r.get(0)?, kind: r.get(1)?, inputs: r.get(2)?, corrected: r.get(3)?, annulled: r.get(4)? }))
        .optional()?;
    // The match's amendments, by kind and the amended entry (never by id text).
    let amendments = |kind: &str| -> Result<Vec<(i64, String)>, ApiError> {
        let Some(target) = &target else { return Ok(Vec::new()) };
        Ok(c.prepare_cached("SELECT seq, results FROM journal WHERE ladder_id = ?1 AND amends = ?2 AND kind = ?3 ORDER BY seq")?
            .query_map(params![ladder.id, target.seq, kind], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?)
    };
    let annulment = amendments("annul")?.into_iter().next();
    let corrections = amendments("correct")?;
    let amendment = match plan(request, target.as_ref(), annulment, corrections.last().cloned(), ladder)? {
        Plan::Answer(answer) => return answer,
        Plan::Apply(amendment) => amendment,
    };
    let Some(target) = target else { unreachable!("planned with a target") };
    let entry_id = match &amendment.action {
        Action::Annul { reason } => {
            c.execute("UPDATE journal SET annulled = 1, annul_reason = ?2 WHERE seq = ?1", params![target.seq, reason])?;
            request.annul_id()
        }
        Action::Correct { game } => {
            c.execute("UPDATE journal SET corrected_inputs = ?2 WHERE seq = ?1", params![target.seq, serde_json::to_string(game).unwrap_or_default()])?;
            request.correction_id(corrections.len() + 1)
        }
    };
    // Every player as stored now.
    let mut stored: HashMap<String, PlayerRow> = HashMap::new();
    {
        let mut statement = c.prepare(&format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1"))?;
        let mut rows = statement.query([ladder.id])?;
        while let Some(row) = rows.next()? {
            let row = player_row(row)?;
            stored.insert(row.name.clone(), row);
        }
    }
    let ids: HashMap<String, i64> = stored.iter().map(|(name, row)| (name.clone(), row.id)).collect();
    // The journal, page by page, through the engine: from the latest checkpoint before the
    // match (those after it are stale now), or from the first entry.
    c.prepare_cached("DELETE FROM rebuild_checkpoints WHERE ladder_id = ?1 AND seq >= ?2")?.execute(params![ladder.id, target.seq])?;
    c.prepare_cached("UPDATE ladders SET amendments = amendments + 1 WHERE id = ?1")?.execute([ladder.id])?;
    let base: Option<String> = c
        .prepare_cached("SELECT state FROM rebuild_checkpoints WHERE ladder_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT 1")?
        .query_row(params![ladder.id, target.seq], |r| r.get(0))
        .optional()?;
    let (mut rebuild, mut after) = crate::checkpoint::start(ladder, base.as_deref())?;
    let mut rerated = 0;
    let mut replayed = 0;
    loop {
        let entries = replay_entries(c, ladder.id, after, crate::store::REBUILD_PAGE, false)?;
        let Some(last) = entries.last().map(|e| e.seq) else { break };
        let first_seq = after;
        after = last;
        let stored_lines: Vec<(i64, i64, f32, f32)> = c
            .prepare_cached("SELECT seq, player_id, rating_before, rating_after FROM player_entries WHERE seq > ?2 AND seq <= ?3 AND ladder_id = ?1")?
            .query_map(params![ladder.id, first_seq, last], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, f64>(2)? as f32, r.get::<_, f64>(3)? as f32)))?
            .collect::<Result<_, _>>()?;
        let changes = rebuild.page(&entries, target.seq, &ids, &stored_lines)?;
        rerated += changes.rerated;
        replayed += entries.len();
        // (The page is in seq order.)
        let bytes_of = |seq: i64| entries.binary_search_by_key(&seq, |e| e.seq).ok().map(|i| (entries[i].inputs.len(), entries[i].joined.iter().map(String::len).sum::<usize>()));
        for (seq, results) in &changes.results {
            let (inputs, joined) = bytes_of(*seq).unwrap_or((0, 0));
            c.prepare_cached("UPDATE journal SET results = ?2, bytes = ?3 WHERE seq = ?1")?.execute(params![
                seq,
                results,
                i64::try_from(inputs + joined + results.len()).unwrap_or(i64::MAX)
            ])?;
        }
        for seq in &changes.history_seqs {
            c.prepare_cached("DELETE FROM player_entries WHERE seq = ?1")?.execute([seq])?;
        }
        for (seq, player, before, after) in &changes.history {
            c.prepare_cached("INSERT INTO player_entries (player_id, seq, ladder_id, rating_before, rating_after) VALUES (?1, ?2, ?3, ?4, ?5)")?.execute(params![
                player,
                seq,
                ladder.id,
                f64::from(*before),
                f64::from(*after)
            ])?;
        }
        for (season, standings) in &changes.standings {
            c.prepare_cached("DELETE FROM season_records WHERE ladder_id = ?1 AND season = ?2")?.execute(params![ladder.id, season])?;
            let mut insert = c.prepare_cached(
                "INSERT INTO season_records (ladder_id, season, rank, player_id, rating, peak_rating, league, peak_league, games, wins) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?;
            for s in standings {
                insert.execute(params![ladder.id, season, s.rank, s.player_id, f64::from(s.rating), f64::from(s.peak_rating), s.league, s.peak_league, s.games, s.wins])?;
            }
        }
    }
    // The players whose state changed.
    let mut changed: Vec<&str> = Vec::new();
    bulk_rank_writes(c)?;
    for (name, row) in &stored {
        let rebuilt = rebuild.players().get(name).ok_or_else(|| ApiError::internal(format!("player {name:?} is not in the journal")))?;
        if rebuilt.state != row.state || rebuilt.state.rating.to_bits() != row.state.rating.to_bits() {
            write_player(c, row.id, &rebuilt.state)?;
            changed.push(name);
        }
    }
    recount(c, ladder.id)?;
    changed.sort_unstable();
    let (offset, sum) = rebuild.zero_sum().map_or((0.0, "0".to_owned()), |z| (z.offset, z.sum_text()));
    c.execute("UPDATE ladders SET zero_sum_offset = ?2, zero_sum_sum = ?3 WHERE id = ?1", params![ladder.id, offset, sum])?;
    c.execute("UPDATE ladders SET decayed_through = ?2 WHERE id = ?1", params![ladder.id, rebuild.decayed_through()])?;
    let outcome = Outcome::new(&amendment, rerated, replayed, &changed);
    let results = serde_json::to_string(&outcome).unwrap_or_default();
    let inputs = amendment.inputs_json();
    let seq = append_journal(
        c,
        &NewEntry { ladder: ladder.id, id: &entry_id, kind: amendment.kind(), inputs: &inputs, time: model::now(), joined: "[]".to_owned(), results: results.clone() },
    )?;
    c.prepare_cached("UPDATE journal SET amends = ?2 WHERE seq = ?1")?.execute(params![seq, target.seq])?;
    chain_ladder(c, ladder.id)?;
    Ok(crate::amend::response(seq, &results))
}

/// The time before which a ladder's entries may have no history lines (they were written
/// before version 0.2 kept them): when migration 0002 ran, if the ladder's first entry is
/// older; otherwise 0, and no entry needs reading by time.
pub(super) fn history_lines_since(c: &Connection, ladder_id: i64) -> Result<f64, ApiError> {
    let since: Option<f64> = c
        .prepare_cached(
            "SELECT m.applied_at FROM schema_migrations m, (SELECT time FROM journal WHERE ladder_id = ?1 ORDER BY seq LIMIT 1) AS first \
             WHERE m.version = 2 AND first.time < m.applied_at",
        )?
        .query_row([ladder_id], |r| r.get(0))
        .optional()?;
    Ok(since.unwrap_or(0.0))
}

/// Up to `limit` journal entries of a ladder after `after`, as a rebuild reads them (only
/// chained ones when `chained`).
pub(super) fn replay_entries(c: &Connection, ladder_id: i64, after: i64, limit: i64, chained: bool) -> Result<Vec<crate::replay::StoredEntry>, ApiError> {
    Ok(c.prepare_cached(
        "SELECT seq, kind, time, coalesce(corrected_inputs, inputs), joined, annulled, results FROM journal \
         WHERE ladder_id = ?1 AND seq > ?2 AND (NOT ?4 OR hash IS NOT NULL) ORDER BY seq LIMIT ?3",
    )?
    .query_map(params![ladder_id, after, limit, chained], |r| {
        let joined: String = r.get(4)?;
        Ok(crate::replay::StoredEntry {
            seq: r.get(0)?,
            kind: r.get(1)?,
            time: r.get(2)?,
            inputs: r.get(3)?,
            joined: serde_json::from_str(&joined).unwrap_or_default(),
            annulled: r.get(5)?,
            results: r.get(6)?,
        })
    })?
    .collect::<Result<_, _>>()?)
}

/// Stores a rebuild checkpoint (replacing one at the same entry) and keeps the ladder's
/// newest [`crate::checkpoint::KEPT`].
pub(super) fn save_checkpoint(c: &Connection, ladder_id: i64, seq: i64, state: &str) -> Result<(), ApiError> {
    c.prepare_cached("INSERT OR REPLACE INTO rebuild_checkpoints (ladder_id, seq, state) VALUES (?1, ?2, ?3)")?.execute(params![ladder_id, seq, state])?;
    c.prepare_cached("DELETE FROM rebuild_checkpoints WHERE ladder_id = ?1 AND seq NOT IN (SELECT seq FROM rebuild_checkpoints WHERE ladder_id = ?1 ORDER BY seq DESC LIMIT ?2)")?
        .execute(params![ladder_id, crate::checkpoint::KEPT])?;
    Ok(())
}

/// An erasure in the writer's transaction (see [`crate::erase`]): the name replaced by a
/// pseudonym in the player's row and every journal entry naming it, the ladder's
/// checkpoints dropped; the pseudonym, or `None` for an unknown player.
pub(super) fn erase(c: &Connection, ladder: &Ladder, player: &str) -> Result<Option<String>, ApiError> {
    let id: Option<i64> = c.prepare_cached("SELECT id FROM players WHERE ladder_id = ?1 AND name = ?2")?.query_row(params![ladder.id, player], |r| r.get(0)).optional()?;
    let Some(id) = id else {
        return Ok(None);
    };
    let pseudonym = crate::erase::pseudonym()?;
    // seq, kind, inputs, correction, joined, results, keys.
    type Stored = (i64, String, String, Option<String>, String, String, Option<String>);
    let entries: Vec<Stored> = c
        .prepare_cached(
            "SELECT j.seq, j.kind, j.inputs, j.corrected_inputs, j.joined, j.results, j.player_keys FROM journal j \
             WHERE j.kind IN ('pair', 'team', 'free_for_all') \
               AND (j.seq IN (SELECT seq FROM player_entries WHERE player_id = ?1) OR (j.ladder_id = ?2 AND j.time < ?3))",
        )?
        .query_map(params![id, ladder.id, history_lines_since(c, ladder.id)?], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)))?
        .collect::<Result<_, _>>()?;
    for (seq, kind, inputs, corrected, joined, results, keys) in &entries {
        // (Entries written before history lines were kept have none: each is read,
        // and rewritten when it names the player.)
        let stored = (inputs.as_str(), corrected.as_deref(), joined.as_str(), results.as_str(), keys.as_deref());
        let renamed = crate::erase::rename(*seq, kind, stored, player, &pseudonym)?;
        if renamed.unchanged(stored) {
            continue;
        }
        c.prepare_cached("UPDATE journal SET inputs = ?2, corrected_inputs = ?3, joined = ?4, results = ?5, bytes = ?6, player_keys = ?7 WHERE seq = ?1")?.execute(params![
            renamed.seq,
            renamed.inputs,
            renamed.corrected,
            renamed.joined,
            renamed.results,
            renamed.bytes,
            renamed.keys
        ])?;
    }
    let amendments: Vec<(i64, String, String, String)> = c
        .prepare_cached("SELECT seq, inputs, joined, results FROM journal WHERE ladder_id = ?1 AND kind IN ('annul', 'correct')")?
        .query_map([ladder.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<Result<_, _>>()?;
    for (seq, inputs, joined, results) in &amendments {
        if let Some(renamed) = crate::erase::rename_amendment(*seq, (inputs, joined, results), player, &pseudonym)? {
            c.prepare_cached("UPDATE journal SET inputs = ?2, results = ?3, bytes = ?4 WHERE seq = ?1")?.execute(params![
                renamed.seq,
                renamed.inputs,
                renamed.results,
                renamed.bytes
            ])?;
        }
    }
    c.execute("UPDATE players SET name = ?2 WHERE id = ?1", params![id, pseudonym])?;
    // Checkpoints hold names: dropped, and none computed before now is stored.
    c.execute("DELETE FROM rebuild_checkpoints WHERE ladder_id = ?1", [ladder.id])?;
    c.execute("UPDATE ladders SET amendments = amendments + 1 WHERE id = ?1", [ladder.id])?;
    Ok(Some(pseudonym))
}
