//! SQLite: the ladders resource (rules, next rules, schedules and the scheduled events due).

use super::*;

impl crate::store::LaddersStore for SqliteStore {
    fn put_ladder<'a>(&'a self, name: &'a str, config_json: &'a str) -> StoreFuture<'a, PutOutcome> {
        let (name, config_json) = (name.to_owned(), config_json.to_owned());
        Box::pin(self.write(move |c| {
            let existing: Option<String> = c.query_row("SELECT config FROM ladders WHERE name = ?1", [&name], |r| r.get(0)).optional()?;
            match existing {
                Some(stored) if canonical_config(&stored_rules(&stored)?) == config_json => Ok(PutOutcome::Same),
                Some(_) => Ok(PutOutcome::Differs),
                None => {
                    c.execute("INSERT INTO ladders (name, config, initial_config, created_at) VALUES (?1, ?2, ?2, ?3)", params![name, config_json, model::now()])?;
                    Ok(PutOutcome::Created)
                }
            }
        }))
    }

    fn ladder<'a>(&'a self, name: &'a str) -> StoreFuture<'a, Option<Ladder>> {
        let name = name.to_owned();
        Box::pin(self.read(move |c| {
            let row: Option<(i64, String, i64, Option<String>, String)> = c
                .prepare_cached("SELECT id, config, season, initial_config, options FROM ladders WHERE name = ?1")?
                .query_row([&name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
                .optional()?;
            row.map(|(id, config_json, season, initial, options)| Ladder::from_row(id, name, config_json, season, initial)?.with_options(&options)).transpose()
        }))
    }

    fn ladders<'a>(&'a self, only: Option<&'a str>) -> StoreFuture<'a, Vec<LadderSummary>> {
        let only = only.map(str::to_owned);
        Box::pin(self.read(move |c| {
            let mut statement = c.prepare_cached(
                "SELECT l.name, l.players, l.season, coalesce((SELECT j.seq FROM journal j WHERE j.ladder_id = l.id AND j.hash IS NOT NULL ORDER BY j.seq DESC LIMIT 1), 0), \
                 l.schedule_season_end, l.schedule_decay, l.next_season_end, l.next_decay, l.next_config, l.schedule_period_end, l.next_period_end FROM ladders l \
                 WHERE ?1 IS NULL OR l.name = ?1 ORDER BY l.name",
            )?;
            let rows = statement.query_map(params![only], |r| {
                Ok(LadderSummary {
                    name: r.get(0)?,
                    players: r.get(1)?,
                    season: r.get(2)?,
                    last_seq: r.get(3)?,
                    schedule: ScheduleView { season_end: r.get(4)?, decay: r.get(5)?, period_end: r.get(9)? },
                    next: NextTimes { season_end: r.get(6)?, decay: r.get(7)?, period_end: r.get(10)? },
                    next_config_json: r.get(8)?,
                })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        }))
    }

    fn set_options<'a>(&'a self, ladder: &'a Ladder, options: &'a crate::ladder::LadderOptions) -> StoreFuture<'a, ()> {
        let (id, options_json, provisional, periods) = (ladder.id, options.to_json(), i64::from(options.provisional_games), options.rating_periods);
        Box::pin(self.write_ladder(id, move |c| {
            let before: i64 = c.prepare_cached("SELECT provisional_games FROM ladders WHERE id = ?1")?.query_row([id], |r| r.get(0))?;
            c.execute("UPDATE ladders SET options = ?2, provisional_games = ?3, rating_periods = ?4 WHERE id = ?1", params![id, options_json, provisional, periods])?;
            if before != provisional {
                // The provisional players counted afresh under the new threshold.
                c.prepare_cached("DELETE FROM rank_buckets WHERE ladder_id = ?1 AND level >= 2")?.execute([id])?;
                c.prepare_cached(RECOUNT_PROVISIONAL)?.execute([id])?;
                c.prepare_cached("DELETE FROM tag_buckets WHERE level >= 2 AND tag_id IN (SELECT id FROM tags WHERE ladder_id = ?1)")?.execute([id])?;
                c.prepare_cached(RECOUNT_TAG_PROVISIONAL)?.execute([id])?;
            }
            Ok(())
        }))
    }

    fn set_next_rules<'a>(&'a self, ladder: &'a Ladder, config_json: &'a str) -> StoreFuture<'a, ()> {
        let (id, config_json) = (ladder.id, config_json.to_owned());
        // After a season end under way, which brings in the next rules it found.
        Box::pin(self.write_ladder(id, move |c| {
            c.execute("UPDATE ladders SET next_config = ?2 WHERE id = ?1", params![id, config_json])?;
            Ok(())
        }))
    }

    fn set_schedule<'a>(&'a self, ladder: &'a Ladder, schedule: &'a ScheduleView, next: NextTimes) -> StoreFuture<'a, ()> {
        let (id, schedule) = (ladder.id, schedule.clone());
        Box::pin(self.write(move |c| {
            c.execute(
                "UPDATE ladders SET schedule_season_end = ?2, schedule_decay = ?3, next_season_end = ?4, next_decay = ?5, schedule_period_end = ?6, next_period_end = ?7 WHERE id = ?1",
                params![id, schedule.season_end, schedule.decay, next.season_end, next.decay, schedule.period_end, next.period_end],
            )?;
            Ok(())
        }))
    }

    fn due<'a>(&'a self, now: f64) -> StoreFuture<'a, Vec<(String, LadderEvent, f64)>> {
        Box::pin(self.read(move |c| {
            let mut statement = c.prepare_cached(
                "SELECT name, next_season_end, next_decay, next_period_end FROM ladders WHERE next_season_end <= ?1 OR next_decay <= ?1 OR next_period_end <= ?1",
            )?;
            let rows = statement.query_map([now], |r| Ok((r.get::<_, String>(0)?, [r.get::<_, Option<f64>>(1)?, r.get::<_, Option<f64>>(2)?, r.get::<_, Option<f64>>(3)?])))?;
            let mut due = Vec::new();
            for row in rows {
                let (name, times) = row?;
                due.extend(super::super::due_events(&name, times, now));
            }
            Ok(due)
        }))
    }

    fn advance<'a>(&'a self, ladder: &'a Ladder, event: LadderEvent, from: f64, to: Option<f64>) -> StoreFuture<'a, bool> {
        let id = ladder.id;
        Box::pin(self.write(move |c| {
            let sql = match event {
                LadderEvent::SeasonEnd => "UPDATE ladders SET next_season_end = ?3 WHERE id = ?1 AND next_season_end = ?2",
                LadderEvent::Decay => "UPDATE ladders SET next_decay = ?3 WHERE id = ?1 AND next_decay = ?2",
                LadderEvent::PeriodEnd => "UPDATE ladders SET next_period_end = ?3 WHERE id = ?1 AND next_period_end = ?2",
            };
            Ok(c.execute(sql, params![id, from, to])? == 1)
        }))
    }
}
