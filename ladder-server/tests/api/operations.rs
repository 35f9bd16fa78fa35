//! What operators use: metrics, request logs, readiness, `keys list`, and a rolling
//! restart of two servers under load.

use std::time::Duration;

use serde_json::Value;

use crate::helpers::{self, call, Backend, Server, TestApp};
use crate::RULES;

on_both!(metrics_count_requests_and_matches, keys_list_shows_no_secret);

fn metrics_count_requests_and_matches(backend: Backend) {
    let app = TestApp::spawn_args(backend, &["--rate-limit", "0", "--auth-failure-limit", "0", "--metrics-listen", "127.0.0.1:0"]);
    app.put_ladder("m", RULES);
    for i in 0..7 {
        app.ok("POST", "/v1/ladders/m/matches", &app.report, Some(&format!(r#"{{"id":"x{i}","a":"a{i}","b":"b{i}","score_a":1}}"#)));
    }
    assert_eq!(app.call("GET", "/v1/ladders/m/players/nobody", &app.read, None).0, 404);
    // Not public: a read key is refused; an admin key reads it.
    assert_eq!(app.call("GET", "/metrics", &app.read, None).0, 403);
    assert_eq!(call(&app.server.address, "GET", "/metrics", None, None).unwrap().0, 401);
    let text = app.ok_text("/metrics");
    for needle in [
        r#"elo_ladder_http_requests_total{route="/v1/ladders/{ladder}/matches",method="POST",status="200"} 7"#,
        r#"elo_ladder_http_requests_total{route="/v1/ladders/{ladder}/players/{player}",method="GET",status="404"} 1"#,
        "elo_ladder_matches_applied_total 7",
        "elo_ladder_http_request_duration_seconds_bucket{route=\"/v1/ladders/{ladder}/matches\",le=",
        "elo_ladder_commit_duration_seconds_count{database=",
        "elo_ladder_db_connections_in_use",
        "elo_ladder_http_connections",
    ] {
        assert!(text.contains(needle), "/metrics lacks {needle}:\n{text}");
    }
    // The private listener serves the same without a key.
    let log = app.server.log();
    let address = log.split("metrics on http://").nth(1).and_then(|rest| rest.split('/').next()).unwrap_or_else(|| panic!("no metrics address in the log: {log}"));
    let (status, private) = call(address, "GET", "/metrics", None, None).unwrap();
    assert_eq!(status, 200);
    assert!(private.contains("elo_ladder_matches_applied_total 7"), "{private}");
}

fn keys_list_shows_no_secret(backend: Backend) {
    let app = TestApp::spawn(backend);
    let limited = helpers::key(&app.server.database, "report", Some("ladder-one"));
    let id = limited.split('_').nth(1).unwrap().to_owned();
    let revoked = std::process::Command::new(helpers::binary()).args(["keys", "revoke", "--database", &app.server.database, &id]).output().unwrap();
    assert!(revoked.status.success());
    let list = |json: bool| {
        let mut command = std::process::Command::new(helpers::binary());
        command.args(["keys", "list", "--database", &app.server.database]);
        if json {
            command.arg("--json");
        }
        let output = command.output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let table = list(false);
    let lines: Vec<Value> = list(true).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4, "{table}");
    let entry = lines.iter().find(|l| l["id"] == id.as_str()).expect("the limited key");
    assert_eq!((entry["scope"].as_str(), entry["ladder"].as_str()), (Some("report"), Some("ladder-one")));
    assert!(entry["revoked"].as_f64().is_some() && entry["created"].as_f64().is_some());
    assert!(lines.iter().filter(|l| l["id"] != id.as_str()).all(|l| l["revoked"].is_null()));
    for key in [&app.admin, &app.report, &app.read, &limited] {
        let secret = key.rsplit('_').next().unwrap();
        assert!(!table.contains(secret) && !list(true).contains(secret), "a secret in keys list");
    }
    assert!(table.contains(&id) && table.contains("ladder-one") && table.contains("(any)"), "{table}");
}

/// JSON logs: one line per request with the id the response carried, never a key.
#[test]
fn every_request_is_logged_once_with_its_id_and_no_secret() {
    let app = TestApp::spawn_args(Backend::Sqlite, &["--rate-limit", "0", "--auth-failure-limit", "0", "--log-format", "json"]);
    app.put_ladder("logged", RULES);
    let mut ids = Vec::new();
    for i in 0..5 {
        let (status, response) = helpers::call_with_headers(&app.server.address, "GET", &format!("/v1/ladders/logged/leaderboard?limit={}", i + 1), &app.read);
        assert_eq!(status, 200);
        let id = response.lines().find_map(|l| l.strip_prefix("x-request-id: ")).expect("a request id header").trim().to_owned();
        assert_eq!(id.len(), 16);
        ids.push(id);
    }
    // The admin key with its last character changed (to one it does not already have).
    let bad = format!("{}{}", &app.admin[..app.admin.len() - 1], if app.admin.ends_with('0') { '1' } else { '0' });
    assert_eq!(call(&app.server.address, "GET", "/v1/ladders/logged/leaderboard", Some(&bad), None).unwrap().0, 401);
    std::thread::sleep(Duration::from_millis(200));
    let log = app.server.log();
    let lines: Vec<Value> = log.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))).collect();
    for id in &ids {
        let found: Vec<&Value> = lines.iter().filter(|l| l["request_id"] == id.as_str()).collect();
        assert_eq!(found.len(), 1, "request {id} logged once");
        assert_eq!((found[0]["status"].as_u64(), found[0]["route"].as_str(), found[0]["method"].as_str()), (Some(200), Some("/v1/ladders/{ladder}/leaderboard"), Some("GET")));
        assert!(found[0]["ms"].as_f64().is_some());
    }
    assert!(lines.iter().any(|l| l["status"].as_u64() == Some(401)));
    for key in [&app.admin, &app.report, &app.read, &bad] {
        assert!(!log.contains(key.rsplit('_').next().unwrap()), "a key's secret in the log");
    }
    assert!(!log.contains("elo_"), "a key in the log");
}

/// `/readyz` for load balancers; on SIGTERM with `--drain-delay`, it answers 503 while the
/// server still serves, then the server stops.
#[test]
fn readiness_turns_off_before_the_server_stops() {
    let mut app = TestApp::spawn_args(Backend::Sqlite, &["--rate-limit", "0", "--auth-failure-limit", "0", "--drain-delay", "2"]);
    app.put_ladder("r", RULES);
    assert_eq!(call(&app.server.address, "GET", "/readyz", None, None).unwrap(), (200, r#"{"status":"ready"}"#.to_owned()));
    app.server.terminate();
    std::thread::sleep(Duration::from_millis(300));
    let (status, body) = call(&app.server.address, "GET", "/readyz", None, None).unwrap();
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("shutting down"), "{body}");
    // Still serving during the delay.
    assert_eq!(app.call("POST", "/v1/ladders/r/matches", &app.report, Some(r#"{"id":"late","a":"x","b":"y","score_a":1}"#)).0, 200);
    let status = app.server.wait_exit(Duration::from_secs(20)).expect("stopped after the delay");
    assert!(status.success());
}

/// Two servers on one PostgreSQL database take reports from eight reporters (each retrying
/// a report that got no answer, on the other server); each server in turn is stopped with
/// SIGTERM and started again. Every report is applied exactly once and the journal replays.
#[test]
fn postgres_a_rolling_restart_under_load_loses_no_report() {
    let mut app = TestApp::spawn(Backend::Postgres);
    app.put_ladder("faults", RULES);
    let mut second = Server::start(&app.server.database, 0, 0);
    let tally = std::sync::Arc::new(crate::faults::Tally::default());
    let threads = crate::faults::reporters(vec![app.server.address.clone(), second.address.clone()], &app.report, &tally, "faults");
    let total = crate::faults::TOTAL;
    crate::faults::wait_for(&tally, total / 4);
    app.server.terminate();
    assert!(app.server.wait_exit(Duration::from_secs(30)).is_some_and(|s| s.success()), "the first server stops cleanly");
    app.server.restart();
    crate::faults::wait_for(&tally, total / 2);
    second.terminate();
    assert!(second.wait_exit(Duration::from_secs(30)).is_some_and(|s| s.success()), "the second server stops cleanly");
    second.restart();
    for thread in threads {
        thread.join().expect("reporter");
    }
    crate::faults::check(&app, &tally, "faults", "rolling restart of two servers (Postgres)", 0);
}

#[test]
fn serve_starts_on_sqlite_with_the_default_database() {
    let dir = helpers::TempDir::new("default");
    let mut child = std::process::Command::new(helpers::binary())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env_remove("DATABASE_URL")
        .current_dir(&dir.0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
    assert!(line.contains("database sqlite://ladder.db"), "{line}");
    let address = line.split("http://").nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
    assert_eq!(call(&address, "GET", "/healthz", None, None).unwrap().0, 200);
    assert!(dir.0.join("ladder.db").is_file());
    let _ = child.kill();
    let _ = child.wait();
}
