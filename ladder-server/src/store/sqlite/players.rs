//! SQLite: the players resource: a player with its rank, the leaderboard, lines around a
//! player, a player's history, erasure, and the rank counts' check.

use super::*;

impl crate::store::PlayersStore for SqliteStore {
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

    fn lines_of<'a>(&'a self, ladder: &'a Ladder, players: &'a [String]) -> StoreFuture<'a, Vec<BoardEntry>> {
        let (ladder_id, players) = (ladder.id, players.to_vec());
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let offset = stored_offset(c, ladder_id)?;
            let mut find = c.prepare_cached("SELECT id, rating, league FROM players WHERE ladder_id = ?1 AND name = ?2")?;
            let mut entries = Vec::with_capacity(players.len());
            for player in players {
                let found: Option<(i64, f64, i64)> = find.query_row(params![ladder_id, player], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).optional()?;
                let Some((id, rating, league)) = found else { continue };
                #[allow(clippy::cast_possible_truncation)]
                let stored = rating as f32;
                let better = players_above(c, ladder_id, stored, id)?;
                entries.push(BoardEntry { rank: better + 1, player, rating: ranking_elo::pool::effective_rating(stored, offset), league: u32::try_from(league).unwrap_or(0) });
            }
            entries.sort_by_key(|e| e.rank);
            Ok(entries)
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
}

/// The players above one (see [`ranks`]): the coarse buckets above, the fine buckets above
/// within its coarse bucket, and an index count within its fine bucket.
const PLAYERS_ABOVE: &str = "SELECT \
    (SELECT coalesce(sum(count), 0) FROM rank_buckets WHERE ladder_id = ?1 AND level = 1 AND bucket > ?2) \
  + (SELECT coalesce(sum(count), 0) FROM rank_buckets WHERE ladder_id = ?1 AND level = 0 AND bucket > ?3 AND bucket < ?4) \
  + (SELECT count(*) FROM players WHERE ladder_id = ?1 AND rating > ?5 AND rating < ?6) \
  + (SELECT count(*) FROM players WHERE ladder_id = ?1 AND rating = ?5 AND id < ?7)";

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
