//! Batch updates over arrays: `count` independent matches in one call.
//!
//! Outputs may be separate arrays, or exactly the rating arrays themselves (in place:
//! `out_rating_a == rating_a` and `out_rating_b == rating_b`). Any other overlap between
//! outputs and inputs is refused with `ELO_RESULT_OVERLAPPING_BUFFERS`. The whole batch is
//! validated before anything is written: on failure the outputs are untouched and the
//! message names the first bad element (`score_a[17] must be between 0 and 1`).

use super::args::{arg_len, arg_ref, arg_slice, arg_slice_mut, check_disjoint, Region};
use super::config::EloConfig;
use super::error::{EloResult, FfiError};
use crate::batch::{self, BatchInput};
use crate::config::{Config, Rules};
use crate::kpolicy::KPolicy;
use crate::update::check_k;

/// Rates `count` independent pairs under a configuration.
///
/// `rating_a`, `rating_b` and `score_a` (player A's score in `[0, 1]`) hold `count`
/// elements each. `k` is NULL to take K from the configured policy (which must depend on
/// the rating alone) or holds one K per pair, used for both players. Each pair gives
/// exactly what `elo_rate` (or `elo_rate_with_k` with `k_a = k_b = k[i]`) gives.
///
/// # Safety
/// `config` must be a live handle; each non-NULL array valid for `count` elements.
#[no_mangle]
pub unsafe extern "C" fn elo_rate_batch(
    config: *const EloConfig,
    rating_a: *const f32,
    rating_b: *const f32,
    score_a: *const f32,
    k: *const f32,
    count: i32,
    out_rating_a: *mut f32,
    out_rating_b: *mut f32,
) -> EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        let arrays = BatchArrays { rating_a, rating_b, score_a, k, out_rating_a, out_rating_b };
        unsafe { arrays.run(&config.rules, count) }
    })
}

/// The tutorial's `UpdatePlayerRankings` over arrays: logistic with c = 400,
/// `K = multiplier` for every pair, no rounding, and scores in `[0, 1]` (so draws and
/// margins work too; with scores 0 and 1 each pair equals `elo_update_player_rankings`
/// bit for bit). Same array rules as [`elo_rate_batch`].
///
/// # Safety
/// Each non-NULL array valid for `count` elements.
#[no_mangle]
pub unsafe extern "C" fn elo_update_player_rankings_batch(
    rating_player1: *const f32,
    rating_player2: *const f32,
    score_player1: *const f32,
    multiplier: f32,
    count: i32,
    out_rating_player1: *mut f32,
    out_rating_player2: *mut f32,
) -> EloResult {
    ffi_boundary!(result => {
        let k = check_k(f64::from(multiplier), "multiplier")?;
        let rules = Config { k_policy: KPolicy::Constant { k }, ..Config::default() }
            .validate()
            .map_err(crate::error::Error::from)?;
        let arrays = BatchArrays {
            rating_a: rating_player1,
            rating_b: rating_player2,
            score_a: score_player1,
            k: std::ptr::null(),
            out_rating_a: out_rating_player1,
            out_rating_b: out_rating_player2,
        };
        unsafe { arrays.run(&rules, count) }
    })
}

/// The raw arrays of a batch call, before any of them is trusted.
struct BatchArrays {
    rating_a: *const f32,
    rating_b: *const f32,
    score_a: *const f32,
    k: *const f32,
    out_rating_a: *mut f32,
    out_rating_b: *mut f32,
}

impl BatchArrays {
    /// Checks pointers, lengths and aliasing, then runs the batch in place or into the
    /// separate outputs.
    unsafe fn run(&self, rules: &Rules, count: i32) -> Result<(), FfiError> {
        let n = arg_len(count, "count")?;
        let score_a = unsafe { arg_slice(self.score_a, n, "score_a")? };
        let k = if self.k.is_null() { None } else { Some(unsafe { arg_slice(self.k, n, "k")? }) };
        let in_place = self.out_rating_a.cast_const() == self.rating_a && self.out_rating_b.cast_const() == self.rating_b;
        self.check_overlaps(n, in_place)?;
        if in_place {
            let rating_a = unsafe { arg_slice_mut(self.out_rating_a, n, "rating_a")? };
            let rating_b = unsafe { arg_slice_mut(self.out_rating_b, n, "rating_b")? };
            batch::rate_in_place(rules, rating_a, rating_b, score_a, k)?;
        } else {
            let input = BatchInput { rating_a: unsafe { arg_slice(self.rating_a, n, "rating_a")? }, rating_b: unsafe { arg_slice(self.rating_b, n, "rating_b")? }, score_a, k };
            let out_a = unsafe { arg_slice_mut(self.out_rating_a, n, "out_rating_a")? };
            let out_b = unsafe { arg_slice_mut(self.out_rating_b, n, "out_rating_b")? };
            batch::rate(rules, &input, out_a, out_b)?;
        }
        Ok(())
    }

    /// Refuses outputs that overlap each other or any input, except the exact in-place
    /// case (then the rating arrays count as outputs only).
    fn check_overlaps(&self, n: usize, in_place: bool) -> Result<(), FfiError> {
        let unless_in_place = |ptr: *const f32| if in_place { std::ptr::null() } else { ptr };
        let outputs = [("out_rating_a", Region::of(self.out_rating_a.cast_const(), n)), ("out_rating_b", Region::of(self.out_rating_b.cast_const(), n))];
        let inputs = [
            ("score_a", Region::of(self.score_a, n)),
            ("k", Region::of(self.k, n)),
            ("rating_a", Region::of(unless_in_place(self.rating_a), n)),
            ("rating_b", Region::of(unless_in_place(self.rating_b), n)),
        ];
        check_disjoint(&outputs, &inputs).map_err(|error| FfiError::new(error.code, format!("{} (or exactly the rating arrays, for an update in place)", error.message)))
    }
}
