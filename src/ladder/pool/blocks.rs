//! The block applier: a list of pair matches applied to a pool without zero-sum offset, in
//! blocks of matches whose players are all different, each block's expected scores
//! computed in one vectorized loop (`crate::kernel`); and the prefetching of the players
//! of matches applied one at a time.

use super::stored::{Hot, PlayedNow};
use super::{record, report, Match, MatchOutputs};
use crate::config::Rules;
use crate::ladder::zero_sum::Unshifted;
use crate::outcome::Outcome;
use crate::player::PlayerState;

/// How many matches ahead the one-at-a-time path prefetches players.
pub(super) const PREFETCH_DISTANCE: usize = 8;

/// Hints the processor to load player `index`'s record into the cache (an index out of
/// range is ignored; nothing is read, so results cannot change).
#[inline(always)]
pub(super) fn prefetch(players: &[Hot], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(record) = players.get(index) {
        // SAFETY: a prefetch never faults and reads nothing the program sees; the pointer
        // is to a live element.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(std::ptr::from_ref(record).cast()) };
    }
    #[cfg(target_arch = "aarch64")]
    if let Some(record) = players.get(index) {
        // SAFETY: PRFM is a hint: it never faults and changes no register or memory.
        unsafe { std::arch::asm!("prfm pldl1keep, [{0}]", in(reg) std::ptr::from_ref(record), options(nostack, readonly, preserves_flags)) };
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = (players, index);
}

/// See [`super::Pool::apply_blocks`].
pub(super) fn apply_blocks(rules: &Rules, players: &mut [Hot], played_now: &mut PlayedNow, unshifted: Unshifted, matches: &[Match], outputs: &mut MatchOutputs<'_>) {
    const BLOCK: usize = 32;
    let isa = crate::kernel::Isa::best();
    let (mut a_ratings, mut b_ratings, mut expected) = ([0.0f32; BLOCK], [0.0f32; BLOCK], [0.0f64; BLOCK]);
    let mut seen = BlockSet::new();
    let simple = SimplePlan::new(rules);
    let wants_outputs = outputs.delta_a.is_some() || outputs.delta_b.is_some() || outputs.expected_a.is_some();
    let mut start = 0;
    while start < matches.len() {
        seen.clear();
        let mut len = 0;
        // Only the ratings here: few instructions per player keep many cache misses in
        // flight at once; the rest of each record is on the same (now cached) line.
        while len < BLOCK && start + len < matches.len() {
            let m = &matches[start + len];
            if !seen.insert_pair(m.a, m.b) {
                break;
            }
            a_ratings[len] = unshifted.current(players[m.a].rating);
            b_ratings[len] = unshifted.current(players[m.b].rating);
            len += 1;
        }
        crate::kernel::expected_into(isa, &rules.expectation, &a_ratings[..len], &b_ratings[..len], &mut expected[..len]);
        for j in 0..len {
            let m = &matches[start + j];
            // No other match of the block touches these two players: their records are
            // as they were when the ratings were read.
            let a = players[m.a].game_state(a_ratings[j]);
            let b = players[m.b].game_state(b_ratings[j]);
            let (new_a, new_b) = match simple {
                Some(plan) => plan.rate_players(rules, &a, &b, m.outcome, expected[j]),
                None => rules.rate_players_expected(&a, &b, m.outcome, expected[j]),
            };
            players[m.a] = Hot::of(&new_a, unshifted.stored(new_a.rating));
            players[m.b] = Hot::of(&new_b, unshifted.stored(new_b.rating));
            played_now.mark(m.a);
            played_now.mark(m.b);
            report(outputs.events.as_deref_mut(), start + j, m.a, a.league, new_a.league);
            report(outputs.events.as_deref_mut(), start + j, m.b, b.league, new_b.league);
            if wants_outputs {
                let e = expected[j];
                record(outputs, start + j, [a.rating, b.rating, new_a.rating, new_b.rating], || e);
            }
        }
        start += len;
    }
}

/// The loop-invariant parameters of the common configuration (a constant K, no streak
/// penalty, no league bonuses), taken out of the per-match work. It calls the same
/// formula as [`Rules::rate_players_expected`] with the values that function would look up
/// for every match, so the results are the same bits (tested by
/// `block_application_equals_match_by_match`).
#[derive(Clone, Copy)]
struct SimplePlan {
    side: crate::update::SideTerms,
    rounding: crate::config::RoundingRule,
    floor: f64,
}

impl SimplePlan {
    fn new(rules: &Rules) -> Option<Self> {
        let config = &rules.config;
        let crate::kpolicy::KPolicy::Constant { k } = config.k_policy else {
            return None;
        };
        if config.streak_alpha != 0.0 || rules.league_bonuses {
            return None;
        }
        // Equal K: per-player and average combination both give K.
        let side = crate::update::SideTerms { k, score_share_bonus: config.score_share_bonus, victory_bonus: config.victory_bonus };
        Some(Self { side, rounding: rules.rounding_rule(), floor: rules.floor })
    }

    #[inline(always)]
    fn rate_players(&self, rules: &Rules, a: &PlayerState, b: &PlayerState, outcome: Outcome, expected_a: f64) -> (PlayerState, PlayerState) {
        let expected = rules.expectation.pair_from_a(expected_a, f64::from(a.rating), f64::from(b.rating));
        let (rating_a, rating_b) = crate::update::rate_with_expected(expected, self.rounding, self.floor, a.rating, b.rating, outcome, self.side, self.side, 1.0);
        (rules.finish_game(a, rating_a, outcome.a_won()), rules.finish_game(b, rating_b, outcome.b_won()))
    }
}

/// The players of one block, as a 512-bit filter: branch-free tests. A false positive only
/// ends a block early, which changes no result.
struct BlockSet {
    bits: [u64; 8],
}

impl BlockSet {
    fn new() -> Self {
        Self { bits: [0; 8] }
    }

    fn clear(&mut self) {
        self.bits = [0; 8];
    }

    #[inline(always)]
    fn slot(id: usize) -> (usize, u64) {
        let hash = (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 55; // 9 bits
        ((hash >> 6) as usize, 1u64 << (hash & 63))
    }

    /// Adds both players unless one of them may already be in the block.
    #[inline(always)]
    fn insert_pair(&mut self, a: usize, b: usize) -> bool {
        let ((word_a, bit_a), (word_b, bit_b)) = (Self::slot(a), Self::slot(b));
        if (self.bits[word_a] & bit_a) | (self.bits[word_b] & bit_b) != 0 {
            return false;
        }
        self.bits[word_a] |= bit_a;
        self.bits[word_b] |= bit_b;
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::outcome::Outcome;
    use crate::pool::{Match, MatchOutputs, Pool};

    /// Blocks (players repeated often, so blocks split) give exactly the results of rating
    /// the same matches one by one, for every expectation model and a state-dependent K.
    #[test]
    fn block_application_equals_match_by_match() {
        let configs = [
            "{}",
            r#"{"k_policy":{"policy":"fide"},"streak_alpha":0.3,"rounding":"truncate","min_rating":1400}"#,
            r#"{"expected_score":{"model":"normal"},"victory_bonus":1,"leagues":[{"name":"A","min_rating":0,"k":30,"victory_bonus":3},{"name":"B","min_rating":1500,"k":10}],"k_policy":{"policy":"league"}}"#,
            r#"{"expected_score":{"model":"linear","k":0.002},"k_combine":"average"}"#,
        ];
        let mut seed = 77u64;
        let mut next = move |n: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) as usize) % n
        };
        let matches: Vec<Match> = (0..5000)
            .map(|_| {
                let a = next(40);
                let b = (a + 1 + next(39)) % 40;
                let outcome = [Outcome::WIN, Outcome::LOSS, Outcome::DRAW, Outcome::from_points(3.0, 2.0).unwrap()][next(4)];
                Match::new(a, b, outcome)
            })
            .collect();
        for json in configs {
            let rules = Config::from_json(json).unwrap();
            let mut blocks = Pool::new(rules.clone());
            blocks.add_players(40);
            let mut expected = vec![0.0f32; matches.len()];
            let mut delta_a = vec![0.0f32; matches.len()];
            blocks.apply(&matches, Some(MatchOutputs { expected_a: Some(&mut expected), delta_a: Some(&mut delta_a), ..MatchOutputs::default() })).unwrap();
            let mut states = vec![rules.new_player(); 40];
            for (i, m) in matches.iter().enumerate() {
                let e = rules.expected_score(states[m.a].rating, states[m.b].rating) as f32;
                assert_eq!(expected[i].to_bits(), e.to_bits(), "{json}: expected score of match {i}");
                let (a, b) = rules.rate_players(&states[m.a], &states[m.b], m.outcome).unwrap();
                assert_eq!(delta_a[i].to_bits(), ((f64::from(a.rating) - f64::from(states[m.a].rating)) as f32).to_bits());
                states[m.a] = a;
                states[m.b] = b;
            }
            for (i, state) in states.iter().enumerate() {
                assert_eq!(blocks.player(i).unwrap(), *state, "{json}: player {i}");
            }
        }
    }
}
