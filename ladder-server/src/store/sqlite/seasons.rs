//! SQLite: season ends and decay (in one writer transaction, or in steps for a large
//! ladder), and ended seasons' standings.

use super::*;

impl SqliteStore {
    /// A season end or decay: in one writer transaction for a ladder of at most
    /// [`Self::event_step`] players, else in steps ([`Self::staged_event`]).
    async fn event(&self, ladder: Arc<Ladder>, request: EventRequest) -> Result<String, ApiError> {
        let id = ladder.id;
        let players: i64 = self.read(move |c| Ok(c.prepare_cached("SELECT players FROM ladders WHERE id = ?1")?.query_row([id], |r| r.get(0))?)).await?;
        if usize::try_from(players).unwrap_or(usize::MAX) <= self.event_step {
            return self.write_ladder(id, move |c| ladder_event(c, &ladder, &request)).await;
        }
        self.staged_event(ladder, request).await
    }

    /// A season end or decay of a large ladder, in steps of [`Self::event_step`] players,
    /// each its own writer transaction: other ladders' writes go on between them, so none
    /// waits for more than one step. The ladder's own reads and writes wait at its gate,
    /// held exclusively throughout, and see it before or after, never half done.
    ///
    /// The ladder is read and run through the engine on a reader connection; then a first
    /// step writes the journal entry (not chained yet) and an `event_progress` row, each step
    /// saves the rows it changes in `event_undo` and writes their new states, history lines
    /// and standings, and the last step writes the ladder's own row and chains the entry. A
    /// step that fails, or a server that stops, leaves the `event_progress` row: the event is
    /// undone (at once, or when the server starts again), and a retry with the same id
    /// applies it afresh.
    async fn staged_event(&self, ladder: Arc<Ladder>, request: EventRequest) -> Result<String, ApiError> {
        let exclusive = self.gate(ladder.id)?.write_owned().await;
        self.check_open(ladder.id)?;
        let prepared = {
            let (ladder, request) = (Arc::clone(&ladder), request.clone());
            self.read(move |c| prepare_event(c, &ladder, &request)).await?
        };
        let event: Arc<PreparedEvent> = match prepared {
            Prepared::Answer(answer) => return Ok(answer),
            Prepared::Event(event) => Arc::from(event),
        };
        let ladder_id = ladder.id;
        let jobs = self.jobs.lock().map_err(|_| ApiError::internal("sqlite writer lock poisoned"))?.clone();
        // From here until it is disarmed, leaving this function (an error, or the future
        // dropped) undoes the event before the gate opens.
        let mut unfinished = Unfinished { jobs: jobs.clone(), ladder_id, staged: Staged::Event, gate: Some(exclusive), broken: Arc::clone(&self.broken) };
        let seq = {
            let (event, id) = (Arc::clone(&event), request.id.clone());
            self.write(move |c| {
                let seq = append_journal(c, &event_entry(ladder_id, &id, &event))?;
                c.execute("INSERT INTO event_progress (ladder_id, seq, season) VALUES (?1, ?2, ?3)", params![ladder_id, seq, event.season])?;
                Ok(seq)
            })
            .await?
        };
        let outcome = &event.outcome;
        let step = self.event_step;
        let steps = outcome.writes.len().max(outcome.history.len()).max(outcome.standings.len()).div_ceil(step);
        let season_end = request.event == LadderEvent::SeasonEnd;
        for k in 0..steps {
            let event = Arc::clone(&event);
            let range = move |len: usize| (k * step).min(len)..((k + 1) * step).min(len);
            self.write(move |c| {
                let outcome = &event.outcome;
                let save = format!("INSERT INTO event_undo (seq, player_id, {columns}) SELECT ?1, id, {columns} FROM players WHERE id = ?2", columns = STATE_COLUMNS.join(", "));
                let mut save = c.prepare_cached(&save)?;
                for (id, state) in &outcome.writes[range(outcome.writes.len())] {
                    save.execute(params![seq, id])?;
                    write_player(c, *id, state)?;
                }
                write_event_history(c, ladder_id, seq, &outcome.history[range(outcome.history.len())])?;
                if season_end {
                    write_standings(c, ladder_id, event.season, &outcome.standings[range(outcome.standings.len())])?;
                }
                Ok(())
            })
            .await?;
        }
        {
            let event = Arc::clone(&event);
            let kind = request.event;
            self.write(move |c| {
                finish_event(c, ladder_id, seq, kind, &event)?;
                chain_ladder(c, ladder_id)?;
                c.execute("DELETE FROM event_progress WHERE ladder_id = ?1", [ladder_id])?;
                Ok(())
            })
            .await?;
        }
        // Done: the gate opens, and the saved rows are removed in steps behind the answer.
        drop(unfinished.gate.take());
        tokio::spawn(remove_saved_rows(jobs, seq, step));
        Ok(event_response(seq, &request.id, &event.outcome.results))
    }
}

impl crate::store::SeasonsStore for SqliteStore {
    fn ladder_event(&self, ladder: Arc<Ladder>, request: EventRequest) -> StoreFuture<'_, String> {
        Box::pin(self.event(ladder, request))
    }

    fn seasons<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<SeasonSummary>> {
        let id = ladder.id;
        Box::pin(self.read_ladder(id, move |c| {
            let mut statement = c.prepare_cached("SELECT season, ended, players, seq FROM seasons WHERE ladder_id = ?1 ORDER BY season")?;
            let rows = statement.query_map([id], |r| Ok(SeasonSummary { season: r.get(0)?, ended: r.get(1)?, players: r.get(2)?, seq: r.get(3)? }))?;
            Ok(rows.collect::<Result<_, _>>()?)
        }))
    }

    fn season_standings<'a>(&'a self, ladder: &'a Ladder, season: i64, limit: i64, offset: i64) -> StoreFuture<'a, Option<Vec<StandingView>>> {
        let id = ladder.id;
        Box::pin(self.read_ladder(id, move |c| {
            let ended: Option<i64> =
                c.prepare_cached("SELECT season FROM seasons WHERE ladder_id = ?1 AND season = ?2")?.query_row(params![id, season], |r| r.get(0)).optional()?;
            if ended.is_none() {
                return Ok(None);
            }
            let mut statement = c.prepare_cached(
                "SELECT s.rank, p.name, s.rating, s.peak_rating, s.league, s.peak_league, s.games, s.wins FROM season_records s JOIN players p ON p.id = s.player_id \
                 WHERE s.ladder_id = ?1 AND s.season = ?2 AND s.rank > ?3 ORDER BY s.rank LIMIT ?4",
            )?;
            let count = |v: i64| u32::try_from(v).unwrap_or(u32::MAX);
            #[allow(clippy::cast_possible_truncation)]
            let rows = statement.query_map(params![id, season, offset, limit], |r| {
                Ok(StandingView {
                    rank: r.get(0)?,
                    player: r.get(1)?,
                    rating: r.get::<_, f64>(2)? as f32,
                    peak_rating: r.get::<_, f64>(3)? as f32,
                    league: count(r.get(4)?),
                    peak_league: count(r.get(5)?),
                    games: count(r.get(6)?),
                    wins: count(r.get(7)?),
                })
            })?;
            Ok(Some(rows.collect::<Result<_, _>>()?))
        }))
    }
}

/// Removes a finished event's saved rows, `step` at a time (each its own writer job); what
/// is left when the server stops is removed when it starts.
async fn remove_saved_rows(jobs: mpsc::Sender<Job>, seq: i64, step: usize) {
    let limit = i64::try_from(step).unwrap_or(i64::MAX);
    loop {
        let (answer, removed) = oneshot::channel();
        let job: Job = Box::new(Pending {
            work: move |c: &Connection| {
                Ok(c.prepare_cached("DELETE FROM event_undo WHERE seq = ?1 AND player_id IN (SELECT player_id FROM event_undo WHERE seq = ?1 LIMIT ?2)")?
                    .execute(params![seq, limit])?)
            },
            answer,
        });
        if jobs.send(job).is_err() {
            return;
        }
        match removed.await {
            Ok(Ok(0)) | Err(_) => return,
            Ok(Ok(_)) => {}
            Ok(Err(_)) => {
                tracing::warn!(seq, "the saved rows of a finished season end or decay were not removed (the server removes them when it starts)");
                return;
            }
        }
    }
}

/// A season end or decay worked out from the ladder as stored, not yet written.
struct PreparedEvent {
    /// The journal entry's kind and inputs.
    kind: &'static str,
    inputs: String,
    /// The rules the season end brings in, when the next season has others.
    next_config: Option<String>,
    /// The ladder's season when the event began.
    season: i64,
    /// When it happened.
    now: f64,
    outcome: crate::events::EventOutcome,
}

/// What [`prepare_event`] found.
enum Prepared {
    /// The id is in the journal already: its answer (or a refusal).
    Answer(String),
    /// The event to write.
    Event(Box<PreparedEvent>),
}

/// Reads the ladder and runs the event through the engine's pool: what to write.
fn prepare_event(c: &Connection, ladder: &Ladder, request: &EventRequest) -> Result<Prepared, ApiError> {
    let kind = request.event.kind();
    if let Some((seq, stored_kind, stored_inputs, results)) = find_entry(c, ladder.id, &request.id)? {
        // The same event when the kind is the same (its inputs record what it found then).
        return replay_answer(&request.id, &stored_kind, &stored_inputs, kind, &stored_inputs, || event_response(seq, &request.id, &results)).map(Prepared::Answer);
    }
    // A scheduled event an older server ran under the old form of its id.
    if let Some(legacy) = request.legacy_id() {
        if let Some((seq, _, _, results)) = find_entry(c, ladder.id, &legacy)?.filter(|(_, stored_kind, _, _)| stored_kind == kind) {
            return Ok(Prepared::Answer(event_response(seq, &legacy, &results)));
        }
    }
    let now = model::now();
    let (decayed_through, season, config, next_config): (Option<f64>, i64, String, Option<String>) =
        c.query_row("SELECT decayed_through, season, config, next_config FROM ladders WHERE id = ?1", [ladder.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    let rules = stored_rules(&config)?;
    let zero_sum = zero_sum(c, ladder.id, rules.config().zero_sum_total)?;
    let next_config = next_config.filter(|_| request.event == crate::events::LadderEvent::SeasonEnd);
    let next_rules = next_config.as_deref().map(stored_rules).transpose()?;
    let inputs = request.inputs_json(next_config.as_deref());
    let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1 ORDER BY id");
    let mut rows = Vec::new();
    {
        let mut statement = c.prepare(&sql)?;
        let mut result = statement.query([ladder.id])?;
        while let Some(row) = result.next()? {
            rows.push(player_row(row)?);
        }
    }
    let held = if matches!(request.event, LadderEvent::PeriodEnd | LadderEvent::SeasonEnd) { held_matches(c, ladder.id)? } else { Vec::new() };
    let context = EventContext { zero_sum, decayed_through, now, season, held: &held };
    let outcome = run_event(&EventRules { rules: &rules, next: next_rules.as_ref() }, request.event, &rows, &context)?;
    Ok(Prepared::Event(Box::new(PreparedEvent { kind, inputs, next_config, season, now, outcome })))
}

/// The matches held since the ladder's last period or season end (each rates them), in
/// journal order: pair entries after it, not annulled, with their corrections, whose results
/// say they are held (an index of its own keeps this to the held entries: migration 0015).
fn held_matches(c: &Connection, ladder_id: i64) -> Result<Vec<crate::periods::HeldMatch>, ApiError> {
    let mut statement = c.prepare_cached(
        "SELECT coalesce(corrected_inputs, inputs), results FROM journal INDEXED BY journal_held \
         WHERE ladder_id = ?1 AND kind = 'pair' AND results LIKE '%\"held\":true%' AND NOT annulled \
         AND seq > coalesce((SELECT max(seq) FROM journal WHERE ladder_id = ?1 AND kind IN ('period_end', 'season_end')), 0) ORDER BY seq",
    )?;
    let mut rows = statement.query([ladder_id])?;
    let mut held = Vec::new();
    while let Some(row) = rows.next()? {
        let (inputs, results): (String, String) = (row.get(0)?, row.get(1)?);
        held.extend(crate::periods::held_match(&inputs, &results)?);
    }
    Ok(held)
}

/// A season end or decay in the writer's transaction: every player of the ladder through
/// the engine's pool, the changed rows written, a season's standings kept.
fn ladder_event(c: &Connection, ladder: &Ladder, request: &EventRequest) -> Result<String, ApiError> {
    let event = match prepare_event(c, ladder, request)? {
        Prepared::Answer(answer) => return Ok(answer),
        Prepared::Event(event) => event,
    };
    bulk_rank_writes(c)?;
    for (id, state) in &event.outcome.writes {
        write_player(c, *id, state)?;
    }
    recount(c, ladder.id)?;
    let seq = append_journal(c, &event_entry(ladder.id, &request.id, &event))?;
    chain_ladder(c, ladder.id)?;
    write_event_history(c, ladder.id, seq, &event.outcome.history)?;
    if request.event == LadderEvent::SeasonEnd {
        write_standings(c, ladder.id, event.season, &event.outcome.standings)?;
    }
    finish_event(c, ladder.id, seq, request.event, &event)?;
    Ok(event_response(seq, &request.id, &event.outcome.results))
}

/// The journal entry of an event.
fn event_entry<'a>(ladder: i64, id: &'a str, event: &'a PreparedEvent) -> NewEntry<'a> {
    NewEntry { ladder, id, kind: event.kind, inputs: &event.inputs, time: event.now, joined: "[]".to_owned(), results: event.outcome.results.clone() }
}

/// The history lines of an event's changed players.
fn write_event_history(c: &Connection, ladder_id: i64, seq: i64, history: &[(i64, f32, f32)]) -> Result<(), ApiError> {
    let mut insert = c.prepare_cached("INSERT INTO player_entries (player_id, seq, ladder_id, rating_before, rating_after) VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for (player, before, after) in history {
        insert.execute(params![player, seq, ladder_id, f64::from(*before), f64::from(*after)])?;
    }
    Ok(())
}

/// A season's final standings (read only once its `seasons` row exists).
fn write_standings(c: &Connection, ladder_id: i64, season: i64, standings: &[crate::events::Standing]) -> Result<(), ApiError> {
    let mut insert = c.prepare_cached(
        "INSERT INTO season_records (ladder_id, season, rank, player_id, rating, peak_rating, league, peak_league, games, wins) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for s in standings {
        insert.execute(params![ladder_id, season, s.rank, s.player_id, f64::from(s.rating), f64::from(s.peak_rating), s.league, s.peak_league, s.games, s.wins])?;
    }
    Ok(())
}

/// The ladder's own row after an event: its zero-sum numbers, how far decay has run and,
/// for a season end, the season's row, the next season's number and rules.
fn finish_event(c: &Connection, ladder_id: i64, seq: i64, event_kind: LadderEvent, event: &PreparedEvent) -> Result<(), ApiError> {
    // Written whether or not the rules now have a total: reads apply the offset as stored,
    // so a ladder whose season end drops its total keeps 0.
    let (offset, sum) = event.outcome.zero_sum.map_or((0.0, "0".to_owned()), |z| (z.offset, z.sum_text()));
    c.execute("UPDATE ladders SET zero_sum_offset = ?2, zero_sum_sum = ?3 WHERE id = ?1", params![ladder_id, offset, sum])?;
    c.execute("UPDATE ladders SET decayed_through = ?2 WHERE id = ?1", params![ladder_id, event.outcome.decayed_through])?;
    if event_kind == LadderEvent::SeasonEnd {
        c.execute(
            "INSERT INTO seasons (ladder_id, season, ended, players, seq) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![ladder_id, event.season, event.now, i64::try_from(event.outcome.standings.len()).unwrap_or(i64::MAX), seq],
        )?;
        c.execute("UPDATE ladders SET season = season + 1 WHERE id = ?1", [ladder_id])?;
        if let Some(next) = &event.next_config {
            c.execute("UPDATE ladders SET config = ?2, next_config = NULL WHERE id = ?1", params![ladder_id, next])?;
        }
    }
    Ok(())
}

/// Undoes the steps of every event that did not finish (the server stopped, or a step
/// failed): each changed player row back as it was, the event's journal entry, history
/// lines and standings deleted, then the saved rows of finished events. In the caller's
/// transaction; the rank buckets follow the restored ratings through their triggers.
/// `only`: the events of one ladder (the others' may still be under way).
pub(super) fn undo_unfinished_events(c: &Connection, only: Option<i64>) -> Result<usize, ApiError> {
    let unfinished: Vec<(i64, i64, i64)> = c
        .prepare("SELECT ladder_id, seq, season FROM event_progress WHERE ?1 IS NULL OR ladder_id = ?1")?
        .query_map([only], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let sets: Vec<String> = STATE_COLUMNS.iter().map(|column| format!("{column} = u.{column}")).collect();
    let restore = format!("UPDATE players SET {} FROM event_undo u WHERE u.seq = ?1 AND players.id = u.player_id", sets.join(", "));
    for (ladder_id, seq, season) in &unfinished {
        c.execute(&restore, [seq])?;
        c.execute("DELETE FROM player_entries WHERE seq = ?1", [seq])?;
        c.execute(
            "DELETE FROM season_records WHERE ladder_id = ?1 AND season = ?2 AND NOT EXISTS (SELECT 1 FROM seasons WHERE ladder_id = ?1 AND season = ?2)",
            params![ladder_id, season],
        )?;
        c.execute("DELETE FROM journal WHERE seq = ?1 AND ladder_id = ?2 AND hash IS NULL", params![seq, ladder_id])?;
        c.execute("DELETE FROM event_progress WHERE ladder_id = ?1", [ladder_id])?;
        c.execute("DELETE FROM event_undo WHERE seq = ?1", [seq])?;
    }
    if only.is_none() {
        // The saved rows of events that finished (removed after them, unless the server
        // stopped first).
        c.execute("DELETE FROM event_undo", [])?;
    }
    Ok(unfinished.len())
}
