//! Annulments, corrections and erasures on PostgreSQL: the writes that rewrite a ladder's
//! journal-derived rows in one transaction holding the ladder's advisory lock exclusively
//! (a rebuild from the latest checkpoint, see [`crate::replay`] and [`crate::checkpoint`];
//! a rename, see [`crate::erase`]).

use std::collections::HashMap;

use futures_util::{pin_mut, TryStreamExt};
use tokio_postgres::Client;

use super::{player_row, Columns, EntryColumns, APPEND, HORIZON, LOCK_CLASS, PLAYER_COLUMNS, UPDATE_PLAYERS};
use crate::error::ApiError;
use crate::model;
use crate::store::{Ladder, NewEntry};

/// An annulment or correction in its own transaction, holding the ladder's advisory lock
/// exclusively (reports to the ladder wait in memory meanwhile, as for a season end): the
/// match marked, every state after it rebuilt from the journal, the amendment journaled.
/// `Ok` carries the API's answer; `Err` a database error (the caller rolls back).
pub(super) async fn amend_once(c: &Client, ladder: &Ladder, request: &crate::amend::Request) -> Result<Result<String, ApiError>, tokio_postgres::Error> {
    use crate::amend::{plan, Action, Outcome, Plan, Target};
    let ladder_key = i32::try_from(ladder.id).unwrap_or(i32::MAX);
    c.batch_execute("BEGIN").await?;
    c.execute("SELECT pg_advisory_xact_lock($1, $2)", &[&LOCK_CLASS, &ladder_key]).await?;
    let target = c
        .query_opt("SELECT seq, kind, inputs, corrected_inputs, annulled FROM journal WHERE ladder_id = $1 AND match_id = $2", &[&ladder.id, &request.match_id])
        .await?
        .map(|r| Target { seq: r.get(0), kind: r.get(1), inputs: r.get(2), corrected: r.get(3), annulled: r.get(4) });
    // The match's amendments, by kind and the amended entry (never by id text).
    let mut annulment: Option<(i64, String)> = None;
    let mut corrections: Vec<(i64, String)> = Vec::new();
    if let Some(target) = &target {
        for row in
            c.query("SELECT seq, results, kind FROM journal WHERE ladder_id = $1 AND amends = $2 AND kind IN ('annul', 'correct') ORDER BY seq", &[&ladder.id, &target.seq]).await?
        {
            if row.get::<_, &str>(2) == "annul" {
                annulment = annulment.or(Some((row.get(0), row.get(1))));
            } else {
                corrections.push((row.get(0), row.get(1)));
            }
        }
    }
    let amendment = match plan(request, target.as_ref(), annulment, corrections.last().cloned(), ladder) {
        Ok(Plan::Answer(answer)) => return Ok(answer),
        Ok(Plan::Apply(amendment)) => amendment,
        Err(error) => return Ok(Err(error)),
    };
    let Some(target) = target else { unreachable!("planned with a target") };
    let entry_id = match &amendment.action {
        Action::Annul { reason } => {
            c.execute("UPDATE journal SET annulled = true, annul_reason = $2 WHERE seq = $1", &[&target.seq, reason]).await?;
            request.annul_id()
        }
        Action::Correct { game } => {
            c.execute("UPDATE journal SET corrected_inputs = $2 WHERE seq = $1", &[&target.seq, &serde_json::to_string(game).unwrap_or_default()]).await?;
            request.correction_id(corrections.len() + 1)
        }
    };
    let mut stored: HashMap<String, crate::model::PlayerRow> = HashMap::new();
    {
        let stream = c.query_raw(&format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = $1"), [&ladder.id]).await?;
        pin_mut!(stream);
        while let Some(row) = stream.try_next().await? {
            match player_row(&row) {
                Ok(row) => {
                    stored.insert(row.name.clone(), row);
                }
                Err(error) => return Ok(Err(error)),
            }
        }
    }
    let ids: HashMap<String, i64> = stored.iter().map(|(name, row)| (name.clone(), row.id)).collect();
    // From the latest checkpoint before the match (those after it are stale now), or from
    // the first entry.
    c.execute("DELETE FROM rebuild_checkpoints WHERE ladder_id = $1 AND seq >= $2", &[&ladder.id, &target.seq]).await?;
    c.execute("UPDATE ladders SET amendments = amendments + 1 WHERE id = $1", &[&ladder.id]).await?;
    let base: Option<String> =
        c.query_opt("SELECT state FROM rebuild_checkpoints WHERE ladder_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT 1", &[&ladder.id, &target.seq]).await?.map(|r| r.get(0));
    let (mut rebuild, mut after) = match crate::checkpoint::start(ladder, base.as_deref()) {
        Ok(start) => start,
        Err(error) => return Ok(Err(error)),
    };
    let mut replayed = 0;
    let page_statement = c.prepare(&format!("SELECT {REPLAY_COLUMNS} FROM journal WHERE ladder_id = $1 AND seq > $2 ORDER BY seq LIMIT $3")).await?;
    let update_results = c
        .prepare("UPDATE journal j SET results = u.results, bytes = u.bytes FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS u(seq, results, bytes) WHERE j.seq = u.seq")
        .await?;
    let delete_history = c.prepare("DELETE FROM player_entries WHERE seq = ANY($1)").await?;
    let stored_history = c.prepare("SELECT seq, player_id, rating_before, rating_after FROM player_entries WHERE seq > $2 AND seq <= $3 AND ladder_id = $1").await?;
    let insert_history = c
        .prepare(
            "INSERT INTO player_entries (player_id, seq, ladder_id, rating_before, rating_after) \
             SELECT u.player, u.seq, $1, u.before, u.after FROM unnest($2::bigint[], $3::bigint[], $4::real[], $5::real[]) AS u(seq, player, before, after)",
        )
        .await?;
    let mut rerated = 0;
    loop {
        let rows = c.query(&page_statement, &[&ladder.id, &after, &crate::store::REBUILD_PAGE]).await?;
        let entries: Vec<crate::replay::StoredEntry> = rows.iter().map(stored_entry).collect();
        let Some(last) = entries.last().map(|e| e.seq) else { break };
        let stored_lines: Vec<(i64, i64, f32, f32)> =
            c.query(&stored_history, &[&ladder.id, &after, &last]).await?.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect();
        after = last;
        let changes = match rebuild.page(&entries, target.seq, &ids, &stored_lines) {
            Ok(changes) => changes,
            Err(error) => return Ok(Err(error)),
        };
        rerated += changes.rerated;
        replayed += entries.len();
        let sizes: HashMap<i64, usize> = entries.iter().map(|e| (e.seq, e.inputs.len() + serde_json::to_string(&e.joined).map_or(2, |t| t.len()))).collect();
        let seqs: Vec<i64> = changes.results.iter().map(|(seq, _)| *seq).collect();
        let texts: Vec<&str> = changes.results.iter().map(|(_, text)| text.as_str()).collect();
        let bytes: Vec<i64> = changes.results.iter().map(|(seq, text)| i64::try_from(sizes.get(seq).copied().unwrap_or(0) + text.len()).unwrap_or(i64::MAX)).collect();
        if !seqs.is_empty() {
            c.execute(&update_results, &[&seqs, &texts, &bytes]).await?;
        }
        if !changes.history_seqs.is_empty() {
            c.execute(&delete_history, &[&changes.history_seqs]).await?;
            let history_seqs: Vec<i64> = changes.history.iter().map(|h| h.0).collect();
            let players: Vec<i64> = changes.history.iter().map(|h| h.1).collect();
            let befores: Vec<f32> = changes.history.iter().map(|h| h.2).collect();
            let afters: Vec<f32> = changes.history.iter().map(|h| h.3).collect();
            c.execute(&insert_history, &[&ladder.id, &history_seqs, &players, &befores, &afters]).await?;
        }
        for (season, standings) in &changes.standings {
            c.execute("DELETE FROM season_records WHERE ladder_id = $1 AND season = $2", &[&ladder.id, season]).await?;
            let ranks: Vec<i64> = standings.iter().map(|s| s.rank).collect();
            let players: Vec<i64> = standings.iter().map(|s| s.player_id).collect();
            let ratings: Vec<f32> = standings.iter().map(|s| s.rating).collect();
            let peaks: Vec<f32> = standings.iter().map(|s| s.peak_rating).collect();
            let leagues: Vec<i64> = standings.iter().map(|s| i64::from(s.league)).collect();
            let peak_leagues: Vec<i64> = standings.iter().map(|s| i64::from(s.peak_league)).collect();
            let games: Vec<i64> = standings.iter().map(|s| i64::from(s.games)).collect();
            let wins: Vec<i64> = standings.iter().map(|s| i64::from(s.wins)).collect();
            c.execute(
                "INSERT INTO season_records (ladder_id, season, rank, player_id, rating, peak_rating, league, peak_league, games, wins) \
                 SELECT $1, $2, u.rank, u.player, u.rating, u.peak, u.league, u.peak_league, u.games, u.wins \
                 FROM unnest($3::bigint[], $4::bigint[], $5::real[], $6::real[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[]) \
                 AS u(rank, player, rating, peak, league, peak_league, games, wins)",
                &[&ladder.id, season, &ranks, &players, &ratings, &peaks, &leagues, &peak_leagues, &games, &wins],
            )
            .await?;
        }
    }
    let mut changed: Vec<&str> = Vec::new();
    let mut writes = Columns::default();
    for (name, row) in &stored {
        let Some(rebuilt) = rebuild.players().get(name) else {
            return Ok(Err(ApiError::internal(format!("player {name:?} is not in the journal"))));
        };
        if rebuilt.state != row.state || rebuilt.state.rating.to_bits() != row.state.rating.to_bits() {
            writes.push(row.id, ladder.id, "", &rebuilt.state);
            changed.push(name);
        }
    }
    changed.sort_unstable();
    if !writes.is_empty() {
        c.execute(UPDATE_PLAYERS, &writes.update_params()).await?;
    }
    let (offset, sum) = rebuild.zero_sum().map_or((0.0, "0".to_owned()), |z| (z.offset, z.sum_text()));
    c.execute("UPDATE ladders SET zero_sum_offset = $2, zero_sum_sum = $3 WHERE id = $1", &[&ladder.id, &offset, &sum]).await?;
    c.execute("UPDATE ladders SET decayed_through = $2 WHERE id = $1", &[&ladder.id, &rebuild.decayed_through()]).await?;
    let outcome = Outcome::new(&amendment, rerated, replayed, &changed);
    let results = serde_json::to_string(&outcome).unwrap_or_default();
    let inputs = amendment.inputs_json();
    let mut entry = EntryColumns::default();
    entry.push(&NewEntry { ladder: ladder.id, id: &entry_id, kind: amendment.kind(), inputs: &inputs, time: model::now(), joined: "[]".to_owned(), results: results.clone() });
    let nobody = Columns::default();
    c.batch_execute(HORIZON).await?;
    let seq: i64 = c.query_one(APPEND, &entry.params(&nobody)).await?.get("seq");
    c.execute("UPDATE journal SET amends = $2 WHERE seq = $1", &[&seq, &target.seq]).await?;
    c.batch_execute("COMMIT").await?;
    Ok(Ok(crate::amend::response(seq, &results)))
}

/// The time before which a ladder's entries may have no history lines (they were written
/// before version 0.2 kept them): when migration 0002 ran, if the ladder's first entry is
/// older; otherwise 0, and no entry needs reading by time.
pub(super) async fn history_lines_since(c: &Client, ladder_id: i64) -> Result<f64, tokio_postgres::Error> {
    let since = c
        .query_opt(
            "SELECT m.applied_at FROM schema_migrations m, (SELECT time FROM journal WHERE ladder_id = $1 ORDER BY seq LIMIT 1) AS first \
             WHERE m.version = 2 AND first.time < m.applied_at",
            &[&ladder_id],
        )
        .await?;
    Ok(since.map_or(0.0, |row| row.get(0)))
}

/// Stores a rebuild checkpoint (replacing one at the same entry) and keeps the ladder's
/// newest [`crate::checkpoint::KEPT`].
pub(super) async fn save_checkpoint(c: &Client, ladder_id: i64, seq: i64, state: &str) -> Result<(), tokio_postgres::Error> {
    c.execute(
        "INSERT INTO rebuild_checkpoints (ladder_id, seq, state) VALUES ($1, $2, $3) ON CONFLICT (ladder_id, seq) DO UPDATE SET state = excluded.state",
        &[&ladder_id, &seq, &state],
    )
    .await?;
    c.execute(
        "DELETE FROM rebuild_checkpoints WHERE ladder_id = $1 AND seq NOT IN (SELECT seq FROM rebuild_checkpoints WHERE ladder_id = $1 ORDER BY seq DESC LIMIT $2)",
        &[&ladder_id, &crate::checkpoint::KEPT],
    )
    .await?;
    Ok(())
}

/// An erasure in its own transaction, holding the ladder's lock exclusively (see
/// [`crate::erase`]).
pub(super) async fn erase_once(c: &Client, ladder: &Ladder, player: &str) -> Result<Option<String>, ApiError> {
    let ladder_key = i32::try_from(ladder.id).unwrap_or(i32::MAX);
    c.batch_execute("BEGIN").await?;
    // Webhook deliveries of the ladder reading or sending its entries finish first (on
    // every server); those after read the entries renamed ([`super::webhooks`]).
    c.execute("SELECT pg_advisory_xact_lock($1, $2)", &[&super::webhooks::NAMES_LOCK_CLASS, &ladder_key]).await?;
    c.execute("SELECT pg_advisory_xact_lock($1, $2)", &[&LOCK_CLASS, &ladder_key]).await?;
    let pseudonym = crate::erase::pseudonym()?;
    let Some(row) = c.query_opt("SELECT id FROM players WHERE ladder_id = $1 AND name = $2", &[&ladder.id, &player]).await? else {
        // A player who only queued (never reported) is named in the queues alone.
        if super::queues::erase_from_queues(c, ladder.id, player, &pseudonym).await? {
            c.batch_execute("COMMIT").await?;
            return Ok(Some(pseudonym));
        }
        return Ok(None);
    };
    let id: i64 = row.get(0);
    let rows = c
        .query(
            "SELECT j.seq, j.kind, j.inputs, j.corrected_inputs, j.joined, j.results, j.player_keys FROM journal j \
             WHERE j.kind IN ('pair', 'team', 'free_for_all', 'import') \
               AND (j.seq IN (SELECT seq FROM player_entries WHERE player_id = $1) OR (j.ladder_id = $2 AND j.time < $3))",
            &[&id, &ladder.id, &history_lines_since(c, ladder.id).await?],
        )
        .await?;
    let mut renamed = Vec::with_capacity(rows.len());
    for r in &rows {
        // (Entries written before history lines were kept have none: each is read, and
        // rewritten when it names the player.)
        let stored = (r.get(2), r.get(3), r.get(4), r.get(5), r.get(6));
        let entry = crate::erase::rename(r.get(0), r.get(1), stored, player, &pseudonym)?;
        if !entry.unchanged(stored) {
            renamed.push(entry);
        }
    }
    let seqs: Vec<i64> = renamed.iter().map(|r| r.seq).collect();
    let inputs: Vec<&str> = renamed.iter().map(|r| r.inputs.as_str()).collect();
    let corrected: Vec<Option<&str>> = renamed.iter().map(|r| r.corrected.as_deref()).collect();
    let joined: Vec<&str> = renamed.iter().map(|r| r.joined.as_str()).collect();
    let results: Vec<&str> = renamed.iter().map(|r| r.results.as_str()).collect();
    let bytes: Vec<i64> = renamed.iter().map(|r| r.bytes).collect();
    let keys: Vec<Option<&str>> = renamed.iter().map(|r| r.keys.as_deref()).collect();
    c.execute(
        "UPDATE journal j SET inputs = u.inputs, corrected_inputs = u.corrected, joined = u.joined, results = u.results, bytes = u.bytes, player_keys = u.keys \
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[]) AS u(seq, inputs, corrected, joined, results, bytes, keys) \
         WHERE j.seq = u.seq",
        &[&seqs, &inputs, &corrected, &joined, &results, &bytes, &keys],
    )
    .await?;
    for r in c.query("SELECT seq, inputs, joined, results FROM journal WHERE ladder_id = $1 AND kind IN ('annul', 'correct')", &[&ladder.id]).await? {
        if let Some(renamed) = crate::erase::rename_amendment(r.get(0), (r.get(1), r.get(2), r.get(3)), player, &pseudonym)? {
            c.execute("UPDATE journal SET inputs = $2, results = $3, bytes = $4 WHERE seq = $1", &[&renamed.seq, &renamed.inputs, &renamed.results, &renamed.bytes]).await?;
        }
    }
    c.execute("UPDATE players SET name = $2 WHERE id = $1", &[&id, &pseudonym]).await?;
    // Their waiting tickets are cancelled; tickets and queue matches carry the pseudonym.
    super::queues::erase_from_queues(c, ladder.id, player, &pseudonym).await?;
    // Checkpoints hold names: dropped, and none computed before now is stored.
    c.execute("DELETE FROM rebuild_checkpoints WHERE ladder_id = $1", &[&ladder.id]).await?;
    c.execute("UPDATE ladders SET amendments = amendments + 1 WHERE id = $1", &[&ladder.id]).await?;
    c.batch_execute("COMMIT").await?;
    Ok(Some(pseudonym))
}

/// The columns a rebuild reads of a journal entry ([`stored_entry`]).
pub(super) const REPLAY_COLUMNS: &str = "seq, kind, time, coalesce(corrected_inputs, inputs), joined, annulled, results";

/// A journal row of [`REPLAY_COLUMNS`] as a rebuild reads it.
pub(super) fn stored_entry(r: &tokio_postgres::Row) -> crate::replay::StoredEntry {
    crate::replay::StoredEntry {
        seq: r.get(0),
        kind: r.get(1),
        time: r.get(2),
        inputs: r.get(3),
        joined: serde_json::from_str(r.get::<_, &str>(4)).unwrap_or_default(),
        annulled: r.get(5),
        results: r.get(6),
    }
}
