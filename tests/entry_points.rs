//! Determinism across entry points (`README.md#determinism-and-accuracy`): the single call,
//! the batch (separate outputs and in place), the C ABI functions and the tutorial mirror
//! give bit-identical results on the same inputs.

use std::ptr::null_mut;

use proptest::prelude::*;
use ranking_elo::batch::{self, BatchInput};
use ranking_elo::ffi::{
    self, elo_config_free, elo_pool_add_players, elo_pool_apply_points, elo_pool_free, elo_pool_new, elo_pool_set_player, elo_rate, elo_rate_players_points, elo_rate_points,
    EloPlayerState, EloResult,
};
use ranking_elo::{Config, Outcome, Rounding, Rules};

mod common;
use common::{ffi_config, ffi_ratings};

const CONFIGS: [&str; 4] = [
    "{}",
    r#"{"rounding":"truncate","k_policy":{"policy":"constant","k":24}}"#,
    r#"{"expected_score":{"model":"normal"},"min_rating":100,"victory_bonus":1.5,"score_share_bonus":2}"#,
    r#"{"expected_score":{"model":"linear","k":0.001},"k_policy":{"policy":"league"},"k_combine":"average",
        "leagues":[{"name":"Bronze","min_rating":0,"k":200,"victory_bonus":3},{"name":"Silver","min_rating":100,"k":150},
                   {"name":"Gold","min_rating":200,"k":100},{"name":"Platinum","min_rating":300,"k":50}]}"#,
];

fn pairs() -> impl Strategy<Value = Vec<(f32, f32, f32, f32)>> {
    prop::collection::vec((-500.0f32..3000.0, -500.0f32..3000.0, prop_oneof![Just(0.0f32), Just(0.5), Just(1.0), 0.0f32..=1.0], 0.0f32..100.0), 1..200)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn scalar_batch_and_c_abi_agree_bit_for_bit(pairs in pairs(), config_index in 0usize..CONFIGS.len()) {
        let json = CONFIGS[config_index];
        let rules = Config::from_json(json).unwrap();
        let handle = ffi_config(json);
        let ra: Vec<f32> = pairs.iter().map(|p| p.0).collect();
        let rb: Vec<f32> = pairs.iter().map(|p| p.1).collect();
        let sa: Vec<f32> = pairs.iter().map(|p| p.2).collect();
        let ks: Vec<f32> = pairs.iter().map(|p| p.3).collect();
        let n = pairs.len();

        // Policy K: batch with separate outputs, batch in place, C batch, single calls.
        let (mut out_a, mut out_b) = (vec![0.0; n], vec![0.0; n]);
        batch::rate(&rules, &BatchInput { rating_a: &ra, rating_b: &rb, score_a: &sa, k: None }, &mut out_a, &mut out_b).unwrap();
        let (mut in_a, mut in_b) = (ra.clone(), rb.clone());
        batch::rate_in_place(&rules, &mut in_a, &mut in_b, &sa, None).unwrap();
        let (mut c_a, mut c_b) = (ra.clone(), rb.clone());
        let code = unsafe { ffi::elo_rate_batch(handle, c_a.as_ptr(), c_b.as_ptr(), sa.as_ptr(), std::ptr::null(), n as i32, c_a.as_mut_ptr(), c_b.as_mut_ptr()) };
        prop_assert_eq!(code, EloResult::Ok);
        for i in 0..n {
            let outcome = Outcome::from_score(f64::from(sa[i])).unwrap();
            let (a, b) = rules.rate(ra[i], rb[i], outcome).unwrap();
            let (mut fa, mut fb) = (0.0f32, 0.0f32);
            prop_assert_eq!(unsafe { ffi::elo_rate(handle, ra[i], rb[i], sa[i], &mut fa, &mut fb) }, EloResult::Ok);
            for (x, y) in [(out_a[i], out_b[i]), (in_a[i], in_b[i]), (c_a[i], c_b[i]), (fa, fb)] {
                prop_assert_eq!((x.to_bits(), y.to_bits()), (a.to_bits(), b.to_bits()), "pair {}", i);
            }
        }

        // Per-pair K: batch against elo_rate_with_k.
        let (mut k_a, mut k_b) = (vec![0.0; n], vec![0.0; n]);
        let code = unsafe { ffi::elo_rate_batch(handle, ra.as_ptr(), rb.as_ptr(), sa.as_ptr(), ks.as_ptr(), n as i32, k_a.as_mut_ptr(), k_b.as_mut_ptr()) };
        prop_assert_eq!(code, EloResult::Ok);
        for i in 0..n {
            let (mut a, mut b) = (0.0f32, 0.0f32);
            prop_assert_eq!(unsafe { ffi::elo_rate_with_k(handle, ra[i], rb[i], sa[i], ks[i], ks[i], &mut a, &mut b) }, EloResult::Ok);
            prop_assert_eq!((k_a[i].to_bits(), k_b[i].to_bits()), (a.to_bits(), b.to_bits()));
        }
        unsafe { ffi::elo_config_free(handle) };
    }

    /// The tutorial mirror, its batch form and the configured path agree.
    #[test]
    fn tutorial_mirror_matches_batch_and_rules(pairs in pairs(), multiplier in 0.0f32..64.0) {
        let n = pairs.len();
        let ra: Vec<f32> = pairs.iter().map(|p| p.0).collect();
        let rb: Vec<f32> = pairs.iter().map(|p| p.1).collect();
        let wins: Vec<f32> = pairs.iter().map(|p| if p.2 >= 0.5 { 1.0 } else { 0.0 }).collect();
        let (mut out_a, mut out_b) = (vec![0.0; n], vec![0.0; n]);
        let code = unsafe { ffi::elo_update_player_rankings_batch(ra.as_ptr(), rb.as_ptr(), wins.as_ptr(), multiplier, n as i32, out_a.as_mut_ptr(), out_b.as_mut_ptr()) };
        prop_assert_eq!(code, EloResult::Ok);
        let rules = Config { k_policy: ranking_elo::KPolicy::Constant { k: f64::from(multiplier) }, rounding: Rounding::None, ..Config::default() }.validate().unwrap();
        for i in 0..n {
            let v = ffi::elo_update_player_rankings(ra[i], rb[i], multiplier, u8::from(wins[i] == 1.0));
            let (a, b) = rules.rate(ra[i], rb[i], if wins[i] == 1.0 { Outcome::WIN } else { Outcome::LOSS }).unwrap();
            prop_assert_eq!((v.x.to_bits(), v.y.to_bits()), (out_a[i].to_bits(), out_b[i].to_bits()));
            prop_assert_eq!((a.to_bits(), b.to_bits()), (out_a[i].to_bits(), out_b[i].to_bits()));
            prop_assert_eq!(ffi::elo_get_probability_winning(ra[i], rb[i]).to_bits(), (Rules::default().expected_score(ra[i], rb[i]) as f32).to_bits());
            let (mut sa, mut sb) = (0.0f32, 0.0f32);
            prop_assert_eq!(unsafe { ffi::elo_update_player_rankings_score(ra[i], rb[i], multiplier, wins[i], &mut sa, &mut sb) }, ffi::EloResult::Ok);
            prop_assert_eq!((sa.to_bits(), sb.to_bits()), (out_a[i].to_bits(), out_b[i].to_bits()));
        }
    }
}

/// Points, the score-share bonus `L` and the victory bonus `V`
/// (`docs/configuration.md#results-and-bonuses`) give the same ratings through the single
/// call, the player-state call and a pool.
#[test]
fn points_and_bonuses_agree_across_entry_points() {
    // A 3:1 win, K 32, L 4, V 2, from 1000/1000. The share is S in the K term by default;
    // the result is, with points_k_term = "result"; the loser gets no V.
    for (json, expected) in
        [(r#"{"score_share_bonus":4,"victory_bonus":2}"#, (1013.0, 993.0)), (r#"{"score_share_bonus":4,"victory_bonus":2,"points_k_term":"result"}"#, (1021.0, 985.0))]
    {
        let cfg = ffi_config(json);
        let (mut a, mut b) = (0.0, 0.0);
        assert_eq!(unsafe { elo_rate_points(cfg, 1000.0, 1000.0, 3.0, 1.0, &mut a, &mut b) }, EloResult::Ok);
        assert_eq!((a, b), expected, "{json}");
        let mut pa = EloPlayerState { games_played: 0, ..EloPlayerState::from(ranking_elo::PlayerState::new(1000.0)) };
        let mut pb = pa;
        assert_eq!(unsafe { elo_rate_players_points(cfg, &mut pa, &mut pb, 3.0, 1.0) }, EloResult::Ok);
        assert_eq!((pa.rating, pb.rating), expected, "{json} (player states)");
        let mut pool = null_mut();
        assert_eq!(unsafe { elo_pool_new(cfg, &mut pool) }, EloResult::Ok);
        let mut first = 0;
        unsafe { elo_pool_add_players(pool, 2, &mut first) };
        let mut set = pa;
        set.rating = 1000.0;
        unsafe {
            elo_pool_set_player(pool, 0, &set);
            elo_pool_set_player(pool, 1, &set);
        }
        let (ia, ib, points_a, points_b) = ([0], [1], [3.0f32], [1.0f32]);
        assert_eq!(unsafe { elo_pool_apply_points(pool, ia.as_ptr(), ib.as_ptr(), points_a.as_ptr(), points_b.as_ptr(), 1, null_mut(), null_mut(), null_mut()) }, EloResult::Ok);
        assert_eq!(ffi_ratings(pool), vec![expected.0, expected.1], "{json} (pool)");
        unsafe {
            elo_pool_free(pool);
            elo_config_free(cfg);
        }
    }
    // A score given directly earns V by its result: 0.3 is a defeat, no bonus.
    let cfg = ffi_config(r#"{"victory_bonus":2}"#);
    let (mut a, mut b) = (0.0, 0.0);
    assert_eq!(unsafe { elo_rate(cfg, 1000.0, 1000.0, 0.3, &mut a, &mut b) }, EloResult::Ok);
    assert_eq!((a, b), (1000.0 + 32.0 * -0.2, 1000.0 + 32.0 * 0.2 + 2.0));
    unsafe { elo_config_free(cfg) };
}
