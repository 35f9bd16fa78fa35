//! Rating periods: a player's games of one period rated at once, as FIDE (handbook B.02,
//! 8.3) and USCF rate them. Every game is scored against the opponent's rating at the
//! start of the period, the player's K is the one held at the start (with FIDE's
//! `K x n <= 700` for the period's `n` games when the `fide` policy's `period_rule` is
//! on), and the summed change is rounded once:
//!
//! ```text
//! delta = K * sum(S_i - E_i)  +  L * sum(share_i)  +  V * sum(W_i)
//! R'    = max(round(R, delta), R_min)
//! ```
//!
//! Under FIDE's table the sum is kept in exact hundredths, so a period whose change is
//! exactly half a point rounds away from zero as FIDE's 8.3.4 says. The streak multiplier
//! is not applied within a period (the streak counter still follows the games).
//!
//! ```
//! use ranking_elo::{Config, Outcome, PlayerState};
//! use ranking_elo::period::PeriodGame;
//!
//! // FIDE's rules: the table, the 400-point rule (not for players rated 2650 and above),
//! // K from the handbook, the change rounded half away from zero.
//! let fide = Config::from_json(r#"{"expected_score": {"model": "fide_table"},
//!     "max_rating_difference": 400, "max_rating_difference_exempt_from": 2650,
//!     "k_policy": {"policy": "fide", "period_rule": true}, "rounding": "half_away_from_zero"}"#).unwrap();
//! let player = PlayerState { games_played: 100, has_reached_2400: true, ..PlayerState::new(2813.0) };
//! let games = [(1787.0, Outcome::WIN), (2025.0, Outcome::WIN), (2310.0, Outcome::WIN), (2400.0, Outcome::WIN), (2505.0, Outcome::DRAW)]
//!     .map(|(opponent_rating, outcome)| PeriodGame { opponent_rating, outcome });
//! // 10 x (0 + 0 + 0.04 + 0.07 - 0.36) = -2.5, rounded once to -3.
//! assert_eq!(fide.rate_period(&player, &games).unwrap().rating, 2810.0);
//! ```

use crate::config::Rules;
use crate::error::{check_rating, Error};
use crate::expected::ExpectationKind;
use crate::outcome::{check_score, Outcome};
use crate::player::PlayerState;
use crate::update::apply_delta;

/// One game of a rating period, seen from the rated player.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeriodGame {
    /// The opponent's rating at the start of the period.
    pub opponent_rating: f32,
    /// The result for the rated player.
    pub outcome: Outcome,
}

/// A player's period, rated: the new state and what it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatedPeriod {
    /// The state after the period.
    pub state: PlayerState,
    /// The K used for every game of the period.
    pub k: f64,
    /// The change before rounding and the floor.
    pub change: f64,
}

impl Rules {
    /// Rates a player's games of one rating period at once (see the module's text). A
    /// period without games leaves the player as they are.
    ///
    /// # Errors
    /// A non-finite or out-of-range rating (the player's or an opponent's, named by its
    /// position) or an outcome outside `[0, 1]`.
    pub fn rate_period(&self, player: &PlayerState, games: &[PeriodGame]) -> Result<PlayerState, Error> {
        check_rating(player.rating, "player.rating")?;
        for (i, game) in games.iter().enumerate() {
            check_rating(game.opponent_rating, &format!("games[{i}].opponent_rating"))?;
            check_score(game.outcome.score_a, &format!("games[{i}].outcome.score_a"))?;
            check_score(game.outcome.share_a, &format!("games[{i}].outcome.share_a"))?;
        }
        Ok(self.rate_period_unchecked(player, games).state)
    }

    /// The K a player uses for all `games` games of a period: the policy's K for the
    /// state at the start, with `period_games` set to the period's count.
    #[must_use]
    pub fn period_k(&self, player: &PlayerState, games: usize) -> f64 {
        let games = u32::try_from(games).unwrap_or(u32::MAX);
        self.k_for(&PlayerState { period_games: games, ..*player })
    }

    /// One game's share of a period's change before rounding, `K (S - E)` (exact
    /// hundredths under FIDE's table), for a player with K `k` (from [`Self::period_k`]).
    #[must_use]
    pub fn period_game_change(&self, k: f64, player_rating: f32, game: &PeriodGame) -> f64 {
        let expected = self.expectation.expected_a(player_rating, game.opponent_rating);
        crate::expected::k_term(self.expectation.kind, k, game.outcome.score_a, expected)
    }

    /// [`Self::rate_period`] for checked input: the games in the order they were played (the
    /// streak and the league's protection follow it).
    pub(crate) fn rate_period_unchecked(&self, player: &PlayerState, games: &[PeriodGame]) -> RatedPeriod {
        let count = games.len();
        if count == 0 {
            return RatedPeriod { state: *player, k: self.period_k(player, 0), change: 0.0 };
        }
        let k = self.period_k(player, count);
        let table = self.expectation.kind == ExpectationKind::FideTable;
        let (mut surprise, mut share, mut result) = (0.0f64, 0.0f64, 0.0f64);
        for game in games {
            let expected = self.expectation.expected_a(player.rating, game.opponent_rating);
            // Under the table, in whole hundredths: exact, whatever the order.
            surprise += if table { 100.0 * game.outcome.score_a - (100.0 * expected).round() } else { game.outcome.score_a - expected };
            share += game.outcome.share_a;
            result += game.outcome.result_a();
        }
        let k_part = if table { k * surprise / 100.0 } else { k * surprise };
        let league = self.current_league(player);
        let (l, v) = self.bonuses(|| league);
        let change = k_part + l * share + v * result;
        let rating = apply_delta(player.rating, change, self.rounding_rule(), self.floor);
        // The counters follow each game; the rating changes with the last.
        let mut state = *player;
        for (i, game) in games.iter().enumerate() {
            let after = if i + 1 == count { rating } else { player.rating };
            state = self.finish_game_from(&state, self.current_league(&state), after, game.outcome.a_won());
        }
        RatedPeriod { state: PlayerState { period_games: 0, ..state }, k, change }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn fide() -> Rules {
        Config::from_json(
            r#"{"expected_score": {"model": "fide_table"}, "max_rating_difference": 400, "max_rating_difference_exempt_from": 2650,
                "k_policy": {"policy": "fide", "period_rule": true}, "rounding": "half_away_from_zero"}"#,
        )
        .unwrap()
    }

    #[test]
    fn a_period_is_rounded_once() {
        // Two draws at PD .45 (D = 35 below): 10 x 0.05 each. Per game, each rounds to +1
        // (0.5 away from zero): +2. Once per period: +1.
        let rules = fide();
        let player = PlayerState { games_played: 100, has_reached_2400: true, ..PlayerState::new(2400.0) };
        let draw = PeriodGame { opponent_rating: 2435.0, outcome: Outcome::DRAW };
        assert_eq!(rules.rate_period(&player, &[draw, draw]).unwrap().rating, 2401.0);
        assert_eq!(rules.rate_period(&player, &[draw]).unwrap().rating, 2401.0);
        let state = rules.rate_period(&player, &[draw, draw]).unwrap();
        assert_eq!((state.games_played, state.win_streak, state.season_games), (102, 0, 2));
        assert_eq!(rules.rate_period(&player, &[]).unwrap(), player);
    }

    #[test]
    fn bad_games_are_named() {
        let rules = fide();
        let player = PlayerState::new(2000.0);
        let bad = [PeriodGame { opponent_rating: 2000.0, outcome: Outcome::WIN }, PeriodGame { opponent_rating: f32::NAN, outcome: Outcome::WIN }];
        assert!(rules.rate_period(&player, &bad).unwrap_err().to_string().contains("games[1].opponent_rating"));
        let bad = [PeriodGame { opponent_rating: 2000.0, outcome: Outcome { score_a: 1.5, share_a: 1.0 } }];
        assert!(rules.rate_period(&player, &bad).unwrap_err().to_string().contains("games[0].outcome.score_a"));
    }
}
