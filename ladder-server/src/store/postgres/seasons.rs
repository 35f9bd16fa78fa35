//! PostgreSQL: season ends and decay (one transaction holding the ladder's lock, retried on
//! a serialization failure), and ended seasons' standings.

use super::*;

impl crate::store::SeasonsStore for PgStore {
    fn ladder_event(&self, ladder: Arc<Ladder>, request: EventRequest) -> StoreFuture<'_, String> {
        Box::pin(async move {
            let _turn = self.shared.turn(ladder.id).await;
            let mut attempt = 0;
            loop {
                let mut conn = self.pool().get().await?;
                conn.in_transaction = true;
                match ladder_event_once(&conn.client, &ladder, &request).await {
                    Ok(answer) => {
                        self.shared.chain_wake.notify_one();
                        // Ends a transaction left open by an early answer (a warning only
                        // after a COMMIT).
                        if conn.client.batch_execute("ROLLBACK").await.is_ok() {
                            conn.in_transaction = false;
                        }
                        return answer;
                    }
                    Err(error) => {
                        conn.rollback().await;
                        attempt += 1;
                        if !retryable(&error) || attempt >= ATTEMPTS {
                            return Err(error.into());
                        }
                    }
                }
            }
        })
    }

    fn seasons<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<SeasonSummary>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn.client.query("SELECT season, ended, players, seq FROM seasons WHERE ladder_id = $1 ORDER BY season", &[&ladder.id]).await?;
            Ok(rows.iter().map(|r| SeasonSummary { season: r.get("season"), ended: r.get("ended"), players: r.get("players"), seq: r.get("seq") }).collect())
        })
    }

    fn season_standings<'a>(&'a self, ladder: &'a Ladder, season: i64, limit: i64, offset: i64) -> StoreFuture<'a, Option<Vec<StandingView>>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let ended = conn.client.query_opt("SELECT 1 FROM seasons WHERE ladder_id = $1 AND season = $2", &[&ladder.id, &season]).await?;
            if ended.is_none() {
                return Ok(None);
            }
            let statement = conn
                .prepare(
                    "SELECT s.rank, p.name, s.rating, s.peak_rating, s.league, s.peak_league, s.games, s.wins FROM season_records s JOIN players p ON p.id = s.player_id \
                     WHERE s.ladder_id = $1 AND s.season = $2 AND s.rank > $3 ORDER BY s.rank LIMIT $4",
                )
                .await?;
            let count = |v: i64| u32::try_from(v).unwrap_or(u32::MAX);
            let rows = conn.client.query(&statement, &[&ladder.id, &season, &offset, &limit]).await?;
            Ok(Some(
                rows.iter()
                    .map(|r| StandingView {
                        rank: r.get("rank"),
                        player: r.get("name"),
                        rating: r.get("rating"),
                        peak_rating: r.get("peak_rating"),
                        league: count(r.get("league")),
                        peak_league: count(r.get("peak_league")),
                        games: count(r.get("games")),
                        wins: count(r.get("wins")),
                    })
                    .collect(),
            ))
        })
    }
}

/// One season end or decay in its own transaction (see the module documentation). `Ok`
/// carries the API's answer, including a refused retry; `Err` a database error.
async fn ladder_event_once(c: &Client, ladder: &Ladder, request: &EventRequest) -> Result<Result<String, ApiError>, tokio_postgres::Error> {
    let ladder_key = i32::try_from(ladder.id).unwrap_or(i32::MAX);
    let kind = request.event.kind();
    c.batch_execute("BEGIN").await?;
    // Waits for the matches in flight and keeps new ones out until the commit.
    c.execute("SELECT pg_advisory_xact_lock($1, $2)", &[&LOCK_CLASS, &ladder_key]).await?;
    if let Some(found) = c.query_opt("SELECT seq, kind, inputs, results FROM journal WHERE ladder_id = $1 AND match_id = $2", &[&ladder.id, &request.id]).await? {
        c.batch_execute("ROLLBACK").await?;
        let (seq, results, stored_inputs): (i64, &str, &str) = (found.get("seq"), found.get("results"), found.get("inputs"));
        // The same event when the kind is the same (its inputs record what it found then).
        return Ok(replay_answer(&request.id, found.get("kind"), stored_inputs, kind, stored_inputs, || event_response(seq, &request.id, results)));
    }
    // A scheduled event an older server ran under the old form of its id.
    if let Some(legacy) = request.legacy_id() {
        if let Some(found) = c.query_opt("SELECT seq, results FROM journal WHERE ladder_id = $1 AND match_id = $2 AND kind = $3", &[&ladder.id, &legacy, &kind]).await? {
            return Ok(Ok(event_response(found.get(0), &legacy, found.get(1))));
        }
    }
    let row = c
        .query_one("SELECT zero_sum_offset, zero_sum_sum, players, decayed_through, season, config, next_config FROM ladders WHERE id = $1 FOR NO KEY UPDATE", &[&ladder.id])
        .await?;
    let rules = match stored_rules(row.get("config")) {
        Ok(rules) => rules,
        Err(error) => return Ok(Err(error)),
    };
    let next_config: Option<String> = row.get::<_, Option<String>>("next_config").filter(|_| request.event == LadderEvent::SeasonEnd);
    let next_rules = match next_config.as_deref().map(stored_rules).transpose() {
        Ok(next) => next,
        Err(error) => return Ok(Err(error)),
    };
    let inputs = request.inputs_json(next_config.as_deref());
    let zero_sum = match rules
        .config()
        .zero_sum_total
        .map(|total| ZeroSum::from_stored(total, row.get("zero_sum_offset"), row.get::<_, &str>("zero_sum_sum"), row.get("players")))
        .transpose()
    {
        Ok(z) => z,
        Err(error) => return Ok(Err(error)),
    };
    let decayed_through: Option<f64> = row.get("decayed_through");
    let season: i64 = row.get("season");
    // Streamed, so only the engine's records are held, not the driver's rows.
    let select = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = $1 ORDER BY id");
    let stream = c.query_raw(&select, [&ladder.id]).await?;
    pin_mut!(stream);
    let mut rows = Vec::new();
    while let Some(row) = stream.try_next().await? {
        match player_row(&row) {
            Ok(row) => rows.push(row),
            Err(error) => return Ok(Err(error)),
        }
    }
    let now = model::now();
    // Every held match has committed: reports hold the ladder's lock shared, this event
    // exclusively.
    let mut held = Vec::new();
    if matches!(request.event, LadderEvent::PeriodEnd | LadderEvent::SeasonEnd) {
        let found = c
            .query(
                "SELECT coalesce(corrected_inputs, inputs) AS inputs, results FROM journal \
                 WHERE ladder_id = $1 AND kind = 'pair' AND results LIKE '%\"held\":true%' AND NOT annulled \
                 AND seq > coalesce((SELECT max(seq) FROM journal WHERE ladder_id = $1 AND kind IN ('period_end', 'season_end')), 0) ORDER BY seq",
                &[&ladder.id],
            )
            .await?;
        for row in found {
            match crate::periods::held_match(row.get("inputs"), row.get("results")) {
                Ok(found) => held.extend(found),
                Err(error) => return Ok(Err(error)),
            }
        }
    }
    let context = crate::events::EventContext { zero_sum, decayed_through, now, season, held: &held };
    let outcome = match run_event(&crate::events::EventRules { rules: &rules, next: next_rules.as_ref() }, request.event, &rows, &context) {
        Ok(outcome) => outcome,
        Err(error) => return Ok(Err(error)),
    };
    drop(rows);
    let update = c.prepare(UPDATE_PLAYERS).await?;
    let mut chunks = Vec::new();
    for chunk in outcome.writes.chunks(CHUNK) {
        let mut columns = Columns::default();
        for (id, state) in chunk {
            columns.push(*id, 0, "", state);
        }
        chunks.push(columns);
    }
    let writes = chunks.iter().map(|columns| {
        let update = &update;
        async move { c.execute(update, &columns.update_params()).await }
    });
    for written in futures_util::future::join_all(writes).await {
        written?;
    }
    // Written whether or not the rules now have a total: reads apply the offset as stored,
    // so a ladder whose season end drops its total keeps 0.
    let (offset, sum) = outcome.zero_sum.map_or((0.0, "0".to_owned()), |z| (z.offset, z.sum_text()));
    c.execute("UPDATE ladders SET zero_sum_offset = $2, zero_sum_sum = $3 WHERE id = $1", &[&ladder.id, &offset, &sum]).await?;
    c.execute("UPDATE ladders SET decayed_through = $2 WHERE id = $1", &[&ladder.id, &outcome.decayed_through]).await?;
    if request.event == LadderEvent::SeasonEnd {
        let insert = c
            .prepare(
                "INSERT INTO season_records (ladder_id, season, rank, player_id, rating, peak_rating, league, peak_league, games, wins) \
                 SELECT $1, $2, u.rank, u.player, u.rating, u.peak, u.league, u.peak_league, u.games, u.wins \
                 FROM unnest($3::bigint[], $4::bigint[], $5::real[], $6::real[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[]) \
                 AS u(rank, player, rating, peak, league, peak_league, games, wins)",
            )
            .await?;
        let mut pending = Vec::new();
        for chunk in outcome.standings.chunks(CHUNK) {
            let ranks: Vec<i64> = chunk.iter().map(|s| s.rank).collect();
            let players: Vec<i64> = chunk.iter().map(|s| s.player_id).collect();
            let ratings: Vec<f32> = chunk.iter().map(|s| s.rating).collect();
            let peaks: Vec<f32> = chunk.iter().map(|s| s.peak_rating).collect();
            let leagues: Vec<i64> = chunk.iter().map(|s| i64::from(s.league)).collect();
            let peak_leagues: Vec<i64> = chunk.iter().map(|s| i64::from(s.peak_league)).collect();
            let games: Vec<i64> = chunk.iter().map(|s| i64::from(s.games)).collect();
            let wins: Vec<i64> = chunk.iter().map(|s| i64::from(s.wins)).collect();
            pending.push((ranks, players, ratings, peaks, leagues, peak_leagues, games, wins));
        }
        let inserts = pending.iter().map(|(ranks, players, ratings, peaks, leagues, peak_leagues, games, wins)| {
            let insert = &insert;
            async move { c.execute(insert, &[&ladder.id, &season, ranks, players, ratings, peaks, leagues, peak_leagues, games, wins]).await }
        });
        for inserted in futures_util::future::join_all(inserts).await {
            inserted?;
        }
        c.execute("UPDATE ladders SET season = season + 1 WHERE id = $1", &[&ladder.id]).await?;
        if let Some(next) = &next_config {
            c.execute("UPDATE ladders SET config = $2, next_config = NULL WHERE id = $1", &[&ladder.id, next]).await?;
        }
    }
    let mut entry = EntryColumns::default();
    entry.push(&NewEntry { ladder: ladder.id, id: &request.id, kind, inputs: &inputs, time: now, joined: "[]".to_owned(), results: outcome.results.clone() });
    for (player, before, after) in &outcome.history {
        entry.push_history(ladder.id, Some(*player), (0, 0), *before, *after);
    }
    let nobody = Columns::default();
    c.batch_execute(HORIZON).await?;
    let seq: i64 = c.query_one(APPEND, &entry.params(&nobody)).await?.get("seq");
    if request.event == LadderEvent::SeasonEnd {
        c.execute(
            "INSERT INTO seasons (ladder_id, season, ended, players, seq) VALUES ($1, $2, $3, $4, $5)",
            &[&ladder.id, &season, &now, &i64::try_from(outcome.standings.len()).unwrap_or(i64::MAX), &seq],
        )
        .await?;
    }
    c.batch_execute("COMMIT").await?;
    Ok(Ok(event_response(seq, &request.id, &outcome.results)))
}
