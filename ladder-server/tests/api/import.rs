//! Import (`POST /v1/ladders/{ladder}/import`, `elo-ladder import`): players with their
//! states and a match history with its times, replayed through the engine, verified, run
//! again without change; bad lines apply nothing; a refused line stops the import there and
//! the fixed input runs on; zero-sum ladders refuse imported ratings; an erased imported
//! player leaves the chain whole.

use std::process::Command;

use serde_json::Value;

use crate::helpers::{self, parse_player, verify_replay, Backend, TestApp};
use crate::{random_match, Lcg, RICH_RULES, RULES};

on_both!(
    an_import_rebuilds_a_ladder_that_replays_and_verifies,
    bad_lines_are_named_and_nothing_is_applied,
    a_refused_line_stops_the_import_and_the_fixed_input_runs_on,
    the_command_line_imports_a_file,
    zero_sum_ladders_refuse_imported_ratings,
    an_erased_imported_player_keeps_the_chain_whole,
);

/// The first line's time: a day before now, so that every line is in the past.
fn start() -> f64 {
    (crate::now() - 86_400.0).floor()
}

/// Five imported players (rich states), then `matches` random matches over them and ten
/// newcomers, a minute apart.
fn history(matches: usize) -> String {
    let t = start();
    let mut lines = vec![
        format!(r#"{{"id":"p0","time":{t},"player":"p0","state":{{"rating":1612.5,"games_played":40,"win_streak":3,"season_games":12,"season_wins":9,"peak_rating":1650}}}}"#),
        format!(r#"{{"id":"p1","time":{t},"player":"p1","state":{{"rating":1490,"games_played":7,"league":0}}}}"#),
        format!(r#"{{"id":"p2","time":{t},"player":"p2","state":{{"rating":1571,"games_played":100,"league":2,"protected_games":1,"last_played":{}}}}}"#, t - 1000.0),
        format!(r#"{{"id":"p3","time":{t},"player":"p3","state":{{"rating":1420}}}}"#),
        format!(r#"{{"id":"p4","time":{t},"player":"p4","state":{{"rating":1700,"is_junior":true,"has_reached_2400":true,"period_games":4}}}}"#),
    ];
    let mut rng = Lcg(7);
    for m in 0..matches {
        let body = random_match(&mut rng, &format!("m{m}"), 15, true);
        let time = t + 60.0 * (m as f64 + 1.0);
        lines.push(format!(r#"{{"time":{time},{}"#, &body[1..]));
    }
    lines.join("\n") + "\n"
}

fn import(app: &TestApp, ladder: &str, body: &str) -> (u16, Value) {
    let (status, text) = app.call("POST", &format!("/v1/ladders/{ladder}/import"), &app.admin, Some(body));
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")))
}

fn an_import_rebuilds_a_ladder_that_replays_and_verifies(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("rich", RICH_RULES);
    let input = history(300);
    let (status, answer) = import(&app, "rich", &input);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer, serde_json::json!({"lines": 305, "applied": 305, "already_applied": 0}));

    // The imported states, as given and placed (p1's league from its rating; p3 untouched by
    // any match is exactly as imported).
    let journal = helpers::journal(&app, "rich");
    assert_eq!(journal.len(), 305);
    let imports: Vec<&Value> = journal.iter().filter(|e| e["kind"] == "import").collect();
    assert_eq!(imports.len(), 5);
    assert_eq!(imports[0]["id"], "import/p0");
    assert_eq!(imports[0]["joined"], serde_json::json!(["p0"]));
    assert_eq!(imports[0]["inputs"]["state"]["win_streak"], 3);
    assert_eq!(imports[2]["inputs"]["state"]["protected_games"], 1);
    // Matches keep their own times.
    let first_match = journal.iter().find(|e| e["id"] == "m0").expect("m0");
    assert_eq!(first_match["time"].as_f64(), Some(imports[0]["time"].as_f64().expect("a time") + 60.0));

    // The replay through the engine's pool (imported states set, matches applied) gives
    // every stored player bit for bit; verify replays the chain and the history.
    let replay = verify_replay(&app, "rich", RICH_RULES);
    assert_eq!(replay.entries, 305);
    let summary = helpers::verify_database(&app.server.database, "rich");
    assert!(summary.contains("305 entries (300 matches, 5 imported players"), "{summary}");
    let history = app.ok("GET", "/v1/ladders/rich/players/p4/matches?limit=100", &app.read, None);
    let oldest = history["entries"].as_array().expect("entries").last().expect("a line").clone();
    assert_eq!((oldest["kind"].as_str(), oldest["id"].as_str()), (Some("import"), Some("import/p4")));
    assert_eq!(oldest["rating_before"], oldest["rating_after"]);
    assert_eq!(oldest["rating_after"].as_f64(), Some(1700.0));

    // The same import again changes nothing.
    let before = app.ok("GET", "/v1/ladders/rich/leaderboard?limit=100", &app.read, None);
    let (status, again) = import(&app, "rich", &input);
    assert_eq!(status, 200, "{again}");
    assert_eq!(again, serde_json::json!({"lines": 305, "applied": 0, "already_applied": 305}));
    assert_eq!(helpers::journal(&app, "rich").len(), 305);
    assert_eq!(app.ok("GET", "/v1/ladders/rich/leaderboard?limit=100", &app.read, None), before);

    // Only an admin key imports.
    let (status, text) = app.call("POST", "/v1/ladders/rich/import", &app.report, Some(&input));
    assert_eq!(status, 403, "{text}");
}

fn bad_lines_are_named_and_nothing_is_applied(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("l", RULES);
    let t = start();
    let input = [
        format!(r#"{{"id":"p1","time":{t},"player":"alice","state":{{"rating":1600}}}}"#),
        format!(r#"{{"id":"m1","time":{t},"a":"alice","b":"bob","score_a":2}}"#),
        String::new(),
        format!(r#"{{"id":"p2","time":{t},"player":"bob","state":{{"rating":1500,"mood":"good"}}}}"#),
        "{not json".to_owned(),
        r#"{"id":"m2","a":"alice","b":"bob","score_a":1}"#.to_owned(),
    ]
    .join("\n");
    let (status, answer) = import(&app, "l", &input);
    assert_eq!(status, 400, "{answer}");
    let message = answer["error"]["message"].as_str().expect("a message");
    assert!(message.starts_with("4 line(s) cannot be imported, nothing was applied: line 2: "), "{message}");
    for named in ["line 4: state: unknown field `mood`", "line 5: not a JSON object", "line 6: time is required"] {
        assert!(message.contains(named), "{named:?} in {message}");
    }
    assert!(helpers::journal(&app, "l").is_empty(), "nothing applied");
    let (status, _) = app.call("GET", "/v1/ladders/l/players/alice", &app.read, None);
    assert_eq!(status, 404);
}

fn a_refused_line_stops_the_import_and_the_fixed_input_runs_on(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("l", RULES);
    let t = start();
    let lines = [
        format!(r#"{{"id":"alice","time":{t},"player":"alice","state":{{"rating":1600}}}}"#),
        format!(r#"{{"id":"m1","time":{},"a":"alice","b":"bob","score_a":1}}"#, t + 10.0),
        format!(r#"{{"id":"alice-again","time":{},"player":"alice","state":{{"rating":1700}}}}"#, t + 20.0),
        format!(r#"{{"id":"m2","time":{},"a":"bob","b":"carol","score_a":0.5}}"#, t + 30.0),
    ];
    let (status, answer) = import(&app, "l", &lines.join("\n"));
    assert_eq!(status, 422, "{answer}");
    assert_eq!(answer["error"]["code"], "player_exists");
    let message = answer["error"]["message"].as_str().expect("a message");
    assert!(message.starts_with(r#"line 3: player "alice" is already in the ladder"#), "{message}");
    assert!(message.contains("2 line(s) before it were applied now, 0 had been applied before"), "{message}");
    assert_eq!(helpers::journal(&app, "l").len(), 2, "the lines before it stay applied, the refused one left nothing");

    // The fixed input: the first two lines are skipped, the rest applied.
    let fixed = [lines[0].clone(), lines[1].clone(), lines[3].clone()].join("\n");
    let (status, answer) = import(&app, "l", &fixed);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer, serde_json::json!({"lines": 3, "applied": 1, "already_applied": 2}));

    // An id of the input reused for another line, and a line older than the ladder's latest
    // entry, are refused by number too.
    let reused = format!(r#"{{"id":"m1","time":{},"a":"alice","b":"bob","score_a":0}}"#, t + 40.0);
    let (status, answer) = import(&app, "l", &reused);
    assert_eq!((status, answer["error"]["code"].as_str()), (409, Some("match_id_reused")), "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap_or_default().starts_with("line 1: "), "{answer}");
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(r#"{"id":"live","a":"alice","b":"bob","score_a":1}"#));
    let late = format!(r#"{{"id":"old","time":{},"a":"alice","b":"carol","score_a":1}}"#, t + 50.0);
    let (status, answer) = import(&app, "l", &late);
    assert_eq!((status, answer["error"]["code"].as_str()), (422, Some("import_out_of_order")), "{answer}");
    helpers::verify_database(&app.server.database, "l");
}

fn the_command_line_imports_a_file(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("rich", RICH_RULES);
    let dir = helpers::TempDir::new("import");
    let file = dir.0.join("history.ndjson");
    std::fs::write(&file, history(120)).expect("write");
    let run = || {
        let output = Command::new(helpers::binary()).args(["import", "--database", &app.server.database, "--ladder", "rich"]).arg(&file).output().expect("elo-ladder import");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_slice::<Value>(&output.stdout).expect("a JSON summary")
    };
    assert_eq!(run(), serde_json::json!({"lines": 125, "applied": 125, "already_applied": 0}));
    assert_eq!(run(), serde_json::json!({"lines": 125, "applied": 0, "already_applied": 125}));
    verify_replay(&app, "rich", RICH_RULES);
    helpers::verify_database(&app.server.database, "rich");
    let output = Command::new(helpers::binary()).args(["import", "--database", &app.server.database, "--ladder", "nope"]).arg(&file).output().expect("elo-ladder import");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains(r#"there is no ladder "nope""#));
}

fn zero_sum_ladders_refuse_imported_ratings(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("z", r#"{"zero_sum_total":0}"#);
    let t = start();
    let (status, answer) = import(&app, "z", &format!(r#"{{"id":"p","time":{t},"player":"alice","state":{{"rating":1600}}}}"#));
    assert_eq!((status, answer["error"]["code"].as_str()), (422, Some("import_zero_sum")), "{answer}");
    // Its matches import.
    let (status, answer) = import(&app, "z", &format!(r#"{{"id":"m","time":{t},"a":"alice","b":"bob","score_a":1}}"#));
    assert_eq!(status, 200, "{answer}");
    let alice = parse_player(&app.ok("GET", "/v1/ladders/z/players/alice", &app.read, None)).1;
    let bob = parse_player(&app.ok("GET", "/v1/ladders/z/players/bob", &app.read, None)).1;
    assert_eq!(alice.rating + bob.rating, 0.0, "zero-sum");
    helpers::verify_database(&app.server.database, "z");
}

fn an_erased_imported_player_keeps_the_chain_whole(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("l", RULES);
    let t = start();
    let input = [
        format!(r#"{{"id":"a","time":{t},"player":"alice","state":{{"rating":1600,"games_played":3}}}}"#),
        format!(r#"{{"id":"m1","time":{},"a":"alice","b":"bob","score_a":1}}"#, t + 1.0),
    ]
    .join("\n");
    assert_eq!(import(&app, "l", &input).0, 200);
    app.ok("DELETE", "/v1/ladders/l/players/alice", &app.admin, None);
    let journal = helpers::journal(&app, "l");
    let text = serde_json::to_string(&journal).expect("json");
    assert!(!text.contains("alice"), "the name is gone from the journal: {text}");
    let pseudonym = journal[0]["inputs"]["player"].as_str().expect("the import's player").to_owned();
    assert!(pseudonym.starts_with("erased-"), "{pseudonym}");
    assert_eq!(journal[0]["joined"], serde_json::json!([pseudonym]));
    assert_eq!(journal[0]["results"][0]["player"], Value::String(pseudonym));
    helpers::verify_database(&app.server.database, "l");
}
