//! SQLite: the matches resource: reports (in the writer's group commit), the journal's
//! pages, amendments (see [`super::amend`]) and what `elo-ladder verify` and the checkpointer
//! read.

use super::*;

impl crate::store::MatchesStore for SqliteStore {
    fn report(&self, ladder: Arc<Ladder>, request: MatchRequest) -> StoreFuture<'_, String> {
        Box::pin(self.write_ladder(ladder.id, move |c| report(c, &ladder, &request)))
    }

    fn journal<'a>(&'a self, ladder: &'a Ladder, after: i64, limit: i64, kind: Option<&'a str>) -> StoreFuture<'a, JournalPage> {
        let id = ladder.id;
        let kind = kind.map(str::to_owned);
        Box::pin(self.read_ladder(id, move |c| {
            // The sizes first (one more than asked, to know whether more exist), then only
            // the entries that fit on the page.
            let sizes: Vec<(i64, i64)> = match &kind {
                None => c
                    .prepare_cached("SELECT seq, bytes FROM journal WHERE ladder_id = ?1 AND seq > ?2 AND hash IS NOT NULL ORDER BY seq LIMIT ?3")?
                    .query_map(params![id, after, limit + 1], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()?,
                Some(kind) => c
                    .prepare_cached("SELECT seq, bytes FROM journal WHERE ladder_id = ?1 AND kind = ?4 AND seq > ?2 AND hash IS NOT NULL ORDER BY seq LIMIT ?3")?
                    .query_map(params![id, after, limit + 1, kind], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()?,
            };
            let pending = event_under_way(c, id)?;
            let amendments: i64 = c.prepare_cached("SELECT amendments FROM ladders WHERE id = ?1")?.query_row([id], |r| r.get(0))?;
            let asked = sizes.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
            let fits = page_length(&sizes[..asked].iter().map(|(_, b)| *b).collect::<Vec<_>>());
            let Some(&(last, _)) = sizes[..fits].last() else {
                return Ok(JournalPage { entries: Vec::new(), pending, more: false, amendments: Some(amendments) });
            };
            let sql =
                format!("SELECT {JOURNAL_COLUMNS} FROM journal WHERE ladder_id = ?1 AND seq > ?2 AND seq <= ?3 AND (?4 IS NULL OR kind = ?4) AND hash IS NOT NULL ORDER BY seq");
            let mut statement = c.prepare_cached(&sql)?;
            let rows = statement.query_map(params![id, after, last, kind], journal_row)?;
            let mut entries = Vec::with_capacity(fits);
            for row in rows {
                entries.push(journal_entry(row?)?);
            }
            Ok(JournalPage { entries, pending, more: sizes.len() > fits, amendments: Some(amendments) })
        }))
    }

    fn journal_newest<'a>(&'a self, ladder: &'a Ladder, before: i64, limit: i64, kind: Option<&'a str>) -> StoreFuture<'a, JournalPage> {
        let id = ladder.id;
        let kind = kind.map(str::to_owned);
        Box::pin(self.read_ladder(id, move |c| {
            // As `journal`, downwards: the sizes of the newest entries below `before` (one
            // more than asked), then the entries that fit, between the newest and the oldest
            // of them (an entry committed in between is above that range).
            let sizes: Vec<(i64, i64)> = match &kind {
                None => c
                    .prepare_cached("SELECT seq, bytes FROM journal WHERE ladder_id = ?1 AND seq < ?2 AND hash IS NOT NULL ORDER BY seq DESC LIMIT ?3")?
                    .query_map(params![id, before, limit + 1], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()?,
                Some(kind) => c
                    .prepare_cached("SELECT seq, bytes FROM journal WHERE ladder_id = ?1 AND kind = ?4 AND seq < ?2 AND hash IS NOT NULL ORDER BY seq DESC LIMIT ?3")?
                    .query_map(params![id, before, limit + 1, kind], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()?,
            };
            let pending = event_under_way(c, id)?;
            let asked = sizes.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
            let fits = page_length(&sizes[..asked].iter().map(|(_, b)| *b).collect::<Vec<_>>());
            let (Some(&(newest, _)), Some(&(oldest, _))) = (sizes.first(), sizes[..fits].last()) else {
                return Ok(JournalPage { entries: Vec::new(), pending, more: false, amendments: None });
            };
            let sql = format!(
                "SELECT {JOURNAL_COLUMNS} FROM journal WHERE ladder_id = ?1 AND seq >= ?2 AND seq <= ?3 AND (?4 IS NULL OR kind = ?4) AND hash IS NOT NULL ORDER BY seq DESC"
            );
            let mut statement = c.prepare_cached(&sql)?;
            let rows = statement.query_map(params![id, oldest, newest, kind], journal_row)?;
            let mut entries = Vec::with_capacity(fits);
            for row in rows {
                entries.push(journal_entry(row?)?);
            }
            Ok(JournalPage { entries, pending, more: sizes.len() > fits, amendments: None })
        }))
    }

    fn rebuild_base<'a>(&'a self, ladder: &'a Ladder, limit: i64) -> StoreFuture<'a, crate::store::RebuildBase> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let generation: i64 = c.prepare_cached("SELECT amendments FROM ladders WHERE id = ?1")?.query_row([ladder_id], |r| r.get(0))?;
            let latest: Option<(i64, String)> = c
                .prepare_cached("SELECT seq, state FROM rebuild_checkpoints WHERE ladder_id = ?1 ORDER BY seq DESC LIMIT 1")?
                .query_row([ladder_id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let after = latest.as_ref().map_or(0, |(seq, _)| *seq);
            let entries_after: i64 = c
                .prepare_cached("SELECT count(*) FROM (SELECT 1 FROM journal WHERE ladder_id = ?1 AND seq > ?2 AND hash IS NOT NULL LIMIT ?3)")?
                .query_row(params![ladder_id, after, limit], |r| r.get(0))?;
            Ok(crate::store::RebuildBase { state: latest.map(|(_, state)| state), seq: after, generation, entries_after })
        }))
    }

    fn replay_page<'a>(&'a self, ladder: &'a Ladder, after: i64, limit: i64) -> StoreFuture<'a, Vec<crate::replay::StoredEntry>> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| replay_entries(c, ladder_id, after, limit, true)))
    }

    fn keep_checkpoint<'a>(&'a self, ladder: &'a Ladder, seq: i64, state: &'a str, generation: i64) -> StoreFuture<'a, bool> {
        let (ladder_id, state) = (ladder.id, state.to_owned());
        Box::pin(self.write_ladder(ladder_id, move |c| {
            let now: i64 = c.prepare_cached("SELECT amendments FROM ladders WHERE id = ?1")?.query_row([ladder_id], |r| r.get(0))?;
            if now != generation {
                return Ok(false);
            }
            save_checkpoint(c, ladder_id, seq, &state)?;
            Ok(true)
        }))
    }

    fn history_kept_since<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, f64> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| history_lines_since(c, ladder_id)))
    }

    fn history_lines<'a>(&'a self, ladder: &'a Ladder, after: i64, through: i64) -> StoreFuture<'a, Vec<crate::store::HistoryLine>> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let mut statement = c.prepare_cached(HISTORY_LINES)?;
            let lines = statement.query_map(params![ladder_id, after, through], |r| {
                Ok(crate::store::HistoryLine { seq: r.get(0)?, player: r.get(1)?, before: r.get::<_, f64>(2)? as f32, after: r.get::<_, f64>(3)? as f32 })
            })?;
            Ok(lines.collect::<Result<_, _>>()?)
        }))
    }

    fn amendment_generation<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, (i64, bool)> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| {
            Ok(c.prepare_cached(
                "SELECT amendments, EXISTS (SELECT 1 FROM event_progress WHERE ladder_id = ?1) OR EXISTS (SELECT 1 FROM amend_progress WHERE ladder_id = ?1) FROM ladders WHERE id = ?1",
            )?
            .query_row([ladder_id], |r| Ok((r.get(0)?, r.get(1)?)))?)
        }))
    }

    fn import<'a>(&'a self, ladder: Arc<Ladder>, lines: Vec<crate::import::Line>) -> StoreFuture<'a, crate::import::BatchOutcome> {
        Box::pin(self.write_ladder(ladder.id, move |c| super::import::import_batch(c, &ladder, &lines)))
    }

    fn amend(&self, ladder: Arc<Ladder>, request: crate::amend::Request) -> StoreFuture<'_, String> {
        Box::pin(self.staged_amend(ladder, request))
    }
}

/// The history lines of a ladder's entries `?2 < seq <= ?3` (`elo-ladder verify`).
const HISTORY_LINES: &str = "SELECT e.seq, p.name, e.rating_before, e.rating_after FROM player_entries e JOIN players p ON p.id = e.player_id \
     WHERE e.seq > ?2 AND e.seq <= ?3 AND e.ladder_id = ?1 ORDER BY e.seq, p.name";

/// The ladder as its season and its option `rating_periods` are now, when a season end
/// brought in other rules or the option changed since this server cached it (`None`: the
/// cached one is current).
pub(super) fn season_moved(c: &Connection, ladder: &Ladder) -> Result<Option<Ladder>, ApiError> {
    let (season, config, periods): (i64, String, bool) =
        c.prepare_cached("SELECT season, config, rating_periods FROM ladders WHERE id = ?1")?.query_row([ladder.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    if season == ladder.season && periods == ladder.options.rating_periods {
        return Ok(None);
    }
    let options = crate::ladder::LadderOptions { rating_periods: periods, ..ladder.options.clone() };
    Ok(Some(Ladder { rules: stored_rules(&config)?, config_json: config, season, options, ..ladder.clone() }))
}

/// One match in the writer's transaction (see the module documentation).
fn report(c: &Connection, ladder: &Ladder, request: &MatchRequest) -> Result<String, ApiError> {
    report_at(c, ladder, request, model::now())
}

/// One match played at `now` (a report's is the server's time, an imported match's its
/// own).
pub(super) fn report_at(c: &Connection, ladder: &Ladder, request: &MatchRequest, now: f64) -> Result<String, ApiError> {
    // The rules of the ladder's season now (a season end may have brought in others since
    // this server cached them).
    let moved = season_moved(c, ladder)?;
    let ladder = moved.as_ref().unwrap_or(ladder);
    let inputs = request.inputs_json();
    let kind = request.game.kind();
    if let Some((seq, stored_kind, stored_inputs, results)) = find_entry(c, ladder.id, &request.id)? {
        return replay_answer(&request.id, &stored_kind, &stored_inputs, kind, &inputs, || model::match_response(seq, &results));
    }
    let mut zero_sum = zero_sum(c, ladder.id, ladder.zero_sum_total())?;
    let mut names: Vec<&str> = request.players();
    names.sort_unstable();
    let mut rows = HashMap::with_capacity(names.len());
    let mut joined = Vec::new();
    let select = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1 AND name = ?2");
    for name in names {
        let found = {
            let mut statement = c.prepare_cached(&select)?;
            let mut result = statement.query(params![ladder.id, name])?;
            match result.next()? {
                Some(row) => Some(player_row(row)?),
                None => None,
            }
        };
        let row = match found {
            Some(row) => row,
            None => {
                let state = joining_state(&ladder.rules, zero_sum.as_mut(), now);
                let id = insert_player(c, ladder.id, name, &state)?;
                joined.push(name.to_owned());
                PlayerRow { id, name: name.to_owned(), state }
            }
        };
        rows.insert(row.name.clone(), row);
    }
    let applied = if ladder.options.rating_periods {
        crate::periods::hold_match(zero_sum.as_ref(), &rows, request, now)?
    } else {
        apply_match(&ladder.rules, zero_sum.as_mut(), &rows, request, now)?
    };
    for (id, state) in &applied.writes {
        write_player(c, *id, state)?;
    }
    if let Some(z) = zero_sum {
        c.prepare_cached("UPDATE ladders SET zero_sum_offset = ?2, zero_sum_sum = ?3, players = ?4 WHERE id = ?1")?.execute(params![
            ladder.id,
            z.offset,
            z.sum_text(),
            i64::try_from(z.players).unwrap_or(i64::MAX)
        ])?;
    }
    if zero_sum.is_none() && !joined.is_empty() {
        c.prepare_cached("UPDATE ladders SET players = players + ?2 WHERE id = ?1")?.execute(params![ladder.id, i64::try_from(joined.len()).unwrap_or(i64::MAX)])?;
    }
    let results = model::results_json(&applied.players);
    let joined = serde_json::to_string(&joined).unwrap_or_else(|_| "[]".into());
    let seq = append_journal(c, &NewEntry { ladder: ladder.id, id: &request.id, kind, inputs: &inputs, time: now, joined, results: results.clone() })?;
    chain_ladder(c, ladder.id)?;
    let mut history = c.prepare_cached("INSERT INTO player_entries (player_id, seq, ladder_id, rating_before, rating_after) VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for ((view, before), name) in applied.players.iter().zip(&applied.before).zip(request.players()) {
        history.execute(params![rows[name].id, seq, ladder.id, f64::from(*before), f64::from(view.state.rating)])?;
    }
    crate::telemetry::record_matches(1);
    Ok(model::match_response(seq, &results))
}

/// A journal row read by a statement selecting [`JOURNAL_COLUMNS`].
pub(super) fn journal_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<JournalRow> {
    Ok(JournalRow {
        seq: r.get(0)?,
        kind: r.get(1)?,
        id: r.get(2)?,
        time: r.get(3)?,
        inputs: r.get(4)?,
        joined: r.get(5)?,
        results: r.get(6)?,
        annulled: r.get(7)?,
        annul_reason: r.get(8)?,
        corrected: r.get(9)?,
        hash: r.get::<_, Option<Vec<u8>>>(10)?.unwrap_or_default(),
        keys: r.get(11)?,
    })
}
