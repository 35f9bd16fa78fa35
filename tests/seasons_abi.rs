//! Seasons through the C ABI: clock, events, season end, decay, the new player fields,
//! and the refusals (bad times, lengths, overlapping buffers, paths); the C ABI gives the
//! same bits as the Rust API.

use std::ptr::{null, null_mut};

use ranking_elo::ffi::*;
use ranking_elo::pool::{Match, MatchOutputs, Pool};
use ranking_elo::{Config, Outcome};

mod common;
use common::{ffi_pool, last_message};

const LADDER: &str = r#"{"k_policy":{"policy":"league"},"demotion_margin":25,"protected_games":2,
  "leagues":[{"name":"Bronze","min_rating":0,"k":40},{"name":"Silver","min_rating":1480,"k":32},{"name":"Gold","min_rating":1540,"k":24,"season_keep":0.2}],
  "season_reset":{"keep":0.5},"decay":{"grace_days":3,"points_per_day":6,"min_league":1}}"#;

fn list(players: i32, count: usize) -> (Vec<i32>, Vec<i32>, Vec<f32>) {
    let mut rng = common::SplitMix(11);
    let (mut a, mut b, mut s) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..count {
        let x = (rng.next() % players as u64) as i32;
        let y = (x + 1 + (rng.next() % (players as u64 - 1)) as i32) % players;
        a.push(x);
        b.push(y);
        s.push([0.0, 0.5, 1.0][(rng.next() % 3) as usize]);
    }
    (a, b, s)
}

fn states(pool: *const EloPool) -> Vec<EloPlayerState> {
    let mut len = 0;
    assert_eq!(unsafe { elo_pool_len(pool, &mut len) }, EloResult::Ok);
    let mut out = vec![EloPlayerState::from(ranking_elo::PlayerState::new(0.0)); len as usize];
    assert_eq!(unsafe { elo_pool_get_players(pool, 0, len, out.as_mut_ptr()) }, EloResult::Ok);
    out
}

#[test]
fn events_records_and_decay_match_the_rust_api() {
    let pool = ffi_pool(LADDER, 24);
    let mut rust = Pool::new(Config::from_json(LADDER).unwrap());
    rust.add_players(24);
    assert_eq!(unsafe { elo_pool_set_clock(pool, 1000.0) }, EloResult::Ok);
    rust.set_clock(1000.0).unwrap();
    let (a, b, s) = list(24, 3000);
    let mut events = vec![EloLeagueChange { position: -1, player: -1, from_league: -1, to_league: -1 }; 2 * a.len()];
    let mut count = -1;
    let code = unsafe { elo_pool_apply_events(pool, a.as_ptr(), b.as_ptr(), s.as_ptr(), a.len() as i32, events.as_mut_ptr(), events.len() as i32, &mut count) };
    assert_eq!(code, EloResult::Ok);
    let matches: Vec<Match> = (0..a.len()).map(|i| Match::new(a[i] as usize, b[i] as usize, Outcome::from_score(f64::from(s[i])).unwrap())).collect();
    let mut changes = Vec::new();
    rust.apply(&matches, Some(MatchOutputs { events: Some(&mut changes), ..MatchOutputs::default() })).unwrap();
    assert!(count > 10, "{count} events");
    assert_eq!(count as usize, changes.len());
    for (c, r) in events.iter().zip(&changes) {
        assert_eq!((c.position, c.player, c.from_league, c.to_league), (r.position as i32, r.player as i32, r.from as i32, r.to as i32));
    }
    let got = states(pool);
    for (i, state) in got.iter().enumerate() {
        assert_eq!(ranking_elo::PlayerState::from(state), rust.player(i).unwrap(), "player {i}");
        assert_eq!(state.last_played, 1000.0);
    }
    let mut clock = 0.0;
    assert_eq!(unsafe { elo_pool_get_clock(pool, &mut clock) }, EloResult::Ok);
    assert_eq!(clock, 1000.0);

    // A small event array: the count says how many happened, the array holds the first.
    let mut few = [EloLeagueChange { position: 0, player: 0, from_league: 0, to_league: 0 }; 2];
    let mut count_few = 0;
    let code = unsafe { elo_pool_apply_events(pool, a.as_ptr(), b.as_ptr(), s.as_ptr(), a.len() as i32, few.as_mut_ptr(), 2, &mut count_few) };
    assert_eq!(code, EloResult::Ok);
    rust.apply(&matches, None).unwrap();
    assert!(count_few > 2);

    // Decay, then the season's end, against the Rust API.
    let now = 1000.0 + 10.0 * 86_400.0;
    let (mut decay_count, mut decayed) = (-1, -1);
    let mut decay_events = vec![EloLeagueChange { position: 0, player: 0, from_league: 0, to_league: 0 }; 24];
    assert_eq!(unsafe { elo_pool_apply_decay(pool, now, decay_events.as_mut_ptr(), 24, &mut decay_count, &mut decayed) }, EloResult::Ok);
    let mut rust_decay = Vec::new();
    let moved = rust.apply_decay(now, Some(&mut rust_decay)).unwrap();
    assert_eq!((decayed as usize, decay_count as usize), (moved, rust_decay.len()));
    assert!(moved > 0);
    let mut records = vec![EloSeasonRecord { player: 0, rating: 0.0, peak_rating: 0.0, league: 0, peak_league: 0, games: 0, wins: 0 }; 24];
    let mut season_count = -1;
    let mut season_events = vec![EloLeagueChange { position: 0, player: 0, from_league: 0, to_league: 0 }; 24];
    let code = unsafe { elo_pool_end_season(pool, records.as_mut_ptr(), 24, null(), 0, season_events.as_mut_ptr(), 24, &mut season_count) };
    assert_eq!(code, EloResult::Ok);
    let rust_records = rust.end_season(None);
    for (c, r) in records.iter().zip(&rust_records) {
        assert_eq!(
            (c.player, c.rating.to_bits(), c.peak_rating.to_bits(), c.league, c.peak_league, c.games, c.wins),
            (r.player as i32, r.rating.to_bits(), r.peak_rating.to_bits(), r.league as i32, r.peak_league as i32, r.games, r.wins)
        );
    }
    assert!(records.iter().all(|r| r.games > 0));
    for (i, state) in states(pool).iter().enumerate() {
        assert_eq!(ranking_elo::PlayerState::from(state), rust.player(i).unwrap(), "player {i} after the reset");
        assert_eq!(state.season_games, 0);
    }
    unsafe { elo_pool_free(pool) };
}

#[test]
fn season_functions_refuse_bad_input_and_change_nothing() {
    let pool = ffi_pool(LADDER, 4);
    let before = states(pool);
    assert_eq!(unsafe { elo_pool_set_clock(pool, f64::NAN) }, EloResult::NotFinite);
    assert_eq!(unsafe { elo_pool_set_clock(null_mut(), 1.0) }, EloResult::NullPointer);
    assert_eq!(unsafe { elo_pool_get_clock(pool, null_mut()) }, EloResult::NullPointer);
    // Decay: time going back, infinite time.
    assert_eq!(unsafe { elo_pool_apply_decay(pool, 5e6, null_mut(), 0, null_mut(), null_mut()) }, EloResult::Ok);
    assert_eq!(unsafe { elo_pool_apply_decay(pool, 4e6, null_mut(), 0, null_mut(), null_mut()) }, EloResult::OutOfRange);
    assert!(last_message().contains("previous decay"), "{}", last_message());
    assert_eq!(unsafe { elo_pool_apply_decay(pool, f64::INFINITY, null_mut(), 0, null_mut(), null_mut()) }, EloResult::NotFinite);
    // Event arrays: negative capacity, missing count, overlapping an input.
    let (a, b, s) = ([0i32, 1], [1i32, 2], [1.0f32, 0.0]);
    let mut events = [EloLeagueChange { position: 0, player: 0, from_league: 0, to_league: 0 }; 4];
    let mut count = 0;
    let apply =
        |events: *mut EloLeagueChange, capacity: i32, count: *mut i32| unsafe { elo_pool_apply_events(pool, a.as_ptr(), b.as_ptr(), s.as_ptr(), 2, events, capacity, count) };
    assert_eq!(apply(events.as_mut_ptr(), -1, &mut count), EloResult::InvalidLength);
    assert_eq!(apply(events.as_mut_ptr(), 4, null_mut()), EloResult::NullPointer);
    assert_eq!(apply(null_mut(), 4, &mut count), EloResult::NullPointer);
    assert_eq!(apply(a.as_ptr().cast_mut().cast(), 1, &mut count), EloResult::OverlappingBuffers);
    let (bad_a, bad_b) = ([0i32, 9], [1i32, 2]);
    let code = unsafe { elo_pool_apply_events(pool, bad_a.as_ptr(), bad_b.as_ptr(), s.as_ptr(), 2, events.as_mut_ptr(), 4, &mut count) };
    assert_eq!(code, EloResult::IndexOutOfRange);
    assert!(last_message().starts_with("matches[1]"));
    // Season end: wrong record count, a path that names no file, a missing folder.
    let mut records = vec![EloSeasonRecord { player: 0, rating: 0.0, peak_rating: 0.0, league: 0, peak_league: 0, games: 0, wins: 0 }; 3];
    let code = unsafe { elo_pool_end_season(pool, records.as_mut_ptr(), 3, null(), 0, null_mut(), 0, null_mut()) };
    assert_eq!(code, EloResult::InvalidLength);
    assert!(last_message().contains("4 players"));
    for path in ["", "dir/", "/definitely/missing/folder/season.json"] {
        let code = unsafe { elo_pool_end_season(pool, null_mut(), 0, path.as_ptr().cast(), path.len() as i32, null_mut(), 0, null_mut()) };
        assert_ne!(code, EloResult::Ok, "{path:?}");
    }
    let bad_utf8 = [0xffu8, 0xfe];
    let code = unsafe { elo_pool_end_season(pool, null_mut(), 0, bad_utf8.as_ptr().cast(), 2, null_mut(), 0, null_mut()) };
    assert_ne!(code, EloResult::Ok);
    assert_eq!(states(pool), before, "nothing changed");
    // A player state with a league the configuration does not have.
    let mut state = EloPlayerState::from(ranking_elo::PlayerState::new(1500.0));
    state.league = 7;
    assert_eq!(unsafe { elo_pool_set_player(pool, 0, &state) }, EloResult::OutOfRange);
    assert!(last_message().contains("player.league"), "{}", last_message());
    state.league = -1;
    state.last_played = f64::NAN;
    assert_eq!(unsafe { elo_pool_set_player(pool, 0, &state) }, EloResult::NotFinite);
    assert_eq!(states(pool), before);
    // The season's records as a JSON file.
    let folder = std::env::temp_dir().join(format!("ranking-elo-season-abi-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("season.json");
    let path_text = path.to_str().unwrap();
    let mut records = vec![records[0]; 4];
    let code = unsafe { elo_pool_end_season(pool, records.as_mut_ptr(), 4, path_text.as_ptr().cast(), path_text.len() as i32, null_mut(), 0, null_mut()) };
    assert_eq!(code, EloResult::Ok);
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["records"][3]["rating"].as_f64().unwrap() as f32, records[3].rating);
    std::fs::remove_dir_all(&folder).unwrap();
    unsafe { elo_pool_free(pool) };
}

#[test]
fn new_player_states_are_unplaced_and_zeroed_ones_are_corrected() {
    let config = common::ffi_config(LADDER);
    let mut fresh = EloPlayerState::from(ranking_elo::PlayerState::new(0.0));
    assert_eq!(unsafe { elo_player_new(config, &mut fresh) }, EloResult::Ok);
    assert_eq!((fresh.league, fresh.peak_rating), (-1, 1500.0));
    // A zeroed state says league 0; a Gold rating is promoted by the game's settling, and
    // the league K policy used Gold's K (24), not Bronze's (40).
    let mut a = EloPlayerState { rating: 1600.0, ..EloPlayerState::from(ranking_elo::PlayerState::new(0.0)) };
    a.league = 0;
    a.peak_rating = 0.0;
    let mut b = EloPlayerState::from(ranking_elo::PlayerState::new(1600.0));
    assert_eq!(unsafe { elo_rate_players(config, &mut a, &mut b, 1.0) }, EloResult::Ok);
    assert_eq!((a.rating, a.league, b.league), (1612.0, 2, 2));
    unsafe { elo_config_free(config) };
}

#[test]
fn team_and_free_for_all_lists_report_events() {
    let pool = ffi_pool(LADDER, 0);
    let initial: Vec<EloPlayerState> = [1530.0, 1530.0, 1600.0, 1600.0].iter().map(|&r| EloPlayerState::from(ranking_elo::PlayerState::new(r))).collect();
    let mut first = -1;
    assert_eq!(unsafe { elo_pool_add_player_states(pool, initial.as_ptr(), 4, &mut first) }, EloResult::Ok);
    let mut rust = Pool::new(Config::from_json(LADDER).unwrap());
    rust.add_player_states(&initial.iter().map(ranking_elo::PlayerState::from).collect::<Vec<_>>()).unwrap();
    // Two team matches: the Silver pair beats the Gold pair twice.
    let (members, offsets, scores) = ([0i32, 1, 2, 3, 0, 1, 2, 3], [0i32, 2, 4, 6, 8], [1.0f32, 1.0]);
    let mut events = vec![EloLeagueChange { position: 0, player: 0, from_league: 0, to_league: 0 }; 8];
    let mut count = -1;
    let code = unsafe { elo_pool_apply_teams_events(pool, members.as_ptr(), offsets.as_ptr(), 2, null(), scores.as_ptr(), events.as_mut_ptr(), 8, &mut count) };
    assert_eq!(code, EloResult::Ok);
    let mut changes = Vec::new();
    let (a, b) = ([0usize, 1], [2usize, 3]);
    let team = ranking_elo::ladder::group_matches::TeamMatch::new(&a, &b, Outcome::WIN);
    rust.apply_teams_with_events(&[team, team], &mut changes).unwrap();
    assert!(count > 0 && count as usize == changes.len(), "{count} vs {changes:?}");
    for (c, r) in events.iter().zip(&changes) {
        assert_eq!((c.position, c.player, c.from_league, c.to_league), (r.position as i32, r.player as i32, r.from as i32, r.to as i32));
    }
    // A free-for-all: the last two finish first and second.
    let (entrants, ffa_offsets, places) = ([0i32, 1, 2, 3], [0i32, 4], [4i32, 3, 1, 2]);
    let code = unsafe { elo_pool_apply_placements_events(pool, entrants.as_ptr(), ffa_offsets.as_ptr(), 1, places.as_ptr(), events.as_mut_ptr(), 8, &mut count) };
    assert_eq!(code, EloResult::Ok);
    let mut changes = Vec::new();
    let (e, p) = ([0usize, 1, 2, 3], [4u32, 3, 1, 2]);
    rust.apply_placements_with_events(&[ranking_elo::ladder::group_matches::PlacementMatch { entrants: &e, places: &p }], &mut changes).unwrap();
    assert_eq!(count as usize, changes.len());
    for (i, state) in states(pool).iter().enumerate() {
        assert_eq!(ranking_elo::PlayerState::from(state), rust.player(i).unwrap());
    }
    // Refusals: the events array over an input, a bad list (nothing applied, no count).
    let code = unsafe { elo_pool_apply_placements_events(pool, entrants.as_ptr(), ffa_offsets.as_ptr(), 1, places.as_ptr(), places.as_ptr().cast_mut().cast(), 1, &mut count) };
    assert_eq!(code, EloResult::OverlappingBuffers);
    let before = states(pool);
    let bad = [0i32, 1, 2, 9];
    count = -7;
    let code = unsafe { elo_pool_apply_teams_events(pool, bad.as_ptr(), [0i32, 2, 4].as_ptr(), 1, null(), scores.as_ptr(), events.as_mut_ptr(), 8, &mut count) };
    assert_eq!(code, EloResult::IndexOutOfRange);
    assert_eq!((states(pool), count), (before, -7));
    unsafe { elo_pool_free(pool) };
}

#[test]
fn the_next_seasons_configuration_replaces_the_rules() {
    let pool = ffi_pool(LADDER, 3);
    let next = common::ffi_config(r#"{"leagues":[{"name":"One","min_rating":0,"k":10}],"k_policy":{"policy":"league"}}"#);
    assert_eq!(unsafe { elo_pool_set_config(pool, null()) }, EloResult::NullPointer);
    assert_eq!(unsafe { elo_pool_set_config(null_mut(), next) }, EloResult::NullPointer);
    assert_eq!(unsafe { elo_pool_set_config(pool, next) }, EloResult::Ok);
    unsafe { elo_config_free(next) };
    let (a, b, s) = ([0i32], [1i32], [1.0f32]);
    assert_eq!(unsafe { elo_pool_apply(pool, a.as_ptr(), b.as_ptr(), s.as_ptr(), 1, null_mut(), null_mut(), null_mut()) }, EloResult::Ok);
    let after = states(pool);
    assert_eq!((after[0].rating, after[1].rating, after[0].league), (1505.0, 1495.0, 0), "K 10 from the new league");
    unsafe { elo_pool_free(pool) };
}
