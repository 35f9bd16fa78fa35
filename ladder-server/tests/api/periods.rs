//! Rating periods (`rating_periods`, `POST …/periods/end`, the `period_end` schedule): pair
//! matches held when reported and rated together when the period ends, each player's change
//! rounded once, as FIDE rates them; reproduced against FIDE's published calculation, with
//! annulments, retries, the schedule, the journal's chain and `verify`.

use std::time::{Duration, Instant};

use ranking_elo::period::PeriodGame;
use ranking_elo::{Config, Outcome, PlayerState};
use serde_json::Value;

use crate::helpers::{self, verify_replay, Backend, TestApp};
use crate::Lcg;

on_both!(a_period_rates_its_held_matches_as_fide_does, a_scheduled_period_end_runs_once, amendments_rerate_the_periods_they_touch);

/// FIDE's rules as the configuration reference writes them.
const FIDE: &str = r#"{"expected_score":{"model":"fide_table"},"max_rating_difference":400,"max_rating_difference_exempt_from":2650,"k_policy":{"policy":"fide","period_rule":true},"rounding":"half_away_from_zero"}"#;

fn rating(app: &TestApp, ladder: &str, name: &str) -> f32 {
    app.ok("GET", &format!("/v1/ladders/{ladder}/players/{name}"), &app.read, None)["rating"].as_f64().unwrap() as f32
}

fn report(app: &TestApp, ladder: &str, id: &str, a: &str, b: &str, score: f64) -> (u16, String) {
    app.call("POST", &format!("/v1/ladders/{ladder}/matches"), &app.report, Some(&format!(r#"{{"id":"{id}","a":"{a}","b":"{b}","score_a":{score}}}"#)))
}

/// FIDE's published calculation for id 2016192, period 2025-12-01: Ro 2813 (K 10), wins
/// against 1787, 2025, 2310 and 2400, a draw against 2505: -2.5, rounded once to -3, so
/// 2810. Every opponent's change is the engine's `rate_period` for their one game.
fn a_period_rates_its_held_matches_as_fide_does(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("fide", FIDE);
    let t = (crate::now() - 3600.0).floor();
    let players = [
        ("carlsen", 2813.0, 1000, true),
        ("o1787", 1787.0, 100, false),
        ("o2025", 2025.0, 100, false),
        ("o2310", 2310.0, 100, false),
        ("o2400", 2400.0, 100, true),
        ("o2505", 2505.0, 100, true),
        ("x2000", 2000.0, 100, true),
        ("y2035", 2035.0, 100, true),
        ("z2035", 2035.0, 100, true),
    ];
    let lines: Vec<String> = players
        .iter()
        .map(|(name, rating, games, reached)| {
            format!(r#"{{"id":"{name}","time":{t},"player":"{name}","state":{{"rating":{rating},"games_played":{games},"has_reached_2400":{reached}}}}}"#)
        })
        .collect();
    let (status, text) = app.call("POST", "/v1/ladders/fide/import", &app.admin, Some(&(lines.join("\n") + "\n")));
    assert_eq!(status, 200, "{text}");
    let (status, text) = app.call("PUT", "/v1/ladders/fide/options", &app.admin, Some(r#"{"rating_periods":"yes"}"#));
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("rating_periods"), "{text}");
    let options = app.ok("PUT", "/v1/ladders/fide/options", &app.admin, Some(r#"{"rating_periods":true}"#));
    assert_eq!(options["options"]["rating_periods"], Value::Bool(true), "{options}");
    // The period's games: each report is held, its players' states unchanged and marked.
    let games = [("g1", "o1787", 1.0), ("g2", "o2025", 1.0), ("g3", "o2310", 1.0), ("g4", "o2400", 1.0), ("g5", "o2505", 0.5)];
    for (id, opponent, score) in games {
        let (status, text) = report(&app, "fide", id, "carlsen", opponent, score);
        assert_eq!(status, 200, "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["players"][0]["held"], Value::Bool(true), "{answer}");
        assert_eq!(answer["players"][0]["rating"].as_f64(), Some(2813.0), "{answer}");
        // A retry answers the same, holding nothing twice.
        assert_eq!(report(&app, "fide", id, "carlsen", opponent, score), (200, text));
    }
    // Where rounding once differs from rounding each game: 2000 (K 10) draws twice against
    // 2035 (PD .45): +0.5 and +0.5, +1 for the period where each game would round to +1.
    assert_eq!(report(&app, "fide", "d1", "x2000", "y2035", 0.5).0, 200);
    assert_eq!(report(&app, "fide", "d2", "z2035", "x2000", 0.5).0, 200);
    assert_eq!(rating(&app, "fide", "carlsen"), 2813.0, "nothing is rated before the period ends");
    // Periods rate games between two players.
    let (status, text) = app.call("POST", "/v1/ladders/fide/matches", &app.report, Some(r#"{"id":"t1","team_a":["o1787","o2025"],"team_b":["o2310","o2400"],"score_a":1}"#));
    assert_eq!(status, 422, "{text}");
    assert!(text.contains("periods_rate_pairs"), "{text}");
    // A game annulled before the period ends is left out of it.
    assert_eq!(report(&app, "fide", "g6", "carlsen", "o1787", 0.0).0, 200);
    let (status, text) = app.call("POST", "/v1/ladders/fide/matches/g6/annul", &app.admin, Some(r#"{"reason":"arranged"}"#));
    assert_eq!(status, 200, "{text}");
    // The end: once per id, refused without one.
    assert_eq!(app.call("POST", "/v1/ladders/fide/periods/end", &app.admin, Some("{}")).0, 400);
    assert_eq!(app.call("POST", "/v1/ladders/fide/periods/end", &app.report, Some(r#"{"id":"2025-12"}"#)).0, 403);
    let (status, first) = app.call("POST", "/v1/ladders/fide/periods/end", &app.admin, Some(r#"{"id":"2025-12"}"#));
    assert_eq!(status, 200, "{first}");
    let answer: Value = serde_json::from_str(&first).unwrap();
    assert_eq!((answer["matches"].as_u64(), answer["players"].as_u64()), (Some(7), Some(9)), "{answer}");
    assert_eq!(app.call("POST", "/v1/ladders/fide/periods/end", &app.admin, Some(r#"{"id":"2025-12"}"#)), (200, first));
    assert_eq!(rating(&app, "fide", "carlsen"), 2810.0, "FIDE's published -3");
    assert_eq!(rating(&app, "fide", "x2000"), 2001.0, "rounded once: game by game it would be 2002");
    // Each 2035 player: 10 x (0.5 - 0.55) = -0.5, rounded away from zero.
    assert_eq!((rating(&app, "fide", "y2035"), rating(&app, "fide", "z2035")), (2034.0, 2034.0));
    // Each opponent: the engine's rule for their one game, against 2813.
    let rules = Config::from_json(FIDE).unwrap();
    for ((name, opening, games_played, reached), (_, _, score)) in players[1..6].iter().zip(games) {
        let state = PlayerState { games_played: *games_played, has_reached_2400: *reached, ..PlayerState::new(*opening) };
        let game = PeriodGame { opponent_rating: 2813.0, outcome: Outcome::from_score(1.0 - score).unwrap() };
        let expected = rules.rate_period(&state, &[game]).unwrap().rating;
        assert_eq!(rating(&app, "fide", name).to_bits(), expected.to_bits(), "{name}");
    }
    let carlsen = app.ok("GET", "/v1/ladders/fide/players/carlsen", &app.read, None);
    assert_eq!(carlsen["games_played"].as_u64(), Some(1005), "{carlsen}");
    // The next period starts empty: a game after the end waits for the next one.
    assert_eq!(report(&app, "fide", "g7", "carlsen", "o2505", 1.0).0, 200);
    let next = app.ok("POST", "/v1/ladders/fide/periods/end", &app.admin, Some(r#"{"id":"2026-01"}"#));
    assert_eq!(next["matches"].as_u64(), Some(1), "{next}");
    // Off again: matches are rated at once.
    app.ok("PUT", "/v1/ladders/fide/options", &app.admin, Some(r#"{"rating_periods":false}"#));
    let before = rating(&app, "fide", "o2310");
    assert_eq!(report(&app, "fide", "g8", "o2310", "o2025", 1.0).0, 200);
    assert!(rating(&app, "fide", "o2310") > before);
    let kinds: Vec<String> = helpers::journal(&app, "fide").iter().map(|e| e["kind"].as_str().unwrap().to_owned()).collect();
    assert_eq!(kinds.iter().filter(|k| *k == "period_end").count(), 2, "{kinds:?}");
    let listed = app.ok("GET", "/v1/ladders/fide/matches?kind=period_end", &app.read, None);
    assert_eq!(listed["entries"].as_array().unwrap().len(), 2);
    // The independent replay (held matches, the periods' ends) and `elo-ladder verify`.
    verify_replay(&app, "fide", FIDE);
}

/// `PUT …/schedule` takes `period_end`; an overdue period end runs once at the next look.
fn a_scheduled_period_end_runs_once(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("weekly", FIDE);
    app.ok("PUT", "/v1/ladders/weekly/options", &app.admin, Some(r#"{"rating_periods":true}"#));
    assert_eq!(report(&app, "weekly", "w1", "ann", "bob", 1.0).0, 200);
    let (status, text) = app.call("PUT", "/v1/ladders/weekly/schedule", &app.admin, Some(r#"{"period_end":"0 0 * * 8"}"#));
    assert_eq!(status, 422, "{text}");
    assert!(text.contains("period_end"), "{text}");
    let set = app.ok("PUT", "/v1/ladders/weekly/schedule", &app.admin, Some(r#"{"period_end":"0 0 * * 1"}"#));
    assert!(set["next"]["period_end"].as_f64().unwrap() > crate::now(), "{set}");
    let described = app.ok("GET", "/v1/ladders/weekly", &app.read, None);
    assert_eq!(described["schedule"]["period_end"].as_str(), Some("0 0 * * 1"), "{described}");
    let sql = "UPDATE ladders SET next_period_end = 1767225600 WHERE name = 'weekly'";
    match backend {
        Backend::Sqlite => {
            let connection = rusqlite::Connection::open(helpers::sqlite_file(&app.server.database)).unwrap();
            connection.busy_timeout(Duration::from_secs(10)).unwrap();
            connection.execute(sql, []).unwrap();
        }
        Backend::Postgres => {
            helpers::psql_query(&app.server.database, sql);
        }
    }
    let started = Instant::now();
    let entry = loop {
        let ends = app.ok("GET", "/v1/ladders/weekly/matches?kind=period_end", &app.read, None);
        if let Some(entry) = ends["entries"].as_array().unwrap().first() {
            break entry.clone();
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the scheduled period end never ran");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(entry["id"].as_str().unwrap().starts_with("scheduled/period_end/"), "{entry}");
    assert_eq!(entry["results"]["matches"].as_u64(), Some(1), "{entry}");
    assert!(rating(&app, "weekly", "ann") > 1500.0);
    std::thread::sleep(Duration::from_secs(2));
    let ends = helpers::journal(&app, "weekly").into_iter().filter(|e| e["kind"] == "period_end").count();
    assert_eq!(ends, 1, "once");
    verify_replay(&app, "weekly", FIDE);
}

/// Annulments and corrections of held matches, in an ended period and in the open one,
/// replayed from checkpoints laid in the middle of a period (which keep its held matches):
/// every state is the independent replay's, and `verify` agrees.
fn amendments_rerate_the_periods_they_touch(backend: Backend) {
    let app = TestApp::spawn_args(backend, &["--rate-limit", "0", "--checkpoint-every", "4"]);
    app.put_ladder("amend", FIDE);
    app.ok("PUT", "/v1/ladders/amend/options", &app.admin, Some(r#"{"rating_periods":true}"#));
    let mut rng = Lcg(37);
    let mut last = 0;
    for i in 0..30 {
        last = app.ok("POST", "/v1/ladders/amend/matches", &app.report, Some(&pair(&mut rng, &format!("m{i}"))))["seq"].as_i64().unwrap();
    }
    // Checkpoints in the middle of the open period (on PostgreSQL, once it is chained).
    let started = Instant::now();
    while crate::amend::newest_checkpoint(&app, backend) < last {
        assert!(started.elapsed() < Duration::from_secs(30), "no checkpoint was laid at seq {last}");
        std::thread::sleep(Duration::from_millis(100));
    }
    app.ok("POST", "/v1/ladders/amend/periods/end", &app.admin, Some(r#"{"id":"p1"}"#));
    for i in 30..40 {
        app.ok("POST", "/v1/ladders/amend/matches", &app.report, Some(&pair(&mut rng, &format!("m{i}"))));
    }
    // In the open period, after the checkpoint laid before the first period's end: the
    // rebuild starts from it, and rates that end again with the held matches it keeps.
    let annulled = app.ok("POST", "/v1/ladders/amend/matches/m35/annul", &app.admin, Some(r#"{"reason":"arranged"}"#));
    assert!(annulled["replayed"].as_u64().unwrap() < 20, "replayed from a checkpoint: {annulled}");
    verify_replay(&app, "amend", FIDE);
    // In the ended period: its end is rated again without the match.
    app.ok("POST", "/v1/ladders/amend/matches/m27/annul", &app.admin, Some(r#"{"reason":"arranged"}"#));
    let periods = app.ok("GET", "/v1/ladders/amend/matches?kind=period_end", &app.read, None);
    assert_eq!(periods["entries"][0]["results"]["matches"].as_u64(), Some(29), "{periods}");
    verify_replay(&app, "amend", FIDE);
    app.ok("POST", "/v1/ladders/amend/matches/m5/correct", &app.admin, Some(r#"{"score_a":0.5}"#));
    verify_replay(&app, "amend", FIDE);
    // The open period's end leaves the annulled match out.
    let ended = app.ok("POST", "/v1/ladders/amend/periods/end", &app.admin, Some(r#"{"id":"p2"}"#));
    assert_eq!(ended["matches"].as_u64(), Some(9), "{ended}");
    verify_replay(&app, "amend", FIDE);
    // A season end closes the open period first: its held matches count in the season that
    // ends, against the ratings they were played at, and are not rated again.
    for i in 40..43 {
        app.ok("POST", "/v1/ladders/amend/matches", &app.report, Some(&pair(&mut rng, &format!("m{i}"))));
    }
    let season = app.ok("POST", "/v1/ladders/amend/seasons/end", &app.admin, Some(r#"{"id":"s1"}"#));
    assert_eq!(season["held_matches"].as_u64(), Some(3), "{season}");
    let after = app.ok("POST", "/v1/ladders/amend/periods/end", &app.admin, Some(r#"{"id":"p3"}"#));
    assert_eq!(after["matches"].as_u64(), Some(0), "{after}");
    // Decay does not take a player whose games are held for inactive: the hold stamps the
    // time played.
    let played = |app: &TestApp| app.ok("GET", "/v1/ladders/amend/players/p0", &app.read, None)["last_played"].as_f64().unwrap();
    let before = played(&app);
    std::thread::sleep(Duration::from_millis(20));
    let held = app.ok("POST", "/v1/ladders/amend/matches", &app.report, Some(r#"{"id":"late","a":"p0","b":"p1","score_a":1}"#));
    assert_eq!(held["players"][0]["last_played"].as_f64(), Some(before), "the answer shows the state before the match: {held}");
    assert!(played(&app) > before, "the stored state has the time played");
    verify_replay(&app, "amend", FIDE);
}

/// A pair match between two of eight players: a win, a draw or a loss.
fn pair(rng: &mut Lcg, id: &str) -> String {
    let a = rng.below(8);
    let b = (a + 1 + rng.below(7)) % 8;
    let score = [1.0, 0.5, 0.0][rng.below(3) as usize];
    format!(r#"{{"id":"{id}","a":"p{a}","b":"p{b}","score_a":{score}}}"#)
}
