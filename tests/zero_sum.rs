//! The pool's total and zero-sum pools (`docs/ranges.md#the-pools-total`,
//! `docs/configuration.md#zero-sum-pools`): the total is the players' ratings summed
//! exactly whatever the calls, and a zero-sum pool holds its total after every change (a
//! match, a team match, a set, a load), refuses a floor and starts newcomers at its mean.

use std::ptr::{null, null_mut};

use ranking_elo::ffi::*;
use ranking_elo::ladder::group_matches::{PlacementMatch, TeamMatch};
use ranking_elo::pool::{Match, Pool};
use ranking_elo::{Config, Outcome, PlayerState};

mod common;
use common::{ffi_pool, ffi_ratings, ffi_set_rating, ffi_total, ffi_try_config, last_message, SplitMix};

fn pool_ratings(pool: &Pool) -> Vec<f32> {
    (0..pool.len()).map(|i| pool.rating(i).unwrap()).collect()
}

/// The total is the players' ratings summed exactly, whatever the calls
/// (docs/ranges.md#the-pools-total): `set_player(0, 1e30)` then `set_player(0, 1500)` once
/// left a running total at 0 (cancellation), the save was then refused on load, and a
/// zero-sum pool moved both players from 500 to 1000 on one draw.
#[test]
fn the_total_is_the_players_ratings_summed_after_any_calls() {
    let pool = ffi_pool("{}", 2);
    assert_eq!(ffi_set_rating(pool, 0, 1e30), EloResult::OutOfRange, "beyond the rating range");
    assert_eq!(ffi_set_rating(pool, 0, 1e15), EloResult::Ok);
    assert_eq!(ffi_set_rating(pool, 0, 1500.0), EloResult::Ok);
    assert_eq!(ffi_total(pool), 3000.0);
    let text = common::ffi_save_text(pool);
    assert_eq!(common::ffi_load_text(pool, &text), EloResult::Ok, "{}", last_message());

    // A zero-sum pool keeps its total through every set (a set rebalances at once,
    // everybody receiving (T - sum) / N), and a draw between equals moves nobody.
    let zero_sum = ffi_pool(r#"{"zero_sum_total":1000}"#, 2);
    assert_eq!(ffi_ratings(zero_sum), vec![500.0, 500.0]);
    assert_eq!(ffi_set_rating(zero_sum, 0, 1e15), EloResult::Ok);
    assert_eq!(ffi_total(zero_sum), 1000.0);
    let shared = ffi_ratings(zero_sum);
    assert!(shared[0] > 4.9e14 && shared[1] < -4.9e14, "the excess is shared by both: {shared:?}");
    assert_eq!(ffi_set_rating(zero_sum, 0, 500.0), EloResult::Ok);
    assert_eq!(ffi_set_rating(zero_sum, 1, 500.0), EloResult::Ok);
    assert_eq!(ffi_total(zero_sum), 1000.0);
    let even = ffi_pool(r#"{"zero_sum_total":1000}"#, 2);
    let (a, b, s) = ([0], [1], [0.5f32]);
    assert_eq!(unsafe { elo_pool_apply(even, a.as_ptr(), b.as_ptr(), s.as_ptr(), 1, null_mut(), null_mut(), null_mut()) }, EloResult::Ok);
    assert_eq!(ffi_ratings(even), vec![500.0, 500.0], "a draw between equals changes nothing");
    assert_eq!(unsafe { elo_pool_apply(zero_sum, a.as_ptr(), b.as_ptr(), s.as_ptr(), 1, null_mut(), null_mut(), null_mut()) }, EloResult::Ok);
    assert_eq!(ffi_total(zero_sum), 1000.0);

    // Random sequences of sets, adds, pair matches, team matches and free-for-alls: the
    // total stays the exact sum (the lists of matches store ratings without keeping the
    // sum, which is then recomputed).
    let mut rng = SplitMix(3);
    let mut rust_pool = Pool::new(Config::default().validate().unwrap());
    rust_pool.add_players(50);
    for step in 0..5000 {
        if step % 5 == 0 {
            // The pool keeps its sum again from here (the lists below must then forget it).
            rust_pool.refresh_total();
        }
        match rng.next() % 5 {
            3 => {
                let first = (rng.next() % 46) as usize;
                let (team_a, team_b) = ([first, first + 1], [first + 2, first + 3]);
                rust_pool.apply_teams(&[TeamMatch::new(&team_a, &team_b, Outcome::WIN)]).unwrap();
            }
            4 => {
                let first = (rng.next() % 47) as usize;
                let entrants = [first, first + 1, first + 2];
                rust_pool.apply_placements(&[PlacementMatch { entrants: &entrants, places: &[2, 1, 3] }]).unwrap();
            }
            0 => {
                let index = (rng.next() % rust_pool.len() as u64) as usize;
                let magnitude = [1e15f32, 1e9, 1500.0, 1e-3][(rng.next() % 4) as usize];
                let state = ranking_elo::PlayerState::new((rng.unit_f32() - 0.5) * 2.0 * magnitude);
                rust_pool.set_player(index, state).unwrap();
            }
            1 => {
                let a = (rng.next() % 50) as usize;
                let b = (a + 1 + (rng.next() % 49) as usize) % 50;
                rust_pool.apply(&[Match::new(a, b, Outcome::WIN)], None).unwrap();
            }
            _ => {
                rust_pool.add_players(1);
            }
        }
        if step % 97 == 0 {
            let exact: f64 = exact_sum(&rust_pool);
            assert_eq!(rust_pool.total(), exact, "step {step}");
        }
    }
    unsafe {
        elo_pool_free(pool);
        elo_pool_free(zero_sum);
        elo_pool_free(even);
    }
}

/// The players' ratings summed exactly (with 128-bit fixed point at 2^-40, as the pool
/// defines its total), rounded once.
fn exact_sum(pool: &Pool) -> f64 {
    let fixed: i128 = (0..pool.len()).map(|i| (f64::from(pool.rating(i).unwrap()) * 1_099_511_627_776.0) as i128).sum();
    fixed as f64 / 1_099_511_627_776.0
}

/// Team matches in a zero-sum pool follow the rule: every member's new rating is stored
/// against the offset of before the match, then the pool is rebalanced once (a team match
/// once rebalanced after team A was stored: 2v2 at 1500 gave 1512, 1512, 1488, 1488 instead
/// of 1516, 1516, 1484, 1484, and a 1v1 team match differed from the same pair match).
#[test]
fn zero_sum_team_matches_follow_the_rule() {
    let rules = Config::from_json(r#"{"zero_sum_total": 6000}"#).unwrap();
    let mut pool = Pool::new(rules);
    pool.add_players(4);
    pool.apply_teams(&[TeamMatch::new(&[0, 1], &[2, 3], Outcome::WIN)]).unwrap();
    assert_eq!(pool_ratings(&pool), [1516.0, 1516.0, 1484.0, 1484.0]);
    assert_eq!(pool.refresh_total(), 6000.0);

    // The same through the C ABI.
    let handle = ffi_pool(r#"{"zero_sum_total": 6000}"#, 4);
    let (members, offsets, score) = ([0, 1, 2, 3], [0, 2, 4], [1.0f32]);
    let code = unsafe { elo_pool_apply_teams(handle, members.as_ptr(), offsets.as_ptr(), 1, null(), score.as_ptr()) };
    assert_eq!(code, EloResult::Ok, "{}", last_message());
    assert_eq!(ffi_ratings(handle), [1516.0, 1516.0, 1484.0, 1484.0]);
    assert_eq!(ffi_total(handle), 6000.0);
    unsafe { elo_pool_free(handle) };

    // A 1v1 team match and a two-entrant free-for-all are the pair rule, bit for bit, in a
    // zero-sum pool of two as anywhere (T 3000), also after earlier matches moved the offset.
    let json = r#"{"zero_sum_total": 3000, "k_policy": {"policy": "constant", "k": 32}}"#;
    let (pair, team, free) = (ffi_pool(json, 2), ffi_pool(json, 2), ffi_pool(json, 2));
    for (round, s) in [1.0f32, 0.0, 0.5, 1.0, 1.0, 0.0].into_iter().enumerate() {
        let (a, b) = ([0], [1]);
        assert_eq!(unsafe { elo_pool_apply(pair, a.as_ptr(), b.as_ptr(), [s].as_ptr(), 1, null_mut(), null_mut(), null_mut()) }, EloResult::Ok);
        let (members, offsets) = ([0, 1], [0, 1, 2]);
        assert_eq!(unsafe { elo_pool_apply_teams(team, members.as_ptr(), offsets.as_ptr(), 1, null(), [s].as_ptr()) }, EloResult::Ok);
        let places = if s == 1.0 {
            [1, 2]
        } else if s == 0.0 {
            [2, 1]
        } else {
            [1, 1]
        };
        assert_eq!(unsafe { elo_pool_apply_placements(free, members.as_ptr(), [0, 2].as_ptr(), 1, places.as_ptr()) }, EloResult::Ok);
        if round == 0 {
            assert_eq!(ffi_ratings(team), [1516.0, 1484.0], "the 1v1 case");
        }
        let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(ffi_ratings(team)), bits(ffi_ratings(pair)), "1v1 team matches are pair matches (round {round})");
        assert_eq!(bits(ffi_ratings(free)), bits(ffi_ratings(pair)), "two-entrant free-for-alls are pair matches (round {round})");
    }
    unsafe {
        elo_pool_free(pair);
        elo_pool_free(team);
        elo_pool_free(free);
    }

    // Free-for-alls in a zero-sum pool: the sum is unchanged, so nobody is shifted.
    let mut pool = Pool::new(Config::from_json(r#"{"zero_sum_total": 6000}"#).unwrap());
    pool.add_players(4);
    pool.apply_placements(&[PlacementMatch { entrants: &[0, 1, 2, 3], places: &[1, 2, 2, 4] }]).unwrap();
    assert_eq!(pool_ratings(&pool), [1516.0, 1500.0, 1500.0, 1484.0]);
}

/// A zero-sum pool cannot have a floor, and newcomers start at its mean
/// (`docs/configuration.md#zero-sum-pools`).
#[test]
fn zero_sum_pools_refuse_a_floor_and_start_newcomers_at_the_mean() {
    // A zero-sum pool cannot honour a floor: refused.
    assert_eq!(ffi_try_config(r#"{"zero_sum_total":1000,"min_rating":0}"#).0, EloResult::InvalidConfig);

    // Newcomers to a zero-sum pool start at the pool's mean (here on a 0 to 300 scale), not
    // at the initial rating 1500 (which would be far above everybody there).
    let pool = ffi_pool(r#"{"zero_sum_total":1000}"#, 10);
    let mut first = 0;
    assert_eq!(unsafe { elo_pool_add_players(pool, 1, &mut first) }, EloResult::Ok);
    let r = ffi_ratings(pool);
    assert!((r[10] - 1000.0 / 11.0).abs() < 1e-3, "{r:?}");
    assert!((ffi_total(pool) - 1000.0).abs() < 1e-9);
    unsafe { elo_pool_free(pool) };
}

/// Setting a player keeps the zero-sum total: a set rebalances at once, as a match does,
/// everybody (the player set included) receiving `(T - sum) / N` (a set once left the total
/// unbalanced until the next match, 3100 instead of 3000, and a save written then reloaded
/// with that total). A save whose offset does not balance the total is balanced when it
/// loads.
#[test]
fn setting_a_player_keeps_the_zero_sum_total() {
    let pool = ffi_pool(r#"{"zero_sum_total": 3000}"#, 2);
    let state = EloPlayerState::from(PlayerState::new(1600.0));
    assert_eq!(unsafe { elo_pool_set_player(pool, 0, &state) }, EloResult::Ok);
    assert_eq!(ffi_total(pool), 3000.0);
    assert_eq!(ffi_ratings(pool), [1550.0, 1450.0], "the 100 too many shared by both");
    // The save holds the balanced pool, and loads back to it.
    let mut len = 0;
    unsafe { elo_pool_to_json(pool, null_mut(), 0, &mut len) };
    let mut text = vec![0u8; len as usize + 1];
    assert_eq!(unsafe { elo_pool_to_json(pool, text.as_mut_ptr().cast(), len + 1, &mut len) }, EloResult::Ok);
    let loaded = ffi_pool("{}", 0);
    assert_eq!(unsafe { elo_pool_load_json(loaded, text.as_ptr().cast(), len) }, EloResult::Ok);
    assert_eq!((ffi_total(loaded), ffi_ratings(loaded)), (3000.0, vec![1550.0, 1450.0]));
    unsafe {
        elo_pool_free(pool);
        elo_pool_free(loaded);
    }
    // A save whose offset does not balance the total (made by hand, or by an older
    // version after a set) is balanced when it loads.
    let mut pool = Pool::new(Config::from_json(r#"{"zero_sum_total": 3000}"#).unwrap());
    pool.add_players(2);
    let text = ranking_elo::save::to_json(&pool).replace(r#"{"rating":1500.0"#, r#"{"rating":1600.0"#);
    let payload = text.split(r#""pool":"#).nth(1).unwrap().strip_suffix('}').unwrap();
    let text = format!(r#"{{"format":"ranking-elo-pool","version":3,"checksum":"{}","pool":{payload}}}"#, ranking_elo::save::checksum(payload));
    let mut loaded = ranking_elo::save::from_json(&text).unwrap();
    assert_eq!(loaded.refresh_total(), 3000.0);
    assert_eq!(pool_ratings(&loaded), [1500.0, 1500.0]);
    // Every later read agrees: a match keeps it.
    loaded.apply(&[Match::new(0, 1, Outcome::WIN)], None).unwrap();
    assert_eq!(loaded.refresh_total(), 3000.0);
}
