//! Matchmaking: a queue of waiting players; each tick pairs players whose
//! rating difference is within both players' matchmaking distance, which widens with
//! waiting time, with a small seeded random choice among the nearest eligible opponents.
//!
//! `M(t) = min(M_0 + growth * t, M_max)` for a player who has waited `t` seconds; two
//! players may meet when `|R_A - R_B| <= min(M_A(t_A), M_B(t_B))` (each accepts the other).
//!
//! ```
//! use ranking_elo::matchmaking::{Matchmaker, MatchmakingSettings};
//!
//! let mut queue = Matchmaker::new(MatchmakingSettings::default()).unwrap();
//! queue.join(1, 1500.0, 0.0).unwrap();
//! queue.join(2, 1540.0, 0.0).unwrap();
//! queue.join(3, 2400.0, 0.0).unwrap();
//! assert_eq!(queue.tick(1.0, usize::MAX), vec![(1, 2)]);
//! assert_eq!(queue.len(), 1); // 3 waits for a closer opponent or a wider window
//! ```
//!
//! A tick costs O(n log n) for `n` waiting players (two sorts) plus a bounded scan per
//! player, never O(n²). Teams of one to 64 a side, with parties that play on one side:
//! [`teams`]. Free-for-alls of 2 to 256 entrants: [`free_for_all`].

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

pub mod free_for_all;
pub mod teams;

pub use teams::TeamMatch;

/// Settings of a [`Matchmaker`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MatchmakingSettings {
    /// `M_0`: the distance accepted right after joining.
    pub initial_distance: f64,
    /// How much the distance widens per second of waiting.
    pub growth_per_second: f64,
    /// `M_max`: the widest distance.
    pub max_distance: f64,
    /// The random choice is among at most this many nearest eligible opponents (1 = always
    /// the nearest).
    pub candidates: u32,
    /// Seed of the random choice: the same seed and the same calls give the same pairs.
    pub seed: u64,
}

impl Default for MatchmakingSettings {
    fn default() -> Self {
        Self { initial_distance: 100.0, growth_per_second: 10.0, max_distance: 400.0, candidates: 4, seed: 0 }
    }
}

/// End of the rating-order linked list.
const NONE: u32 = u32::MAX;

/// How far a scan walks in each direction before giving up on finding more candidates.
const SCAN_LIMIT: usize = 64;

/// The largest accepted `candidates`: a scan finds at most 64 opponents on each
/// side, so more could never be chosen among (and a larger value would only size buffers).
pub const MAX_CANDIDATES: u32 = 2 * SCAN_LIMIT as u32;

/// The largest accepted distance or growth per second: twice the rating range, beyond
/// which every pair of valid ratings is already within reach.
pub const MAX_DISTANCE: f64 = 2.0 * crate::error::RATING_BOUND;

/// A sort key: a primary key ordered as [`f64_key`] or [`f32_key`] make it, an id that
/// breaks ties, and the index of the item. Every order the matchmaker needs sorts these
/// triples, so the library holds one sort instead of one per comparison closure; the ids
/// of waiting players are distinct, so no two keys compare equal and any correct sort gives
/// the same order.
pub(crate) type SortKey = (u64, u64, u32);

/// A key whose unsigned order is `f64::total_cmp`'s order of `x`.
#[inline]
pub(crate) fn f64_key(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// A key whose unsigned order is `f32::total_cmp`'s order of `x`.
#[inline]
pub(crate) fn f32_key(x: f32) -> u64 {
    let bits = x.to_bits();
    u64::from(if bits >> 31 == 1 { !bits } else { bits | 1 << 31 })
}

/// The indices of `keys` (a primary key and a distinct id per item) in increasing key order.
pub(crate) fn ordered(keys: impl Iterator<Item = (u64, u64)>) -> Vec<u32> {
    let mut sorted: Vec<SortKey> = keys.enumerate().map(|(i, (key, id))| (key, id, i as u32)).collect();
    sorted.sort_unstable();
    sorted.into_iter().map(|(_, _, i)| i).collect()
}

impl MatchmakingSettings {
    /// Checks the settings.
    ///
    /// # Errors
    /// A distance or growth that is not a finite number from 0 to [`MAX_DISTANCE`],
    /// `max_distance < initial_distance`, or `candidates` outside `1..=`[`MAX_CANDIDATES`];
    /// the message names the field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (name, value) in [("initial_distance", self.initial_distance), ("growth_per_second", self.growth_per_second), ("max_distance", self.max_distance)] {
            if !(value.is_finite() && (0.0..=MAX_DISTANCE).contains(&value)) {
                return Err(ConfigError::new(name, format!("must be a finite number from 0 to {MAX_DISTANCE:e} (got {value})")));
            }
        }
        if self.max_distance < self.initial_distance {
            return Err(ConfigError::new("max_distance", "must not be below initial_distance"));
        }
        if !(1..=MAX_CANDIDATES).contains(&self.candidates) {
            return Err(ConfigError::new("candidates", format!("must be from 1 to {MAX_CANDIDATES} (got {})", self.candidates)));
        }
        Ok(())
    }

    /// The distance a player accepts after waiting `waited` seconds.
    #[must_use]
    pub fn distance(&self, waited: f64) -> f64 {
        let widened = self.initial_distance + self.growth_per_second * waited.max(0.0);
        if widened < self.max_distance {
            widened
        } else {
            self.max_distance
        }
    }
}

/// Why a player could not join.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JoinError {
    /// The id is already waiting.
    DuplicateId(u64),
    /// The rating or the time is NaN or infinite.
    NotFinite(&'static str),
    /// A party of this size cannot join (1 to [`teams::MAX_TEAM_SIZE`] players).
    PartySize(usize),
}

impl std::fmt::Display for JoinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::DuplicateId(id) => write!(f, "player {id} is already waiting"),
            Self::NotFinite(name) => write!(f, "{name} must be a finite number (not NaN or infinite)"),
            Self::PartySize(size) => write!(f, "a party has 1 to {} players (got {size})", teams::MAX_TEAM_SIZE),
        }
    }
}

impl std::error::Error for JoinError {}

#[derive(Debug, Clone, Copy)]
struct Ticket {
    id: u64,
    rating: f32,
    joined: f64,
    /// Players in the party (1 for a player alone).
    size: u32,
}

/// A matchmaking queue.
#[derive(Debug, Clone)]
pub struct Matchmaker {
    settings: MatchmakingSettings,
    rng: u64,
    waiting: Vec<Ticket>,
    position: HashMap<u64, usize>,
}

impl Matchmaker {
    /// An empty queue.
    ///
    /// # Errors
    /// Invalid settings.
    pub fn new(settings: MatchmakingSettings) -> Result<Self, ConfigError> {
        settings.validate()?;
        Ok(Self { settings, rng: settings.seed, waiting: Vec::new(), position: HashMap::new() })
    }

    /// The settings.
    #[must_use]
    pub fn settings(&self) -> &MatchmakingSettings {
        &self.settings
    }

    /// Number of waiting players.
    #[must_use]
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether nobody is waiting.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Whether `id` is waiting.
    #[must_use]
    pub fn contains(&self, id: u64) -> bool {
        self.position.contains_key(&id)
    }

    /// Puts player `id` with `rating` in the queue at time `now` (seconds, any epoch).
    ///
    /// # Errors
    /// The id is already waiting, or the rating or time is not finite.
    pub fn join(&mut self, id: u64, rating: f32, now: f64) -> Result<(), JoinError> {
        self.join_party(id, rating, 1, now)
    }

    /// Puts a party of `size` players (1 to 64) in the queue as one ticket `id`, at time
    /// `now`, with `rating` standing for the party (its players' mean rating, say). A party
    /// plays on one side: [`Matchmaker::tick_team_matches`] puts all of it in one team.
    /// Pairs ([`Matchmaker::tick`]) and free-for-alls take only tickets of one player; a
    /// party waits for a team match.
    ///
    /// # Errors
    /// The id is already waiting, the size is outside 1 to 64, or the rating or time is not
    /// finite.
    pub fn join_party(&mut self, id: u64, rating: f32, size: usize, now: f64) -> Result<(), JoinError> {
        if !(1..=teams::MAX_TEAM_SIZE).contains(&size) {
            return Err(JoinError::PartySize(size));
        }
        if !rating.is_finite() {
            return Err(JoinError::NotFinite("rating"));
        }
        if !now.is_finite() {
            return Err(JoinError::NotFinite("now"));
        }
        if self.position.contains_key(&id) {
            return Err(JoinError::DuplicateId(id));
        }
        self.position.insert(id, self.waiting.len());
        self.waiting.push(Ticket { id, rating, joined: now, size: size as u32 });
        Ok(())
    }

    /// Removes player `id` from the queue; returns whether it was waiting.
    pub fn leave(&mut self, id: u64) -> bool {
        let Some(index) = self.position.remove(&id) else {
            return false;
        };
        self.waiting.swap_remove(index);
        if let Some(moved) = self.waiting.get(index) {
            self.position.insert(moved.id, index);
        }
        true
    }

    /// Forms up to `max_pairs` pairs among the waiting players at time `now` and removes
    /// them from the queue. Players are served longest-waiting first (ties by id); each
    /// picks at random (seeded) among its nearest eligible opponents. No player appears in
    /// two pairs. Returns `(id, id)` pairs, the longer-waiting player first. Parties
    /// ([`Matchmaker::join_party`]) are left waiting.
    pub fn tick(&mut self, now: f64, max_pairs: usize) -> Vec<(u64, u64)> {
        let n = self.waiting.len();
        let mut pairs = Vec::new();
        if n < 2 || max_pairs == 0 {
            return pairs;
        }
        let tickets = &self.waiting;
        // Rating order, and a doubly linked list over it holding the unmatched players.
        let by_rating = ordered(tickets.iter().map(|t| (f32_key(t.rating), t.id)));
        let mut slot_of = vec![0u32; n];
        for (slot, &ticket) in by_rating.iter().enumerate() {
            slot_of[ticket as usize] = slot as u32;
        }
        let mut prev: Vec<u32> = (0..n as u32).map(|s| if s == 0 { NONE } else { s - 1 }).collect();
        let mut next: Vec<u32> = (0..n as u32).map(|s| if s + 1 == n as u32 { NONE } else { s + 1 }).collect();
        let mut matched = vec![false; n];
        let window: Vec<f64> = tickets.iter().map(|t| self.settings.distance(now - t.joined)).collect();

        let service = ordered(tickets.iter().map(|t| (f64_key(t.joined), t.id)));

        let limit = self.settings.candidates as usize;
        let mut candidates: Vec<SortKey> = Vec::with_capacity(2 * SCAN_LIMIT);
        for &p in &service {
            let p = p as usize;
            if matched[p] || tickets[p].size != 1 {
                continue;
            }
            let rating = f64::from(tickets[p].rating);
            candidates.clear();
            for direction in [&prev, &next] {
                let mut slot = direction[slot_of[p] as usize];
                let mut found = 0;
                let mut steps = 0;
                while slot != NONE && found < limit && steps < SCAN_LIMIT {
                    let q = by_rating[slot as usize] as usize;
                    let gap = (f64::from(tickets[q].rating) - rating).abs();
                    if gap > window[p] {
                        break; // sorted: everybody further is out of p's window too
                    }
                    if gap <= window[q] && tickets[q].size == 1 {
                        candidates.push((f64_key(gap), tickets[q].id, q as u32));
                        found += 1;
                    }
                    slot = direction[slot as usize];
                    steps += 1;
                }
            }
            if candidates.is_empty() {
                continue;
            }
            // Nearest first, ties by id.
            candidates.sort_unstable();
            candidates.truncate(limit);
            let choice = (next_random(&mut self.rng) % candidates.len() as u64) as usize;
            let q = candidates[choice].2 as usize;
            for player in [p, q] {
                matched[player] = true;
                let slot = slot_of[player] as usize;
                let (before, after) = (prev[slot], next[slot]);
                if before != NONE {
                    next[before as usize] = after;
                }
                if after != NONE {
                    prev[after as usize] = before;
                }
            }
            pairs.push((tickets[p].id, tickets[q].id));
            if pairs.len() == max_pairs {
                break;
            }
        }
        self.remove_matched(&matched);
        pairs
    }

    /// Removes the tickets flagged in `matched` (one flag per waiting ticket).
    fn remove_matched(&mut self, matched: &[bool]) {
        let mut index = 0;
        self.waiting.retain(|_| {
            let keep = !matched[index];
            index += 1;
            keep
        });
        self.position.clear();
        for (i, ticket) in self.waiting.iter().enumerate() {
            self.position.insert(ticket.id, i);
        }
    }
}

/// `SplitMix64` step: small, fast, and the same on every platform.
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(seed: u64) -> MatchmakingSettings {
        MatchmakingSettings { initial_distance: 50.0, growth_per_second: 25.0, max_distance: 300.0, candidates: 4, seed }
    }

    #[test]
    fn sort_keys_order_as_total_cmp() {
        // Edge values (zeros, infinities, NaNs of both signs and kinds, subnormals) and a
        // pseudo-random spread of bit patterns.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut doubles = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::from_bits(0x7FF0_0000_0000_0001),
        ];
        let mut floats =
            vec![0.0, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::NAN, f32::from_bits(1), f32::from_bits(0x8000_0001), f32::from_bits(0x7F80_0001)];
        for _ in 0..2000 {
            let bits = next_random(&mut state);
            doubles.push(f64::from_bits(bits));
            floats.push(f32::from_bits((bits >> 32) as u32));
        }
        for x in &doubles {
            for y in &doubles {
                assert_eq!(f64_key(*x).cmp(&f64_key(*y)), x.total_cmp(y), "{x:e} {y:e}");
            }
        }
        for x in &floats {
            for y in &floats {
                assert_eq!(f32_key(*x).cmp(&f32_key(*y)), x.total_cmp(y), "{x:e} {y:e}");
            }
        }
        assert_eq!(ordered([(3, 0), (1, 9), (1, 2), (2, 5)].into_iter()), vec![2, 1, 3, 0]);
    }

    #[test]
    fn window_widens_with_waiting_time_up_to_the_maximum() {
        let s = settings(0);
        assert_eq!(s.distance(0.0), 50.0);
        assert_eq!(s.distance(4.0), 150.0);
        assert_eq!(s.distance(1000.0), 300.0);
        let mut queue = Matchmaker::new(s).unwrap();
        queue.join(1, 1000.0, 0.0).unwrap();
        queue.join(2, 1200.0, 0.0).unwrap();
        assert!(queue.tick(1.0, usize::MAX).is_empty()); // window 75 < gap 200
        assert!(queue.tick(5.9, usize::MAX).is_empty()); // 197.5 < 200
        assert_eq!(queue.tick(6.0, usize::MAX), vec![(1, 2)]); // 200 <= 200
    }

    #[test]
    fn both_players_must_accept() {
        let mut queue = Matchmaker::new(settings(0)).unwrap();
        queue.join(1, 1000.0, 0.0).unwrap(); // waits long: window 300 at t = 20
        queue.join(2, 1200.0, 19.0).unwrap(); // just joined: window 75 at t = 20
        assert!(queue.tick(20.0, usize::MAX).is_empty());
        assert_eq!(queue.tick(25.0, usize::MAX), vec![(1, 2)]); // 50 + 6 * 25 = 200
    }

    #[test]
    fn same_seed_same_pairs_and_nobody_twice() {
        let run = |seed| {
            let mut queue = Matchmaker::new(settings(seed)).unwrap();
            for id in 0..500u64 {
                queue.join(id, 1000.0 + ((id * 7919) % 1000) as f32, (id % 10) as f64).unwrap();
            }
            queue.tick(30.0, usize::MAX)
        };
        let pairs = run(7);
        assert_eq!(pairs, run(7));
        assert_ne!(pairs, run(8));
        let mut seen = std::collections::HashSet::new();
        for (a, b) in &pairs {
            assert!(seen.insert(*a) && seen.insert(*b));
        }
        assert!(pairs.len() > 200);
    }

    #[test]
    fn join_and_leave() {
        let mut queue = Matchmaker::new(settings(0)).unwrap();
        queue.join(1, 1000.0, 0.0).unwrap();
        assert_eq!(queue.join(1, 1000.0, 0.0), Err(JoinError::DuplicateId(1)));
        assert_eq!(queue.join(2, f32::NAN, 0.0), Err(JoinError::NotFinite("rating")));
        queue.join(2, 1001.0, 0.0).unwrap();
        queue.join(3, 1002.0, 0.0).unwrap();
        assert!(queue.leave(1));
        assert!(!queue.leave(1));
        assert_eq!(queue.tick(0.0, usize::MAX), vec![(2, 3)]);
        assert!(queue.is_empty());
        assert!(Matchmaker::new(MatchmakingSettings { candidates: 0, ..settings(0) }).is_err());
        // Audit finding: i32::MAX candidates was accepted and the first tick tried to
        // allocate 64 GB. Every count that sizes a buffer is bounded now.
        let error = Matchmaker::new(MatchmakingSettings { candidates: i32::MAX as u32, ..settings(0) }).unwrap_err();
        assert!(error.to_string().starts_with("candidates: must be from 1 to 128"), "{error}");
        let mut widest = Matchmaker::new(MatchmakingSettings { candidates: MAX_CANDIDATES, ..settings(0) }).unwrap();
        widest.join(1, 1500.0, 0.0).unwrap();
        widest.join(2, 1510.0, 0.0).unwrap();
        assert_eq!(widest.tick(1.0, usize::MAX).len(), 1);
        assert!(Matchmaker::new(MatchmakingSettings { max_distance: 1e300, ..settings(0) }).is_err());
    }
}
