//! PostgreSQL: the players resource: a player with its rank, the leaderboard, lines around a
//! player, a player's history, erasure, and the rank counts' check.

use super::*;

impl crate::store::PlayersStore for PgStore {
    fn player<'a>(&'a self, ladder: &'a Ladder, name: &'a str, mode: Provisional) -> StoreFuture<'a, Option<PlayerWithRank>> {
        Box::pin(async move {
            const STATEMENTS: [&str; 2] = ranked_statements!(
                "SELECT p.id, p.name, p.rating, p.games_played, p.win_streak, p.period_games, p.is_junior, p.has_reached_2400, p.league, p.protected_games, \
                 p.season_games, p.season_wins, p.peak_rating, p.peak_league, p.last_played, l.zero_sum_offset, l.zero_sum_sum, l.players AS ladder_players, \
                 p.games_played < l.provisional_games AS provisional, ",
                " AS better FROM players p JOIN ladders l ON l.id = p.ladder_id WHERE p.ladder_id = $1 AND p.name = $2"
            );
            let mut conn = self.pool().get().await?;
            let rows = ranked_read(&mut conn, ladder.id, &STATEMENTS, mode, &[&ladder.id, &name]).await?;
            let Some(row) = rows.first() else {
                return Ok(None);
            };
            // The offset as stored (0 unless the rules now have a total): a cached ladder's
            // rules may predate a season end that changed them.
            let provisional: bool = row.get("provisional");
            let rank = (!provisional || mode == Provisional::Included).then(|| row.get::<_, i64>("better") + 1);
            Ok(Some(PlayerWithRank { view: view(player_row(row)?, row.get("zero_sum_offset")), rank, provisional }))
        })
    }

    fn leaderboard<'a>(&'a self, ladder: &'a Ladder, limit: i64, offset: i64, mode: Provisional) -> StoreFuture<'a, Vec<BoardEntry>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let statement = conn
                .prepare(
                    "SELECT p.name, p.rating, p.league, l.zero_sum_offset, p.games_played < l.provisional_games AS provisional \
                     FROM players p JOIN ladders l ON l.id = p.ladder_id \
                     WHERE p.ladder_id = $1 AND p.rating < $4 AND p.games_played >= $5 ORDER BY p.rating DESC, p.id LIMIT $2 OFFSET $3",
                )
                .await?;
            let coarse = conn
                .prepare(
                    "SELECT bucket, sum(CASE WHEN level = 1 THEN count WHEN $2::int = 0 THEN -count ELSE 0 END)::bigint AS n FROM rank_buckets \
                     WHERE ladder_id = $1 AND level IN (1, 3) GROUP BY bucket \
                     HAVING sum(CASE WHEN level = 1 THEN count WHEN $2::int = 0 THEN -count ELSE 0 END) <> 0 ORDER BY bucket DESC",
                )
                .await?;
            let fine = conn
                .prepare(
                    "SELECT bucket, sum(CASE WHEN level = 0 THEN count WHEN $4::int = 0 THEN -count ELSE 0 END)::bigint AS n FROM rank_buckets \
                     WHERE ladder_id = $1 AND level IN (0, 2) AND bucket >= $2 AND bucket < $3 GROUP BY bucket \
                     HAVING sum(CASE WHEN level = 0 THEN count WHEN $4::int = 0 THEN -count ELSE 0 END) <> 0 ORDER BY bucket DESC",
                )
                .await?;
            let included = mode.included();
            // The top from the index; a deeper page from the fine bucket holding its first
            // line (the counts and the page in one snapshot), so the index skips at most one
            // quarter point's players.
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
            let result: Result<Vec<BoardEntry>, ApiError> = async {
                let (top, skip) = if offset == 0 {
                    (f32::INFINITY, 0)
                } else {
                    let counts = |rows: Vec<tokio_postgres::Row>| rows.into_iter().map(|r| (r.get::<_, i64>(0), r.get::<_, i64>(1))).collect::<Vec<_>>();
                    let Some((bucket, before)) = crate::store::ranks::walk(counts(conn.client.query(&coarse, &[&ladder.id, &included]).await?), offset, 0) else {
                        return Ok(Vec::new());
                    };
                    let (low, high) = (bucket * crate::store::ranks::FINE_PER_COARSE, (bucket + 1) * crate::store::ranks::FINE_PER_COARSE);
                    let Some((bucket, before)) = crate::store::ranks::walk(counts(conn.client.query(&fine, &[&ladder.id, &low, &high, &included]).await?), offset, before) else {
                        return Ok(Vec::new());
                    };
                    (crate::store::ranks::fine_top(bucket), offset - before)
                };
                let floor: i64 = if included == 1 { 0 } else { conn.client.query_one("SELECT provisional_games FROM ladders WHERE id = $1", &[&ladder.id]).await?.get(0) };
                let rows = conn.client.query(&statement, &[&ladder.id, &limit, &skip, &top, &floor]).await?;
                Ok(rows
                    .iter()
                    .enumerate()
                    .map(|(i, row)| BoardEntry {
                        rank: offset + i as i64 + 1,
                        player: row.get("name"),
                        rating: ranking_elo::pool::effective_rating(row.get("rating"), row.get("zero_sum_offset")),
                        league: u32::try_from(row.get::<_, i64>("league")).unwrap_or(0),
                        provisional: row.get("provisional"),
                    })
                    .collect())
            }
            .await;
            conn.client.batch_execute("COMMIT").await?;
            conn.in_transaction = false;
            result
        })
    }

    fn history<'a>(&'a self, ladder: &'a Ladder, player: &'a str, before: Option<i64>, limit: i64) -> StoreFuture<'a, Option<Vec<HistoryEntry>>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let find = conn.prepare("SELECT id FROM players WHERE ladder_id = $1 AND name = $2").await?;
            let lines = conn
                .prepare(
                    "SELECT e.seq, j.kind, j.match_id, j.time, e.rating_before, e.rating_after, j.annulled FROM player_entries e JOIN journal j ON j.seq = e.seq \
                     WHERE e.player_id = $1 AND e.seq < $2 ORDER BY e.seq DESC LIMIT $3",
                )
                .await?;
            let Some(row) = conn.client.query_opt(&find, &[&ladder.id, &player]).await? else {
                return Ok(None);
            };
            let id: i64 = row.get(0);
            let rows = conn.client.query(&lines, &[&id, &before.unwrap_or(i64::MAX), &limit]).await?;
            Ok(Some(
                rows.iter()
                    .map(|r| HistoryEntry { seq: r.get(0), kind: r.get(1), id: r.get(2), time: r.get(3), rating_before: r.get(4), rating_after: r.get(5), annulled: r.get(6) })
                    .collect(),
            ))
        })
    }

    fn lines_of<'a>(&'a self, ladder: &'a Ladder, players: &'a [String], mode: Provisional) -> StoreFuture<'a, Vec<BoardEntry>> {
        Box::pin(async move {
            const STATEMENTS: [&str; 2] = ranked_statements!(
                "SELECT p.name, p.rating, p.league, l.zero_sum_offset, p.games_played < l.provisional_games AS provisional, ",
                " AS better FROM players p JOIN ladders l ON l.id = p.ladder_id WHERE p.ladder_id = $1 AND p.name = ANY($2)"
            );
            let mut conn = self.pool().get().await?;
            // One snapshot: every rank from the same counts.
            let rows = ranked_read(&mut conn, ladder.id, &STATEMENTS, mode, &[&ladder.id, &players]).await?;
            let mut entries: Vec<BoardEntry> = rows
                .iter()
                .map(|r| BoardEntry {
                    rank: r.get::<_, i64>("better") + 1,
                    player: r.get("name"),
                    rating: ranking_elo::pool::effective_rating(r.get("rating"), r.get("zero_sum_offset")),
                    league: u32::try_from(r.get::<_, i64>("league")).unwrap_or(0),
                    provisional: r.get("provisional"),
                })
                .collect();
            entries.sort_by_key(|e| e.rank);
            Ok(entries)
        })
    }

    fn around<'a>(&'a self, ladder: &'a Ladder, player: &'a str, limit: i64, mode: Provisional) -> StoreFuture<'a, Option<Vec<BoardEntry>>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            const FIND: [&str; 2] = ranked_statements!(
                "SELECT p.id, p.rating, l.zero_sum_offset, ",
                " AS better, l.provisional_games FROM players p JOIN ladders l ON l.id = p.ladder_id WHERE p.ladder_id = $1 AND p.name = $2"
            );
            let same_above = conn
                .prepare("SELECT name, rating, league, games_played FROM players WHERE ladder_id = $1 AND rating = $2 AND id < $3 AND games_played >= $5 ORDER BY id DESC LIMIT $4")
                .await?;
            let higher = conn
                .prepare("SELECT name, rating, league, games_played FROM players WHERE ladder_id = $1 AND rating > $2 AND games_played >= $4 ORDER BY rating ASC, id DESC LIMIT $3")
                .await?;
            let same_below = conn
                .prepare("SELECT name, rating, league, games_played FROM players WHERE ladder_id = $1 AND rating = $2 AND id >= $3 AND games_played >= $5 ORDER BY id LIMIT $4")
                .await?;
            let lower = conn
                .prepare("SELECT name, rating, league, games_played FROM players WHERE ladder_id = $1 AND rating < $2 AND games_played >= $4 ORDER BY rating DESC, id LIMIT $3")
                .await?;
            // One snapshot for the rank and the lines.
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
            let result: Result<Option<Vec<BoardEntry>>, ApiError> = async {
                let threshold: i64 = conn.client.query_one("SELECT provisional_games FROM ladders WHERE id = $1", &[&ladder.id]).await?.get(0);
                let find = conn.client.prepare(ranked(&FIND, mode, threshold)).await?;
                let Some(row) = conn.client.query_opt(&find, &[&ladder.id, &player]).await? else {
                    return Ok(None);
                };
                let (id, rating, offset, better): (i64, f32, f64, i64) = (row.get(0), row.get(1), row.get(2), row.get(3));
                let floor = if mode == Provisional::Included { 0 } else { threshold };
                let line = |r: &tokio_postgres::Row| (r.get::<_, String>(0), r.get::<_, f32>(1), r.get::<_, i64>(2), r.get::<_, i64>(3));
                let above_wanted = (limit - 1) / 2;
                let mut above: Vec<(String, f32, i64, i64)> = conn.client.query(&same_above, &[&ladder.id, &rating, &id, &above_wanted, &floor]).await?.iter().map(line).collect();
                let more = above_wanted - i64::try_from(above.len()).unwrap_or(0);
                if more > 0 {
                    above.extend(conn.client.query(&higher, &[&ladder.id, &rating, &more, &floor]).await?.iter().map(line));
                }
                above.reverse();
                let below_wanted = limit - above_wanted;
                let mut below: Vec<(String, f32, i64, i64)> = conn.client.query(&same_below, &[&ladder.id, &rating, &id, &below_wanted, &floor]).await?.iter().map(line).collect();
                let more = below_wanted - i64::try_from(below.len()).unwrap_or(0);
                if more > 0 {
                    below.extend(conn.client.query(&lower, &[&ladder.id, &rating, &more, &floor]).await?.iter().map(line));
                }
                let first_rank = better + 1 - i64::try_from(above.len()).unwrap_or(0);
                Ok(Some(
                    above
                        .into_iter()
                        .chain(below)
                        .enumerate()
                        .map(|(i, (player, rating, league, games))| BoardEntry {
                            rank: first_rank + i as i64,
                            player,
                            rating: ranking_elo::pool::effective_rating(rating, offset),
                            league: u32::try_from(league).unwrap_or(0),
                            provisional: games < threshold,
                        })
                        .collect(),
                ))
            }
            .await;
            conn.client.batch_execute("COMMIT").await?;
            conn.in_transaction = false;
            result
        })
    }

    fn erase<'a>(&'a self, ladder: Arc<Ladder>, player: &'a str) -> StoreFuture<'a, Option<String>> {
        Box::pin(async move {
            let _turn = self.shared.turn(ladder.id).await;
            let mut conn = self.pool().get().await?;
            conn.in_transaction = true;
            let result = erase_once(&conn.client, &ladder, player).await;
            let _ = conn.client.batch_execute("ROLLBACK").await;
            conn.in_transaction = false;
            result
        })
    }

    fn rank_mismatches<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<(i64, i64, i64, i64)>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn
                .client
                .query(
                    "SELECT level::bigint, bucket, sum(stored)::bigint, sum(counted)::bigint FROM ( \
                       SELECT level, bucket, count AS stored, 0 AS counted FROM rank_buckets WHERE ladder_id = $1 \
                       UNION ALL SELECT 0, floor(rating::float8 * 4)::bigint, 0, 1 FROM players WHERE ladder_id = $1 \
                       UNION ALL SELECT 1, floor(rating::float8 / 16)::bigint, 0, 1 FROM players WHERE ladder_id = $1 \
                       UNION ALL SELECT 2, floor(p.rating::float8 * 4)::bigint, 0, 1 FROM players p JOIN ladders l ON l.id = p.ladder_id \
                         WHERE p.ladder_id = $1 AND p.games_played < l.provisional_games \
                       UNION ALL SELECT 3, floor(p.rating::float8 / 16)::bigint, 0, 1 FROM players p JOIN ladders l ON l.id = p.ladder_id \
                         WHERE p.ladder_id = $1 AND p.games_played < l.provisional_games \
                     ) c GROUP BY level, bucket HAVING sum(stored) <> sum(counted) ORDER BY level, bucket LIMIT 10",
                    &[&ladder.id],
                )
                .await?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect())
        })
    }

    fn all_players<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<crate::model::PlayerView>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            // One snapshot for the offset and the rows.
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
            let read = async {
                let offset: f64 = conn.client.query_one("SELECT zero_sum_offset FROM ladders WHERE id = $1", &[&ladder.id]).await?.get(0);
                let rows = conn.client.query(&format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = $1 ORDER BY id"), &[&ladder.id]).await?;
                rows.iter().map(|row| Ok(view(player_row(row)?, offset))).collect::<Result<Vec<_>, ApiError>>()
            }
            .await;
            conn.client.batch_execute("COMMIT").await?;
            conn.in_transaction = false;
            read
        })
    }
}

/// Runs one of `statements` ([`ranked_statements`]) in one read-only snapshot with the
/// ladder's `provisional_games` read first, so that the counts and the threshold agree.
async fn ranked_read(
    conn: &mut Conn,
    ladder: i64,
    statements: &[&'static str; 2],
    mode: Provisional,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Vec<tokio_postgres::Row>, ApiError> {
    conn.in_transaction = true;
    conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
    let rows = async {
        let threshold: i64 = conn.client.query_one("SELECT provisional_games FROM ladders WHERE id = $1", &[&ladder]).await?.get(0);
        let statement = conn.prepare(ranked(statements, mode, threshold)).await?;
        conn.client.query(&statement, params).await
    }
    .await;
    conn.client.batch_execute("COMMIT").await?;
    conn.in_transaction = false;
    Ok(rows?)
}
