//! The C ABI's error handling, called from Rust: every bad input gets its own code and a
//! message naming the argument, and outputs are untouched on failure.

use std::ptr::{null, null_mut};

use ranking_elo::ffi::*;

mod common;
use common::last_message;

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
    assert_eq!((v.x, v.y), (1670.909_1, 1329.090_9));
}
