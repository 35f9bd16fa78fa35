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
