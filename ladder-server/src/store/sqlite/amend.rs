//! Annulments, corrections and erasures on SQLite: the writes that rewrite a ladder's
//! journal-derived rows. An amendment is a rebuild from the latest checkpoint (see
//! [`crate::replay`] and [`crate::checkpoint`]) in steps: each page of the journal read on a
//! read snapshot and written in a writer transaction of its own, so that other ladders'
//! writes go on between them (see `SqliteStore::staged_amend`). An erasure is a rename (see
//! [`crate::erase`]) in the writer's transaction.

use std::collections::HashMap;
use std::sync::Arc;

use rusqlite::{params, Connection, OptionalExtension};

use super::chain::chain_ladder;
use super::player_row;
use super::{append_journal, write_player, NewEntry, PLAYER_COLUMNS};
use crate::amend::{Action, Amendment, Outcome};
use crate::error::ApiError;
use crate::ladder::Ladder;
use crate::model;
use crate::replay::{PageChanges, Rebuild};
use ranking_elo::PlayerState;

/// An amendment under way: what its later steps, and a finish after a stop, need (also
/// kept in its `amend_progress` row).
pub(super) struct Started {
    /// The amended match's seq.
    pub target_seq: i64,
    /// The amendment entry's id.
    pub entry_id: String,
    /// What it does.
    pub amendment: Amendment,
}

/// What the first step of an amendment found.
pub(super) enum Begun {
    /// Answer this; nothing was written.
    Answer(Result<String, ApiError>),
    /// Marked: rebuild and finish it.
    Started(Started),
}

/// The first step of an annulment or correction, in the writer's transaction: the request
/// planned against the match ([`crate::amend::plan`]), the match marked, the checkpoints at
/// or after it dropped (the generation bumped, so none computed before is stored), and an
/// `amend_progress` row saved. From here the amendment is finished, never undone: the
/// rebuild is a function of the journal, so running it again (a step failed, or the server
/// stopped) gives the same rows ([`finish_unfinished`]).
pub(super) fn begin(c: &Connection, ladder: &Ladder, request: &crate::amend::Request) -> Result<Begun, ApiError> {
    use crate::amend::{plan, Action, Plan, Target};
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
        Plan::Answer(answer) => return Ok(Begun::Answer(answer)),
        Plan::Apply(amendment) => amendment,
    };
    let Some(target) = target else { unreachable!("planned with a target") };
    let (entry_id, reason) = match &amendment.action {
        Action::Annul { reason } => {
            c.execute("UPDATE journal SET annulled = 1, annul_reason = ?2 WHERE seq = ?1", params![target.seq, reason])?;
            (request.annul_id(), Some(reason.as_str()))
        }
        Action::Correct { game } => {
            c.execute("UPDATE journal SET corrected_inputs = ?2 WHERE seq = ?1", params![target.seq, serde_json::to_string(game).unwrap_or_default()])?;
            (request.correction_id(corrections.len() + 1), None)
        }
    };
    c.prepare_cached("DELETE FROM rebuild_checkpoints WHERE ladder_id = ?1 AND seq >= ?2")?.execute(params![ladder.id, target.seq])?;
    c.prepare_cached("UPDATE ladders SET amendments = amendments + 1 WHERE id = ?1")?.execute([ladder.id])?;
    c.prepare_cached("INSERT INTO amend_progress (ladder_id, target_seq, entry_id, match_id, action, reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?.execute(params![
        ladder.id,
        target.seq,
        entry_id,
        amendment.match_id,
        amendment.kind(),
        reason
    ])?;
    Ok(Begun::Started(Started { target_seq: target.seq, entry_id, amendment }))
}

/// A rebuild under way: the replayed ladder, the entry it has read through, and every
/// player's row id by name.
pub(super) struct Rebuilding {
    rebuild: Rebuild,
    after: i64,
    target_seq: i64,
    ids: HashMap<String, i64>,
}

/// The rebuild's start (on a read snapshot): the latest checkpoint before the match, or the
/// ladder's first season.
pub(super) fn start_rebuild(c: &Connection, ladder: &Ladder, target_seq: i64) -> Result<Rebuilding, ApiError> {
    let ids: HashMap<String, i64> =
        c.prepare_cached("SELECT name, id FROM players WHERE ladder_id = ?1")?.query_map([ladder.id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
    let base: Option<String> = c
        .prepare_cached("SELECT state FROM rebuild_checkpoints WHERE ladder_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT 1")?
        .query_row(params![ladder.id, target_seq], |r| r.get(0))
        .optional()?;
    let (rebuild, after) = crate::checkpoint::start(ladder, base.as_deref())?;
    Ok(Rebuilding { rebuild, after, target_seq, ids })
}

/// What one page of the rebuild writes.
pub(super) struct PageWrite {
    /// Entries read.
    replayed: usize,
    /// Entries whose results changed: seq, results, the entry's new size.
    results: Vec<(i64, String, i64)>,
    changes: PageChanges,
}

/// Reads the next page of the journal, up to `limit` entries (on a read snapshot; the ladder is gated, so nothing
/// else writes it) and runs it through the rebuild: what it changes, or `None` after the
/// last entry.
pub(super) fn read_page(c: &Connection, ladder_id: i64, rebuilding: &mut Rebuilding, limit: i64) -> Result<Option<PageWrite>, ApiError> {
    let entries = replay_entries(c, ladder_id, rebuilding.after, limit, false)?;
    let Some(last) = entries.last().map(|e| e.seq) else { return Ok(None) };
    let stored_lines: Vec<(i64, i64, f32, f32)> = c
        .prepare_cached("SELECT seq, player_id, rating_before, rating_after FROM player_entries WHERE seq > ?2 AND seq <= ?3 AND ladder_id = ?1")?
        .query_map(params![ladder_id, rebuilding.after, last], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, f64>(2)? as f32, r.get::<_, f64>(3)? as f32)))?
        .collect::<Result<_, _>>()?;
    rebuilding.after = last;
    let mut changes = rebuilding.rebuild.page(&entries, rebuilding.target_seq, &rebuilding.ids, &stored_lines)?;
    // (The page is in seq order.)
    let size = |seq: i64, results: &str| {
        let bytes = entries.binary_search_by_key(&seq, |e| e.seq).ok().map_or(0, |i| entries[i].inputs.len() + entries[i].joined.iter().map(String::len).sum::<usize>());
        i64::try_from(bytes + results.len()).unwrap_or(i64::MAX)
    };
    let results = std::mem::take(&mut changes.results)
        .into_iter()
        .map(|(seq, results)| {
            let bytes = size(seq, &results);
            (seq, results, bytes)
        })
        .collect();
    Ok(Some(PageWrite { replayed: entries.len(), results, changes }))
}

/// Writes one page's changes, and counts them in the ladder's `amend_progress` row (in the
/// same transaction: a finish after a stop adds what it rebuilds to what was counted).
pub(super) fn write_page(c: &Connection, ladder_id: i64, page: &PageWrite) -> Result<(), ApiError> {
    for (seq, results, bytes) in &page.results {
        c.prepare_cached("UPDATE journal SET results = ?2, bytes = ?3 WHERE seq = ?1")?.execute(params![seq, results, bytes])?;
    }
    let changes = &page.changes;
    for seq in &changes.history_seqs {
        c.prepare_cached("DELETE FROM player_entries WHERE seq = ?1")?.execute([seq])?;
    }
    for (seq, player, before, after) in &changes.history {
        c.prepare_cached("INSERT INTO player_entries (player_id, seq, ladder_id, rating_before, rating_after) VALUES (?1, ?2, ?3, ?4, ?5)")?.execute(params![
            player,
            seq,
            ladder_id,
            f64::from(*before),
            f64::from(*after)
        ])?;
    }
    for (season, standings) in &changes.standings {
        c.prepare_cached("DELETE FROM season_records WHERE ladder_id = ?1 AND season = ?2")?.execute(params![ladder_id, season])?;
        let mut insert = c.prepare_cached(
            "INSERT INTO season_records (ladder_id, season, rank, player_id, rating, peak_rating, league, peak_league, games, wins) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?;
        for s in standings {
            insert.execute(params![ladder_id, season, s.rank, s.player_id, f64::from(s.rating), f64::from(s.peak_rating), s.league, s.peak_league, s.games, s.wins])?;
        }
    }
    c.prepare_cached("UPDATE amend_progress SET rerated = rerated + ?2, replayed = replayed + ?3 WHERE ladder_id = ?1")?.execute(params![
        ladder_id,
        i64::try_from(changes.rerated).unwrap_or(i64::MAX),
        i64::try_from(page.replayed).unwrap_or(i64::MAX)
    ])?;
    Ok(())
}

/// The players the rebuild leaves in another state than their rows hold (on a read
/// snapshot, after the last page): row id, name and new state, by name.
pub(super) fn changed_players(c: &Connection, ladder_id: i64, rebuilding: &Rebuilding) -> Result<Vec<(i64, String, PlayerState)>, ApiError> {
    let mut changed = Vec::new();
    let mut statement = c.prepare(&format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1"))?;
    let mut rows = statement.query([ladder_id])?;
    while let Some(row) = rows.next()? {
        let row = player_row(row)?;
        let rebuilt = rebuilding.rebuild.players().get(&row.name).ok_or_else(|| ApiError::internal(format!("player {:?} is not in the journal", row.name)))?;
        if rebuilt.state != row.state || rebuilt.state.rating.to_bits() != row.state.rating.to_bits() {
            changed.push((row.id, row.name, rebuilt.state));
        }
    }
    changed.sort_unstable_by(|a, b| a.1.cmp(&b.1));
    Ok(changed)
}

/// Records which players the amendment changes (their number and the first
/// [`crate::amend::LISTED_PLAYERS`] names, its answer's) before their rows are written in
/// steps, unless an earlier run recorded them.
pub(super) fn record_changed(c: &Connection, ladder_id: i64, changed: &[(i64, String, PlayerState)]) -> Result<(), ApiError> {
    let names: Vec<&str> = changed.iter().take(crate::amend::LISTED_PLAYERS).map(|(_, name, _)| name.as_str()).collect();
    c.prepare_cached("UPDATE amend_progress SET players_changed = ?2, players = ?3 WHERE ladder_id = ?1 AND players_changed IS NULL")?.execute(params![
        ladder_id,
        i64::try_from(changed.len()).unwrap_or(i64::MAX),
        serde_json::to_string(&names).unwrap_or_default()
    ])?;
    Ok(())
}

/// Writes players' rebuilt states (the rank buckets follow through their triggers: a bulk
/// write and recount would turn them off for every ladder between the steps).
pub(super) fn write_players(c: &Connection, players: &[(i64, String, PlayerState)]) -> Result<(), ApiError> {
    for (id, _, state) in players {
        write_player(c, *id, state)?;
    }
    Ok(())
}

/// The last step: the ladder's zero-sum numbers and decay time as rebuilt, the
/// amendment journaled (with the outcome counted in its progress row) and chained, the
/// progress row removed. The answer.
pub(super) fn finish(c: &Connection, ladder_id: i64, rebuilding: &Rebuilding) -> Result<String, ApiError> {
    let rebuild = &rebuilding.rebuild;
    let (offset, sum) = rebuild.zero_sum().map_or((0.0, "0".to_owned()), |z| (z.offset, z.sum_text()));
    c.execute("UPDATE ladders SET zero_sum_offset = ?2, zero_sum_sum = ?3, decayed_through = ?4 WHERE id = ?1", params![ladder_id, offset, sum, rebuild.decayed_through()])?;
    let (started, counts) = progress(c, ladder_id)?.ok_or_else(|| ApiError::internal("an amendment without its progress row"))?;
    let names: Vec<String> = serde_json::from_str(counts.players.as_deref().unwrap_or("[]")).map_err(|e| ApiError::internal(format!("amend_progress.players: {e}")))?;
    let listed: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut outcome = Outcome::new(&started.amendment, counts.rerated, counts.replayed, &listed);
    // The names are the first of those changed.
    outcome.players_changed = usize::try_from(counts.players_changed.unwrap_or(0)).unwrap_or(0);
    let results = serde_json::to_string(&outcome).unwrap_or_default();
    let inputs = started.amendment.inputs_json();
    let seq = append_journal(
        c,
        &NewEntry {
            ladder: ladder_id,
            id: &started.entry_id,
            kind: started.amendment.kind(),
            inputs: &inputs,
            time: model::now(),
            joined: "[]".to_owned(),
            results: results.clone(),
        },
    )?;
    c.prepare_cached("UPDATE journal SET amends = ?2 WHERE seq = ?1")?.execute(params![seq, started.target_seq])?;
    chain_ladder(c, ladder_id)?;
    c.execute("DELETE FROM amend_progress WHERE ladder_id = ?1", [ladder_id])?;
    Ok(crate::amend::response(seq, &results))
}

/// What an `amend_progress` row has counted.
pub(super) struct Counted {
    rerated: usize,
    replayed: usize,
    players_changed: Option<i64>,
    players: Option<String>,
}

/// A ladder's amendment under way, if any.
pub(super) fn progress(c: &Connection, ladder_id: i64) -> Result<Option<(Started, Counted)>, ApiError> {
    type Row = (i64, String, String, String, Option<String>, i64, i64, Option<i64>, Option<String>, Option<String>);
    let row: Option<Row> = c
        .prepare_cached(
            "SELECT p.target_seq, p.entry_id, p.match_id, p.action, p.reason, p.rerated, p.replayed, p.players_changed, p.players, j.corrected_inputs \
             FROM amend_progress p JOIN journal j ON j.seq = p.target_seq WHERE p.ladder_id = ?1",
        )?
        .query_row([ladder_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?)))
        .optional()?;
    let Some((target_seq, entry_id, match_id, action, reason, rerated, replayed, players_changed, players, corrected)) = row else { return Ok(None) };
    let action = match (action.as_str(), reason, corrected) {
        ("annul", Some(reason), _) => Action::Annul { reason },
        ("correct", _, Some(game)) => Action::Correct { game: serde_json::from_str(&game).map_err(|e| ApiError::internal(format!("journal {target_seq}: {e}")))? },
        _ => return Err(ApiError::internal(format!("amend_progress of ladder {ladder_id}: action {action:?} without what it needs"))),
    };
    let counted = Counted { rerated: usize::try_from(rerated).unwrap_or(0), replayed: usize::try_from(replayed).unwrap_or(0), players_changed, players };
    Ok(Some((Started { target_seq, entry_id, amendment: Amendment { match_id, action } }, counted)))
}

/// [`finish_unfinished`] for every ladder at start, each in a savepoint of its own: the
/// number finished, and the ladders whose amendment could not be finished (they stay
/// unfinished, and closed, until a server finishes them).
pub(super) fn finish_each_unfinished(c: &Connection) -> Result<(usize, Vec<(i64, String)>), ApiError> {
    let ladders: Vec<i64> = c.prepare("SELECT ladder_id FROM amend_progress ORDER BY ladder_id")?.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
    let (mut finished, mut failed) = (0, Vec::new());
    for ladder_id in ladders {
        c.execute_batch("SAVEPOINT finish_amendment")?;
        match finish_unfinished(c, Some(ladder_id)) {
            Ok(n) => {
                c.execute_batch("RELEASE finish_amendment")?;
                finished += n;
            }
            Err(error) => {
                c.execute_batch("ROLLBACK TO finish_amendment; RELEASE finish_amendment")?;
                failed.push((ladder_id, error.message));
            }
        }
    }
    Ok((finished, failed))
}

/// Finishes, each in the caller's transaction, the amendments that did not (a step failed,
/// or the server stopped): the rebuild run again from the latest checkpoint before the
/// match, adding to what its progress row counted (pages already written change nothing).
/// `only`: one ladder's. The number finished.
pub(super) fn finish_unfinished(c: &Connection, only: Option<i64>) -> Result<usize, ApiError> {
    let ladders: Vec<(i64, String, String, i64, Option<String>)> = c
        .prepare("SELECT l.id, l.name, l.config, l.season, l.initial_config FROM amend_progress p JOIN ladders l ON l.id = p.ladder_id WHERE ?1 IS NULL OR p.ladder_id = ?1")?
        .query_map([only], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
        .collect::<Result<_, _>>()?;
    for (id, name, config, season, initial) in &ladders {
        let ladder = Ladder::from_row(*id, name.clone(), config.clone(), *season, initial.clone())?;
        let (started, _) = progress(c, ladder.id)?.ok_or_else(|| ApiError::internal("amend_progress vanished"))?;
        let mut rebuilding = start_rebuild(c, &ladder, started.target_seq)?;
        // The pages run again: those written before count nothing now.
        c.execute("UPDATE amend_progress SET replayed = 0 WHERE ladder_id = ?1", [ladder.id])?;
        while let Some(page) = read_page(c, ladder.id, &mut rebuilding, crate::store::REBUILD_PAGE)? {
            write_page(c, ladder.id, &page)?;
        }
        let changed = changed_players(c, ladder.id, &rebuilding)?;
        record_changed(c, ladder.id, &changed)?;
        write_players(c, &changed)?;
        finish(c, ladder.id, &rebuilding)?;
    }
    Ok(ladders.len())
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
    let pseudonym = crate::erase::pseudonym()?;
    let Some(id) = id else {
        // A player who only queued (never reported) is named in the queues alone.
        return Ok(super::queues::erase_from_queues(c, ladder.id, player, &pseudonym)?.then_some(pseudonym));
    };
    // seq, kind, inputs, correction, joined, results, keys.
    type Stored = (i64, String, String, Option<String>, String, String, Option<String>);
    let entries: Vec<Stored> = c
        .prepare_cached(
            "SELECT j.seq, j.kind, j.inputs, j.corrected_inputs, j.joined, j.results, j.player_keys FROM journal j \
             WHERE j.kind IN ('pair', 'team', 'free_for_all', 'import') \
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
    // Their waiting tickets are cancelled; tickets and queue matches carry the pseudonym.
    super::queues::erase_from_queues(c, ladder.id, player, &pseudonym)?;
    // Checkpoints hold names: dropped, and none computed before now is stored.
    c.execute("DELETE FROM rebuild_checkpoints WHERE ladder_id = ?1", [ladder.id])?;
    c.execute("UPDATE ladders SET amendments = amendments + 1 WHERE id = ?1", [ladder.id])?;
    Ok(Some(pseudonym))
}

impl super::SqliteStore {
    /// An annulment or correction in steps, each its own writer transaction, so that other
    /// ladders' writes wait for one step at most: the match marked ([`begin`]), each page of
    /// [`Self::event_step`] journal entries read on a read snapshot, run through the rebuild
    /// and written ([`read_page`], [`write_page`]), the changed players written
    /// [`Self::event_step`] at a time, and the amendment journaled
    /// ([`finish`]). The ladder's own reads and writes wait at its gate, held exclusively
    /// throughout, and see the amendment before or after, never half done. A step that fails
    /// (or a dropped request) finishes the amendment in one transaction before the gate
    /// opens; a server that stops finishes it when it starts.
    pub(super) async fn staged_amend(&self, ladder: Arc<Ladder>, request: crate::amend::Request) -> Result<String, ApiError> {
        let ladder_id = ladder.id;
        let exclusive = self.gate(ladder_id)?.write_owned().await;
        self.check_open(ladder_id)?;
        let begun = {
            let ladder = Arc::clone(&ladder);
            self.write(move |c| begin(c, &ladder, &request)).await?
        };
        let target_seq = match begun {
            Begun::Answer(answer) => return answer,
            Begun::Started(started) => started.target_seq,
        };
        let jobs = self.jobs.lock().map_err(|_| ApiError::internal("sqlite writer lock poisoned"))?.clone();
        // From here until it is disarmed, leaving this function (an error, or the future
        // dropped) finishes the amendment in one transaction before the gate opens.
        let mut unfinished = super::Unfinished { jobs, ladder_id, staged: super::Staged::Amendment, gate: Some(exclusive), broken: Arc::clone(&self.broken) };
        let step = self.event_step.max(1);
        let page_length = i64::try_from(step).unwrap_or(i64::MAX);
        let mut rebuilding = self.read(move |c| start_rebuild(c, &ladder, target_seq)).await?;
        // Each page is read while the one before it is written (what a page writes is
        // never what the next one reads: entries at or before the page, and their lines).
        let mut written: Option<PageWrite> = None;
        loop {
            let read = self.read(move |c| {
                let page = read_page(c, ladder_id, &mut rebuilding, page_length)?;
                Ok((rebuilding, page))
            });
            let (read, write) = match written.take() {
                Some(page) => tokio::join!(read, self.write(move |c| write_page(c, ladder_id, &page))),
                None => (read.await, Ok(())),
            };
            write?;
            let (back, page) = read?;
            rebuilding = back;
            match page {
                Some(page) => written = Some(page),
                None => break,
            }
        }
        let (rebuilding, changed) = self
            .read(move |c| {
                let changed = changed_players(c, ladder_id, &rebuilding)?;
                Ok((rebuilding, changed))
            })
            .await?;
        let changed = Arc::new(changed);
        for k in 0..changed.len().div_ceil(step).max(1) {
            let changed = Arc::clone(&changed);
            self.write(move |c| {
                if k == 0 {
                    record_changed(c, ladder_id, &changed)?;
                }
                write_players(c, &changed[(k * step).min(changed.len())..((k + 1) * step).min(changed.len())])
            })
            .await?;
        }
        let answer = self.write(move |c| finish(c, ladder_id, &rebuilding)).await?;
        // Done: the gate opens.
        drop(unfinished.gate.take());
        Ok(answer)
    }
}
