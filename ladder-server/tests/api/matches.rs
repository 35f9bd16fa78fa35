//! Match reports: every shape, once per id, bad input refused with nothing stored.

use serde_json::Value;

use crate::helpers::{self, call, verify_replay, Backend, TestApp};
use crate::{random_match, Lcg, RULES};

on_both!(
    matches_of_every_shape_are_rated_once_per_id,
    bad_input_gets_a_clear_4xx_and_changes_nothing,
    concurrent_reporters_lose_no_update,
    fractional_scores_give_the_bits_of_the_c_abi,
    every_error_is_json,
);

fn matches_of_every_shape_are_rated_once_per_id(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("main", RULES);
    let post = |body: &str| app.call("POST", "/v1/ladders/main/matches", &app.report, Some(body));
    let pair = r#"{"id": "m-1", "a": "alice", "b": "bob", "score_a": 1}"#;
    let (status, first) = post(pair);
    assert_eq!(status, 200, "{first}");
    let answer: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(answer["seq"].as_i64().map(|s| s > 0), Some(true));
    assert_eq!(answer["players"][0]["player"], "alice");
    assert_eq!(answer["players"][0]["rating"].as_f64(), Some(1516.0));
    assert_eq!(answer["players"][1]["rating"].as_f64(), Some(1484.0));
    assert_eq!(answer["players"][1]["games_played"].as_u64(), Some(1));
    assert_eq!(answer["players"][1]["league"].as_u64(), Some(0));
    // A retry, even formatted differently, gets the same answer; nothing is applied twice.
    assert_eq!(post(r#"{"score_a":1.0,"b":"bob","a":"alice","id":"m-1"}"#), (200, first.clone()));
    let (status, body) = post(r#"{"id": "m-1", "a": "alice", "b": "bob", "score_a": 0}"#);
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("match_id_reused"));
    let alice = app.ok("GET", "/v1/ladders/main/players/alice", &app.read, None);
    assert_eq!((alice["rating"].as_f64(), alice["games_played"].as_u64(), alice["rank"].as_i64()), (Some(1516.0), Some(1), Some(1)));

    let team = app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(r#"{"id":"m-2","team_a":["alice","carol"],"team_b":["bob","dave"],"score_a":0.5}"#));
    assert_eq!(team["players"].as_array().map(Vec::len), Some(4));
    assert_eq!(team["players"][1]["player"], "carol");
    let ffa = app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(r#"{"id":"m-3","entrants":["e1","e2","e3","e4"],"places":[1,2,2,4]}"#));
    // docs/teams.md's worked example: four at 1500 finishing 1, 2, 2, 4.
    let ratings: Vec<f64> = ffa["players"].as_array().unwrap().iter().map(|p| p["rating"].as_f64().unwrap()).collect();
    assert_eq!(ratings, vec![1516.0, 1500.0, 1500.0, 1484.0]);
    assert!(ffa["seq"].as_i64() > team["seq"].as_i64());

    let journal = helpers::journal_page(&app, "main", 0, 2);
    let entries = journal["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!((entries[0]["id"].as_str(), entries[0]["kind"].as_str()), (Some("m-1"), Some("pair")));
    assert_eq!(entries[0]["joined"], serde_json::json!(["alice", "bob"]));
    assert_eq!(entries[0]["results"], answer["players"]);
    assert!(entries[0]["time"].as_f64().unwrap() > 1.7e9);
    let after = entries[1]["seq"].as_i64().unwrap();
    let rest = helpers::journal_page(&app, "main", after, 100);
    assert_eq!(rest["entries"][0]["kind"], "free_for_all");
    assert_eq!(rest["entries"].as_array().map(Vec::len), Some(1));
    verify_replay(&app, "main", RULES);
}

fn bad_input_gets_a_clear_4xx_and_changes_nothing(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("main", RULES);
    let post = |body: &str| app.call("POST", "/v1/ladders/main/matches", &app.report, Some(body));
    let team = |n: usize| format!(r#"{{"id":"t","team_a":[{}],"team_b":["z"],"score_a":1}}"#, (0..n).map(|i| format!("\"p{i}\"")).collect::<Vec<_>>().join(","));
    let cases: Vec<(String, u16, &str)> = vec![
        (r#"{"id":"m","a":"x","b":"y","score_a":2}"#.into(), 422, "score_a"),
        (r#"{"id":"m","a":"x","b":"x","score_a":1}"#.into(), 422, "twice"),
        (r#"{"id":"m","team_a":["x","y"],"team_b":["z","x"],"score_a":1}"#.into(), 422, "twice"),
        (team(65), 422, "65 players"),
        (r#"{"id":"m","entrants":["x"],"places":[1]}"#.into(), 422, "entrants"),
        (r#"{"id":"m","entrants":["x","y"],"places":[1,3]}"#.into(), 422, "places[1]"),
        (r#"{"id":"m","entrants":["x","y"],"places":[1]}"#.into(), 422, "places"),
        (r#"{"id":"m","a":"x","b":"y"}"#.into(), 422, "score_a is required"),
        (r#"{"id":"m","a":"x","b":"y","score_a":1,"places":[1,2]}"#.into(), 422, "other fields"),
        (r#"{"id":"m","a":"x y","b":"y","score_a":1}"#.into(), 422, "invalid_name"),
        (format!(r#"{{"id":"{}","a":"x","b":"y","score_a":1}}"#, "i".repeat(65)), 422, "invalid_name"),
        (r#"{"id":"m","a":"x","b":"y","score_a":1,"extra":1}"#.into(), 400, "unknown field"),
        (r#"{"id":"m","a":"x","b":"y","score_a":"1"}"#.into(), 400, "invalid type"),
        ("[1,2]".into(), 400, "bad_request"),
        ("{".into(), 400, "bad_request"),
        (r#"{"id":"m","a":".","b":"y","score_a":1}"#.into(), 422, "invalid_name"),
    ];
    for (body, status, needle) in &cases {
        let (got, text) = post(body);
        assert_eq!(got, *status, "{body}: {text}");
        assert!(text.contains(needle), "{body}: {text} lacks {needle:?}");
        let error: Value = serde_json::from_str(&text).unwrap();
        assert!(error["error"]["code"].is_string() && error["error"]["message"].is_string(), "{text}");
    }
    let huge = format!(r#"{{"id":"m","a":"x","b":"y","score_a":1,"pad":"{}"}}"#, "p".repeat(70_000));
    let (status, text) = post(&huge);
    assert_eq!(status, 413, "{text}");
    let (status, text) = app.call("POST", "/v1/ladders/nope/matches", &app.report, Some(r#"{"id":"m","a":"x","b":"y","score_a":1}"#));
    assert_eq!(status, 404, "{text}");
    assert!(text.contains("unknown_ladder"));
    assert_eq!(app.call("GET", "/v1/ladders/main/players/ghost", &app.read, None).0, 404);
    assert_eq!(app.call("GET", "/v1/ladders/main/leaderboard?limit=0", &app.read, None).0, 400);
    assert_eq!(app.call("GET", "/v1/ladders/main/leaderboard?limit=x", &app.read, None).0, 400);
    assert_eq!(app.call("GET", "/v1/nothing", &app.read, None).0, 404);
    // Nothing was stored by any of them.
    assert_eq!(app.ok("GET", "/v1/ladders/main/leaderboard", &app.read, None)["entries"], serde_json::json!([]));
    assert_eq!(app.ok("GET", "/v1/ladders/main/matches", &app.read, None)["entries"], serde_json::json!([]));
}

fn concurrent_reporters_lose_no_update(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("busy", RULES);
    let address = app.server.address.clone();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (address, key) = (address.clone(), app.report.clone());
            std::thread::spawn(move || {
                let mut rng = Lcg(100 + t);
                for i in 0..40 {
                    let body = random_match(&mut rng, &format!("c{t}-{i}"), 6, true);
                    let (status, text) = call(&address, "POST", "/v1/ladders/busy/matches", Some(&key), Some(&body)).expect("reachable");
                    assert_eq!(status, 200, "{text}");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("reporter");
    }
    let replay = verify_replay(&app, "busy", RULES);
    assert_eq!(replay.entries, 320);
    let games: u32 = (0..replay.pool.len()).map(|i| replay.pool.player(i).unwrap().games_played).sum();
    let served: u64 = replay.index.keys().map(|name| app.ok("GET", &format!("/v1/ladders/busy/players/{name}"), &app.read, None)["games_played"].as_u64().unwrap()).sum();
    assert_eq!(u64::from(games), served);
}

/// The C ABI's view of a state.
fn c_state(state: &ranking_elo::PlayerState) -> ranking_elo::ffi::EloPlayerState {
    (*state).into()
}

/// Points shares (5 to 2, 1 to 2, 2 to 9, ...) rated by the server equal the C ABI's
/// `elo_rate_players` with `(float)score_a` on the states the client read, bit for bit; the
/// journal keeps that float, and the replay through the pool gives the same states.
fn fractional_scores_give_the_bits_of_the_c_abi(backend: Backend) {
    use ranking_elo::ffi::{elo_config_free, elo_config_from_json, elo_rate_players, EloConfig, EloResult};
    let app = TestApp::spawn(backend);
    let rules = r#"{"k_policy":{"policy":"constant","k":32},"streak_alpha":0.1}"#;
    app.put_ladder("points", rules);
    let mut config: *mut EloConfig = std::ptr::null_mut();
    // SAFETY: a valid JSON buffer and an out pointer.
    let created = unsafe { elo_config_from_json(rules.as_ptr().cast(), rules.len() as i32, &mut config) };
    assert_eq!(created, EloResult::Ok);
    let engine = ranking_elo::Config::from_json(rules).unwrap();
    let players = ["p0", "p1", "p2", "p3"];
    let mut differs_from_double = 0;
    for i in 0..24 {
        let (a, b) = (players[i % 4], players[(i + 1 + (i / 4) % 3) % 4]);
        let before: Vec<ranking_elo::PlayerState> = [a, b]
            .iter()
            .map(|name| {
                let (status, text) = app.call("GET", &format!("/v1/ladders/points/players/{name}"), &app.read, None);
                if status == 404 {
                    return engine.new_player();
                }
                helpers::parse_player(&serde_json::from_str(&text).unwrap()).1
            })
            .collect();
        // Points shares p / (p + q). Every other match uses one whose double-precision
        // result has other bits than the float's (about one share in four hundred has), so
        // that a server rating with the double would fail here.
        let double_bits = |share: f64| {
            let (x, y) = engine.rate_players(&before[0], &before[1], ranking_elo::Outcome::from_score(share).unwrap()).unwrap();
            (x.rating.to_bits(), y.rating.to_bits())
        };
        let float_bits = |share: f64| double_bits(f64::from(share as f32));
        let candidates = (1..=60).flat_map(|p| (1..=60).map(move |q| f64::from(p) / f64::from(p + q)));
        let share = if i % 2 == 0 {
            candidates.clone().find(|&share| double_bits(share) != float_bits(share)).expect("a share whose float and double results differ")
        } else {
            candidates.clone().nth(i * 37 % 3600).unwrap()
        };
        let body = format!(r#"{{"id":"f{i}","a":"{a}","b":"{b}","score_a":{share}}}"#);
        let answer = app.ok("POST", "/v1/ladders/points/matches", &app.report, Some(&body));
        let (mut ca, mut cb) = (c_state(&before[0]), c_state(&before[1]));
        // SAFETY: a live configuration and two distinct states.
        let rated = unsafe { elo_rate_players(config, &mut ca, &mut cb, share as f32) };
        assert_eq!(rated, EloResult::Ok);
        for (served, c) in answer["players"].as_array().unwrap().iter().zip([ca, cb]) {
            let (_, state) = helpers::parse_player(served);
            assert_eq!(state.rating.to_bits(), c.rating.to_bits(), "{body}: server {} vs elo_rate_players {}", state.rating, c.rating);
            assert_eq!(state.peak_rating.to_bits(), c.peak_rating.to_bits());
        }
        if double_bits(share) != (ca.rating.to_bits(), cb.rating.to_bits()) {
            differs_from_double += 1;
        }
    }
    // SAFETY: created above, freed once.
    unsafe { elo_config_free(config) };
    assert!(differs_from_double >= 12, "{differs_from_double} of the matches tell float from double");
    let journal = helpers::journal(&app, "points");
    for entry in &journal {
        let kept = entry["inputs"]["score_a"].as_f64().unwrap();
        assert_eq!(f64::from(kept as f32), kept, "the journal keeps the float");
    }
    verify_replay(&app, "points", rules);
}

/// Whatever goes wrong, the answer is the API's JSON error: a method the route does not
/// take, a path that is not UTF-8, a query parameter the route does not know.
fn every_error_is_json(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("main", RULES);
    for (method, path, status) in [
        ("DELETE", "/v1/ladders/main/matches", 405),
        ("PATCH", "/v1/ladders/main", 405),
        ("GET", "/v1/ladders/%FF%FE/leaderboard", 400),
        ("GET", "/v1/ladders/main/players/%C3%28", 400),
        ("GET", "/v1/ladders/main/matches?player=p1", 400),
        ("GET", "/v1/ladders/main/leaderboard?limit=5&limit=6", 400),
        ("POST", "/v1/ladders/main/matches?dry_run=1", 400),
        ("GET", "/nothing/here", 404),
    ] {
        let (got, text) = app.call(method, path, &app.admin, if method == "POST" { Some(r#"{"id":"q","a":"x","b":"y","score_a":1}"#) } else { None });
        assert_eq!(got, status, "{method} {path}: {text}");
        let error: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {text}"));
        assert!(error["error"]["code"].is_string() && error["error"]["message"].is_string(), "{text}");
    }
    let (_, text) = app.call("GET", "/v1/ladders/main/matches?player=p1", &app.read, None);
    assert!(text.contains("player") && text.contains("after, before, limit"), "names the parameter and the route's own: {text}");
    assert_eq!(app.ok("GET", "/v1/ladders/main/matches", &app.read, None)["entries"], serde_json::json!([]), "the POST with a bad query stored nothing");
}
