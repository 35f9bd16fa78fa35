//! Expected score `E_A`, the probability that player A wins.
//!
//! Three curves and FIDE's table are available. `E_B` is `1 - E_A`, except where a cap
//! exemption (FIDE's 2650 rule) lets one player count the whole difference and the other
//! not.
//!
//! ```
//! use ranking_elo::ExpectedScoreModel;
//!
//! let logistic = ExpectedScoreModel::Logistic { c: 400.0 }.prepare(None);
//! let e = logistic.expected_a(1700.0, 1300.0);
//! assert!((e - 1.0 / 1.1).abs() < 1e-9);
//! ```

use serde::{Deserialize, Serialize};

use crate::detmath;
use crate::error::ConfigError;

/// Default logistic scale `c`.
pub const DEFAULT_LOGISTIC_SCALE: f64 = 400.0;
/// Default slope `k` of the linear model (`docs/configuration.md#expected-score`).
pub const DEFAULT_LINEAR_SLOPE: f64 = 0.001;
/// Default per-player spread `beta` of the normal model (Arpad Elo's 200).
pub const DEFAULT_NORMAL_BETA: f64 = 200.0;

/// How the expected score is computed from two ratings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum ExpectedScoreModel {
    /// `E_A = 1 / (1 + 10^((R_B - R_A) / c))`, the classic Elo curve.
    Logistic {
        /// Rating difference that multiplies the odds by ten (400 in chess).
        #[serde(default = "default_logistic_scale")]
        c: f64,
    },
    /// `E_A = clamp(0.5 + k (R_A - R_B), 0, 1)`, the linear expectation.
    Linear {
        /// Slope per rating point.
        #[serde(default = "default_linear_slope")]
        k: f64,
    },
    /// `E_A = Phi((R_A - R_B) / (beta sqrt 2))`, Elo's original normal model.
    Normal {
        /// Per-player performance spread.
        #[serde(default = "default_normal_beta")]
        beta: f64,
    },
    /// FIDE's table 8.1.2: `E` in hundredths by rating difference ([`fide_table`]). Its K
    /// term is computed in exact hundredths, so FIDE's halves round as FIDE rounds them.
    FideTable {},
}

fn default_logistic_scale() -> f64 {
    DEFAULT_LOGISTIC_SCALE
}
fn default_linear_slope() -> f64 {
    DEFAULT_LINEAR_SLOPE
}
fn default_normal_beta() -> f64 {
    DEFAULT_NORMAL_BETA
}

impl Default for ExpectedScoreModel {
    fn default() -> Self {
        Self::Logistic { c: DEFAULT_LOGISTIC_SCALE }
    }
}

impl ExpectedScoreModel {
    /// Checks the model's parameter; `field` is the configuration path used in messages.
    ///
    /// # Errors
    /// The parameter is outside its range: logistic `c` and normal `beta` from 1e-3 to
    /// 1e12, linear `k` greater than 0 and at most 1e6.
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        let (name, value) = match *self {
            Self::Logistic { c } => ("c", c),
            Self::Linear { k } => ("k", k),
            Self::Normal { beta } => ("beta", beta),
            Self::FideTable {} => return Ok(()),
        };
        // Bounds that keep `scale * (R_A - R_B)` finite for every pair of valid ratings.
        let (low, high) = match *self {
            Self::Linear { .. } => (f64::MIN_POSITIVE, 1e6),
            Self::Logistic { .. } | Self::Normal { .. } | Self::FideTable {} => (1e-3, 1e12),
        };
        if value.is_finite() && value >= low && value <= high {
            Ok(())
        } else {
            Err(ConfigError::new(format!("{field}.{name}"), format!("must be a finite number from {low:e} to {high:e} (got {value})")))
        }
    }

    /// Precomputes the constants the model needs, with an optional cap on the rating
    /// difference (FIDE uses 400). The model is assumed valid (see [`Self::validate`]).
    #[must_use]
    pub fn prepare(self, max_rating_difference: Option<f64>) -> Expectation {
        let (kind, scale) = match self {
            // 10^(d/c) = 2^(d * log2(10) / c)
            Self::Logistic { c } => (ExpectationKind::Logistic, std::f64::consts::LOG2_10 / c),
            Self::Linear { k } => (ExpectationKind::Linear, k),
            Self::Normal { beta } => (ExpectationKind::Normal, 1.0 / (beta * std::f64::consts::SQRT_2)),
            Self::FideTable {} => (ExpectationKind::FideTable, 0.0),
        };
        Expectation { kind, scale, cap: max_rating_difference.unwrap_or(f64::INFINITY), exempt_from: f64::INFINITY }
    }
}

/// Which curve a prepared [`Expectation`] evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectationKind {
    /// Base-10 logistic curve.
    Logistic,
    /// Clamped straight line.
    Linear,
    /// Normal CDF.
    Normal,
    /// FIDE's table 8.1.2, in hundredths.
    FideTable,
}

/// A validated expectation model with its constants precomputed, ready for hot loops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expectation {
    /// Which curve.
    pub kind: ExpectationKind,
    /// `log2(10) / c` (logistic), `k` (linear) or `1 / (beta sqrt 2)` (normal).
    pub scale: f64,
    /// Largest rating difference taken into account (`+inf` when uncapped).
    pub cap: f64,
    /// Players rated at least this count the whole difference, uncapped (FIDE: 2650);
    /// `+inf` when the cap holds for everybody.
    pub exempt_from: f64,
}

/// The expected scores of both players of a pair, each from the player's own view, and
/// the model they came from (which decides how the K term is computed: [`k_term`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairExpectation {
    /// `E_A`.
    pub a: f64,
    /// `E_B`: `1 - E_A` unless [`Self::symmetric`] is false.
    pub b: f64,
    /// Whether `E_B` is `1 - E_A` (no cap exemption separates the two views), so that B's
    /// K term is A's negated when their K are equal.
    pub symmetric: bool,
    /// The model.
    pub kind: ExpectationKind,
}

/// `K (S - E)`: the K term of the update for K (already multiplied by any streak
/// multiplier), score `S` and expected score `E`. Under FIDE's table, `E` is a whole
/// number of hundredths `h / 100` and the term is `K (100 S - h) / 100` with one
/// division, so that exact halves (`10 x (0.5 - 0.45) = 0.5`) stay exact and round as FIDE
/// rounds them; `K (S - E)` in binary floating point would give 0.4999999999999999.
#[inline(always)]
#[must_use]
pub fn k_term(kind: ExpectationKind, k: f64, score: f64, expected: f64) -> f64 {
    if kind == ExpectationKind::FideTable {
        k_term_in_hundredths(k, score, expected)
    } else {
        k * (score - expected)
    }
}

/// [`k_term`] under FIDE's table, out of line: the curves' loops stay as small as they were.
#[inline(never)]
fn k_term_in_hundredths(k: f64, score: f64, expected: f64) -> f64 {
    k * (100.0 * score - (100.0 * expected).round()) / 100.0
}

impl Expectation {
    /// The tutorial's model: logistic with `c = 400`, no cap.
    pub const TUTORIAL: Self = Self { kind: ExpectationKind::Logistic, scale: std::f64::consts::LOG2_10 / DEFAULT_LOGISTIC_SCALE, cap: f64::INFINITY, exempt_from: f64::INFINITY };

    /// Expected score of player A against player B, in `[0, 1]` (NaN in, NaN out), from
    /// A's view (A's cap exemption).
    #[inline(always)]
    #[must_use]
    pub fn expected_a(&self, rating_a: f32, rating_b: f32) -> f64 {
        self.expected_from_difference(self.difference(rating_a, rating_b))
    }

    /// Both players' expected scores, each from the player's own view.
    #[inline(always)]
    #[must_use]
    pub fn pair(&self, rating_a: f32, rating_b: f32) -> PairExpectation {
        self.pair_from_a(self.expected_a(rating_a, rating_b), f64::from(rating_a), f64::from(rating_b))
    }

    /// [`Self::pair`] with `E_A` already computed (pools compute blocks of them), for
    /// ratings (or team ratings) `rating_a` and `rating_b`.
    #[inline(always)]
    #[must_use]
    pub fn pair_from_a(&self, expected_a: f64, rating_a: f64, rating_b: f64) -> PairExpectation {
        // Only when exactly one player is exempt and the difference exceeds the cap do the
        // two views differ.
        let symmetric = (rating_a >= self.exempt_from) == (rating_b >= self.exempt_from) || (rating_a - rating_b).abs() <= self.cap;
        let b = if symmetric { 1.0 - expected_a } else { self.own_view(rating_b, rating_a) };
        PairExpectation { a: expected_a, b, symmetric, kind: self.kind }
    }

    /// The expected score of a player rated `own` against `other` from the player's own
    /// view: out of line (and so out of the vectorized loops), as only a cap exemption
    /// needs it.
    #[cold]
    #[inline(never)]
    fn own_view(&self, own: f64, other: f64) -> f64 {
        self.expected_from_difference(self.difference_f64(own, other))
    }

    /// Expected score for a capped rating difference `R_A - R_B` (team ratings are `f64`).
    #[inline(always)]
    #[must_use]
    pub fn expected_from_difference(&self, difference: f64) -> f64 {
        match self.kind {
            ExpectationKind::Logistic => logistic(difference, self.scale),
            ExpectationKind::Linear => linear(difference, self.scale),
            ExpectationKind::Normal => detmath::normal_cdf(difference * self.scale),
            ExpectationKind::FideTable => fide_table(difference),
        }
    }

    /// `R_A - R_B`, capped at the configured maximum difference unless A is exempt.
    #[inline(always)]
    #[must_use]
    pub fn difference(&self, rating_a: f32, rating_b: f32) -> f64 {
        self.difference_f64(f64::from(rating_a), f64::from(rating_b))
    }

    /// [`Self::difference`] for ratings as `f64` (team ratings).
    #[inline(always)]
    #[must_use]
    pub fn difference_f64(&self, rating_a: f64, rating_b: f64) -> f64 {
        let difference = rating_a - rating_b;
        if rating_a >= self.exempt_from {
            difference
        } else {
            self.cap_difference(difference)
        }
    }

    /// A difference capped at the configured maximum.
    #[inline(always)]
    #[must_use]
    pub fn cap_difference(&self, difference: f64) -> f64 {
        detmath::clamp_keep_nan(difference, -self.cap, self.cap)
    }
}

/// FIDE's table 8.1.2 ("Table of conversion of fractional score into rating
/// differences", FIDE Rating Regulations effective from 1 March 2024, FIDE Handbook
/// B.02): the largest rating difference `D` of each row, for `PD` = 0.50, 0.51, ... 0.99
/// of the higher-rated player; above the last row `PD` is 1.00. The lower-rated player's
/// `PD` is `1 - PD`. Checked row by row against the handbook's table as published on
/// handbook.fide.com and FIDE's online rating calculator at each row's edges.
pub const FIDE_TABLE_UPPER_BOUNDS: [u16; 50] = [
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145, 153, 162, 170, 179, 188, 197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328,
    344, 357, 374, 391, 411, 432, 456, 484, 517, 559, 619, 735,
];

/// FIDE's `PD` in hundredths for a rating difference `R_A - R_B` (already capped): the
/// row of `|D|`, as a whole number from 0 to 100 (NaN gives `None`). A fractional
/// difference belongs to the row of its whole part (FIDE ratings are whole numbers; a
/// team's mean may not be): 3.5 is in the row 0-3.
#[must_use]
pub fn fide_table_hundredths(difference: f64) -> Option<u32> {
    if difference.is_nan() {
        return None;
    }
    let whole = difference.abs().floor();
    // Row i covers up to FIDE_TABLE_UPPER_BOUNDS[i]: the first bound at or above `whole`.
    let row = FIDE_TABLE_UPPER_BOUNDS.partition_point(|&upper| f64::from(upper) < whole) as u32;
    let higher = 50 + row;
    Some(if difference >= 0.0 { higher } else { 100 - higher })
}

/// FIDE's table as an expected score: [`fide_table_hundredths`] / 100 (NaN in, NaN out).
/// Out of line, for the same reason as [`k_term`]'s table branch.
#[inline(never)]
#[must_use]
pub fn fide_table(difference: f64) -> f64 {
    fide_table_hundredths(difference).map_or(f64::NAN, |h| f64::from(h) / 100.0)
}

/// `clamp(0.5 + slope * difference, 0, 1)`: the linear expectation.
#[inline(always)]
#[must_use]
pub fn linear(difference: f64, slope: f64) -> f64 {
    detmath::clamp_keep_nan(0.5 + slope * difference, 0.0, 1.0)
}

/// `1 / (1 + 2^(-difference * scale))`: the logistic curve with `scale = log2(10) / c`.
#[inline(always)]
#[must_use]
pub fn logistic(difference: f64, scale: f64) -> f64 {
    1.0 / (1.0 + detmath::exp2(-difference * scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference_logistic(a: f32, b: f32, c: f64) -> f64 {
        1.0 / (1.0 + 10f64.powf((f64::from(b) - f64::from(a)) / c))
    }

    #[test]
    fn spec_section_1_reference_values() {
        let e = ExpectedScoreModel::default().prepare(None);
        assert_eq!(e.expected_a(1500.0, 1500.0), 0.5);
        assert!((e.expected_a(1700.0, 1300.0) - 1.0 / 1.1).abs() < 1e-12);
        assert!((e.expected_a(1300.0, 1700.0) - (1.0 - 1.0 / 1.1)).abs() < 1e-12);
        // Correctly rounded to f32: 0.90909094 (prints as 0.9090909 with 7 digits). The
        // tutorial's float arithmetic lands one ulp lower (0.90909088).
        assert_eq!(e.expected_a(1700.0, 1300.0) as f32, (1.0f64 / 1.1) as f32);
        let linear = ExpectedScoreModel::Linear { k: 0.001 }.prepare(None);
        assert!((linear.expected_a(150.0, 50.0) - 0.6).abs() < 1e-12);
        assert_eq!(linear.expected_a(1000.0, 0.0), 1.0);
        assert_eq!(linear.expected_a(0.0, 1000.0), 0.0);
        let normal = ExpectedScoreModel::Normal { beta: 200.0 }.prepare(None);
        assert_eq!(normal.expected_a(1500.0, 1500.0), 0.5);
        // 400 points at beta = 200: Phi(400 / (200 sqrt 2)) = Phi(sqrt 2) = 0.92135...
        assert!((normal.expected_a(1900.0, 1500.0) - 0.921_350_396_474_857_4).abs() < 1e-11);
    }

    #[test]
    fn rating_difference_cap() {
        let capped = ExpectedScoreModel::default().prepare(Some(400.0));
        assert_eq!(capped.expected_a(2600.0, 1000.0), capped.expected_a(1400.0, 1000.0));
        assert_eq!(capped.expected_a(1000.0, 2600.0), capped.expected_a(1000.0, 1400.0));
    }

    /// The maximum absolute error of `E` (as the `f32` callers receive) against an `f64`
    /// libm reference, over rating differences -4000..4000 in steps of 1/8 point, for every
    /// model. The tests hold it at or below 2e-7.
    #[test]
    fn expected_score_error_sweep() {
        let logistic = ExpectedScoreModel::default().prepare(None);
        let normal = ExpectedScoreModel::Normal { beta: 200.0 }.prepare(None);
        let (mut worst_logistic, mut worst_normal) = (0.0f64, 0.0f64);
        for step in -32_000..=32_000 {
            let b = 1500.0f32;
            let a = b + step as f32 / 8.0;
            let got = logistic.expected_a(a, b) as f32;
            worst_logistic = worst_logistic.max((f64::from(got) - reference_logistic(a, b, 400.0)).abs());
            let x = (f64::from(a) - f64::from(b)) / (200.0 * std::f64::consts::SQRT_2);
            let reference = 0.5 * libm::erfc(-x / std::f64::consts::SQRT_2);
            let got = normal.expected_a(a, b) as f32;
            worst_normal = worst_normal.max((f64::from(got) - reference).abs());
        }
        println!("max |E - reference|: logistic {worst_logistic:e}, normal {worst_normal:e}");
        assert!(worst_logistic <= 2e-7, "logistic {worst_logistic:e}");
        assert!(worst_normal <= 2e-7, "normal {worst_normal:e}");
    }
}
