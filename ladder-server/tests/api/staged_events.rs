//! SQLite: a season end or decay of a ladder larger than `event_step` players is applied in
//! steps. Other ladders' reports are answered between the steps (not after the whole
//! event), the ladder's own reads wait and see it whole, and a server killed half way
//! undoes it when it starts again, after which the same request applies it once.

use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{self, verify_replay, Backend, Server, TestApp};
use crate::RICH_RULES;

/// Players in the large ladder, and the players per step (300 steps).
const PLAYERS: usize = 3000;
const STEP: usize = 10;

/// A SQLite app whose season ends go in steps of [`STEP`], with a ladder `big` of
/// [`PLAYERS`] players (each in one free-for-all of 250) and a ladder `small`.
fn large_ladder() -> TestApp {
    let mut app = TestApp::spawn(Backend::Sqlite);
    let database = format!("sqlite://{}?event_step={STEP}", helpers::sqlite_file(&app.server.database));
    let port = app.server.port();
    app.server.kill9();
    app.server = Server::start(&database, port, 0);
    app.put_ladder("big", RICH_RULES);
    app.put_ladder("small", RICH_RULES);
    for group in 0..PLAYERS / 250 {
        let entrants: Vec<String> = (0..250).map(|i| format!("\"p{}\"", group * 250 + i)).collect();
        let places: Vec<String> = (0..250).map(|i| (1 + i % 17).to_string()).collect();
        let body = format!(r#"{{"id":"ffa{group}","entrants":[{}],"places":[{}]}}"#, entrants.join(","), places.join(","));
        app.ok("POST", "/v1/ladders/big/matches", &app.report, Some(&body));
    }
    // Some pairs too, so that the ratings spread.
    for i in 0..200 {
        let body = format!(r#"{{"id":"pair{i}","a":"p{}","b":"p{}","score_a":1}}"#, (i * 7) % PLAYERS, (i * 13 + 1) % PLAYERS);
        app.ok("POST", "/v1/ladders/big/matches", &app.report, Some(&body));
    }
    app.ok("POST", "/v1/ladders/small/matches", &app.report, Some(r#"{"id":"s0","a":"x","b":"y","score_a":1}"#));
    app
}

/// A read-only look at the database file while the server works.
fn progress(app: &TestApp) -> (i64, i64) {
    let connection = rusqlite::Connection::open_with_flags(helpers::sqlite_file(&app.server.database), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open read-only");
    connection.busy_timeout(Duration::from_secs(10)).expect("busy timeout");
    let under_way: i64 = connection.query_row("SELECT count(*) FROM event_progress", [], |r| r.get(0)).expect("event_progress");
    let saved: i64 = connection.query_row("SELECT count(*) FROM event_undo", [], |r| r.get(0)).expect("event_undo");
    (under_way, saved)
}

/// Waits until the event has begun and saved at least `rows` player rows.
fn wait_until_under_way(app: &TestApp, rows: i64) {
    let started = Instant::now();
    loop {
        let (under_way, saved) = progress(app);
        if under_way == 1 && saved >= rows {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the season end never got under way: {under_way} events, {saved} rows saved");
        thread::sleep(Duration::from_millis(2));
    }
}

/// Every player of the ladder as the API shows them, by name.
fn players(app: &TestApp, ladder: &str) -> Vec<(String, Value)> {
    let mut all = Vec::new();
    let mut offset = 0;
    loop {
        let page = app.ok("GET", &format!("/v1/ladders/{ladder}/leaderboard?limit=1000&offset={offset}"), &app.read, None);
        let entries = page["entries"].as_array().expect("entries").clone();
        if entries.is_empty() {
            break;
        }
        offset += entries.len();
        all.extend(entries.into_iter().map(|e| (e["player"].as_str().expect("name").to_owned(), e)));
    }
    all.sort_by(|x, y| x.0.cmp(&y.0));
    all
}

#[test]
fn a_large_season_end_lets_other_ladders_go_on_and_is_seen_whole() {
    let app = large_ladder();
    let before = players(&app, "big");
    assert_eq!(before.len(), PLAYERS);
    let (address, admin) = (app.server.address.clone(), app.admin.clone());
    let ending = thread::spawn(move || {
        let answer = helpers::call(&address, "POST", "/v1/ladders/big/seasons/end", Some(&admin), Some(r#"{"id":"end-1"}"#)).expect("season end");
        (answer, Instant::now())
    });
    wait_until_under_way(&app, 50);
    // A command on the database meanwhile (another process: it does not share the gate)
    // neither undoes the event nor reports its half-written players as tampering: verify
    // waits for the event's entry, then compares.
    let database = app.server.database.clone();
    let verifying = thread::spawn(move || helpers::verify_database(&database, "big"));
    // Reports to another ladder are answered while the season end is still being written.
    let mut answered = Vec::new();
    for i in 1..=5 {
        app.ok("POST", "/v1/ladders/small/matches", &app.report, Some(&format!(r#"{{"id":"s{i}","a":"x","b":"y","score_a":1}}"#)));
        answered.push((Instant::now(), progress(&app).0));
    }
    // A second server on the same file is refused (its repairs would undo this event).
    let refused = Server::try_start(&app.server.database, &[], &[]).map(|_| ()).expect_err("a second server on the SQLite file");
    assert!(refused.contains("another elo-ladder serve uses this file"), "{refused}");
    // The ladder's own read, sent while the event is under way, waits and sees it whole
    // (the last player is written by the last step).
    let last = format!("p{}", PLAYERS - 1);
    let under_way = progress(&app).0;
    let during = app.ok("GET", &format!("/v1/ladders/big/players/{last}"), &app.read, None);
    let ((status, text), ended_at) = ending.join().expect("season end thread");
    let verified = verifying.join().expect("verify thread");
    assert!(!verified.contains("not compared"), "{verified}");
    assert_eq!(status, 200, "{text}");
    for (at, under_way) in &answered {
        assert!(*at < ended_at, "a report to another ladder waited for the whole season end");
        assert_eq!(*under_way, 1, "the season end was still under way when the report was answered");
    }
    assert_eq!(progress(&app).0, 0, "nothing left under way");
    // The saved rows are removed behind the answer, in steps.
    let started = Instant::now();
    while progress(&app).1 > 0 {
        assert!(started.elapsed() < Duration::from_secs(60), "the saved rows were not removed");
        thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(app.ok("GET", "/v1/ladders/big", &app.read, None)["season"], 2);
    let last_before = &before.iter().find(|(name, _)| *name == last).expect("the last player").1;
    assert_eq!(under_way, 1, "the read was sent during the season end");
    assert_ne!(during["rating"], last_before["rating"], "a read of the ladder during its season end waits for it: {during}");
    assert_eq!(during, app.ok("GET", &format!("/v1/ladders/big/players/{last}"), &app.read, None));
    // Every player reset (keep 0.5 of the distance to 1500): none seen half way.
    let after = players(&app, "big");
    assert_eq!(after.len(), PLAYERS);
    let moved = before.iter().zip(&after).filter(|((_, b), (_, a))| b["rating"] != a["rating"]).count();
    let spread = before.iter().filter(|(_, b)| b["rating"].as_f64() != Some(1500.0)).count();
    assert_eq!(moved, spread, "every rated player moved toward 1500");
    // The same id again: the same answer, not a second season end.
    assert_eq!(app.call("POST", "/v1/ladders/big/seasons/end", &app.admin, Some(r#"{"id":"end-1"}"#)), (200, text));
    let standings = app.ok("GET", "/v1/ladders/big/seasons/1/leaderboard?limit=5", &app.read, None);
    assert_eq!(standings["entries"].as_array().map(Vec::len), Some(5));
    verify_replay(&app, "big", RICH_RULES);
    verify_replay(&app, "small", RICH_RULES);
    helpers::verify_database(&app.server.database, "big");
}

#[test]
fn a_server_killed_during_a_staged_season_end_undoes_it_when_it_starts() {
    let mut app = large_ladder();
    let before = players(&app, "big");
    let journal_before = helpers::journal(&app, "big").len();
    let (address, admin) = (app.server.address.clone(), app.admin.clone());
    let ending = thread::spawn(move || helpers::call(&address, "POST", "/v1/ladders/big/seasons/end", Some(&admin), Some(r#"{"id":"end-1"}"#)));
    wait_until_under_way(&app, i64::try_from(PLAYERS / 3).unwrap_or(0));
    let port = app.server.port();
    app.server.kill9();
    // (Its request is cut off: the client sees an error and would retry.)
    let _ = ending.join();
    // Half written when it was killed.
    let (under_way, saved) = progress(&app);
    assert_eq!(under_way, 1);
    assert!(saved > 0, "{saved} rows saved");
    app.server = Server::start(&app.server.database.clone(), port, 0);
    assert_eq!(progress(&app), (0, 0), "undone when the server started");
    assert_eq!(players(&app, "big"), before, "every player as before the season end");
    assert_eq!(helpers::journal(&app, "big").len(), journal_before, "no journal entry of the unfinished season end");
    assert_eq!(app.ok("GET", "/v1/ladders/big", &app.read, None)["season"], 1);
    assert_eq!(app.call("GET", "/v1/ladders/big/seasons/1/leaderboard", &app.read, None).0, 404);
    verify_replay(&app, "big", RICH_RULES);
    // The scheduler or operator retries with the same id: applied once, now.
    let (status, text) = app.call("POST", "/v1/ladders/big/seasons/end", &app.admin, Some(r#"{"id":"end-1"}"#));
    assert_eq!(status, 200, "{text}");
    assert_eq!(app.ok("GET", "/v1/ladders/big", &app.read, None)["season"], 2);
    assert_eq!(helpers::journal(&app, "big").len(), journal_before + 1);
    verify_replay(&app, "big", RICH_RULES);
    helpers::verify_database(&app.server.database, "big");
}
