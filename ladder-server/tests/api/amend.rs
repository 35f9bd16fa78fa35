//! Annulments and corrections: the match stays in the journal, marked; every later state
//! is rebuilt as the replay rule says (checked after each scenario); once per amendment;
//! atomic under `kill -9`; reports that arrive meanwhile are applied after it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::helpers::{self, call, verify_replay, Backend, Server, TestApp};
use crate::{random_match, Lcg, RICH_RULES, RULES};

on_both!(
    amendments_replay_from_the_latest_checkpoint,
    annulled_and_corrected_matches_rebuild_every_later_state,
    a_zero_sum_ladder_keeps_its_total_through_an_annulment,
    kill_9_during_a_rebuild_leaves_before_or_after,
    reports_during_a_rebuild_are_applied_after_it,
    verify_beside_amendments_does_not_cry_tampering
);

fn annul(app: &TestApp, ladder: &str, id: &str, reason: &str) -> (u16, String) {
    app.call("POST", &format!("/v1/ladders/{ladder}/matches/{id}/annul"), &app.admin, Some(&format!(r#"{{"reason":"{reason}"}}"#)))
}

fn annulled_and_corrected_matches_rebuild_every_later_state(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("rich", RICH_RULES);
    let mut rng = Lcg(77);
    for i in 0..90 {
        app.ok("POST", "/v1/ladders/rich/matches", &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 12, true)));
        if i == 40 {
            app.ok("POST", "/v1/ladders/rich/seasons/end", &app.admin, Some(r#"{"id":"s1"}"#));
        }
        if i == 60 {
            app.ok("POST", "/v1/ladders/rich/decay", &app.admin, Some(r#"{"id":"d1"}"#));
        }
    }
    verify_replay(&app, "rich", RICH_RULES);
    let before = app.ok("GET", "/v1/ladders/rich/leaderboard?limit=100", &app.read, None);
    // Annul an early match: everything after it is rebuilt.
    let (status, first) = annul(&app, "rich", "m5", "boosting: account shared");
    assert_eq!(status, 200, "{first}");
    let answer: Value = serde_json::from_str(&first).unwrap();
    assert_eq!((answer["match"].as_str(), answer["action"].as_str()), (Some("m5"), Some("annul")));
    assert!(answer["rerated"].as_u64().unwrap() > 0 && answer["players_changed"].as_u64().unwrap() > 0, "{answer}");
    assert_eq!(answer["players"].as_array().unwrap().len() as u64, answer["players_changed"].as_u64().unwrap());
    assert_ne!(app.ok("GET", "/v1/ladders/rich/leaderboard?limit=100", &app.read, None), before, "the ratings moved");
    // Again: the same answer, nothing applied twice.
    assert_eq!(annul(&app, "rich", "m5", "another reason"), (200, first.clone()));
    let journal = helpers::journal(&app, "rich");
    let m5 = journal.iter().find(|e| e["id"] == "m5").unwrap();
    assert_eq!((m5["annulled"].as_bool(), m5["annul_reason"].as_str()), (Some(true), Some("boosting: account shared")));
    let marker = journal.last().unwrap();
    assert_eq!((marker["kind"].as_str(), marker["seq"].as_i64()), (Some("annul"), answer["seq"].as_i64()));
    verify_replay(&app, "rich", RICH_RULES);
    // The annulled match's players: it is still in their history, marked.
    let player = m5["inputs"]["a"].as_str().or_else(|| m5["inputs"]["team_a"][0].as_str()).or_else(|| m5["inputs"]["entrants"][0].as_str()).unwrap();
    let history = app.ok("GET", &format!("/v1/ladders/rich/players/{player}/matches?limit=1000"), &app.read, None);
    let line = history["entries"].as_array().unwrap().iter().find(|e| e["seq"] == m5["seq"]).expect("the annulled match is in the history");
    assert_eq!(line["annulled"].as_bool(), Some(true));

    // Correct a later match of each shape it may be.
    let target = journal.iter().find(|e| e["kind"] == "pair" && e["seq"].as_i64() > m5["seq"].as_i64() && e["annulled"] != true).unwrap();
    let id = target["id"].as_str().unwrap();
    let score = target["inputs"]["score_a"].as_f64().unwrap();
    let corrected = if score == 1.0 { 0.0 } else { 1.0 };
    let (status, fixed) = app.call("POST", &format!("/v1/ladders/rich/matches/{id}/correct"), &app.admin, Some(&format!(r#"{{"score_a":{corrected}}}"#)));
    assert_eq!(status, 200, "{fixed}");
    let fixed_answer: Value = serde_json::from_str(&fixed).unwrap();
    assert_eq!(fixed_answer["action"], "correct");
    assert_eq!(
        app.call("POST", &format!("/v1/ladders/rich/matches/{id}/correct"), &app.admin, Some(&format!(r#"{{"score_a":{corrected}}}"#))),
        (200, fixed.clone()),
        "the same correction again"
    );
    let entry = helpers::journal(&app, "rich").into_iter().find(|e| e["id"] == id).unwrap();
    assert_eq!(entry["corrected"]["score_a"].as_f64(), Some(corrected));
    assert_eq!(entry["inputs"]["score_a"].as_f64(), Some(score), "the reported inputs stay");
    verify_replay(&app, "rich", RICH_RULES);
    let ffa = helpers::journal(&app, "rich").into_iter().find(|e| e["kind"] == "free_for_all" && e["annulled"] != true).unwrap();
    let n = ffa["inputs"]["places"].as_array().unwrap().len();
    let places: Vec<String> = (1..=n).rev().map(|p| p.to_string()).collect();
    let (status, text) =
        app.call("POST", &format!("/v1/ladders/rich/matches/{}/correct", ffa["id"].as_str().unwrap()), &app.admin, Some(&format!(r#"{{"places":[{}]}}"#, places.join(","))));
    assert_eq!(status, 200, "{text}");
    verify_replay(&app, "rich", RICH_RULES);

    // Refusals change nothing.
    let unchanged = helpers::journal(&app, "rich").len();
    for (path, body, status) in [
        ("/v1/ladders/rich/matches/nope/annul", r#"{"reason":"x"}"#, 404),
        ("/v1/ladders/rich/matches/s1/annul", r#"{"reason":"x"}"#, 409),
        ("/v1/ladders/rich/matches/m5/correct", r#"{"score_a":1}"#, 409),
        ("/v1/ladders/rich/matches/m7/annul", r#"{"reason":""}"#, 422),
        ("/v1/ladders/rich/matches/m7/annul", r#"{}"#, 400),
        ("/v1/ladders/rich/matches/m7/correct", r#"{"score_a":2}"#, 422),
        ("/v1/ladders/rich/matches/m7/correct", r#"{"a":"x"}"#, 400),
    ] {
        let (got, text) = app.call("POST", path, &app.admin, Some(body));
        assert_eq!(got, status, "{path} {body}: {text}");
    }
    assert_eq!(app.call("POST", "/v1/ladders/rich/matches/m7/annul", &app.report, Some(r#"{"reason":"x"}"#)).0, 403, "admin only");
    assert_eq!(helpers::journal(&app, "rich").len(), unchanged);
    verify_replay(&app, "rich", RICH_RULES);
}

fn a_zero_sum_ladder_keeps_its_total_through_an_annulment(backend: Backend) {
    let config = r#"{"zero_sum_total":10000,"k_policy":{"policy":"constant","k":32},"streak_alpha":0.1}"#;
    let app = TestApp::spawn(backend);
    app.put_ladder("zs", config);
    let mut rng = Lcg(5);
    for i in 0..60 {
        app.ok("POST", "/v1/ladders/zs/matches", &app.report, Some(&random_match(&mut rng, &format!("z{i}"), 10, false)));
    }
    let (status, text) = annul(&app, "zs", "z3", "a bug");
    assert_eq!(status, 200, "{text}");
    let replay = verify_replay(&app, "zs", config);
    assert!((replay.pool.total() - 10000.0).abs() < 1e-6, "{}", replay.pool.total());
    let board = app.ok("GET", "/v1/ladders/zs/leaderboard?limit=100", &app.read, None);
    let total: f64 = board["entries"].as_array().unwrap().iter().map(|e| e["rating"].as_f64().unwrap()).sum();
    assert!((total - 10000.0).abs() < 1e-2, "{total}");
}

/// A ladder big enough that a rebuild takes a moment.
fn grown(app: &TestApp, ladder: &str, matches: usize) {
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let (address, key, ladder) = (app.server.address.clone(), app.report.clone(), ladder.to_owned());
            std::thread::spawn(move || {
                let mut rng = Lcg(900 + t as u64);
                for i in 0..matches / 4 {
                    let body = random_match(&mut rng, &format!("g{t}-{i}"), 200, false);
                    let (status, text) = call(&address, "POST", &format!("/v1/ladders/{ladder}/matches"), Some(&key), Some(&body)).expect("reachable");
                    assert_eq!(status, 200, "{text}");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("reporter");
    }
}

fn kill_9_during_a_rebuild_leaves_before_or_after(backend: Backend) {
    let mut app = TestApp::spawn(backend);
    app.put_ladder("big", RULES);
    grown(&app, "big", 2000);
    let port = app.server.port();
    let (address, admin) = (app.server.address.clone(), app.admin.clone());
    let annulling = std::thread::spawn(move || call(&address, "POST", "/v1/ladders/big/matches/g0-0/annul", Some(&admin), Some(r#"{"reason":"cheat"}"#)));
    std::thread::sleep(Duration::from_millis(40));
    app.server.kill9();
    let first = annulling.join().expect("the request thread");
    app.server = Server::start(&app.server.database.clone(), port, 0);
    // Before or after: the replay rule holds either way.
    verify_replay(&app, "big", RULES);
    let journal = helpers::journal(&app, "big");
    let marked = journal.iter().find(|e| e["id"] == "g0-0").unwrap()["annulled"] == true;
    let markers = journal.iter().filter(|e| e["kind"] == "annul").count();
    assert_eq!(usize::from(marked), markers, "the mark and its journal entry commit together");
    // Retried: applied exactly once.
    let (status, text) = annul(&app, "big", "g0-0", "cheat");
    assert_eq!(status, 200, "{text}");
    if let Ok((200, answer)) = first {
        assert_eq!(answer, text, "the acknowledged annulment is the one kept");
    }
    assert_eq!(helpers::journal(&app, "big").iter().filter(|e| e["kind"] == "annul").count(), 1);
    verify_replay(&app, "big", RULES);
}

fn reports_during_a_rebuild_are_applied_after_it(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("busy", RULES);
    grown(&app, "busy", 2000);
    let done = Arc::new(AtomicBool::new(false));
    let reporters: Vec<_> = (0..4)
        .map(|t| {
            let (address, key, done) = (app.server.address.clone(), app.report.clone(), Arc::clone(&done));
            std::thread::spawn(move || {
                let mut rng = Lcg(70 + t);
                let mut sent = 0;
                while !done.load(Ordering::SeqCst) || sent < 20 {
                    let body = random_match(&mut rng, &format!("late{t}-{sent}"), 200, false);
                    let (status, text) = call(&address, "POST", "/v1/ladders/busy/matches", Some(&key), Some(&body)).expect("reachable");
                    assert_eq!(status, 200, "{text}");
                    sent += 1;
                }
                sent
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(50));
    let answer = app.ok("POST", "/v1/ladders/busy/matches/g1-3/annul", &app.admin, Some(r#"{"reason":"cheat"}"#));
    done.store(true, Ordering::SeqCst);
    let sent: usize = reporters.into_iter().map(|r| r.join().expect("reporter")).sum();
    let journal = helpers::journal(&app, "busy");
    assert_eq!(journal.iter().filter(|e| e["id"].as_str().is_some_and(|id| id.starts_with("late"))).count(), sent, "none lost");
    assert!(answer["seq"].as_i64().is_some());
    verify_replay(&app, "busy", RULES);
}

/// `elo-ladder verify --database`, another process, run again and again while matches are
/// annulled: what it reads while an amendment rewrites the ladder mixes two
/// states of the journal, so it checks the ladder again instead of reporting a mismatch.
fn verify_beside_amendments_does_not_cry_tampering(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("v", RULES);
    grown(&app, "v", 400);
    let done = Arc::new(AtomicBool::new(false));
    let verifier = {
        let (database, done) = (app.server.database.clone(), Arc::clone(&done));
        std::thread::spawn(move || {
            let mut runs = Vec::new();
            while !done.load(Ordering::SeqCst) || runs.len() < 3 {
                let output = std::process::Command::new(helpers::binary()).args(["verify", "--database", &database, "--ladder", "v"]).output().expect("verify");
                runs.push((output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))));
            }
            runs
        })
    };
    for i in 0..8 {
        let (status, text) = annul(&app, "v", &format!("g{}-{}", i % 4, i * 3), "cheat");
        assert_eq!(status, 200, "{text}");
        std::thread::sleep(Duration::from_millis(150));
    }
    done.store(true, Ordering::SeqCst);
    let runs = verifier.join().expect("verifier");
    let failed: Vec<&String> = runs.iter().filter(|(ok, _)| !ok).map(|(_, said)| said).collect();
    assert!(failed.is_empty(), "{} of {} verify runs failed beside amendments: {failed:?}", failed.len(), runs.len());
    verify_replay(&app, "v", RULES);
}

/// Two servers on PostgreSQL: an annulment through one while reports go to the other end
/// in the replay rule.
#[test]
fn postgres_an_annulment_on_one_server_and_reports_on_another() {
    let app = TestApp::spawn(Backend::Postgres);
    app.put_ladder("two", RULES);
    grown(&app, "two", 800);
    let second = Server::start(&app.server.database, 0, 0);
    let reporters: Vec<_> = (0..4)
        .map(|t| {
            let (address, key) = (second.address.clone(), app.report.clone());
            std::thread::spawn(move || {
                let mut rng = Lcg(40 + t);
                for i in 0..60 {
                    let body = random_match(&mut rng, &format!("o{t}-{i}"), 200, false);
                    let (status, text) = call(&address, "POST", "/v1/ladders/two/matches", Some(&key), Some(&body)).expect("reachable");
                    assert_eq!(status, 200, "{text}");
                }
            })
        })
        .collect();
    for id in ["g0-1", "g1-2", "g2-3"] {
        app.ok("POST", &format!("/v1/ladders/two/matches/{id}/annul"), &app.admin, Some(r#"{"reason":"cheat"}"#));
    }
    for reporter in reporters {
        reporter.join().expect("reporter");
    }
    verify_replay(&app, "two", RULES);
    drop(second);
}

/// PostgreSQL: many corrections of one ladder at once wait for their turn in the server's
/// memory, not each on a pool connection blocked on the ladder's lock (at most one of this
/// server's connections waits for it), and reports to another ladder go on meanwhile.
#[test]
fn postgres_amendments_of_one_ladder_wait_without_holding_connections() {
    let app = TestApp::spawn(Backend::Postgres);
    app.put_ladder("busy", RULES);
    app.put_ladder("other", RULES);
    let mut rng = Lcg(3);
    for i in 0..600 {
        app.ok("POST", "/v1/ladders/busy/matches", &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 40, false)));
    }
    let target = helpers::journal(&app, "busy").into_iter().find(|e| e["kind"] == "pair").unwrap()["id"].as_str().unwrap().to_owned();
    let done = Arc::new(AtomicBool::new(false));
    let correctors: Vec<_> = (0..30)
        .map(|i| {
            let (address, key, target) = (app.server.address.clone(), app.admin.clone(), target.clone());
            std::thread::spawn(move || {
                let body = format!(r#"{{"score_a":{}}}"#, [0.0, 0.5, 1.0, 0.25][i % 4]);
                let (status, text) = call(&address, "POST", &format!("/v1/ladders/busy/matches/{target}/correct"), Some(&key), Some(&body)).unwrap();
                assert_eq!(status, 200, "{text}");
            })
        })
        .collect();
    let reporter = {
        let (address, key, done) = (app.server.address.clone(), app.report.clone(), Arc::clone(&done));
        std::thread::spawn(move || {
            let mut reported = 0;
            while !done.load(Ordering::SeqCst) || reported < 5 {
                let body = format!(r#"{{"id":"o{reported}","a":"x","b":"y","score_a":1}}"#);
                let (status, text) = call(&address, "POST", "/v1/ladders/other/matches", Some(&key), Some(&body)).unwrap();
                assert_eq!(status, 200, "{text}");
                reported += 1;
            }
            reported
        })
    };
    // The lock manager's own view (pg_locks: requests not granted), not pg_stat_activity's
    // wait_event, which each backend reports itself and may still show for a moment after
    // its lock was granted (seen once in CI on a loaded machine: 2).
    let waiting = "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database \
                   WHERE d.datname = current_database() AND l.locktype = 'advisory' AND NOT l.granted";
    let mut most = 0;
    while correctors.iter().any(|c| !c.is_finished()) {
        most = most.max(helpers::psql_query(&app.server.database, waiting).trim().parse::<u32>().unwrap_or(0));
    }
    for corrector in correctors {
        corrector.join().unwrap();
    }
    done.store(true, Ordering::SeqCst);
    assert!(reporter.join().unwrap() >= 5);
    assert!(most <= 1, "{most} connections waited for the ladder's lock at once");
    verify_replay(&app, "busy", RULES);
}

/// The seq of the ladder's newest rebuild checkpoint (0: none), read straight from the
/// database.
pub fn newest_checkpoint(app: &TestApp, backend: Backend) -> i64 {
    let sql = "SELECT coalesce(max(seq), 0) FROM rebuild_checkpoints";
    match backend {
        Backend::Sqlite => {
            let connection = rusqlite::Connection::open(helpers::sqlite_file(&app.server.database)).unwrap();
            connection.busy_timeout(Duration::from_secs(10)).unwrap();
            connection.query_row(sql, [], |r| r.get(0)).unwrap()
        }
        Backend::Postgres => helpers::psql_query(&app.server.database, sql).trim().parse().unwrap(),
    }
}

/// The server's checkpointer lays a checkpoint of the ladder's states every few entries, and
/// an amendment replays only from the latest one before its match: annulling the newest
/// match replays the entries after the checkpoint, not the whole journal; an early match,
/// the whole journal. Every state is the replay's either way.
fn amendments_replay_from_the_latest_checkpoint(backend: Backend) {
    let app = TestApp::spawn_args(backend, &["--rate-limit", "0", "--checkpoint-every", "10"]);
    app.put_ladder("rich", RICH_RULES);
    let mut rng = Lcg(44);
    let mut last = 0;
    for i in 0..120 {
        last = app.ok("POST", "/v1/ladders/rich/matches", &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 12, true)))["seq"].as_i64().unwrap();
        if i == 60 {
            app.ok("POST", "/v1/ladders/rich/seasons/end", &app.admin, Some(r#"{"id":"s1"}"#));
        }
    }
    // The checkpointer catches up with the journal (on PostgreSQL, once it is chained).
    let started = std::time::Instant::now();
    while newest_checkpoint(&app, backend) < last {
        assert!(started.elapsed() < Duration::from_secs(30), "no checkpoint was laid at seq {last}");
        std::thread::sleep(Duration::from_millis(100));
    }
    for i in 120..124 {
        app.ok("POST", "/v1/ladders/rich/matches", &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 12, true)));
    }
    let newest = app.ok("POST", "/v1/ladders/rich/matches/m123/annul", &app.admin, Some(r#"{"reason":"newest"}"#));
    let replayed = newest["replayed"].as_u64().unwrap();
    assert!((1..=10).contains(&replayed), "annulling the newest match replayed {replayed} entries: {newest}");
    verify_replay(&app, "rich", RICH_RULES);
    helpers::verify_database(&app.server.database, "rich");
    let early = app.ok("POST", "/v1/ladders/rich/matches/m2/annul", &app.admin, Some(r#"{"reason":"early"}"#));
    assert!(early["replayed"].as_u64().unwrap() > 120, "{early}");
    verify_replay(&app, "rich", RICH_RULES);
    // The rebuild laid a checkpoint as it passed; a correction in the middle replays from
    // the latest one before it, and the states are the replay's.
    let middle = app.ok("POST", "/v1/ladders/rich/matches/m90/correct", &app.admin, Some(r#"{"score_a":0.5}"#));
    assert!(middle["action"] == "correct" || middle["rerated"].is_number(), "{middle}");
    verify_replay(&app, "rich", RICH_RULES);
    helpers::verify_database(&app.server.database, "rich");
}
