//! A rating period on a pool: the period's matches rated at once against the ratings the
//! players hold before it, each player's change rounded once ([`crate::period`]).
//!
//! ```
//! use ranking_elo::pool::{Match, Pool};
//! use ranking_elo::{Config, Outcome};
//!
//! let rules = Config::from_json(r#"{"expected_score": {"model": "fide_table"}, "max_rating_difference": 400,
//!     "k_policy": {"policy": "constant", "k": 10}, "rounding": "half_away_from_zero"}"#).unwrap();
//! let mut pool = Pool::new(rules);
//! pool.add_players(3);
//! // Player 0 draws twice against players rated the same: 10 x (0 + 0) = 0; player 1 wins
//! // against player 2 once: 10 x 0.5 = 5.
//! let period = [Match::new(0, 1, Outcome::DRAW), Match::new(0, 2, Outcome::DRAW), Match::new(1, 2, Outcome::WIN)];
//! pool.rate_period(&period, None).unwrap();
//! assert_eq!([0, 1, 2].map(|i| pool.rating(i).unwrap()), [1500.0, 1505.0, 1495.0]);
//! ```

use super::{record_period, MatchOutputs, Pool, PoolError};
use crate::outcome::Outcome;
use crate::period::PeriodGame;
use crate::player::PlayerState;

use super::Match;
use crate::matchmaking::ordered;

impl Pool {
    /// Rates the matches of one rating period at once, atomically: every match is scored
    /// against the ratings the players hold now (the period's opening ratings), each
    /// player's change is summed over the player's matches and rounded once, and K is each
    /// player's at the start (with FIDE's `K x n <= 700` for the `n` games when the `fide`
    /// policy's `period_rule` is on). Optional outputs receive, per match, each game's share
    /// of the change before rounding (`delta_a`, `delta_b`) and A's expected score; league
    /// changes are reported at each player's last match.
    ///
    /// # Errors
    /// As [`Self::apply`]: the first invalid match with its position, an output of the
    /// wrong length, or no room for the ratings; nothing changes.
    pub fn rate_period(&mut self, matches: &[Match], outputs: Option<MatchOutputs<'_>>) -> Result<(), PoolError> {
        self.validate(matches)?;
        self.rate_period_checked(matches, outputs)
    }

    /// [`Self::rate_period`] for matches the caller has checked with [`Self::match_is_valid`].
    pub(crate) fn rate_period_checked(&mut self, matches: &[Match], outputs: Option<MatchOutputs<'_>>) -> Result<(), PoolError> {
        debug_assert!(matches.iter().all(|m| self.match_is_valid(m)), "checked matches");
        let mut outputs = outputs.unwrap_or_default();
        outputs.check_lengths(matches.len())?;
        self.ensure_room(matches.len())?;
        // Each player's games: both sides of every match ordered by player, then position
        // (the matchmaker's sort: one sort in the binary, not two).
        let side = |i: usize| -> (usize, usize) { (if i.is_multiple_of(2) { matches[i / 2].a } else { matches[i / 2].b }, i / 2) };
        let sides: Vec<(usize, usize)> = ordered((0..2 * matches.len()).map(|i| (side(i).0 as u64, i as u64))).into_iter().map(|i| side(i as usize)).collect();
        let opening = |pool: &Self, index: usize| pool.players[index].game_state(pool.ledger.current(pool.players[index].rating));
        let game = |pool: &Self, index: usize, position: usize| {
            let m = &matches[position];
            let (other, outcome) = if m.a == index { (m.b, m.outcome) } else { (m.a, Outcome { score_a: 1.0 - m.outcome.score_a, share_a: 1.0 - m.outcome.share_a }) };
            PeriodGame { opponent_rating: opening(pool, other).rating, outcome }
        };
        // Every new state first (all read the opening ratings), then stored in the order
        // of each player's last match.
        let mut rated: Vec<(usize, usize, PlayerState)> = Vec::new();
        let mut games: Vec<PeriodGame> = Vec::new();
        for group in sides.chunk_by(|x, y| x.0 == y.0) {
            let index = group[0].0;
            let player = opening(self, index);
            games.clear();
            games.extend(group.iter().map(|&(_, position)| game(self, index, position)));
            let period = self.rules.rate_period_unchecked(&player, &games);
            for (&(_, position), game) in group.iter().zip(&games) {
                let change = self.rules.period_game_change(period.k, player.rating, game);
                let is_a = matches[position].a == index;
                let expected = is_a.then(|| self.rules.expected_score(player.rating, game.opponent_rating));
                record_period(&mut outputs, position, is_a, change, expected);
            }
            rated.push((group[group.len() - 1].1, index, period.state));
        }
        // Stored in the order of each player's last match (league changes in match order).
        for i in ordered(rated.iter().map(|&(last, index, _)| (last as u64, index as u64))) {
            let (last, index, state) = rated[i as usize];
            self.store_played(last, index, state, None, outputs.events.as_deref_mut());
        }
        self.rebalance();
        Ok(())
    }
}

/// Tests of the pool's periods against the single-player rule.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::period::PeriodGame;

    #[test]
    fn the_pool_rates_each_player_as_the_single_rule_does() {
        let rules = Config::from_json(
            r#"{"expected_score": {"model": "fide_table"}, "max_rating_difference": 400, "k_policy": {"policy": "fide", "period_rule": true}, "rounding": "half_away_from_zero"}"#,
        )
        .unwrap();
        let mut pool = Pool::new(rules.clone());
        let ratings = [2000.0f32, 2120.0, 1890.0, 2333.0];
        let states: Vec<PlayerState> = ratings.iter().map(|&r| PlayerState { games_played: 50, ..PlayerState::new(r) }).collect();
        pool.add_player_states(&states).unwrap();
        let period = [Match::new(0, 1, Outcome::WIN), Match::new(2, 0, Outcome::DRAW), Match::new(0, 3, Outcome::LOSS), Match::new(1, 2, Outcome::WIN)];
        let (mut delta_a, mut delta_b, mut expected_a) = (vec![0.0; 4], vec![0.0; 4], vec![0.0; 4]);
        let outputs = MatchOutputs { delta_a: Some(&mut delta_a), delta_b: Some(&mut delta_b), expected_a: Some(&mut expected_a), events: None };
        pool.rate_period(&period, Some(outputs)).unwrap();
        let games_of = |index: usize| -> Vec<PeriodGame> {
            period
                .iter()
                .filter(|m| m.a == index || m.b == index)
                .map(|m| {
                    if m.a == index {
                        PeriodGame { opponent_rating: ratings[m.b], outcome: m.outcome }
                    } else {
                        PeriodGame { opponent_rating: ratings[m.a], outcome: Outcome { score_a: 1.0 - m.outcome.score_a, share_a: 1.0 - m.outcome.share_a } }
                    }
                })
                .collect()
        };
        for (index, state) in states.iter().enumerate() {
            assert_eq!(pool.player(index).unwrap().rating, rules.rate_period(state, &games_of(index)).unwrap().rating, "player {index}");
        }
        // Player 0 (2000, K 20): beat 2120 (PD .34: +13.2), drew 1890 (PD .65: -3), lost to
        // 2333 (PD .12: -2.4): +7.8, rounded once to +8.
        assert_eq!(pool.rating(0), Some(2008.0));
        assert_eq!(pool.player(0).unwrap().games_played, 53);
        assert_eq!((delta_a[0], delta_b[1], delta_a[2]), (13.2, -3.0, -2.4));
        assert_eq!(expected_a[0], 0.34);
        // A bad match applies nothing.
        let before = pool.clone();
        assert!(pool.rate_period(&[Match::new(0, 1, Outcome::WIN), Match::new(1, 1, Outcome::WIN)], None).is_err());
        assert_eq!(pool, before);
    }
}
