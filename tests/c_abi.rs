//! The C ABI's error handling, called from Rust: every bad input gets its own code and a
//! message naming the argument, outputs are untouched on failure, sizes are checked before
//! anything is copied, and no output may overlap another output or an input.

use std::ptr::{null, null_mut};

use ranking_elo::ffi::*;
use ranking_elo::ladder::group_matches::{PlacementMatch, TeamMatch};
use ranking_elo::pool::Pool;
use ranking_elo::{Config, Outcome, PlayerState};

mod common;
use common::{ffi_config, ffi_pool, ffi_ratings, ffi_try_config, last_message};

#[cfg(unix)]
#[path = "fuzz_checks/sparse.rs"]
mod sparse;

const DAY: f64 = 86_400.0;

fn config(json: &str) -> Result<*mut EloConfig, (EloResult, String)> {
    let mut handle = null_mut();
    match unsafe { elo_config_from_json(json.as_ptr().cast(), json.len() as i32, &mut handle) } {
        EloResult::Ok => Ok(handle),
        code => {
            assert!(handle.is_null(), "output written on failure");
            Err((code, last_message()))
        }
    }
}

#[test]
fn json_errors_have_their_own_codes_and_name_the_field() {
    let cases = [
        ("{", EloResult::InvalidJson, "EOF"),
        (r#"{"k_factor": 3}"#, EloResult::UnknownJsonField, "k_factor"),
        (r#"{"k_policy":{"policy":"constant","k":-1}}"#, EloResult::InvalidConfig, "k_policy.k"),
        (r#"{"expected_score":{"model":"logistic","c":0}}"#, EloResult::InvalidConfig, "expected_score.c"),
        (r#"{"leagues":[{"name":"B","min_rating":5,"k":1},{"name":"A","min_rating":1,"k":1}]}"#, EloResult::InvalidConfig, "leagues[1].min_rating"),
    ];
    for (json, code, needle) in cases {
        let (got, message) = config(json).unwrap_err();
        assert_eq!(got, code, "{json}");
        assert!(message.contains(needle), "{json}: {message}");
        assert_eq!(elo_last_error_code(), code);
    }
    let bad_utf8 = [b'{', 0xff, b'}'];
    let mut handle = null_mut();
    assert_eq!(unsafe { elo_config_from_json(bad_utf8.as_ptr().cast(), 3, &mut handle) }, EloResult::InvalidUtf8);
    assert_eq!(unsafe { elo_config_from_json(null(), 3, &mut handle) }, EloResult::NullPointer);
    assert_eq!(unsafe { elo_config_from_json(b"{}".as_ptr().cast(), -1, &mut handle) }, EloResult::InvalidLength);
    assert!(last_message().contains("json_len"));
    assert_eq!(unsafe { elo_config_from_json(b"{}".as_ptr().cast(), 2, null_mut()) }, EloResult::NullPointer);
    assert!(last_message().contains("out_config"));
}

#[test]
fn config_json_round_trip_and_buffer_rules() {
    let original = config(r#"{"rounding":"truncate","min_rating":100}"#).unwrap();
    let mut len = 0;
    assert_eq!(unsafe { elo_config_to_json(original, null_mut(), 0, &mut len) }, EloResult::BufferTooSmall);
    let mut small = vec![7u8; len as usize]; // one byte short (no room for the NUL)
    assert_eq!(unsafe { elo_config_to_json(original, small.as_mut_ptr().cast(), len, &mut len) }, EloResult::BufferTooSmall);
    assert!(small.iter().all(|&b| b == 7), "nothing written to a too-small buffer");
    let mut buffer = vec![0u8; len as usize + 1];
    assert_eq!(unsafe { elo_config_to_json(original, buffer.as_mut_ptr().cast(), buffer.len() as i32, &mut len) }, EloResult::Ok);
    let json = std::str::from_utf8(&buffer[..len as usize]).unwrap();
    assert!(json.contains("\"truncate\""));
    let copy = config(json).unwrap();
    let (mut a1, mut b1, mut a2, mut b2) = (0.0, 0.0, 0.0, 0.0);
    unsafe {
        assert_eq!(elo_rate(original, 1700.0, 1300.0, 1.0, &mut a1, &mut b1), EloResult::Ok);
        assert_eq!(elo_rate(copy, 1700.0, 1300.0, 1.0, &mut a2, &mut b2), EloResult::Ok);
        elo_config_free(original);
        elo_config_free(copy);
        elo_config_free(null_mut());
    }
    assert_eq!((a1, b1), (1702.0, 1298.0));
    assert_eq!((a1, b1), (a2, b2));
}

#[test]
fn single_call_errors() {
    let cfg = config("{}").unwrap();
    let (mut a, mut b) = (-1.0f32, -1.0f32);
    let (pa, pb): (*mut f32, *mut f32) = (&mut a, &mut b);
    type Call = Box<dyn Fn() -> EloResult>;
    let cases: Vec<(Call, &str, EloResult)> = vec![
        (Box::new(move || unsafe { elo_rate(cfg, f32::NAN, 1.0, 1.0, pa, pb) }), "rating_a", EloResult::NotFinite),
        (Box::new(move || unsafe { elo_rate(cfg, 1.0, f32::INFINITY, 1.0, pa, pb) }), "rating_b", EloResult::NotFinite),
        (Box::new(move || unsafe { elo_rate(cfg, 1.0, 1.0, 1.5, pa, pb) }), "score_a", EloResult::ScoreOutOfRange),
        (Box::new(move || unsafe { elo_rate_points(cfg, 1.0, 1.0, -2.0, 1.0, pa, pb) }), "points_a", EloResult::NegativePoints),
        (Box::new(move || unsafe { elo_rate_points(cfg, 1.0, 1.0, 2.0, f32::NAN, pa, pb) }), "points_b", EloResult::NotFinite),
        (Box::new(move || unsafe { elo_rate_with_k(cfg, 1.0, 1.0, 1.0, -32.0, 32.0, pa, pb) }), "k_a", EloResult::NegativeK),
        (Box::new(move || unsafe { elo_rate(null(), 1.0, 1.0, 1.0, pa, pb) }), "config", EloResult::NullPointer),
        (Box::new(move || unsafe { elo_rate(cfg, 1.0, 1.0, 1.0, pa, null_mut()) }), "out_rating_b", EloResult::NullPointer),
        (Box::new(move || unsafe { elo_expected_score(cfg, 1.0, f32::NAN, pa) }), "rating_b", EloResult::NotFinite),
    ];
    for (call, needle, code) in cases {
        assert_eq!(call(), code, "{needle}");
        let message = last_message();
        assert!(message.contains(needle), "{needle}: {message}");
    }
    assert_eq!((a, b), (-1.0, -1.0), "outputs untouched on failure");
    let fide = config(r#"{"k_policy":{"policy":"fide"}}"#).unwrap();
    assert_eq!(unsafe { elo_rate(fide, 1.0, 1.0, 1.0, &mut a, &mut b) }, EloResult::KPolicyNeedsPlayerState);
    // With player state the FIDE policy works and both states advance.
    let mut p1 = EloPlayerState { games_played: 40, ..EloPlayerState::from(ranking_elo::PlayerState::new(2390.0)) };
    let mut p2 = EloPlayerState { rating: 2390.0, ..p1 };
    assert_eq!(unsafe { elo_rate_players(fide, &mut p1, &mut p2, 1.0) }, EloResult::Ok);
    assert_eq!((p1.rating, p2.rating), (2400.0, 2380.0)); // K = 20, E = 0.5
    assert_eq!((p1.has_reached_2400, p1.win_streak, p1.games_played, p2.win_streak), (1, 1, 41, 0));
    let before = p1;
    assert_eq!(unsafe { elo_rate_players(fide, &mut p1, &mut p1, 1.0) }, EloResult::SamePlayer);
    assert_eq!(unsafe { elo_rate_players(fide, &mut p1, &mut p2, f32::NAN) }, EloResult::NotFinite);
    assert_eq!(p1, before);
    unsafe {
        elo_config_free(cfg);
        elo_config_free(fide);
    }
}

#[test]
fn batch_errors_leave_outputs_untouched() {
    let cfg = config("{}").unwrap();
    let ra = [1500.0f32, 1600.0, 1700.0];
    let rb = [1500.0f32, 1400.0, 1300.0];
    let good = [1.0f32, 0.5, 0.0];
    let bad_score = [1.0f32, 0.5, 2.0];
    let (mut out_a, mut out_b) = ([9.0f32; 3], [9.0f32; 3]);
    let run = |scores: &[f32], k: *const f32, count: i32, out_a: &mut [f32; 3], out_b: &mut [f32; 3]| unsafe {
        elo_rate_batch(cfg, ra.as_ptr(), rb.as_ptr(), scores.as_ptr(), k, count, out_a.as_mut_ptr(), out_b.as_mut_ptr())
    };
    assert_eq!(run(&bad_score, null(), 3, &mut out_a, &mut out_b), EloResult::ScoreOutOfRange);
    assert!(last_message().contains("score_a[2]"));
    assert_eq!(run(&good, [1.0f32, f32::NAN, 1.0].as_ptr(), 3, &mut out_a, &mut out_b), EloResult::NotFinite);
    assert!(last_message().contains("k[1]"));
    assert_eq!(run(&good, [1.0f32, -1.0, 1.0].as_ptr(), 3, &mut out_a, &mut out_b), EloResult::NegativeK);
    assert_eq!(run(&good, null(), -3, &mut out_a, &mut out_b), EloResult::InvalidLength);
    assert_eq!((out_a, out_b), ([9.0; 3], [9.0; 3]));
    // NULL arrays are an error unless the count is 0.
    assert_eq!(unsafe { elo_rate_batch(cfg, null(), rb.as_ptr(), good.as_ptr(), null(), 3, out_a.as_mut_ptr(), out_b.as_mut_ptr()) }, EloResult::NullPointer);
    assert!(last_message().contains("rating_a"));
    assert_eq!(unsafe { elo_rate_batch(cfg, null(), null(), null(), null(), 0, null_mut(), null_mut()) }, EloResult::Ok);
    // Overlaps other than exactly in place are refused.
    let mut ratings = [1500.0f32, 1500.0, 1600.0, 1400.0];
    let p = ratings.as_mut_ptr();
    let code = unsafe { elo_rate_batch(cfg, p, p.add(2), good.as_ptr(), null(), 2, p.add(1), p.add(3)) };
    assert_eq!(code, EloResult::OverlappingBuffers);
    assert_eq!(ratings, [1500.0, 1500.0, 1600.0, 1400.0]);
    // Exactly in place works.
    let (mut a, mut b) = (ra, rb);
    assert_eq!(unsafe { elo_rate_batch(cfg, a.as_ptr(), b.as_ptr(), good.as_ptr(), null(), 3, a.as_mut_ptr(), b.as_mut_ptr()) }, EloResult::Ok);
    assert_eq!(run(&good, null(), 3, &mut out_a, &mut out_b), EloResult::Ok);
    assert_eq!((a, b), (out_a, out_b));
    unsafe { elo_config_free(cfg) };
}

#[test]
fn result_descriptions_and_version() {
    for code in EloResult::ALL {
        let mut len = 0;
        let mut buffer = [0u8; 128];
        assert_eq!(unsafe { elo_result_description(code as u32, buffer.as_mut_ptr().cast(), 128, &mut len) }, EloResult::Ok);
        assert!(len > 0);
    }
    let version = unsafe { std::ffi::CStr::from_ptr(elo_version()) };
    assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}

#[test]
fn mirrors_document_nan() {
    assert!(elo_get_probability_winning(f32::NAN, 1.0).is_nan());
    let v = elo_update_player_rankings(1.0, f32::NEG_INFINITY, 32.0, 1);
    assert!(v.x.is_nan() && v.y.is_nan());
    let v = elo_update_player_rankings(1700.0, 1300.0, 32.0, 0);
    assert_eq!((v.x, v.y), (1_670.909, 1_329.091));
}

/// Configuration JSON given as an array is not read by position: every record must be an
/// object (`[{"model": "linear"}, 5]` is not a configuration).
#[test]
fn configuration_json_given_as_arrays_is_refused() {
    for json in ["[]", r#"[{"model":"linear","k":0.5},5]"#, r#"{"expected_score":["linear",0.5]}"#, r#"{"leagues":[["A",0,10]]}"#] {
        assert_eq!(ffi_try_config(json).0, EloResult::InvalidJson, "{json}");
        assert!(last_message().contains("expected an object"), "{json}: {}", last_message());
    }
}

/// Huge sizes are refused before anything is copied: team sizes (1 to 64) and entrant
/// counts (2 to 256) are checked first (states and indices were once copied before, and
/// "memory allocation of 120259084232 bytes failed" aborted the process). The caller's
/// buffers here really are that large (sparse mappings), so every call is within the
/// header's contract; each must be refused after reading no more than the few values that
/// show the shape is wrong.
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

/// Every output is checked for overlap with the call's other outputs and inputs (outputs
/// other than the event array once were not: these calls returned OK and corrupted the
/// caller's memory), and NULL `out_events` with a capacity and no count says what is wrong.
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
    let file = std::env::temp_dir().join(format!("ranking-elo-overlap-{}.json", std::process::id()));
    let path = file.to_string_lossy().into_owned();
    let code = unsafe { elo_pool_end_season(pool, records.as_mut_ptr(), 6, path.as_ptr().cast(), path.len() as i32, null_mut(), 0, null_mut()) };
    assert_eq!(code, EloResult::Ok, "separate buffers: {}", last_message());
    std::fs::remove_file(&file).unwrap();
    let mut path_in_records = records;
    let text = std::ptr::addr_of_mut!(path_in_records[2]).cast::<u8>();
    let name = b"/tmp/ranking-elo-overlap-x.json";
    unsafe { std::ptr::copy_nonoverlapping(name.as_ptr(), text, name.len()) };
    let code = unsafe { elo_pool_end_season(pool, path_in_records.as_mut_ptr(), 6, text.cast(), name.len() as i32, null_mut(), 0, null_mut()) };
    assert_eq!(code, EloResult::OverlappingBuffers, "{}", last_message());
    let before = ffi_ratings(pool);

    // elo_pool_apply_teams_events with out_event_count = &members[0].
    let mut members = [0, 1, 2, 3];
    let (offsets, score) = ([0, 2, 4], [1.0f32]);
    let code = unsafe { elo_pool_apply_teams_events(pool, members.as_ptr(), offsets.as_ptr(), 1, null(), score.as_ptr(), events.as_mut_ptr(), 6, members.as_mut_ptr()) };
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
    assert_eq!(unsafe { elo_matchmaker_tick_free_for_all(queue, 0.0, 2, ids.as_mut_ptr(), 2, pairs) }, EloResult::OverlappingBuffers);
    let mut counts = [0i32; 4];
    let (a, b) = (counts.as_mut_ptr(), unsafe { counts.as_mut_ptr().add(1) });
    assert_eq!(unsafe { elo_matchmaker_tick_team_matches(queue, 0.0, 1, ids.as_mut_ptr(), a, b, 2, pairs) }, EloResult::OverlappingBuffers, "counts overlap");
    assert_eq!(unsafe { elo_matchmaker_tick_team_matches(queue, 0.0, 1, ids.as_mut_ptr(), a, a, 1, pairs) }, EloResult::OverlappingBuffers, "the same counts");
    assert_eq!(unsafe { elo_matchmaker_join_party(queue, 1, 1500.0, 0, 0.0) }, EloResult::OutOfRange);
    assert_eq!(unsafe { elo_matchmaker_join_party(queue, 1, 1500.0, 65, 0.0) }, EloResult::OutOfRange);
    assert_eq!(unsafe { elo_matchmaker_join_party(queue, 1, f32::NAN, 2, 0.0) }, EloResult::NotFinite);
    assert_eq!(unsafe { elo_matchmaker_tick_free_for_all(queue, 0.0, 1, ids.as_mut_ptr(), 1, &mut counts[3]) }, EloResult::OutOfRange);
    assert_eq!(ffi_ratings(pool), before, "nothing applied");
    unsafe {
        elo_matchmaker_free(queue);
        elo_config_free(config);
        elo_pool_free(pool);
    }
}
