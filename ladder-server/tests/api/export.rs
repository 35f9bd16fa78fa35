//! An export is one state of the journal, or says it is not: an annulment and an erasure
//! while a slow client reads an export (entries already sent now changed) end it at the next
//! page with the reason in its end line, and `verify` says why it fails; the next export is
//! whole and verifies.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

use crate::helpers::{self, Backend, TestApp};
use crate::RULES;

on_both!(an_export_that_sees_an_amendment_stops_and_says_why);

/// Free-for-alls of this many entrants (about 60 KB per journal entry) ...
const ENTRANTS: usize = 250;
/// ... this many of them (about 18 MB of export: more than the sockets between the server
/// and a client that stops reading can hold).
const MATCHES: usize = 300;

fn an_export_that_sees_an_amendment_stops_and_says_why(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("big", RULES);
    app.ok("POST", "/v1/ladders/big/matches", &app.report, Some(r#"{"id":"first","a":"alice","b":"bob","score_a":1}"#));
    for m in 0..MATCHES {
        let entrants: Vec<String> = (0..ENTRANTS).map(|i| format!("\"player-{}\"", (m * 7 + i * 3) % 1000)).collect();
        let places: Vec<String> = (0..ENTRANTS).map(|i| (1 + (i + m) % 31).to_string()).collect();
        let body = format!(r#"{{"id":"ffa{m}","entrants":[{}],"places":[{}]}}"#, entrants.join(","), places.join(","));
        app.ok("POST", "/v1/ladders/big/matches", &app.report, Some(&body));
    }
    app.ok("POST", "/v1/ladders/big/matches", &app.report, Some(r#"{"id":"last","a":"alice","b":"bob","score_a":0}"#));
    // A client that reads the start of the export, then stops reading for a while.
    let mut stream = TcpStream::connect(&app.server.address).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(60))).expect("timeout");
    let request = format!("GET /v1/ladders/big/export HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n", app.admin);
    stream.write_all(request.as_bytes()).expect("send");
    let mut received = Vec::new();
    let mut buffer = vec![0; 64 * 1024];
    while received.len() < 256 * 1024 {
        let n = stream.read(&mut buffer).expect("read");
        assert!(n > 0, "the export ended early");
        received.extend_from_slice(&buffer[..n]);
    }
    let seen = String::from_utf8_lossy(&received).contains(r#""id":"first""#);
    assert!(seen, "the first match was sent before the amendment");
    // Meanwhile: the first match annulled (its entry was sent unmarked), and alice erased
    // (she was sent by name).
    app.ok("POST", "/v1/ladders/big/matches/first/annul", &app.admin, Some(r#"{"reason":"cheat"}"#));
    app.ok("DELETE", "/v1/ladders/big/players/alice", &app.admin, None);
    stream.read_to_end(&mut received).expect("the rest");
    let text = String::from_utf8_lossy(&received);
    let (head, body) = text.split_once("\r\n\r\n").expect("a response");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let body = helpers::dechunk(body).expect("chunked");
    let lines: Vec<&str> = body.lines().collect();
    let end: Value = serde_json::from_str(lines.last().expect("an end line")).expect("json");
    assert_eq!(end["end"]["complete"], Value::Bool(false), "{end}");
    let reason = end["end"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("amended"), "{end}");
    assert!(!body.contains(r#""id":"annul/first""#), "no entry of the amendment after the unmarked match");
    let dir = helpers::TempDir::new("amended-export");
    let path = dir.0.join("export.ndjson");
    std::fs::write(&path, &body).expect("write");
    let (ok, said) = helpers::verify_journal(&path);
    assert!(!ok && said.contains("incomplete") && said.contains("amended"), "{said}");
    // Exported again: whole, and it verifies.
    let (status, again) = app.call("GET", "/v1/ladders/big/export", &app.admin, None);
    assert_eq!(status, 200);
    let end: Value = serde_json::from_str(again.lines().last().expect("an end line")).expect("json");
    assert_eq!(end["end"]["complete"], Value::Bool(true), "{end}");
    std::fs::write(&path, &again).expect("write");
    let (ok, said) = helpers::verify_journal(&path);
    assert!(ok, "{said}");
}
