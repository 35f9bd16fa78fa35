//! The update rule:
//!
//! ```text
//! delta_X = K_X * M * (S_X - E_X)  +  L * share_X  +  V * W_X
//! R'_X    = max(R_X + round(delta_X), R_min)
//! ```
//!
//! Ratings are `f32` at rest (what Unity and C callers store) and all arithmetic is done
//! in `f64`, rounded to `f32` once at the end. Every entry point (single call, batch,
//! pool, the tutorial mirrors) goes through [`rate_ratings`], so they agree bit for bit.
//!
//! ```
//! use ranking_elo::{Config, Outcome, Rounding};
//!
//! let rules = Config::default().validate().unwrap();
//! assert_eq!(rules.rate(1000.0, 1000.0, Outcome::WIN).unwrap(), (1016.0, 984.0));
//!
//! let integer_elo = Config { rounding: Rounding::Truncate, ..Config::default() }.validate().unwrap();
//! assert_eq!(integer_elo.rate(1700.0, 1300.0, Outcome::WIN).unwrap(), (1702.0, 1298.0));
//! assert_eq!(integer_elo.rate(1700.0, 1300.0, Outcome::LOSS).unwrap(), (1671.0, 1329.0));
//! ```

use crate::config::{KCombine, RoundingRule, Rules};
use crate::error::{check_finite, check_rating, Error, MAX_FACTOR};
use crate::expected::{k_term, Expectation, PairExpectation};
use crate::outcome::Outcome;
use crate::player::PlayerState;

/// What one player brings to the update besides the rating: `K_X`, `L_X` and `V_X`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SideTerms {
    /// K factor.
    pub k: f64,
    /// Score-share bonus `L`.
    pub score_share_bonus: f64,
    /// Victory bonus `V`.
    pub victory_bonus: f64,
}

impl SideTerms {
    /// Plain Elo: a K factor and no bonuses.
    #[must_use]
    pub const fn k_only(k: f64) -> Self {
        Self { k, score_share_bonus: 0.0, victory_bonus: 0.0 }
    }
}

/// The formula itself, free of any policy: new ratings of A and B.
///
/// `multiplier` is the streak multiplier `M`; `floor` is `R_min` (`-inf` for none).
/// When both K are equal, B's K term is the exact negation of A's, so the K part of the
/// update is zero-sum in floating point too, and with rounding and `L = V = 0` the rounded
/// change of A is applied negated to B, as integer Elo does (`rounding`,
/// `docs/configuration.md#ratings`).
#[inline(always)]
#[must_use]
#[allow(clippy::too_many_arguments)] // the formula's own inputs; grouped structs would only rename them
pub fn rate_ratings(
    expectation: &Expectation,
    rounding: RoundingRule,
    floor: f64,
    rating_a: f32,
    rating_b: f32,
    outcome: Outcome,
    a: SideTerms,
    b: SideTerms,
    multiplier: f64,
) -> (f32, f32) {
    let expected = expectation.pair(rating_a, rating_b);
    rate_with_expected(expected, rounding, floor, rating_a, rating_b, outcome, a, b, multiplier)
}

/// [`rate_ratings`] after the expected scores: the part shared by every entry point,
/// including the vectorized batch kernel (`src/batch/kernel.rs`), so they agree bit for bit.
#[inline(always)]
#[must_use]
#[allow(clippy::too_many_arguments)] // as rate_ratings
pub fn rate_with_expected(
    expected: PairExpectation,
    rounding: RoundingRule,
    floor: f64,
    rating_a: f32,
    rating_b: f32,
    outcome: Outcome,
    a: SideTerms,
    b: SideTerms,
    multiplier: f64,
) -> (f32, f32) {
    let score_b = 1.0 - outcome.score_a;
    let share_b = 1.0 - outcome.share_a;
    let k_term_a = k_term(expected.kind, a.k * multiplier, outcome.score_a, expected.a);
    let k_term_b = if a.k == b.k && expected.symmetric { -k_term_a } else { k_term(expected.kind, b.k * multiplier, score_b, expected.b) };
    // The victory bonus follows the match result W (a win, draw or defeat), never the
    // share: a defeat with points scored earns none.
    let result_a = outcome.result_a();
    let delta_a = k_term_a + a.score_share_bonus * outcome.share_a + a.victory_bonus * result_a;
    let delta_b = k_term_b + b.score_share_bonus * share_b + b.victory_bonus * (1.0 - result_a);
    (apply_delta(rating_a, delta_a, rounding, floor), apply_delta(rating_b, delta_b, rounding, floor))
}

/// `max(round(R, delta), R_min)` as an `f32`: the last step of every update rule.
#[inline(always)]
pub(crate) fn apply_delta(rating: f32, delta: f64, rounding: RoundingRule, floor: f64) -> f32 {
    let updated = rounding.apply(f64::from(rating), delta);
    (if updated < floor { floor } else { updated }) as f32
}

/// The tutorial's `UpdatePlayerRankings`: logistic with c = 400, `K = multiplier` for
/// both players, win or loss, no rounding, no floor.
///
/// Any NaN or infinite input, and a negative multiplier (which would move ratings the
/// wrong way: the loser would gain), gives NaN for both ratings.
#[must_use]
pub fn tutorial_update(rating_a: f32, rating_b: f32, multiplier: f32, a_wins: bool) -> (f32, f32) {
    if !(rating_a.is_finite() && rating_b.is_finite() && multiplier.is_finite() && multiplier >= 0.0) {
        return (f32::NAN, f32::NAN);
    }
    let k = SideTerms::k_only(f64::from(multiplier));
    let outcome = if a_wins { Outcome::WIN } else { Outcome::LOSS };
    rate_ratings(&Expectation::TUTORIAL, RoundingRule::NONE, f64::NEG_INFINITY, rating_a, rating_b, outcome, k, k, 1.0)
}

/// The tutorial's `GetProbabilityWinning`: logistic `E` with c = 400. NaN or infinite
/// input gives NaN.
#[must_use]
pub fn tutorial_probability(rating_a: f32, rating_b: f32) -> f32 {
    if !(rating_a.is_finite() && rating_b.is_finite()) {
        return f32::NAN;
    }
    Expectation::TUTORIAL.expected_a(rating_a, rating_b) as f32
}

impl Rules {
    /// `L` and `V` for a player in league `league` (as `league()` gives it, called only
    /// when a league overrides them): the league's when it does, else the configuration's.
    #[inline(always)]
    pub(crate) fn bonuses(&self, league: impl FnOnce() -> usize) -> (f64, f64) {
        let (l, v) = (self.config.score_share_bonus, self.config.victory_bonus);
        if !self.league_bonuses {
            return (l, v);
        }
        let league = &self.config.leagues.as_slice()[league()];
        (league.score_share_bonus.unwrap_or(l), league.victory_bonus.unwrap_or(v))
    }

    /// K of a player with state under the configured policy; the `league` policy reads the
    /// league the player holds ([`Self::current_league`]).
    #[inline(always)]
    #[must_use]
    pub fn k_for(&self, player: &PlayerState) -> f64 {
        match self.config.k_policy {
            crate::kpolicy::KPolicy::League {} => self.config.leagues.as_slice()[self.current_league(player)].k.unwrap_or(0.0),
            // Without a call for the most common policy (team matches ask for every member).
            crate::kpolicy::KPolicy::Constant { k } => k,
            ref policy => policy.k_for(player, &self.config.leagues),
        }
    }

    /// [`Self::k_for`] for a player whose current league is already known.
    #[inline(always)]
    pub(crate) fn k_in_league(&self, player: &PlayerState, league: usize) -> f64 {
        match self.config.k_policy {
            crate::kpolicy::KPolicy::League {} => self.config.leagues.as_slice()[league].k.unwrap_or(0.0),
            crate::kpolicy::KPolicy::Constant { k } => k,
            ref policy => policy.k_for(player, &self.config.leagues),
        }
    }

    #[inline(always)]
    fn combine(&self, k_a: f64, k_b: f64) -> (f64, f64) {
        match self.config.k_combine {
            KCombine::PerPlayer => (k_a, k_b),
            KCombine::Average => {
                #[allow(clippy::manual_midpoint, reason = "k_combine's formula as docs/configuration.md writes it")]
                let k = (k_a + k_b) / 2.0;
                (k, k)
            }
        }
    }

    /// Rates one match with K factors given by the caller (before `k_combine`), for
    /// players without state (streaks count as 0). Inputs are assumed valid (finite
    /// ratings, K >= 0); [`Self::rate_checked_k`] checks them.
    #[inline(always)]
    #[must_use]
    pub fn rate_with_k(&self, rating_a: f32, rating_b: f32, outcome: Outcome, k_a: f64, k_b: f64) -> (f32, f32) {
        self.rate_core(rating_a, rating_b, outcome, k_a, k_b, 1.0)
    }

    #[inline(always)]
    fn rate_core(&self, rating_a: f32, rating_b: f32, outcome: Outcome, k_a: f64, k_b: f64, multiplier: f64) -> (f32, f32) {
        let expected_a = self.expectation.expected_a(rating_a, rating_b);
        let leagues = (|| self.league_of(rating_a), || self.league_of(rating_b));
        self.rate_core_expected(expected_a, rating_a, rating_b, outcome, (k_a, k_b), multiplier, leagues)
    }

    /// [`Self::rate_core`] with the expected score already computed (the pool computes a
    /// block of them in one vectorized loop).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)] // the formula's inputs
    fn rate_core_expected(
        &self,
        expected_a: f64,
        rating_a: f32,
        rating_b: f32,
        outcome: Outcome,
        (k_a, k_b): (f64, f64),
        multiplier: f64,
        (league_a, league_b): (impl FnOnce() -> usize, impl FnOnce() -> usize),
    ) -> (f32, f32) {
        let (k_a, k_b) = self.combine(k_a, k_b);
        let (l_a, v_a) = self.bonuses(league_a);
        let (l_b, v_b) = self.bonuses(league_b);
        let a = SideTerms { k: k_a, score_share_bonus: l_a, victory_bonus: v_a };
        let b = SideTerms { k: k_b, score_share_bonus: l_b, victory_bonus: v_b };
        let expected = self.expectation.pair_from_a(expected_a, f64::from(rating_a), f64::from(rating_b));
        rate_with_expected(expected, self.rounding_rule(), self.floor, rating_a, rating_b, outcome, a, b, multiplier)
    }

    /// Like [`Self::rate_with_k`], with the ratings and K checked first.
    ///
    /// # Errors
    /// A non-finite rating or K, or a negative K.
    pub fn rate_checked_k(&self, rating_a: f32, rating_b: f32, outcome: Outcome, k_a: f64, k_b: f64) -> Result<(f32, f32), Error> {
        check_rating(rating_a, "rating_a")?;
        check_rating(rating_b, "rating_b")?;
        check_k(k_a, "k_a")?;
        check_k(k_b, "k_b")?;
        Ok(self.rate_with_k(rating_a, rating_b, outcome, k_a, k_b))
    }

    /// K of a player known only by rating, or an error for policies that need state.
    ///
    /// # Errors
    /// [`Error::KPolicyNeedsPlayerState`] for the `fide` and `games_played` policies.
    #[inline]
    pub fn k_from_rating(&self, rating: f32) -> Result<f64, Error> {
        self.config.k_policy.k_from_rating(rating, &self.config.leagues).ok_or(Error::KPolicyNeedsPlayerState)
    }

    /// Rates one match between two players known only by their ratings, with K from the
    /// configured policy (which must depend on the rating alone: constant, rating bands
    /// or league).
    ///
    /// # Errors
    /// Non-finite ratings, or a K policy that needs player state.
    pub fn rate(&self, rating_a: f32, rating_b: f32, outcome: Outcome) -> Result<(f32, f32), Error> {
        check_rating(rating_a, "rating_a")?;
        check_rating(rating_b, "rating_b")?;
        let k_a = self.k_from_rating(rating_a)?;
        let k_b = self.k_from_rating(rating_b)?;
        Ok(self.rate_with_k(rating_a, rating_b, outcome, k_a, k_b))
    }

    /// One player's streak penalty `1 / (1 + alpha s)`; 1 when penalties are off.
    #[inline(always)]
    #[must_use]
    pub fn streak_penalty(&self, streak: u32) -> f64 {
        let alpha = self.config.streak_alpha;
        if alpha == 0.0 {
            1.0
        } else {
            1.0 / (1.0 + alpha * f64::from(streak))
        }
    }

    /// The streak multiplier `M = 1/(1 + alpha s_A) * 1/(1 + alpha s_B)`.
    #[inline(always)]
    #[must_use]
    pub fn streak_multiplier(&self, streak_a: u32, streak_b: u32) -> f64 {
        let alpha = self.config.streak_alpha;
        if alpha == 0.0 {
            return 1.0;
        }
        let penalty_a = 1.0 / (1.0 + alpha * f64::from(streak_a));
        let penalty_b = 1.0 / (1.0 + alpha * f64::from(streak_b));
        penalty_a * penalty_b
    }

    /// Rates one match between two players with full state: K from the policy (FIDE,
    /// games played, …), streak penalties, league bonuses. Returns both players' new
    /// state (games played + 1, streaks, the 2400 flag). Ratings are assumed finite.
    #[inline]
    #[must_use]
    pub fn rate_players_unchecked(&self, a: &PlayerState, b: &PlayerState, outcome: Outcome) -> (PlayerState, PlayerState) {
        let expected_a = self.expectation.expected_a(a.rating, b.rating);
        self.rate_players_expected(a, b, outcome, expected_a)
    }

    /// [`Self::rate_players_unchecked`] with the expected score already computed.
    #[inline(always)]
    pub(crate) fn rate_players_expected(&self, a: &PlayerState, b: &PlayerState, outcome: Outcome, expected_a: f64) -> (PlayerState, PlayerState) {
        // Each player's league once: it feeds K (league policy), L and V, and the settling.
        let (league_a, league_b) = (self.current_league(a), self.current_league(b));
        let k = (self.k_in_league(a, league_a), self.k_in_league(b, league_b));
        let multiplier = self.streak_multiplier(a.win_streak, b.win_streak);
        let leagues = (|| league_a, || league_b);
        let (rating_a, rating_b) = self.rate_core_expected(expected_a, a.rating, b.rating, outcome, k, multiplier, leagues);
        (self.finish_game_from(a, league_a, rating_a, outcome.a_won()), self.finish_game_from(b, league_b, rating_b, outcome.b_won()))
    }

    /// [`Self::rate_players_unchecked`] with the ratings checked first.
    ///
    /// # Errors
    /// A non-finite rating.
    pub fn rate_players(&self, a: &PlayerState, b: &PlayerState, outcome: Outcome) -> Result<(PlayerState, PlayerState), Error> {
        self.check_player(a, "player_a")?;
        self.check_player(b, "player_b")?;
        Ok(self.rate_players_unchecked(a, b, outcome))
    }

    /// A new player at the configured initial rating.
    #[must_use]
    pub fn new_player(&self) -> PlayerState {
        PlayerState::new(self.config.initial_rating)
    }
}

/// Checks a K factor: finite, not negative, at most [`MAX_FACTOR`].
///
/// # Errors
/// [`Error::NotFinite`], [`Error::NegativeK`] or [`Error::OutOfRange`], naming `name`.
#[inline]
pub fn check_k(k: f64, name: &str) -> Result<f64, Error> {
    check_finite(k, name)?;
    if k < 0.0 {
        return Err(Error::NegativeK { name: name.to_owned(), got: crate::error::shown(k) });
    }
    if k > MAX_FACTOR {
        return Err(Error::OutOfRange { name: name.to_owned(), range: "at most 1e6 (MAX_FACTOR)", got: Some(crate::error::shown(k)) });
    }
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Rounding};
    use crate::league::{League, Leagues};

    fn rules(config: Config) -> Rules {
        config.validate().unwrap()
    }

    #[test]
    fn spec_section_3_reference_table() {
        let truncate = rules(Config { rounding: Rounding::Truncate, ..Config::default() });
        let none = Rules::default();
        assert_eq!(truncate.rate(1700.0, 1300.0, Outcome::WIN).unwrap(), (1702.0, 1298.0));
        assert_eq!(truncate.rate(1700.0, 1300.0, Outcome::LOSS).unwrap(), (1671.0, 1329.0));
        let (a, b) = none.rate(1700.0, 1300.0, Outcome::LOSS).unwrap();
        assert!((a - 1_670.909).abs() < 1e-3 && (b - 1_329.091).abs() < 1e-3, "{a} {b}");
        assert_eq!(none.rate(1000.0, 1000.0, Outcome::WIN).unwrap(), (1016.0, 984.0));
        assert_eq!(none.rate(1500.0, 1500.0, Outcome::DRAW).unwrap(), (1500.0, 1500.0));
    }

    #[test]
    fn tutorial_mirrors() {
        assert_eq!(tutorial_probability(1700.0, 1300.0), (1.0f64 / 1.1) as f32);
        let (a, b) = tutorial_update(1700.0, 1300.0, 32.0, false);
        assert_eq!((a, b), (1_670.909, 1_329.091));
        assert_eq!(tutorial_update(1000.0, 1000.0, 32.0, true), (1016.0, 984.0));
        let (a, b) = tutorial_update(f32::NAN, 1300.0, 32.0, true);
        assert!(a.is_nan() && b.is_nan());
        let (a, b) = tutorial_update(1500.0, 1300.0, f32::INFINITY, true);
        assert!(a.is_nan() && b.is_nan());
        // A negative K would make the loser gain (1729.091 / 1270.909): NaN like other bad input.
        let (a, b) = tutorial_update(1700.0, 1300.0, -32.0, false);
        assert!(a.is_nan() && b.is_nan());
        assert_eq!(tutorial_update(1700.0, 1300.0, -0.0, false), (1700.0, 1300.0));
        assert!(tutorial_probability(1500.0, f32::NEG_INFINITY).is_nan());
    }

    #[test]
    fn rounding_modes() {
        // 1600 vs 1500, K = 32: E_A = 0.64006, a win gives +11.518, a loss -20.482.
        let run = |rounding| rules(Config { rounding, ..Config::default() });
        let none = run(Rounding::None);
        let truncate = run(Rounding::Truncate);
        let half = run(Rounding::HalfAwayFromZero);
        let (a, _) = none.rate(1600.0, 1500.0, Outcome::WIN).unwrap();
        assert!((a - 1611.518).abs() < 1e-3);
        assert_eq!(truncate.rate(1600.0, 1500.0, Outcome::WIN).unwrap(), (1611.0, 1489.0));
        assert_eq!(half.rate(1600.0, 1500.0, Outcome::WIN).unwrap(), (1612.0, 1488.0));
        assert_eq!(truncate.rate(1600.0, 1500.0, Outcome::LOSS).unwrap(), (1580.0, 1520.0));
        assert_eq!(half.rate(1600.0, 1500.0, Outcome::LOSS).unwrap(), (1580.0, 1520.0));
        // A change of exactly one half: K = 1, equal ratings, win: +0.5 / -0.5.
        let half_k1 = rules(Config { rounding: Rounding::HalfAwayFromZero, k_policy: crate::KPolicy::Constant { k: 1.0 }, ..Config::default() });
        assert_eq!(half_k1.rate(1500.0, 1500.0, Outcome::WIN).unwrap(), (1501.0, 1499.0));
    }

    #[test]
    fn floor_and_bonuses() {
        let floored = rules(Config { min_rating: Some(100.0), initial_rating: 100.0, ..Config::default() });
        let (a, b) = floored.rate(100.0, 100.0, Outcome::LOSS).unwrap();
        assert_eq!((a, b), (100.0, 116.0));
        // V = 2: a win adds V to the winner only; L = 4 with a 3:1 score adds 3 and 1.
        let bonus = rules(Config { victory_bonus: 2.0, score_share_bonus: 4.0, ..Config::default() });
        let (a, b) = bonus.rate(1000.0, 1000.0, Outcome::with_points(1.0, 3.0, 1.0).unwrap()).unwrap();
        assert_eq!((a, b), (1000.0 + 16.0 + 3.0 + 2.0, 1000.0 - 16.0 + 1.0));
    }

    #[test]
    fn k_combine_average_is_zero_sum() {
        let leagues = Leagues::new(vec![League::new("low", 0.0, 200.0), League::new("high", 100.0, 100.0)]).unwrap();
        let average = rules(Config { k_policy: crate::KPolicy::League {}, k_combine: KCombine::Average, leagues: leagues.clone(), ..Config::default() });
        let (a, b) = average.rate(50.0, 150.0, Outcome::WIN).unwrap();
        // Exactly opposite changes; only the final rounding to f32 can move the total.
        assert!((f64::from(a) + f64::from(b) - 200.0).abs() < 1e-4, "{a} + {b}");
        assert!(a > 140.0 && b < 60.0);
        let per_player = rules(Config { k_policy: crate::KPolicy::League {}, leagues, ..Config::default() });
        let (a, b) = per_player.rate(50.0, 150.0, Outcome::WIN).unwrap();
        assert!(f64::from(a) + f64::from(b) > 200.0);
    }

    #[test]
    fn streaks_and_state() {
        let streaky = rules(Config { streak_alpha: 1.0, ..Config::default() });
        let a = PlayerState { win_streak: 1, ..PlayerState::new(1000.0) };
        let b = PlayerState::new(1000.0);
        // M = 1/2 * 1 = 0.5: a win is worth 8 instead of 16.
        let (a2, b2) = streaky.rate_players(&a, &b, Outcome::WIN).unwrap();
        assert_eq!((a2.rating, b2.rating), (1008.0, 992.0));
        assert_eq!((a2.win_streak, b2.win_streak, a2.games_played), (2, 0, 1));
        let (a3, _) = streaky.rate_players(&a2, &b2, Outcome::DRAW).unwrap();
        assert_eq!(a3.win_streak, 0);
        assert!(matches!(
            rules(Config { k_policy: crate::KPolicy::Fide { period_rule: false }, ..Config::default() }).rate(1.0, 2.0, Outcome::WIN),
            Err(Error::KPolicyNeedsPlayerState)
        ));
    }
}
