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
            // The counts and the page in one snapshot.
            boards::in_snapshot(&mut conn, async |conn: &mut Conn| boards::page(conn, &boards::LADDER_BOARD, ladder.id, ladder.id, limit, offset, mode).await).await
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
            // One snapshot for the rank and the lines.
            boards::in_snapshot(&mut conn, async |conn: &mut Conn| {
                let find = conn.prepare("SELECT id, rating FROM players WHERE ladder_id = $1 AND name = $2").await?;
                let Some(row) = conn.client.query_opt(&find, &[&ladder.id, &player]).await? else {
                    return Ok(None);
                };
                Ok(Some(boards::around(conn, &boards::LADDER_BOARD, ladder.id, ladder.id, row.get(0), row.get(1), limit, mode).await?))
            })
            .await
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
