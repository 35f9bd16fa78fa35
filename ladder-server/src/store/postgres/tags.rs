//! PostgreSQL: the tags resource ([`crate::tags`]): players' tags and each tag's board.

use super::boards::{self, TAG_BOARD};
use super::*;
use crate::store::TagAround;
use crate::tags::{self, Tag, Tags};

impl crate::store::TagsStore for PgStore {
    fn tags<'a>(&'a self, ladder: &'a Ladder, player: &'a str) -> StoreFuture<'a, Option<Tags>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let Some(row) = conn.client.query_opt("SELECT id FROM players WHERE ladder_id = $1 AND name = $2", &[&ladder.id, &player]).await? else {
                return Ok(None);
            };
            let current = player_tags(&conn.client, row.get(0)).await?;
            Ok(Some(current.into_iter().map(|(key, (value, _))| (key, value)).collect()))
        })
    }

    fn set_tags<'a>(&'a self, ladder: &'a Ladder, player: &'a str, changes: &'a [(String, Option<String>)]) -> StoreFuture<'a, Option<Tags>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let mut attempt = 0;
            loop {
                conn.in_transaction = true;
                let result = set_tags_once(&conn.client, ladder, player, changes).await;
                match result {
                    Ok(tags) => {
                        conn.client.batch_execute("COMMIT").await?;
                        conn.in_transaction = false;
                        return Ok(tags);
                    }
                    Err(error) => {
                        conn.rollback().await;
                        attempt += 1;
                        match error {
                            TagsError::Database(e) if retryable(&e) && attempt < ATTEMPTS => continue,
                            TagsError::Database(e) => return Err(e.into()),
                            TagsError::Api(e) => return Err(e),
                        }
                    }
                }
            }
        })
    }

    fn tag_leaderboard<'a>(&'a self, ladder: &'a Ladder, tag: &'a Tag, limit: i64, offset: i64, mode: Provisional) -> StoreFuture<'a, Vec<BoardEntry>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            boards::in_snapshot(&mut conn, async |conn: &mut Conn| {
                let find = conn.prepare("SELECT id FROM tags WHERE ladder_id = $1 AND key = $2 AND value = $3").await?;
                let Some(row) = conn.client.query_opt(&find, &[&ladder.id, &tag.key, &tag.value]).await? else {
                    return Ok(Vec::new());
                };
                boards::page(conn, &TAG_BOARD, ladder.id, row.get(0), limit, offset, mode).await
            })
            .await
        })
    }

    fn tag_around<'a>(&'a self, ladder: &'a Ladder, tag: &'a Tag, player: &'a str, limit: i64, mode: Provisional) -> StoreFuture<'a, TagAround> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            boards::in_snapshot(&mut conn, async |conn: &mut Conn| {
                let find = conn
                    .prepare(
                        // The member looked up for the one player, in a LATERAL subquery kept
                        // whole by OFFSET 0: joined flat, it was planned as a scan of every
                        // member (names carry no statistics, so the player's row is taken for
                        // 5,000): 80 ms at 1,000,000 members.
                        "SELECT p.id, m.tag_id, m.rating, m.games_played, l.provisional_games FROM players p JOIN ladders l ON l.id = p.ladder_id \
                         LEFT JOIN LATERAL (SELECT b.tag_id, b.rating, b.games_played FROM tags t JOIN tag_members b ON b.tag_id = t.id AND b.player_id = p.id \
                           WHERE t.ladder_id = p.ladder_id AND t.key = $3 AND t.value = $4 OFFSET 0) m ON true \
                         WHERE p.ladder_id = $1 AND p.name = $2",
                    )
                    .await?;
                let Some(row) = conn.client.query_opt(&find, &[&ladder.id, &player, &tag.key, &tag.value]).await? else {
                    return Ok(TagAround::UnknownPlayer);
                };
                let (id, tag_id, rating, games, threshold): (i64, Option<i64>, Option<f32>, Option<i64>, i64) = (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
                let (Some(tag_id), Some(rating), Some(games)) = (tag_id, rating, games) else {
                    return Ok(TagAround::NotTagged);
                };
                if mode == Provisional::Excluded && games < threshold {
                    return Ok(TagAround::Provisional(games));
                }
                Ok(TagAround::Lines(boards::around(conn, &TAG_BOARD, ladder.id, tag_id, id, rating, limit, mode).await?))
            })
            .await
        })
    }

    fn tag_mismatches<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            boards::in_snapshot(&mut conn, async |conn: &mut Conn| {
                let mut found: Vec<String> = conn
                    .client
                    .query(
                        "SELECT p.name, t.key, t.value, m.rating::float8, p.rating::float8, m.games_played, p.games_played FROM tag_members m \
                         JOIN players p ON p.id = m.player_id JOIN tags t ON t.id = m.tag_id \
                         WHERE t.ladder_id = $1 AND (m.rating <> p.rating OR m.games_played <> p.games_played) LIMIT 10",
                        &[&ladder.id],
                    )
                    .await?
                    .iter()
                    .map(|r| {
                        format!(
                            "tag {}:{}: player {:?} is counted at rating {} with {} games, the player has {} and {}",
                            r.get::<_, String>(1),
                            r.get::<_, String>(2),
                            r.get::<_, String>(0),
                            r.get::<_, f64>(3),
                            r.get::<_, i64>(5),
                            r.get::<_, f64>(4),
                            r.get::<_, i64>(6)
                        )
                    })
                    .collect();
                let counts = conn
                    .client
                    .query(
                        "SELECT t.key, t.value, c.level::bigint, c.bucket, sum(c.stored)::bigint, sum(c.counted)::bigint FROM ( \
                           SELECT b.tag_id, b.level, b.bucket, b.count AS stored, 0 AS counted FROM tag_buckets b JOIN tags t ON t.id = b.tag_id WHERE t.ladder_id = $1 \
                           UNION ALL SELECT m.tag_id, v.level, v.bucket, 0, 1 FROM tag_members m JOIN tags t ON t.id = m.tag_id JOIN ladders l ON l.id = t.ladder_id \
                           CROSS JOIN LATERAL tag_bucket_levels(m.rating, m.games_played, l.provisional_games) AS v WHERE t.ladder_id = $1 \
                         ) c JOIN tags t ON t.id = c.tag_id GROUP BY c.tag_id, t.key, t.value, c.level, c.bucket \
                         HAVING sum(c.stored) <> sum(c.counted) ORDER BY c.tag_id, c.level, c.bucket LIMIT 10",
                        &[&ladder.id],
                    )
                    .await?;
                found.extend(counts.iter().map(|r| {
                    format!(
                        "tag {}:{}: rank bucket {} (level {}) counts {} players, the tag has {} there",
                        r.get::<_, String>(0),
                        r.get::<_, String>(1),
                        r.get::<_, i64>(3),
                        r.get::<_, i64>(2),
                        r.get::<_, i64>(4),
                        r.get::<_, i64>(5)
                    )
                }));
                found.truncate(10);
                Ok(found)
            })
            .await
        })
    }
}

/// A failed attempt at setting tags: the database's (perhaps worth another try) or a
/// refusal.
enum TagsError {
    Database(tokio_postgres::Error),
    Api(ApiError),
}

impl From<tokio_postgres::Error> for TagsError {
    fn from(error: tokio_postgres::Error) -> Self {
        Self::Database(error)
    }
}

/// One attempt at [`crate::store::TagsStore::set_tags`], left open for the caller to commit.
/// The ladder's shared lock orders it after a change of `provisional_games` (which recounts
/// the tags' provisional buckets); the player's row lock orders it with the reports that
/// write the player, so the members' copies are the committed rating and games.
async fn set_tags_once(c: &Client, ladder: &Ladder, player: &str, changes: &[(String, Option<String>)]) -> Result<Option<Tags>, TagsError> {
    let key = i32::try_from(ladder.id).unwrap_or(i32::MAX);
    c.batch_execute("BEGIN").await?;
    c.execute("SELECT pg_advisory_xact_lock_shared($1, $2)", &[&LOCK_CLASS, &key]).await?;
    let Some(row) = c.query_opt("SELECT id, rating, games_played FROM players WHERE ladder_id = $1 AND name = $2 FOR NO KEY UPDATE", &[&ladder.id, &player]).await? else {
        return Ok(None);
    };
    let (id, rating, games): (i64, f32, i64) = (row.get(0), row.get(1), row.get(2));
    let current = player_tags(c, id).await?;
    let after = tags::apply(current.iter().map(|(key, (value, _))| (key.clone(), value.clone())).collect(), changes).map_err(TagsError::Api)?;
    let leaving: Vec<i64> = current.iter().filter(|(key, (value, _))| after.get(*key) != Some(value)).map(|(_, (_, tag))| *tag).collect();
    let joining: Vec<(&String, &String)> = after.iter().filter(|(key, value)| current.get(*key).map(|(v, _)| v) != Some(*value)).collect();
    let (keys, values): (Vec<&String>, Vec<&String>) = joining.into_iter().unzip();
    if !keys.is_empty() {
        // A tag nobody held yet is made (another transaction making it too waits, then finds it).
        c.execute(
            "INSERT INTO tags (ladder_id, key, value) SELECT $1, k, v FROM unnest($2::text[], $3::text[]) AS n(k, v) ORDER BY k ON CONFLICT (ladder_id, key, value) DO NOTHING",
            &[&ladder.id, &keys, &values],
        )
        .await?;
    }
    let joined: Vec<i64> = if keys.is_empty() {
        Vec::new()
    } else {
        c.query("SELECT t.id FROM unnest($2::text[], $3::text[]) AS n(k, v) JOIN tags t ON t.ladder_id = $1 AND t.key = n.k AND t.value = n.v", &[&ladder.id, &keys, &values])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    if leaving.is_empty() && joined.is_empty() {
        return Ok(Some(after));
    }
    // Every bucket row the two statements below count in, locked first in one sorted
    // statement (made at 0 when missing), as a committer's one sorted upsert locks its own:
    // in two statements, leaving then joining, they could take them out of that order and
    // deadlock with a committer counting the same tags' buckets.
    let involved: Vec<i64> = leaving.iter().chain(&joined).copied().collect();
    c.execute(
        "INSERT INTO tag_buckets AS r (tag_id, level, bucket, shard, count) \
         SELECT k.tag_id, v.level, v.bucket, pg_backend_pid() % 4, 0 FROM unnest($1::bigint[]) AS k(tag_id) \
         CROSS JOIN LATERAL tag_bucket_levels($2, $3, (SELECT provisional_games FROM ladders WHERE id = $4)) AS v \
         ORDER BY 1, 2, 3 ON CONFLICT (tag_id, level, bucket, shard) DO UPDATE SET count = r.count",
        &[&involved, &rating, &games, &ladder.id],
    )
    .await?;
    if !leaving.is_empty() {
        c.execute("DELETE FROM tag_members WHERE player_id = $1 AND tag_id = ANY($2)", &[&id, &leaving]).await?;
    }
    if !joined.is_empty() {
        c.execute("INSERT INTO tag_members (tag_id, player_id, rating, games_played) SELECT unnest($1::bigint[]), $2, $3, $4", &[&joined, &id, &rating, &games]).await?;
    }
    Ok(Some(after))
}

/// The player's tags: key to (value, tag id).
async fn player_tags(c: &Client, player_id: i64) -> Result<std::collections::BTreeMap<String, (String, i64)>, tokio_postgres::Error> {
    let rows = c.query("SELECT t.key, t.value, t.id FROM tag_members m JOIN tags t ON t.id = m.tag_id WHERE m.player_id = $1", &[&player_id]).await?;
    Ok(rows.iter().map(|r| (r.get::<_, String>(0), (r.get::<_, String>(1), r.get::<_, i64>(2)))).collect())
}
