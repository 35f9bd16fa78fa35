//! The batch kernel: many independent pairs in one tight loop that the compiler vectorizes
//! (SSE2 on x86-64, NEON on ARM64; AVX2 or AVX-512F through runtime dispatch where the CPU
//! has them).
//!
//! It computes each pair with the very same inline functions as the single-match path
//! ([`crate::expected::logistic`], [`crate::update::rate_with_expected`], the deterministic
//! `exp2`), only with the loop-invariant choices (model, K source, rounding) taken out of
//! the loop, so results are bit-identical to [`crate::Rules::rate`] and
//! [`crate::Rules::rate_with_k`] whatever the instruction set: vector lanes perform the same
//! IEEE-754 operations as scalar code, and Rust never fuses multiply-adds on its own (the
//! wider instruction sets are enabled without FMA). Tests compare every path bit for bit.
//!
//! Batches that need per-player K (rating bands, leagues), league bonuses or another
//! expectation model take the general per-pair path in [`crate::batch`].

#![allow(clippy::needless_bitwise_bool, clippy::manual_range_contains, reason = "branch-free tests vectorize")]
#![allow(clippy::too_many_arguments, reason = "a batch is six arrays, a plan and an instruction set")]

use crate::config::{Rounding, RoundingRule, Rules};
use crate::expected::{logistic, Expectation, ExpectationKind, PairExpectation};
use crate::kpolicy::KPolicy;
use crate::outcome::Outcome;
use crate::update::{rate_with_expected, SideTerms};

/// Where K comes from: one value for every pair, or one per pair (both players).
#[derive(Debug, Clone, Copy)]
pub enum KSource<'a> {
    /// The configured constant K.
    Constant(f64),
    /// One K per pair.
    PerPair(&'a [f32]),
}

/// The loop-invariant parameters of a batch that qualifies for the kernel.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    expectation: Expectation,
    floor: f64,
    score_share_bonus: f64,
    victory_bonus: f64,
    /// No cap, no floor and `L = V = +0`: the steps that are identities are left out
    /// (see [`Plan::pair_plain`]).
    plain: bool,
}

impl Plan {
    /// The kernel's plan for `rules`, if the batch qualifies: logistic expectation, no
    /// rounding, the same K for both players of a pair (a K array or the constant policy),
    /// and no league-specific bonuses.
    #[must_use]
    pub fn new<'a>(rules: &Rules, k: Option<&'a [f32]>) -> Option<(Self, KSource<'a>)> {
        let config = rules.config();
        let qualifies =
            rules.expectation().kind == ExpectationKind::Logistic && rules.expectation().exempt_from == f64::INFINITY && config.rounding == Rounding::None && !rules.league_bonuses;
        if !qualifies {
            return None;
        }
        let source = match (k, &config.k_policy) {
            (Some(k), _) => KSource::PerPair(k),
            (None, KPolicy::Constant { k }) => KSource::Constant(*k),
            _ => return None,
        };
        let plan = Self {
            expectation: *rules.expectation(),
            floor: rules.floor,
            score_share_bonus: config.score_share_bonus,
            victory_bonus: config.victory_bonus,
            plain: rules.expectation().cap == f64::INFINITY && rules.floor == f64::NEG_INFINITY && config.score_share_bonus.to_bits() == 0 && config.victory_bonus.to_bits() == 0,
        };
        Some((plan, source))
    }

    /// One pair: exactly the arithmetic of `Rules::rate_with_k(a, b, s, k, k)`.
    #[inline(always)]
    fn pair(&self, rating_a: f32, rating_b: f32, score_a: f32, k: f64) -> (f32, f32) {
        let score = f64::from(score_a);
        let outcome = Outcome { score_a: score, share_a: score };
        let side = SideTerms { k, score_share_bonus: self.score_share_bonus, victory_bonus: self.victory_bonus };
        // k_combine: average of two equal K is K itself, per player is K: no difference.
        let expected_a = logistic(self.expectation.difference(rating_a, rating_b), self.expectation.scale);
        // Plans exist only for `Rounding::None`; the constant lets the compiler drop the
        // rounding step from the loop (it is the identity for `None`).
        let expected = PairExpectation { a: expected_a, b: 1.0 - expected_a, symmetric: true, kind: ExpectationKind::Logistic };
        rate_with_expected(expected, RoundingRule::NONE, self.floor, rating_a, rating_b, outcome, side, side, 1.0)
    }
}

impl Plan {
    /// [`Plan::pair`] when the plan is plain. Every step left out is an identity there:
    /// clamping to `±inf` changes no value (NaN included); `0 * share` and `0 * score` are
    /// `+0` for scores in `[0, 1]`, so the bonus terms add exactly `+0`; `x < -inf` is never
    /// true; `K * 1` is `K`; and with equal K, B's K term is the negation of A's. The
    /// kernel tests compare this against the single-match path bit for bit.
    #[inline(always)]
    fn pair_plain(scale: f64, rating_a: f32, rating_b: f32, score_a: f32, k: f64) -> (f32, f32) {
        let (a, b) = (f64::from(rating_a), f64::from(rating_b));
        let expected_a = logistic(a - b, scale);
        let k_term_a = k * (f64::from(score_a) - expected_a);
        let delta_a = k_term_a + 0.0;
        let delta_b = -k_term_a + 0.0;
        ((a + delta_a) as f32, (b + delta_b) as f32)
    }
}

/// Branch-free validity of a batch's inputs: ratings within `±MAX_RATING`, scores in
/// `[0, 1]`, K in `[0, MAX_FACTOR]` (NaN fails every comparison). In chunks, so a failure
/// stops the pass early.
#[inline(always)]
fn valid_loop(rating_a: &[f32], rating_b: &[f32], score_a: &[f32], k: Option<&[f32]>) -> bool {
    const CHUNK: usize = 4096;
    #[allow(clippy::cast_possible_truncation, reason = "1e6 is exact in f32")]
    const MAX_K: f32 = crate::error::MAX_FACTOR as f32;
    let rating = |x: f32| x.abs() <= crate::error::MAX_RATING;
    let n = rating_a.len();
    let (rating_b, score_a) = (&rating_b[..n], &score_a[..n]);
    let mut start = 0;
    while start < n {
        let end = (start + CHUNK).min(n);
        let mut ok = true;
        for i in start..end {
            let s = score_a[i];
            ok &= rating(rating_a[i]) & rating(rating_b[i]) & (s >= 0.0) & (s <= 1.0);
        }
        if let Some(k) = k {
            for &k in &k[start..end] {
                ok &= (k >= 0.0) & (k <= MAX_K);
            }
        }
        if !ok {
            return false;
        }
        start = end;
    }
    true
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn valid_avx2(rating_a: &[f32], rating_b: &[f32], score_a: &[f32], k: Option<&[f32]>) -> bool {
    valid_loop(rating_a, rating_b, score_a, k)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn valid_avx512(rating_a: &[f32], rating_b: &[f32], score_a: &[f32], k: Option<&[f32]>) -> bool {
    valid_loop(rating_a, rating_b, score_a, k)
}

/// Whether a batch's inputs are all valid (the slices must have the same length; `k` too
/// when given), on `isa` where the CPU has it.
#[must_use]
pub fn inputs_valid(isa: Isa, rating_a: &[f32], rating_b: &[f32], score_a: &[f32], k: Option<&[f32]>) -> bool {
    match isa.available() {
        // SAFETY: `available` returns an instruction set only when the CPU has it.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { valid_avx512(rating_a, rating_b, score_a, k) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { valid_avx2(rating_a, rating_b, score_a, k) },
        _ => valid_loop(rating_a, rating_b, score_a, k),
    }
}

/// Expected scores of many pairs into `out` (all three slices the same length), with
/// exactly the arithmetic of [`Expectation::expected_a`]: the same inline functions with
/// the model chosen outside the loop.
#[inline(always)]
fn expected_loop(expectation: &Expectation, rating_a: &[f32], rating_b: &[f32], out: &mut [f64]) {
    let e = *expectation;
    let n = out.len();
    let (rating_a, rating_b) = (&rating_a[..n], &rating_b[..n]);
    match e.kind {
        ExpectationKind::Logistic => {
            for i in 0..n {
                out[i] = logistic(e.difference(rating_a[i], rating_b[i]), e.scale);
            }
        }
        ExpectationKind::Linear => {
            for i in 0..n {
                out[i] = crate::expected::linear(e.difference(rating_a[i], rating_b[i]), e.scale);
            }
        }
        ExpectationKind::Normal | ExpectationKind::FideTable => {
            for i in 0..n {
                out[i] = e.expected_a(rating_a[i], rating_b[i]);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn expected_avx2(expectation: &Expectation, rating_a: &[f32], rating_b: &[f32], out: &mut [f64]) {
    expected_loop(expectation, rating_a, rating_b, out);
}

/// [`Expectation::expected_a`] for many pairs (used by pools on blocks of matches), on
/// `isa` where the CPU has it. Same bits on every instruction set.
pub fn expected_into(isa: Isa, expectation: &Expectation, rating_a: &[f32], rating_b: &[f32], out: &mut [f64]) {
    match isa.available() {
        // SAFETY: `available` returns an instruction set only when the CPU has it. Blocks are
        // short, so AVX2 serves AVX-512 CPUs too (no 512-bit warm-up per block).
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 | Isa::Avx2 => unsafe { expected_avx2(expectation, rating_a, rating_b, out) },
        _ => expected_loop(expectation, rating_a, rating_b, out),
    }
}

/// Which instruction set runs the kernel (for tests and benchmarks; [`run`] and
/// [`run_in_place`] pick the best one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// The target's baseline (SSE2 on x86-64, NEON on ARM64).
    Baseline,
    /// AVX2 (x86-64 only; falls back to the baseline where the CPU lacks it).
    Avx2,
    /// AVX-512F (x86-64 only; falls back to AVX2 or the baseline where the CPU lacks it).
    Avx512,
}

impl Isa {
    /// The best instruction set of this CPU.
    #[must_use]
    pub fn best() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Self::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Self::Avx2;
            }
        }
        Self::Baseline
    }

    /// `self` if this CPU has it, else the best one below it.
    fn available(self) -> Self {
        let best = Self::best();
        match (self, best) {
            (Self::Avx512, _) => best,
            (Self::Avx2, Self::Avx512 | Self::Avx2) => Self::Avx2,
            _ => Self::Baseline,
        }
    }
}

/// The loop, separate outputs. All slices have the same length (checked by the caller).
#[inline(always)]
fn separate(plan: &Plan, k: KSource<'_>, rating_a: &[f32], rating_b: &[f32], score_a: &[f32], out_a: &mut [f32], out_b: &mut [f32]) {
    // A local copy: its fields are plain values in the loop, which lets it vectorize.
    let plan = *plan;
    let n = rating_a.len();
    let (rating_b, score_a, out_a, out_b) = (&rating_b[..n], &score_a[..n], &mut out_a[..n], &mut out_b[..n]);
    let scale = plan.expectation.scale;
    match (k, plan.plain) {
        (KSource::Constant(k), true) => {
            for i in 0..n {
                (out_a[i], out_b[i]) = Plan::pair_plain(scale, rating_a[i], rating_b[i], score_a[i], k);
            }
        }
        (KSource::PerPair(ks), true) => {
            let ks = &ks[..n];
            for i in 0..n {
                (out_a[i], out_b[i]) = Plan::pair_plain(scale, rating_a[i], rating_b[i], score_a[i], f64::from(ks[i]));
            }
        }
        (KSource::Constant(k), false) => {
            for i in 0..n {
                (out_a[i], out_b[i]) = plan.pair(rating_a[i], rating_b[i], score_a[i], k);
            }
        }
        (KSource::PerPair(ks), false) => {
            let ks = &ks[..n];
            for i in 0..n {
                (out_a[i], out_b[i]) = plan.pair(rating_a[i], rating_b[i], score_a[i], f64::from(ks[i]));
            }
        }
    }
}

/// The loop, in place.
#[inline(always)]
fn in_place(plan: &Plan, k: KSource<'_>, rating_a: &mut [f32], rating_b: &mut [f32], score_a: &[f32]) {
    let plan = *plan;
    let n = rating_a.len();
    let (rating_b, score_a) = (&mut rating_b[..n], &score_a[..n]);
    let scale = plan.expectation.scale;
    match (k, plan.plain) {
        (KSource::Constant(k), true) => {
            for i in 0..n {
                (rating_a[i], rating_b[i]) = Plan::pair_plain(scale, rating_a[i], rating_b[i], score_a[i], k);
            }
        }
        (KSource::PerPair(ks), true) => {
            let ks = &ks[..n];
            for i in 0..n {
                (rating_a[i], rating_b[i]) = Plan::pair_plain(scale, rating_a[i], rating_b[i], score_a[i], f64::from(ks[i]));
            }
        }
        (KSource::Constant(k), false) => {
            for i in 0..n {
                (rating_a[i], rating_b[i]) = plan.pair(rating_a[i], rating_b[i], score_a[i], k);
            }
        }
        (KSource::PerPair(ks), false) => {
            let ks = &ks[..n];
            for i in 0..n {
                (rating_a[i], rating_b[i]) = plan.pair(rating_a[i], rating_b[i], score_a[i], f64::from(ks[i]));
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn separate_avx2(plan: &Plan, k: KSource<'_>, rating_a: &[f32], rating_b: &[f32], score_a: &[f32], out_a: &mut [f32], out_b: &mut [f32]) {
    separate(plan, k, rating_a, rating_b, score_a, out_a, out_b);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn in_place_avx2(plan: &Plan, k: KSource<'_>, rating_a: &mut [f32], rating_b: &mut [f32], score_a: &[f32]) {
    in_place(plan, k, rating_a, rating_b, score_a);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn separate_avx512(plan: &Plan, k: KSource<'_>, rating_a: &[f32], rating_b: &[f32], score_a: &[f32], out_a: &mut [f32], out_b: &mut [f32]) {
    separate(plan, k, rating_a, rating_b, score_a, out_a, out_b);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn in_place_avx512(plan: &Plan, k: KSource<'_>, rating_a: &mut [f32], rating_b: &mut [f32], score_a: &[f32]) {
    in_place(plan, k, rating_a, rating_b, score_a);
}

/// Runs the kernel into separate outputs with the given instruction set.
pub fn run_with(isa: Isa, plan: &Plan, k: KSource<'_>, rating_a: &[f32], rating_b: &[f32], score_a: &[f32], out_a: &mut [f32], out_b: &mut [f32]) {
    match isa.available() {
        // SAFETY: `available` returns an instruction set only when the CPU has it.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { separate_avx512(plan, k, rating_a, rating_b, score_a, out_a, out_b) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { separate_avx2(plan, k, rating_a, rating_b, score_a, out_a, out_b) },
        _ => separate(plan, k, rating_a, rating_b, score_a, out_a, out_b),
    }
}

/// Runs the kernel in place with the given instruction set.
pub fn run_in_place_with(isa: Isa, plan: &Plan, k: KSource<'_>, rating_a: &mut [f32], rating_b: &mut [f32], score_a: &[f32]) {
    match isa.available() {
        // SAFETY: `available` returns an instruction set only when the CPU has it.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { in_place_avx512(plan, k, rating_a, rating_b, score_a) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { in_place_avx2(plan, k, rating_a, rating_b, score_a) },
        _ => in_place(plan, k, rating_a, rating_b, score_a),
    }
}

/// Runs the kernel into separate outputs on the best instruction set.
pub fn run(plan: &Plan, k: KSource<'_>, rating_a: &[f32], rating_b: &[f32], score_a: &[f32], out_a: &mut [f32], out_b: &mut [f32]) {
    run_with(Isa::best(), plan, k, rating_a, rating_b, score_a, out_a, out_b);
}

/// Runs the kernel in place on the best instruction set.
pub fn run_in_place(plan: &Plan, k: KSource<'_>, rating_a: &mut [f32], rating_b: &mut [f32], score_a: &[f32]) {
    run_in_place_with(Isa::best(), plan, k, rating_a, rating_b, score_a);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn every_instruction_set_matches_the_single_call_bit_for_bit() {
        let mut seed = 12345u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 40) as f32 / (1u64 << 24) as f32
        };
        let n = 4099; // not a multiple of any vector width
        let mut a: Vec<f32> = (0..n).map(|_| -500.0 + 4000.0 * next()).collect();
        // Signed zeros and equal ratings, where an identity step could change a sign.
        a[0] = -0.0;
        a[1] = 0.0;
        let mut b: Vec<f32> = (0..n).map(|_| -500.0 + 4000.0 * next()).collect();
        b[0] = -0.0;
        b[1] = -0.0;
        let mut s: Vec<f32> = (0..n).map(|i| if i % 5 == 0 { next() } else { (i % 2) as f32 }).collect();
        s[0] = 0.5;
        s[1] = 0.5;
        let k: Vec<f32> = (0..n).map(|_| 64.0 * next()).collect();
        for json in [
            "{}",
            r#"{"min_rating": 1000, "victory_bonus": 1.5, "score_share_bonus": 0.25, "max_rating_difference": 400}"#,
            r#"{"k_policy":{"policy":"constant","k":24.7},"k_combine":"average"}"#,
            r#"{"victory_bonus": -0.0, "score_share_bonus": 0}"#,
        ] {
            let rules = Config::from_json(json).unwrap();
            for per_pair in [false, true] {
                let (plan, source) = Plan::new(&rules, per_pair.then_some(&k[..])).unwrap();
                for isa in [Isa::Baseline, Isa::Avx2, Isa::Avx512] {
                    let (mut out_a, mut out_b) = (vec![0.0; n], vec![0.0; n]);
                    run_with(isa, &plan, source, &a, &b, &s, &mut out_a, &mut out_b);
                    let (mut in_a, mut in_b) = (a.clone(), b.clone());
                    run_in_place_with(isa, &plan, source, &mut in_a, &mut in_b, &s);
                    for i in 0..n {
                        let outcome = Outcome { score_a: f64::from(s[i]), share_a: f64::from(s[i]) };
                        let (x, y) = if per_pair { rules.rate_with_k(a[i], b[i], outcome, f64::from(k[i]), f64::from(k[i])) } else { rules.rate(a[i], b[i], outcome).unwrap() };
                        let want = (x.to_bits(), y.to_bits());
                        assert_eq!((out_a[i].to_bits(), out_b[i].to_bits()), want, "{json} {isa:?} pair {i}");
                        assert_eq!((in_a[i].to_bits(), in_b[i].to_bits()), want, "{json} {isa:?} in place {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn only_qualifying_rules_get_a_plan() {
        let rules = |json: &str| Config::from_json(json).unwrap();
        assert!(Plan::new(&rules(r#"{"rounding":"truncate"}"#), None).is_none());
        assert!(Plan::new(&rules(r#"{"expected_score":{"model":"normal"}}"#), None).is_none());
        assert!(Plan::new(&rules(r#"{"k_policy":{"policy":"fide"}}"#), None).is_none());
        assert!(Plan::new(&rules(r#"{"k_policy":{"policy":"fide"}}"#), Some(&[1.0])).is_some());
    }
}
