//! The zero-sum ledger of a pool: the numbers behind a pool's exact total and its zero-sum
//! mode (`docs/ranges.md#the-pools-total`, `docs/configuration.md#zero-sum-pools`), and
//! the only code that changes them.
//!
//! A pool stores each player's rating `s_i` as a [`StoredRating`], relative to one shared
//! offset `o`, and keeps the exact sum `S` of the stored ratings ([`RatingSum`]). In
//! zero-sum mode (`zero_sum_total` set to `T`) the total of all ratings is brought back to
//! `T` after every change by giving everybody `(T - sum R) / N`, which costs O(1): only the
//! offset moves. The arithmetic, which a reference model in the tests reproduces bit for
//! bit:
//!
//! * a player's rating is `f32(s_i + o)` (in `f64`, rounded once; `s_i` itself while `o`
//!   is 0) ([`ZeroSumLedger::current`]);
//! * a change to rating `r` is stored as `s_i = f32(r - o)` (`r` itself while `o` is 0)
//!   ([`ZeroSumLedger::stored`]); every rating of one match (both players, every team
//!   member, every entrant) is computed from the ratings before the match and stored
//!   against the same `o`;
//! * then `o = (T - S) / N` in `f64`, with `S` rounded once to `f64`
//!   ([`ZeroSumLedger::rebalance`]);
//! * a newcomer starts at `T / n` when `n` players join an empty pool, and at the pool's
//!   mean rating `(S + N o) / N` otherwise ([`ZeroSumLedger::joining_rating`]).
//!
//! A ladder kept outside memory (a database, as the ladder server keeps them) stores the
//! offset, the sum ([`RatingSum::fixed_point`]) and the player count, and changes them
//! through a ledger made from them ([`ZeroSumLedger::from_stored`]) exactly as a pool does.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::error::MAX_POOL_RATING;
use crate::player::PlayerState;

/// The exact sum of a pool's stored ratings: each `f32` rating as a fixed-point number
/// with 40 binary fraction digits, summed in an `i128`. Integer addition is exact and
/// independent of order, so the total can never drift, whatever sequence of sets, adds,
/// matches and loads happened. Every rating of magnitude `2^-17` or more (and 0)
/// is represented exactly; smaller ones are taken toward zero to 40 binary digits. With
/// ratings bounded by [`MAX_POOL_RATING`] and at most `2^31` players the sum stays below
/// `2^127`.
///
/// Only a [`ZeroSumLedger`] changes a sum; a ladder kept outside memory stores it
/// ([`Self::fixed_point`]) and reads it back ([`Self::from_fixed_point`]).
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

    /// The sum, rounded once to `f64`.
    #[must_use]
    pub fn value(self) -> f64 {
        crate::ladder::fixed_point::i128_to_f64(self.0) / Self::SCALE
    }

    /// A rating in fixed point (exact: scaling by a power of two, then an integer part).
    #[inline(always)]
    fn fixed(rating: StoredRating) -> i128 {
        // The common magnitudes convert in one instruction through i64 (inside the call).
        crate::ladder::fixed_point::f64_to_i128(f64::from(rating.0) * Self::SCALE)
    }

    /// The sum of `ratings`.
    fn of(ratings: impl Iterator<Item = StoredRating>) -> Self {
        Self(ratings.map(Self::fixed).sum())
    }

    /// Adds a rating.
    #[inline(always)]
    fn add(&mut self, rating: StoredRating) {
        self.0 += Self::fixed(rating);
    }

    /// Replaces rating `old` by `new`.
    #[inline(always)]
    fn replace(&mut self, old: StoredRating, new: StoredRating) {
        self.0 += Self::fixed(new) - Self::fixed(old);
    }
}

/// A rating as a pool stores it: relative to the pool's zero-sum offset (the rating itself
/// while the offset is 0, which it always is without `zero_sum_total`). Not a rating to
/// show or to rate with: [`ZeroSumLedger::current`] makes it current.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(transparent)]
pub struct StoredRating(f32);

impl StoredRating {
    /// A stored rating from the number a save or a database keeps.
    #[must_use]
    pub const fn from_f32(value: f32) -> Self {
        Self(value)
    }

    /// The number to keep in a save or a database.
    #[must_use]
    pub const fn to_f32(self) -> f32 {
        self.0
    }

    /// `f32::total_cmp` of the numbers: stored ratings that share an offset order as their
    /// current ratings do (which may tie where the stored ones differ).
    #[must_use]
    pub fn total_cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }

    /// The magnitude, for the ledger's bound.
    #[inline(always)]
    fn magnitude(self) -> f64 {
        f64::from(self.0.abs())
    }
}

/// A player's state as a pool stores it (in a save, or in a database row as the ladder
/// server keeps them): every field of [`PlayerState`], but the rating is a
/// [`StoredRating`]. Serialized as the [`PlayerState`] of those fields.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StoredPlayer(PlayerState);

impl StoredPlayer {
    /// A stored player from its stored fields: a state whose `rating` is the stored
    /// rating (a save's or a database row's).
    #[must_use]
    pub const fn from_fields(fields: PlayerState) -> Self {
        Self(fields)
    }

    /// The stored fields, `rating` holding the stored rating: what a save or a database
    /// row keeps.
    #[must_use]
    pub const fn fields(&self) -> PlayerState {
        self.0
    }

    /// The stored rating.
    #[must_use]
    pub const fn rating(&self) -> StoredRating {
        StoredRating(self.0.rating)
    }

    /// The player's current state under `ledger`: the rating made current.
    #[must_use]
    pub fn current(&self, ledger: &ZeroSumLedger) -> PlayerState {
        PlayerState { rating: ledger.current(self.rating()), ..self.0 }
    }
}

/// A stored rating made current: plus the zero-sum offset (what a pool reports for a
/// player whose stored, offset-relative rating is `stored`). [`ZeroSumLedger::current`]
/// for a rating read from a database column.
#[inline(always)]
#[must_use]
pub fn effective_rating(stored: f32, offset: f64) -> f32 {
    if offset == 0.0 {
        stored
    } else {
        (f64::from(stored) + offset) as f32
    }
}

/// The zero-sum numbers of a pool, or of a ladder kept outside memory: the configured
/// total `T` (none without zero-sum), the offset added to every stored rating, the exact
/// sum of the stored ratings, an upper bound of their magnitudes and the number of players.
/// This type is the only code that changes them; see the [module](self) for the
/// arithmetic.
#[derive(Debug, Clone, Copy)]
pub struct ZeroSumLedger {
    /// The zero-sum total `T`; `None` without zero-sum (the offset then stays 0).
    total: Option<f64>,
    /// Added to every stored rating.
    offset: f64,
    /// The exact sum of the stored ratings; `None` after a list of matches (pairs, teams or
    /// free-for-alls) without zero-sum ([`Self::forget_sum`]: the match loops do not keep
    /// it), recomputed when next needed. A zero-sum ledger always knows it.
    sum: Option<RatingSum>,
    /// An upper bound of the largest stored rating magnitude (see [`Self::reserve`]).
    bound: f64,
    /// Number of players.
    count: usize,
}

/// A proof that a ledger has no offset and no zero-sum total, so that stored ratings are
/// the current ratings: what the block applier needs to skip the offset arithmetic.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unshifted(());

#[allow(clippy::unused_self, reason = "the token is the proof that the conversion holds")]
impl Unshifted {
    /// The current rating of a stored one: the same number.
    #[inline(always)]
    pub(crate) fn current(self, stored: StoredRating) -> f32 {
        stored.0
    }

    /// The stored rating of a current one: the same number.
    #[inline(always)]
    pub(crate) fn stored(self, rating: f32) -> StoredRating {
        StoredRating(rating)
    }
}

impl ZeroSumLedger {
    /// The ledger of an empty pool with zero-sum total `total` (`None`: not zero-sum).
    #[must_use]
    pub fn new(total: Option<f64>) -> Self {
        Self { total, offset: 0.0, sum: Some(RatingSum::default()), bound: 0.0, count: 0 }
    }

    /// The ledger of a zero-sum ladder kept outside memory (as the ladder server keeps
    /// them): its total `T`, its offset, the exact sum of its stored ratings and its
    /// number of players, as stored after the last change. Its bound is unknown (only a
    /// pool, which holds the ratings, keeps one).
    #[must_use]
    pub fn from_stored(total: f64, offset: f64, sum: RatingSum, count: usize) -> Self {
        Self { total: Some(total), offset, sum: Some(sum), bound: f64::INFINITY, count }
    }

    /// The ledger of the stored ratings `ratings` (every player's) under `offset`: their
    /// exact sum, bound and count computed.
    pub(crate) fn of_stored(total: Option<f64>, offset: f64, ratings: impl Iterator<Item = StoredRating> + Clone) -> Self {
        let sum = RatingSum::of(ratings.clone());
        let (bound, count) = ratings.fold((0.0, 0), |(bound, count), rating| (f64::max(bound, rating.magnitude()), count + 1));
        Self { total, offset, sum: Some(sum), bound, count }
    }

    /// The zero-sum total `T` (`None` without zero-sum).
    #[must_use]
    pub fn total(&self) -> Option<f64> {
        self.total
    }

    /// The offset added to every stored rating (0 without zero-sum).
    #[must_use]
    pub fn offset(&self) -> f64 {
        self.offset
    }

    /// The exact sum of the stored ratings; `None` only in a pool without zero-sum right
    /// after a list of matches (a zero-sum ledger always knows it).
    #[must_use]
    pub fn sum(&self) -> Option<RatingSum> {
        self.sum
    }

    /// The number of players.
    #[must_use]
    pub fn count(&self) -> usize {
        self.count
    }

    /// The bound of the stored rating magnitudes (a pool's saves compare version 1's
    /// running sum within it).
    pub(crate) fn bound(&self) -> f64 {
        self.bound
    }

    /// The current rating of a player whose stored rating is `stored`: `f32(s + o)`.
    #[inline(always)]
    #[must_use]
    pub fn current(&self, stored: StoredRating) -> f32 {
        effective_rating(stored.0, self.offset)
    }

    /// The stored form of the current rating `rating`: `f32(r - o)`. It changes no
    /// number: storing it in place of another rating is [`Self::replace`]'s work.
    #[inline(always)]
    #[must_use]
    pub fn stored(&self, rating: f32) -> StoredRating {
        if self.offset == 0.0 {
            StoredRating(rating)
        } else {
            StoredRating((f64::from(rating) - self.offset) as f32)
        }
    }

    /// The rating `joining` players joining now start at in a zero-sum pool: `T / joining`
    /// in an empty pool, else the mean rating `(S + N o) / N`. `None` without zero-sum (the
    /// configuration's initial rating applies) and when nobody joins an empty pool.
    #[must_use]
    pub fn joining_rating(&self, joining: usize) -> Option<f32> {
        let total = self.total?;
        if self.count == 0 {
            (joining > 0).then(|| (total / joining as f64) as f32)
        } else {
            let count = self.count as f64;
            Some(((self.sum?.value() + count * self.offset) / count) as f32)
        }
    }

    /// A player joins with the current rating `rating`: returns its stored form, added to
    /// the sum, the bound and the count. The caller rebalances once every newcomer is in.
    #[inline]
    pub fn join(&mut self, rating: f32) -> StoredRating {
        let stored = self.stored(rating);
        if let Some(sum) = &mut self.sum {
            sum.add(stored);
        }
        self.bound = self.bound.max(stored.magnitude());
        self.count += 1;
        stored
    }

    /// A player's stored rating `old` is replaced by the current rating `rating` (a game's
    /// result, a decay): returns its stored form, the sum kept. The bound is not grown: a
    /// pool takes room for a list's results before it applies the list. The caller
    /// rebalances once every rating of the change is stored, so that all are stored against
    /// the same offset.
    #[inline(always)]
    pub fn replace(&mut self, old: StoredRating, rating: f32) -> StoredRating {
        let stored = self.stored(rating);
        if let Some(sum) = &mut self.sum {
            sum.replace(old, stored);
        }
        stored
    }

    /// [`Self::replace`] for a rating that comes from outside a game (a player set, a
    /// season's reset): the bound grows to hold it.
    pub(crate) fn set(&mut self, old: StoredRating, rating: f32) -> StoredRating {
        let stored = self.replace(old, rating);
        self.bound = self.bound.max(stored.magnitude());
        stored
    }

    /// Zero-sum: everybody receives `(T - sum R) / N`, as the offset `o = (T - S) / N`
    /// (O(1)). Nothing without zero-sum or players.
    #[inline(always)]
    pub fn rebalance(&mut self) {
        debug_assert!(self.total.is_none() || self.sum.is_some(), "a zero-sum ledger knows its sum");
        if let (Some(total), Some(sum)) = (self.total, self.sum) {
            if self.count > 0 {
                self.offset = (total - sum.value()) / self.count as f64;
            }
        }
    }

    /// Re-bases: the offset is folded into the stored ratings, which `ratings` yields (every
    /// player's) and this rewrites as their current values; the offset becomes 0, the sum
    /// and the bound are recomputed, and the zero-sum total becomes `total` (new rules). A
    /// large offset left by extreme ratings then costs later changes no precision. The
    /// caller rebalances once the ratings are final.
    pub(crate) fn rebase<'a>(&mut self, total: Option<f64>, ratings: impl Iterator<Item = &'a mut StoredRating>) {
        let (mut sum, mut bound) = (RatingSum::default(), 0.0);
        for stored in ratings {
            *stored = StoredRating(self.current(*stored));
            sum.add(*stored);
            bound = f64::max(bound, stored.magnitude());
        }
        *self = Self { total, offset: 0.0, sum: Some(sum), bound, count: self.count };
    }

    /// The total of the current ratings: the exact sum of the stored ratings rounded once to
    /// `f64`, plus `N` times the offset. `ratings` (every player's stored rating) is read
    /// only when the sum is not known (O(N) then).
    pub(crate) fn current_total(&self, ratings: impl Iterator<Item = StoredRating>) -> f64 {
        self.sum.unwrap_or_else(|| RatingSum::of(ratings)).value() + self.count as f64 * self.offset
    }

    /// Makes the sum known again from `ratings` (every player's stored rating) when a block
    /// of matches left it unknown, so that the next queries and changes are O(1).
    pub(crate) fn know_sum(&mut self, ratings: impl Iterator<Item = StoredRating>) {
        if self.sum.is_none() {
            self.sum = Some(RatingSum::of(ratings));
        }
    }

    /// A proof that stored ratings are current (no offset, no zero-sum), if they are.
    #[inline]
    pub(crate) fn unshifted(&self) -> Option<Unshifted> {
        (self.total.is_none() && self.offset == 0.0).then_some(Unshifted(()))
    }

    /// Forgets the sum: a list of matches changed ratings without keeping it (which it may
    /// only where the ledger is [`Unshifted`]: a zero-sum ledger always knows its sum).
    pub(crate) fn forget_sum(&mut self, _: Unshifted) {
        self.sum = None;
    }

    /// Takes room for changes that can move ratings by `growth` in all: whether no rating
    /// can then pass [`MAX_POOL_RATING`] (plus the offset). The bound grows by `growth`; it
    /// is recomputed exactly from `ratings` (every player's stored rating, O(N)) only when it
    /// gets near the limit, which ratings of any real game never do.
    pub(crate) fn reserve(&mut self, growth: f64, ratings: impl Iterator<Item = StoredRating>) -> bool {
        let fits = |bound: f64, offset: f64| bound + offset.abs() + growth <= MAX_POOL_RATING;
        if !fits(self.bound, self.offset) {
            self.bound = ratings.map(StoredRating::magnitude).fold(0.0, f64::max);
            if !fits(self.bound, self.offset) {
                return false;
            }
        }
        self.bound += growth;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::outcome::Outcome;
    use crate::pool::{Match, Pool};

    /// A zero-sum ladder kept outside a pool (stored players, and a ledger made from its
    /// stored numbers for every change, as the ladder server keeps them) gives the pool's
    /// bits, and a pool rebuilt from its stored parts continues exactly as the original.
    #[test]
    fn a_ledger_kept_outside_matches_the_pool() {
        let rules = Config::from_json(r#"{"zero_sum_total":4000,"streak_alpha":0.1}"#).unwrap();
        let mut pool = Pool::new(rules.clone());
        let (mut stored, mut kept) = (Vec::<StoredPlayer>::new(), (0.0, RatingSum::default(), 0));
        let total = 4000.0;
        let plan = [(0, 1, 1.0), (2, 0, 0.5), (3, 1, 0.0), (1, 2, 1.0), (0, 3, 1.0)];
        for (a, b, score) in plan {
            for index in [a, b] {
                if index == stored.len() {
                    pool.add_players(1);
                    let mut ledger = ZeroSumLedger::from_stored(total, kept.0, kept.1, kept.2);
                    let rating = ledger.joining_rating(1).unwrap();
                    let state = rules.placed(PlayerState::new(rating));
                    let rating = ledger.join(state.rating);
                    ledger.rebalance();
                    stored.push(StoredPlayer::from_fields(PlayerState { rating: rating.to_f32(), ..state }));
                    kept = (ledger.offset(), ledger.sum().unwrap(), ledger.count());
                }
            }
            let outcome = Outcome::from_score(score).unwrap();
            pool.apply(&[Match::new(a, b, outcome)], None).unwrap();
            let mut ledger = ZeroSumLedger::from_stored(total, kept.0, kept.1, kept.2);
            let (new_a, new_b) = rules.rate_players(&stored[a].current(&ledger), &stored[b].current(&ledger), outcome).unwrap();
            for (index, state) in [(a, new_a), (b, new_b)] {
                let rating = ledger.replace(stored[index].rating(), state.rating);
                stored[index] = StoredPlayer::from_fields(PlayerState { rating: rating.to_f32(), ..state });
            }
            ledger.rebalance();
            kept = (ledger.offset(), ledger.sum().unwrap(), ledger.count());
            assert_eq!(pool.offset().to_bits(), kept.0.to_bits());
            assert_eq!(pool.ledger().sum(), Some(kept.1));
            for (i, state) in stored.iter().enumerate() {
                assert_eq!(pool.stored_player(i).unwrap(), *state, "player {i}");
            }
        }
        assert_eq!(RatingSum::from_fixed_point(kept.1.fixed_point()), kept.1);
        let states: Vec<StoredPlayer> = (0..pool.len()).map(|i| pool.stored_player(i).unwrap()).collect();
        let mut rebuilt = Pool::from_stored(rules, states, pool.offset(), pool.clock(), pool.decayed_through()).unwrap();
        assert_eq!(rebuilt, pool);
        pool.apply(&[Match::new(3, 2, Outcome::WIN)], None).unwrap();
        rebuilt.apply(&[Match::new(3, 2, Outcome::WIN)], None).unwrap();
        assert_eq!(rebuilt, pool);
        let nan = StoredPlayer::from_fields(PlayerState::new(f32::NAN));
        let bad = Pool::from_stored(crate::Rules::default(), vec![nan], 0.0, 0.0, None).unwrap_err();
        assert!(bad.to_string().contains("players[0]"), "{bad}");
        assert!(Pool::from_stored(crate::Rules::default(), Vec::new(), 1.0, 0.0, None).is_err());
    }

    #[test]
    fn a_rebase_folds_the_offset_in_and_keeps_the_total() {
        let mut ledger = ZeroSumLedger::new(Some(1000.0));
        let mut ratings: Vec<StoredRating> = [300.0, 200.0].into_iter().map(|r| ledger.join(r)).collect();
        ledger.rebalance();
        assert_eq!(ledger.offset(), 250.0);
        assert_eq!(ratings.iter().map(|r| ledger.current(*r)).collect::<Vec<_>>(), [550.0, 450.0]);
        ledger.rebase(Some(1000.0), ratings.iter_mut());
        assert_eq!((ledger.offset(), ratings[0].to_f32(), ratings[1].to_f32()), (0.0, 550.0, 450.0));
        ledger.rebalance();
        assert_eq!(ledger.current_total(ratings.iter().copied()), 1000.0);
        // Without zero-sum nothing moves, and a newcomer takes the configuration's rating.
        let mut plain = ZeroSumLedger::new(None);
        plain.join(1500.0);
        plain.rebalance();
        assert_eq!((plain.offset(), plain.joining_rating(1)), (0.0, None));
        assert!(plain.unshifted().is_some() && ledger.unshifted().is_none());
    }
}
