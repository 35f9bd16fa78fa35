//! SQLite: a board's exact ranks, pages and lines around a player (see [`ranks`]), for the
//! ladder's board (its players and `rank_buckets`) and a tag's (its members and
//! `tag_buckets`), which share every query but the tables'.

use super::*;

/// Which board: a ladder's, or one of its tags'.
#[derive(Debug, Clone, Copy)]
pub(super) struct Board {
    /// The ladder (its offset and `provisional_games` apply to its tags' boards too).
    pub ladder: i64,
    /// The tag, for a tag's board.
    pub tag: Option<i64>,
}

impl Board {
    /// The ladder's own board.
    pub fn ladder(ladder: i64) -> Self {
        Self { ladder, tag: None }
    }

    /// The board's rows as `b`: the players, or the tag's members.
    fn table(self) -> &'static str {
        if self.tag.is_some() {
            "tag_members"
        } else {
            "players"
        }
    }

    /// The column naming the board in its rows and buckets.
    fn key_column(self) -> &'static str {
        if self.tag.is_some() {
            "tag_id"
        } else {
            "ladder_id"
        }
    }

    /// The column holding the player's id in the board's rows.
    fn id_column(self) -> &'static str {
        if self.tag.is_some() {
            "player_id"
        } else {
            "id"
        }
    }

    /// The bucket counts' table.
    fn buckets(self) -> &'static str {
        if self.tag.is_some() {
            "tag_buckets"
        } else {
            "rank_buckets"
        }
    }

    /// The key's value.
    fn key(self) -> i64 {
        self.tag.unwrap_or(self.ladder)
    }

    /// `SELECT name, rating, league, games played FROM` the board's rows as `b`.
    fn lines(self) -> &'static str {
        if self.tag.is_some() {
            "SELECT p.name, b.rating, p.league, b.games_played FROM tag_members b JOIN players p ON p.id = b.player_id"
        } else {
            "SELECT b.name, b.rating, b.league, b.games_played FROM players b"
        }
    }
}

/// A board line as read: name, stored rating, league, games played.
type Line = (String, f64, i64, i64);

fn board_line(r: &rusqlite::Row<'_>) -> Result<Line, rusqlite::Error> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
}

/// The ladder's `provisional_games` as stored (what the rank counts follow).
pub(super) fn provisional_games(c: &Connection, ladder_id: i64) -> Result<i64, ApiError> {
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

/// The condition on games played (of the rows aliased `alias`) of the board whose fewest
/// games is `floor`, on parameter `?n`: a constant when every player is on it (the board
/// index alone serves the query).
fn games_filter(alias: &str, floor: i64, n: u8) -> String {
    if floor == 0 {
        format!("?{n} = 0")
    } else {
        format!("{alias}.games_played >= ?{n}")
    }
}

/// How many players of `board` (of `mode`) rank above the one with stored `rating` and id
/// `id`: the coarse buckets above, the fine buckets above within its coarse bucket, and an
/// index count within its fine bucket; without the provisional players, their levels (3 and
/// 2) subtracted and the index counts only of players with at least `provisional_games`
/// (the board indexes hold games played, so the count stays within the index).
pub(super) fn above(c: &Connection, board: Board, rating: f32, id: i64, mode: Provisional) -> Result<i64, ApiError> {
    let (fine, coarse) = ranks::buckets(rating);
    let floor = board_floor(provisional_games(c, board.ladder)?, mode);
    let (rating, top) = (f64::from(rating), f64::from(ranks::fine_top(fine)));
    let high = (coarse + 1) * ranks::FINE_PER_COARSE;
    let (table, key, id_column, buckets) = (board.table(), board.key_column(), board.id_column(), board.buckets());
    Ok(if floor == 0 {
        let sql = format!(
            "SELECT \
                (SELECT coalesce(sum(count), 0) FROM {buckets} WHERE {key} = ?1 AND level = 1 AND bucket > ?2) \
              + (SELECT coalesce(sum(count), 0) FROM {buckets} WHERE {key} = ?1 AND level = 0 AND bucket > ?3 AND bucket < ?4) \
              + (SELECT count(*) FROM {table} WHERE {key} = ?1 AND rating > ?5 AND rating < ?6) \
              + (SELECT count(*) FROM {table} WHERE {key} = ?1 AND rating = ?5 AND {id_column} < ?7)"
        );
        c.prepare_cached(&sql)?.query_row(params![board.key(), coarse, fine, high, rating, top, id], |r| r.get(0))?
    } else {
        let sql = format!(
            "SELECT \
                (SELECT coalesce(sum(CASE WHEN level = 1 THEN count ELSE -count END), 0) FROM {buckets} WHERE {key} = ?1 AND level IN (1, 3) AND bucket > ?2) \
              + (SELECT coalesce(sum(CASE WHEN level = 0 THEN count ELSE -count END), 0) FROM {buckets} WHERE {key} = ?1 AND level IN (0, 2) AND bucket > ?3 AND bucket < ?4) \
              + (SELECT count(*) FROM {table} WHERE {key} = ?1 AND rating > ?5 AND rating < ?6 AND games_played >= ?8) \
              + (SELECT count(*) FROM {table} WHERE {key} = ?1 AND rating = ?5 AND {id_column} < ?7 AND games_played >= ?8)"
        );
        c.prepare_cached(&sql)?.query_row(params![board.key(), coarse, fine, high, rating, top, id, floor], |r| r.get(0))?
    })
}

/// The fine bucket holding 0-based position `position` of the board of `mode` and the
/// players above it, walking the coarse counts and then the fine ones within (`None` past
/// the end).
fn locate(c: &Connection, board: Board, position: i64, mode: Provisional) -> Result<Option<(i64, i64)>, ApiError> {
    // The provisional players' levels only count when the board leaves them out.
    let mode = if board_floor(provisional_games(c, board.ladder)?, mode) == 0 { Provisional::Included } else { mode };
    let (buckets, key) = (board.buckets(), board.key_column());
    let coarse: Vec<(i64, i64)> = c
        .prepare_cached(&format!(
            "SELECT bucket, sum(CASE WHEN level = 1 THEN count WHEN ?2 = 0 THEN -count ELSE 0 END) AS n FROM {buckets} \
             WHERE {key} = ?1 AND level IN (1, 3) GROUP BY bucket HAVING n <> 0 ORDER BY bucket DESC"
        ))?
        .query_map(params![board.key(), mode.included()], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let Some((coarse, before)) = ranks::walk(coarse, position, 0) else {
        return Ok(None);
    };
    let fine: Vec<(i64, i64)> = c
        .prepare_cached(&format!(
            "SELECT bucket, sum(CASE WHEN level = 0 THEN count WHEN ?4 = 0 THEN -count ELSE 0 END) AS n FROM {buckets} \
             WHERE {key} = ?1 AND level IN (0, 2) AND bucket >= ?2 AND bucket < ?3 GROUP BY bucket HAVING n <> 0 ORDER BY bucket DESC"
        ))?
        .query_map(params![board.key(), coarse * ranks::FINE_PER_COARSE, (coarse + 1) * ranks::FINE_PER_COARSE, mode.included()], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(ranks::walk(fine, position, before))
}

/// `limit` lines of `board` from rank `offset + 1`: the top from the index; a deeper page
/// from the bucket holding its first line, so the index skips at most one quarter point's
/// players.
pub(super) fn page(c: &Connection, board: Board, limit: i64, offset: i64, mode: Provisional) -> Result<Vec<BoardEntry>, ApiError> {
    let zero_sum_offset = stored_offset(c, board.ladder)?;
    let threshold = provisional_games(c, board.ladder)?;
    let floor = board_floor(threshold, mode);
    let (top, skip) = if offset == 0 {
        (f64::INFINITY, 0)
    } else {
        match locate(c, board, offset, mode)? {
            Some((fine, before)) => (f64::from(ranks::fine_top(fine)), offset - before),
            None => return Ok(Vec::new()),
        }
    };
    // The lines skipped and taken from the board's index alone, then their players: a skip
    // within a fine bucket passes up to a thousand lines of a large board, each a table
    // lookup if joined first (2.75 ms p50 for a page half way down a 2,500,000-player tag).
    let (table, key, id) = (board.table(), board.key_column(), board.id_column());
    let sql = format!(
        "SELECT p.name, b.rating, p.league, b.games_played FROM \
         (SELECT m.{id} AS id, m.rating, m.games_played FROM {table} m WHERE m.{key} = ?1 AND m.rating < ?4 AND {} ORDER BY m.rating DESC, m.{id} LIMIT ?2 OFFSET ?3) b \
         JOIN players p ON p.id = b.id ORDER BY b.rating DESC, b.id",
        games_filter("m", floor, 5)
    );
    let rows = c.prepare_cached(&sql)?.query_map(params![board.key(), limit, skip, top, floor], board_line)?.collect::<Result<Vec<Line>, _>>()?;
    Ok(entries(rows, offset + 1, zero_sum_offset, threshold))
}

/// Up to `limit` lines of `board` centred on the player with id `id` and stored `rating`
/// (who is on it), with exact ranks.
pub(super) fn around(c: &Connection, board: Board, id: i64, rating: f64, limit: i64, mode: Provisional) -> Result<Vec<BoardEntry>, ApiError> {
    let threshold = provisional_games(c, board.ladder)?;
    let floor = board_floor(threshold, mode);
    let zero_sum_offset = stored_offset(c, board.ladder)?;
    #[allow(clippy::cast_possible_truncation)]
    let better = above(c, board, rating as f32, id, mode)?;
    let (lines, key, id_column) = (board.lines(), board.key_column(), board.id_column());
    let read = |condition: &str, order: &str, n: u8, wanted: i64, with_id: bool| -> Result<Vec<Line>, ApiError> {
        let sql = format!("{lines} WHERE b.{key} = ?1 AND {condition} AND {} ORDER BY {order} LIMIT ?{}", games_filter("b", floor, n), n - 1);
        let mut statement = c.prepare_cached(&sql)?;
        let rows = if with_id {
            statement.query_map(params![board.key(), rating, id, wanted, floor], board_line)?.collect::<Result<_, _>>()?
        } else {
            statement.query_map(params![board.key(), rating, wanted, floor], board_line)?.collect::<Result<_, _>>()?
        };
        Ok(rows)
    };
    let above_wanted = (limit - 1) / 2;
    // The players just above, nearest first: the same rating with a lower id, then higher ratings.
    let mut above_lines = read(&format!("b.rating = ?2 AND b.{id_column} < ?3"), &format!("b.{id_column} DESC"), 5, above_wanted, true)?;
    let more = above_wanted - i64::try_from(above_lines.len()).unwrap_or(0);
    if more > 0 {
        above_lines.extend(read("b.rating > ?2", &format!("b.rating ASC, b.{id_column} DESC"), 4, more, false)?);
    }
    above_lines.reverse();
    let below_wanted = limit - above_wanted;
    // The player and those just below: the same rating with a higher id, then lower ratings.
    let mut below = read(&format!("b.rating = ?2 AND b.{id_column} >= ?3"), &format!("b.{id_column}"), 5, below_wanted, true)?;
    let more = below_wanted - i64::try_from(below.len()).unwrap_or(0);
    if more > 0 {
        below.extend(read("b.rating < ?2", &format!("b.rating DESC, b.{id_column}"), 4, more, false)?);
    }
    let first_rank = better + 1 - i64::try_from(above_lines.len()).unwrap_or(0);
    above_lines.extend(below);
    Ok(entries(above_lines, first_rank, zero_sum_offset, threshold))
}

/// Board entries from lines read in order, the first at rank `first_rank`.
fn entries(lines: Vec<Line>, first_rank: i64, zero_sum_offset: f64, threshold: i64) -> Vec<BoardEntry> {
    #[allow(clippy::cast_possible_truncation)]
    lines
        .into_iter()
        .enumerate()
        .map(|(i, (player, rating, league, games))| BoardEntry {
            rank: first_rank + i as i64,
            player,
            rating: ranking_elo::pool::effective_rating(rating as f32, zero_sum_offset),
            league: u32::try_from(league).unwrap_or(0),
            provisional: games < threshold,
        })
        .collect()
}
