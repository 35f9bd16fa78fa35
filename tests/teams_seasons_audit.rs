//! Regression tests for the defects an outside audit of the team, free-for-all and season
//! functions found (issue 18), one test per defect, through the Rust API and the C ABI.
//! Each failed (or aborted the test process) on the code before its fix.

use std::ptr::{null, null_mut};

use ranking_elo::ffi::*;
use ranking_elo::ladder::group_matches::{PlacementMatch, TeamMatch};
use ranking_elo::pool::{Match, Pool};
use ranking_elo::{Config, Outcome, PlayerState};

mod common;
use common::{ffi_config, ffi_pool, ffi_ratings, last_message};

#[cfg(unix)]
#[path = "fuzz_checks/sparse.rs"]
mod sparse;

const DAY: f64 = 86_400.0;

fn config_code(json: &str) -> EloResult {
    let mut handle = null_mut();
    let code = unsafe { elo_config_from_json(json.as_ptr().cast(), json.len() as i32, &mut handle) };
    unsafe { elo_config_free(handle) };
    code
}

fn total(pool: *const EloPool) -> f64 {
    let mut t = f64::NAN;
    assert_eq!(unsafe { elo_pool_total(pool, &mut t) }, EloResult::Ok);
    t
}

fn ratings(pool: &Pool) -> Vec<f32> {
    (0..pool.len()).map(|i| pool.rating(i).unwrap()).collect()
}

/// Defect 1: in a zero-sum pool a team match rebalanced after team A was stored, and team
/// B's new ratings (computed before that shift) were then stored against the shifted
/// offset: 2v2 at 1500 gave 1512, 1512, 1488, 1488 instead of 1516, 1516, 1484, 1484, and a
/// 1v1 team match differed from the same pair match.
#[test]
fn zero_sum_team_matches_follow_the_rule() {
    let rules = Config::from_json(r#"{"zero_sum_total": 6000}"#).unwrap();
    let mut pool = Pool::new(rules);
    pool.add_players(4);
    pool.apply_teams(&[TeamMatch::new(&[0, 1], &[2, 3], Outcome::WIN)]).unwrap();
    assert_eq!(ratings(&pool), [1516.0, 1516.0, 1484.0, 1484.0]);
    assert_eq!(pool.refresh_total(), 6000.0);

    // Through the C ABI: the audit's input.
    let handle = ffi_pool(r#"{"zero_sum_total": 6000}"#, 4);
    let (members, offsets, score) = ([0, 1, 2, 3], [0, 2, 4], [1.0f32]);
    let code = unsafe { elo_pool_apply_teams(handle, members.as_ptr(), offsets.as_ptr(), 1, null(), score.as_ptr()) };
    assert_eq!(code, EloResult::Ok, "{}", last_message());
    assert_eq!(ffi_ratings(handle), [1516.0, 1516.0, 1484.0, 1484.0]);
    assert_eq!(total(handle), 6000.0);
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
        let places = if s == 1.0 { [1, 2] } else if s == 0.0 { [2, 1] } else { [1, 1] };
        assert_eq!(unsafe { elo_pool_apply_placements(free, members.as_ptr(), [0, 2].as_ptr(), 1, places.as_ptr()) }, EloResult::Ok);
        if round == 0 {
            assert_eq!(ffi_ratings(team), [1516.0, 1484.0], "the audit's 1v1 case");
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
    assert_eq!(ratings(&pool), [1516.0, 1500.0, 1500.0, 1484.0]);
}

/// Defect 2: huge sizes aborted the process ("memory allocation of 120259084232 bytes
/// failed"): states and indices were copied before the team size (1 to 64) and entrant
/// count (2 to 256) were checked. The caller's buffers here really are that large
/// (sparse mappings), so every call is within the header's contract; each must be refused
/// after reading no more than the few values that show the shape is wrong.
#[cfg(unix)]
#[test]
fn huge_sizes_are_refused_before_anything_is_copied() {
    use sparse::Sparse;
    let config = ffi_config("{}");
    let max = i32::MAX as usize;

    let members = Sparse::of::<EloPlayerState>(max);
    let code = unsafe { elo_rate_teams(config, members.ptr(), i32::MAX - 1, 1, null(), 1.0) };
    assert_eq!(code, EloResult::OutOfRange, "{}", last_message());
    assert!(last_message().contains("team_a"), "{}", last_message());
    let code = unsafe { elo_rate_teams(config, members.ptr(), 1, i32::MAX - 1, null(), 1.0) };
    assert_eq!(code, EloResult::OutOfRange, "{}", last_message());
    let places = Sparse::of::<i32>(max);
    let code = unsafe { elo_rate_placements(config, members.ptr(), i32::MAX, places.ptr()) };
    assert_eq!(code, EloResult::OutOfRange, "{}", last_message());
    assert!(last_message().contains("entrants"), "{}", last_message());
    assert!(members.resident_bytes() + places.resident_bytes() < 1 << 20, "nothing was read");

    let pool = ffi_pool("{}", 4);
    let before = ffi_ratings(pool);
    let indices = Sparse::of::<i32>(max);
    let weights = Sparse::of::<f32>(max);
    let scores = [1.0f32];
    let code = unsafe { elo_pool_apply_teams(pool, indices.ptr(), [0, 1, i32::MAX].as_ptr(), 1, null(), scores.as_ptr()) };
    assert_eq!(code, EloResult::OutOfRange, "{}", last_message());
    assert!(last_message().contains("matches[0]") && last_message().contains("team_b"), "{}", last_message());
    let code = unsafe { elo_pool_apply_teams(pool, indices.ptr(), [0, 1, i32::MAX].as_ptr(), 1, weights.ptr(), scores.as_ptr()) };
    assert_eq!(code, EloResult::OutOfRange, "{}", last_message());
    let code = unsafe { elo_pool_apply_placements(pool, indices.ptr(), [0, i32::MAX].as_ptr(), 1, places.ptr()) };
    assert_eq!(code, EloResult::OutOfRange, "{}", last_message());
    assert!(last_message().contains("matches[0]") && last_message().contains("entrants"), "{}", last_message());

    // Many matches near INT32_MAX: the offsets of the first match already show the list is
    // bad (empty teams, empty free-for-alls), before anything is copied.
    let offsets = Sparse::of::<i32>(max);
    let many_scores = Sparse::of::<f32>(max);
    let code = unsafe { elo_pool_apply_teams(pool, indices.ptr(), offsets.ptr(), i32::MAX / 2, null(), many_scores.ptr()) };
    assert_eq!(code, EloResult::OutOfRange, "{}", last_message());
    let code = unsafe { elo_pool_apply_placements(pool, indices.ptr(), offsets.ptr(), i32::MAX - 1, places.ptr()) };
    assert_eq!(code, EloResult::OutOfRange, "{}", last_message());
    // Pairs: zeroed arrays name player 0 twice in the first match.
    let code = unsafe { elo_pool_apply(pool, indices.ptr(), indices.ptr(), many_scores.ptr(), i32::MAX, null_mut(), null_mut(), null_mut()) };
    assert_eq!(code, EloResult::SamePlayer, "{}", last_message());
    assert!(indices.resident_bytes() + offsets.resident_bytes() + many_scores.resident_bytes() < 1 << 20, "nothing was read");
    assert_eq!(ffi_ratings(pool), before, "nothing changed");
    unsafe {
        elo_pool_free(pool);
        elo_config_free(config);
    }

    // The Rust API checks sizes before it copies anything too.
    let rules = Config::default().validate().unwrap();
    let mut pool = Pool::new(rules);
    pool.add_players(4);
    let huge = vec![0usize; 100_000];
    let error = pool.apply_teams(&[TeamMatch::new(&huge, &[1], Outcome::WIN)]).unwrap_err();
    assert!(error.to_string().contains("team_a size"), "{error}");
    let error = pool.apply_placements(&[PlacementMatch { entrants: &huge, places: &[] }]).unwrap_err();
    assert!(error.to_string().contains("entrants (got 100000)"), "{error}");
}

/// Defect 3: outputs other than the event array were not checked for overlap: these
/// calls returned OK and corrupted the caller's memory. Also: NULL `out_events` with a
/// capacity and no count said "overlaps" instead of what is wrong.
#[test]
fn every_output_is_checked_for_overlap() {
    let ladder = r#"{"k_policy":{"policy":"league"},"leagues":[{"name":"B","min_rating":0,"k":40},{"name":"S","min_rating":1510,"k":32}],
        "decay":{"grace_days":0,"points_per_day":10}}"#;
    let pool = ffi_pool(ladder, 4);
    let states = [PlayerState::new(1600.0), PlayerState::new(1700.0)].map(EloPlayerState::from);
    let mut first = 0;
    assert_eq!(unsafe { elo_pool_add_player_states(pool, states.as_ptr(), 2, &mut first) }, EloResult::Ok);
    let before = ffi_ratings(pool);

    // elo_pool_apply_decay(p, now, NULL, 0, &x, &x): x read 0 although 2 players decayed.
    let mut x = -7;
    let code = unsafe { elo_pool_apply_decay(pool, DAY, null_mut(), 0, &mut x, &mut x) };
    assert_eq!(code, EloResult::OverlappingBuffers, "{}", last_message());
    assert!(last_message().contains("out_decayed") && last_message().contains("out_event_count"), "{}", last_message());
    assert_eq!((x, ffi_ratings(pool)), (-7, before.clone()), "nothing written, nothing applied");

    // elo_pool_end_season with out_event_count inside the records.
    let mut records = [EloSeasonRecord { player: 0, rating: 0.0, peak_rating: 0.0, league: 0, peak_league: 0, games: 0, wins: 0 }; 6];
    let mut events = [EloLeagueChange { position: 0, player: 0, from_league: 0, to_league: 0 }; 6];
    let count = std::ptr::addr_of_mut!(records[1].games).cast::<i32>();
    let code = unsafe { elo_pool_end_season(pool, records.as_mut_ptr(), 6, null(), 0, events.as_mut_ptr(), 6, count) };
    assert_eq!(code, EloResult::OverlappingBuffers, "{}", last_message());
    assert!(last_message().contains("out_records"), "{}", last_message());
    // The records over the JSON path being read: refused too.
    let file = std::env::temp_dir().join(format!("ranking-elo-issue18-{}.json", std::process::id()));
    let path = file.to_string_lossy().into_owned();
    let code = unsafe { elo_pool_end_season(pool, records.as_mut_ptr(), 6, path.as_ptr().cast(), path.len() as i32, null_mut(), 0, null_mut()) };
    assert_eq!(code, EloResult::Ok, "separate buffers: {}", last_message());
    std::fs::remove_file(&file).unwrap();
    let mut path_in_records = records;
    let text = std::ptr::addr_of_mut!(path_in_records[2]).cast::<u8>();
    let name = b"/tmp/ranking-elo-issue18-x.json";
    unsafe { std::ptr::copy_nonoverlapping(name.as_ptr(), text, name.len()) };
    let code = unsafe { elo_pool_end_season(pool, path_in_records.as_mut_ptr(), 6, text.cast(), name.len() as i32, null_mut(), 0, null_mut()) };
    assert_eq!(code, EloResult::OverlappingBuffers, "{}", last_message());
    let before = ffi_ratings(pool);

    // elo_pool_apply_teams_events with out_event_count = &members[0].
    let mut members = [0, 1, 2, 3];
    let (offsets, score) = ([0, 2, 4], [1.0f32]);
    let code = unsafe {
        elo_pool_apply_teams_events(pool, members.as_ptr(), offsets.as_ptr(), 1, null(), score.as_ptr(), events.as_mut_ptr(), 6, members.as_mut_ptr())
    };
    assert_eq!(code, EloResult::OverlappingBuffers, "{}", last_message());
    assert_eq!(members, [0, 1, 2, 3]);
    let mut places = [1, 2];
    let code = unsafe { elo_pool_apply_placements_events(pool, members.as_ptr(), [0, 2].as_ptr(), 1, places.as_ptr(), events.as_mut_ptr(), 6, places.as_mut_ptr()) };
    assert_eq!(code, EloResult::OverlappingBuffers, "{}", last_message());

    // elo_pool_apply_events with out_event_count = &player_a[0].
    let mut player_a = [0, 2];
    let (player_b, scores) = ([1, 3], [1.0f32, 0.0]);
    let code = unsafe { elo_pool_apply_events(pool, player_a.as_ptr(), player_b.as_ptr(), scores.as_ptr(), 2, events.as_mut_ptr(), 6, player_a.as_mut_ptr()) };
    assert_eq!(code, EloResult::OverlappingBuffers, "{}", last_message());
    assert_eq!((player_a, ffi_ratings(pool)), ([0, 2], before.clone()));

    // NULL out_events with a capacity and no count: the message says what is wrong.
    let code = unsafe { elo_pool_apply_events(pool, player_a.as_ptr(), player_b.as_ptr(), scores.as_ptr(), 2, null_mut(), 4, null_mut()) };
    assert_eq!(code, EloResult::NullPointer, "{}", last_message());
    assert!(last_message().starts_with("out_events must not be NULL"), "{}", last_message());

    // Count outputs of the other functions: top, league counts, text lengths, pairs.
    let mut top = [0i32; 4];
    assert_eq!(unsafe { elo_pool_top(pool, 4, top.as_mut_ptr(), top.as_mut_ptr().add(3)) }, EloResult::OverlappingBuffers);
    let mut counts = [0i32; 2];
    assert_eq!(unsafe { elo_pool_league_counts(pool, counts.as_mut_ptr(), 2, counts.as_mut_ptr().add(1)) }, EloResult::OverlappingBuffers);
    let mut text = [0u8; 64];
    assert_eq!(unsafe { elo_result_description(0, text.as_mut_ptr().cast(), 64, text.as_mut_ptr().add(4).cast()) }, EloResult::OverlappingBuffers);
    let (mut a, mut b) = (0.0f32, 0.0f32);
    let config = ffi_config("{}");
    assert_eq!(unsafe { elo_rate(config, 1500.0, 1500.0, 1.0, &mut a, &mut a) }, EloResult::OverlappingBuffers);
    assert_eq!(unsafe { elo_rate(config, 1500.0, 1500.0, 1.0, &mut a, &mut b) }, EloResult::Ok);
    let mut queue = null_mut();
    assert_eq!(unsafe { elo_matchmaker_new(100.0, 10.0, 400.0, 4, 1, &mut queue) }, EloResult::Ok);
    let mut ids = [0u64; 4];
    let pairs = unsafe { ids.as_mut_ptr().add(3) }.cast::<i32>();
    assert_eq!(unsafe { elo_matchmaker_tick(queue, 0.0, ids.as_mut_ptr(), ids.as_mut_ptr().add(2), 2, pairs) }, EloResult::OverlappingBuffers);
    assert_eq!(unsafe { elo_matchmaker_tick_teams(queue, 0.0, 1, ids.as_mut_ptr(), 2, pairs) }, EloResult::OverlappingBuffers);
    assert_eq!(ffi_ratings(pool), before, "nothing applied");
    unsafe {
        elo_matchmaker_free(queue);
        elo_config_free(config);
        elo_pool_free(pool);
    }
}

/// Defect 4: the decay limit was applied before rounding: with `half_away_from_zero` a
/// player at 1600 decayed to 1550 below the floor 1550.5, and with the anchor (a pool mean
/// of 1500.5) a player at 1601 decayed to 1500, past it.
#[test]
fn rounded_decay_stops_at_the_floor_and_the_anchor() {
    let json = r#"{"rounding":"half_away_from_zero","decay":{"grace_days":0,"points_per_day":100,"floor":1550.5}}"#;
    let mut pool = Pool::new(Config::from_json(json).unwrap());
    pool.add_player_states(&[PlayerState::new(1600.0)]).unwrap();
    pool.apply_decay(10.0 * DAY, None).unwrap();
    assert_eq!(pool.rating(0), Some(1550.5), "at the floor, not below");

    let json = r#"{"rounding":"half_away_from_zero","season_reset":{"anchor":"pool_mean"},"decay":{"grace_days":0,"points_per_day":100}}"#;
    let mut pool = Pool::new(Config::from_json(json).unwrap());
    // Mean 1500.5: 1601, 1400 (below the anchor: never decays).
    pool.add_player_states(&[PlayerState::new(1601.0), PlayerState::new(1400.0)]).unwrap();
    pool.apply_decay(10.0 * DAY, None).unwrap();
    assert_eq!(pool.rating(0), Some(1500.5), "at the anchor, not past it");
    assert_eq!(pool.rating(1), Some(1400.0));

    // The same through the C ABI.
    let handle = ffi_pool(r#"{"rounding":"half_away_from_zero","decay":{"grace_days":0,"points_per_day":7,"floor":1570.25}}"#, 0);
    let states = [EloPlayerState::from(PlayerState::new(1600.0))];
    let mut first = 0;
    assert_eq!(unsafe { elo_pool_add_player_states(handle, states.as_ptr(), 1, &mut first) }, EloResult::Ok);
    let mut decayed = 0;
    assert_eq!(unsafe { elo_pool_apply_decay(handle, 10.0 * DAY, null_mut(), 0, null_mut(), &mut decayed) }, EloResult::Ok);
    assert_eq!((decayed, ffi_ratings(handle)), (1, vec![1570.25]));
    unsafe { elo_pool_free(handle) };
}

/// The worked life cycle's configuration of docs/seasons.md.
const LIFE_CYCLE: &str = r#"{ "k_policy": {"policy": "league"}, "demotion_margin": 30, "protected_games": 3,
  "leagues": [ {"name": "Bronze", "min_rating": 0, "k": 40},
               {"name": "Silver", "min_rating": 1450, "k": 32},
               {"name": "Gold", "min_rating": 1550, "k": 24, "season_keep": 0.25},
               {"name": "Platinum", "min_rating": 1650, "k": 16} ],
  "season_reset": {"anchor": "initial_rating", "keep": 0.5},
  "decay": {"grace_days": 7, "points_per_day": 4, "min_league": 2} }"#;

/// Defect 5: daily decay differed from one call when `min_rating` or `min_league` was set
/// (a Gold player at 1600 ended at 1516 after daily calls, 1500 after one call; with
/// `min_rating` 1580, 1570 and 1500). Decay now stops at `min_rating` and at the bound of
/// `min_league` as at a floor, so the call frequency does not matter. This also checks the
/// numbers of docs/seasons.md's worked example (step 4).
#[test]
fn decay_is_the_same_daily_or_in_one_call() {
    let check = |json: &str, start: &[f32], days: u32| -> Vec<f32> {
        let mut once = Pool::new(Config::from_json(json).unwrap());
        once.add_player_states(&start.iter().map(|&r| PlayerState::new(r)).collect::<Vec<_>>()).unwrap();
        let mut daily = once.clone();
        for day in 1..=days {
            daily.apply_decay(f64::from(day) * DAY, None).unwrap();
        }
        once.apply_decay(f64::from(days) * DAY, None).unwrap();
        assert_eq!(daily, once, "{json}: daily calls and one call");
        ratings(&once)
    };
    // docs/seasons.md, step 4: Gold at 1600 and Platinum at 1700, 32 days without a game.
    let mut pool = Pool::new(Config::from_json(LIFE_CYCLE).unwrap());
    pool.add_player_states(&[PlayerState::new(1600.0), PlayerState::new(1700.0), PlayerState::new(1540.0)]).unwrap();
    let mut events = Vec::new();
    pool.apply_decay(32.0 * DAY, Some(&mut events)).unwrap();
    assert_eq!(ratings(&pool), [1550.0, 1600.0, 1540.0], "Gold stops at Gold's bound; Platinum loses 100; Silver does not decay");
    assert_eq!(pool.league_counts(), [0, 1, 2, 0], "Platinum at 1600 < 1650 - 30: demoted to Gold");
    assert_eq!(events.len(), 1);
    assert_eq!(check(LIFE_CYCLE, &[1600.0, 1700.0, 1540.0], 32), [1550.0, 1600.0, 1540.0]);
    // The audit's min_rating case: 10 a day over 10 days from 1600 stops at 1580.
    let json = r#"{"decay":{"grace_days":0,"points_per_day":10,"min_rating":1580}}"#;
    assert_eq!(check(json, &[1600.0, 1590.0, 1575.0], 10), [1580.0, 1580.0, 1575.0]);
    // Integer rounding with a fractional stop: the same too.
    let json = r#"{"rounding":"truncate","decay":{"grace_days":0,"points_per_day":6,"min_rating":1577.5,"floor":1500}}"#;
    // 1600 - 22.5 truncated to -22: 1578, at or above the stop; daily calls end there too.
    assert_eq!(check(json, &[1600.0, 1640.25], 9), [1578.0, 1586.25]);
}

/// Defect 6: documented inclusive bounds were refused: the checks compared with the float
/// nearest 1e15 (999999986991104). Every documented bound is accepted exactly and refused
/// just beyond.
#[test]
fn documented_bounds_are_inclusive() {
    let beyond = |x: f64| format!("{}", x.next_up());
    // f64 settings: the bound itself, then the next double.
    for (field, bound) in [
        ("demotion_margin", 1e15f64),
        ("zero_sum_total", 1e15),
        ("zero_sum_total", -1e15),
        ("max_rating_difference", 2e15),
    ] {
        let at = format!(r#"{{"{field}": {bound:e}}}"#);
        assert_eq!(config_code(&at), EloResult::Ok, "{at}: {}", last_message());
        let past = if bound < 0.0 { format!("{}", bound.next_down()) } else { beyond(bound) };
        let past = format!(r#"{{"{field}": {past}}}"#);
        assert_eq!(config_code(&past), EloResult::InvalidConfig, "{past}");
    }
    for json in [r#"{"decay":{"points_per_day":1e15}}"#, r#"{"decay":{"grace_days":1e6}}"#] {
        assert_eq!(config_code(json), EloResult::Ok, "{json}: {}", last_message());
    }
    for json in [
        r#"{"decay":{"points_per_day":1000000000000000.2}}"#,
        r#"{"decay":{"grace_days":1000000.0000000001}}"#,
    ] {
        assert_eq!(config_code(json), EloResult::InvalidConfig, "{json}");
    }
    // Float settings (ratings): the JSON number becomes the nearest float first; 1e15
    // becomes 999999986991104 (accepted), and the next float, 1000000054099968, is refused.
    for field in ["initial_rating", "min_rating"] {
        assert_eq!(config_code(&format!(r#"{{"{field}": -1e15}}"#)), EloResult::Ok, "{field}: {}", last_message());
        assert_eq!(config_code(&format!(r#"{{"{field}": -1000000054099968}}"#)), EloResult::InvalidConfig, "{field}");
    }
    for json in [
        r#"{"decay":{"floor":1e15,"min_rating":1e15}}"#,
        r#"{"leagues":[{"name":"A","min_rating":-1e15,"k":1},{"name":"B","min_rating":1e15,"k":1}]}"#,
        r#"{"k_policy":{"policy":"rating_bands","tiers":[{"below":1e15,"k":1},{"k":2}]}}"#,
    ] {
        assert_eq!(config_code(json), EloResult::Ok, "{json}: {}", last_message());
        assert_eq!(config_code(&json.replace("1e15", "1000000054099968")), EloResult::InvalidConfig, "{json}");
    }
    // Matchmaker distances: 0 to 2e15.
    let mut queue = null_mut();
    assert_eq!(unsafe { elo_matchmaker_new(2e15, 2e15, 2e15, 4, 1, &mut queue) }, EloResult::Ok, "{}", last_message());
    unsafe { elo_matchmaker_free(queue) };
    let mut refused = null_mut();
    assert_eq!(unsafe { elo_matchmaker_new(0.0, 0.0, 2e15f64.next_up(), 4, 1, &mut refused) }, EloResult::InvalidConfig);
    // K, L, V, alpha: 0 to 1e6; logistic c and normal beta 1e-3 to 1e12; linear k up to 1e6.
    for json in [
        r#"{"k_policy":{"policy":"constant","k":1e6},"victory_bonus":1e6,"score_share_bonus":1e6,"streak_alpha":1e6}"#,
        r#"{"expected_score":{"model":"logistic","c":1e-3}}"#,
        r#"{"expected_score":{"model":"normal","beta":1e12}}"#,
        r#"{"expected_score":{"model":"linear","k":1e6}}"#,
    ] {
        assert_eq!(config_code(json), EloResult::Ok, "{json}: {}", last_message());
    }
    for json in [r#"{"victory_bonus":1000000.0000000001}"#, r#"{"expected_score":{"model":"logistic","c":0.000999999999999999}}"#, r#"{"expected_score":{"model":"normal","beta":1000000000000.0001}}"#] {
        assert_eq!(config_code(json), EloResult::InvalidConfig, "{json}");
    }
    // Ratings given to calls: 1e15 as a float is accepted, the next float refused.
    let config = ffi_config("{}");
    let (mut a, mut b) = (0.0, 0.0);
    assert_eq!(unsafe { elo_rate(config, 1e15, -1e15, 0.5, &mut a, &mut b) }, EloResult::Ok);
    assert_eq!(unsafe { elo_rate(config, 1e15f32.next_up(), 0.0, 0.5, &mut a, &mut b) }, EloResult::OutOfRange);
    unsafe { elo_config_free(config) };
}

/// Defect 7: a NaN or -inf `peak_rating` was accepted (the range check ran after a clamp
/// that let them through) by `elo_rate_teams`, `elo_rate_placements`,
/// `elo_pool_set_player` and the other functions that take states.
#[test]
fn non_finite_peak_ratings_are_refused_everywhere() {
    let config = ffi_config("{}");
    let pool = ffi_pool("{}", 4);
    for peak in [f32::NAN, f32::NEG_INFINITY, f32::INFINITY] {
        let bad = EloPlayerState { peak_rating: peak, ..EloPlayerState::from(PlayerState::new(1500.0)) };
        let good = EloPlayerState::from(PlayerState::new(1500.0));
        let mut members = [bad, good, good, good];
        assert_eq!(unsafe { elo_rate_teams(config, members.as_mut_ptr(), 2, 2, null(), 1.0) }, EloResult::NotFinite, "{peak}");
        assert!(last_message().contains("team_a[0].peak_rating"), "{}", last_message());
        assert_eq!(unsafe { elo_rate_placements(config, members.as_mut_ptr(), 4, [1, 2, 3, 4].as_ptr()) }, EloResult::NotFinite);
        assert!(last_message().contains("peak_rating"), "{}", last_message());
        assert_eq!(unsafe { elo_pool_set_player(pool, 0, &bad) }, EloResult::NotFinite);
        let (mut x, mut y) = (bad, good);
        assert_eq!(unsafe { elo_rate_players(config, &mut x, &mut y, 1.0) }, EloResult::NotFinite);
        let mut first = 0;
        assert_eq!(unsafe { elo_pool_add_player_states(pool, &bad, 1, &mut first) }, EloResult::NotFinite);
        assert_eq!(members[1].rating, 1500.0, "nothing written");
    }
    // Beyond the range: refused as out of range; f32::MIN (-FLT_MAX) keeps its meaning of
    // "unknown peak" (older saves), replaced by the rating.
    let far = EloPlayerState { peak_rating: -1e30, ..EloPlayerState::from(PlayerState::new(1500.0)) };
    assert_eq!(unsafe { elo_pool_set_player(pool, 0, &far) }, EloResult::OutOfRange);
    let unknown = EloPlayerState { peak_rating: f32::MIN, ..EloPlayerState::from(PlayerState::new(1500.0)) };
    assert_eq!(unsafe { elo_pool_set_player(pool, 0, &unknown) }, EloResult::Ok);
    let mut read = unknown;
    assert_eq!(unsafe { elo_pool_get_player(pool, 0, &mut read) }, EloResult::Ok);
    assert_eq!(read.peak_rating, 1500.0);
    unsafe {
        elo_pool_free(pool);
        elo_config_free(config);
    }
}

/// Also left from before: `elo_pool_set_player` in a zero-sum pool left the total
/// unbalanced until the next match (3100 instead of 3000), and a save written then
/// reloaded with that total. Now a set rebalances at once, as a match does: everybody,
/// the player set included, receives `(T - sum) / N`.
#[test]
fn setting_a_player_keeps_the_zero_sum_total() {
    let pool = ffi_pool(r#"{"zero_sum_total": 3000}"#, 2);
    let state = EloPlayerState::from(PlayerState::new(1600.0));
    assert_eq!(unsafe { elo_pool_set_player(pool, 0, &state) }, EloResult::Ok);
    assert_eq!(total(pool), 3000.0);
    assert_eq!(ffi_ratings(pool), [1550.0, 1450.0], "the 100 too many shared by both");
    // The save holds the balanced pool, and loads back to it.
    let mut len = 0;
    unsafe { elo_pool_to_json(pool, null_mut(), 0, &mut len) };
    let mut text = vec![0u8; len as usize + 1];
    assert_eq!(unsafe { elo_pool_to_json(pool, text.as_mut_ptr().cast(), len + 1, &mut len) }, EloResult::Ok);
    let loaded = ffi_pool("{}", 0);
    assert_eq!(unsafe { elo_pool_load_json(loaded, text.as_ptr().cast(), len) }, EloResult::Ok);
    assert_eq!((total(loaded), ffi_ratings(loaded)), (3000.0, vec![1550.0, 1450.0]));
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
    assert_eq!(ratings(&loaded), [1500.0, 1500.0]);
    // Every later read agrees: a match keeps it.
    loaded.apply(&[Match::new(0, 1, Outcome::WIN)], None).unwrap();
    assert_eq!(loaded.refresh_total(), 3000.0);
}
