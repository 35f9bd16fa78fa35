//! Season ends and decay: once per id, standings kept and paged, and on PostgreSQL a ladder
//! held by one does not stall the others.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::helpers::{self, call, verify_replay, Backend, TestApp};
use crate::{random_match, Lcg, RICH_RULES, RULES};

on_both!(season_ends_and_decay_are_applied_once_per_id, ended_seasons_keep_their_standings);

fn season_ends_and_decay_are_applied_once_per_id(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("s", RICH_RULES);
    let mut rng = Lcg(3);
    for i in 0..30 {
        app.ok("POST", "/v1/ladders/s/matches", &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 8, false)));
    }
    let rating = |name: &str| app.ok("GET", &format!("/v1/ladders/s/players/{name}"), &app.read, None)["rating"].as_f64().unwrap();
    let leader = app.ok("GET", "/v1/ladders/s/leaderboard?limit=1", &app.read, None)["entries"][0]["player"].as_str().unwrap().to_owned();
    let end = |body: Option<&str>| app.call("POST", "/v1/ladders/s/seasons/end", &app.admin, body);
    let (status, first) = end(Some(r#"{"id":"season-2026-11"}"#));
    assert_eq!(status, 200, "{first}");
    let after_first = rating(&leader);
    // A scheduler retrying after a timeout: the same answer, no second reset.
    assert_eq!(end(Some(r#"{"id":"season-2026-11"}"#)), (200, first.clone()));
    assert_eq!(end(Some(r#"{ "id" : "season-2026-11" }"#)), (200, first.clone()));
    assert_eq!(rating(&leader).to_bits(), after_first.to_bits(), "applied once");
    // Without an id, or with a malformed body: refused, nothing changed.
    for body in [None, Some(""), Some("{}"), Some(r#"{"id":"x y"}"#), Some(r#"{"id":"ok","extra":1}"#)] {
        let (status, text) = end(body);
        assert!(status == 400 || status == 422, "{body:?}: {status} {text}");
        assert!(serde_json::from_str::<Value>(&text).unwrap()["error"]["code"].is_string());
    }
    assert_eq!(rating(&leader).to_bits(), after_first.to_bits());
    // The id namespace is the ladder's: a decay or a match cannot reuse it.
    let (status, text) = app.call("POST", "/v1/ladders/s/decay", &app.admin, Some(r#"{"id":"season-2026-11"}"#));
    assert_eq!(status, 409, "{text}");
    assert_eq!(app.call("POST", "/v1/ladders/s/matches", &app.report, Some(r#"{"id":"season-2026-11","a":"p0","b":"p1","score_a":1}"#)).0, 409);
    let (status, decay) = app.call("POST", "/v1/ladders/s/decay", &app.admin, Some(r#"{"id":"decay-1"}"#));
    assert_eq!(status, 200, "{decay}");
    assert_eq!(app.call("POST", "/v1/ladders/s/decay", &app.admin, Some(r#"{"id":"decay-1"}"#)), (200, decay));
    // A second season end with its own id resets again.
    let second: Value = serde_json::from_str(&end(Some(r#"{"id":"season-2026-12"}"#)).1).unwrap();
    assert_eq!(second["season"].as_i64(), Some(2));
    let entries = helpers::journal(&app, "s");
    let kinds: Vec<(&str, &str)> = entries.iter().skip(30).map(|e| (e["kind"].as_str().unwrap(), e["id"].as_str().unwrap())).collect();
    assert_eq!(kinds, vec![("season_end", "season-2026-11"), ("decay", "decay-1"), ("season_end", "season-2026-12")]);
    verify_replay(&app, "s", RICH_RULES);
}

fn ended_seasons_keep_their_standings(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("kept", RULES);
    assert_eq!(app.ok("GET", "/v1/ladders/kept/seasons", &app.read, None)["seasons"], serde_json::json!([]));
    assert_eq!(app.call("GET", "/v1/ladders/kept/seasons/1/leaderboard", &app.read, None).0, 404);
    for i in 0..5 {
        for j in i + 1..5 {
            app.ok("POST", "/v1/ladders/kept/matches", &app.report, Some(&format!(r#"{{"id":"m{i}-{j}","a":"p{i}","b":"p{j}","score_a":1}}"#)));
        }
    }
    let ended = app.ok("POST", "/v1/ladders/kept/seasons/end", &app.admin, Some(r#"{"id":"one"}"#));
    assert_eq!((ended["season"].as_i64(), ended["players"].as_u64()), (Some(1), Some(5)));
    // Later matches change players, not the kept standings.
    app.ok("POST", "/v1/ladders/kept/matches", &app.report, Some(r#"{"id":"late","a":"p4","b":"p0","score_a":1}"#));
    let seasons = app.ok("GET", "/v1/ladders/kept/seasons", &app.read, None);
    assert_eq!(seasons["seasons"][0]["season"].as_i64(), Some(1));
    assert_eq!(seasons["seasons"][0]["players"].as_i64(), Some(5));
    assert_eq!(seasons["seasons"][0]["seq"].as_i64(), ended["seq"].as_i64());
    let page = app.ok("GET", "/v1/ladders/kept/seasons/1/leaderboard?limit=2&offset=1", &app.read, None);
    let names: Vec<&str> = page["entries"].as_array().unwrap().iter().map(|e| e["player"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["p1", "p2"]);
    assert_eq!(page["entries"][0]["wins"].as_u64(), Some(3));
    assert_eq!(page["entries"][0]["games"].as_u64(), Some(4));
    for bad in ["0", "x", "-1"] {
        assert_eq!(app.call("GET", &format!("/v1/ladders/kept/seasons/{bad}/leaderboard"), &app.read, None).0, 400, "{bad}");
    }
    assert_eq!(app.call("GET", "/v1/ladders/kept/seasons/2/leaderboard", &app.read, None).0, 404);
    verify_replay(&app, "kept", RULES);
}

/// A season end holds its ladder's advisory lock exclusively for its whole transaction
/// (here a psql session holds it the same way). Reports to that ladder wait in the server's
/// memory, not on a database connection, so with only four connections a report to another
/// ladder is still applied at once; the held reports are applied once the lock is gone.
#[test]
fn postgres_a_ladder_held_by_a_season_end_does_not_stall_other_ladders() {
    let app = TestApp::spawn_args(Backend::Postgres, &["--rate-limit", "0", "--auth-failure-limit", "0", "--max-db-connections", "4"]);
    app.put_ladder("busy", RULES);
    app.put_ladder("quiet", RULES);
    let db = app.server.database.clone();
    let busy_id = helpers::psql_query(&db, "SELECT id FROM ladders WHERE name = 'busy'");
    let mut holder = helpers::psql_background(&db, &format!("BEGIN; SELECT pg_advisory_xact_lock({}, {busy_id}); SELECT pg_sleep(300); COMMIT;", 0x454C_4F00));
    let asleep = "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()";
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let pid = loop {
        let pid = helpers::psql_query(&db, asleep);
        if !pid.is_empty() {
            break pid;
        }
        assert!(std::time::Instant::now() < deadline, "the holder never took the lock");
        std::thread::sleep(Duration::from_millis(50));
    };
    let answered = Arc::new(AtomicUsize::new(0));
    let held: Vec<_> = (0..12)
        .map(|i| {
            let (address, key, answered) = (app.server.address.clone(), app.report.clone(), Arc::clone(&answered));
            std::thread::spawn(move || {
                let body = format!(r#"{{"id":"held{i}","a":"h{i}","b":"g{i}","score_a":1}}"#);
                let (status, text) = call(&address, "POST", "/v1/ladders/busy/matches", Some(&key), Some(&body)).expect("reachable");
                answered.fetch_add(1, Ordering::SeqCst);
                assert_eq!(status, 200, "{text}");
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(answered.load(Ordering::SeqCst), 0, "the busy ladder's reports wait");
    let other = app.ok("POST", "/v1/ladders/quiet/matches", &app.report, Some(r#"{"id":"free","a":"x","b":"y","score_a":1}"#));
    assert!(other["seq"].as_i64().is_some());
    assert_eq!(app.ok("GET", "/v1/ladders/quiet/players/x", &app.read, None)["rating"].as_f64(), Some(1516.0));
    assert_eq!(answered.load(Ordering::SeqCst), 0, "while the busy ladder is still held");
    assert!(holder.try_wait().unwrap().is_none(), "the holder still holds the lock");
    assert_eq!(helpers::psql_query(&db, &format!("SELECT pg_cancel_backend({pid})")), "t");
    let _ = holder.wait();
    for thread in held {
        thread.join().expect("held report");
    }
    assert_eq!(helpers::journal(&app, "busy").len(), 12);
    verify_replay(&app, "busy", RULES);
}
