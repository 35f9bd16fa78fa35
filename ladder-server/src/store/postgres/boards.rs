//! PostgreSQL: a board's pages and lines around a player with exact ranks (see
//! [`crate::store::ranks`]), for the ladder's board (its players and `rank_buckets`) and a
//! tag's (its members and `tag_buckets`), which share every statement but the tables'.
//! Each runs inside the caller's read-only snapshot.

use std::sync::LazyLock;

use super::*;
use crate::store::ranks;

/// The statements of one kind of board.
pub(super) struct BoardSql {
    coarse: String,
    fine: String,
    page: String,
    above: String,
    settled_above: String,
    same_above: String,
    higher: String,
    same_below: String,
    lower: String,
}

impl BoardSql {
    /// `table` holds the board's rows (as `b`), keyed by `key`, the player's id in `id`;
    /// `lines` selects name, rating, league and games played from them; `buckets` counts
    /// them.
    fn new(table: &str, key: &str, id: &str, lines: &str, buckets: &str) -> Self {
        let counts = |levels: &str, all: &str, extra: &str, included: &str| {
            format!(
                "SELECT bucket, sum(CASE WHEN level = {all} THEN count WHEN {included}::int = 0 THEN -count ELSE 0 END)::bigint AS n FROM {buckets} \
                 WHERE {key} = $1 AND level IN {levels}{extra} GROUP BY bucket \
                 HAVING sum(CASE WHEN level = {all} THEN count WHEN {included}::int = 0 THEN -count ELSE 0 END) <> 0 ORDER BY bucket DESC"
            )
        };
        let above = |settled: &str, signed: &str, coarse_levels: &str, fine_levels: &str| {
            format!(
                "SELECT (SELECT coalesce(sum({signed_coarse}), 0) FROM {buckets} WHERE {key} = $1 AND level IN {coarse_levels} AND bucket > $2)::bigint \
                 + (SELECT coalesce(sum({signed_fine}), 0) FROM {buckets} WHERE {key} = $1 AND level IN {fine_levels} AND bucket > $3 AND bucket < $4)::bigint \
                 + (SELECT count(*) FROM {table} WHERE {key} = $1 AND rating > $5 AND rating < $6{settled}) \
                 + (SELECT count(*) FROM {table} WHERE {key} = $1 AND rating = $5 AND {id} < $7{settled})",
                signed_coarse = signed.replace("LEVEL", "1"),
                signed_fine = signed.replace("LEVEL", "0"),
            )
        };
        Self {
            coarse: counts("(1, 3)", "1", "", "$2"),
            fine: counts("(0, 2)", "0", " AND bucket >= $2 AND bucket < $3", "$4"),
            // The lines skipped and taken from the board's index alone (an index-only scan),
            // then their players: a skip within a fine bucket passes up to a thousand lines
            // of a large board, each a heap fetch if joined first (15.9 ms p99 for a page
            // half way down a 2,500,000-player tag).
            page: format!(
                "SELECT p.name, b.rating, p.league, b.games_played FROM \
                 (SELECT m.{id} AS id, m.rating, m.games_played FROM {table} m WHERE m.{key} = $1 AND m.rating < $4 AND m.games_played >= $5 \
                  ORDER BY m.rating DESC, m.{id} LIMIT $2 OFFSET $3) b \
                 JOIN players p ON p.id = b.id ORDER BY b.rating DESC, b.id"
            ),
            above: above("", "count", "(1)", "(0)"),
            settled_above: above(" AND games_played >= $8", "CASE WHEN level = LEVEL THEN count ELSE -count END", "(1, 3)", "(0, 2)"),
            same_above: format!("{lines} WHERE b.{key} = $1 AND b.rating = $2 AND b.{id} < $3 AND b.games_played >= $5 ORDER BY b.{id} DESC LIMIT $4"),
            higher: format!("{lines} WHERE b.{key} = $1 AND b.rating > $2 AND b.games_played >= $4 ORDER BY b.rating ASC, b.{id} DESC LIMIT $3"),
            same_below: format!("{lines} WHERE b.{key} = $1 AND b.rating = $2 AND b.{id} >= $3 AND b.games_played >= $5 ORDER BY b.{id} LIMIT $4"),
            lower: format!("{lines} WHERE b.{key} = $1 AND b.rating < $2 AND b.games_played >= $4 ORDER BY b.rating DESC, b.{id} LIMIT $3"),
        }
    }
}

/// The ladder's own board.
pub(super) static LADDER_BOARD: LazyLock<BoardSql> =
    LazyLock::new(|| BoardSql::new("players", "ladder_id", "id", "SELECT b.name, b.rating, b.league, b.games_played FROM players b", "rank_buckets"));

/// A tag's board.
pub(super) static TAG_BOARD: LazyLock<BoardSql> = LazyLock::new(|| {
    BoardSql::new("tag_members", "tag_id", "player_id", "SELECT p.name, b.rating, p.league, b.games_played FROM tag_members b JOIN players p ON p.id = b.player_id", "tag_buckets")
});

/// The ladder's zero-sum offset and `provisional_games`, in the snapshot.
pub(super) async fn ladder_numbers(conn: &mut Conn, ladder: i64) -> Result<(f64, i64), ApiError> {
    let statement = conn.prepare("SELECT zero_sum_offset, provisional_games FROM ladders WHERE id = $1").await?;
    let row = conn.client.query_one(&statement, &[&ladder]).await?;
    Ok((row.get(0), row.get(1)))
}

/// The fewest games of a player on the board of `mode`.
fn floor(threshold: i64, mode: Provisional) -> i64 {
    if mode == Provisional::Included {
        0
    } else {
        threshold
    }
}

/// `limit` lines of the board `key` (of `ladder`) from rank `offset + 1`: the top from the
/// index; a deeper page from the fine bucket holding its first line, so the index skips at
/// most one quarter point's players.
pub(super) async fn page(conn: &mut Conn, sql: &'static BoardSql, ladder: i64, key: i64, limit: i64, offset: i64, mode: Provisional) -> Result<Vec<BoardEntry>, ApiError> {
    let (zero_sum_offset, threshold) = ladder_numbers(conn, ladder).await?;
    let floor = floor(threshold, mode);
    // The provisional players' levels only count when the board leaves them out.
    let included = i32::from(floor == 0);
    let (top, skip) = if offset == 0 {
        (f32::INFINITY, 0)
    } else {
        let coarse = conn.prepare(&sql.coarse).await?;
        let fine = conn.prepare(&sql.fine).await?;
        let counts = |rows: Vec<tokio_postgres::Row>| rows.into_iter().map(|r| (r.get::<_, i64>(0), r.get::<_, i64>(1))).collect::<Vec<_>>();
        let Some((bucket, before)) = ranks::walk(counts(conn.client.query(&coarse, &[&key, &included]).await?), offset, 0) else {
            return Ok(Vec::new());
        };
        let (low, high) = (bucket * ranks::FINE_PER_COARSE, (bucket + 1) * ranks::FINE_PER_COARSE);
        let Some((bucket, before)) = ranks::walk(counts(conn.client.query(&fine, &[&key, &low, &high, &included]).await?), offset, before) else {
            return Ok(Vec::new());
        };
        (ranks::fine_top(bucket), offset - before)
    };
    let statement = conn.prepare(&sql.page).await?;
    let rows = conn.client.query(&statement, &[&key, &limit, &skip, &top, &floor]).await?;
    Ok(entries(rows.iter().map(line).collect(), offset + 1, zero_sum_offset, threshold))
}

/// How many players of the board `key` (of `mode`) rank above the one with stored `rating`
/// and id `id`.
pub(super) async fn above(conn: &mut Conn, sql: &'static BoardSql, key: i64, rating: f32, id: i64, floor: i64) -> Result<i64, ApiError> {
    let (fine, coarse) = ranks::buckets(rating);
    let (top, high) = (ranks::fine_top(fine), (coarse + 1) * ranks::FINE_PER_COARSE);
    let row = if floor == 0 {
        let statement = conn.prepare(&sql.above).await?;
        conn.client.query_one(&statement, &[&key, &coarse, &fine, &high, &rating, &top, &id]).await?
    } else {
        let statement = conn.prepare(&sql.settled_above).await?;
        conn.client.query_one(&statement, &[&key, &coarse, &fine, &high, &rating, &top, &id, &floor]).await?
    };
    Ok(row.get(0))
}

/// Up to `limit` lines of the board `key` (of `ladder`) centred on the player with id `id`
/// and stored `rating` (who is on it), with exact ranks.
#[allow(clippy::too_many_arguments)]
pub(super) async fn around(
    conn: &mut Conn,
    sql: &'static BoardSql,
    ladder: i64,
    key: i64,
    id: i64,
    rating: f32,
    limit: i64,
    mode: Provisional,
) -> Result<Vec<BoardEntry>, ApiError> {
    let (zero_sum_offset, threshold) = ladder_numbers(conn, ladder).await?;
    let floor = floor(threshold, mode);
    let better = above(conn, sql, key, rating, id, floor).await?;
    let same_above = conn.prepare(&sql.same_above).await?;
    let higher = conn.prepare(&sql.higher).await?;
    let same_below = conn.prepare(&sql.same_below).await?;
    let lower = conn.prepare(&sql.lower).await?;
    let above_wanted = (limit - 1) / 2;
    // The players just above, nearest first: the same rating with a lower id, then higher ratings.
    let mut lines: Vec<Line> = conn.client.query(&same_above, &[&key, &rating, &id, &above_wanted, &floor]).await?.iter().map(line).collect();
    let more = above_wanted - i64::try_from(lines.len()).unwrap_or(0);
    if more > 0 {
        lines.extend(conn.client.query(&higher, &[&key, &rating, &more, &floor]).await?.iter().map(line));
    }
    lines.reverse();
    let first_rank = better + 1 - i64::try_from(lines.len()).unwrap_or(0);
    // The player and those just below: the same rating with a higher id, then lower ratings.
    let below_wanted = limit - above_wanted;
    let mut below: Vec<Line> = conn.client.query(&same_below, &[&key, &rating, &id, &below_wanted, &floor]).await?.iter().map(line).collect();
    let more = below_wanted - i64::try_from(below.len()).unwrap_or(0);
    if more > 0 {
        below.extend(conn.client.query(&lower, &[&key, &rating, &more, &floor]).await?.iter().map(line));
    }
    lines.extend(below);
    Ok(entries(lines, first_rank, zero_sum_offset, threshold))
}

/// A board line as read: name, stored rating, league, games played.
type Line = (String, f32, i64, i64);

fn line(r: &tokio_postgres::Row) -> Line {
    (r.get(0), r.get(1), r.get(2), r.get(3))
}

/// Board entries from lines read in order, the first at rank `first_rank`.
fn entries(lines: Vec<Line>, first_rank: i64, zero_sum_offset: f64, threshold: i64) -> Vec<BoardEntry> {
    lines
        .into_iter()
        .enumerate()
        .map(|(i, (player, rating, league, games))| BoardEntry {
            rank: first_rank + i as i64,
            player,
            rating: ranking_elo::pool::effective_rating(rating, zero_sum_offset),
            league: u32::try_from(league).unwrap_or(0),
            provisional: games < threshold,
        })
        .collect()
}

/// Runs `read` in one read-only snapshot on `conn` (the connection is closed, not reused,
/// when it fails midway).
pub(super) async fn in_snapshot<T>(conn: &mut Conn, read: impl AsyncFnOnce(&mut Conn) -> Result<T, ApiError>) -> Result<T, ApiError> {
    conn.in_transaction = true;
    conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
    let result = read(conn).await;
    conn.client.batch_execute("COMMIT").await?;
    conn.in_transaction = false;
    result
}
