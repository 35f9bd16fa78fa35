//! SQLite: the players resource: a player with its rank, the leaderboard, lines around a
//! player, a player's history, erasure, and the rank counts' check.

use super::boards::{self, provisional_games, Board};
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
            let rank = if provisional && mode == Provisional::Excluded { None } else { Some(boards::above(c, Board::ladder(ladder_id), row.state.rating, row.id, mode)? + 1) };
            Ok(Some(PlayerWithRank { view: view(row, offset), rank, provisional }))
        }))
    }

    fn leaderboard<'a>(&'a self, ladder: &'a Ladder, limit: i64, offset: i64, mode: Provisional) -> StoreFuture<'a, Vec<BoardEntry>> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| boards::page(c, Board::ladder(ladder_id), limit, offset, mode)))
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
                let better = boards::above(c, Board::ladder(ladder_id), stored, id, mode)?;
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
            let found: Option<(i64, f64)> = c
                .prepare_cached("SELECT id, rating FROM players WHERE ladder_id = ?1 AND name = ?2")?
                .query_row(params![ladder_id, player], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let Some((id, rating)) = found else {
                return Ok(None);
            };
            Ok(Some(boards::around(c, Board::ladder(ladder_id), id, rating, limit, mode)?))
        }))
    }

    fn erase<'a>(&'a self, ladder: Arc<Ladder>, player: &'a str) -> StoreFuture<'a, Option<String>> {
        let (player, ladder_id) = (player.to_owned(), ladder.id);
        let erased = self.write_ladder(ladder.id, move |c| amend::erase(c, &ladder, &player));
        Box::pin(async move {
            // Deliveries reading or sending the ladder's entries finish first; those after
            // read the entries renamed.
            let pseudonym = {
                let _names = self.names(ladder_id)?.write_owned().await;
                erased.await?
            };
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
