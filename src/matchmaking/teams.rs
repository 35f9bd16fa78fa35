//! Team matchmaking: the queue forms two balanced teams of a given size from waiting
//! players and parties, with the pair matchmaker's widening windows (docs/teams.md).
//!
//! Tickets (a player alone, or a party that plays on one side) are served longest-waiting
//! first (ties by id). For each, the nearest waiting tickets by rating that are within both
//! its window and their own, and still fit, join it until they hold `2T` players (found by
//! walking outward in rating order, at most 64 steps per needed player on each side); if
//! they do not, it waits. The tickets are then split into two teams of `T` players whose
//! mean ratings differ least, each party whole on one side: every split is tried up to 16
//! tickets, more are dealt greedily (largest parties first, then strongest, to the team with
//! the lower total that has room). A group that cannot be split into two teams of `T`
//! (parties of 2 for teams of 3) waits. Ties are broken by rating order and id, so the same
//! queue and calls give the same teams.
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
//!
//! // A party of two plays on one side.
//! queue.join_party(10, 1500.0, 2, 2.0).unwrap();
//! queue.join(11, 1520.0, 2.0).unwrap();
//! queue.join(12, 1480.0, 2.0).unwrap();
//! let teams = queue.tick_team_matches(3.0, 2, 10);
//! assert_eq!(teams[0].team_a, vec![10]);
//! assert_eq!(teams[0].team_b.len(), 2);
//! ```

use super::Matchmaker;

/// The largest team the matchmaker forms (as a team match allows), and the largest party.
pub const MAX_TEAM_SIZE: usize = crate::team::MAX_TEAM_SIZE;

/// Groups of up to this many tickets are split by trying every split.
const EXHAUSTIVE_GROUP: usize = 16;

/// Steps walked on each side per player still needed.
const STEPS_PER_PLAYER: usize = 64;

/// One team match: the tickets of each side (a party's ticket stands for all its players).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamMatch {
    /// Team A's tickets (team A holds the longest-waiting ticket, first).
    pub team_a: Vec<u64>,
    /// Team B's tickets.
    pub team_b: Vec<u64>,
}

/// What one tick works over: the waiting tickets in rating order and in service order, and
/// each ticket's window at the tick's time.
pub(super) struct Tick {
    pub(super) by_rating: Vec<usize>,
    pub(super) slot_of: Vec<usize>,
    pub(super) window: Vec<f64>,
    pub(super) service: Vec<usize>,
    pub(super) taken: Vec<bool>,
}

impl Matchmaker {
    /// The orders and windows of a tick at `now`.
    pub(super) fn tick_state(&self, now: f64) -> Tick {
        let tickets = &self.waiting;
        let n = tickets.len();
        let by_rating: Vec<usize> = super::ordered(tickets.iter().map(|t| (super::f32_key(t.rating), t.id))).into_iter().map(|i| i as usize).collect();
        let mut slot_of = vec![0usize; n];
        for (slot, &ticket) in by_rating.iter().enumerate() {
            slot_of[ticket] = slot;
        }
        let window: Vec<f64> = tickets.iter().map(|t| self.settings().distance(now - t.joined)).collect();
        let service: Vec<usize> = super::ordered(tickets.iter().map(|t| (super::f64_key(t.joined), t.id))).into_iter().map(|i| i as usize).collect();
        Tick { by_rating, slot_of, window, service, taken: vec![false; n] }
    }

    /// The tickets that join `anchor` (first) until they hold `players` players: the nearest
    /// by rating, each within the anchor's window and the anchor within its own, not taken,
    /// of at most `largest` players and fitting; `None` when they do not reach `players`.
    pub(super) fn gather(&self, tick: &Tick, anchor: usize, players: usize, largest: u32) -> Option<Vec<usize>> {
        let tickets = &self.waiting;
        let n = tickets.len();
        let rating = f64::from(tickets[anchor].rating);
        let mut members = vec![anchor];
        let mut total = tickets[anchor].size as usize;
        // Walk outward, taking the nearer eligible ticket of the two sides each time.
        let (mut left, mut right) = (tick.slot_of[anchor].checked_sub(1), Some(tick.slot_of[anchor] + 1).filter(|&s| s < n));
        let mut steps = 0;
        let budget = STEPS_PER_PLAYER * players;
        while total < players && steps < budget && (left.is_some() || right.is_some()) {
            steps += 1;
            let gap_of = |slot: Option<usize>| slot.map(|s| (f64::from(tickets[tick.by_rating[s]].rating) - rating).abs());
            let (gap_left, gap_right) = (gap_of(left), gap_of(right));
            let take_left = match (gap_left, gap_right) {
                (Some(l), Some(r)) => l <= r,
                (Some(_), None) => true,
                _ => false,
            };
            let (slot, gap) = if take_left { (left, gap_left) } else { (right, gap_right) };
            let (Some(slot), Some(gap)) = (slot, gap) else { break };
            if gap > tick.window[anchor] {
                // Sorted by rating: nobody further on either side is in the anchor's window.
                break;
            }
            let q = tick.by_rating[slot];
            let size = tickets[q].size;
            if !tick.taken[q] && gap <= tick.window[q] && size <= largest && total + size as usize <= players {
                members.push(q);
                total += size as usize;
            }
            if take_left {
                left = slot.checked_sub(1);
            } else {
                right = Some(slot + 1).filter(|&s| s < n);
            }
        }
        (total == players).then_some(members)
    }

    /// Forms up to `max_matches` matches of two teams of `team_size` (1 to 64) at time
    /// `now` and removes their tickets from the queue. Each match is returned as `2 *
    /// team_size` ids: team A's, then team B's (team A holds the longest-waiting player).
    /// `team_size` 0 or above 64 forms nothing. With parties waiting
    /// ([`Matchmaker::join_party`]) a match has fewer tickets than players: use
    /// [`Matchmaker::tick_team_matches`], which says where team A ends.
    pub fn tick_teams(&mut self, now: f64, team_size: usize, max_matches: usize) -> Vec<Vec<u64>> {
        self.tick_team_matches(now, team_size, max_matches)
            .into_iter()
            .map(|m| {
                let mut ids = m.team_a;
                ids.extend(m.team_b);
                ids
            })
            .collect()
    }

    /// Forms up to `max_matches` matches of two teams of `team_size` players (1 to 64) at
    /// time `now`, parties whole on one side, and removes their tickets from the queue.
    /// `team_size` 0 or above 64 forms nothing.
    pub fn tick_team_matches(&mut self, now: f64, team_size: usize, max_matches: usize) -> Vec<TeamMatch> {
        let mut matches = Vec::new();
        let group = 2 * team_size;
        if team_size == 0 || team_size > MAX_TEAM_SIZE || self.waiting.len() < 2 || max_matches == 0 {
            return matches;
        }
        let mut tick = self.tick_state(now);
        let tickets = &self.waiting;
        for index in 0..tick.service.len() {
            let anchor = tick.service[index];
            if tick.taken[anchor] || tickets[anchor].size as usize > team_size {
                continue;
            }
            let Some(members) = self.gather(&tick, anchor, group, team_size as u32) else { continue };
            let ratings: Vec<f64> = members.iter().map(|&m| f64::from(tickets[m].rating)).collect();
            let sizes: Vec<u32> = members.iter().map(|&m| tickets[m].size).collect();
            let Some(in_a) = balanced_split(&ratings, &sizes, team_size) else { continue };
            let side = |a: bool| members.iter().zip(&in_a).filter(|(_, &x)| x == a).map(|(&m, _)| tickets[m].id).collect();
            for &m in &members {
                tick.taken[m] = true;
            }
            matches.push(TeamMatch { team_a: side(true), team_b: side(false) });
            if matches.len() == max_matches {
                break;
            }
        }
        self.remove_matched(&tick.taken);
        matches
    }
}

/// Which of the tickets (`ratings` and party `sizes`, the anchor first) go to team A: the
/// anchor and others holding `team_size` players, with the smallest difference of team
/// totals (a party counts its rating once per player); `None` when no split gives each team
/// `team_size` players.
fn balanced_split(ratings: &[f64], sizes: &[u32], team_size: usize) -> Option<Vec<bool>> {
    let group = ratings.len();
    let weight = |i: usize| ratings[i] * f64::from(sizes[i]);
    let total: f64 = (0..group).map(weight).sum();
    if group <= EXHAUSTIVE_GROUP {
        let mut best: Option<(f64, u32)> = None;
        // Every subset with the anchor (bit 0) and team_size players, in increasing order.
        for mask in 0u32..(1 << group) {
            if mask & 1 == 0 || (0..group).filter(|i| mask & (1 << i) != 0).map(|i| sizes[i] as usize).sum::<usize>() != team_size {
                continue;
            }
            let sum_a: f64 = (0..group).filter(|i| mask & (1 << i) != 0).map(weight).sum();
            let difference = (2.0 * sum_a - total).abs();
            if best.is_none_or(|(least, _)| difference < least) {
                best = Some((difference, mask));
            }
        }
        return best.map(|(_, mask)| (0..group).map(|i| mask & (1 << i) != 0).collect());
    }
    // Greedy: largest parties first, then strongest (ties by position), each to the team
    // with the lower total that still has room (the anchor's team is team A).
    let mut order: Vec<(u32, u64, usize)> = (1..group).map(|i| (u32::MAX - sizes[i], !super::f64_key(ratings[i]), i)).collect();
    order.sort_unstable();
    let (mut in_a, mut sums, mut players) = (vec![false; group], [0.0f64; 2], [0usize; 2]);
    in_a[0] = true;
    sums[0] = weight(0);
    players[0] = sizes[0] as usize;
    for &(_, _, i) in &order {
        let size = sizes[i] as usize;
        let fits = [players[0] + size <= team_size, players[1] + size <= team_size];
        let team = match fits {
            [true, true] => usize::from(sums[0] > sums[1]),
            [true, false] => 0,
            [false, true] => 1,
            [false, false] => return None,
        };
        in_a[i] = team == 0;
        sums[team] += weight(i);
        players[team] += size;
    }
    Some(in_a)
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
        let in_a = balanced_split(&ratings, &[1; 40], 20).unwrap();
        assert_eq!(in_a.iter().filter(|&&a| a).count(), 20);
        assert!(in_a[0]);
        let sum_a: f64 = ratings.iter().zip(&in_a).filter(|(_, &a)| a).map(|(r, _)| r).sum();
        let total: f64 = ratings.iter().sum();
        assert!((2.0 * sum_a - total).abs() <= 60.0, "{}", 2.0 * sum_a - total);
    }

    #[test]
    fn parties_play_on_one_side() {
        let settings = MatchmakingSettings { initial_distance: 300.0, growth_per_second: 0.0, max_distance: 300.0, candidates: 4, seed: 0 };
        let mut queue = Matchmaker::new(settings).unwrap();
        queue.join_party(1, 1600.0, 2, 0.0).unwrap(); // a strong pair
        queue.join(2, 1650.0, 1.0).unwrap();
        queue.join(3, 1500.0, 2.0).unwrap();
        queue.join(4, 1550.0, 3.0).unwrap();
        queue.join_party(5, 1400.0, 3, 4.0).unwrap(); // too big for teams of 2
        assert_eq!(queue.join_party(6, 1500.0, 65, 0.0), Err(crate::matchmaking::JoinError::PartySize(65)));
        assert_eq!(queue.join_party(6, 1500.0, 0, 0.0), Err(crate::matchmaking::JoinError::PartySize(0)));
        let matches = queue.tick_team_matches(10.0, 2, 10);
        assert_eq!(matches, vec![TeamMatch { team_a: vec![1], team_b: vec![4, 2] }], "the party (3,200) against 1550 + 1650");
        assert!(queue.contains(3) && queue.contains(5));
        // Parties of 2 cannot make teams of 3 with nobody alone.
        let mut twos = Matchmaker::new(settings).unwrap();
        for id in 0..3 {
            twos.join_party(id, 1500.0, 2, 0.0).unwrap();
        }
        assert!(twos.tick_team_matches(1.0, 3, 10).is_empty());
        twos.join(9, 1500.0, 0.0).unwrap();
        twos.join(10, 1500.0, 0.0).unwrap();
        let formed = twos.tick_team_matches(1.0, 3, 10);
        assert_eq!(formed.len(), 1);
        assert_eq!(formed[0].team_a.len() + formed[0].team_b.len(), 4, "{formed:?}");
    }

    #[test]
    fn greedy_split_keeps_parties_whole_or_gives_up() {
        // 18 tickets: 3 parties of 3 and 15 players alone, teams of 12.
        let ratings: Vec<f64> = (0..18).map(|i| 1500.0 + f64::from(i) * 5.0).collect();
        let sizes: Vec<u32> = (0..18).map(|i| if i < 3 { 3 } else { 1 }).collect();
        let in_a = balanced_split(&ratings, &sizes, 12).unwrap();
        let players_a: u32 = sizes.iter().zip(&in_a).filter(|(_, &a)| a).map(|(s, _)| s).sum();
        assert_eq!(players_a, 12);
        assert!(in_a[0]);
        // Parties of 4 and 4 and 4, and 18 alone, teams of 15: 12 in parties; the greedy
        // puts two parties on one side and one on the other, then fills.
        let sizes: Vec<u32> = (0..21).map(|i| if i < 3 { 4 } else { 1 }).collect();
        let ratings = vec![1500.0; 21];
        assert!(balanced_split(&ratings, &sizes, 15).is_some());
        // Three parties of 4 for teams of 6: no split.
        assert!(balanced_split(&[1500.0; 3], &[4, 4, 4], 6).is_none());
    }
}
