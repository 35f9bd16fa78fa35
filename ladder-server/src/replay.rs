//! The journal replayed through the same engine calls that wrote it: the rebuild behind
//! annulments and corrections. In `seq` order, each entry's `joined` players join with the
//! ladder's new-player state at the entry's time, each match is applied with
//! [`apply_match`] (skipped when annulled; with its latest correction when corrected), or
//! held for its rating period when its results say so ([`crate::periods`]), and each season
//! end, decay or period end with [`run_event`]. The results are those the server writes
//! when it takes a report, so a rebuild changes exactly what the annulled or corrected
//! match changed, and nothing else.

use std::collections::HashMap;

use crate::error::ApiError;
use crate::events::{run_event, EventContext, EventRules, LadderEvent, Standing};
use crate::ladder::Ladder;
use crate::model::{self, apply_match, current, joining_state, Game, MatchRequest, PlayerRow, ZeroSum};
use crate::periods::{held_match, hold_match, HeldMatch};

/// A journal entry as the rebuild reads it.
#[derive(Debug, Clone)]
pub struct StoredEntry {
    /// Its seq.
    pub seq: i64,
    /// `pair`, `team`, `free_for_all`, `import`, `season_end`, `decay`, `period_end`, `annul`
    /// or `correct`.
    pub kind: String,
    /// Server time of the entry.
    pub time: f64,
    /// The canonical inputs: as reported, or the latest correction's.
    pub inputs: String,
    /// Players who joined with it.
    pub joined: Vec<String>,
    /// Annulled matches are skipped (their players still join).
    pub annulled: bool,
    /// The stored results (decay's `decayed_through` is read from them).
    pub results: String,
}

/// What one entry gave in the rebuild.
#[derive(Debug, Default)]
pub struct Step {
    /// The entry's results text as the server would write it now (`None`: unchanged by
    /// definition, for annulled matches and annul/correct markers).
    pub results: Option<String>,
    /// History lines: player name, current rating before and after.
    pub history: Vec<(String, f32, f32)>,
    /// A season end's standings (player ids are join indexes; the caller maps them).
    pub standings: Option<(i64, Vec<Standing>)>,
}

/// The ladder being rebuilt: every player's stored state (in joining order), the zero-sum
/// numbers, decay time and season.
pub struct Rebuild {
    /// The rules in force (a season end may bring in the next season's).
    rules: ranking_elo::Rules,
    rows: HashMap<String, PlayerRow>,
    order: Vec<String>,
    zero_sum: Option<ZeroSum>,
    decayed_through: Option<f64>,
    season: i64,
    /// The matches held since the last period end, in journal order.
    held: Vec<HeldMatch>,
}

impl Rebuild {
    /// An empty ladder (before its first entry).
    ///
    /// # Errors
    /// None today (kept for rules that change by season).
    pub fn new(ladder: &Ladder) -> Result<Self, ApiError> {
        let rules = ladder.initial_rules()?;
        let zero_sum = rules.config().zero_sum_total.map(ZeroSum::new);
        Ok(Self { rules, rows: HashMap::new(), order: Vec::new(), zero_sum, decayed_through: None, season: 1, held: Vec::new() })
    }

    /// Applies one entry.
    ///
    /// # Errors
    /// 500 when a stored entry no longer parses or the engine refuses it (a damaged
    /// journal).
    pub fn step(&mut self, entry: &StoredEntry) -> Result<Step, ApiError> {
        let broken = |what: &str| ApiError::internal(format!("journal {}: {what}", entry.seq));
        if entry.kind == crate::import::KIND {
            return self.import(entry);
        }
        for name in &entry.joined {
            if self.rows.contains_key(name) {
                return Err(broken(&format!("{name} joins twice")));
            }
            let state = joining_state(&self.rules, self.zero_sum.as_mut(), entry.time);
            let id = i64::try_from(self.order.len()).unwrap_or(i64::MAX);
            self.rows.insert(name.clone(), PlayerRow { id, name: name.clone(), state });
            self.order.push(name.clone());
        }
        match entry.kind.as_str() {
            "pair" | "team" | "free_for_all" => {
                if entry.annulled {
                    return Ok(Step::default());
                }
                let game: Game = serde_json::from_str(&entry.inputs).map_err(|e| broken(&format!("inputs: {e}")))?;
                let request = MatchRequest { id: String::new(), game };
                let before: Vec<f32> = request
                    .players()
                    .iter()
                    .map(|name| self.rows.get(*name).map(|r| current(&r.state, self.zero_sum.map_or(0.0, |z| z.offset)).rating).unwrap_or(f32::NAN))
                    .collect();
                if before.iter().any(|r| r.is_nan()) {
                    return Err(broken("a player of the match never joined"));
                }
                if let Some(held) = held_match(&entry.inputs, &entry.results)? {
                    let applied = hold_match(self.zero_sum.as_ref(), &self.rows, &request, entry.time)?;
                    self.held.push(held);
                    for (name, (_, state)) in request.players().iter().zip(&applied.writes) {
                        if let Some(row) = self.rows.get_mut(*name) {
                            row.state = *state;
                        }
                    }
                    let history = request.players().iter().zip(&applied.before).map(|(name, before)| ((*name).to_owned(), *before, *before)).collect();
                    return Ok(Step { results: Some(model::results_json(&applied.players)), history, standings: None });
                }
                let applied = apply_match(&self.rules, self.zero_sum.as_mut(), &self.rows, &request, entry.time)?;
                let names: Vec<String> = request.players().iter().map(|n| (*n).to_owned()).collect();
                let mut history = Vec::with_capacity(names.len());
                for ((name, view), before) in names.iter().zip(&applied.players).zip(&applied.before) {
                    history.push((name.clone(), *before, view.state.rating));
                }
                let by_id: HashMap<i64, String> = names.iter().map(|n| (self.rows[n].id, n.clone())).collect();
                for (id, state) in applied.writes {
                    if let Some(row) = by_id.get(&id).and_then(|name| self.rows.get_mut(name)) {
                        row.state = state;
                    }
                }
                Ok(Step { results: Some(model::results_json(&applied.players)), history, standings: None })
            }
            "season_end" | "decay" | "period_end" => {
                let event = match entry.kind.as_str() {
                    "season_end" => LadderEvent::SeasonEnd,
                    "decay" => LadderEvent::Decay,
                    _ => LadderEvent::PeriodEnd,
                };
                let rows: Vec<PlayerRow> = self.order.iter().map(|name| self.rows[name].clone()).collect();
                let time = if event == LadderEvent::Decay {
                    // The decay's own time (it never goes back before the previous one).
                    let results: serde_json::Value = serde_json::from_str(&entry.results).map_err(|e| broken(&format!("results: {e}")))?;
                    results["decayed_through"].as_f64().ok_or_else(|| broken("a decay without decayed_through"))?
                } else {
                    entry.time
                };
                // A season end that brings in the next season's rules says so in its inputs.
                let inputs: serde_json::Value = serde_json::from_str(&entry.inputs).map_err(|e| broken(&format!("inputs: {e}")))?;
                let next = match inputs.get("next_rules") {
                    Some(rules) if event == LadderEvent::SeasonEnd => Some(ranking_elo::Config::from_json(&rules.to_string()).map_err(|e| broken(&format!("next rules: {e}")))?),
                    _ => None,
                };
                let held = if matches!(event, LadderEvent::PeriodEnd | LadderEvent::SeasonEnd) { std::mem::take(&mut self.held) } else { Vec::new() };
                let context = EventContext { zero_sum: self.zero_sum, decayed_through: self.decayed_through, now: time, season: self.season, held: &held };
                let outcome = run_event(&EventRules { rules: &self.rules, next: next.as_ref() }, event, &rows, &context)?;
                if let Some(next) = next {
                    self.rules = next;
                }
                for (id, state) in &outcome.writes {
                    if let Some(row) = usize::try_from(*id).ok().and_then(|i| self.order.get(i)).and_then(|name| self.rows.get_mut(name)) {
                        row.state = *state;
                    }
                }
                self.zero_sum = outcome.zero_sum;
                self.decayed_through = outcome.decayed_through;
                let history = outcome.history.iter().map(|(id, before, after)| (self.order[usize::try_from(*id).unwrap_or(0)].clone(), *before, *after)).collect();
                let standings = (event == LadderEvent::SeasonEnd).then(|| {
                    let season = self.season;
                    self.season += 1;
                    (season, outcome.standings)
                });
                Ok(Step { results: Some(outcome.results), history, standings })
            }
            _ => Ok(Step::default()),
        }
    }

    /// An imported player: joins with the state the entry holds ([`crate::import`]).
    fn import(&mut self, entry: &StoredEntry) -> Result<Step, ApiError> {
        let broken = |what: &str| ApiError::internal(format!("journal {}: {what}", entry.seq));
        let (player, state) = crate::import::read_player_inputs(&entry.inputs)?;
        if entry.joined != [player.as_str()] {
            return Err(broken("an imported player's entry joins that player alone"));
        }
        if self.rows.contains_key(&player) {
            return Err(broken(&format!("{player} joins twice")));
        }
        if self.zero_sum.is_some() {
            return Err(broken("a player imported into a zero-sum ladder"));
        }
        let id = i64::try_from(self.order.len()).unwrap_or(i64::MAX);
        self.rows.insert(player.clone(), PlayerRow { id, name: player.clone(), state });
        self.order.push(player.clone());
        Ok(Step { results: Some(crate::import::player_results(&player, &state)), history: vec![(player, state.rating, state.rating)], standings: None })
    }

    /// Every player's stored state, by name.
    #[must_use]
    pub fn players(&self) -> &HashMap<String, PlayerRow> {
        &self.rows
    }

    /// The players in joining order.
    #[must_use]
    pub fn order(&self) -> &[String] {
        &self.order
    }

    /// The zero-sum numbers now.
    #[must_use]
    pub fn zero_sum(&self) -> Option<ZeroSum> {
        self.zero_sum
    }

    /// The time decay has been applied through.
    #[must_use]
    pub fn decayed_through(&self) -> Option<f64> {
        self.decayed_through
    }
}

impl Rebuild {
    /// The rebuild's state after entry `seq`, to start later rebuilds from
    /// ([`crate::checkpoint`]).
    #[must_use]
    pub fn checkpoint(&self, seq: i64) -> Checkpoint {
        Checkpoint {
            seq,
            rules: self.rules.config().to_json(),
            zero_sum: self.zero_sum.map(|z| (z.total, z.offset, z.sum_text(), i64::try_from(z.players).unwrap_or(i64::MAX))),
            decayed_through: self.decayed_through,
            season: self.season,
            players: self.order.iter().map(|name| (name.clone(), self.rows[name].state)).collect(),
            held: self.held.clone(),
        }
    }

    /// A rebuild that starts after a checkpoint's entry.
    ///
    /// # Errors
    /// 500 for a checkpoint whose rules or numbers do not read.
    pub fn from_checkpoint(checkpoint: &Checkpoint) -> Result<Self, ApiError> {
        let broken = |what: String| ApiError::internal(format!("checkpoint at seq {}: {what}", checkpoint.seq));
        let rules = ranking_elo::Config::from_json(&checkpoint.rules).map_err(|e| broken(e.to_string()))?;
        let zero_sum = match &checkpoint.zero_sum {
            Some((total, offset, sum, players)) => Some(ZeroSum::from_stored(*total, *offset, sum, *players).map_err(|e| broken(e.message))?),
            None => None,
        };
        let mut rows = HashMap::with_capacity(checkpoint.players.len());
        let mut order = Vec::with_capacity(checkpoint.players.len());
        for (id, (name, state)) in checkpoint.players.iter().enumerate() {
            rows.insert(name.clone(), PlayerRow { id: i64::try_from(id).unwrap_or(i64::MAX), name: name.clone(), state: *state });
            order.push(name.clone());
        }
        Ok(Self { rules, rows, order, zero_sum, decayed_through: checkpoint.decayed_through, season: checkpoint.season, held: checkpoint.held.clone() })
    }
}

/// A rebuild's state after one entry of the journal: what a replay from the first entry up
/// to it would hold (the rules in force, the zero-sum numbers, the decay time, the season,
/// every player's state in joining order).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Checkpoint {
    /// The entry it follows.
    pub seq: i64,
    /// The rules in force (the engine's configuration JSON).
    pub rules: String,
    /// Zero-sum: total, offset, exact sum (decimal), players.
    pub zero_sum: Option<(f64, f64, String, i64)>,
    /// The time decay was applied through.
    pub decayed_through: Option<f64>,
    /// The current season.
    pub season: i64,
    /// Every player, in joining order: name and stored state.
    pub players: Vec<(String, ranking_elo::PlayerState)>,
    /// The matches held for the current rating period (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<HeldMatch>,
}

/// What a page of the rebuild changes in the journal's derived tables (entries at or after
/// the amended match only; earlier ones cannot change).
#[derive(Debug, Default)]
pub struct PageChanges {
    /// Entries whose results changed: seq, new results.
    pub results: Vec<(i64, String)>,
    /// Entries whose history lines are replaced (their results changed).
    pub history_seqs: Vec<i64>,
    /// The new history lines of those entries: seq, player id, before, after.
    pub history: Vec<(i64, i64, f32, f32)>,
    /// Season ends at or after the amended match: season, standings (player ids).
    pub standings: Vec<(i64, Vec<Standing>)>,
    /// Matches whose results changed.
    pub rerated: usize,
}

impl Rebuild {
    /// Applies a page of entries in `seq` order; `from` is the amended match's seq, `ids`
    /// maps names to row ids, and `stored` holds the page's stored history lines (seq,
    /// player id, before, after; any order). An entry's lines are rewritten when its results
    /// changed or its lines did: a season end's or decay's results count players, so the
    /// ratings in its lines can move while its results stay the same.
    ///
    /// # Errors
    /// As [`Self::step`], and 500 for a player without a row.
    pub fn page(&mut self, entries: &[StoredEntry], from: i64, ids: &HashMap<String, i64>, stored: &[(i64, i64, f32, f32)]) -> Result<PageChanges, ApiError> {
        let mut changes = PageChanges::default();
        let id_of = |name: &str| ids.get(name).copied().ok_or_else(|| ApiError::internal(format!("player {name:?} has no row")));
        let mut stored_lines: HashMap<i64, Vec<(i64, u32, u32)>> = HashMap::new();
        for (seq, player, before, after) in stored {
            stored_lines.entry(*seq).or_default().push((*player, before.to_bits(), after.to_bits()));
        }
        for entry in entries {
            let step = self.step(entry)?;
            if entry.seq < from {
                continue;
            }
            if let Some(results) = step.results {
                let results_changed = results != entry.results;
                let mut lines = step.history.iter().map(|(name, before, after)| Ok((id_of(name)?, *before, *after))).collect::<Result<Vec<_>, ApiError>>()?;
                lines.sort_by_key(|line| line.0);
                let mut old = stored_lines.remove(&entry.seq).unwrap_or_default();
                old.sort_unstable();
                let lines_changed = old.len() != lines.len() || old.iter().zip(&lines).any(|(o, n)| *o != (n.0, n.1.to_bits(), n.2.to_bits()));
                if results_changed {
                    if matches!(entry.kind.as_str(), "pair" | "team" | "free_for_all") {
                        changes.rerated += 1;
                    }
                    changes.results.push((entry.seq, results));
                }
                if results_changed || lines_changed {
                    changes.history_seqs.push(entry.seq);
                    changes.history.extend(lines.iter().map(|(id, before, after)| (entry.seq, *id, *before, *after)));
                }
            }
            if let Some((season, mut standings)) = step.standings {
                for standing in &mut standings {
                    let name = usize::try_from(standing.player_id).ok().and_then(|i| self.order.get(i)).ok_or_else(|| ApiError::internal("a standing without a player"))?;
                    standing.player_id = id_of(name)?;
                }
                changes.standings.push((season, standings));
            }
        }
        Ok(changes)
    }
}
