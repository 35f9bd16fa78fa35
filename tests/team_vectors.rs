//! Team and free-for-all reference values computed independently of the engine
//! (`tools/reference/team_vectors.py`, plain Python from docs/teams.md), committed at
//! `unity/Tests/Runtime/Vectors~/RankingEloTeamVectors.txt` and replayed here through the
//! Rust rules, the single-match C ABI and a pool's list C ABI: every rating must be the
//! reference's, to the bit. (C and C# replay the same file.)

use std::ptr::null_mut;

use ranking_elo::ffi::*;
use ranking_elo::rating::team::Team;
use ranking_elo::{Config, Outcome, PlayerState, Rules};

mod common;
use common::ffi_config;

const PATH: &str = "unity/Tests/Runtime/Vectors~/RankingEloTeamVectors.txt";

enum Case {
    Team { config: usize, count_a: usize, score: f32, weights: Option<Vec<f32>>, ratings: Vec<f32>, expected: Vec<f32> },
    Ffa { config: usize, places: Vec<i32>, ratings: Vec<f32>, expected: Vec<f32> },
}

fn parse() -> (Vec<String>, Vec<Case>) {
    let text = std::fs::read_to_string(format!("{}/{PATH}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let (mut configs, mut cases) = (Vec::new(), Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let (head, expected) = line.split_once(" => ").map_or((line, ""), |(h, e)| (h, e));
        let f: Vec<&str> = head.split(' ').collect();
        let floats = |items: &[&str]| items.iter().map(|v| v.parse::<f32>().unwrap()).collect::<Vec<f32>>();
        let expected = floats(&expected.split(' ').filter(|s| !s.is_empty()).collect::<Vec<_>>());
        match f[0] {
            "config" => configs.push(line.splitn(3, ' ').nth(2).unwrap().to_owned()),
            "team" => {
                let count_a: usize = f[2].parse().unwrap();
                let weights = (f[5] != "-").then(|| f[5].split(',').map(|w| w.parse::<f32>().unwrap()).collect());
                cases.push(Case::Team { config: f[1].parse().unwrap(), count_a, score: f[4].parse().unwrap(), weights, ratings: floats(&f[6..]), expected });
            }
            "ffa" => {
                let n: usize = f[2].parse().unwrap();
                let places = f[3..3 + n].iter().map(|p| p.parse::<i32>().unwrap()).collect();
                cases.push(Case::Ffa { config: f[1].parse().unwrap(), places, ratings: floats(&f[3 + n..]), expected });
            }
            other => panic!("unknown line kind {other}"),
        }
    }
    (configs, cases)
}

fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn rust_rules_reproduce_the_reference() {
    let (configs, cases) = parse();
    let rules: Vec<Rules> = configs.iter().map(|json| Config::from_json(json).unwrap()).collect();
    assert!(cases.len() >= 50, "{} cases", cases.len());
    for (line, case) in cases.iter().enumerate() {
        match case {
            Case::Team { config, count_a, score, weights, ratings, expected } => {
                let states: Vec<PlayerState> = ratings.iter().map(|&r| PlayerState::new(r)).collect();
                let w: Option<Vec<f64>> = weights.as_ref().map(|w| w.iter().map(|&x| f64::from(x)).collect());
                let (a, b) = states.split_at(*count_a);
                let (wa, wb) = (w.as_ref().map(|w| &w[..*count_a]), w.as_ref().map(|w| &w[*count_a..]));
                let (mut out_a, mut out_b) = (a.to_vec(), b.to_vec());
                let outcome = Outcome::from_score(f64::from(*score)).unwrap();
                rules[*config].rate_teams(Team { members: a, weights: wa }, Team { members: b, weights: wb }, outcome, &mut out_a, &mut out_b).unwrap();
                let got: Vec<f32> = out_a.iter().chain(&out_b).map(|s| s.rating).collect();
                assert_eq!(bits(&got), bits(expected), "case {line}: {got:?} vs {expected:?}");
            }
            Case::Ffa { config, places, ratings, expected } => {
                let states: Vec<PlayerState> = ratings.iter().map(|&r| PlayerState::new(r)).collect();
                let places: Vec<u32> = places.iter().map(|&p| p as u32).collect();
                let mut out = states.clone();
                rules[*config].rate_placements(&states, &places, &mut out).unwrap();
                let got: Vec<f32> = out.iter().map(|s| s.rating).collect();
                assert_eq!(bits(&got), bits(expected), "case {line}");
            }
        }
    }
}

#[test]
fn the_c_abi_reproduces_the_reference_single_and_in_pools() {
    let (configs, cases) = parse();
    let handles: Vec<*mut EloConfig> = configs.iter().map(|json| ffi_config(json)).collect();
    for (line, case) in cases.iter().enumerate() {
        let (config, ratings, expected) = match case {
            Case::Team { config, ratings, expected, .. } | Case::Ffa { config, ratings, expected, .. } => (*config, ratings, expected),
        };
        let mut states: Vec<EloPlayerState> = ratings.iter().map(|&r| PlayerState::new(r).into()).collect();
        let n = states.len() as i32;
        // A pool holding the same players, applying the match as a list of one.
        let mut pool = null_mut();
        assert_eq!(unsafe { elo_pool_new(handles[config], &mut pool) }, EloResult::Ok);
        let mut first = 0;
        assert_eq!(unsafe { elo_pool_add_players(pool, n, &mut first) }, EloResult::Ok);
        for (i, state) in states.iter().enumerate() {
            assert_eq!(unsafe { elo_pool_set_player(pool, i as i32, state) }, EloResult::Ok);
        }
        let indices: Vec<i32> = (0..n).collect();
        match case {
            Case::Team { count_a, score, weights, .. } => {
                let w = weights.as_ref().map_or(std::ptr::null(), |w| w.as_ptr());
                assert_eq!(unsafe { elo_rate_teams(handles[config], states.as_mut_ptr(), *count_a as i32, n - *count_a as i32, w, *score) }, EloResult::Ok, "case {line}");
                let offsets = [0, *count_a as i32, n];
                assert_eq!(unsafe { elo_pool_apply_teams(pool, indices.as_ptr(), offsets.as_ptr(), 1, w, score) }, EloResult::Ok, "case {line}");
            }
            Case::Ffa { places, .. } => {
                assert_eq!(unsafe { elo_rate_placements(handles[config], states.as_mut_ptr(), n, places.as_ptr()) }, EloResult::Ok, "case {line}");
                let offsets = [0, n];
                assert_eq!(unsafe { elo_pool_apply_placements(pool, indices.as_ptr(), offsets.as_ptr(), 1, places.as_ptr()) }, EloResult::Ok, "case {line}");
            }
        }
        let got: Vec<f32> = states.iter().map(|s| s.rating).collect();
        assert_eq!(bits(&got), bits(expected), "C ABI, case {line}");
        let mut pooled = vec![0.0f32; states.len()];
        assert_eq!(unsafe { elo_pool_get_ratings(pool, 0, n, pooled.as_mut_ptr()) }, EloResult::Ok);
        assert_eq!(bits(&pooled), bits(expected), "pool, case {line}");
        unsafe { elo_pool_free(pool) };
    }
    for handle in handles {
        unsafe { elo_config_free(handle) };
    }
}

#[test]
fn the_c_abi_refuses_bad_groups_and_changes_nothing() {
    let cfg = ffi_config("{}");
    let mut states: Vec<EloPlayerState> = (0..4).map(|_| PlayerState::new(1500.0).into()).collect();
    let before = states.clone();
    assert_eq!(unsafe { elo_rate_teams(cfg, states.as_mut_ptr(), 0, 4, std::ptr::null(), 1.0) }, EloResult::OutOfRange);
    assert_eq!(unsafe { elo_rate_teams(cfg, states.as_mut_ptr(), 2, 2, std::ptr::null(), 1.5) }, EloResult::ScoreOutOfRange);
    let places = [1, 2, 2, 5];
    assert_eq!(unsafe { elo_rate_placements(cfg, states.as_mut_ptr(), 4, places.as_ptr()) }, EloResult::OutOfRange);
    assert_eq!(states.iter().map(|s| s.rating).collect::<Vec<_>>(), before.iter().map(|s| s.rating).collect::<Vec<_>>());
    let mut pool = null_mut();
    assert_eq!(unsafe { elo_pool_new(cfg, &mut pool) }, EloResult::Ok);
    let mut first = 0;
    unsafe { elo_pool_add_players(pool, 6, &mut first) };
    // Two matches, the second with a player twice: nothing applied, position named.
    let members = [0, 1, 2, 3, 4, 4];
    let offsets = [0, 2, 4, 5, 6];
    let scores = [1.0f32, 1.0];
    assert_eq!(unsafe { elo_pool_apply_teams(pool, members.as_ptr(), offsets.as_ptr(), 2, std::ptr::null(), scores.as_ptr()) }, EloResult::SamePlayer);
    assert!(common::last_message().starts_with("matches[1]"), "{}", common::last_message());
    let decreasing = [0, 2, 1, 5, 6];
    assert_eq!(unsafe { elo_pool_apply_teams(pool, members.as_ptr(), decreasing.as_ptr(), 2, std::ptr::null(), scores.as_ptr()) }, EloResult::InvalidLength);
    let negative = [0, -1];
    let (ffa_offsets, ffa_places) = ([0, 2], [1, 2]);
    assert_eq!(unsafe { elo_pool_apply_placements(pool, negative.as_ptr(), ffa_offsets.as_ptr(), 1, ffa_places.as_ptr()) }, EloResult::IndexOutOfRange);
    assert!(common::last_message().contains("negative"), "{}", common::last_message());
    let mut ratings = [0.0f32; 6];
    unsafe { elo_pool_get_ratings(pool, 0, 6, ratings.as_mut_ptr()) };
    assert_eq!(ratings, [1500.0; 6]);
    unsafe {
        elo_pool_free(pool);
        elo_config_free(cfg);
    }
}

/// The team matchmaker through the C ABI: balanced teams of the asked size, every player
/// once, within the windows; bad sizes refused.
#[test]
fn the_matchmaker_forms_balanced_teams_through_the_c_abi() {
    let mut queue = null_mut();
    assert_eq!(unsafe { elo_matchmaker_new(150.0, 10.0, 400.0, 4, 5, &mut queue) }, EloResult::Ok);
    let ratings: Vec<f32> = (0..40).map(|i| 1300.0 + ((i * 37) % 40) as f32 * 10.0).collect();
    for (id, &rating) in ratings.iter().enumerate() {
        assert_eq!(unsafe { elo_matchmaker_join(queue, id as u64, rating, 0.0) }, EloResult::Ok);
    }
    let mut out = vec![u64::MAX; 4 * 10];
    let mut matches = 0;
    assert_eq!(unsafe { elo_matchmaker_tick_teams(queue, 1.0, 5, out.as_mut_ptr(), 4, &mut matches) }, EloResult::Ok);
    assert_eq!(matches, 4, "40 close players, room for 4 matches of 5v5");
    let mut seen = std::collections::BTreeSet::new();
    for m in 0..4 {
        let ids = &out[m * 10..(m + 1) * 10];
        assert!(ids.iter().all(|&id| seen.insert(id)), "every player once");
        let mean = |team: &[u64]| team.iter().map(|&id| f64::from(ratings[id as usize])).sum::<f64>() / 5.0;
        assert!((mean(&ids[..5]) - mean(&ids[5..])).abs() <= 20.0, "balanced: {ids:?}");
        let (low, high) = ids.iter().map(|&id| ratings[id as usize]).fold((f32::MAX, f32::MIN), |(l, h), r| (l.min(r), h.max(r)));
        assert!(high - low <= 2.0 * 160.0, "within the windows");
    }
    let mut len = 0;
    unsafe { elo_matchmaker_len(queue, &mut len) };
    assert_eq!(len, 0);
    assert_eq!(unsafe { elo_matchmaker_tick_teams(queue, 1.0, 0, out.as_mut_ptr(), 1, &mut matches) }, EloResult::OutOfRange);
    assert_eq!(unsafe { elo_matchmaker_tick_teams(queue, 1.0, 65, out.as_mut_ptr(), 1, &mut matches) }, EloResult::OutOfRange);
    unsafe { elo_matchmaker_free(queue) };
}
