//! Keys and limits: scopes, ladders, revocation, the per-key rate.

use std::time::{Duration, Instant};

use crate::helpers::{self, call, call_with_headers, Backend, Server, TestApp};
use crate::RULES;

on_both!(keys_have_scopes_ladders_and_can_be_revoked, the_rate_limit_answers_429, failed_authentication_is_limited_per_address, a_key_reads_its_own_scope,);

fn keys_have_scopes_ladders_and_can_be_revoked(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("main", RULES);
    app.put_ladder("other", RULES);
    let address = &app.server.address;
    let match_body = Some(r#"{"id":"m","a":"x","b":"y","score_a":1}"#);
    let status = |key: Option<&str>, method: &str, path: &str, body: Option<&str>| call(address, method, path, key, body).unwrap().0;
    assert_eq!(status(None, "GET", "/v1/ladders/main/leaderboard", None), 401);
    assert_eq!(status(Some("elo_nonsense"), "GET", "/v1/ladders/main/leaderboard", None), 401);
    let forged = format!("{}{}", &app.admin[..app.admin.len() - 1], if app.admin.ends_with('0') { '1' } else { '0' });
    assert_eq!(status(Some(&forged), "GET", "/v1/ladders/main/leaderboard", None), 401, "a wrong secret");
    assert_eq!(status(Some(&app.read), "POST", "/v1/ladders/main/matches", match_body), 403, "read < report");
    assert_eq!(status(Some(&app.report), "PUT", "/v1/ladders/main", Some(RULES)), 403, "report < admin");
    assert_eq!(status(Some(&app.report), "POST", "/v1/ladders/main/seasons/end", None), 403);
    assert_eq!(status(Some(&app.read), "POST", "/v1/ladders/main/decay", None), 403);
    assert_eq!(status(Some(&app.admin), "POST", "/v1/ladders/main/matches", match_body), 200, "admin includes report");
    // The scheme is case-insensitive (RFC 9110).
    let lower = std::net::TcpStream::connect(address).and_then(|mut stream| {
        use std::io::{Read, Write};
        write!(stream, "GET /v1/ladders/main/leaderboard HTTP/1.1\r\nHost: x\r\nAuthorization: bearer {}\r\nConnection: close\r\n\r\n", app.read)?;
        let mut text = String::new();
        stream.read_to_string(&mut text)?;
        Ok(text)
    });
    assert!(lower.expect("request").starts_with("HTTP/1.1 200"), "bearer in lower case");
    let only_other = helpers::key(&app.server.database, "report", Some("other"));
    assert_eq!(status(Some(&only_other), "POST", "/v1/ladders/main/matches", match_body), 403, "a key for another ladder");
    assert_eq!(status(Some(&only_other), "POST", "/v1/ladders/other/matches", match_body), 200);
    // Revoked: refused once the servers' one-second key cache has expired.
    let output = std::process::Command::new(helpers::binary()).args(["keys", "revoke", "--database", &app.server.database, &only_other]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(status(Some(&only_other), "GET", "/v1/ladders/other/leaderboard", None), 401);
}

fn the_rate_limit_answers_429(backend: Backend) {
    let app = TestApp::spawn_with(backend, 5);
    app.put_ladder("main", RULES);
    let mut statuses = Vec::new();
    for _ in 0..12 {
        statuses.push(call_with_headers(&app.server.address, "GET", "/v1/ladders/main/leaderboard", &app.read));
    }
    let limited: Vec<&(u16, String)> = statuses.iter().filter(|(status, _)| *status == 429).collect();
    assert!(!limited.is_empty(), "{:?}", statuses.iter().map(|s| s.0).collect::<Vec<_>>());
    assert!(limited[0].1.to_ascii_lowercase().contains("retry-after: 1"), "{}", limited[0].1);
    assert!(limited[0].1.contains("rate_limited"));
    // Another key has its own budget.
    assert_eq!(app.call("GET", "/v1/ladders/main/leaderboard", &app.report, None).0, 200);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(app.call("GET", "/v1/ladders/main/leaderboard", &app.read, None).0, 200, "refilled");
}

/// Failed authentications (401 and 403) are limited per client address, before any key is
/// looked up: after five, even a good key from that address waits.
fn failed_authentication_is_limited_per_address(backend: Backend) {
    let app = TestApp::spawn_args(backend, &["--rate-limit", "0", "--auth-failure-limit", "5"]);
    app.put_ladder("main", RULES);
    let address = &app.server.address;
    for i in 0..5 {
        let guess = format!("elo_{:016x}_{}", i, "0".repeat(64));
        assert_eq!(call(address, "GET", "/v1/ladders/main/leaderboard", Some(&guess), None).unwrap().0, 401);
    }
    let (status, text) = call_with_headers(address, "GET", "/v1/ladders/main/leaderboard", &app.read);
    assert_eq!(status, 429, "{text}");
    assert!(text.contains("failed authentications") && text.to_ascii_lowercase().contains("retry-after:"), "{text}");
    // A 403 counts too: on another server, a read key trying to report (of the same
    // PostgreSQL database; a SQLite file is served by one process, so there another app's).
    let mut other_server = None;
    let mut other_app = None;
    let (address, read) = if backend == Backend::Postgres {
        let server = other_server.insert(Server::start_with(&app.server.database, 0, &["--auth-failure-limit", "3"]));
        (server.address.clone(), app.read.clone())
    } else {
        let other = other_app.insert(TestApp::spawn_args(backend, &["--rate-limit", "0", "--auth-failure-limit", "3"]));
        other.put_ladder("main", RULES);
        (other.server.address.clone(), other.read.clone())
    };
    for _ in 0..3 {
        assert_eq!(call(&address, "POST", "/v1/ladders/main/matches", Some(&read), Some(r#"{"id":"m","a":"x","b":"y","score_a":1}"#)).unwrap().0, 403);
    }
    assert_eq!(call(&address, "GET", "/v1/ladders/main/leaderboard", Some(&read), None).unwrap().0, 429);
    drop((other_server, other_app));
}

/// PostgreSQL: a key's rate holds across servers. Two servers with `--rate-limit 20`, four
/// clients hammering both with one key for three seconds: the key gets about 20 per second
/// in all (at most the bucket's 20 plus 20 per second, and 10% slack), not 20 per server.
#[test]
fn postgres_the_key_rate_holds_across_servers() {
    let app = TestApp::spawn_args(Backend::Postgres, &["--rate-limit", "20", "--auth-failure-limit", "0"]);
    app.put_ladder("main", RULES);
    let second = Server::start_with(&app.server.database, 0, &["--rate-limit", "20", "--auth-failure-limit", "0"]);
    let started = Instant::now();
    let clients: Vec<_> = (0..4)
        .map(|c| {
            let address = if c % 2 == 0 { app.server.address.clone() } else { second.address.clone() };
            let key = app.read.clone();
            std::thread::spawn(move || {
                let (mut ok, mut limited) = (0u32, 0u32);
                while started.elapsed() < Duration::from_secs(3) {
                    match call(&address, "GET", "/v1/ladders/main/leaderboard", Some(&key), None).expect("reachable").0 {
                        200 => ok += 1,
                        429 => limited += 1,
                        other => panic!("status {other}"),
                    }
                }
                (ok, limited)
            })
        })
        .collect();
    let (mut ok, mut limited) = (0, 0);
    for client in clients {
        let (o, l) = client.join().expect("client");
        ok += o;
        limited += l;
    }
    let seconds = started.elapsed().as_secs_f64();
    let allowed = 20.0 + 20.0 * seconds;
    assert!(f64::from(ok) <= allowed * 1.1, "{ok} requests passed in {seconds:.2} s; at most {allowed:.0} (+10%) may");
    assert!(limited > 0, "the clients asked for more than the rate");
    // The clients asked for far more than the rate; what passed is near it (leases unused
    // by one server expire, so a little is lost, never gained).
    if ok + limited > 4 * 80 {
        assert!(f64::from(ok) >= 20.0 * seconds * 0.75, "{ok} passed in {seconds:.2} s: the rate is under-served");
    }
    drop(second);
}

/// `GET /v1/keys/me`: any valid key reads its own id, scope and ladder (never a secret); a
/// missing, unknown or revoked key gets the usual 401.
fn a_key_reads_its_own_scope(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("main", RULES);
    let id_of = |key: &str| key.split('_').nth(1).expect("elo_<id>_<secret>").to_owned();
    for (key, scope) in [(&app.admin, "admin"), (&app.report, "report"), (&app.read, "read")] {
        let me = app.ok("GET", "/v1/keys/me", key, None);
        assert_eq!(me, serde_json::json!({ "id": id_of(key), "scope": scope, "ladder": null }), "{scope}");
    }
    let only_main = helpers::key(&app.server.database, "admin", Some("main"));
    let me = app.ok("GET", "/v1/keys/me", &only_main, None);
    assert_eq!(me, serde_json::json!({ "id": id_of(&only_main), "scope": "admin", "ladder": "main" }));
    let text = serde_json::to_string(&me).unwrap();
    assert!(!text.contains(only_main.rsplit('_').next().unwrap()), "no secret in {text}");
    let address = &app.server.address;
    assert_eq!(call(address, "GET", "/v1/keys/me", None, None).unwrap().0, 401);
    assert_eq!(call(address, "GET", "/v1/keys/me", Some("elo_0000000000000000_00"), None).unwrap().0, 401);
    let (status, text) = app.call("GET", "/v1/keys/me?scope=admin", &app.read, None);
    assert_eq!(status, 400, "unknown query parameter: {text}");
    let output = std::process::Command::new(helpers::binary()).args(["keys", "revoke", "--database", &app.server.database, &only_main]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    std::thread::sleep(Duration::from_millis(1100));
    let (status, text) = app.call("GET", "/v1/keys/me", &only_main, None);
    assert_eq!(status, 401, "revoked: {text}");
}
