//! Team matches and free-for-all placements applied to a [`Pool`]: lists applied in order,
//! atomically (the whole list is checked first, each match's sizes before anything else;
//! on any bad match nothing changes and the error names its position). Each match is one
//! step, as a pair match is: every member's new rating is computed from the ratings before
//! the match, all are stored, then a zero-sum pool is rebalanced once.
//!
//! ```
//! use ranking_elo::ladder::group_matches::{PlacementMatch, TeamMatch};
//! use ranking_elo::pool::Pool;
//! use ranking_elo::{Outcome, Rules};
//!
//! let mut pool = Pool::new(Rules::default());
//! pool.add_players(6);
//! pool.apply_teams(&[TeamMatch::new(&[0, 1], &[2, 3], Outcome::WIN)]).unwrap();
//! assert_eq!(pool.rating(0), Some(1516.0));
//! pool.apply_placements(&[PlacementMatch { entrants: &[0, 2, 4, 5], places: &[1, 2, 2, 4] }]).unwrap();
//! assert_eq!(pool.player(4).unwrap().games_played, 1);
//! ```

use super::blocks::prefetch;
use super::{Pool, PoolError};
use crate::error::{Error, MAX_FACTOR};
use crate::ladder::zero_sum::Unshifted;
use crate::outcome::Outcome;
use crate::placement::ENTRANTS;
use crate::player::PlayerState;
use crate::rating::standing::LeagueChange;
use crate::team::MAX_TEAM_SIZE;

/// One team match of a list: member indices of each team, optional weights, the outcome
/// seen from team A.
#[derive(Debug, Clone, Copy)]
pub struct TeamMatch<'a> {
    /// Indices of team A's members.
    pub team_a: &'a [usize],
    /// Indices of team B's members.
    pub team_b: &'a [usize],
    /// Team A's weights (one per member), when the rules use weights.
    pub weights_a: Option<&'a [f64]>,
    /// Team B's weights.
    pub weights_b: Option<&'a [f64]>,
    /// The result seen from team A.
    pub outcome: Outcome,
}

impl<'a> TeamMatch<'a> {
    /// A match without weights.
    #[must_use]
    pub const fn new(team_a: &'a [usize], team_b: &'a [usize], outcome: Outcome) -> Self {
        Self { team_a, team_b, weights_a: None, weights_b: None, outcome }
    }
}

/// One free-for-all of a list: entrant indices and their places (1 = first, ties equal).
#[derive(Debug, Clone, Copy)]
pub struct PlacementMatch<'a> {
    /// Indices of the entrants.
    pub entrants: &'a [usize],
    /// One place per entrant.
    pub places: &'a [u32],
}

/// The most one team match moves a rating: a member's share of the K term is at most the
/// team size times K, plus `L`, `V` and rounding.
const TEAM_CHANGE: f64 = (MAX_TEAM_SIZE as f64 + 2.0) * MAX_FACTOR + 1.0;

/// The most one free-for-all moves a rating (without normalisation: 255 virtual matches).
const PLACEMENT_CHANGE: f64 = (*ENTRANTS.end() as f64 + 1.0) * MAX_FACTOR + 1.0;

impl Pool {
    /// Refuses an index out of range or repeated among `indices` (one match's players).
    fn check_indices(&self, position: usize, indices: &[usize]) -> Result<(), PoolError> {
        let len = self.players.len();
        for (k, &index) in indices.iter().enumerate() {
            if index >= len {
                return Err(PoolError::IndexOutOfRange { position, index, len });
            }
            if indices[..k].contains(&index) {
                return Err(PoolError::DuplicatePlayer { position, index });
            }
        }
        Ok(())
    }

    /// The states the rating math reads of players `indices` (checked by
    /// [`Self::check_indices`] in the validation pass) into `out`, cleared first.
    fn gather(&self, indices: &[usize], out: &mut Vec<PlayerState>) {
        // The cold record is not needed: no rule reads the season's game count or the last
        // match time.
        out.clear();
        out.extend(indices.iter().map(|&index| {
            let hot = &self.players[index];
            hot.game_state(self.ledger.current(hot.rating))
        }));
    }

    /// Writes new current states back for players `indices` (relative to the offset,
    /// keeping the exact sum, stamped with the clock, league changes reported). The caller
    /// rebalances a zero-sum pool once the whole match is stored: a rating computed before
    /// a shift must be stored against the offset it was computed with.
    ///
    /// With `unshifted` (a pool without zero-sum offset) the exact sum is not kept, as in
    /// the block applier: the caller forgets it after the list ([`Self::finish_list`]).
    fn store(&mut self, position: usize, indices: &[usize], states: &[PlayerState], unshifted: Option<Unshifted>, mut events: Option<&mut Vec<LeagueChange>>) {
        for (&index, state) in indices.iter().zip(states) {
            self.store_played(position, index, *state, unshifted, events.as_deref_mut());
        }
    }

    /// After a list of `matches` matches stored with `unshifted`: the exact sum, not kept,
    /// is forgotten (and recomputed when asked for). An empty list changed nothing.
    fn finish_list(&mut self, matches: usize, unshifted: Option<Unshifted>) {
        if let (Some(unshifted), true) = (unshifted, matches > 0) {
            self.ledger.forget_sum(unshifted);
        }
    }

    /// Applies team matches in order, atomically: every match is checked first (team sizes 1
    /// to 64, weights, the outcome, then indices in range and no player twice in a match);
    /// on any bad match nothing changes and the error gives its position. In a zero-sum pool
    /// everybody receives `(T - sum) / N` after each match, as after a pair match.
    ///
    /// # Errors
    /// The first bad match, with its position.
    pub fn apply_teams(&mut self, matches: &[TeamMatch<'_>]) -> Result<(), PoolError> {
        self.apply_teams_reporting(matches, None)
    }

    /// [`Self::apply_teams`], appending the league changes (promotions, demotions) the
    /// matches caused to `events`, in match order.
    ///
    /// # Errors
    /// As [`Self::apply_teams`]; nothing is appended then.
    pub fn apply_teams_with_events(&mut self, matches: &[TeamMatch<'_>], events: &mut Vec<LeagueChange>) -> Result<(), PoolError> {
        self.apply_teams_reporting(matches, Some(events))
    }

    fn apply_teams_reporting(&mut self, matches: &[TeamMatch<'_>], mut events: Option<&mut Vec<LeagueChange>>) -> Result<(), PoolError> {
        let (mut a, mut b, mut both) = (Vec::new(), Vec::new(), Vec::new());
        for (position, m) in matches.iter().enumerate() {
            let bad = |error: Error| PoolError::BadOutcome { position, error };
            // Sizes first: nothing is copied for a team of a million members.
            self.rules.check_team_shape(m.team_a.len(), m.weights_a, "team_a").map_err(bad)?;
            self.rules.check_team_shape(m.team_b.len(), m.weights_b, "team_b").map_err(bad)?;
            crate::outcome::check_score(m.outcome.score_a, "score_a").map_err(bad)?;
            crate::outcome::check_score(m.outcome.share_a, "share_a").map_err(bad)?;
            // Both teams at once, so that a player in both is refused too.
            both.clear();
            both.extend(m.team_a.iter().chain(m.team_b).copied());
            self.check_indices(position, &both)?;
        }
        self.ensure_room_for(matches.len(), matches.len() as f64 * 2.0 * TEAM_CHANGE)?;
        let unshifted = self.ledger.unshifted();
        for (position, m) in matches.iter().enumerate() {
            // The next match's members, asked for now, are cached when it comes.
            if let Some(next) = matches.get(position + 1) {
                for &index in next.team_a.iter().chain(next.team_b) {
                    prefetch(&self.players, index);
                }
            }
            self.gather(m.team_a, &mut a);
            self.gather(m.team_b, &mut b);
            self.rules.rate_teams_in_place(&mut a, m.weights_a, &mut b, m.weights_b, m.outcome);
            self.store(position, m.team_a, &a, unshifted, events.as_deref_mut());
            self.store(position, m.team_b, &b, unshifted, events.as_deref_mut());
            self.rebalance();
        }
        self.finish_list(matches.len(), unshifted);
        Ok(())
    }

    /// Applies free-for-all matches in order, atomically: every match is checked first (2 to
    /// 256 entrants and places from 1 to N, then indices in range and no player twice); on
    /// any bad match nothing changes and the error gives its position. In a zero-sum pool
    /// everybody receives `(T - sum) / N` after each match.
    ///
    /// # Errors
    /// The first bad match, with its position.
    pub fn apply_placements(&mut self, matches: &[PlacementMatch<'_>]) -> Result<(), PoolError> {
        self.apply_placements_reporting(matches, None)
    }

    /// [`Self::apply_placements`], appending the league changes the matches caused to
    /// `events`, in match order.
    ///
    /// # Errors
    /// As [`Self::apply_placements`]; nothing is appended then.
    pub fn apply_placements_with_events(&mut self, matches: &[PlacementMatch<'_>], events: &mut Vec<LeagueChange>) -> Result<(), PoolError> {
        self.apply_placements_reporting(matches, Some(events))
    }

    fn apply_placements_reporting(&mut self, matches: &[PlacementMatch<'_>], mut events: Option<&mut Vec<LeagueChange>>) -> Result<(), PoolError> {
        let mut states = Vec::new();
        for (position, m) in matches.iter().enumerate() {
            crate::config::Rules::check_placements_shape(m.entrants.len(), m.places).map_err(|error| PoolError::BadOutcome { position, error })?;
            self.check_indices(position, m.entrants)?;
        }
        self.ensure_room_for(matches.len(), matches.len() as f64 * 2.0 * PLACEMENT_CHANGE)?;
        let unshifted = self.ledger.unshifted();
        let (mut out, mut scratch) = (Vec::new(), Vec::new());
        for (position, m) in matches.iter().enumerate() {
            if let Some(next) = matches.get(position + 1) {
                for &index in next.entrants {
                    prefetch(&self.players, index);
                }
            }
            self.gather(m.entrants, &mut states);
            out.clone_from(&states);
            scratch.resize(3 * states.len(), 0.0);
            self.rules.rate_placements_unchecked(&states, m.places, &mut scratch, &mut out);
            self.store(position, m.entrants, &out, unshifted, events.as_deref_mut());
            self.rebalance();
        }
        self.finish_list(matches.len(), unshifted);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Rules};
    use crate::team::Team;

    #[test]
    fn team_lists_are_atomic_and_match_the_rules() {
        let rules = Config::from_json(r#"{"streak_alpha":0.2}"#).unwrap();
        let mut pool = Pool::new(rules.clone());
        pool.add_players(6);
        let before = pool.clone();
        let bad = [TeamMatch::new(&[0, 1], &[2, 3], Outcome::WIN), TeamMatch::new(&[4], &[4], Outcome::WIN)];
        assert_eq!(pool.apply_teams(&bad).unwrap_err(), PoolError::DuplicatePlayer { position: 1, index: 4 });
        assert!(pool.apply_teams(&[TeamMatch::new(&[0], &[9], Outcome::WIN)]).unwrap_err().to_string().starts_with("matches[0]"));
        assert!(pool.apply_teams(&[TeamMatch::new(&[], &[1], Outcome::WIN)]).is_err());
        assert_eq!(pool, before, "nothing applied");
        // The same as the rules on the states, match after match.
        let matches = [TeamMatch::new(&[0, 1], &[2, 3], Outcome::WIN), TeamMatch::new(&[0, 4], &[1, 5, 2], Outcome::DRAW)];
        pool.apply_teams(&matches).unwrap();
        let mut states = vec![rules.new_player(); 6];
        for m in &matches {
            let a: Vec<PlayerState> = m.team_a.iter().map(|&i| states[i]).collect();
            let b: Vec<PlayerState> = m.team_b.iter().map(|&i| states[i]).collect();
            let (mut out_a, mut out_b) = (a.clone(), b.clone());
            rules.rate_teams(Team::new(&a), Team::new(&b), m.outcome, &mut out_a, &mut out_b).unwrap();
            for (&i, s) in m.team_a.iter().zip(&out_a).chain(m.team_b.iter().zip(&out_b)) {
                states[i] = *s;
            }
        }
        for (i, state) in states.iter().enumerate() {
            assert_eq!(pool.player(i).unwrap(), *state, "player {i}");
        }
    }

    #[test]
    fn placements_keep_a_zero_sum_total() {
        let mut pool = Pool::new(Config::from_json(r#"{"zero_sum_total":1000}"#).unwrap());
        pool.add_players(8);
        let entrants = [0, 1, 2, 3, 4, 5, 6, 7];
        pool.apply_placements(&[PlacementMatch { entrants: &entrants, places: &[1, 2, 3, 4, 5, 6, 7, 8] }]).unwrap();
        assert!((pool.total() - 1000.0).abs() < 1e-9);
        assert!(pool.rating(0).unwrap() > pool.rating(7).unwrap());
        let refused = pool.apply_placements(&[PlacementMatch { entrants: &[0, 1], places: &[1, 3] }]).unwrap_err();
        assert!(refused.to_string().contains("places[1]"), "{refused}");
        assert!(matches!(pool.apply_placements(&[PlacementMatch { entrants: &[0, 0], places: &[1, 2] }]), Err(PoolError::DuplicatePlayer { .. })));
        let _ = Rules::default();
    }
}
