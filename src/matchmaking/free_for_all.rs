//! Free-for-all matchmaking: the queue forms matches of a given number of entrants from
//! waiting players, with the pair matchmaker's widening windows.
//!
//! Players are served longest-waiting first (ties by id). For each (the anchor), the
//! `N - 1` nearest waiting players by rating that are within both the anchor's window and
//! their own join it, as for teams (so two entrants may be up to twice a window apart; found
//! by walking outward in rating order, at most 64 steps per needed player on each side); if
//! there are not enough, it waits. Parties ([`Matchmaker::join_party`]) are left waiting: a
//! free-for-all has no sides. The same queue and calls give the same matches.
//!
//! ```
//! use ranking_elo::matchmaking::{Matchmaker, MatchmakingSettings};
//!
//! let mut queue = Matchmaker::new(MatchmakingSettings::default()).unwrap();
//! for (id, rating) in [(1, 1500.0), (2, 1510.0), (3, 1490.0), (4, 2400.0)] {
//!     queue.join(id, rating, 0.0).unwrap();
//! }
//! // 1 waited longest; 3 and 2 are as near (a tie goes to the lower rating).
//! assert_eq!(queue.tick_free_for_all(1.0, 3, 10), vec![vec![1, 3, 2]]);
//! assert_eq!(queue.len(), 1); // 4 waits for players near 2400
//! ```

use super::Matchmaker;

/// The numbers of entrants a free-for-all match may have (as the engine rates them).
pub const ENTRANTS: std::ops::RangeInclusive<usize> = crate::placement::ENTRANTS;

impl Matchmaker {
    /// Forms up to `max_matches` free-for-all matches of `entrants` players (2 to 256) at
    /// time `now` and removes their players from the queue. Each match lists its ids
    /// nearest first: the longest-waiting player, then the others in the order they were
    /// found (by rating distance from it). `entrants` outside 2 to 256 forms nothing.
    pub fn tick_free_for_all(&mut self, now: f64, entrants: usize, max_matches: usize) -> Vec<Vec<u64>> {
        let mut matches = Vec::new();
        if !ENTRANTS.contains(&entrants) || self.waiting.len() < entrants || max_matches == 0 {
            return matches;
        }
        let mut tick = self.tick_state(now);
        for index in 0..tick.service.len() {
            let anchor = tick.service[index];
            if tick.taken[anchor] || self.waiting[anchor].size != 1 {
                continue;
            }
            let Some(members) = self.gather(&tick, anchor, entrants, 1) else { continue };
            for &m in &members {
                tick.taken[m] = true;
            }
            matches.push(members.iter().map(|&m| self.waiting[m].id).collect());
            if matches.len() == max_matches {
                break;
            }
        }
        self.remove_matched(&tick.taken);
        matches
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchmaking::MatchmakingSettings;

    fn settings() -> MatchmakingSettings {
        MatchmakingSettings { initial_distance: 50.0, growth_per_second: 10.0, max_distance: 300.0, candidates: 4, seed: 1 }
    }

    #[test]
    fn entrants_are_within_each_others_windows() {
        let mut queue = Matchmaker::new(settings()).unwrap();
        // 1 waited 20 s (window 250); 5 has just joined (window 50): 5 is 120 from 1.
        queue.join(1, 1500.0, 0.0).unwrap();
        queue.join(2, 1530.0, 10.0).unwrap(); // window 150
        queue.join(3, 1460.0, 10.0).unwrap();
        queue.join(4, 1700.0, 0.0).unwrap(); // 200 from 1: within 1's window, not within 2's
        queue.join(5, 1620.0, 20.0).unwrap();
        let mut twin = queue.clone();
        // The anchor's window and each entrant's own decide (as for teams): 4 is 200 from 1
        // (both windows 250), 5 is 120 from 1 but its own window is 50.
        assert_eq!(queue.clone().tick_free_for_all(20.0, 4, 10), vec![vec![1, 2, 3, 4]]);
        assert!(queue.clone().tick_free_for_all(20.0, 5, 10).is_empty(), "5 is too far for its own window");
        assert_eq!(queue.tick_free_for_all(20.0, 3, 10), vec![vec![1, 2, 3]]);
        assert_eq!(queue.len(), 2);
        assert_eq!(twin.tick_free_for_all(20.0, 3, 10), vec![vec![1, 2, 3]], "deterministic");
        // 4 and 5: 80 apart; 5's window reaches 80 after 3 s.
        assert!(queue.tick_free_for_all(22.0, 2, 10).is_empty());
        assert_eq!(queue.tick_free_for_all(23.0, 2, 10), vec![vec![4, 5]]);
    }

    #[test]
    fn parties_wait_and_bad_sizes_form_nothing() {
        let mut queue = Matchmaker::new(settings()).unwrap();
        queue.join_party(1, 1500.0, 2, 0.0).unwrap();
        queue.join(2, 1500.0, 0.0).unwrap();
        queue.join(3, 1500.0, 0.0).unwrap();
        assert!(queue.clone().tick_free_for_all(1.0, 1, 10).is_empty());
        assert!(queue.clone().tick_free_for_all(1.0, 257, 10).is_empty());
        assert_eq!(queue.tick_free_for_all(1.0, 2, 10), vec![vec![2, 3]]);
        assert!(queue.contains(1));
        assert!(queue.tick(5.0, 10).is_empty(), "a party is not paired");
    }

    #[test]
    fn large_fields_fill_from_a_big_queue() {
        let mut queue = Matchmaker::new(MatchmakingSettings { max_distance: 2000.0, initial_distance: 2000.0, ..settings() }).unwrap();
        for id in 0..1000u64 {
            queue.join(id, 1000.0 + ((id * 7919) % 1000) as f32, 0.0).unwrap();
        }
        let matches = queue.tick_free_for_all(1.0, 100, usize::MAX);
        assert_eq!(matches.len(), 10);
        let mut seen = std::collections::HashSet::new();
        assert!(matches.iter().flatten().all(|id| seen.insert(*id)), "nobody twice");
        assert!(queue.is_empty());
    }
}
