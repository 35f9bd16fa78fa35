//! Expected score `E_A`, the probability that player A wins.
//!
//! Three models are available; `E_B` is always `1 - E_A`.
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
        };
        // Bounds that keep `scale * (R_A - R_B)` finite for every pair of valid ratings.
        let (low, high) = match *self {
            Self::Linear { .. } => (f64::MIN_POSITIVE, 1e6),
            Self::Logistic { .. } | Self::Normal { .. } => (1e-3, 1e12),
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
        };
        Expectation { kind, scale, cap: max_rating_difference.unwrap_or(f64::INFINITY) }
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
}

impl Expectation {
    /// The tutorial's model: logistic with `c = 400`, no cap.
    pub const TUTORIAL: Self = Self { kind: ExpectationKind::Logistic, scale: std::f64::consts::LOG2_10 / DEFAULT_LOGISTIC_SCALE, cap: f64::INFINITY };

    /// Expected score of player A against player B, in `[0, 1]` (NaN in, NaN out).
    #[inline(always)]
    #[must_use]
    pub fn expected_a(&self, rating_a: f32, rating_b: f32) -> f64 {
        self.expected_from_difference(self.difference(rating_a, rating_b))
    }

    /// Expected score for a capped rating difference `R_A - R_B` (team ratings are `f64`).
    #[inline(always)]
    #[must_use]
    pub fn expected_from_difference(&self, difference: f64) -> f64 {
        match self.kind {
            ExpectationKind::Logistic => logistic(difference, self.scale),
            ExpectationKind::Linear => linear(difference, self.scale),
            ExpectationKind::Normal => detmath::normal_cdf(difference * self.scale),
        }
    }

    /// `R_A - R_B`, capped at the configured maximum difference.
    #[inline(always)]
    #[must_use]
    pub fn difference(&self, rating_a: f32, rating_b: f32) -> f64 {
        self.cap_difference(f64::from(rating_a) - f64::from(rating_b))
    }

    /// A difference capped at the configured maximum.
    #[inline(always)]
    #[must_use]
    pub fn cap_difference(&self, difference: f64) -> f64 {
        detmath::clamp_keep_nan(difference, -self.cap, self.cap)
    }
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
