//! SQLite: the players resource: a player with its rank, the leaderboard, lines around a
//! player, a player's history, erasure, and the rank counts' check.

use super::*;

impl crate::store::PlayersStore for SqliteStore {
    fn player<'a>(&'a self, ladder: &'a Ladder, name: &'a str, mode: Provisional) -> StoreFuture<'a, Option<PlayerWithRank>> {
        let (ladder_id, name) = (ladder.id, name.to_owned());
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let offset = stored_offset(c, ladder_id)?;
            let threshold = provisional_games(c, ladder_id)?;
            let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1 AND name = ?2");
            let mut statement = c.prepare_cached(&sql)?;
            let mut rows = statement.query(params![ladder_id, name])?;
            let Some(row) = rows.next()? else {
                return Ok(None);
            };
            let row = player_row(row)?;
            let provisional = i64::from(row.state.games_played) < threshold;
            let rank = if provisional && mode == Provisional::Excluded { None } else { Some(players_above(c, ladder_id, row.state.rating, row.id, mode)? + 1) };
            Ok(Some(PlayerWithRank { view: view(row, offset), rank, provisional }))
        }))
    }

    fn leaderboard<'a>(&'a self, ladder: &'a Ladder, limit: i64, offset: i64, mode: Provisional) -> StoreFuture<'a, Vec<BoardEntry>> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let zero_sum_offset = stored_offset(c, ladder_id)?;
            let threshold = provisional_games(c, ladder_id)?;
            // The top from the index; a deeper page from the bucket holding its first line, so
            // the index skips at most one quarter point's players (see [`ranks`]).
            let floor = board_floor(threshold, mode);
            let (top, skip) = if offset == 0 {
                (f64::INFINITY, 0)
            } else {
                match locate(c, ladder_id, offset, mode)? {
                    Some((fine, before)) => (f64::from(ranks::fine_top(fine)), offset - before),
                    None => return Ok(Vec::new()),
                }
            };
            let mut statement = c.prepare_cached(&format!(
                "SELECT name, rating, league, games_played FROM players WHERE ladder_id = ?1 AND rating < ?4 AND {} ORDER BY rating DESC, id LIMIT ?2 OFFSET ?3",
                games_filter(floor, 5)
            ))?;
            let rows = statement.query_map(params![ladder_id, limit, skip, top, floor], board_line)?;
            let mut entries = Vec::new();
            for (i, row) in rows.enumerate() {
                let (player, rating, league, games) = row?;
                #[allow(clippy::cast_possible_truncation)]
                let rating = ranking_elo::pool::effective_rating(rating as f32, zero_sum_offset);
                entries.push(BoardEntry { rank: offset + i as i64 + 1, player, rating, league: u32::try_from(league).unwrap_or(0), provisional: games < threshold });
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

    fn lines_of<'a>(&'a self, ladder: &'a Ladder, players: &'a [String], mode: Provisional) -> StoreFuture<'a, Vec<BoardEntry>> {
        let (ladder_id, players) = (ladder.id, players.to_vec());
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let offset = stored_offset(c, ladder_id)?;
            let threshold = provisional_games(c, ladder_id)?;
            let mut find = c.prepare_cached("SELECT id, rating, league, games_played FROM players WHERE ladder_id = ?1 AND name = ?2")?;
            let mut entries = Vec::with_capacity(players.len());
            for player in players {
                let found: Option<(i64, f64, i64, i64)> = find.query_row(params![ladder_id, player], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).optional()?;
                let Some((id, rating, league, games)) = found else { continue };
                #[allow(clippy::cast_possible_truncation)]
                let stored = rating as f32;
                let better = players_above(c, ladder_id, stored, id, mode)?;
                entries.push(BoardEntry {
                    rank: better + 1,
                    player,
                    rating: ranking_elo::pool::effective_rating(stored, offset),
                    league: u32::try_from(league).unwrap_or(0),
                    provisional: games < threshold,
                });
            }
            entries.sort_by_key(|e| e.rank);
            Ok(entries)
        }))
    }

    fn around<'a>(&'a self, ladder: &'a Ladder, player: &'a str, limit: i64, mode: Provisional) -> StoreFuture<'a, Option<Vec<BoardEntry>>> {
        let (ladder_id, player) = (ladder.id, player.to_owned());
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let threshold = provisional_games(c, ladder_id)?;
            let floor = board_floor(threshold, mode);
            let found: Option<(i64, f64)> = c
                .prepare_cached("SELECT id, rating FROM players WHERE ladder_id = ?1 AND name = ?2")?
                .query_row(params![ladder_id, player], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let Some((id, rating)) = found else {
                return Ok(None);
            };
            let offset = stored_offset(c, ladder_id)?;
            #[allow(clippy::cast_possible_truncation)]
            let better = players_above(c, ladder_id, rating as f32, id, mode)?;
            let above_wanted = (limit - 1) / 2;
            // The players just above, nearest first: the same rating with a lower id, then higher ratings.
            let mut above: Vec<Line> = c
                .prepare_cached(&format!(
                    "SELECT name, rating, league, games_played FROM players WHERE ladder_id = ?1 AND rating = ?2 AND id < ?3 AND {} ORDER BY id DESC LIMIT ?4",
                    games_filter(floor, 5)
                ))?
                .query_map(params![ladder_id, rating, id, above_wanted, floor], board_line)?
                .collect::<Result<_, _>>()?;
            let more = above_wanted - i64::try_from(above.len()).unwrap_or(0);
            if more > 0 {
                let higher: Vec<Line> = c
                    .prepare_cached(&format!(
                        "SELECT name, rating, league, games_played FROM players WHERE ladder_id = ?1 AND rating > ?2 AND {} ORDER BY rating ASC, id DESC LIMIT ?3",
                        games_filter(floor, 4)
                    ))?
                    .query_map(params![ladder_id, rating, more, floor], board_line)?
                    .collect::<Result<_, _>>()?;
                above.extend(higher);
            }
            above.reverse();
            let below_wanted = limit - above_wanted;
            // The player and those just below: the same rating with a higher id, then lower ratings.
            let mut below: Vec<Line> = c
                .prepare_cached(&format!(
                    "SELECT name, rating, league, games_played FROM players WHERE ladder_id = ?1 AND rating = ?2 AND id >= ?3 AND {} ORDER BY id LIMIT ?4",
                    games_filter(floor, 5)
                ))?
                .query_map(params![ladder_id, rating, id, below_wanted, floor], board_line)?
                .collect::<Result<_, _>>()?;
            let more = below_wanted - i64::try_from(below.len()).unwrap_or(0);
            if more > 0 {
                let lower: Vec<Line> = c
                    .prepare_cached(&format!(
                        "SELECT name, rating, league, games_played FROM players WHERE ladder_id = ?1 AND rating < ?2 AND {} ORDER BY rating DESC, id LIMIT ?3",
                        games_filter(floor, 4)
                    ))?
                    .query_map(params![ladder_id, rating, more, floor], board_line)?
                    .collect::<Result<_, _>>()?;
                below.extend(lower);
            }
            let first_rank = better + 1 - i64::try_from(above.len()).unwrap_or(0);
            #[allow(clippy::cast_possible_truncation)]
            let entries = above
                .into_iter()
                .chain(below)
                .enumerate()
                .map(|(i, (player, rating, league, games))| BoardEntry {
                    rank: first_rank + i as i64,
                    player,
                    rating: ranking_elo::pool::effective_rating(rating as f32, offset),
                    league: u32::try_from(league).unwrap_or(0),
                    provisional: games < threshold,
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

/// A board line as read: name, stored rating, league, games played.
type Line = (String, f64, i64, i64);

fn board_line(r: &rusqlite::Row<'_>) -> Result<Line, rusqlite::Error> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
}

/// The ladder's `provisional_games` as stored (what the rank counts follow).
fn provisional_games(c: &Connection, ladder_id: i64) -> Result<i64, ApiError> {
    Ok(c.prepare_cached("SELECT provisional_games FROM ladders WHERE id = ?1")?.query_row([ladder_id], |r| r.get(0))?)
}

/// The fewest games a player on the board of `mode` has.
fn board_floor(threshold: i64, mode: Provisional) -> i64 {
    if mode == Provisional::Included {
        0
    } else {
        threshold
    }
}

/// The players above one (see [`ranks`]) on the whole board: the coarse buckets above, the
/// fine buckets above within its coarse bucket, and an index count within its fine bucket.
const PLAYERS_ABOVE: &str = "SELECT \
    (SELECT coalesce(sum(count), 0) FROM rank_buckets WHERE ladder_id = ?1 AND level = 1 AND bucket > ?2) \
  + (SELECT coalesce(sum(count), 0) FROM rank_buckets WHERE ladder_id = ?1 AND level = 0 AND bucket > ?3 AND bucket < ?4) \
  + (SELECT count(*) FROM players WHERE ladder_id = ?1 AND rating > ?5 AND rating < ?6) \
  + (SELECT count(*) FROM players WHERE ladder_id = ?1 AND rating = ?5 AND id < ?7)";

/// The same on the board without the provisional players: their levels (3 and 2)
/// subtracted, and the index counts only of players with at least `?8` games (the board
/// index holds `games_played`, so the count stays within the index).
const SETTLED_PLAYERS_ABOVE: &str = "SELECT \
    (SELECT coalesce(sum(CASE WHEN level = 1 THEN count ELSE -count END), 0) FROM rank_buckets WHERE ladder_id = ?1 AND level IN (1, 3) AND bucket > ?2) \
  + (SELECT coalesce(sum(CASE WHEN level = 0 THEN count ELSE -count END), 0) FROM rank_buckets WHERE ladder_id = ?1 AND level IN (0, 2) AND bucket > ?3 AND bucket < ?4) \
  + (SELECT count(*) FROM players WHERE ladder_id = ?1 AND rating > ?5 AND rating < ?6 AND games_played >= ?8) \
  + (SELECT count(*) FROM players WHERE ladder_id = ?1 AND rating = ?5 AND id < ?7 AND games_played >= ?8)";

/// How many players of the board of `mode` rank above the player with stored `rating` and
/// row `id`.
fn players_above(c: &Connection, ladder_id: i64, rating: f32, id: i64, mode: Provisional) -> Result<i64, ApiError> {
    let (fine, coarse) = ranks::buckets(rating);
    let floor = board_floor(provisional_games(c, ladder_id)?, mode);
    let (rating, top) = (f64::from(rating), f64::from(ranks::fine_top(fine)));
    let high = (coarse + 1) * ranks::FINE_PER_COARSE;
    Ok(if floor == 0 {
        c.prepare_cached(PLAYERS_ABOVE)?.query_row(params![ladder_id, coarse, fine, high, rating, top, id], |r| r.get(0))?
    } else {
        c.prepare_cached(SETTLED_PLAYERS_ABOVE)?.query_row(params![ladder_id, coarse, fine, high, rating, top, id, floor], |r| r.get(0))?
    })
}

/// The condition on games played of the board whose fewest games is `floor`, on parameter
/// `?n`: a constant when every player is on it (the board index alone serves the query).
fn games_filter(floor: i64, n: u8) -> String {
    if floor == 0 {
        format!("?{n} = 0")
    } else {
        format!("games_played >= ?{n}")
    }
}

/// The fine bucket holding 0-based position `position` of the board of `mode` and the
/// players above it, walking the coarse counts and then the fine ones within (`None` past
/// the end).
fn locate(c: &Connection, ladder_id: i64, position: i64, mode: Provisional) -> Result<Option<(i64, i64)>, ApiError> {
    // The provisional players' levels only count when the board leaves them out.
    let mode = if board_floor(provisional_games(c, ladder_id)?, mode) == 0 { Provisional::Included } else { mode };
    let coarse: Vec<(i64, i64)> = c
        .prepare_cached(
            "SELECT bucket, sum(CASE WHEN level = 1 THEN count WHEN ?2 = 0 THEN -count ELSE 0 END) AS n FROM rank_buckets \
             WHERE ladder_id = ?1 AND level IN (1, 3) GROUP BY bucket HAVING n <> 0 ORDER BY bucket DESC",
        )?
        .query_map(params![ladder_id, mode.included()], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let Some((coarse, before)) = ranks::walk(coarse, position, 0) else {
        return Ok(None);
    };
    let fine: Vec<(i64, i64)> = c
        .prepare_cached(
            "SELECT bucket, sum(CASE WHEN level = 0 THEN count WHEN ?4 = 0 THEN -count ELSE 0 END) AS n FROM rank_buckets \
             WHERE ladder_id = ?1 AND level IN (0, 2) AND bucket >= ?2 AND bucket < ?3 GROUP BY bucket HAVING n <> 0 ORDER BY bucket DESC",
        )?
        .query_map(params![ladder_id, coarse * ranks::FINE_PER_COARSE, (coarse + 1) * ranks::FINE_PER_COARSE, mode.included()], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(ranks::walk(fine, position, before))
}
