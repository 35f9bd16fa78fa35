//! The pool and matchmaker C ABI: atomic application with positions in errors, outputs,
//! leaderboards, saves (in memory and on disk), and use from two threads at once.

use std::ptr::{null, null_mut};

use ranking_elo::ffi::*;

mod common;
use common::{ffi_pool as pool_with, ffi_ratings as ratings, ffi_save_text, last_message};

#[test]
fn bad_matches_are_refused_with_their_position_and_change_nothing() {
    let pool = pool_with("{}", 4);
    let before = ratings(pool);
    // (players a, players b, scores, the error, the argument it names)
    type Case<'a> = (&'a [i32], &'a [i32], &'a [f32], EloResult, &'a str);
    let cases: [Case; 5] = [
        (&[0, 1, 2], &[1, 2, 9], &[1.0, 1.0, 1.0], EloResult::IndexOutOfRange, "matches[2]"),
        (&[0, -1], &[1, 2], &[1.0, 1.0], EloResult::IndexOutOfRange, "matches[1]"),
        (&[0, 3], &[1, 3], &[1.0, 0.0], EloResult::SamePlayer, "matches[1]"),
        (&[0, 1], &[1, 2], &[1.0, 1.5], EloResult::ScoreOutOfRange, "matches[1]"),
        (&[0, 1], &[1, 2], &[f32::NAN, 1.0], EloResult::NotFinite, "matches[0]"),
    ];
    for (a, b, s, code, position) in cases {
        let got = unsafe { elo_pool_apply(pool, a.as_ptr(), b.as_ptr(), s.as_ptr(), a.len() as i32, null_mut(), null_mut(), null_mut()) };
        assert_eq!(got, code);
        let message = last_message();
        assert!(message.starts_with(position) && message.contains("nothing was applied"), "{message}");
        assert_eq!(ratings(pool), before);
    }
    let (pa, pb) = ([0i32, 1], [1i32, 2]);
    let code = unsafe { elo_pool_apply_points(pool, pa.as_ptr(), pb.as_ptr(), [3.0f32, -1.0].as_ptr(), [2.0f32, 1.0].as_ptr(), 2, null_mut(), null_mut(), null_mut()) };
    assert_eq!(code, EloResult::NegativePoints);
    assert!(last_message().starts_with("matches[1]"));
    assert_eq!(ratings(pool), before);
    unsafe { elo_pool_free(pool) };
}

#[test]
fn apply_outputs_leaderboard_and_player_state() {
    let pool = pool_with(r#"{"leagues":[{"name":"Low","min_rating":0,"k":32},{"name":"High","min_rating":1510,"k":16}]}"#, 5);
    let (a, b, s) = ([3i32, 3], [1i32, 4], [1.0f32, 1.0]);
    let (mut da, mut db, mut ea) = ([0.0f32; 2], [0.0f32; 2], [0.0f32; 2]);
    assert_eq!(unsafe { elo_pool_apply(pool, a.as_ptr(), b.as_ptr(), s.as_ptr(), 2, da.as_mut_ptr(), db.as_mut_ptr(), ea.as_mut_ptr()) }, EloResult::Ok);
    assert_eq!((da[0], db[0], ea[0]), (16.0, -16.0, 0.5));
    let mut top = [0i32; 10];
    let mut count = 0;
    assert_eq!(unsafe { elo_pool_top(pool, 10, top.as_mut_ptr(), &mut count) }, EloResult::Ok);
    assert_eq!((count, top[0]), (5, 3));
    assert_eq!(unsafe { elo_pool_bottom(pool, 1, top.as_mut_ptr(), &mut count) }, EloResult::Ok);
    assert_eq!((count, top[0]), (1, 1));
    let mut rank = 0;
    assert_eq!(unsafe { elo_pool_rank(pool, 3, &mut rank) }, EloResult::Ok);
    assert_eq!(rank, 1);
    let mut counts = [0i32; 2];
    let mut leagues = 0;
    assert_eq!(unsafe { elo_pool_league_counts(pool, counts.as_mut_ptr(), 1, &mut leagues) }, EloResult::BufferTooSmall);
    assert_eq!(leagues, 2);
    assert_eq!(unsafe { elo_pool_league_counts(pool, counts.as_mut_ptr(), 2, &mut leagues) }, EloResult::Ok);
    assert_eq!(counts, [4, 1]);
    let mut leagues = [9i32; 5];
    assert_eq!(unsafe { elo_pool_get_leagues(pool, 0, 5, leagues.as_mut_ptr()) }, EloResult::Ok);
    assert_eq!(leagues, [0, 0, 0, 1, 0]);
    assert_eq!(unsafe { elo_pool_get_leagues(pool, 3, 5, leagues.as_mut_ptr()) }, EloResult::IndexOutOfRange);
    let mut player = EloPlayerState { games_played: 0, ..EloPlayerState::from(ranking_elo::PlayerState::new(0.0)) };
    assert_eq!(unsafe { elo_pool_get_player(pool, 3, &mut player) }, EloResult::Ok);
    assert_eq!((player.games_played, player.win_streak), (2, 2));
    assert_eq!(unsafe { elo_pool_get_player(pool, 5, &mut player) }, EloResult::IndexOutOfRange);
    player.rating = 2000.0;
    assert_eq!(unsafe { elo_pool_set_player(pool, 0, &player) }, EloResult::Ok);
    assert_eq!(ratings(pool)[0], 2000.0);
    player.rating = f32::NAN;
    assert_eq!(unsafe { elo_pool_set_player(pool, 0, &player) }, EloResult::NotFinite);
    let mut many = [player; 5];
    assert_eq!(unsafe { elo_pool_get_players(pool, 1, 5, many.as_mut_ptr()) }, EloResult::IndexOutOfRange);
    assert_eq!(unsafe { elo_pool_get_players(pool, 0, 5, many.as_mut_ptr()) }, EloResult::Ok);
    assert_eq!(many[0].rating, 2000.0);
    unsafe { elo_pool_free(pool) };
}

#[test]
fn saves_round_trip_and_bad_saves_leave_the_pool_alone() {
    let pool = pool_with(r#"{"zero_sum_total": 0, "rounding": "truncate"}"#, 20);
    let a: Vec<i32> = (0..19).collect();
    let b: Vec<i32> = (1..20).collect();
    let s: Vec<f32> = (0..19).map(|i| (i % 3) as f32 / 2.0).collect();
    assert_eq!(unsafe { elo_pool_apply(pool, a.as_ptr(), b.as_ptr(), s.as_ptr(), 19, null_mut(), null_mut(), null_mut()) }, EloResult::Ok);
    let mut len = 0;
    assert_eq!(unsafe { elo_pool_to_json(pool, null_mut(), 0, &mut len) }, EloResult::BufferTooSmall);
    let mut text = vec![0u8; len as usize + 1];
    assert_eq!(unsafe { elo_pool_to_json(pool, text.as_mut_ptr().cast(), len + 1, &mut len) }, EloResult::Ok);
    text.truncate(len as usize);

    let copy = pool_with("{}", 0);
    assert_eq!(unsafe { elo_pool_load_json(copy, text.as_ptr().cast(), len) }, EloResult::Ok);
    assert_eq!(ratings(copy).iter().map(|r| r.to_bits()).collect::<Vec<_>>(), ratings(pool).iter().map(|r| r.to_bits()).collect::<Vec<_>>());
    let before = ratings(copy);
    assert_eq!(unsafe { elo_pool_load_json(copy, text.as_ptr().cast(), len - 7) }, EloResult::InvalidSave);
    assert!(last_message().contains("not a complete save file"));
    assert_eq!(ratings(copy), before);

    let dir = std::env::temp_dir().join(format!("ranking-elo-abi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pool.json").to_string_lossy().into_owned();
    assert_eq!(unsafe { elo_pool_save_file(pool, path.as_ptr().cast(), path.len() as i32) }, EloResult::Ok);
    let fresh = pool_with("{}", 3);
    assert_eq!(unsafe { elo_pool_load_file(fresh, path.as_ptr().cast(), path.len() as i32) }, EloResult::Ok);
    assert_eq!(ratings(fresh), ratings(pool));
    let truncated = std::fs::read(&path).unwrap();
    std::fs::write(&path, &truncated[..truncated.len() / 2]).unwrap();
    assert_eq!(unsafe { elo_pool_load_file(fresh, path.as_ptr().cast(), path.len() as i32) }, EloResult::InvalidSave);
    let missing = dir.join("missing.json").to_string_lossy().into_owned();
    assert_eq!(unsafe { elo_pool_load_file(fresh, missing.as_ptr().cast(), missing.len() as i32) }, EloResult::Io);
    assert_eq!(ratings(fresh), ratings(pool));
    std::fs::remove_dir_all(&dir).unwrap();
    unsafe {
        elo_pool_free(pool);
        elo_pool_free(copy);
        elo_pool_free(fresh);
        elo_pool_free(null_mut());
    }
}

/// Two threads apply matches to one pool at once: calls are serialized, nothing is lost
/// or corrupted (every game is counted, the zero-sum total holds).
#[test]
fn a_pool_used_from_two_threads_is_never_corrupted() {
    struct Shared(*mut EloPool);
    unsafe impl Send for Shared {}
    unsafe impl Sync for Shared {}
    let shared = std::sync::Arc::new(Shared(pool_with(r#"{"zero_sum_total": 150000}"#, 100)));
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let shared = std::sync::Arc::clone(&shared);
            std::thread::spawn(move || {
                for round in 0..500 {
                    let a: Vec<i32> = (0..50).map(|i| (i * 2 + t) % 100).collect();
                    let b: Vec<i32> = (0..50).map(|i| (i * 2 + t + 1 + round % 7 * 2) % 100).collect();
                    let s: Vec<f32> = (0..50).map(|i| ((i + round) % 2) as f32).collect();
                    let code = unsafe { elo_pool_apply(shared.0, a.as_ptr(), b.as_ptr(), s.as_ptr(), 50, null_mut(), null_mut(), null_mut()) };
                    assert_eq!(code, EloResult::Ok);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let mut players = vec![EloPlayerState { games_played: 0, ..EloPlayerState::from(ranking_elo::PlayerState::new(0.0)) }; 100];
    assert_eq!(unsafe { elo_pool_get_players(shared.0, 0, 100, players.as_mut_ptr()) }, EloResult::Ok);
    let games: u32 = players.iter().map(|p| p.games_played).sum();
    assert_eq!(games, 2 * 500 * 50 * 2);
    let mut total = 0.0;
    assert_eq!(unsafe { elo_pool_total(shared.0, &mut total) }, EloResult::Ok);
    assert!((total - 150_000.0).abs() < 1e-6, "{total}");
    unsafe { elo_pool_free(shared.0) };
}

#[test]
fn matchmaker_abi() {
    let mut queue = null_mut();
    assert_eq!(unsafe { elo_matchmaker_new(100.0, 10.0, 50.0, 4, 1, &mut queue) }, EloResult::InvalidConfig);
    assert!(last_message().contains("max_distance"));
    assert_eq!(unsafe { elo_matchmaker_new(100.0, 10.0, 400.0, 0, 1, &mut queue) }, EloResult::InvalidConfig);
    assert_eq!(unsafe { elo_matchmaker_new(100.0, 10.0, 400.0, 4, 1, &mut queue) }, EloResult::Ok);
    for (id, rating) in [(10u64, 1500.0f32), (11, 1550.0), (12, 2500.0)] {
        assert_eq!(unsafe { elo_matchmaker_join(queue, id, rating, 0.0) }, EloResult::Ok);
    }
    assert_eq!(unsafe { elo_matchmaker_join(queue, 10, 1500.0, 0.0) }, EloResult::DuplicateId);
    assert_eq!(unsafe { elo_matchmaker_join(queue, 13, f32::NAN, 0.0) }, EloResult::NotFinite);
    let (mut a, mut b, mut pairs) = ([0u64; 4], [0u64; 4], 0);
    assert_eq!(unsafe { elo_matchmaker_tick(queue, 1.0, a.as_mut_ptr(), b.as_mut_ptr(), 4, &mut pairs) }, EloResult::Ok);
    assert_eq!((pairs, a[0], b[0]), (1, 10, 11));
    let mut len = 0;
    assert_eq!(unsafe { elo_matchmaker_len(queue, &mut len) }, EloResult::Ok);
    assert_eq!(len, 1);
    let mut was = 9u8;
    assert_eq!(unsafe { elo_matchmaker_leave(queue, 12, &mut was) }, EloResult::Ok);
    assert_eq!(was, 1);
    assert_eq!(unsafe { elo_matchmaker_leave(queue, 12, &mut was) }, EloResult::Ok);
    assert_eq!(was, 0);
    assert_eq!(unsafe { elo_matchmaker_tick(queue, f64::NAN, a.as_mut_ptr(), b.as_mut_ptr(), 4, &mut pairs) }, EloResult::NotFinite);
    assert_eq!(unsafe { elo_matchmaker_tick(null_mut(), 1.0, a.as_mut_ptr(), b.as_mut_ptr(), 4, &mut pairs) }, EloResult::NullPointer);
    assert_eq!(unsafe { elo_matchmaker_tick(queue, 1.0, null_mut(), b.as_mut_ptr(), 4, &mut pairs) }, EloResult::NullPointer);
    unsafe {
        elo_matchmaker_free(queue);
        elo_matchmaker_free(null_mut());
    }
    let _ = null::<u8>();
}

/// Counts that size buffers are bounded: a pool asked for more players than memory holds
/// refuses instead of aborting, and `elo_matchmaker_new(100, 10, 400, INT32_MAX, …)` is
/// refused (it was once accepted, and the first tick allocated 64 GB and aborted the
/// process).
#[test]
fn matchmaker_counts_that_size_buffers_are_bounded() {
    // A pool asked for more players than memory holds refuses instead of aborting.
    let pool = pool_with("{}", 1);
    let mut first = -1;
    assert_eq!(unsafe { elo_pool_add_players(pool, i32::MAX - 1, &mut first) }, EloResult::InvalidLength, "{}", last_message());
    assert_eq!((first, ratings(pool).len()), (-1, 1));
    unsafe { elo_pool_free(pool) };

    let mut queue = null_mut();
    assert_eq!(unsafe { elo_matchmaker_new(100.0, 10.0, 400.0, i32::MAX, 1, &mut queue) }, EloResult::InvalidConfig);
    assert!(last_message().contains("candidates"), "{}", last_message());
    assert!(queue.is_null());
    assert_eq!(unsafe { elo_matchmaker_new(100.0, 10.0, 1e300, 4, 1, &mut queue) }, EloResult::InvalidConfig);
    assert_eq!(unsafe { elo_matchmaker_new(100.0, 10.0, 400.0, 128, 1, &mut queue) }, EloResult::Ok);
    for id in 0..2 {
        assert_eq!(unsafe { elo_matchmaker_join(queue, id, 1500.0, 0.0) }, EloResult::Ok);
    }
    let (mut a, mut b, mut pairs) = ([0u64; 4], [0u64; 4], 0);
    assert_eq!(unsafe { elo_matchmaker_tick(queue, 1.0, a.as_mut_ptr(), b.as_mut_ptr(), 4, &mut pairs) }, EloResult::Ok);
    assert_eq!(pairs, 1);
    unsafe { elo_matchmaker_free(queue) };
}

/// Aliased outputs are refused and change nothing, as `elo_rate_batch` refuses them: the
/// outputs of `elo_pool_apply` over each other or over an input, and the two id arrays of
/// `elo_matchmaker_tick`.
#[test]
fn aliased_outputs_are_refused_and_change_nothing() {
    let pool = pool_with("{}", 4);
    let before = ffi_save_text(pool);
    let (a, b, s) = ([0, 2], [1, 3], [1.0f32, 0.0]);
    let mut out = [0.0f32; 4];
    let o = out.as_mut_ptr();
    let apply = |d1: *mut f32, d2: *mut f32, e: *mut f32| unsafe { elo_pool_apply(pool, a.as_ptr(), b.as_ptr(), s.as_ptr(), 2, d1, d2, e) };
    assert_eq!(apply(o, o, null_mut()), EloResult::OverlappingBuffers);
    assert_eq!(apply(o, unsafe { o.add(1) }, null_mut()), EloResult::OverlappingBuffers);
    assert_eq!(apply(null_mut(), o, o), EloResult::OverlappingBuffers);
    let mut scores = [1.0f32, 0.0];
    assert_eq!(
        unsafe { elo_pool_apply(pool, a.as_ptr(), b.as_ptr(), scores.as_ptr(), 2, scores.as_mut_ptr(), null_mut(), null_mut()) },
        EloResult::OverlappingBuffers,
        "an output over an input"
    );
    assert_eq!((scores, ffi_save_text(pool)), ([1.0, 0.0], before), "nothing written, nothing changed");
    assert_eq!(apply(o, unsafe { o.add(2) }, null_mut()), EloResult::Ok);

    let mut queue = null_mut();
    assert_eq!(unsafe { elo_matchmaker_new(100.0, 10.0, 400.0, 4, 1, &mut queue) }, EloResult::Ok);
    let (mut ids, mut pairs) = ([0u64; 4], 0);
    let p = ids.as_mut_ptr();
    assert_eq!(unsafe { elo_matchmaker_tick(queue, 0.0, p, p, 2, &mut pairs) }, EloResult::OverlappingBuffers);
    assert_eq!(unsafe { elo_matchmaker_tick(queue, 0.0, p, p.add(1), 2, &mut pairs) }, EloResult::OverlappingBuffers);
    assert_eq!(unsafe { elo_matchmaker_tick(queue, 0.0, p, p.add(2), 2, &mut pairs) }, EloResult::Ok);
    unsafe {
        elo_matchmaker_free(queue);
        elo_pool_free(pool);
    }
}

/// `elo_pool_rate_period`: FIDE's rules over the C ABI. Each player's change is summed over
/// the period against the opening ratings and rounded once; the outputs hold each game's
/// share before rounding; a bad match, a NULL array or aliased outputs change nothing.
#[test]
fn a_rating_period_over_the_c_abi() {
    let fide = r#"{"expected_score":{"model":"fide_table"},"max_rating_difference":400,"k_policy":{"policy":"constant","k":10},"rounding":"half_away_from_zero"}"#;
    let pool = pool_with(fide, 3);
    let mut state = std::mem::MaybeUninit::<EloPlayerState>::zeroed();
    let state = unsafe { state.assume_init_mut() };
    for (index, rating) in [(0, 2000.0f32), (1, 2035.0), (2, 2035.0)] {
        assert_eq!(unsafe { elo_pool_get_player(pool, index, state) }, EloResult::Ok);
        state.rating = rating;
        assert_eq!(unsafe { elo_pool_set_player(pool, index, state) }, EloResult::Ok);
    }
    let before = ffi_save_text(pool);
    // Player 0 draws against both (PD .45 each: +0.5 twice). Game by game each +0.5 would
    // round to +1 (+2 in all); once per period it is +1.
    let (a, b, s) = ([0i32, 0], [1i32, 2], [0.5f32, 0.5]);
    let (bad_a, bad_b, bad_s) = ([0i32, 1], [1i32, 1], [0.5f32, 0.5]);
    assert_eq!(unsafe { elo_pool_rate_period(pool, bad_a.as_ptr(), bad_b.as_ptr(), bad_s.as_ptr(), 2, null_mut(), null_mut(), null_mut()) }, EloResult::SamePlayer);
    assert!(last_message().starts_with("matches[1]"), "{}", last_message());
    assert_eq!(unsafe { elo_pool_rate_period(pool, a.as_ptr(), null(), s.as_ptr(), 2, null_mut(), null_mut(), null_mut()) }, EloResult::NullPointer);
    let mut out = [0.0f32; 4];
    let o = out.as_mut_ptr();
    assert_eq!(unsafe { elo_pool_rate_period(pool, a.as_ptr(), b.as_ptr(), s.as_ptr(), 2, o, o, null_mut()) }, EloResult::OverlappingBuffers);
    assert_eq!(unsafe { elo_pool_rate_period(null_mut(), a.as_ptr(), b.as_ptr(), s.as_ptr(), 2, null_mut(), null_mut(), null_mut()) }, EloResult::NullPointer);
    assert_eq!(ffi_save_text(pool), before, "nothing changed");
    let (mut da, mut db, mut ea) = ([0.0f32; 2], [0.0f32; 2], [0.0f32; 2]);
    assert_eq!(unsafe { elo_pool_rate_period(pool, a.as_ptr(), b.as_ptr(), s.as_ptr(), 2, da.as_mut_ptr(), db.as_mut_ptr(), ea.as_mut_ptr()) }, EloResult::Ok);
    // Players 1 and 2 each drew once: -0.5, rounded away from zero.
    assert_eq!(ratings(pool), [2001.0, 2034.0, 2034.0]);
    assert_eq!((da, db, ea), ([0.5, 0.5], [-0.5, -0.5], [0.45, 0.45]));
    // The same matches one by one round each: +2 for player 0.
    let one_by_one = pool_with(fide, 3);
    for (index, rating) in [(0, 2000.0f32), (1, 2035.0), (2, 2035.0)] {
        assert_eq!(unsafe { elo_pool_get_player(one_by_one, index, state) }, EloResult::Ok);
        state.rating = rating;
        assert_eq!(unsafe { elo_pool_set_player(one_by_one, index, state) }, EloResult::Ok);
    }
    assert_eq!(unsafe { elo_pool_apply(one_by_one, a.as_ptr(), b.as_ptr(), s.as_ptr(), 2, null_mut(), null_mut(), null_mut()) }, EloResult::Ok);
    assert_eq!(ratings(one_by_one)[0], 2002.0);
    unsafe {
        elo_pool_free(pool);
        elo_pool_free(one_by_one);
    }
}
