//! PostgreSQL: the ladders resource (rules, next rules, schedules and the scheduled events
//! due, each moved once across servers).

use super::*;

impl crate::store::LaddersStore for PgStore {
    fn put_ladder<'a>(&'a self, name: &'a str, config_json: &'a str) -> StoreFuture<'a, PutOutcome> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let inserted = conn
                .client
                .execute(
                    "INSERT INTO ladders (name, config, initial_config, created_at) VALUES ($1, $2, $2, $3) ON CONFLICT (name) DO NOTHING",
                    &[&name, &config_json, &model::now()],
                )
                .await?;
            if inserted == 1 {
                return Ok(PutOutcome::Created);
            }
            let stored: String = conn.client.query_one("SELECT config FROM ladders WHERE name = $1", &[&name]).await?.get(0);
            Ok(if canonical_config(&stored_rules(&stored)?) == config_json { PutOutcome::Same } else { PutOutcome::Differs })
        })
    }

    fn ladder<'a>(&'a self, name: &'a str) -> StoreFuture<'a, Option<Ladder>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let statement = conn.prepare("SELECT id, config, season, initial_config, options FROM ladders WHERE name = $1").await?;
            let Some(row) = conn.client.query_opt(&statement, &[&name]).await? else {
                return Ok(None);
            };
            Ok(Some(Ladder::from_row(row.get("id"), name.to_owned(), row.get("config"), row.get("season"), row.get("initial_config"))?.with_options(row.get("options"))?))
        })
    }

    fn ladders<'a>(&'a self, only: Option<&'a str>) -> StoreFuture<'a, Vec<LadderSummary>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let statement = conn
                .prepare(
                    "SELECT l.name, l.players, l.season, coalesce((SELECT max(j.seq) FROM journal j WHERE j.ladder_id = l.id), 0) AS last_seq, \
                     l.schedule_season_end, l.schedule_decay, l.next_season_end, l.next_decay, l.next_config, l.schedule_period_end, l.next_period_end \
                     FROM ladders l WHERE $1::text IS NULL OR l.name = $1 ORDER BY l.name",
                )
                .await?;
            let rows = conn.client.query(&statement, &[&only]).await?;
            Ok(rows
                .iter()
                .map(|r| LadderSummary {
                    name: r.get("name"),
                    players: r.get("players"),
                    season: r.get("season"),
                    last_seq: r.get("last_seq"),
                    schedule: ScheduleView { season_end: r.get("schedule_season_end"), decay: r.get("schedule_decay"), period_end: r.get("schedule_period_end") },
                    next: NextTimes { season_end: r.get("next_season_end"), decay: r.get("next_decay"), period_end: r.get("next_period_end") },
                    next_config_json: r.get("next_config"),
                })
                .collect())
        })
    }

    fn set_options<'a>(&'a self, ladder: &'a Ladder, options: &'a crate::ladder::LadderOptions) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let _turn = self.shared.turn(ladder.id).await;
            let mut conn = self.pool().get().await?;
            conn.in_transaction = true;
            let result = set_options_once(&conn.client, ladder.id, &options.to_json(), i64::from(options.provisional_games), options.rating_periods).await;
            if result.is_err() {
                conn.rollback().await;
            } else {
                conn.in_transaction = false;
            }
            Ok(result?)
        })
    }

    fn set_next_rules<'a>(&'a self, ladder: &'a Ladder, config_json: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            conn.client.execute("UPDATE ladders SET next_config = $2 WHERE id = $1", &[&ladder.id, &config_json]).await?;
            Ok(())
        })
    }

    fn set_schedule<'a>(&'a self, ladder: &'a Ladder, schedule: &'a ScheduleView, next: NextTimes) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            conn.client
                .execute(
                    "UPDATE ladders SET schedule_season_end = $2, schedule_decay = $3, next_season_end = $4, next_decay = $5, schedule_period_end = $6, next_period_end = $7 WHERE id = $1",
                    &[&ladder.id, &schedule.season_end, &schedule.decay, &next.season_end, &next.decay, &schedule.period_end, &next.period_end],
                )
                .await?;
            Ok(())
        })
    }

    fn due<'a>(&'a self, now: f64) -> StoreFuture<'a, Vec<(String, LadderEvent, f64)>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn
                .client
                .query("SELECT name, next_season_end, next_decay, next_period_end FROM ladders WHERE next_season_end <= $1 OR next_decay <= $1 OR next_period_end <= $1", &[&now])
                .await?;
            let mut due = Vec::new();
            for r in rows {
                let name: String = r.get(0);
                due.extend(super::super::due_events(&name, [r.get(1), r.get(2), r.get(3)], now));
            }
            Ok(due)
        })
    }

    fn advance<'a>(&'a self, ladder: &'a Ladder, event: LadderEvent, from: f64, to: Option<f64>) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let sql = match event {
                LadderEvent::SeasonEnd => "UPDATE ladders SET next_season_end = $3 WHERE id = $1 AND next_season_end = $2",
                LadderEvent::Decay => "UPDATE ladders SET next_decay = $3 WHERE id = $1 AND next_decay = $2",
                LadderEvent::PeriodEnd => "UPDATE ladders SET next_period_end = $3 WHERE id = $1 AND next_period_end = $2",
            };
            Ok(conn.client.execute(sql, &[&ladder.id, &from, &to]).await? == 1)
        })
    }
}

/// The options in one transaction holding the ladder's lock (the committers leave the
/// ladder's reports waiting meanwhile): a new `provisional_games` recounts the provisional
/// players' rank buckets (levels 2 and 3), the ladder's and its tags'.
async fn set_options_once(c: &Client, ladder: i64, options_json: &str, provisional: i64, periods: bool) -> Result<(), tokio_postgres::Error> {
    let key = i32::try_from(ladder).unwrap_or(i32::MAX);
    c.batch_execute("BEGIN").await?;
    c.execute("SELECT pg_advisory_xact_lock($1, $2)", &[&LOCK_CLASS, &key]).await?;
    let before: i64 = c.query_one("SELECT provisional_games FROM ladders WHERE id = $1 FOR NO KEY UPDATE", &[&ladder]).await?.get(0);
    c.execute("UPDATE ladders SET options = $2, provisional_games = $3, rating_periods = $4 WHERE id = $1", &[&ladder, &options_json, &provisional, &periods]).await?;
    if before != provisional {
        c.execute("DELETE FROM rank_buckets WHERE ladder_id = $1 AND level >= 2", &[&ladder]).await?;
        c.execute(
            "INSERT INTO rank_buckets (ladder_id, level, bucket, shard, count) \
             SELECT $1, 2, floor(rating::float8 * 4)::bigint, 0, count(*) FROM players WHERE ladder_id = $1 AND games_played < $2 GROUP BY 3 \
             UNION ALL SELECT $1, 3, floor(rating::float8 / 16)::bigint, 0, count(*) FROM players WHERE ladder_id = $1 AND games_played < $2 GROUP BY 3",
            &[&ladder, &provisional],
        )
        .await?;
        c.execute("DELETE FROM tag_buckets WHERE level >= 2 AND tag_id IN (SELECT id FROM tags WHERE ladder_id = $1)", &[&ladder]).await?;
        c.execute(
            "INSERT INTO tag_buckets (tag_id, level, bucket, shard, count) \
             SELECT m.tag_id, v.level, v.bucket, 0, count(*) FROM tag_members m JOIN tags t ON t.id = m.tag_id \
             CROSS JOIN LATERAL tag_bucket_levels(m.rating, m.games_played, $2) AS v WHERE t.ladder_id = $1 AND v.level >= 2 GROUP BY 1, 2, 3",
            &[&ladder, &provisional],
        )
        .await?;
    }
    c.batch_execute("COMMIT").await
}
