//! A report key against the season operations (issue 33's findings): ids the server writes
//! itself are out of every client's reach, amendments are found by kind and match, erasure
//! pseudonyms are reserved, reasons and request ids carry no deceptive characters, and
//! `verify` answers a crafted journal with an error, never a panic.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{self, verify_replay, Backend, Server, TestApp};
use crate::RULES;

on_both!(
    client_ids_cannot_take_or_block_an_amendment,
    a_report_cannot_skip_a_scheduled_season_end,
    pseudonyms_are_reserved,
    reasons_refuse_direction_overrides_and_invisible_characters,
    request_ids_that_are_not_plain_are_replaced,
    verify_answers_crafted_amendments_without_panicking,
    verify_finds_forged_standings_and_history_lines
);

fn pair(id: &str, a: &str, b: &str, score: f64) -> String {
    format!(r#"{{"id":"{id}","a":"{a}","b":"{b}","score_a":{score}}}"#)
}

/// Matches posted with the ids the server used to write for itself (`annul:ID`,
/// `correct:ID:N`) are ordinary matches: the admin's annulment and corrections of `m1` still
/// apply, answer well-formed JSON and are found by kind and match; ids in the server's own
/// form (`annul/ID`) are refused; corrections of `m2:1` are not counted as `m2`'s.
fn client_ids_cannot_take_or_block_an_amendment(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("l", RULES);
    for (id, a, b) in [("m1", "ann", "bob"), ("m2", "ann", "cy"), ("m2:1", "bob", "cy")] {
        app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&pair(id, a, b, 1.0)));
    }
    // The old forms of server-written ids, taken by a report key first.
    for id in ["annul:m1", "correct:m1:1", "correct:m2:1", "annul:m2:1"] {
        app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&pair(id, "dee", "eve", 0.5)));
    }
    // The server's own form: out of reach.
    for id in ["annul/m1", "correct/m1/1", "scheduled/season_end/1767225600"] {
        let (status, text) = app.call("POST", "/v1/ladders/l/matches", &app.report, Some(&pair(id, "dee", "eve", 0.5)));
        assert_eq!(status, 422, "{id}: {text}");
        assert!(text.contains("invalid_name"), "{text}");
    }
    // The annulment of m1 applies and answers JSON.
    let (status, text) = app.call("POST", "/v1/ladders/l/matches/m1/annul", &app.admin, Some(r#"{"reason":"boosting"}"#));
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("the annulment's answer is not JSON ({e}): {text}"));
    assert_eq!((answer["match"].as_str(), answer["action"].as_str(), answer["reason"].as_str()), (Some("m1"), Some("annul"), Some("boosting")), "{answer}");
    assert!(answer["seq"].as_i64().is_some(), "{answer}");
    let journal = helpers::journal(&app, "l");
    let m1 = journal.iter().find(|e| e["id"] == "m1").unwrap();
    assert_eq!(m1["annulled"].as_bool(), Some(true), "m1 counts for nothing: {m1}");
    let marker = journal.iter().find(|e| e["kind"] == "annul").expect("the annulment's entry");
    assert_eq!(marker["id"].as_str(), Some("annul/m1"));
    assert_eq!(marker["inputs"], serde_json::json!({ "match": "m1" }), "the reason stays out of the hashed inputs");
    assert_eq!(marker["results"]["reason"].as_str(), Some("boosting"));
    assert_eq!(app.call("POST", "/v1/ladders/l/matches/m1/annul", &app.admin, Some(r#"{"reason":"again"}"#)), (200, text.clone()), "once");
    // The client's match named like an annulment is a match like any other: annullable.
    let (status, text) = app.call("POST", "/v1/ladders/l/matches/annul:m1/annul", &app.admin, Some(r#"{"reason":"also"}"#));
    assert_eq!(status, 200, "{text}");
    // Corrections of m2: numbered by kind and match, whatever ids clients took.
    for (n, score) in [(1, 0.0), (2, 0.5)] {
        let (status, text) = app.call("POST", "/v1/ladders/l/matches/m2/correct", &app.admin, Some(&format!(r#"{{"score_a":{score}}}"#)));
        assert_eq!(status, 200, "correction {n} of m2: {text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        let entry = helpers::journal(&app, "l").into_iter().find(|e| e["seq"] == answer["seq"]).unwrap();
        assert_eq!(entry["id"].as_str(), Some(format!("correct/m2/{n}").as_str()));
    }
    // The latest correction again: its answer, nothing applied twice.
    let latest = helpers::journal(&app, "l").into_iter().rfind(|e| e["kind"] == "correct").unwrap();
    let (status, text) = app.call("POST", "/v1/ladders/l/matches/m2/correct", &app.admin, Some(r#"{"score_a":0.5}"#));
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["seq"], latest["seq"]);
    // m2:1's first correction is its own first.
    let (status, text) = app.call("POST", "/v1/ladders/l/matches/m2:1/correct", &app.admin, Some(r#"{"score_a":0}"#));
    assert_eq!(status, 200, "{text}");
    let seq = serde_json::from_str::<Value>(&text).unwrap()["seq"].clone();
    let entry = helpers::journal(&app, "l").into_iter().find(|e| e["seq"] == seq).unwrap();
    assert_eq!(entry["id"].as_str(), Some("correct/m2:1/1"));
    let m2 = helpers::journal(&app, "l").into_iter().find(|e| e["id"] == "m2").unwrap();
    assert_eq!(m2["corrected"]["score_a"].as_f64(), Some(0.5), "m2 keeps its own latest correction: {m2}");
    verify_replay(&app, "l", RULES);
    helpers::verify_database(&app.server.database, "l");
}

/// A report key that knows when the next scheduled season end runs (a read key shows it)
/// and posts matches with the id the schedule used to run it under cannot stop it: the
/// overdue season end runs once, under its own id.
fn a_report_cannot_skip_a_scheduled_season_end(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("sched", RULES);
    let second = (backend == Backend::Postgres).then(|| Server::start(&app.server.database, 0, 0));
    app.ok("PUT", "/v1/ladders/sched/schedule", &app.admin, Some(r#"{"season_end":"0 0 * * *"}"#));
    // Overdue since three days: the run is for today's midnight (UTC).
    let today = (crate::now() / 86_400.0).floor() as i64 * 86_400;
    crate::seasons_rules::set_next_season_end(&app, backend, (today - 3 * 86_400) as f64);
    // The old form of the scheduled event's id for the days around it, taken first (twice
    // skipped two season ends before).
    for day in -1..=1 {
        let at = today + day * 86_400;
        app.ok("POST", "/v1/ladders/sched/matches", &app.report, Some(&pair(&format!("scheduled-season_end-{at}"), "ann", "bob", 1.0)));
    }
    let (status, text) = app.call("POST", "/v1/ladders/sched/matches", &app.report, Some(&pair(&format!("scheduled/season_end/{today}"), "ann", "bob", 1.0)));
    assert_eq!(status, 422, "{text}");
    let started = Instant::now();
    loop {
        let season = app.ok("GET", "/v1/ladders/sched", &app.read, None)["season"].as_i64().unwrap();
        if season >= 2 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the scheduled season end never ran (season {season})");
        std::thread::sleep(Duration::from_millis(100));
    }
    let end = helpers::journal(&app, "sched").into_iter().find(|e| e["kind"] == "season_end").unwrap();
    let scheduled = end["inputs"]["scheduled"].as_f64().unwrap() as i64;
    assert!((today - 86_400..=today + 86_400).contains(&scheduled), "{end}");
    assert_eq!(end["id"].as_str(), Some(format!("scheduled/season_end/{scheduled}").as_str()));
    verify_replay(&app, "sched", RULES);
    drop(second);
}

/// Names in the erasure pseudonyms' form are refused in reports (any case), so nobody joins
/// as one or plays as an erased player; erasure still works and the erased player's
/// pseudonym cannot be reported with.
fn pseudonyms_are_reserved(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("l", RULES);
    for name in ["erased-0123456789abcdef", "Erased-x", "ERASED-"] {
        let (status, text) = app.call("POST", "/v1/ladders/l/matches", &app.report, Some(&pair("m0", name, "bob", 1.0)));
        assert_eq!(status, 422, "{name}: {text}");
        assert!(text.contains("reserved_name") && text.contains(name), "{text}");
    }
    let (status, text) = app.call("POST", "/v1/ladders/l/matches", &app.report, Some(r#"{"id":"t0","team_a":["ann"],"team_b":["erased-1"],"score_a":1}"#));
    assert_eq!(status, 422, "{text}");
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&pair("m1", "ann", "bob", 1.0)));
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&pair("m2", "erasedx", "bob", 1.0)));
    let pseudonym = app.ok("DELETE", "/v1/ladders/l/players/ann", &app.admin, None)["pseudonym"].as_str().unwrap().to_owned();
    let (status, text) = app.call("POST", "/v1/ladders/l/matches", &app.report, Some(&pair("m3", &pseudonym, "bob", 0.0)));
    assert_eq!(status, 422, "playing as an erased player: {text}");
    // A correction of a match with an erased player (its stored players are not checked as
    // a report's are).
    app.ok("POST", "/v1/ladders/l/matches/m1/correct", &app.admin, Some(r#"{"score_a":0}"#));
    verify_replay(&app, "l", RULES);
}

/// Reasons with direction overrides, isolates or zero-width characters are refused.
fn reasons_refuse_direction_overrides_and_invisible_characters(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("l", RULES);
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&pair("m1", "ann", "bob", 1.0)));
    for reason in ["cheat\\u202egnisoob", "a\\u200bb", "\\u2066x\\u2069", "\\ufeffx", "x\\u00ady", "\\u0007"] {
        let (status, text) = app.call("POST", "/v1/ladders/l/matches/m1/annul", &app.admin, Some(&format!(r#"{{"reason":"{reason}"}}"#)));
        assert_eq!(status, 422, "{reason}: {text}");
        assert!(text.contains("invalid_reason"), "{text}");
    }
    assert_eq!(helpers::journal(&app, "l").len(), 1, "nothing applied");
    let (status, text) = app.call("POST", "/v1/ladders/l/matches/m1/annul", &app.admin, Some(r#"{"reason":"Zweitkonto – élan, 二号"}"#));
    assert_eq!(status, 200, "ordinary text in any script: {text}");
}

/// Sends a GET with an `x-request-id` header and answers (status, the response's id).
fn with_request_id(address: &str, path: &str, key: &str, id: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {key}\r\nx-request-id: {id}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap();
    let id = response.lines().find_map(|l| l.strip_prefix("x-request-id: ")).map(|v| v.trim().to_owned()).unwrap_or_default();
    (status, id)
}

/// A client's own request id is kept only when short and plain; a long one, or one with
/// spaces or `=` (spoofed log fields), is replaced in the answer and never logged.
fn request_ids_that_are_not_plain_are_replaced(backend: Backend) {
    let app = TestApp::spawn_args(backend, &["--rate-limit", "0", "--log-format", "text"]);
    app.put_ladder("l", RULES);
    let path = "/v1/ladders/l/leaderboard";
    assert_eq!(with_request_id(&app.server.address, path, &app.read, "trace-42.a_b"), (200, "trace-42.a_b".to_owned()));
    let long = "a".repeat(4000);
    let spoof = "has spaces status=999 client=6.6.6.6";
    for given in [long.as_str(), spoof, &"b".repeat(65)] {
        let (status, id) = with_request_id(&app.server.address, path, &app.read, given);
        assert_eq!(status, 200);
        assert!(id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{given:.40}: replaced by a new id, got {id:.80}");
    }
    std::thread::sleep(Duration::from_millis(200));
    let log = app.server.log();
    assert!(log.contains("trace-42.a_b"), "the plain id is logged");
    for needle in ["status=999", "6.6.6.6", &long[..100], &"b".repeat(65)] {
        assert!(!log.contains(needle), "{needle:.40} in the log");
    }
}

/// An export whose correction entry has inputs that are not an object (`[]`, `"s"`, a
/// number, an object without its result) is answered with a failure naming the seq (exit 1),
/// never a panic (exit 101).
fn verify_answers_crafted_amendments_without_panicking(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("l", RULES);
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&pair("m1", "ann", "bob", 1.0)));
    app.ok("POST", "/v1/ladders/l/matches/m1/correct", &app.admin, Some(r#"{"score_a":0}"#));
    let (_, text) = app.call("GET", "/v1/ladders/l/export", &app.admin, None);
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let correction = lines.iter().position(|l| l.contains(r#""kind":"correct""#)).unwrap();
    let dir = helpers::TempDir::new("crafted");
    for (i, inputs) in
        [Value::Array(vec![]), Value::from("s"), Value::from(7), serde_json::json!({ "match": "m1" }), serde_json::json!({ "match": 1, "result": [] })].into_iter().enumerate()
    {
        let mut copy = lines.clone();
        let mut entry: Value = serde_json::from_str(&copy[correction]).unwrap();
        entry["inputs"] = inputs.clone();
        copy[correction] = entry.to_string();
        let path = dir.0.join(format!("crafted{i}.ndjson"));
        std::fs::write(&path, copy.join("\n") + "\n").unwrap();
        let output = std::process::Command::new(helpers::binary()).args(["verify", "--journal"]).arg(&path).output().unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "inputs {inputs}: {said}");
        assert!(said.contains("does not verify") && !said.contains("panicked"), "inputs {inputs}: {said}");
    }
}

/// Occurrences of `needle` in the bytes of `path` (0 when the file does not exist).
fn copies_in(path: &str, needle: &[u8]) -> usize {
    let bytes = std::fs::read(path).unwrap_or_default();
    bytes.windows(needle.len()).filter(|w| *w == needle).count()
}

/// A ladder `l` whose matches of every shape (and a season end, an annulment and a
/// correction) name `name`.
fn ladder_naming(app: &TestApp, name: &str) {
    app.put_ladder("l", crate::RICH_RULES);
    let mut rng = crate::Lcg(5);
    for i in 0..40 {
        let body = match i % 4 {
            0 => pair(&format!("m{i}"), name, &format!("p{}", rng.below(6)), 1.0),
            1 => format!(r#"{{"id":"m{i}","team_a":["{name}","p1"],"team_b":["p2","p3"],"score_a":0}}"#),
            2 => format!(r#"{{"id":"m{i}","entrants":["p4","{name}","p5"],"places":[1,2,3]}}"#),
            _ => crate::random_match(&mut rng, &format!("m{i}"), 6, true),
        };
        app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&body));
        if i == 20 {
            app.ok("POST", "/v1/ladders/l/seasons/end", &app.admin, Some(r#"{"id":"s1"}"#));
        }
    }
    app.ok("POST", "/v1/ladders/l/matches/m0/annul", &app.admin, Some(r#"{"reason":"shared account"}"#));
    app.ok("POST", "/v1/ladders/l/matches/m1/correct", &app.admin, Some(r#"{"score_a":1}"#));
}

/// After an erasure, the SQLite file and its write-ahead log hold no copy of the erased name:
/// not live, not in freed space (`secure_delete`) nor in the slack of pages SQLite rebuilt
/// earlier (`VACUUM`: without it, 3 old copies of an annulled match's row remained), not in
/// old log frames (a checkpoint that truncates the log).
#[test]
fn sqlite_erasure_leaves_no_copy_in_the_files() {
    let app = TestApp::spawn(Backend::Sqlite);
    let name = "Zelda-Quux-77";
    ladder_naming(&app, name);
    let file = helpers::sqlite_file(&app.server.database).to_owned();
    let before: usize = ["", "-wal"].iter().map(|suffix| copies_in(&format!("{file}{suffix}"), name.as_bytes())).sum();
    assert!(before > 0, "the name is stored before the erasure");
    app.ok("DELETE", &format!("/v1/ladders/l/players/{name}"), &app.admin, None);
    for suffix in ["", "-wal", "-shm"] {
        let path = format!("{file}{suffix}");
        assert_eq!(copies_in(&path, name.as_bytes()), 0, "copies of the erased name in {path}");
    }
    // The scrub a command runs is the same (beside the running server).
    let output = std::process::Command::new(helpers::binary()).args(["scrub", "--database", &app.server.database]).output().expect("elo-ladder scrub");
    assert!(output.status.success() && String::from_utf8_lossy(&output.stdout).contains("VACUUM"), "{}", String::from_utf8_lossy(&output.stderr));
    // The ladder still serves and verifies.
    helpers::verify_database(&app.server.database, "l");
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&pair("after", "p1", "p2", 1.0)));
}

/// PostgreSQL: an erasure leaves old row versions holding the name in the database's files
/// (a plain VACUUM frees them without overwriting them); `elo-ladder scrub` rewrites the
/// tables that hold names, after which no file of the database holds a copy. (The
/// write-ahead log keeps copies until PostgreSQL recycles its segments: the docs say so.)
#[test]
fn postgres_scrub_leaves_no_copy_of_an_erased_name_in_the_database_files() {
    let app = TestApp::spawn(Backend::Postgres);
    let name = "Zelda-Quux-78";
    ladder_naming(&app, name);
    // The name in the matchmaking tables too: a match a queue made, and a ticket waiting.
    app.ok("PUT", "/v1/ladders/l/queues/duel", &app.admin, Some(r#"{"mode":"pair","matchmaking":{"initial_distance":800,"max_distance":800}}"#));
    app.ok("PUT", "/v1/ladders/l/queues/never", &app.admin, Some(r#"{"mode":"pair","matchmaking":{"initial_distance":0,"growth_per_second":0,"max_distance":0}}"#));
    let ticket = app.ok("POST", "/v1/ladders/l/queues/duel/tickets", &app.report, Some(&format!(r#"{{"players":["{name}"]}}"#)))["ticket"].as_str().unwrap().to_owned();
    app.ok("POST", "/v1/ladders/l/queues/duel/tickets", &app.report, Some(r#"{"players":["partner"]}"#));
    let matched = app.ok("GET", &format!("/v1/ladders/l/queues/duel/tickets/{ticket}?wait=10"), &app.report, None);
    assert_eq!(matched["state"], "matched", "{matched}");
    app.ok("POST", "/v1/ladders/l/queues/never/tickets", &app.report, Some(&format!(r#"{{"players":["{name}"]}}"#)));
    let database = app.server.database.clone();
    let files = std::path::Path::new(&helpers::psql_query(&database, "SHOW data_directory"))
        .join("base")
        .join(helpers::psql_query(&database, "SELECT oid FROM pg_database WHERE datname = current_database()"));
    // Every page the database holds in memory written to its files before each look.
    let copies = || {
        helpers::psql_query(&database, "CHECKPOINT");
        let mut copies = 0;
        for file in std::fs::read_dir(&files).expect("the database's folder") {
            copies += copies_in(&file.expect("a file").path().to_string_lossy(), name.as_bytes());
        }
        copies
    };
    assert!(copies() > 0, "the name is stored before the erasure");
    app.ok("DELETE", &format!("/v1/ladders/l/players/{name}"), &app.admin, None);
    let left = copies();
    assert!(left > 0, "old row versions keep the name until a scrub (found none: then scrub has nothing to prove)");
    let output = std::process::Command::new(helpers::binary()).args(["scrub", "--database", &database]).output().expect("elo-ladder scrub");
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success() && said.contains("VACUUM (FULL)"), "{said}{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(copies(), 0, "copies of the erased name in the database's files after the scrub ({left} before it)");
    helpers::verify_database(&database, "l");
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&pair("after", "p1", "p2", 1.0)));
}

/// PostgreSQL: two servers adding the same new players at once (each batch that loses the
/// race runs again) leave no player name in the database's log: the lost race is a
/// serialization failure naming nobody, not a unique violation quoting the key.
#[test]
fn postgres_new_player_races_leave_no_name_in_the_database_log() {
    let app = TestApp::spawn(Backend::Postgres);
    app.put_ladder("race", RULES);
    let second = Server::start(&app.server.database, 0, 0);
    let nonce = format!("{:x}", std::process::id() as u64 * 7919 + crate::now() as u64);
    let rounds = 150;
    let threads: Vec<_> = [app.server.address.clone(), second.address.clone()]
        .into_iter()
        .enumerate()
        .map(|(side, address)| {
            let (key, nonce) = (app.report.clone(), nonce.clone());
            std::thread::spawn(move || {
                for i in 0..rounds {
                    let body = pair(&format!("s{side}-{i}"), &format!("race-{nonce}-{i}-x"), &format!("race-{nonce}-{i}-y"), 1.0);
                    let (status, text) = helpers::call(&address, "POST", "/v1/ladders/race/matches", Some(&key), Some(&body)).unwrap();
                    assert_eq!(status, 200, "{text}");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(helpers::journal(&app, "race").len(), 2 * rounds, "every report applied once");
    verify_replay(&app, "race", RULES);
    let log = std::fs::read_to_string(std::env::temp_dir().join(format!("elo-ladder-pg-{}", std::process::id())).join("log")).expect("the private cluster's log");
    let named: Vec<&str> = log.lines().filter(|l| l.contains(&format!("race-{nonce}"))).take(3).collect();
    assert!(named.is_empty(), "player names in PostgreSQL's log: {named:?}");
    drop(second);
}

/// A season record or a history line changed behind the server's back (both are served to
/// players) makes `verify --database` fail, naming the season or the entry.
fn verify_finds_forged_standings_and_history_lines(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("l", crate::RICH_RULES);
    let mut rng = crate::Lcg(8);
    for i in 0..20 {
        app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&crate::random_match(&mut rng, &format!("m{i}"), 6, true)));
        if i == 10 {
            app.ok("POST", "/v1/ladders/l/seasons/end", &app.admin, Some(r#"{"id":"s1"}"#));
        }
    }
    helpers::verify_database(&app.server.database, "l");
    let sql = |sql: &str| match backend {
        Backend::Sqlite => {
            let connection = rusqlite::Connection::open(helpers::sqlite_file(&app.server.database)).unwrap();
            connection.busy_timeout(Duration::from_secs(10)).unwrap();
            connection.execute(sql, []).unwrap();
        }
        Backend::Postgres => {
            helpers::psql_query(&app.server.database, sql);
        }
    };
    let verify = || {
        let output = std::process::Command::new(helpers::binary()).args(["verify", "--database", &app.server.database, "--ladder", "l"]).output().unwrap();
        (output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    // The season's winner kept with a better rating.
    sql("UPDATE season_records SET rating = rating + 50 WHERE season = 1 AND rank = 1");
    let (ok, said) = verify();
    assert!(!ok && said.contains("season 1: rank 1"), "{said}");
    sql("UPDATE season_records SET rating = rating - 50 WHERE season = 1 AND rank = 1");
    helpers::verify_database(&app.server.database, "l");
    // A history line moved by a point.
    sql("UPDATE player_entries SET rating_after = rating_after + 1 WHERE seq = (SELECT max(seq) FROM player_entries)");
    let (ok, said) = verify();
    assert!(!ok && said.contains("its history lines are"), "{said}");
    // One deleted.
    sql("UPDATE player_entries SET rating_after = rating_after - 1 WHERE seq = (SELECT max(seq) FROM player_entries)");
    sql("DELETE FROM player_entries WHERE seq = (SELECT min(seq) FROM player_entries)");
    let (ok, said) = verify();
    assert!(!ok && said.contains("its history lines are"), "{said}");
}
