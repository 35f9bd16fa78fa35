//! Batch updates: `n` independent matches over arrays, the shape Unity jobs and game
//! servers hand over (with the same bits as single calls).
//!
//! ```
//! use ranking_elo::{batch, Rules};
//!
//! let rules = Rules::default();
//! let mut a = [1000.0f32, 1700.0];
//! let mut b = [1000.0f32, 1300.0];
//! batch::rate_in_place(&rules, &mut a, &mut b, &[1.0, 0.0], None).unwrap();
//! assert_eq!((a[0], b[0]), (1016.0, 984.0));
//! ```

pub mod kernel;

use crate::config::Rules;
use crate::error::{check_rating, Error};
use crate::outcome::{check_score, Outcome};
use crate::update::check_k;

/// Why a batch was refused; nothing was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchError {
    /// The arrays do not all have the same length.
    LengthMismatch {
        /// Name of the array whose length differs from `rating_a`'s.
        name: &'static str,
        /// Its length.
        len: usize,
        /// The length of `rating_a`.
        expected: usize,
    },
    /// An element is invalid; `index` is its position.
    Element {
        /// Position in the arrays.
        index: usize,
        /// What is wrong (its name includes the index, such as `score_a[3]`).
        error: Error,
    },
    /// The K policy needs player state and no per-pair K was given.
    Policy(Error),
}

impl std::fmt::Display for BatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::LengthMismatch { name, len, expected } => {
                write!(f, "{name} has {len} elements but rating_a has {expected}")
            }
            Self::Element { error, .. } | Self::Policy(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for BatchError {}

/// The inputs of a batch, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct BatchInput<'a> {
    /// Ratings of the first players.
    pub rating_a: &'a [f32],
    /// Ratings of the second players.
    pub rating_b: &'a [f32],
    /// Scores of the first players, in `[0, 1]`.
    pub score_a: &'a [f32],
    /// One K per pair (used for both players), or `None` for the configured policy.
    pub k: Option<&'a [f32]>,
}

/// Validates a whole batch before anything is computed.
///
/// # Errors
/// Lengths that differ, the first invalid element (NaN/infinite rating, score outside
/// `[0, 1]`, negative or non-finite K), or a K policy that needs player state when no K
/// array is given.
pub fn validate(rules: &Rules, input: &BatchInput<'_>) -> Result<(), BatchError> {
    let n = input.rating_a.len();
    let lengths = [("rating_b", input.rating_b.len()), ("score_a", input.score_a.len()), ("k", input.k.map_or(n, <[f32]>::len))];
    for (name, len) in lengths {
        if len != n {
            return Err(BatchError::LengthMismatch { name, len, expected: n });
        }
    }
    if input.k.is_none() && !rules.config().k_policy.depends_only_on_rating() {
        return Err(BatchError::Policy(Error::KPolicyNeedsPlayerState));
    }
    if all_valid(input) {
        return Ok(());
    }
    // Something is wrong: find the first bad element and name it.
    let element = |index: usize, error: Error| BatchError::Element { index, error };
    for i in 0..n {
        check_rating(input.rating_a[i], &format!("rating_a[{i}]")).map_err(|e| element(i, e))?;
        check_rating(input.rating_b[i], &format!("rating_b[{i}]")).map_err(|e| element(i, e))?;
        check_score(f64::from(input.score_a[i]), &format!("score_a[{i}]")).map_err(|e| element(i, e))?;
        if let Some(k) = input.k {
            check_k(f64::from(k[i]), &format!("k[{i}]")).map_err(|e| element(i, e))?;
        }
    }
    Ok(())
}

/// Whether every element is valid: a branch-free pass vectorized on the best instruction
/// set (the detailed, slower checks run only when it fails).
fn all_valid(input: &BatchInput<'_>) -> bool {
    kernel::inputs_valid(kernel::Isa::best(), input.rating_a, input.rating_b, input.score_a, input.k)
}

/// One pair of a validated batch: exactly what [`Rules::rate_with_k`] or [`Rules::rate`]
/// computes for the same inputs.
#[inline(always)]
fn rate_one(rules: &Rules, rating_a: f32, rating_b: f32, score_a: f32, k: Option<f32>) -> (f32, f32) {
    let score = f64::from(score_a);
    let outcome = Outcome { score_a: score, share_a: score };
    // Validation guaranteed a K array or a policy that needs only the rating.
    let (k_a, k_b) = if let Some(k) = k {
        (f64::from(k), f64::from(k))
    } else {
        let policy = &rules.config().k_policy;
        let leagues = &rules.config().leagues;
        (policy.k_from_rating(rating_a, leagues).unwrap_or(0.0), policy.k_from_rating(rating_b, leagues).unwrap_or(0.0))
    };
    rules.rate_with_k(rating_a, rating_b, outcome, k_a, k_b)
}

/// Rates `n` independent pairs into separate output arrays (all of length `n`).
///
/// # Errors
/// As [`validate`]; the output arrays are untouched on error.
pub fn rate(rules: &Rules, input: &BatchInput<'_>, out_a: &mut [f32], out_b: &mut [f32]) -> Result<(), BatchError> {
    validate(rules, input)?;
    let n = input.rating_a.len();
    for (name, len) in [("out_a", out_a.len()), ("out_b", out_b.len())] {
        if len != n {
            return Err(BatchError::LengthMismatch { name, len, expected: n });
        }
    }
    if let Some((plan, source)) = kernel::Plan::new(rules, input.k) {
        kernel::run(&plan, source, input.rating_a, input.rating_b, input.score_a, out_a, out_b);
        return Ok(());
    }
    for i in 0..n {
        let k = input.k.map(|k| k[i]);
        (out_a[i], out_b[i]) = rate_one(rules, input.rating_a[i], input.rating_b[i], input.score_a[i], k);
    }
    Ok(())
}

/// Rates `n` independent pairs in place: `rating_a` and `rating_b` receive the new
/// ratings.
///
/// # Errors
/// As [`validate`]; the arrays are untouched on error.
pub fn rate_in_place(rules: &Rules, rating_a: &mut [f32], rating_b: &mut [f32], score_a: &[f32], k: Option<&[f32]>) -> Result<(), BatchError> {
    validate(rules, &BatchInput { rating_a, rating_b, score_a, k })?;
    if let Some((plan, source)) = kernel::Plan::new(rules, k) {
        kernel::run_in_place(&plan, source, rating_a, rating_b, score_a);
        return Ok(());
    }
    for i in 0..rating_a.len() {
        let pair_k = k.map(|k| k[i]);
        (rating_a[i], rating_b[i]) = rate_one(rules, rating_a[i], rating_b[i], score_a[i], pair_k);
    }
    Ok(())
}
