//! Regression tests for the defects an outside audit found (issue 10), one test per
//! defect, through the C ABI where the defect was seen there. Each failed on the code
//! before the fix.

use std::ffi::c_char;
use std::path::PathBuf;
use std::ptr::{null, null_mut};

use ranking_elo::ffi::*;
use ranking_elo::pool::{Match, Pool};
use ranking_elo::{Config, Outcome};

mod common;
use common::{ffi_config as config, ffi_pool as pool_with, ffi_ratings as ratings, last_message, SplitMix};

fn try_config(json: &str) -> (EloResult, *mut EloConfig) {
    let mut handle = null_mut();
    let code = unsafe { elo_config_from_json(json.as_ptr().cast(), json.len() as i32, &mut handle) };
    (code, handle)
}

fn total(pool: *const EloPool) -> f64 {
    let mut t = f64::NAN;
    assert_eq!(unsafe { elo_pool_total(pool, &mut t) }, EloResult::Ok);
    t
}

fn set_rating(pool: *mut EloPool, index: i32, rating: f32) -> EloResult {
    let mut state = EloPlayerState::from(ranking_elo::PlayerState::new(rating));
    unsafe { elo_pool_get_player(pool, index, &mut state) };
    state.rating = rating;
    unsafe { elo_pool_set_player(pool, index, &state) }
}

fn save_text(pool: *const EloPool) -> String {
    let mut len = 0;
    unsafe { elo_pool_to_json(pool, null_mut(), 0, &mut len) };
    let mut buffer = vec![0u8; len as usize + 1];
    assert_eq!(unsafe { elo_pool_to_json(pool, buffer.as_mut_ptr().cast(), len + 1, &mut len) }, EloResult::Ok);
    String::from_utf8(buffer[..len as usize].to_vec()).unwrap()
}

fn load_text(pool: *mut EloPool, text: &str) -> EloResult {
    unsafe { elo_pool_load_json(pool, text.as_ptr().cast(), text.len() as i32) }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ranking-elo-audit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn path_call(f: unsafe extern "C" fn(*mut EloPool, *const c_char, i32) -> EloResult, pool: *mut EloPool, path: &str) -> EloResult {
    unsafe { f(pool, path.as_ptr().cast(), path.len() as i32) }
}

fn save_call(pool: *mut EloPool, path: &str) -> EloResult {
    unsafe { elo_pool_save_file(pool, path.as_ptr().cast(), path.len() as i32) }
}

/// Defect 1: `elo_matchmaker_new(100, 10, 400, INT32_MAX, …)` was accepted and the first
/// tick allocated 64 GB and aborted the process.
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

/// Defect 2: huge but finite settings gave `inf`/`NaN` ratings with `ELO_RESULT_OK`.
#[test]
fn settings_that_could_overflow_are_refused() {
    for json in [
        r#"{"k_policy":{"policy":"constant","k":1e300}}"#,
        r#"{"zero_sum_total":1e300}"#,
        r#"{"victory_bonus":1e78}"#,
        r#"{"score_share_bonus":1e7}"#,
        r#"{"expected_score":{"model":"logistic","c":1e-320}}"#,
        r#"{"expected_score":{"model":"normal","beta":1e-320}}"#,
        r#"{"expected_score":{"model":"linear","k":1e300}}"#,
        r#"{"initial_rating":1e30}"#,
        r#"{"min_rating":-1e30}"#,
        r#"{"max_rating_difference":1e300}"#,
        r#"{"k_policy":{"policy":"rating_bands","tiers":[{"below":1e30,"k":10},{"k":5}]}}"#,
        r#"{"leagues":[{"name":"A","min_rating":0,"k":1e9}],"k_policy":{"policy":"league"}}"#,
    ] {
        let (code, handle) = try_config(json);
        assert_eq!(code, EloResult::InvalidConfig, "{json}: {}", last_message());
        assert!(handle.is_null());
    }
    // A direct call with extreme inputs is refused, not answered with inf.
    let (mut a, mut b) = (0.0, 0.0);
    let code = unsafe { elo_update_player_rankings_score(3e38, 3e38, f32::MAX, 1.0, &mut a, &mut b) };
    assert_eq!(code, EloResult::OutOfRange, "{}", last_message());
    assert_eq!((a, b), (0.0, 0.0), "nothing written");
}

/// Defect 2, as a property: whatever the (valid) settings and inputs, a call that returns
/// OK returns finite ratings, and the largest settings stay finite.
#[test]
fn ok_results_are_always_finite() {
    let cfg = config(r#"{"k_policy":{"policy":"constant","k":1e6},"victory_bonus":1e6,"score_share_bonus":1e6,"expected_score":{"model":"logistic","c":0.001}}"#);
    let mut rng = SplitMix(10);
    let extremes = [0.0, 1e15, -1e15, 1.0e15 - 1.0e9, f32::MIN_POSITIVE, -1e-30];
    for i in 0..20_000 {
        let pick = |rng: &mut SplitMix| if i % 3 == 0 { extremes[(rng.next() % 6) as usize] } else { (rng.unit_f32() - 0.5) * 2e15 };
        let (ra, rb) = (pick(&mut rng), pick(&mut rng));
        let score = rng.unit_f32();
        let (mut a, mut b) = (f32::NAN, f32::NAN);
        let code = unsafe { elo_rate(cfg, ra, rb, score, &mut a, &mut b) };
        if code == EloResult::Ok {
            assert!(a.is_finite() && b.is_finite(), "{ra} {rb} {score} -> {a} {b}");
        }
        let code = unsafe { elo_update_player_rankings_score(ra, rb, 1e6, score, &mut a, &mut b) };
        assert_eq!(code, EloResult::Ok);
        assert!(a.is_finite() && b.is_finite());
    }
    unsafe { elo_config_free(cfg) };
}

/// Defect 3: `set_player(0, 1e30)` then `set_player(0, 1500)` left the running total at 0
/// (cancellation), the save was refused on load, and a zero-sum pool then moved both
/// players from 500 to 1000 on one draw.
#[test]
fn the_total_is_the_players_ratings_summed_after_any_calls() {
    let pool = pool_with("{}", 2);
    assert_eq!(set_rating(pool, 0, 1e30), EloResult::OutOfRange, "beyond the rating range");
    assert_eq!(set_rating(pool, 0, 1e15), EloResult::Ok);
    assert_eq!(set_rating(pool, 0, 1500.0), EloResult::Ok);
    assert_eq!(total(pool), 3000.0);
    let text = save_text(pool);
    assert_eq!(load_text(pool, &text), EloResult::Ok, "{}", last_message());

    // A zero-sum pool keeps its total through every set (issue 18: a set rebalances at
    // once, everybody receiving (T - sum) / N), and a draw between equals moves nobody.
    let zero_sum = pool_with(r#"{"zero_sum_total":1000}"#, 2);
    assert_eq!(ratings(zero_sum), vec![500.0, 500.0]);
    assert_eq!(set_rating(zero_sum, 0, 1e15), EloResult::Ok);
    assert_eq!(total(zero_sum), 1000.0);
    let shared = ratings(zero_sum);
    assert!(shared[0] > 4.9e14 && shared[1] < -4.9e14, "the excess is shared by both: {shared:?}");
    assert_eq!(set_rating(zero_sum, 0, 500.0), EloResult::Ok);
    assert_eq!(set_rating(zero_sum, 1, 500.0), EloResult::Ok);
    assert_eq!(total(zero_sum), 1000.0);
    let even = pool_with(r#"{"zero_sum_total":1000}"#, 2);
    let (a, b, s) = ([0], [1], [0.5f32]);
    assert_eq!(unsafe { elo_pool_apply(even, a.as_ptr(), b.as_ptr(), s.as_ptr(), 1, null_mut(), null_mut(), null_mut()) }, EloResult::Ok);
    assert_eq!(ratings(even), vec![500.0, 500.0], "a draw between equals changes nothing");
    assert_eq!(unsafe { elo_pool_apply(zero_sum, a.as_ptr(), b.as_ptr(), s.as_ptr(), 1, null_mut(), null_mut(), null_mut()) }, EloResult::Ok);
    assert_eq!(total(zero_sum), 1000.0);

    // Random sequences of sets, adds and matches: the total stays the exact sum.
    let mut rng = SplitMix(3);
    let mut rust_pool = Pool::new(Config::default().validate().unwrap());
    rust_pool.add_players(50);
    for step in 0..5000 {
        match rng.next() % 3 {
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

/// Defect 4: saves and configurations did not round trip bit for bit (134 of 200 zero-sum
/// saves reloaded with another offset; `victory_bonus` 8888888888888841 came back …842).
#[test]
fn saves_and_configurations_round_trip_bit_for_bit() {
    let mut rng = SplitMix(4);
    for round in 0..200 {
        // Factors with every mantissa bit used, within their ranges.
        let bonus = rng.unit() * 1e6;
        let share = rng.unit() * 1e6;
        let total = (rng.unit() - 0.5) * 1e12;
        let json = format!(r#"{{"zero_sum_total":{total:e},"victory_bonus":{bonus:e},"score_share_bonus":{share:e},"streak_alpha":{}}}"#, rng.unit());
        let rules = Config::from_json(&json).unwrap();
        let again = Config::from_json(&rules.config().to_json()).unwrap();
        assert_eq!(again.config().victory_bonus.to_bits(), bonus.to_bits(), "round {round}");
        assert_eq!(again.config().zero_sum_total.unwrap().to_bits(), total.to_bits());
        let mut pool = Pool::new(rules);
        pool.add_players(20);
        let matches: Vec<Match> = (0..300).map(|i| Match::new(i % 20, (i * 7 + 3) % 20, if rng.next() % 2 == 0 { Outcome::WIN } else { Outcome::DRAW })).filter(|m| m.a != m.b).collect();
        pool.apply(&matches, None).unwrap();
        let mut restored = ranking_elo::save::from_json(&ranking_elo::save::to_json(&pool)).unwrap();
        assert_eq!(restored, pool, "round {round}");
        pool.apply(&matches, None).unwrap();
        restored.apply(&matches, None).unwrap();
        assert_eq!(restored, pool, "round {round}: the restored pool continues identically");
    }
    let (code, cfg) = try_config(r#"{"victory_bonus": 888888.8888888841}"#);
    assert_eq!(code, EloResult::Ok);
    let mut len = 0;
    unsafe { elo_config_to_json(cfg, null_mut(), 0, &mut len) };
    let mut buffer = vec![0u8; len as usize + 1];
    assert_eq!(unsafe { elo_config_to_json(cfg, buffer.as_mut_ptr().cast(), len + 1, &mut len) }, EloResult::Ok);
    let text = String::from_utf8(buffer[..len as usize].to_vec()).unwrap();
    assert_eq!(Config::from_json(&text).unwrap().config().victory_bonus.to_bits(), 888_888.888_888_884_1f64.to_bits(), "{text}");
    unsafe { elo_config_free(cfg) };
    // Random rating bits in range survive a save.
    let mut pool = Pool::new(Config::default().validate().unwrap());
    pool.add_players(2000);
    for i in 0..2000 {
        let rating = loop {
            let candidate = f32::from_bits(rng.next() as u32);
            if candidate.is_finite() && candidate.abs() <= 1e15 {
                break candidate;
            }
        };
        pool.set_player(i, ranking_elo::PlayerState::new(rating)).unwrap();
    }
    assert_eq!(ranking_elo::save::from_json(&ranking_elo::save::to_json(&pool)).unwrap(), pool);
}

/// Defect 5: saves from two pools to one path shared the temporary name
/// `<name>.tmp-<pid>`: concurrent saves failed and readers saw empty or cut files.
#[test]
fn concurrent_saves_to_one_path_all_succeed_and_readers_see_whole_files() {
    let dir = temp_dir("concurrent");
    let path = dir.join("ladder.json");
    let path_text = path.to_string_lossy().into_owned();
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let path_text = path_text.clone();
            std::thread::spawn(move || {
                let pool = pool_with("{}", 100 + w);
                for _ in 0..50 {
                    assert_eq!(save_call(pool, &path_text), EloResult::Ok, "{}", last_message());
                }
                unsafe { elo_pool_free(pool) };
            })
        })
        .collect();
    let reader = {
        let path_text = path_text.clone();
        std::thread::spawn(move || {
            let pool = pool_with("{}", 1);
            let mut loaded = 0;
            for _ in 0..200 {
                match path_call(elo_pool_load_file, pool, &path_text) {
                    EloResult::Ok => loaded += 1,
                    EloResult::Io => {} // not written yet
                    other => panic!("a reader saw a partial save: {other:?} {}", last_message()),
                }
            }
            unsafe { elo_pool_free(pool) };
            loaded
        })
    };
    for writer in writers {
        writer.join().unwrap();
    }
    reader.join().unwrap();
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 1, "only the save remains: {left:?}");

    // Leftovers of a crashed save (recognisably ours, old) are removed; fresh ones and
    // other files are not.
    let old = dir.join("ladder.json.ranking-elo-tmp-999999-0-00000000deadbeef");
    let fresh = dir.join("ladder.json.ranking-elo-tmp-999998-0-00000000deadbeef");
    let other = dir.join("notes.txt");
    for file in [&old, &fresh, &other] {
        std::fs::write(file, "x").unwrap();
    }
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().write(true).open(&old).unwrap().set_modified(long_ago).unwrap();
    let pool = pool_with("{}", 3);
    assert_eq!(save_call(pool, &path_text), EloResult::Ok);
    assert!(!old.exists() && fresh.exists() && other.exists());
    unsafe { elo_pool_free(pool) };
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Defect 6: wrong or missing refusals.
#[test]
fn bad_files_paths_json_and_aliased_outputs_are_refused() {
    let dir = temp_dir("refusals");
    let pool = pool_with("{}", 4);
    let before = save_text(pool);

    // A save file that is not UTF-8 is an invalid save, not an I/O error.
    let binary = dir.join("binary.json");
    std::fs::write(&binary, [0xff, 0xfe, 0x7b, 0x00]).unwrap();
    assert_eq!(path_call(elo_pool_load_file, pool, &binary.to_string_lossy()), EloResult::InvalidSave);

    // Paths that name no file are argument errors.
    for path in ["", "/", "d/..", "d/"] {
        assert_eq!(save_call(pool, path), EloResult::InvalidArgument, "{path:?}");
        assert_eq!(path_call(elo_pool_load_file, pool, path), EloResult::InvalidArgument, "{path:?}");
    }

    // Files that are not regular files: refused at once, never read without end.
    assert_eq!(path_call(elo_pool_load_file, pool, "/dev/zero"), EloResult::Io);
    assert!(last_message().contains("not a regular file"), "{}", last_message());
    assert_eq!(path_call(elo_pool_load_file, pool, &dir.to_string_lossy()), EloResult::Io);
    #[cfg(unix)]
    {
        let fifo = dir.join("fifo");
        let name = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        assert_eq!(path_call(elo_pool_load_file, pool, &fifo.to_string_lossy()), EloResult::Io, "a FIFO must not block");
    }
    assert_eq!(save_text(pool), before, "nothing changed");

    // Configuration JSON given as an array is not read by position.
    for json in ["[]", r#"[{"model":"linear","k":0.5},5]"#, r#"{"expected_score":["linear",0.5]}"#, r#"{"leagues":[["A",0,10]]}"#] {
        assert_eq!(try_config(json).0, EloResult::InvalidJson, "{json}");
    }
    assert_eq!(load_text(pool, "[\"ranking-elo-pool\",2,\"0\",{}]"), EloResult::InvalidSave);

    // Aliased outputs are refused, as elo_rate_batch does.
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
    scores[0] = 1.0;
    assert_eq!(save_text(pool), before, "nothing changed");
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
    let _ = null::<u8>();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Defect 7: seed conformance (SPEC 2, 3, 4 and 7).
#[test]
fn seed_004_points_terms_and_zero_sum_rules() {
    // 004: 3:1 win, K 32, L 4, V 2, from 1000/1000. The share is S in the K term by
    // default; the result is, with points_k_term = "result"; the loser gets no V.
    for (json, expected) in [
        (r#"{"score_share_bonus":4,"victory_bonus":2}"#, (1013.0, 993.0)),
        (r#"{"score_share_bonus":4,"victory_bonus":2,"points_k_term":"result"}"#, (1021.0, 985.0)),
    ] {
        let cfg = config(json);
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
        assert_eq!(ratings(pool), vec![expected.0, expected.1], "{json} (pool)");
        unsafe {
            elo_pool_free(pool);
            elo_config_free(cfg);
        }
    }
    // A score given directly earns V by its result: 0.3 is a defeat, no bonus.
    let cfg = config(r#"{"victory_bonus":2}"#);
    let (mut a, mut b) = (0.0, 0.0);
    assert_eq!(unsafe { elo_rate(cfg, 1000.0, 1000.0, 0.3, &mut a, &mut b) }, EloResult::Ok);
    assert_eq!((a, b), (1000.0 + 32.0 * -0.2, 1000.0 + 32.0 * 0.2 + 2.0));
    unsafe { elo_config_free(cfg) };

    // A zero-sum pool cannot honour a floor: refused.
    assert_eq!(try_config(r#"{"zero_sum_total":1000,"min_rating":0}"#).0, EloResult::InvalidConfig);

    // Newcomers to a zero-sum pool start at the pool's mean (002's 0-300 scale), not at
    // the initial rating 1500 (which would be Platinum there).
    let pool = pool_with(r#"{"zero_sum_total":1000}"#, 10);
    let mut first = 0;
    assert_eq!(unsafe { elo_pool_add_players(pool, 1, &mut first) }, EloResult::Ok);
    let r = ratings(pool);
    assert!((r[10] - 1000.0 / 11.0).abs() < 1e-3, "{r:?}");
    assert!((total(pool) - 1000.0).abs() < 1e-9);
    unsafe { elo_pool_free(pool) };
}

/// A pool refuses, whole, a list of matches that could take a rating past the largest it
/// holds (2^55), and says so; ratings near the limit only arrive through saves.
#[test]
fn a_pool_never_grows_a_rating_past_its_range() {
    let near_limit = 2f64.powi(55) - 1e6;
    let payload = format!(
        r#"{{"config":{},"players":[{{"rating":{near_limit}}},{{"rating":0}}],"offset":0.0}}"#,
        Config::default().to_json()
    );
    let text = format!(r#"{{"format":"ranking-elo-pool","version":2,"checksum":"{}","pool":{payload}}}"#, ranking_elo::save::checksum(&payload));
    let mut pool = ranking_elo::save::from_json(&text).expect("a rating within 2^55 loads");
    let before = pool.clone();
    let error = pool.apply(&[Match::new(0, 1, Outcome::WIN)], None).unwrap_err();
    assert!(error.to_string().contains("past 2^55"), "{error}");
    assert_eq!(pool, before, "nothing applied");
    // Far from the limit, the same pool plays on.
    let mut ordinary = Pool::new(Config::default().validate().unwrap());
    ordinary.add_players(2);
    for _ in 0..1000 {
        ordinary.apply(&[Match::new(0, 1, Outcome::WIN)], None).unwrap();
    }
    // Too large for the pool is refused at load.
    let beyond = payload.replace(&format!("{near_limit}"), "1e17");
    let text = format!(r#"{{"format":"ranking-elo-pool","version":2,"checksum":"{}","pool":{beyond}}}"#, ranking_elo::save::checksum(&beyond));
    assert!(ranking_elo::save::from_json(&text).unwrap_err().to_string().contains("within 2^55"));
}
