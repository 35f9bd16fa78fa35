//! Free-for-all placements: 2 to 256 entrants finish in places (1 = first, ties share a
//! place), rated by pairwise decomposition with the pair rule's knobs (docs/teams.md).
//!
//! ```text
//! S_ij    = 1 if place_i < place_j, 1/2 if equal, 0 otherwise
//! E_ij    = E(R_i, R_j) for i < j, E_ji = 1 - E_ij;  t_ij = S_ij - E_ij, t_ji = -t_ij
//! K_ij    = K_i (k_combine average: (K_i + K_j) / 2)
//! share_i = (opponents beaten + ties / 2) / (N - 1)
//! delta_i = sum over j != i, in index order, of K_ij * p_i * p_j * t_ij  / norm
//!           + L_i * share_i + V_i * share_i                           (norm: N - 1 or 1)
//! R'_i    = max(R_i + round(delta_i), R_min)
//! ```
//!
//! `p` is a player's streak penalty. The share of opponents beaten plays the part
//! of both the share and the result of a pair, so two entrants are exactly the pair rule.
//! With equal K the K terms sum to zero. A win for the streak is beating every opponent.
//!
//! ```
//! use ranking_elo::{Config, PlayerState};
//!
//! let rules = Config::default().validate().unwrap();
//! let field = [PlayerState::new(1500.0); 4];
//! let mut out = field;
//! rules.rate_placements(&field, &[1, 2, 2, 4], &mut out).unwrap();
//! assert_eq!(out[0].rating, 1516.0); // beat all three: 32 / 3 * (3 * 1/2)
//! assert_eq!(out[1].rating, out[2].rating); // the tie
//! ```

use serde::{Deserialize, Serialize};

use crate::config::{KCombine, Rules};
use crate::error::Error;
use crate::expected::k_term;
use crate::player::PlayerState;
use crate::update::apply_delta;

/// The fewest and most entrants of a free-for-all.
pub const ENTRANTS: std::ops::RangeInclusive<usize> = 2..=256;

/// Checks a free-for-all's number of entrants alone (2 to 256): what callers check before
/// they copy or allocate anything for it.
///
/// # Errors
/// [`Error::OutOfRange`] naming the count.
pub fn check_entrant_count(n: usize) -> Result<(), Error> {
    if ENTRANTS.contains(&n) {
        Ok(())
    } else {
        Err(Error::OutOfRange { name: "entrants".to_owned(), range: "from 2 to 256 entrants", got: Some(n.to_string()) })
    }
}

/// What the summed pair terms of a free-for-all are divided by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlacementNormalization {
    /// `N - 1`: a free-for-all moves a rating about as much as one match (the default).
    #[default]
    NMinusOne,
    /// None: every virtual pair counts as a full match.
    None,
}

impl Rules {
    /// Checks a free-for-all's shape: 2 to 256 entrants, one place per entrant, every place
    /// from 1 to N. The entrants' ratings are the caller's to check
    /// ([`Self::rate_placements`] does; a pool's are valid).
    ///
    /// # Errors
    /// The first problem, naming the entrant.
    pub fn check_placements(&self, players: &[PlayerState], places: &[u32]) -> Result<(), Error> {
        Self::check_placements_shape(players.len(), places)
    }

    /// [`Self::check_placements`] from the number of entrants alone.
    pub(crate) fn check_placements_shape(n: usize, places: &[u32]) -> Result<(), Error> {
        check_entrant_count(n)?;
        if places.len() != n {
            return Err(Error::OutOfRange { name: format!("places ({} for {n} entrants)", places.len()), range: "one place per entrant", got: None });
        }
        for (i, &place) in places.iter().enumerate() {
            if place < 1 || place as usize > n {
                return Err(Error::OutOfRange { name: format!("places[{i}]"), range: "from 1 to the number of entrants", got: Some(place.to_string()) });
            }
        }
        Ok(())
    }

    /// Rates a free-for-all: writes each entrant's new state to `out` (one slot per entrant).
    /// Checked first ([`Self::check_placements`]); on an error nothing is written.
    ///
    /// # Errors
    /// A bad entrant or place, or an output of the wrong length.
    pub fn rate_placements(&self, players: &[PlayerState], places: &[u32], out: &mut [PlayerState]) -> Result<(), Error> {
        self.check_placements(players, places)?;
        for (i, player) in players.iter().enumerate() {
            self.check_player(player, &format!("entrants[{i}]"))?;
        }
        if out.len() != players.len() {
            return Err(Error::OutOfRange { name: format!("out ({} slots)", out.len()), range: "one slot per entrant", got: None });
        }
        let mut scratch = vec![0.0f64; 3 * players.len()];
        self.rate_placements_unchecked(players, places, &mut scratch, out);
        Ok(())
    }

    /// [`Self::rate_placements`] for checked input; `scratch` holds at least 3 N numbers
    /// (reused across calls by pools).
    pub(crate) fn rate_placements_unchecked(&self, players: &[PlayerState], places: &[u32], scratch: &mut [f64], out: &mut [PlayerState]) {
        let n = players.len();
        let (sums, rest) = scratch[..3 * n].split_at_mut(n);
        let (k, penalty) = rest.split_at_mut(n);
        sums.fill(0.0);
        for (i, p) in players.iter().enumerate() {
            k[i] = self.k_for(p);
            penalty[i] = self.streak_penalty(p.win_streak);
        }
        for i in 0..n {
            for j in i + 1..n {
                let expected = self.expectation.pair(players[i].rating, players[j].rating);
                let score = match places[i].cmp(&places[j]) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
                let m = penalty[i] * penalty[j];
                let (k_i, k_j) = match self.config.k_combine {
                    KCombine::PerPlayer => (k[i], k[j]),
                    KCombine::Average => {
                        #[allow(clippy::manual_midpoint, reason = "k_combine's formula, as the pair rule writes it")]
                        let both = (k[i] + k[j]) / 2.0;
                        (both, both)
                    }
                };
                let kind = expected.kind;
                sums[i] += k_term(kind, k_i * m, score, expected.a);
                // j's term is i's negated unless a cap exemption separates their views.
                sums[j] += if expected.symmetric { -k_term(kind, k_j * m, score, expected.a) } else { k_term(kind, k_j * m, 1.0 - score, expected.b) };
            }
        }
        let norm = match self.config.placement_normalization {
            PlacementNormalization::NMinusOne => (n - 1) as f64,
            PlacementNormalization::None => 1.0,
        };
        for i in 0..n {
            let beaten = places.iter().enumerate().filter(|&(j, &p)| j != i && p > places[i]).count();
            let tied = places.iter().enumerate().filter(|&(j, &p)| j != i && p == places[i]).count();
            let share = (beaten as f64 + tied as f64 / 2.0) / (n - 1) as f64;
            let league = self.current_league(&players[i]);
            let (l, v) = self.bonuses(|| league);
            let delta = sums[i] / norm + l * share + v * share;
            let rating = apply_delta(players[i].rating, delta, self.rounding_rule(), self.floor);
            out[i] = self.finish_game_from(&players[i], league, rating, beaten == n - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::outcome::Outcome;

    /// Two entrants are the pair rule, bit for bit (equal K), with bonuses and rounding.
    #[test]
    fn two_entrants_are_the_pair_rule() {
        for json in ["{}", r#"{"rounding":"half_away_from_zero","victory_bonus":2,"score_share_bonus":4,"expected_score":{"model":"normal"}}"#] {
            let rules = Config::from_json(json).unwrap();
            for (ra, rb, places) in [(1500.0, 1500.0, [1, 2]), (1700.0, 1300.0, [2, 1]), (1234.5, 1600.25, [1, 1])] {
                let players = [PlayerState::new(ra), PlayerState::new(rb)];
                let score = match places[0].cmp(&places[1]) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
                let (a, b) = rules.rate_players(&players[0], &players[1], Outcome::from_score(score).unwrap()).unwrap();
                let mut out = players;
                rules.rate_placements(&players, &places, &mut out).unwrap();
                assert_eq!(out, [a, b], "{json}: {ra} {rb} {places:?}");
            }
        }
    }

    #[test]
    fn ties_normalisation_and_refusals() {
        let rules = Config::default().validate().unwrap();
        let field = [PlayerState::new(1500.0); 4];
        let mut out = field;
        rules.rate_placements(&field, &[1, 2, 2, 4], &mut out).unwrap();
        assert_eq!([out[0].rating, out[1].rating, out[2].rating, out[3].rating], [1516.0, 1500.0, 1500.0, 1484.0]);
        assert_eq!((out[0].win_streak, out[1].win_streak), (1, 0));
        let none = Config::from_json(r#"{"placement_normalization":"none"}"#).unwrap();
        none.rate_placements(&field, &[1, 2, 3, 4], &mut out).unwrap();
        assert_eq!(out[0].rating, 1548.0, "three full virtual wins");
        assert!(rules.rate_placements(&field[..1], &[1], &mut out[..1]).is_err());
        assert!(rules.rate_placements(&field, &[1, 2, 3, 5], &mut out).unwrap_err().to_string().contains("places[3]"));
        assert!(rules.rate_placements(&field, &[0, 2, 3, 4], &mut out).is_err());
    }
}
