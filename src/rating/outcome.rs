//! The actual score `S` of a match.
//!
//! ```
//! use ranking_elo::Outcome;
//!
//! assert_eq!(Outcome::WIN.score_a, 1.0);
//! let margin = Outcome::from_points(3.0, 2.0).unwrap();
//! assert!((margin.score_a - 0.6).abs() < 1e-12);
//! assert_eq!(Outcome::from_points(0.0, 0.0).unwrap().score_a, 0.5);
//! ```

use crate::error::{check_finite, Error};

/// A match result seen from player A: the score `S_A` and the points share `share_A`
/// used by the score-share bonus `L`. Player B gets `1 - S_A` and
/// `1 - share_A`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// Actual score of player A, in `[0, 1]`.
    pub score_a: f64,
    /// Player A's share of the points scored, in `[0, 1]` (equal to `score_a` unless
    /// points were reported separately).
    pub share_a: f64,
}

impl Outcome {
    /// Player A won.
    pub const WIN: Self = Self { score_a: 1.0, share_a: 1.0 };
    /// Player A lost.
    pub const LOSS: Self = Self { score_a: 0.0, share_a: 0.0 };
    /// A draw.
    pub const DRAW: Self = Self { score_a: 0.5, share_a: 0.5 };

    /// A score in `[0, 1]` given directly (1 win, 0.5 draw, 0 loss, or anything between).
    ///
    /// # Errors
    /// NaN or infinite, or outside `[0, 1]`.
    pub fn from_score(score_a: f64) -> Result<Self, Error> {
        check_score(score_a, "score_a")?;
        Ok(Self { score_a, share_a: score_a })
    }

    /// The score from the points both players scored: `S_A = P_A / (P_A + P_B)`, and
    /// `0 : 0` counts as a draw. This is the default `points_k_term = "share"`
    /// (`docs/configuration.md#results-and-bonuses`);
    /// [`Rules::outcome_from_points`](crate::Rules::outcome_from_points) follows the
    /// configuration.
    ///
    /// # Errors
    /// Negative, NaN or infinite points.
    pub fn from_points(points_a: f64, points_b: f64) -> Result<Self, Error> {
        let share = points_share(points_a, points_b)?;
        Ok(Self { score_a: share, share_a: share })
    }

    /// A result given as a score (for example a plain win) plus the points scored, which
    /// feed only the score-share bonus `L` (`points_k_term = "result"`,
    /// `docs/configuration.md#results-and-bonuses`).
    ///
    /// # Errors
    /// As [`Self::from_score`] and [`Self::from_points`].
    pub fn with_points(score_a: f64, points_a: f64, points_b: f64) -> Result<Self, Error> {
        check_score(score_a, "score_a")?;
        Ok(Self { score_a, share_a: points_share(points_a, points_b)? })
    }

    /// The match result `W_A` of a match: 1 for a win (`S_A > 1/2`), 1/2 for a draw,
    /// 0 for a defeat. The victory bonus `V` is paid on it.
    #[inline(always)]
    #[must_use]
    pub fn result_a(&self) -> f64 {
        let win = if self.score_a > 0.5 { 1.0 } else { 0.0 };
        if self.score_a == 0.5 {
            0.5
        } else {
            win
        }
    }

    /// Whether player A's result counts as a win for the win streak (`S_A > 1/2`).
    #[must_use]
    pub fn a_won(&self) -> bool {
        self.score_a > 0.5
    }

    /// Whether player B's result counts as a win for the win streak (`S_A < 1/2`).
    #[must_use]
    pub fn b_won(&self) -> bool {
        self.score_a < 0.5
    }
}

/// Checks a score: finite and within `[0, 1]`.
///
/// # Errors
/// [`Error::NotFinite`] or [`Error::ScoreOutOfRange`], naming `name`.
pub fn check_score(score: f64, name: &str) -> Result<f64, Error> {
    check_finite(score, name)?;
    if (0.0..=1.0).contains(&score) {
        Ok(score)
    } else {
        Err(Error::ScoreOutOfRange { name: name.to_owned(), got: crate::error::shown(score) })
    }
}

fn points_share(points_a: f64, points_b: f64) -> Result<f64, Error> {
    for (value, name) in [(points_a, "points_a"), (points_b, "points_b")] {
        check_finite(value, name)?;
        if value < 0.0 {
            return Err(Error::NegativePoints { name: name.to_owned(), got: crate::error::shown(value) });
        }
    }
    let total = points_a + points_b;
    Ok(if total == 0.0 { 0.5 } else { points_a / total })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_follow_spec_section_2() {
        assert_eq!(Outcome::from_points(3.0, 2.0).unwrap().score_a, 0.6);
        assert_eq!(Outcome::from_points(2.0, 3.0).unwrap().score_a, 0.4);
        assert_eq!(Outcome::from_points(0.0, 0.0).unwrap().score_a, 0.5);
        assert_eq!(Outcome::from_points(5.0, 0.0).unwrap().score_a, 1.0);
        assert!(matches!(Outcome::from_points(-1.0, 2.0), Err(Error::NegativePoints { .. })));
        assert!(matches!(Outcome::from_points(f64::NAN, 2.0), Err(Error::NotFinite { .. })));
        assert!(matches!(Outcome::from_points(1.0, f64::INFINITY), Err(Error::NotFinite { .. })));
    }

    #[test]
    fn result_is_win_draw_or_defeat() {
        assert_eq!(Outcome::from_points(3.0, 1.0).unwrap().result_a(), 1.0);
        assert_eq!(Outcome::from_points(1.0, 3.0).unwrap().result_a(), 0.0);
        assert_eq!(Outcome::from_points(2.0, 2.0).unwrap().result_a(), 0.5);
        assert_eq!(Outcome::from_score(0.49).unwrap().result_a(), 0.0);
        assert_eq!(Outcome::with_points(1.0, 1.0, 3.0).unwrap().result_a(), 1.0);
    }

    #[test]
    fn scores_must_be_in_unit_interval() {
        assert!(Outcome::from_score(0.0).is_ok());
        assert!(Outcome::from_score(1.0).is_ok());
        assert!(matches!(Outcome::from_score(1.01), Err(Error::ScoreOutOfRange { .. })));
        assert!(matches!(Outcome::from_score(-0.01), Err(Error::ScoreOutOfRange { .. })));
        assert!(matches!(Outcome::from_score(f64::NAN), Err(Error::NotFinite { .. })));
        let mixed = Outcome::with_points(1.0, 3.0, 1.0).unwrap();
        assert_eq!((mixed.score_a, mixed.share_a), (1.0, 0.75));
    }
}
