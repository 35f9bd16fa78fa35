//! Deterministic transcendental functions built only from IEEE-754 basic operations.
//!
//! Results must be bit-identical on every platform. The C library's
//! `pow`, `exp` and `erf` are not correctly rounded and differ between libm
//! implementations (glibc, Apple's `libm`, Bionic, the MSVC CRT), so the engine never calls
//! them. Everything here is addition, subtraction, multiplication, division, comparison
//! and bit manipulation on `f64`, in a fixed order. Rust never contracts `a * b + c` into a
//! fused multiply-add on its own, so the same source gives the same bits on x86-64,
//! 64-bit Arm and 32-bit Armv7.
//!
//! # Accuracy
//!
//! * [`exp2`]: relative error below 3e-10 on its whole domain (degree-8 Taylor
//!   polynomial on `[-1/2, 1/2]`, remainder below 2.1e-10, plus a few roundings): far
//!   below the `2^-24 = 6e-8` resolution of the `f32` results, and two multiply-adds per
//!   pair cheaper than degree 10 in the batch kernel.
//! * [`normal_cdf`]: absolute error below 2e-10; relative error below 1e-9 in the lower
//!   tail (`x <= -2.5`, where values are small).
//!
//! Expected scores are returned to callers as `f32`; the test
//! `expected_score_error_sweep` (in `src/rating/expected.rs`) measures the end-to-end absolute
//! error of `E` against an `f64` libm reference over rating differences −4000…4000, and
//! the README and the crate documentation quote its figure.

use std::f64::consts::{LN_2, LOG2_E};

/// `1.5 * 2^52`: adding it to a value of magnitude below `2^51` rounds that value to the
/// nearest integer (ties to even) and leaves the integer in the low mantissa bits.
const ROUNDING_SHIFTER: f64 = 6_755_399_441_055_744.0;

/// Arguments of [`exp2`] are clamped to `[-EXP2_ARGUMENT_LIMIT, EXP2_ARGUMENT_LIMIT]`.
///
/// `2^-200` is far below the smallest positive `f32`, so every expected score computed
/// from a clamped argument rounds to the same `f32` as the exact value would.
pub const EXP2_ARGUMENT_LIMIT: f64 = 200.0;

/// Number of Taylor coefficients used by [`exp2`] (degree 8).
const EXP2_TERMS: usize = 9;

/// Taylor coefficients of `2^f = e^(f ln 2)`: `(ln 2)^k / k!`, evaluated at compile time
/// with basic operations only, so they are the same bits on every platform.
const EXP2_COEFFICIENTS: [f64; EXP2_TERMS] = exp2_coefficients();

const fn exp2_coefficients() -> [f64; EXP2_TERMS] {
    let mut coefficients = [0.0; EXP2_TERMS];
    let mut term = 1.0;
    let mut k = 0;
    while k < EXP2_TERMS {
        coefficients[k] = term;
        term = term * LN_2 / (k + 1) as f64;
        k += 1;
    }
    coefficients
}

/// Clamps `x` to `[low, high]` and lets NaN through unchanged.
///
/// (`f64::clamp` also keeps NaN, but this spelling compiles to a compare-and-select that
/// vectorizes on SSE2 and NEON.)
#[inline(always)]
#[must_use]
pub fn clamp_keep_nan(x: f64, low: f64, high: f64) -> f64 {
    let x = if x > high { high } else { x };
    if x < low {
        low
    } else {
        x
    }
}

/// `2^y`, deterministic on every platform.
///
/// `y` is clamped to `[-200, 200]` first ([`EXP2_ARGUMENT_LIMIT`]); NaN gives NaN.
/// The argument is split into the nearest integer `n` and a remainder `f` in
/// `[-1/2, 1/2]` (exactly, by Sterbenz's lemma); `2^f` comes from a Horner evaluation of
/// the Taylor polynomial and `2^n` is built directly in the exponent bits.
#[inline(always)]
#[must_use]
pub fn exp2(y: f64) -> f64 {
    let y = clamp_keep_nan(y, -EXP2_ARGUMENT_LIMIT, EXP2_ARGUMENT_LIMIT);
    let shifted = y + ROUNDING_SHIFTER;
    let n = shifted - ROUNDING_SHIFTER;
    let f = y - n;
    // The integer n sits in the low mantissa bits of `shifted` (two's complement relative
    // to the shifter's own bits); |n| <= 200 keeps `n + 1023` a normal exponent.
    let n_bits = shifted.to_bits().wrapping_sub(ROUNDING_SHIFTER.to_bits());
    let scale = f64::from_bits(n_bits.wrapping_add(1023) << 52);
    let c = &EXP2_COEFFICIENTS;
    let mut p = c[8];
    p = p * f + c[7];
    p = p * f + c[6];
    p = p * f + c[5];
    p = p * f + c[4];
    p = p * f + c[3];
    p = p * f + c[2];
    p = p * f + c[1];
    p = p * f + c[0];
    p * scale
}

/// `e^x`, deterministic on every platform (through [`exp2`], so `x` is effectively
/// clamped to about `[-138, 138]`).
#[inline]
#[must_use]
pub fn exp(x: f64) -> f64 {
    exp2(x * LOG2_E)
}

/// `ln(sqrt(2 pi))`, the log of the normal density's normalising constant.
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// Beyond `|x| >= 16` the standard normal CDF is within `7e-58` of 0 or 1 (far below the
/// smallest `f32`), and the result is exactly 0 or 1.
const NORMAL_CDF_LIMIT: f64 = 16.0;

/// Below this `|x|` the series is used; from it on, the tail's continued fraction.
const NORMAL_TAIL_START: f64 = 2.5;

/// Depth of the continued fraction (relative error below 1e-15 from `|x| = 2.5` on).
const NORMAL_TAIL_DEPTH: u32 = 80;

/// Upper bound on series terms; within `|x| < 2.5` the series converges in under 60
/// terms, the bound only makes termination obvious.
const NORMAL_SERIES_MAX_TERMS: u32 = 200;

/// `Phi(x)`, the standard normal cumulative distribution function, deterministic on every
/// platform. NaN gives NaN; the result is always within `[0, 1]` and never decreases
/// with `x`.
///
/// * `|x| < 2.5`: Marsaglia's series `Phi(x) = 1/2 + phi(x) (x + x^3/3 + x^5/(3*5) + ...)`,
///   whose terms all share the sign of `x`, summed until a term no longer changes the
///   total.
/// * `|x| >= 2.5`: the tail `P(Z > t) = phi(t) / (t + 1/(t + 2/(t + 3/(t + ...))))`
///   (Laplace's continued fraction, evaluated from a fixed depth), so that small
///   probabilities keep their relative precision instead of cancelling against 1/2.
/// * `|x| >= 16`: exactly 0 or 1.
#[must_use]
pub fn normal_cdf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x >= NORMAL_CDF_LIMIT {
        return 1.0;
    }
    if x <= -NORMAL_CDF_LIMIT {
        return 0.0;
    }
    if x <= -NORMAL_TAIL_START {
        return normal_upper_tail(-x);
    }
    if x >= NORMAL_TAIL_START {
        return 1.0 - normal_upper_tail(x);
    }
    let q = x * x;
    let mut sum = x;
    let mut term = x;
    let mut odd = 1.0;
    for _ in 0..NORMAL_SERIES_MAX_TERMS {
        odd += 2.0;
        term = term * q / odd;
        let next = sum + term;
        if next == sum {
            break;
        }
        sum = next;
    }
    0.5 + sum * normal_density(x)
}

/// `phi(x)`, the standard normal density.
fn normal_density(x: f64) -> f64 {
    exp(-0.5 * (x * x) - LN_SQRT_2PI)
}

/// `P(Z > t)` for `t >= 2.5`.
fn normal_upper_tail(t: f64) -> f64 {
    let mut fraction = t;
    for k in (1..=NORMAL_TAIL_DEPTH).rev() {
        fraction = t + f64::from(k) / fraction;
    }
    normal_density(t) / fraction
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp2_is_exact_at_integers() {
        for n in -200..=200 {
            let expected = f64::from_bits(u64::try_from(n + 1023).expect("a normal exponent") << 52);
            assert_eq!(exp2(f64::from(n)), expected, "2^{n}");
        }
    }

    #[test]
    fn exp2_relative_error_is_below_3e_10() {
        let mut worst: f64 = 0.0;
        let mut y: f64 = -60.0;
        while y <= 60.0 {
            let reference = y.exp2();
            worst = worst.max(((exp2(y) - reference) / reference).abs());
            y += 0.000_731;
        }
        assert!(worst < 3e-10, "worst relative error {worst:e}");
    }

    #[test]
    fn exp2_clamps_and_propagates_nan() {
        assert_eq!(exp2(1e9), exp2(EXP2_ARGUMENT_LIMIT));
        assert_eq!(exp2(-1e9), exp2(-EXP2_ARGUMENT_LIMIT));
        assert!(exp2(f64::NAN).is_nan());
        assert_eq!(exp2(f64::INFINITY), exp2(EXP2_ARGUMENT_LIMIT));
    }

    #[test]
    fn normal_cdf_matches_libm_reference() {
        let mut worst: f64 = 0.0;
        let mut worst_relative_tail: f64 = 0.0;
        let mut previous = 0.0;
        let mut x: f64 = -17.0;
        while x <= 17.0 {
            let reference = 0.5 * libm::erfc(-x / std::f64::consts::SQRT_2);
            let got = normal_cdf(x);
            worst = worst.max((got - reference).abs());
            // The tail keeps relative precision; nearer 0 the absolute bound is what counts.
            if x <= -NORMAL_TAIL_START && x > -NORMAL_CDF_LIMIT {
                worst_relative_tail = worst_relative_tail.max((got / reference - 1.0).abs());
            }
            assert!(got >= previous && (0.0..=1.0).contains(&got), "Phi({x}) = {got}");
            previous = got;
            x += 0.000_913;
        }
        assert!(worst < 2e-10, "worst absolute error {worst:e}");
        assert!(worst_relative_tail < 1e-9, "worst relative error in the lower tail {worst_relative_tail:e}");
        assert_eq!(normal_cdf(0.0), 0.5);
        assert!(normal_cdf(f64::NAN).is_nan());
    }
}
