//! A reference model of pools (docs/ranges.md#the-pools-total, docs/seasons.md,
//! docs/teams.md), written the plain way to check the engine's pools against, bit for bit.
//!
//! It applies every match on its own with the single-match functions of the rules
//! (`Rules::rate_players`, `Rules::rate_teams`, `Rules::rate_placements`, each checking its
//! input), one match after the other, and writes out the rest of a pool's documented
//! arithmetic by hand, the slow and obvious way:
//!
//! * **Zero-sum.** The pool's documented representation (`ranking_elo::ladder::zero_sum`):
//!   each player's rating `s_i` is stored relative to one shared offset `o`; a rating is
//!   `f32(s_i + o)`; every new rating of one match is stored as `f32(r - o)` against the
//!   offset of before the match; then `o = (T - S) / N`, with `S` the players' stored
//!   ratings summed exactly as docs/ranges.md defines it, recomputed from every player
//!   after every change (O(N), where the engine keeps a running sum and applies blocks).
//!   "Bit for bit" in a zero-sum pool means exactly this: the same stored ratings, the
//!   same offset, so the same current ratings. (Shifting every player's `f32` rating by
//!   `(T - S) / N` after each match would round differently, and cost O(N) per match,
//!   which the pool's O(1) per match rules out.)
//! * **Leagues.** Matches settle leagues through the rules (hysteresis); decay's demotion
//!   and a season end's placement are written here from docs/seasons.md.
//! * **Decay, season ends, new rules, sets, adds, the clock**, each as docs/seasons.md and
//!   the pool's documentation state them.
//!
//! Refusals are modelled as "refused, nothing changed"; which message a refusal carries is
//! the engine's business and tested elsewhere.

use ranking_elo::config::Rounding;
use ranking_elo::rating::season_rules::{ResetAnchor, SECONDS_PER_DAY};
use ranking_elo::team::Team;
use ranking_elo::{Outcome, PlayerState, Rules};

/// The most one pair match moves a rating, one team match, one free-for-all
/// (docs/ranges.md: `3e6 + 1`, `(64 + 2) * 1e6 + 1`, `257 * 1e6 + 1`).
const PAIR_CHANGE: f64 = 3e6 + 1.0;
const TEAM_CHANGE: f64 = 66e6 + 1.0;
const PLACEMENT_CHANGE: f64 = 257e6 + 1.0;
/// The largest rating a pool holds (2^55).
const MAX_POOL_RATING: f64 = 36_028_797_018_963_968.0;

/// A league change (`position`, `player`, `from`, `to`).
pub type Event = (usize, usize, u32, u32);

/// One team match of a list: members, optional weights, team A's outcome.
#[derive(Debug, Clone)]
pub struct TeamSpec {
    pub a: Vec<usize>,
    pub b: Vec<usize>,
    pub weights_a: Option<Vec<f64>>,
    pub weights_b: Option<Vec<f64>>,
    pub outcome: Outcome,
}

/// One player's season record (`player`, `rating`, `peak_rating`, `league`, `peak_league`,
/// `games`, `wins`).
pub type Record = (usize, f32, f32, u32, u32, u32, u32);

/// What a pair list reports besides the new states.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PairOutputs {
    pub delta_a: Vec<f32>,
    pub delta_b: Vec<f32>,
    pub expected_a: Vec<f32>,
}

/// The model pool.
#[derive(Debug, Clone)]
pub struct Model {
    pub rules: Rules,
    /// Each player's state with `rating` the stored rating (relative to `offset`).
    stored: Vec<PlayerState>,
    offset: f64,
    pub clock: f64,
    pub decayed_through: Option<f64>,
}

impl Model {
    pub fn new(rules: Rules) -> Self {
        Self { rules, stored: Vec::new(), offset: 0.0, clock: 0.0, decayed_through: None }
    }

    pub fn len(&self) -> usize {
        self.stored.len()
    }

    /// A stored rating made current.
    fn current(&self, stored: f32) -> f32 {
        if self.offset == 0.0 {
            stored
        } else {
            (f64::from(stored) + self.offset) as f32
        }
    }

    /// A current rating as stored against the offset.
    fn relative(&self, rating: f32) -> f32 {
        if self.offset == 0.0 {
            rating
        } else {
            (f64::from(rating) - self.offset) as f32
        }
    }

    /// Player `i`'s state with the current rating.
    pub fn state(&self, i: usize) -> PlayerState {
        let s = self.stored[i];
        PlayerState { rating: self.current(s.rating), ..s }
    }

    /// Stores a state given with its current rating.
    fn store(&mut self, i: usize, state: PlayerState) {
        self.stored[i] = PlayerState { rating: self.relative(state.rating), ..state };
    }

    /// The stored ratings summed exactly: each taken as a fixed-point number with 40
    /// binary fraction digits (toward zero), summed in 128 bits, rounded once to `f64`
    /// (docs/ranges.md, "The pool's total").
    fn stored_sum(&self) -> f64 {
        let scale = 1_099_511_627_776.0;
        let fixed: i128 = self.stored.iter().map(|p| (f64::from(p.rating) * scale).trunc() as i128).sum();
        fixed as f64 / scale
    }

    /// The total as the pool reports it: the exact sum plus `N` times the offset.
    pub fn total(&self) -> f64 {
        self.stored_sum() + self.stored.len() as f64 * self.offset
    }

    /// Zero-sum: the offset that brings the total back to `T` (nothing without players).
    fn rebalance(&mut self) {
        if let Some(total) = self.rules.config().zero_sum_total {
            if !self.stored.is_empty() {
                self.offset = (total - self.stored_sum()) / self.stored.len() as f64;
            }
        }
    }

    /// The largest stored magnitude plus the offset plus `growth` stays within 2^55.
    fn has_room(&self, growth: f64) -> bool {
        let largest = self.stored.iter().map(|p| f64::from(p.rating.abs())).fold(0.0, f64::max);
        largest + self.offset.abs() + growth <= MAX_POOL_RATING
    }

    /// A player set or added: placed by the rules, stored against the offset.
    fn placed(&self, state: PlayerState) -> PlayerState {
        self.rules.placed(state)
    }

    pub fn set_clock(&mut self, seconds: f64) -> Result<(), ()> {
        if !seconds.is_finite() {
            return Err(());
        }
        self.clock = seconds;
        Ok(())
    }

    /// `count` new players: the initial rating, or in a zero-sum pool `T / count` when the
    /// pool is empty and the pool's mean otherwise; then the total is rebalanced.
    pub fn add_players(&mut self, count: usize) -> Result<usize, ()> {
        let first = self.stored.len();
        if first + count > i32::MAX as usize {
            return Err(());
        }
        let rating = match self.rules.config().zero_sum_total {
            Some(total) if first == 0 && count > 0 => (total / count as f64) as f32,
            Some(_) if first > 0 => (self.total() / first as f64) as f32,
            _ => self.rules.config().initial_rating,
        };
        for _ in 0..count {
            let state = self.placed(PlayerState { last_played: self.clock, ..PlayerState::new(rating) });
            self.stored.push(PlayerState { rating: self.relative(state.rating), ..state });
        }
        self.rebalance();
        Ok(first)
    }

    /// Players with given states (all checked first), then one rebalance.
    pub fn add_states(&mut self, states: &[PlayerState]) -> Result<usize, ()> {
        if self.stored.len() + states.len() > i32::MAX as usize || states.iter().any(|s| self.rules.check_player(s, "p").is_err()) {
            return Err(());
        }
        let first = self.stored.len();
        for state in states {
            let state = self.placed(*state);
            self.stored.push(PlayerState { rating: self.relative(state.rating), ..state });
        }
        self.rebalance();
        Ok(first)
    }

    /// Player `i` replaced (checked, placed), then the total rebalanced.
    pub fn set_player(&mut self, i: usize, state: PlayerState) -> Result<(), ()> {
        if i >= self.stored.len() || self.rules.check_player(&state, "p").is_err() {
            return Err(());
        }
        let state = self.placed(state);
        self.store(i, state);
        self.rebalance();
        Ok(())
    }

    /// The event of a player who held `from` and holds `to` now.
    fn event(events: &mut Vec<Event>, position: usize, player: usize, from: Option<u32>, to: Option<u32>) {
        let (from, to) = (from.unwrap_or(0), to.unwrap_or(0));
        if from != to {
            events.push((position, player, from, to));
        }
    }

    /// Stores the new states of one match's players (against the offset of before the
    /// match), stamped with the clock, with their events; then one rebalance.
    fn finish_match(&mut self, position: usize, players: &[usize], states: &[PlayerState], events: &mut Vec<Event>) {
        for (&i, state) in players.iter().zip(states) {
            Self::event(events, position, i, self.stored[i].league, state.league);
            self.store(i, PlayerState { last_played: self.clock, ..*state });
        }
        self.rebalance();
    }

    /// A list of pairs: refused as a whole if any match is bad, else applied one by one.
    pub fn apply_pairs(&mut self, matches: &[(usize, usize, Outcome)]) -> Result<(PairOutputs, Vec<Event>), ()> {
        let n = self.stored.len();
        let unit = |x: f64| (0.0..=1.0).contains(&x);
        if matches.iter().any(|&(a, b, o)| a >= n || b >= n || a == b || !unit(o.score_a) || !unit(o.share_a)) {
            return Err(());
        }
        if !self.has_room(matches.len() as f64 * 2.0 * PAIR_CHANGE) {
            return Err(());
        }
        let (mut outputs, mut events) = (PairOutputs::default(), Vec::new());
        for (position, &(a, b, outcome)) in matches.iter().enumerate() {
            let (before_a, before_b) = (self.state(a), self.state(b));
            let (after_a, after_b) = self.rules.rate_players(&before_a, &before_b, outcome).expect("the model's states are valid");
            outputs.delta_a.push((f64::from(after_a.rating) - f64::from(before_a.rating)) as f32);
            outputs.delta_b.push((f64::from(after_b.rating) - f64::from(before_b.rating)) as f32);
            outputs.expected_a.push(self.rules.expected_score(before_a.rating, before_b.rating) as f32);
            self.finish_match(position, &[a, b], &[after_a, after_b], &mut events);
        }
        Ok((outputs, events))
    }

    /// Whether `indices` are in range and distinct.
    fn distinct(&self, indices: &[usize]) -> bool {
        indices.iter().enumerate().all(|(k, &i)| i < self.stored.len() && !indices[..k].contains(&i))
    }

    /// A list of team matches, refused as a whole or applied one by one.
    pub fn apply_teams(&mut self, matches: &[TeamSpec]) -> Result<Vec<Event>, ()> {
        let unit = |x: f64| (0.0..=1.0).contains(&x);
        for m in matches {
            let both: Vec<usize> = m.a.iter().chain(&m.b).copied().collect();
            let shape = |members: &[usize], weights: &Option<Vec<f64>>| {
                let dummies = vec![PlayerState::new(0.0); members.len()];
                self.rules.check_team(&Team { members: &dummies, weights: weights.as_deref() }, "t").is_ok()
            };
            if !(self.distinct(&both) && shape(&m.a, &m.weights_a) && shape(&m.b, &m.weights_b) && unit(m.outcome.score_a) && unit(m.outcome.share_a)) {
                return Err(());
            }
        }
        if !self.has_room(matches.len() as f64 * 2.0 * TEAM_CHANGE) {
            return Err(());
        }
        let mut events = Vec::new();
        for (position, m) in matches.iter().enumerate() {
            let a: Vec<PlayerState> = m.a.iter().map(|&i| self.state(i)).collect();
            let b: Vec<PlayerState> = m.b.iter().map(|&i| self.state(i)).collect();
            let (mut out_a, mut out_b) = (a.clone(), b.clone());
            let (team_a, team_b) = (Team { members: &a, weights: m.weights_a.as_deref() }, Team { members: &b, weights: m.weights_b.as_deref() });
            self.rules.rate_teams(team_a, team_b, m.outcome, &mut out_a, &mut out_b).expect("checked above");
            let players: Vec<usize> = m.a.iter().chain(&m.b).copied().collect();
            let states: Vec<PlayerState> = out_a.into_iter().chain(out_b).collect();
            self.finish_match(position, &players, &states, &mut events);
        }
        Ok(events)
    }

    /// A list of free-for-alls, refused as a whole or applied one by one.
    pub fn apply_placements(&mut self, matches: &[(Vec<usize>, Vec<u32>)]) -> Result<Vec<Event>, ()> {
        for (entrants, places) in matches {
            let dummies = vec![PlayerState::new(0.0); entrants.len()];
            if !(self.distinct(entrants) && self.rules.check_placements(&dummies, places).is_ok()) {
                return Err(());
            }
        }
        if !self.has_room(matches.len() as f64 * 2.0 * PLACEMENT_CHANGE) {
            return Err(());
        }
        let mut events = Vec::new();
        for (position, (entrants, places)) in matches.iter().enumerate() {
            let states: Vec<PlayerState> = entrants.iter().map(|&i| self.state(i)).collect();
            let mut out = states.clone();
            self.rules.rate_placements(&states, places, &mut out).expect("checked above");
            self.finish_match(position, entrants, &out, &mut events);
        }
        Ok(events)
    }

    /// The anchor of resets and decay: the initial rating, or the pool's mean.
    fn anchor(&self) -> f64 {
        let config = self.rules.config();
        match config.season_reset.anchor {
            ResetAnchor::PoolMean if !self.stored.is_empty() => self.total() / self.stored.len() as f64,
            _ => f64::from(config.initial_rating),
        }
    }

    /// A change to `target` rounded as a match's change is.
    fn rounded(rounding: Rounding, rating: f32, target: f64) -> f64 {
        let delta = match rounding {
            Rounding::None => target - f64::from(rating),
            Rounding::Truncate => (target - f64::from(rating)).trunc(),
            Rounding::HalfAwayFromZero => (target - f64::from(rating)).round(),
        };
        f64::from(rating) + delta
    }

    /// Inactivity decay up to `now` (docs/seasons.md, "Inactivity decay").
    pub fn apply_decay(&mut self, now: f64) -> Result<(usize, Vec<Event>), ()> {
        if !now.is_finite() || self.decayed_through.is_some_and(|through| now < through) {
            return Err(());
        }
        let config = self.rules.config().clone();
        let decay = config.decay;
        if decay.points_per_day <= 0.0 {
            self.decayed_through = Some(now);
            return Ok((0, Vec::new()));
        }
        // The stop: the highest of the anchor, the floor, min_rating and min_league's bound
        // (league 0 has none).
        let leagues = config.leagues.as_slice();
        let bound = decay.min_league.filter(|&l| l > 0).map(|l| f64::from(leagues[l as usize].min_rating));
        let stop = [decay.floor.map(f64::from), decay.min_rating.map(f64::from), bound].into_iter().flatten().fold(self.anchor(), f64::max);
        let grace = decay.grace_days * SECONDS_PER_DAY;
        let (mut moved, mut events) = (0, Vec::new());
        for i in 0..self.stored.len() {
            let p = self.state(i);
            let held = p.league.expect("placed");
            let start = match self.decayed_through {
                Some(through) => through.max(p.last_played + grace),
                None => p.last_played + grace,
            };
            let eligible = now > start && decay.min_league.is_none_or(|min| held >= min);
            if !eligible || f64::from(p.rating) <= stop {
                continue;
            }
            let days = (now - start) / SECONDS_PER_DAY;
            let target = (f64::from(p.rating) - decay.points_per_day * days).max(stop);
            let mut rating = Self::rounded(config.rounding, p.rating, target).max(stop) as f32;
            if f64::from(rating) < stop {
                rating = rating.next_up();
            }
            if rating == p.rating {
                continue;
            }
            moved += 1;
            // Decay demotes, never promotes: down from the held league while the rating is
            // below the league's bound minus the margin.
            let mut league = held as usize;
            while league > 0 && f64::from(rating) < f64::from(leagues[league].min_rating) - config.demotion_margin {
                league -= 1;
            }
            let league = league as u32;
            Self::event(&mut events, i, i, Some(held), Some(league));
            let protected_games = if league < held { 0 } else { p.protected_games };
            self.store(i, PlayerState { rating, league: Some(league), protected_games, ..p });
        }
        self.decayed_through = Some(now);
        self.rebalance();
        Ok((moved, events))
    }

    /// The season's end: the records, then the soft reset (docs/seasons.md, "Season end").
    pub fn end_season(&mut self) -> (Vec<Record>, Vec<Event>) {
        let records: Vec<Record> = (0..self.stored.len())
            .map(|i| {
                let p = self.state(i);
                (i, p.rating, p.peak_rating, p.league.expect("placed"), p.peak_league, p.season_games, p.season_wins)
            })
            .collect();
        let config = self.rules.config().clone();
        let anchor = self.anchor();
        let floor = config.min_rating.map_or(f64::NEG_INFINITY, f64::from);
        let mut events = Vec::new();
        for i in 0..self.stored.len() {
            let p = self.state(i);
            let held = p.league.expect("placed");
            let keep = config.leagues.as_slice().get(held as usize).and_then(|l| l.season_keep).unwrap_or(config.season_reset.keep);
            let target = anchor + (f64::from(p.rating) - anchor) * keep;
            let rating = Self::rounded(config.rounding, p.rating, target).max(floor) as f32;
            let league = config.leagues.league_of(rating) as u32;
            Self::event(&mut events, i, i, Some(held), Some(league));
            // Stored as the rating itself: the reset folds the offset in.
            self.stored[i] = PlayerState { rating, league: Some(league), protected_games: 0, season_games: 0, season_wins: 0, peak_rating: rating, peak_league: league, ..p };
        }
        self.offset = 0.0;
        self.rebalance();
        (records, events)
    }

    /// New rules: ratings kept (the offset folded in), leagues placed afresh when the
    /// bounds differ, the new total applied.
    pub fn set_rules(&mut self, rules: Rules) {
        let bounds = |r: &Rules| r.config().leagues.as_slice().iter().map(|l| l.min_rating.to_bits()).collect::<Vec<_>>();
        let changed = bounds(&rules) != bounds(&self.rules);
        for i in 0..self.stored.len() {
            let p = self.state(i);
            let mut next = p;
            if changed {
                let league = rules.league_of(p.rating) as u32;
                next = PlayerState { league: Some(league), peak_league: league, protected_games: 0, ..p };
            }
            self.stored[i] = next;
        }
        self.rules = rules;
        self.offset = 0.0;
        self.rebalance();
    }
}

/// Whether two states are the same bits (ratings, peaks and times compared as bits).
pub fn same_state(a: &PlayerState, b: &PlayerState) -> bool {
    a.rating.to_bits() == b.rating.to_bits()
        && a.peak_rating.to_bits() == b.peak_rating.to_bits()
        && a.last_played.to_bits() == b.last_played.to_bits()
        && PlayerState { rating: 0.0, peak_rating: 0.0, last_played: 0.0, ..*a } == PlayerState { rating: 0.0, peak_rating: 0.0, last_played: 0.0, ..*b }
}
