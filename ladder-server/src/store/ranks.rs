//! Exact ranks at any depth, from bucket counts (`rank_buckets`, migration 0003; see
//! docs/ladder-server.md, "Ranks"). Each ladder's players are counted per bucket of stored
//! rating at two widths: fine buckets of a quarter point (`floor(rating * 4)`) and coarse
//! buckets of sixteen points (`floor(rating / 16)`, 64 fine buckets each). Database triggers
//! keep the counts in the transaction that writes a rating; bulk writes (a season end,
//! decay, a rebuild) recount their ladder once.
//!
//! A player's rank is one plus the players above: those of the coarse buckets above theirs,
//! of the fine buckets above theirs within their coarse bucket, and, within their own fine
//! bucket, those with a higher rating or the same rating and a lower id (an index count over
//! one quarter point). So a rank costs a few hundred bucket rows and one short index range,
//! whatever the ladder's size; the page at offset M walks the same counts down to the fine
//! bucket holding M and skips within it. Stored ratings order players as current ratings
//! do (a zero-sum offset moves every player alike), so the counts stay valid when the
//! offset moves.

/// Fine buckets per rating point.
const FINE_PER_POINT: f64 = 4.0;

/// Rating points per coarse bucket.
const COARSE_WIDTH: f64 = 16.0;

/// Fine buckets per coarse bucket.
pub const FINE_PER_COARSE: i64 = 64;

/// A stored rating's buckets: `(fine, coarse)`, as the triggers compute them.
#[must_use]
#[allow(clippy::cast_possible_truncation)]
pub fn buckets(rating: f32) -> (i64, i64) {
    let rating = f64::from(rating);
    ((rating * FINE_PER_POINT).floor() as i64, (rating / COARSE_WIDTH).floor() as i64)
}

/// Changes to the bucket counts, by `(ladder, level, bucket)` in key order.
#[derive(Debug, Default)]
pub struct BucketDeltas(std::collections::BTreeMap<(i64, i16, i64), i64>);

/// Where a player is counted: the stored rating, and whether the player is provisional
/// (counted in levels 2 and 3 too).
pub type Counted = (f32, bool);

impl BucketDeltas {
    /// A player of `ladder` who went from `before` to `after`.
    pub fn moved(&mut self, ladder: i64, before: Counted, after: Counted) {
        self.add(ladder, before, -1);
        self.add(ladder, after, 1);
    }

    /// A new player of `ladder`.
    pub fn joined(&mut self, ladder: i64, counted: Counted) {
        self.add(ladder, counted, 1);
    }

    fn add(&mut self, ladder: i64, (rating, provisional): Counted, delta: i64) {
        let (fine, coarse) = buckets(rating);
        *self.0.entry((ladder, 0, fine)).or_insert(0) += delta;
        *self.0.entry((ladder, 1, coarse)).or_insert(0) += delta;
        if provisional {
            *self.0.entry((ladder, 2, fine)).or_insert(0) += delta;
            *self.0.entry((ladder, 3, coarse)).or_insert(0) += delta;
        }
    }

    /// The changes that are not zero, as columns (ladders, levels, buckets, deltas), in key
    /// order.
    #[must_use]
    pub fn columns(&self) -> (Vec<i64>, Vec<i16>, Vec<i64>, Vec<i64>) {
        let mut columns = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (&(ladder, level, bucket), &delta) in self.0.iter().filter(|(_, delta)| **delta != 0) {
            columns.0.push(ladder);
            columns.1.push(level);
            columns.2.push(bucket);
            columns.3.push(delta);
        }
        columns
    }
}

/// The lowest rating above fine bucket `fine` (exact in `f32` for any bucket a finite `f32`
/// rating has: the bucket times a power of two).
#[must_use]
#[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
pub fn fine_top(fine: i64) -> f32 {
    ((fine + 1) as f64 / FINE_PER_POINT) as f32
}

/// Where the player at 0-based position `position` is, walking `counts` (buckets best
/// first, with their player counts) from `before` players above the first: the bucket and
/// the players above it. `None` when the buckets end first.
#[must_use]
pub fn walk(counts: impl IntoIterator<Item = (i64, i64)>, position: i64, before: i64) -> Option<(i64, i64)> {
    let mut before = before;
    for (bucket, count) in counts {
        if position < before + count {
            return Some((bucket, before));
        }
        before += count;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{buckets, fine_top, walk};

    #[test]
    fn buckets_floor_for_every_sign() {
        assert_eq!(buckets(1500.0), (6000, 93));
        assert_eq!(buckets(1500.2), (6000, 93));
        assert_eq!(buckets(1500.25), (6001, 93));
        assert_eq!(buckets(-0.1), (-1, -1));
        assert_eq!(buckets(-16.0), (-64, -1));
        assert_eq!(buckets(-16.01), (-65, -2));
        // A fine bucket lies inside its coarse one.
        for rating in [-1000.3_f32, -0.25, 0.0, 15.99, 16.0, 1234.56, 3999.9] {
            let (fine, coarse) = buckets(rating);
            assert_eq!(fine.div_euclid(super::FINE_PER_COARSE), coarse, "{rating}");
            assert!(rating < fine_top(fine) && f64::from(fine_top(fine)) - 0.25 <= f64::from(rating), "{rating}");
        }
    }

    #[test]
    fn bucket_deltas_net_out_in_key_order() {
        let mut deltas = super::BucketDeltas::default();
        deltas.moved(2, (1500.0, false), (1500.1, false)); // same buckets: nothing
        deltas.moved(1, (1500.0, false), (1516.0, false)); // fine 6000 -> 6064, coarse 93 -> 94
        deltas.joined(1, (1500.0, false)); // back into 6000 and 93
        deltas.joined(1, (-0.1, false));
        let (ladders, levels, numbers, changes) = deltas.columns();
        assert_eq!(ladders, vec![1, 1, 1, 1]);
        assert_eq!(levels, vec![0, 0, 1, 1]);
        assert_eq!(numbers, vec![-1, 6064, -1, 94]);
        assert_eq!(changes, vec![1, 1, 1, 1]);
        // A provisional player is counted in levels 2 and 3 too; settling leaves them.
        let mut deltas = super::BucketDeltas::default();
        deltas.joined(3, (1500.0, true));
        deltas.moved(3, (1500.0, true), (1500.1, false));
        let (_, levels, numbers, changes) = deltas.columns();
        assert_eq!((levels, numbers, changes), (vec![0, 1], vec![6000, 93], vec![1, 1]));
    }

    #[test]
    fn the_walk_finds_the_bucket_holding_a_position() {
        let counts = [(10, 3), (9, 0), (8, 2), (7, 5)];
        assert_eq!(walk(counts, 0, 0), Some((10, 0)));
        assert_eq!(walk(counts, 2, 0), Some((10, 0)));
        assert_eq!(walk(counts, 3, 0), Some((8, 3)));
        assert_eq!(walk(counts, 5, 0), Some((7, 5)));
        assert_eq!(walk(counts, 9, 0), Some((7, 5)));
        assert_eq!(walk(counts, 10, 0), None);
        assert_eq!(walk(counts, 103, 100), Some((8, 103)));
    }
}
