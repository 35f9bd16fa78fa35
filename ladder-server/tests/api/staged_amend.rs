//! SQLite: an annulment or correction is rebuilt in steps (pages of `event_step` journal
//! entries, each its own writer transaction). Other ladders' reports are answered between
//! the steps (not after the whole rebuild), the ladder's own reads wait and see it whole, and
//! a server killed half way finishes it when it starts again, with the same outcome as an
//! annulment that was never interrupted.

use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{self, verify_replay, Backend, Server, TestApp};
use crate::{random_match, Lcg, RULES};

/// Matches in each ladder (the suite's SQLite servers step by 3: ~200 pages).
const MATCHES: usize = 600;

/// A SQLite app with two ladders, `twin` and `other`, given the same matches in the same
/// order, and a ladder `small`.
fn twins() -> TestApp {
    let app = TestApp::spawn(Backend::Sqlite);
    for ladder in ["twin", "other", "small"] {
        app.put_ladder(ladder, RULES);
    }
    let mut rng = Lcg(4242);
    for i in 0..MATCHES {
        let body = random_match(&mut rng, &format!("m{i}"), 60, false);
        app.ok("POST", "/v1/ladders/twin/matches", &app.report, Some(&body));
        app.ok("POST", "/v1/ladders/other/matches", &app.report, Some(&body));
    }
    app.ok("POST", "/v1/ladders/small/matches", &app.report, Some(r#"{"id":"s0","a":"x","b":"y","score_a":1}"#));
    app
}

/// A read-only look at the database file while the server works: the amendment under way
/// (its rebuild's rerated count so far), and whether match `m0` of `twin` is marked.
fn progress(app: &TestApp) -> (Option<i64>, bool) {
    let connection = rusqlite::Connection::open_with_flags(helpers::sqlite_file(&app.server.database), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open read-only");
    connection.busy_timeout(Duration::from_secs(10)).expect("busy timeout");
    let rerated: Option<i64> = connection.query_row("SELECT max(rerated) FROM amend_progress", [], |r| r.get(0)).unwrap_or(None);
    let marked: bool =
        connection.query_row("SELECT j.annulled FROM journal j JOIN ladders l ON l.id = j.ladder_id WHERE l.name = 'twin' AND j.match_id = 'm0'", [], |r| r.get(0)).expect("m0");
    (rerated, marked)
}

/// Waits until the annulment of `m0` is marked and its rebuild has written some pages.
fn wait_until_under_way(app: &TestApp) {
    let started = Instant::now();
    loop {
        if let (Some(rerated), true) = progress(app) {
            if rerated > 20 {
                return;
            }
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the annulment never got under way: {:?}", progress(app));
        thread::sleep(Duration::from_millis(1));
    }
}

/// The seq of `ladder`'s entry `id`.
fn seq_of(app: &TestApp, ladder: &str, id: &str) -> i64 {
    helpers::journal(app, ladder).iter().find(|e| e["id"] == id).and_then(|e| e["seq"].as_i64()).unwrap_or_else(|| panic!("{ladder} has no entry {id}"))
}

/// Every player of a ladder as the leaderboard shows them.
fn board(app: &TestApp, ladder: &str) -> Value {
    app.ok("GET", &format!("/v1/ladders/{ladder}/leaderboard?limit=1000"), &app.read, None)["entries"].clone()
}

/// The outcome an annulment answered, without what depends on where its replay started.
fn outcome(answer: &Value) -> (Value, Value, Value) {
    (answer["rerated"].clone(), answer["players_changed"].clone(), answer["players"].clone())
}

#[test]
fn an_annulment_lets_other_ladders_go_on_and_is_seen_whole() {
    let app = twins();
    let (address, admin) = (app.server.address.clone(), app.admin.clone());
    let annulling = thread::spawn(move || helpers::call(&address, "POST", "/v1/ladders/twin/matches/m0/annul", Some(&admin), Some(r#"{"reason":"cheat"}"#)).expect("annul"));
    wait_until_under_way(&app);
    // Reports to another ladder are answered while the rebuild is still being written: they
    // are journaled before the annulment's own entry (one writer transaction would have
    // held them until it committed).
    let mut reports = Vec::new();
    for i in 1..=5 {
        let answer = app.ok("POST", "/v1/ladders/small/matches", &app.report, Some(&format!(r#"{{"id":"s{i}","a":"x","b":"y","score_a":1}}"#)));
        reports.push((answer["seq"].as_i64().expect("seq"), progress(&app).0));
    }
    // The ladder's own read, sent meanwhile, waits for the amendment and sees it whole.
    let under_way = progress(&app).0;
    let during = board(&app, "twin");
    let (status, text) = annulling.join().expect("annul thread");
    assert_eq!(status, 200, "{text}");
    let annul_seq = seq_of(&app, "twin", "annul/m0");
    for (seq, under_way) in &reports {
        assert!(*seq < annul_seq, "a report to another ladder ({seq}) waited for the whole annulment ({annul_seq})");
        assert!(under_way.is_some(), "the annulment was still under way when the report was answered");
    }
    assert!(under_way.is_some(), "the read was sent during the annulment");
    assert_eq!(during, board(&app, "twin"), "a read during the annulment sees it whole");
    assert_eq!(progress(&app).0, None, "nothing left under way");
    let answer: Value = serde_json::from_str(&text).expect("json");
    assert!(answer["rerated"].as_u64().is_some_and(|n| n > 100), "{answer}");
    verify_replay(&app, "twin", RULES);
    verify_replay(&app, "small", RULES);
    helpers::verify_database(&app.server.database, "twin");
}

#[test]
fn a_server_killed_during_a_staged_annulment_finishes_it_when_it_starts() {
    let mut app = twins();
    // The twin's annulment, never interrupted: what the finished one must equal.
    let (status, text) = app.call("POST", "/v1/ladders/other/matches/m0/annul", &app.admin, Some(r#"{"reason":"cheat"}"#));
    assert_eq!(status, 200, "{text}");
    let uninterrupted: Value = serde_json::from_str(&text).expect("json");
    let (address, admin) = (app.server.address.clone(), app.admin.clone());
    let annulling = thread::spawn(move || helpers::call(&address, "POST", "/v1/ladders/twin/matches/m0/annul", Some(&admin), Some(r#"{"reason":"cheat"}"#)));
    wait_until_under_way(&app);
    let port = app.server.port();
    app.server.kill9();
    // (Its request is cut off: the client sees an error and would retry.)
    let _ = annulling.join();
    // Half written when it was killed: marked, some pages rewritten, no entry yet.
    let (rerated, marked) = progress(&app);
    assert!(marked && rerated.is_some_and(|n| n > 0), "{rerated:?} {marked}");
    app.server = Server::start(&app.server.database.clone(), port, 0);
    assert_eq!(progress(&app), (None, true), "finished when the server started");
    let journal = helpers::journal(&app, "twin");
    let entries: Vec<&Value> = journal.iter().filter(|e| e["kind"] == "annul").collect();
    assert_eq!(entries.len(), 1, "one annulment entry");
    assert_eq!(outcome(&entries[0]["results"]), outcome(&uninterrupted), "the same outcome as an annulment never interrupted");
    assert_eq!(board(&app, "twin"), board(&app, "other"), "the same ratings as the twin's");
    // The operator retries: the same answer, nothing applied again.
    let (status, text) = app.call("POST", "/v1/ladders/twin/matches/m0/annul", &app.admin, Some(r#"{"reason":"cheat"}"#));
    assert_eq!(status, 200, "{text}");
    assert_eq!(helpers::journal(&app, "twin").len(), journal.len());
    verify_replay(&app, "twin", RULES);
    helpers::verify_database(&app.server.database, "twin");
}
