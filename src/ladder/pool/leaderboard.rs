//! Leaderboard queries of a pool: the best and lowest `n` with a heap of `n` entries, a
//! player's rank, and the players per league; none copies the pool.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::{Pool, StoredRating};

impl Pool {
    /// The league player `index` holds (0 = lowest; part of the player's state, see
    /// [`crate::rating::standing`]).
    #[must_use]
    pub fn league_of_player(&self, index: usize) -> Option<usize> {
        self.players.get(index).map(|p| usize::from(p.league))
    }

    /// Number of players per league held (index 0 = lowest); one entry per configured
    /// league (a single entry with everybody when no leagues are configured). O(N).
    #[must_use]
    pub fn league_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.rules.config.leagues.len().max(1)];
        for p in &self.players {
            counts[usize::from(p.league)] += 1;
        }
        counts
    }

    /// The `n` best players' indices, best first (ties: lower index first). O(N log n)
    /// with a heap of `n` entries; the pool is not copied.
    #[must_use]
    pub fn top(&self, n: usize) -> Vec<usize> {
        self.extreme(n, true)
    }

    /// The `n` lowest-rated players' indices, lowest first (ties: lower index first).
    #[must_use]
    pub fn bottom(&self, n: usize) -> Vec<usize> {
        self.extreme(n, false)
    }

    fn extreme(&self, n: usize, best: bool) -> Vec<usize> {
        // `Ranked`'s order puts the better-ranked entry first (Less); the heap keeps the
        // worst of the current n on top so it can be replaced.
        let mut heap: BinaryHeap<Ranked> = BinaryHeap::with_capacity(n.min(self.players.len()) + 1);
        if n == 0 {
            return Vec::new();
        }
        for (index, p) in self.players.iter().enumerate() {
            let entry = Ranked { rating: p.rating, index, best };
            if heap.len() < n {
                heap.push(entry);
            } else if heap.peek().is_some_and(|worst| entry < *worst) {
                heap.pop();
                heap.push(entry);
            }
        }
        heap.into_sorted_vec().into_iter().map(|r| r.index).collect()
    }

    /// Rank of player `index` (1 = best; ties: lower index ranks higher). O(N).
    #[must_use]
    pub fn rank(&self, index: usize) -> Option<usize> {
        let me = Ranked { rating: self.players.get(index)?.rating, index, best: true };
        Some(1 + self.players.iter().enumerate().filter(|(i, p)| Ranked { rating: p.rating, index: *i, best: true } < me).count())
    }
}

/// A leaderboard entry ordered so that the better-ranked entry compares as `Less`.
/// Stored ratings share one offset, so comparing them compares current ratings.
#[derive(Debug, Clone, Copy)]
struct Ranked {
    rating: StoredRating,
    index: usize,
    best: bool,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        let by_rating = if self.best { other.rating.total_cmp(&self.rating) } else { self.rating.total_cmp(&other.rating) };
        by_rating.then(self.index.cmp(&other.index))
    }
}
