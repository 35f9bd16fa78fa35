//! Team matchmaking: the queue forms two balanced teams of a given size from waiting
//! players, with the pair matchmaker's widening windows (docs/teams.md).
//!
//! Players are served longest-waiting first (ties by id). For each, the `2T - 1` nearest
//! waiting players by rating that are within both its window and their own (found by
//! walking outward in rating order, at most 64 steps per needed player on each side) join
//! it; if there are not enough, it waits. The `2T` players are then split into two teams of
//! `T` whose mean ratings differ least: every split is tried up to `2T = 16`, larger groups
//! are dealt greedily (strongest first, to the team with the lower total). Ties are broken
//! by rating order and id, so the same queue and calls give the same teams.
//!
//! ```
//! use ranking_elo::matchmaking::{Matchmaker, MatchmakingSettings};
//!
//! let mut queue = Matchmaker::new(MatchmakingSettings::default()).unwrap();
//! for (id, rating) in [(1, 1500.0), (2, 1510.0), (3, 1490.0), (4, 1505.0)] {
//!     queue.join(id, rating, 0.0).unwrap();
//! }
//! let matches = queue.tick_teams(1.0, 2, 10);
//! assert_eq!(matches.len(), 1);
//! assert_eq!(matches[0].len(), 4); // team A's ids, then team B's
//! ```

use super::Matchmaker;

/// The largest team the matchmaker forms (as a team match allows).
pub const MAX_TEAM_SIZE: usize = crate::team::MAX_TEAM_SIZE;

/// Groups up to this size are split by trying every split.
const EXHAUSTIVE_GROUP: usize = 16;

/// Steps walked on each side per player still needed.
const STEPS_PER_PLAYER: usize = 64;

impl Matchmaker {
    /// Forms up to `max_matches` matches of two teams of `team_size` (1 to 64) at time
    /// `now` and removes their players from the queue. Each match is returned as `2 *
    /// team_size` ids: team A's, then team B's (team A holds the longest-waiting player).
    /// `team_size` 0 or above 64 forms nothing.
    pub fn tick_teams(&mut self, now: f64, team_size: usize, max_matches: usize) -> Vec<Vec<u64>> {
        let mut matches = Vec::new();
        let n = self.waiting.len();
        let group = 2 * team_size;
        if team_size == 0 || team_size > MAX_TEAM_SIZE || n < group || max_matches == 0 {
            return matches;
        }
        let tickets = &self.waiting;
        let by_rating: Vec<usize> = super::ordered(tickets.iter().map(|t| (super::f32_key(t.rating), t.id))).into_iter().map(|i| i as usize).collect();
        let mut slot_of = vec![0usize; n];
        for (slot, &ticket) in by_rating.iter().enumerate() {
            slot_of[ticket] = slot;
        }
        let window: Vec<f64> = tickets.iter().map(|t| self.settings().distance(now - t.joined)).collect();
        let service: Vec<usize> = super::ordered(tickets.iter().map(|t| (super::f64_key(t.joined), t.id))).into_iter().map(|i| i as usize).collect();
        let mut taken = vec![false; n];
        let mut members: Vec<usize> = Vec::with_capacity(group);
        for &anchor in &service {
            if taken[anchor] {
                continue;
            }
            let rating = f64::from(tickets[anchor].rating);
            members.clear();
            members.push(anchor);
            // Walk outward, taking the nearer eligible player of the two sides each time.
            let (mut left, mut right) = (slot_of[anchor].checked_sub(1), Some(slot_of[anchor] + 1).filter(|&s| s < n));
            let mut steps = 0;
            let budget = STEPS_PER_PLAYER * group;
            while members.len() < group && steps < budget && (left.is_some() || right.is_some()) {
                steps += 1;
                let gap_of = |slot: Option<usize>| slot.map(|s| (f64::from(tickets[by_rating[s]].rating) - rating).abs());
                let (gap_left, gap_right) = (gap_of(left), gap_of(right));
                let take_left = match (gap_left, gap_right) {
                    (Some(l), Some(r)) => l <= r,
                    (Some(_), None) => true,
                    _ => false,
                };
                let (slot, gap) = if take_left { (left, gap_left) } else { (right, gap_right) };
                let (Some(slot), Some(gap)) = (slot, gap) else { break };
                if gap > window[anchor] {
                    // Sorted by rating: nobody further on either side is in the anchor's window.
                    break;
                }
                let q = by_rating[slot];
                if !taken[q] && gap <= window[q] {
                    members.push(q);
                }
                if take_left {
                    left = slot.checked_sub(1);
                } else {
                    right = Some(slot + 1).filter(|&s| s < n);
                }
            }
            if members.len() < group {
                continue;
            }
            let ratings: Vec<f64> = members.iter().map(|&m| f64::from(tickets[m].rating)).collect();
            let in_a = balanced_split(&ratings, team_size);
            let mut ids: Vec<u64> = members.iter().zip(&in_a).filter(|(_, &a)| a).map(|(&m, _)| tickets[m].id).collect();
            ids.extend(members.iter().zip(&in_a).filter(|(_, &a)| !a).map(|(&m, _)| tickets[m].id));
            for &m in &members {
                taken[m] = true;
            }
            matches.push(ids);
            if matches.len() == max_matches {
                break;
            }
        }
        self.remove_matched(&taken);
        matches
    }
}

/// Which of `ratings` (the anchor first) go to team A: `team_size` of them, the anchor
/// among them, with the smallest difference of team totals.
fn balanced_split(ratings: &[f64], team_size: usize) -> Vec<bool> {
    let group = ratings.len();
    let total: f64 = ratings.iter().sum();
    if group <= EXHAUSTIVE_GROUP {
        let mut best = (f64::INFINITY, 0u32);
        // Every subset with the anchor (bit 0) and team_size members, in increasing order.
        for mask in 0u32..(1 << group) {
            if mask & 1 == 0 || mask.count_ones() as usize != team_size {
                continue;
            }
            let sum_a: f64 = (0..group).filter(|i| mask & (1 << i) != 0).map(|i| ratings[i]).sum();
            let difference = (2.0 * sum_a - total).abs();
            if difference < best.0 {
                best = (difference, mask);
            }
        }
        return (0..group).map(|i| best.1 & (1 << i) != 0).collect();
    }
    // Greedy: strongest first, each to the team with the lower total that still has room
    // (the anchor's team is team A).
    // Highest rating first, ties by position (the key's order reversed, the index as the id).
    let order: Vec<usize> = super::ordered(ratings.iter().enumerate().map(|(i, &r)| (!super::f64_key(r), i as u64))).into_iter().map(|i| i as usize).collect();
    let (mut in_a, mut sums, mut sizes) = (vec![false; group], [0.0f64; 2], [0usize; 2]);
    in_a[0] = true;
    sums[0] = ratings[0];
    sizes[0] = 1;
    for &i in order.iter().filter(|&&i| i != 0) {
        // Team 1 when team 0 is full, team 0 when team 1 is full or team 0 is weaker.
        #[allow(clippy::bool_to_int_with_if, reason = "the three cases read as the rule they are")]
        let team = if sizes[0] == team_size {
            1
        } else if sizes[1] == team_size || sums[0] <= sums[1] {
            0
        } else {
            1
        };
        in_a[i] = team == 0;
        sums[team] += ratings[i];
        sizes[team] += 1;
    }
    in_a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchmaking::MatchmakingSettings;

    #[test]
    fn teams_are_balanced_within_windows_and_deterministic() {
        let settings = MatchmakingSettings { initial_distance: 200.0, growth_per_second: 0.0, max_distance: 200.0, candidates: 4, seed: 3 };
        let mut queue = Matchmaker::new(settings).unwrap();
        for (id, rating) in [(1u64, 1500.0f32), (2, 1600.0), (3, 1450.0), (4, 1550.0), (5, 1620.0), (6, 1480.0), (7, 3000.0)] {
            queue.join(id, rating, f64::from(id as u32)).unwrap();
        }
        let again = queue.clone();
        let matches = queue.tick_teams(10.0, 3, 10);
        assert_eq!(matches.len(), 1, "7 cannot play: nobody within 200");
        let ids = &matches[0];
        assert_eq!(ids.len(), 6);
        assert_eq!(ids[0], 1, "the longest-waiting player is in team A");
        let rating = |id: u64| [0.0, 1500.0, 1600.0, 1450.0, 1550.0, 1620.0, 1480.0][id as usize];
        let (a, b): (f64, f64) = (ids[..3].iter().map(|&i| rating(i)).sum(), ids[3..].iter().map(|&i| rating(i)).sum());
        assert!((a - b).abs() <= 20.0, "balanced: {a} vs {b} ({ids:?})");
        assert_eq!(queue.len(), 1);
        assert_eq!(again.clone().tick_teams(10.0, 3, 10), matches, "same queue, same teams");
        assert!(again.clone().tick_teams(10.0, 0, 10).is_empty());
        assert!(again.clone().tick_teams(10.0, 65, 10).is_empty());
    }

    #[test]
    fn large_groups_are_dealt_greedily() {
        let ratings: Vec<f64> = (0..40).map(|i| 1500.0 + f64::from(i) * 3.0).collect();
        let in_a = balanced_split(&ratings, 20);
        assert_eq!(in_a.iter().filter(|&&a| a).count(), 20);
        assert!(in_a[0]);
        let sum_a: f64 = ratings.iter().zip(&in_a).filter(|(_, &a)| a).map(|(r, _)| r).sum();
        let total: f64 = ratings.iter().sum();
        assert!((2.0 * sum_a - total).abs() <= 60.0, "{}", 2.0 * sum_a - total);
    }
}
