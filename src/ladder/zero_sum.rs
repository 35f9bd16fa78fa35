//! The zero-sum arithmetic of pools: the exact sum of the stored ratings ([`RatingSum`]),
//! stored and current ratings, the zero-sum offset and a newcomer's rating.

/// The exact sum of a pool's stored ratings: each `f32` rating as a fixed-point number
/// with 40 binary fraction digits, summed in an `i128`. Integer addition is exact and
/// independent of order, so the total can never drift, whatever sequence of sets, adds,
/// matches and loads happened. Every rating of magnitude `2^-17` or more (and 0)
/// is represented exactly; smaller ones are taken toward zero to 40 binary digits. With
/// ratings bounded by [`crate::error::MAX_POOL_RATING`] and at most `2^31` players the sum stays below
/// `2^127`.
///
/// Public for ladders kept outside memory (a database, as the ladder server keeps them):
/// they store the sum ([`Self::fixed_point`], [`Self::from_fixed_point`]) next to the
/// zero-sum offset and update both exactly as a pool does ([`zero_sum_offset`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RatingSum(i128);

impl RatingSum {
    /// `2^40`.
    const SCALE: f64 = 1_099_511_627_776.0;

    /// A sum from its fixed-point value (as [`Self::fixed_point`] gave it).
    #[must_use]
    pub const fn from_fixed_point(value: i128) -> Self {
        Self(value)
    }

    /// The sum in fixed point: the ratings times `2^40`, exactly, as an integer.
    #[must_use]
    pub const fn fixed_point(self) -> i128 {
        self.0
    }

    /// A rating in fixed point (exact: scaling by a power of two, then an integer part).
    #[inline(always)]
    fn fixed(rating: f32) -> i128 {
        // The common magnitudes convert in one instruction through i64 (inside the call).
        crate::ladder::fixed_point::f64_to_i128(f64::from(rating) * Self::SCALE)
    }

    /// The sum of `ratings`.
    pub fn of(ratings: impl Iterator<Item = f32>) -> Self {
        Self(ratings.map(Self::fixed).sum())
    }

    /// Adds a rating.
    #[inline(always)]
    pub fn add(&mut self, rating: f32) {
        self.0 += Self::fixed(rating);
    }

    /// Replaces rating `old` by `new`.
    #[inline(always)]
    pub fn replace(&mut self, old: f32, new: f32) {
        self.0 += Self::fixed(new) - Self::fixed(old);
    }

    /// The sum, rounded once to `f64`.
    #[must_use]
    pub fn value(self) -> f64 {
        crate::ladder::fixed_point::i128_to_f64(self.0) / Self::SCALE
    }
}

/// A stored rating made current: plus the zero-sum offset (what a pool reports for a
/// player whose stored, offset-relative rating is `stored`).
#[inline(always)]
#[must_use]
pub fn effective_rating(stored: f32, offset: f64) -> f32 {
    if offset == 0.0 {
        stored
    } else {
        (f64::from(stored) + offset) as f32
    }
}

/// The rating a pool stores for a current rating: relative to the zero-sum offset (the
/// inverse of [`effective_rating`], up to the `f32` rounding).
#[inline(always)]
#[must_use]
pub fn stored_rating(rating: f32, offset: f64) -> f32 {
    if offset == 0.0 {
        rating
    } else {
        (f64::from(rating) - offset) as f32
    }
}

/// The zero-sum offset of a pool of `players` whose stored ratings sum to `sum`, so that
/// the ratings total `total` (SPEC 7): `(T - sum) / N`. A pool sets it after every change.
#[inline(always)]
#[must_use]
pub fn zero_sum_offset(total: f64, sum: RatingSum, players: usize) -> f64 {
    (total - sum.value()) / players as f64
}

/// The rating a player joining a zero-sum pool of `players` starts at (SPEC 7): the
/// total `T` for the first, then the pool's mean rating (`sum` of the stored ratings
/// plus `players` times the offset, over `players`). [`crate::pool::Pool::add_players`] with one
/// player at a time.
#[must_use]
pub fn zero_sum_joining_rating(total: f64, sum: RatingSum, offset: f64, players: usize) -> f32 {
    if players == 0 {
        total as f32
    } else {
        ((sum.value() + players as f64 * offset) / players as f64) as f32
    }
}
