//! Team matches: two teams of 1 to 64 members each (sizes may differ), rated with the pair
//! rule's knobs applied per member (docs/teams.md).
//!
//! ```text
//! R_X     = mean(R_i) | sum(R_i) | sum(w_i R_i) / sum(w_i)          (team_rating)
//! E_A     = E(R_A, R_B), E_B = 1 - E_A                               (the configured model)
//! t_A     = S_A - E_A,   t_B = -t_A                                  (exactly antisymmetric)
//! d_i     = 1 | n_X w_i / sum(w)                                     (team_split)
//! K_i     = the member's K (k_combine average: (K_i + mean K of the other team) / 2)
//! M_i     = penalty(s_i) * mean penalty of the other team            (streaks)
//! delta_i = K_i * M_i * t_X * d_i + L_i * share_X + V_i * W_X
//! R'_i    = max(R_i + round(delta_i), R_min)
//! ```
//!
//! With equal K, equal team sizes and the equal split, the K terms sum to zero. A 1v1 team
//! match is the pair rule (bit for bit when both players have the same K).
//!
//! ```
//! use ranking_elo::rating::team::Team;
//! use ranking_elo::{Config, Outcome, PlayerState};
//!
//! let rules = Config::default().validate().unwrap();
//! let a = [PlayerState::new(1500.0), PlayerState::new(1500.0)];
//! let b = [PlayerState::new(1500.0), PlayerState::new(1500.0)];
//! let (mut new_a, mut new_b) = ([a[0]; 2], [b[0]; 2]);
//! rules.rate_teams(Team::new(&a), Team::new(&b), Outcome::WIN, &mut new_a, &mut new_b).unwrap();
//! assert_eq!((new_a[0].rating, new_b[1].rating), (1516.0, 1484.0));
//! ```

use serde::{Deserialize, Serialize};

use crate::config::Rules;
use crate::error::Error;
use crate::expected::k_term;
use crate::outcome::Outcome;
use crate::player::PlayerState;
use crate::update::apply_delta;

/// The most members a team may have.
pub const MAX_TEAM_SIZE: usize = 64;

/// Checks a team's size alone (1 to [`MAX_TEAM_SIZE`] members): what callers check before
/// they copy or allocate anything for a team. `name` is `team_a` or `team_b`.
///
/// # Errors
/// [`Error::OutOfRange`] naming the team and its size.
pub fn check_team_size(n: usize, name: &str) -> Result<(), Error> {
    if (1..=MAX_TEAM_SIZE).contains(&n) {
        Ok(())
    } else {
        Err(Error::OutOfRange { name: format!("{name} size"), range: "from 1 to 64 members", got: Some(n.to_string()) })
    }
}

/// How a team's rating is made from its members' ratings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TeamRating {
    /// The members' mean rating (the default).
    #[default]
    Mean,
    /// The members' ratings summed (a team of more players is stronger).
    Sum,
    /// The mean weighted by the members' weights (for example the time each played).
    WeightedMean,
}

/// How a team's rating change is shared among its members.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TeamSplit {
    /// Every member gets the team's full K term (the default).
    #[default]
    Equal,
    /// Member `i` gets `n * w_i / sum(w)` times the K term (the average member gets it once).
    Weights,
}

/// One team: its members' states and, when the rules use them, one weight per member
/// (finite, not negative, not all zero).
#[derive(Debug, Clone, Copy)]
pub struct Team<'a> {
    /// The members.
    pub members: &'a [PlayerState],
    /// One weight per member, or `None`.
    pub weights: Option<&'a [f64]>,
}

impl<'a> Team<'a> {
    /// A team without weights.
    #[must_use]
    pub const fn new(members: &'a [PlayerState]) -> Self {
        Self { members, weights: None }
    }

    /// A team with one weight per member.
    #[must_use]
    pub const fn weighted(members: &'a [PlayerState], weights: &'a [f64]) -> Self {
        Self { members, weights: Some(weights) }
    }
}

/// What the update needs of one side, computed once per match.
#[derive(Clone, Copy)]
struct Side {
    rating: f64,
    mean_k: f64,
    mean_penalty: f64,
    weight_sum: f64,
}

impl Rules {
    /// Checks one team's shape: 1 to 64 members, and weights (when given, and required by
    /// `team_rating = weighted_mean` or `team_split = weights`): one per member, finite,
    /// not negative, summing to more than 0. `name` is `team_a` or `team_b`. The members'
    /// ratings are the caller's to check ([`Self::rate_teams`] does; a pool's are valid).
    ///
    /// # Errors
    /// The first problem, naming the member.
    pub fn check_team(&self, team: &Team<'_>, name: &str) -> Result<(), Error> {
        self.check_team_shape(team.members.len(), team.weights, name)
    }

    /// [`Self::check_team`] from the team's size and weights alone.
    pub(crate) fn check_team_shape(&self, n: usize, weights: Option<&[f64]>, name: &str) -> Result<(), Error> {
        check_team_size(n, name)?;
        let needs_weights = self.config.team_rating == TeamRating::WeightedMean || self.config.team_split == TeamSplit::Weights;
        match weights {
            None if needs_weights => {
                Err(Error::InvalidConfig(crate::error::ConfigError::new(format!("{name}.weights"), "team_rating weighted_mean and team_split weights need one weight per member")))
            }
            None => Ok(()),
            Some(weights) => {
                if weights.len() != n {
                    return Err(Error::OutOfRange { name: format!("{name}.weights ({} for {n} members)", weights.len()), range: "one weight per member", got: None });
                }
                for (i, &w) in weights.iter().enumerate() {
                    crate::error::check_finite(w, &format!("{name}.weights[{i}]"))?;
                    if !(0.0..=crate::error::MAX_FACTOR).contains(&w) {
                        return Err(Error::OutOfRange { name: format!("{name}.weights[{i}]"), range: "from 0 to 1e6", got: Some(crate::error::shown(w)) });
                    }
                }
                if needs_weights && weights.iter().sum::<f64>() <= 0.0 {
                    return Err(Error::OutOfRange { name: format!("{name}.weights"), range: "not all zero", got: None });
                }
                Ok(())
            }
        }
    }

    /// Rates a match between two teams: writes the members' new states (rating, games,
    /// streaks, flags) to `out_a` and `out_b` (one slot per member). Both teams are checked
    /// first ([`Self::check_team`]); on an error nothing is written.
    ///
    /// # Errors
    /// A bad team, an output of the wrong length, or a K policy problem.
    pub fn rate_teams(&self, a: Team<'_>, b: Team<'_>, outcome: Outcome, out_a: &mut [PlayerState], out_b: &mut [PlayerState]) -> Result<(), Error> {
        for (team, name) in [(&a, "team_a"), (&b, "team_b")] {
            self.check_team(team, name)?;
            for (i, member) in team.members.iter().enumerate() {
                self.check_player(member, &format!("{name}[{i}]"))?;
            }
        }
        crate::outcome::check_score(outcome.score_a, "score_a")?;
        crate::outcome::check_score(outcome.share_a, "share_a")?;
        for (name, out, team) in [("out_a", out_a.len(), &a), ("out_b", out_b.len(), &b)] {
            if out != team.members.len() {
                return Err(Error::OutOfRange { name: format!("{name} ({out} slots)"), range: "one slot per member", got: None });
            }
        }
        self.rate_teams_unchecked(a, b, outcome, out_a, out_b);
        Ok(())
    }

    /// [`Self::rate_teams`] for teams already checked.
    pub(crate) fn rate_teams_unchecked(&self, a: Team<'_>, b: Team<'_>, outcome: Outcome, out_a: &mut [PlayerState], out_b: &mut [PlayerState]) {
        // One copy of the members' loop in the library: the states are copied, then rated
        // in place (the same bits, see `rate_teams_in_place`).
        out_a.copy_from_slice(a.members);
        out_b.copy_from_slice(b.members);
        self.rate_teams_in_place(out_a, a.weights, out_b, b.weights, outcome);
    }

    /// [`Self::rate_teams_unchecked`] with each team's states replaced by their new states
    /// (a pool gathers its members once and stores the same array back: no copy). Every
    /// member's new state depends only on its own state and the teams' aggregates, which
    /// are taken before any member is written, so the results are the same bits.
    pub(crate) fn rate_teams_in_place(&self, a: &mut [PlayerState], weights_a: Option<&[f64]>, b: &mut [PlayerState], weights_b: Option<&[f64]>, outcome: Outcome) {
        let [terms_a, terms_b] = self.side_terms(&Team { members: a, weights: weights_a }, &Team { members: b, weights: weights_b }, outcome);
        for (members, weights, terms) in [(a, weights_a, &terms_a), (b, weights_b, &terms_b)] {
            let n = members.len();
            for (i, member) in members.iter_mut().enumerate() {
                *member = self.rate_member(member, i, n, weights, terms);
            }
        }
    }

    /// Both teams' aggregates and the match's terms for each side (A's, then B's).
    #[inline(always)]
    fn side_terms(&self, a: &Team<'_>, b: &Team<'_>, outcome: Outcome) -> [SideTerms; 2] {
        let side_a = self.team_side(a);
        let side_b = self.team_side(b);
        let expected_a = self.expectation.expected_from_difference(self.expectation.difference_f64(side_a.rating, side_b.rating));
        let expected = self.expectation.pair_from_a(expected_a, side_a.rating, side_b.rating);
        let result_a = outcome.result_a();
        // B's term is A's negated unless a cap exemption separates their views.
        let (term_b, negate_b) = if expected.symmetric { ((outcome.score_a, expected.a), true) } else { ((1.0 - outcome.score_a, expected.b), false) };
        [
            SideTerms { own: side_a, other: side_b, term: (outcome.score_a, expected.a), negate: false, share: outcome.share_a, result: result_a, won: outcome.a_won() },
            SideTerms { own: side_b, other: side_a, term: term_b, negate: negate_b, share: 1.0 - outcome.share_a, result: 1.0 - result_a, won: outcome.b_won() },
        ]
    }

    fn team_side(&self, team: &Team<'_>) -> Side {
        let n = team.members.len() as f64;
        let (mut sum, mut weighted, mut weight_sum, mut k_sum, mut penalty_sum) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (i, member) in team.members.iter().enumerate() {
            let rating = f64::from(member.rating);
            let w = team.weights.map_or(1.0, |weights| weights[i]);
            sum += rating;
            weighted += w * rating;
            weight_sum += w;
            k_sum += self.k_for(member);
            penalty_sum += self.streak_penalty(member.win_streak);
        }
        let rating = match self.config.team_rating {
            TeamRating::Mean => sum / n,
            TeamRating::Sum => sum,
            TeamRating::WeightedMean => weighted / weight_sum,
        };
        Side { rating, mean_k: k_sum / n, mean_penalty: penalty_sum / n, weight_sum }
    }

    /// Member `i` of a team of `n` (with `weights`, when given) after the match.
    #[inline(always)]
    fn rate_member(&self, member: &PlayerState, i: usize, n: usize, weights: Option<&[f64]>, terms: &SideTerms) -> PlayerState {
        let n = n as f64;
        // The member's league once: K (league policy), L and V, and the settling.
        let league = self.current_league(member);
        let own_k = self.k_in_league(member, league);
        let k = match self.config.k_combine {
            crate::config::KCombine::PerPlayer => own_k,
            #[allow(clippy::manual_midpoint, reason = "k_combine's formula, as the pair rule writes it")]
            crate::config::KCombine::Average => (own_k + terms.other.mean_k) / 2.0,
        };
        let multiplier = self.streak_penalty(member.win_streak) * terms.other.mean_penalty;
        let split = match self.config.team_split {
            TeamSplit::Equal => 1.0,
            TeamSplit::Weights => n * weights.map_or(1.0, |weights| weights[i]) / terms.own.weight_sum,
        };
        let (l, v) = self.bonuses(|| league);
        let (score, expected) = terms.term;
        let k_term = k_term(self.expectation.kind, k * multiplier, score, expected);
        let signed = if terms.negate { -k_term } else { k_term };
        let delta = signed * split + l * terms.share + v * terms.result;
        let rating = apply_delta(member.rating, delta, self.rounding_rule(), self.floor);
        self.finish_game_from(member, league, rating, terms.won)
    }
}

/// One side's view of a team match: its aggregates, the other's, and its terms of the
/// formula.
#[derive(Clone, Copy)]
struct SideTerms {
    own: Side,
    other: Side,
    /// The score and expected score of the K term: A's for both sides when the views are
    /// symmetric (B's term is then A's negated, `negate`), else each side's own.
    term: (f64, f64),
    negate: bool,
    share: f64,
    result: f64,
    won: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn players(ratings: &[f32]) -> Vec<PlayerState> {
        ratings.iter().map(|&r| PlayerState { games_played: 40, ..PlayerState::new(r) }).collect()
    }

    /// 1v1 is the pair rule, bit for bit, under every expectation model, with bonuses,
    /// rounding, streaks and average K.
    #[test]
    fn one_against_one_is_the_pair_rule() {
        for json in [
            "{}",
            r#"{"expected_score":{"model":"normal"},"rounding":"truncate","victory_bonus":2,"score_share_bonus":4}"#,
            r#"{"expected_score":{"model":"linear","k":0.002},"k_combine":"average","streak_alpha":0.3,"min_rating":1000}"#,
        ] {
            let rules = Config::from_json(json).unwrap();
            for (ra, rb, s) in [(1500.0, 1500.0, 1.0), (1700.0, 1300.0, 0.0), (1234.5, 1600.25, 0.5), (900.0, 2100.0, 0.8)] {
                let (mut a, mut b) = (players(&[ra]), players(&[rb]));
                a[0].win_streak = 2;
                let outcome = Outcome::from_score(s).unwrap();
                let (pair_a, pair_b) = rules.rate_players(&a[0], &b[0], outcome).unwrap();
                let (mut out_a, mut out_b) = (a.clone(), b.clone());
                rules.rate_teams(Team::new(&a), Team::new(&b), outcome, &mut out_a, &mut out_b).unwrap();
                assert_eq!((out_a[0], out_b[0]), (pair_a, pair_b), "{json}: {ra} {rb} {s}");
                b[0].win_streak = 0;
            }
        }
    }

    #[test]
    fn equal_teams_are_zero_sum_and_aggregates_differ() {
        let rules = Config::default().validate().unwrap();
        let a = players(&[1400.0, 1600.0]);
        let b = players(&[1550.0, 1450.0]);
        let (mut out_a, mut out_b) = (a.clone(), b.clone());
        rules.rate_teams(Team::new(&a), Team::new(&b), Outcome::WIN, &mut out_a, &mut out_b).unwrap();
        let change: f64 = out_a.iter().chain(&out_b).zip(a.iter().chain(&b)).map(|(n, o)| f64::from(n.rating) - f64::from(o.rating)).sum();
        assert!(change.abs() < 1e-3, "zero-sum: {change}");
        assert_eq!(out_a[0].rating - a[0].rating, 16.0, "equal means: E = 1/2, K/2 each");
        // Sum: a 1v3 with the three at 500 each is even.
        let sum = Config::from_json(r#"{"team_rating":"sum"}"#).unwrap();
        let (solo, trio) = (players(&[1500.0]), players(&[500.0, 500.0, 500.0]));
        let (mut out_solo, mut out_trio) = (solo.clone(), trio.clone());
        sum.rate_teams(Team::new(&solo), Team::new(&trio), Outcome::DRAW, &mut out_solo, &mut out_trio).unwrap();
        assert_eq!(out_solo[0].rating, 1500.0);
    }

    #[test]
    fn weights_rate_and_split() {
        let rules = Config::from_json(r#"{"team_rating":"weighted_mean","team_split":"weights"}"#).unwrap();
        let a = players(&[1000.0, 2000.0]);
        let b = players(&[1500.0]);
        let (mut out_a, mut out_b) = (a.clone(), b.clone());
        // Weighted toward the 1000 player: team A is 1250 against 1500.
        rules.rate_teams(Team::weighted(&a, &[3.0, 1.0]), Team::weighted(&b, &[1.0]), Outcome::WIN, &mut out_a, &mut out_b).unwrap();
        let gain_0 = f64::from(out_a[0].rating) - 1000.0;
        let gain_1 = f64::from(out_a[1].rating) - 2000.0;
        assert!((gain_0 / gain_1 - 3.0).abs() < 1e-4, "split 3:1 ({gain_0}, {gain_1})");
        let e = 1.0 / (1.0 + 10f64.powf(250.0 / 400.0));
        assert!((f64::midpoint(gain_0, gain_1) - 32.0 * (1.0 - e)).abs() < 1e-3);
        // Missing or bad weights are refused, naming them.
        let error = rules.rate_teams(Team::new(&a), Team::weighted(&b, &[1.0]), Outcome::WIN, &mut out_a, &mut out_b).unwrap_err();
        assert!(error.to_string().contains("team_a.weights"), "{error}");
        let error = rules.rate_teams(Team::weighted(&a, &[0.0, 0.0]), Team::weighted(&b, &[1.0]), Outcome::WIN, &mut out_a, &mut out_b).unwrap_err();
        assert!(error.to_string().contains("not all zero"), "{error}");
        let big = players(&[1500.0; 65]);
        let mut out_big = big.clone();
        assert!(rules.rate_teams(Team::new(&big), Team::new(&b), Outcome::WIN, &mut out_big, &mut out_b).is_err());
    }
}
