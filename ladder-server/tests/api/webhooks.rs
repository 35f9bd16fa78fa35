//! Webhooks: admin routes that subscribe a URL to a ladder's journal kinds; deliveries
//! signed as Standard Webhooks says, at least once and in `seq` order from a durable cursor,
//! retried with backoff; a failing subscription shown in its status and the metrics; an
//! erased name never sent after the erasure; with two servers on PostgreSQL each entry sent
//! by one. Against a receiver (`receiver.rs`) that fails, stalls, restarts and speaks TLS.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

use crate::helpers::{self, call, Backend, Server, TempDir, TestApp};
use crate::receiver::{Action, Delivery, Receiver};
use crate::RULES;

on_both!(
    subscriptions_are_admin_routes_checked_by_field,
    entries_arrive_signed_in_order_with_their_journal_entry,
    a_receiver_that_fails_stalls_and_restarts_gets_every_entry_in_order,
    a_put_during_a_failing_attempt_retries_at_once,
    an_erased_name_is_never_sent_after_the_erasure,
    a_killed_server_sends_the_entry_again_with_the_same_id,
);

mod postgres_only {
    #[test]
    fn two_servers_deliver_each_entry_once() {
        super::two_servers_deliver_each_entry_once();
    }
}

mod sqlite_only {
    #[test]
    fn subscriptions_take_turns_beyond_the_parallel_limit() {
        super::subscriptions_take_turns_beyond_the_parallel_limit();
    }
}

mod tls {
    #[test]
    fn https_receivers_are_verified_against_the_roots() {
        super::https_receivers_are_verified_against_the_roots();
    }
}

/// Deliveries read every 50 ms, an attempt given 10 s (no answer of a loaded machine's
/// receiver comes that late: a test that wants a timeout sets a shorter one), retries from
/// 200 ms.
const FAST: [&str; 10] = ["--rate-limit", "0", "--auth-failure-limit", "0", "--webhook-interval-ms", "50", "--webhook-timeout-ms", "10000", "--webhook-backoff-ms", "200"];

/// The same with `timeout_ms` for an attempt.
fn fast_with_timeout(timeout_ms: &str) -> Vec<&str> {
    let mut args = FAST.to_vec();
    args[7] = timeout_ms;
    args
}

const WAIT: Duration = Duration::from_secs(30);

fn report(app: &TestApp, id: &str, a: &str, b: &str) -> Value {
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&format!(r#"{{"id":"{id}","a":"{a}","b":"{b}","score_a":1}}"#)))
}

fn subscribe(app: &TestApp, name: &str, body: &Value) -> Value {
    let (status, text) = app.call("PUT", &format!("/v1/ladders/l/webhooks/{name}"), &app.admin, Some(&body.to_string()));
    assert_eq!(status, 201, "{text}");
    serde_json::from_str(&text).expect("JSON")
}

fn status_of(app: &TestApp, name: &str) -> Value {
    app.ok("GET", &format!("/v1/ladders/l/webhooks/{name}"), &app.admin, None)
}

/// Waits until the subscription's status satisfies `done`.
fn wait_status(app: &TestApp, name: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + WAIT;
    loop {
        let status = status_of(app, name);
        if done(&status) {
            return status;
        }
        assert!(Instant::now() < deadline, "waited for {what}: {status}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The signature a Standard Webhooks receiver computes (ring's HMAC-SHA256).
fn expected_signature(secret: &str, delivery: &Delivery) -> String {
    let key = base64::engine::general_purpose::STANDARD.decode(secret.strip_prefix("whsec_").expect("whsec_")).expect("base64");
    let signed = format!("{}.{}.{}", delivery.id(), delivery.header("webhook-timestamp"), delivery.body);
    let tag = ring::hmac::sign(&ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key), signed.as_bytes());
    format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(tag.as_ref()))
}

fn check_signed(secret: &str, delivery: &Delivery) {
    assert_eq!(delivery.header("webhook-signature"), expected_signature(secret, delivery), "{delivery:?}");
    let sent: f64 = delivery.header("webhook-timestamp").parse().expect("webhook-timestamp is a number");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    assert!((now - sent).abs() < 120.0, "webhook-timestamp {sent} is now ({now})");
    assert_eq!(delivery.header("content-type"), "application/json");
}

/// The accepted deliveries of `path`, first acceptance of each id, in arrival order.
fn accepted(deliveries: &[Delivery], path: &str) -> Vec<Delivery> {
    let mut seen = HashSet::new();
    deliveries.iter().filter(|d| d.path == path && d.accepted() && seen.insert(d.id().to_owned())).cloned().collect()
}

/// At least once, in order, a duplicate only after a failure: the first acceptances of
/// `path` are `expected` seqs in order, and any id received twice had an attempt that was
/// not accepted (or was cut by a failure the test caused: `failed_ids`) before its last.
fn check_once_in_order(deliveries: &[Delivery], path: &str, expected: &[i64], failed_ids: &HashSet<String>) {
    let seqs: Vec<i64> = accepted(deliveries, path).iter().map(Delivery::seq).collect();
    assert_eq!(seqs, expected, "{path}: each entry, in seq order");
    let mut by_id: HashMap<&str, Vec<&Delivery>> = HashMap::new();
    for delivery in deliveries.iter().filter(|d| d.path == path) {
        by_id.entry(delivery.id()).or_default().push(delivery);
    }
    for (id, attempts) in by_id {
        let accepted_count = attempts.iter().filter(|d| d.accepted()).count();
        assert!(accepted_count <= 1 || failed_ids.contains(id), "{path}: {id} accepted {accepted_count} times with no failure between");
        if attempts.len() > 1 {
            assert!(attempts[..attempts.len() - 1].iter().any(|d| !d.accepted()) || failed_ids.contains(id), "{path}: {id} sent again after a 2xx: {attempts:?}");
        }
    }
}

fn journal_seqs(app: &TestApp, kinds: Option<&[&str]>, after: i64) -> Vec<i64> {
    helpers::journal(app, "l")
        .iter()
        .filter(|e| kinds.is_none_or(|k| k.contains(&e["kind"].as_str().unwrap())))
        .map(|e| e["seq"].as_i64().unwrap())
        .filter(|&seq| seq > after)
        .collect()
}

fn subscriptions_are_admin_routes_checked_by_field(backend: Backend) {
    let app = TestApp::spawn_args(backend, &FAST);
    app.put_ladder("l", RULES);
    report(&app, "m0", "alice", "bob");
    let body = r#"{"url": "http://127.0.0.1:9/hooks", "kinds": ["season_end", "pair"]}"#;
    for key in [&app.report, &app.read] {
        assert_eq!(app.call("PUT", "/v1/ladders/l/webhooks/w", key, Some(body)).0, 403, "admin only");
        assert_eq!(app.call("GET", "/v1/ladders/l/webhooks", key, None).0, 403, "the list is admin only (URLs may carry tokens)");
    }
    assert_eq!(call(&app.server.address, "GET", "/v1/ladders/l/webhooks", None, None).unwrap().0, 401);
    // Each bad field is named.
    for (bad, field) in [
        (r#"{"kinds": ["pair"]}"#, "url "),
        (r#"{"url": 5}"#, "url "),
        (r#"{"url": "ftp://127.0.0.1/x"}"#, "url "),
        (r#"{"url": "http://user:secret@127.0.0.1/x"}"#, "url "),
        (r#"{"url": "http:///x"}"#, "url "),
        (r#"{"url": "http://127.0.0.1/x", "kinds": ["goal"]}"#, "kinds "),
        (r#"{"url": "http://127.0.0.1/x", "kinds": []}"#, "kinds "),
        (r#"{"url": "http://127.0.0.1/x", "kinds": "pair"}"#, "kinds "),
        (r#"{"url": "http://127.0.0.1/x", "secret": "hunter2"}"#, "secret "),
        (r#"{"url": "http://127.0.0.1/x", "secret": "whsec_c2hvcnQ="}"#, "secret "),
        (r#"{"url": "http://127.0.0.1/x", "from": "yesterday"}"#, "from "),
        (r#"{"url": "http://127.0.0.1/x", "paused": "yes"}"#, "paused "),
    ] {
        let (status, text) = app.call("PUT", "/v1/ladders/l/webhooks/w", &app.admin, Some(bad));
        let error: Value = serde_json::from_str(&text).expect("a JSON error");
        assert_eq!((status, error["error"]["code"].as_str()), (422, Some("invalid_webhook")), "{bad}: {text}");
        assert!(error["error"]["message"].as_str().unwrap().starts_with(field), "{bad}: names {field}: {text}");
    }
    for bad in [r#"{"url": "http://127.0.0.1/x", "colour": 1}"#, "{", "[]", ""] {
        assert_eq!(app.call("PUT", "/v1/ladders/l/webhooks/w", &app.admin, Some(bad)).0, 400, "{bad}");
    }
    assert_eq!(app.call("PUT", "/v1/ladders/l/webhooks/a%20b", &app.admin, Some(body)).0, 422, "a bad name");
    assert_eq!(app.call("PUT", "/v1/ladders/nope/webhooks/w", &app.admin, Some(body)).0, 404, "an unknown ladder");
    assert_eq!(app.call("GET", "/v1/ladders/l/webhooks", &app.admin, None).1, r#"{"webhooks":[]}"#, "nothing was made by a refused request");

    // Made (201) with a secret and a cursor at the ladder's newest entry; the same PUT again
    // (200) keeps both.
    let last = journal_seqs(&app, None, 0).last().copied().unwrap();
    let made = subscribe(&app, "w", &serde_json::from_str(body).unwrap());
    let secret = made["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_") && secret.len() > 40, "{made}");
    assert_eq!(made["kinds"], json!(["pair", "season_end"]), "kinds in one order");
    assert_eq!(made["delivered_through"], json!(last), "from now: after the newest entry");
    let (status, text) = app.call("PUT", "/v1/ladders/l/webhooks/w", &app.admin, Some(body));
    let again: Value = serde_json::from_str(&text).unwrap();
    assert_eq!((status, again["secret"].as_str()), (200, Some(secret.as_str())), "{text}");
    // The caller's own secret replaces it.
    let own = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    let changed = app.ok("PUT", "/v1/ladders/l/webhooks/w", &app.admin, Some(&format!(r#"{{"url": "http://127.0.0.1:9/other", "secret": "{own}", "paused": true}}"#)));
    assert_eq!(
        (changed["secret"].as_str(), changed["url"].as_str(), changed["kinds"].clone(), changed["paused"].clone()),
        (Some(own), Some("http://127.0.0.1:9/other"), json!([]), json!(true))
    );
    // Reads show no secret.
    let list = app.ok("GET", "/v1/ladders/l/webhooks", &app.admin, None);
    assert_eq!(list["webhooks"].as_array().unwrap().len(), 1);
    assert!(list["webhooks"][0].get("secret").is_none() && status_of(&app, "w").get("secret").is_none(), "{list}");
    assert_eq!(app.call("GET", "/v1/ladders/l/webhooks/nope", &app.admin, None).0, 404);
    assert_eq!(app.call("DELETE", "/v1/ladders/l/webhooks/nope", &app.admin, None).0, 404);
    // At most 32 per ladder.
    for i in 1..32 {
        subscribe(&app, &format!("w{i}"), &json!({"url": "http://127.0.0.1:9/x", "paused": true}));
    }
    let (status, text) = app.call("PUT", "/v1/ladders/l/webhooks/w32", &app.admin, Some(body));
    assert_eq!(status, 409, "{text}");
    assert!(text.contains("too_many_webhooks"), "{text}");
    assert_eq!(app.ok("DELETE", "/v1/ladders/l/webhooks/w1", &app.admin, None), json!({"deleted": "w1"}));
    assert_eq!(app.ok("GET", "/v1/ladders/l/webhooks", &app.admin, None)["webhooks"].as_array().unwrap().len(), 31);
    subscribe(&app, "w32", &serde_json::from_str(body).unwrap());
}

fn entries_arrive_signed_in_order_with_their_journal_entry(backend: Backend) {
    let receiver = Receiver::start();
    let app = TestApp::spawn_args(backend, &FAST);
    app.put_ladder("l", RULES);
    report(&app, "m0", "alice", "bob");
    let start = journal_seqs(&app, None, 0)[0];
    let all = subscribe(&app, "all", &json!({"url": receiver.url("/all"), "from": 0}));
    let some = subscribe(&app, "some", &json!({"url": receiver.url("/some?token=abc"), "kinds": ["pair", "season_end"]}));
    for i in 1..=6 {
        let (a, b) = [("alice", "bob"), ("bob", "carol"), ("carol", "alice")][i % 3];
        report(&app, &format!("m{i}"), a, b);
    }
    app.ok("POST", "/v1/ladders/l/seasons/end", &app.admin, Some(r#"{"id": "s1"}"#));
    app.ok("POST", "/v1/ladders/l/decay", &app.admin, Some(r#"{"id": "d1"}"#));
    app.ok("POST", "/v1/ladders/l/matches/m2/annul", &app.admin, Some(r#"{"reason": "test"}"#));
    let every = journal_seqs(&app, None, 0);
    let chosen = journal_seqs(&app, Some(&["pair", "season_end"]), start);
    assert_eq!((every.len(), chosen.len()), (10, 7), "the scenario's entries");
    let deliveries =
        receiver.wait_for(WAIT, "every entry to each subscription", |d| accepted(d, "/all").len() == every.len() && accepted(d, "/some?token=abc").len() == chosen.len());
    check_once_in_order(&deliveries, "/all", &every, &HashSet::new());
    check_once_in_order(&deliveries, "/some?token=abc", &chosen, &HashSet::new());
    // Each is signed, named by ladder and seq, typed, and carries its journal entry.
    let journal: HashMap<i64, Value> = helpers::journal(&app, "l").into_iter().map(|e| (e["seq"].as_i64().unwrap(), e)).collect();
    for delivery in &deliveries {
        let secret = if delivery.path == "/all" { all["secret"].as_str() } else { some["secret"].as_str() };
        check_signed(secret.unwrap(), delivery);
        let body = delivery.json();
        let seq = delivery.seq();
        assert_eq!(delivery.id(), format!("msg_l_{seq}"));
        let entry = &journal[&seq];
        assert_eq!(body["type"], json!(format!("journal.{}", entry["kind"].as_str().unwrap())));
        assert_eq!(body["data"]["ladder"], json!("l"));
        for field in ["seq", "kind", "id", "time", "inputs", "joined", "hash"] {
            assert_eq!(body["data"][field], entry[field], "{field} of {seq}");
        }
        assert!(body["timestamp"].as_str().unwrap().ends_with('Z'), "{body}");
        assert!(delivery.header("user-agent").starts_with("elo-ladder/"));
    }
    // An independent check of one signature: openssl's HMAC.
    let first = deliveries.iter().find(|d| d.path == "/all").unwrap();
    let key = base64::engine::general_purpose::STANDARD.decode(all["secret"].as_str().unwrap().trim_start_matches("whsec_")).unwrap();
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let mut openssl = std::process::Command::new("openssl")
        .args(["dgst", "-sha256", "-mac", "HMAC", "-macopt", &format!("hexkey:{hex}")])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("openssl");
    std::io::Write::write_all(openssl.stdin.as_mut().unwrap(), format!("{}.{}.{}", first.id(), first.header("webhook-timestamp"), first.body).as_bytes()).unwrap();
    let output = openssl.wait_with_output().unwrap();
    let digest = String::from_utf8_lossy(&output.stdout).split_whitespace().last().unwrap().to_owned();
    let sent = base64::engine::general_purpose::STANDARD.decode(first.header("webhook-signature").trim_start_matches("v1,")).unwrap();
    assert_eq!(digest, sent.iter().map(|b| format!("{b:02x}")).collect::<String>(), "openssl agrees with the signature");
    // The status: every entry delivered or skipped (the decay and the annulment are not of
    // "some"'s kinds), nothing failing.
    let last = *every.last().unwrap();
    let all = wait_status(&app, "all", "the cursor at the end", |s| s["delivered_through"] == json!(last));
    assert_eq!((all["delivered"].clone(), all["failing"].clone(), all["last_seq"].clone()), (json!(10), json!(false), json!(last)), "{all}");
    let some = wait_status(&app, "some", "the cursor past the skipped kinds", |s| s["delivered_through"] == json!(last));
    assert_eq!((some["delivered"].clone(), some["failing"].clone()), (json!(7), json!(false)), "{some}");
    let metrics = app.ok_text("/metrics");
    assert!(
        metrics.lines().any(|l| l.starts_with("elo_ladder_webhook_deliveries_total") && l.contains("webhook=\"all\"") && l.contains("delivered") && l.ends_with(" 10")),
        "{metrics}"
    );
}

fn a_receiver_that_fails_stalls_and_restarts_gets_every_entry_in_order(backend: Backend) {
    let mut receiver = Receiver::start();
    // 2 s for an attempt: the stall below outlasts it.
    let app = TestApp::spawn_args(backend, &fast_with_timeout("2000"));
    app.put_ladder("l", RULES);
    subscribe(&app, "w", &json!({"url": receiver.url("/w"), "from": 0}));
    // The first entry: a 500, a stall past the sender's timeout, a dropped connection, then
    // a 2xx.
    let mut tries = 0;
    receiver.set_rule(move |d| {
        if d.seq() > 0 && d.json()["data"]["id"] == json!("r1") {
            tries += 1;
            match tries {
                1 => return Action::Answer(500),
                2 => return Action::Stall(Duration::from_millis(3000)),
                3 => return Action::Drop,
                _ => {}
            }
        }
        Action::Answer(200)
    });
    report(&app, "r1", "alice", "bob");
    report(&app, "r2", "bob", "carol");
    let deliveries = receiver.wait_for(WAIT, "r1 and r2 accepted", |d| accepted(d, "/w").len() == 2);
    let r1: Vec<&Delivery> = deliveries.iter().filter(|d| d.json()["data"]["id"] == json!("r1")).collect();
    assert_eq!(r1.iter().map(|d| d.action).collect::<Vec<_>>(), [Action::Answer(500), Action::Stall(Duration::from_millis(3000)), Action::Drop, Action::Answer(200)]);
    assert!(r1.iter().all(|d| d.id() == r1[0].id()), "the same webhook-id each time");
    // The backoff: 200 ms, 400 ms, 800 ms (less up to a fifth), after the attempt ended (the
    // stall: when the sender gave up, 2 s after it began sending).
    let gap = |i: usize| r1[i + 1].at.duration_since(r1[i].at);
    assert!(gap(0) >= Duration::from_millis(160), "{:?}", gap(0));
    assert!(gap(1) >= Duration::from_millis(2000), "the timeout and the backoff: {:?}", gap(1));
    assert!(gap(2) >= Duration::from_millis(640), "{:?}", gap(2));
    assert!(deliveries.iter().position(|d| d.json()["data"]["id"] == json!("r2")) > deliveries.iter().rposition(|d| d.json()["data"]["id"] == json!("r1")), "r2 waits for r1");
    let status = wait_status(&app, "w", "r2 recorded", |s| s["delivered"] == json!(2));
    assert_eq!((status["failing"].clone(), status["attempts"].clone()), (json!(false), json!(0)), "{status}");
    assert!(status["last_error"].as_str().unwrap().contains("closed"), "the last failure is kept: {status}");

    // The receiver goes away: the subscription fails, visibly; it comes back: delivered.
    receiver.stop();
    report(&app, "r3", "carol", "dave");
    report(&app, "r4", "dave", "alice");
    let failing = wait_status(&app, "w", "failing", |s| s["failing"] == json!(true) && s["attempts"].as_i64().unwrap() >= 2);
    assert!(failing["last_error"].as_str().unwrap().contains("cannot connect"), "{failing}");
    assert!(failing["failing_since"].as_f64().is_some() && failing["next_attempt"].as_f64().is_some(), "{failing}");
    let metrics = app.ok_text("/metrics");
    let gauge = |metrics: &str, name: &str| metrics.lines().find(|l| l.starts_with(name) && l.contains("webhook=\"w\"")).map(|l| l.rsplit(' ').next().unwrap().to_owned());
    let deadline = Instant::now() + WAIT;
    let mut metrics = metrics;
    while gauge(&metrics, "elo_ladder_webhook_failing").as_deref() != Some("1") {
        assert!(Instant::now() < deadline, "the failing gauge: {metrics}");
        std::thread::sleep(Duration::from_millis(50));
        metrics = app.ok_text("/metrics");
    }
    assert!(metrics.lines().any(|l| l.starts_with("elo_ladder_webhook_deliveries_total") && l.contains("webhook=\"w\"") && l.contains("failed")), "{metrics}");
    // Paused: nothing is tried; resumed (a PUT also retries at once): delivered.
    receiver.restart();
    let url = receiver.url("/w");
    app.ok("PUT", "/v1/ladders/l/webhooks/w", &app.admin, Some(&json!({"url": url}).to_string()));
    let deliveries = receiver.wait_for(WAIT, "r3 and r4 after the restart", |d| accepted(d, "/w").len() == 4);
    let expected = journal_seqs(&app, None, 0);
    check_once_in_order(&deliveries, "/w", &expected, &HashSet::new());
    let status = wait_status(&app, "w", "not failing", |s| s["failing"] == json!(false) && s["delivered"] == json!(4));
    assert_eq!(status["delivered_through"], json!(expected.last().unwrap()));
    let deadline = Instant::now() + WAIT;
    while gauge(&app.ok_text("/metrics"), "elo_ladder_webhook_failing").as_deref() != Some("0") {
        assert!(Instant::now() < deadline, "the failing gauge back to 0");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Paused: entries wait, the cursor stays.
    app.ok("PUT", "/v1/ladders/l/webhooks/w", &app.admin, Some(&json!({"url": url, "paused": true}).to_string()));
    report(&app, "r5", "alice", "bob");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(accepted(&receiver.deliveries(), "/w").len(), 4, "nothing sent while paused");
    app.ok("PUT", "/v1/ladders/l/webhooks/w", &app.admin, Some(&json!({"url": url}).to_string()));
    receiver.wait_for(WAIT, "r5 after the pause", |d| accepted(d, "/w").len() == 5);
}

/// An admin mends a subscription's URL while an attempt to the old one is timing out: the
/// failure that ends after the `PUT` does not push the retry back by the backoff (a minute
/// here); the entry goes to the new URL at once.
fn a_put_during_a_failing_attempt_retries_at_once(backend: Backend) {
    let receiver = Receiver::start();
    let app = TestApp::spawn_args(
        backend,
        &["--rate-limit", "0", "--auth-failure-limit", "0", "--webhook-interval-ms", "50", "--webhook-timeout-ms", "2000", "--webhook-backoff-ms", "60000"],
    );
    app.put_ladder("l", RULES);
    receiver.set_rule(|d| if d.path == "/old" { Action::Stall(Duration::from_millis(3000)) } else { Action::Answer(200) });
    subscribe(&app, "w", &json!({"url": receiver.url("/old"), "from": 0}));
    report(&app, "m1", "alice", "bob");
    receiver.wait_for(WAIT, "the attempt to the old URL", |d| d.iter().any(|d| d.path == "/old"));
    let mended = Instant::now();
    app.ok("PUT", "/v1/ladders/l/webhooks/w", &app.admin, Some(&json!({"url": receiver.url("/new")}).to_string()));
    receiver.wait_for(Duration::from_secs(15), "the entry at the new URL well before the backoff's minute", |d| accepted(d, "/new").len() == 1);
    assert!(mended.elapsed() < Duration::from_secs(15));
    let status = wait_status(&app, "w", "delivered", |s| s["delivered"] == json!(1));
    assert_eq!(status["failing"], json!(false), "{status}");
}

fn an_erased_name_is_never_sent_after_the_erasure(backend: Backend) {
    let receiver = Receiver::start();
    // 3 s for an attempt: the stall below is answered within it.
    let app = TestApp::spawn_args(backend, &fast_with_timeout("3000"));
    app.put_ladder("l", RULES);
    subscribe(&app, "w", &json!({"url": receiver.url("/w"), "from": 0}));

    // An entry naming carol is being sent (the receiver holds it 1.5 s) when carol is erased:
    // the erasure waits for the send.
    receiver.set_rule(|d| if d.body.contains("\"carol\"") { Action::Slow(Duration::from_millis(1500)) } else { Action::Answer(200) });
    report(&app, "m1", "alice", "carol");
    receiver.wait_for(WAIT, "the entry naming carol", |d| d.iter().any(|d| d.body.contains("\"carol\"")));
    let asked = Instant::now();
    app.ok("DELETE", "/v1/ladders/l/players/carol", &app.admin, None);
    let erased = Instant::now();
    let stalled = receiver.deliveries().into_iter().find(|d| d.body.contains("\"carol\"")).unwrap();
    let Some(answered) = stalled.answered.filter(|answered| erased >= *answered) else {
        panic!("the erasure answered {:?} after it was asked, while the send naming carol was under way", erased.duration_since(asked));
    };

    // Entries naming dave fail until dave's erasure has answered; every attempt after the
    // erasure carries the pseudonym, never the name.
    let open = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let gate = std::sync::Arc::clone(&open);
    receiver.set_rule(move |d| {
        let held = ["m2", "m3"].iter().any(|id| d.json()["data"]["id"] == json!(id));
        if held && !gate.load(std::sync::atomic::Ordering::SeqCst) {
            Action::Answer(503)
        } else {
            Action::Answer(200)
        }
    });
    report(&app, "m2", "dave", "erin");
    report(&app, "m3", "erin", "dave");
    receiver.wait_for(WAIT, "attempts naming dave", |d| d.iter().filter(|d| d.body.contains("\"dave\"")).count() >= 2);
    let pseudonym = app.ok("DELETE", "/v1/ladders/l/players/dave", &app.admin, None)["pseudonym"].as_str().unwrap().to_owned();
    let erased = Instant::now();
    open.store(true, std::sync::atomic::Ordering::SeqCst);
    let deliveries = receiver.wait_for(WAIT, "m2 and m3 delivered", |d| accepted(d, "/w").len() == 3);
    let after: Vec<&Delivery> = deliveries.iter().filter(|d| d.at > erased).collect();
    assert!(after.iter().any(|d| d.body.contains(&pseudonym)), "deliveries after the erasure carry the pseudonym");
    for delivery in deliveries.iter().filter(|d| d.at > erased) {
        assert!(!delivery.body.contains("\"dave\""), "a name sent after its erasure: {}", delivery.body);
    }
    for delivery in deliveries.iter().filter(|d| d.at > answered) {
        assert!(!delivery.body.contains("\"carol\""), "a name sent after its erasure: {}", delivery.body);
    }
    check_once_in_order(&deliveries, "/w", &journal_seqs(&app, None, 0), &HashSet::new());
}

fn a_killed_server_sends_the_entry_again_with_the_same_id(backend: Backend) {
    let receiver = Receiver::start();
    // 4 s for an attempt (a lease of 12 s): the stall below is within it, and long enough
    // to find the sending server and kill it.
    let args = fast_with_timeout("4000");
    let dir = TempDir::new("db");
    let database = helpers::database(backend, &dir);
    let mut first = Server::start_with(&database, 0, &args);
    // PostgreSQL: a second server takes over; SQLite: the same file served again.
    let second = (backend == Backend::Postgres).then(|| Server::start_with(&database, 0, &args));
    let (admin, report_key) = (helpers::key(&database, "admin", None), helpers::key(&database, "report", None));
    let ask = |server: &Server, method: &str, path: &str, key: &str, body: &str| {
        let (status, text) = call(&server.address, method, path, Some(key), Some(body)).unwrap();
        assert!((200..300).contains(&status), "{method} {path}: {status} {text}");
    };
    ask(&first, "PUT", "/v1/ladders/l", &admin, RULES);
    // The receiver holds m1's first attempt; the server sending it is killed meanwhile.
    let mut stalls = 0;
    receiver.set_rule(move |d| {
        if d.json()["data"]["id"] == json!("m1") {
            stalls += 1;
            if stalls == 1 {
                return Action::Stall(Duration::from_millis(3000));
            }
        }
        Action::Answer(200)
    });
    ask(&first, "PUT", "/v1/ladders/l/webhooks/w", &admin, &json!({"url": receiver.url("/w"), "from": 0}).to_string());
    ask(&first, "POST", "/v1/ladders/l/matches", &report_key, r#"{"id":"m0","a":"alice","b":"bob","score_a":1}"#);
    ask(&first, "POST", "/v1/ladders/l/matches", &report_key, r#"{"id":"m1","a":"bob","b":"carol","score_a":1}"#);
    receiver.wait_for(WAIT, "m1's first attempt", |d| d.iter().any(|d| d.json()["data"]["id"] == json!("m1")));
    // The holder of the lease dies while the receiver holds the request.
    let holder_is_first = match &second {
        Some(second) => {
            let holder = helpers::psql_query(&database, "SELECT lease_holder FROM webhooks WHERE name = 'w'");
            assert!(first.log().contains(&holder) || second.log().contains(&holder), "the holder {holder} is one of the servers");
            first.log().contains(&holder)
        }
        None => true,
    };
    let mut second = second;
    let survivor_address = if holder_is_first {
        first.kill9();
        match &second {
            Some(second) => second.address.clone(),
            None => {
                first.restart();
                first.address.clone()
            }
        }
    } else {
        let mut dead = second.take().unwrap();
        dead.kill9();
        first.address.clone()
    };
    let (status, text) = call(&survivor_address, "POST", "/v1/ladders/l/matches", Some(&report_key), Some(r#"{"id":"m2","a":"carol","b":"alice","score_a":1}"#)).unwrap();
    assert_eq!(status, 200, "{text}");
    let deliveries = receiver.wait_for(Duration::from_secs(60), "every entry after the kill", |d| {
        let m1: Vec<&Delivery> = d.iter().filter(|d| d.json()["data"]["id"] == json!("m1")).collect();
        accepted(d, "/w").len() == 3 && m1.len() == 2 && m1[0].answered.is_some()
    });
    let m1: Vec<&Delivery> = deliveries.iter().filter(|d| d.json()["data"]["id"] == json!("m1")).collect();
    assert_eq!(m1[0].id(), m1[1].id(), "sent again with the same webhook-id");
    assert!(m1[0].answered.is_some(), "the receiver answered the first attempt (to a killed server)");
    let seqs: Vec<i64> = deliveries.iter().filter(|d| d.accepted() || matches!(d.action, Action::Stall(_))).map(Delivery::seq).collect();
    let mut sorted = seqs.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 3, "{seqs:?}");
    check_once_in_order(&deliveries, "/w", &sorted, &HashSet::from([m1[0].id().to_owned()]));
}

fn two_servers_deliver_each_entry_once() {
    let receiver = Receiver::start();
    let dir = TempDir::new("db");
    let database = helpers::database(Backend::Postgres, &dir);
    let servers = [Server::start_with(&database, 0, &FAST), Server::start_with(&database, 0, &FAST)];
    let (admin, report_key) = (helpers::key(&database, "admin", None), helpers::key(&database, "report", None));
    assert_eq!(call(&servers[0].address, "PUT", "/v1/ladders/l", Some(&admin), Some(RULES)).unwrap().0, 201);
    for name in ["a", "b", "c"] {
        let body = json!({"url": receiver.url(&format!("/{name}")), "from": 0}).to_string();
        assert_eq!(call(&servers[1].address, "PUT", &format!("/v1/ladders/l/webhooks/{name}"), Some(&admin), Some(&body)).unwrap().0, 201);
    }
    let names = ["ann", "ben", "cat", "dan", "eve"];
    for i in 0..40 {
        let body = format!(r#"{{"id":"m{i}","a":"{}","b":"{}","score_a":1}}"#, names[i % 5], names[(i + 2) % 5]);
        let (status, text) = call(&servers[i % 2].address, "POST", "/v1/ladders/l/matches", Some(&report_key), Some(&body)).unwrap();
        assert_eq!(status, 200, "{text}");
    }
    receiver.wait_for(Duration::from_secs(60), "40 entries to each subscription", |d| ["/a", "/b", "/c"].iter().all(|p| accepted(d, p).len() == 40));
    std::thread::sleep(Duration::from_millis(500));
    let deliveries = receiver.deliveries();
    let mut seqs: Vec<i64> = accepted(&deliveries, "/a").iter().map(Delivery::seq).collect();
    seqs.sort_unstable();
    for path in ["/a", "/b", "/c"] {
        let sent = deliveries.iter().filter(|d| d.path == path).count();
        assert_eq!(sent, 40, "{path}: each entry sent once by one of the servers, none twice");
        check_once_in_order(&deliveries, path, &seqs, &HashSet::new());
    }
    // Both servers delivered (the leases moved between them), or one did all: either way
    // each entry once. Which one held each is in the database.
    let holders = helpers::psql_query(&database, "SELECT count(DISTINCT lease_holder) FROM webhooks");
    assert!(holders == "1" || holders == "2", "{holders}");
}

fn https_receivers_are_verified_against_the_roots() {
    let tls = helpers::cluster_tls();
    let receiver = Receiver::start_tls(&tls.server_cert, &tls.server_key);
    let ca = tls.ca.display().to_string();
    let trusted = TestApp::spawn_args(Backend::Sqlite, &[&FAST[..], &["--webhook-root-cert", &ca]].concat());
    trusted.put_ladder("l", RULES);
    subscribe(&trusted, "w", &json!({"url": receiver.url("/w"), "from": 0}));
    report(&trusted, "m1", "alice", "bob");
    let deliveries = receiver.wait_for(WAIT, "a delivery over TLS", |d| accepted(d, "/w").len() == 1);
    assert_eq!(deliveries[0].json()["data"]["id"], json!("m1"));
    // Another CA: the certificate is refused, the subscription fails and says why.
    let other = tls.other_ca.display().to_string();
    let untrusting = TestApp::spawn_args(Backend::Sqlite, &[&FAST[..], &["--webhook-root-cert", &other]].concat());
    untrusting.put_ladder("l", RULES);
    subscribe(&untrusting, "w", &json!({"url": receiver.url("/x"), "from": 0}));
    report(&untrusting, "m1", "alice", "bob");
    let failing = wait_status(&untrusting, "w", "a refused certificate", |s| s["failing"] == json!(true));
    assert!(failing["last_error"].as_str().unwrap().contains("TLS"), "{failing}");
    assert!(receiver.deliveries().iter().all(|d| d.path != "/x"), "nothing was sent to a receiver whose certificate was refused");
    // A root file that cannot be read stops the server at its start.
    let dir = TempDir::new("db");
    let database = helpers::database(Backend::Sqlite, &dir);
    let refused = Server::try_start(&database, &["--webhook-root-cert", "/nonexistent/ca.pem"], &[]).err().expect("refused");
    assert!(refused.contains("--webhook-root-cert"), "{refused}");
}

/// One delivery at a time (`--webhook-parallel 1`) and two subscriptions catching up on 250
/// entries each: they take turns (a turn is at most 100 entries), so the second does not
/// wait until the first has caught up.
fn subscriptions_take_turns_beyond_the_parallel_limit() {
    let receiver = Receiver::start();
    let mut args = FAST.to_vec();
    args.extend(["--webhook-parallel", "1"]);
    let app = TestApp::spawn_args(Backend::Sqlite, &args);
    app.put_ladder("l", RULES);
    for i in 0..250 {
        report(&app, &format!("m{i}"), &format!("p{}", i % 7), &format!("q{}", i % 5));
    }
    // "a" sorts first; each of its requests takes 10 ms.
    receiver.set_rule(|d| if d.path == "/a" { Action::Slow(Duration::from_millis(10)) } else { Action::Answer(200) });
    subscribe(&app, "a", &json!({"url": receiver.url("/a"), "from": 0}));
    subscribe(&app, "b", &json!({"url": receiver.url("/b"), "from": 0}));
    let deliveries = receiver.wait_for(Duration::from_secs(60), "both caught up", |d| accepted(d, "/a").len() == 250 && accepted(d, "/b").len() == 250);
    let first_b = deliveries.iter().position(|d| d.path == "/b").unwrap();
    let last_a = deliveries.iter().rposition(|d| d.path == "/a").unwrap();
    assert!(first_b < last_a, "b waited until a had caught up (its first request came after a's last)");
    let a_before_b = deliveries[..first_b].iter().filter(|d| d.path == "/a").count();
    assert!(a_before_b <= 100, "a turn is at most 100 entries: {a_before_b} of a's came before b's first");
}
