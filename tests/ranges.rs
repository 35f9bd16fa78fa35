//! Every input and setting has a documented range (`docs/ranges.md`), checked at every entry
//! point: settings that could overflow are refused, documented bounds are inclusive, a call
//! that succeeds returns finite ratings, states with a non-finite field are refused, and a
//! pool never grows a rating past the largest it holds.

use std::ptr::{null, null_mut};

use ranking_elo::ffi::*;
use ranking_elo::pool::{Match, Pool};
use ranking_elo::{Config, Outcome, PlayerState};

mod common;
use common::{ffi_config, ffi_config_code, ffi_pool, ffi_try_config, last_message, SplitMix};

/// Huge but finite settings that could overflow are refused (they once gave `inf` or `NaN`
/// ratings with `ELO_RESULT_OK`).
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
        let (code, handle) = ffi_try_config(json);
        assert_eq!(code, EloResult::InvalidConfig, "{json}: {}", last_message());
        assert!(handle.is_null());
    }
    // A direct call with extreme inputs is refused, not answered with inf.
    let (mut a, mut b) = (0.0, 0.0);
    let code = unsafe { elo_update_player_rankings_score(3e38, 3e38, f32::MAX, 1.0, &mut a, &mut b) };
    assert_eq!(code, EloResult::OutOfRange, "{}", last_message());
    assert_eq!((a, b), (0.0, 0.0), "nothing written");
}

/// The same as a property: whatever the (valid) settings and inputs, a call that returns OK
/// returns finite ratings, and the largest settings stay finite.
#[test]
fn ok_results_are_always_finite() {
    let cfg = ffi_config(r#"{"k_policy":{"policy":"constant","k":1e6},"victory_bonus":1e6,"score_share_bonus":1e6,"expected_score":{"model":"logistic","c":0.001}}"#);
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

/// Documented bounds are inclusive: each is accepted exactly and refused just beyond (the
/// checks once compared with the float nearest 1e15, 999999986991104, and refused the
/// bounds themselves).
#[test]
fn documented_bounds_are_inclusive() {
    let beyond = |x: f64| format!("{}", x.next_up());
    // f64 settings: the bound itself, then the next double.
    for (field, bound) in [("demotion_margin", 1e15f64), ("zero_sum_total", 1e15), ("zero_sum_total", -1e15), ("max_rating_difference", 2e15)] {
        let at = format!(r#"{{"{field}": {bound:e}}}"#);
        assert_eq!(ffi_config_code(&at), EloResult::Ok, "{at}: {}", last_message());
        let past = if bound < 0.0 { format!("{}", bound.next_down()) } else { beyond(bound) };
        let past = format!(r#"{{"{field}": {past}}}"#);
        assert_eq!(ffi_config_code(&past), EloResult::InvalidConfig, "{past}");
    }
    for json in [r#"{"decay":{"points_per_day":1e15}}"#, r#"{"decay":{"grace_days":1e6}}"#] {
        assert_eq!(ffi_config_code(json), EloResult::Ok, "{json}: {}", last_message());
    }
    for json in [r#"{"decay":{"points_per_day":1000000000000000.2}}"#, r#"{"decay":{"grace_days":1000000.0000000001}}"#] {
        assert_eq!(ffi_config_code(json), EloResult::InvalidConfig, "{json}");
    }
    // Float settings (ratings): the JSON number becomes the nearest float first; 1e15
    // becomes 999999986991104 (accepted), and the next float, 1000000054099968, is refused.
    for field in ["initial_rating", "min_rating"] {
        assert_eq!(ffi_config_code(&format!(r#"{{"{field}": -1e15}}"#)), EloResult::Ok, "{field}: {}", last_message());
        assert_eq!(ffi_config_code(&format!(r#"{{"{field}": -1000000054099968}}"#)), EloResult::InvalidConfig, "{field}");
    }
    for json in [
        r#"{"decay":{"floor":1e15,"min_rating":1e15}}"#,
        r#"{"leagues":[{"name":"A","min_rating":-1e15,"k":1},{"name":"B","min_rating":1e15,"k":1}]}"#,
        r#"{"k_policy":{"policy":"rating_bands","tiers":[{"below":1e15,"k":1},{"k":2}]}}"#,
    ] {
        assert_eq!(ffi_config_code(json), EloResult::Ok, "{json}: {}", last_message());
        assert_eq!(ffi_config_code(&json.replace("1e15", "1000000054099968")), EloResult::InvalidConfig, "{json}");
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
        assert_eq!(ffi_config_code(json), EloResult::Ok, "{json}: {}", last_message());
    }
    for json in [
        r#"{"victory_bonus":1000000.0000000001}"#,
        r#"{"expected_score":{"model":"logistic","c":0.000999999999999999}}"#,
        r#"{"expected_score":{"model":"normal","beta":1000000000000.0001}}"#,
    ] {
        assert_eq!(ffi_config_code(json), EloResult::InvalidConfig, "{json}");
    }
    // Ratings given to calls: 1e15 as a float is accepted, the next float refused.
    let config = ffi_config("{}");
    let (mut a, mut b) = (0.0, 0.0);
    assert_eq!(unsafe { elo_rate(config, 1e15, -1e15, 0.5, &mut a, &mut b) }, EloResult::Ok);
    assert_eq!(unsafe { elo_rate(config, 1e15f32.next_up(), 0.0, 0.5, &mut a, &mut b) }, EloResult::OutOfRange);
    unsafe { elo_config_free(config) };
}

/// A NaN or infinite `peak_rating` is refused by every function that takes states:
/// `elo_rate_teams`, `elo_rate_placements`, `elo_pool_set_player` and the others (it was
/// once accepted: the range check ran after a clamp that let it through).
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

/// A pool refuses, whole, a list of matches that could take a rating past the largest it
/// holds (2^55), and says so; ratings near the limit only arrive through saves.
#[test]
fn a_pool_never_grows_a_rating_past_its_range() {
    let near_limit = 2f64.powi(55) - 1e6;
    let payload = format!(r#"{{"config":{},"players":[{{"rating":{near_limit}}},{{"rating":0}}],"offset":0.0}}"#, Config::default().to_json());
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
