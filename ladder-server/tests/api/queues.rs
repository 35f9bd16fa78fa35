//! Matchmaking queues: settings, tickets (keys and player tokens), the engine's matches with
//! previews that equal the reports' results bit for bit, matched-only ladders, erasure,
//! expiry, restarts, and on PostgreSQL two instances sharing queues with a `kill -9` of one.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

use crate::helpers::{self, call, Backend, Server, TempDir, TestApp};
use crate::RULES;

on_both!(
    queue_settings_are_checked_field_by_field,
    pairs_meet_within_both_windows_and_preview_the_report,
    parties_play_on_one_side_and_free_for_alls_fill,
    tickets_belong_to_their_players,
    tickets_expire_survive_restarts_and_leave_with_an_erasure,
    zero_sum_newcomers_wait_at_their_current_rating_and_preview_the_report,
);

const SECRET: &str = "a queue test secret of more than thirty-two bytes";

/// A server taking HS256 player tokens, ticking queues every 100 ms, with ladder `l`.
fn app(backend: Backend) -> (TestApp, TempDir) {
    let dir = TempDir::new("queues");
    let secret = dir.0.join("secret");
    std::fs::write(&secret, SECRET).unwrap();
    let app = TestApp::spawn_args(backend, &["--rate-limit", "0", "--auth-failure-limit", "0", "--matchmaking-interval-ms", "100", "--jwt-secret-file", secret.to_str().unwrap()]);
    app.put_ladder("l", RULES);
    (app, dir)
}

/// A player token for `player`, valid an hour.
fn token(player: &str) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    jsonwebtoken::encode(&Header::new(Algorithm::HS256), &json!({"sub": player, "exp": now + 3600}), &EncodingKey::from_secret(SECRET.as_bytes())).unwrap()
}

fn put_queue(app: &TestApp, queue: &str, settings: &str) {
    let (status, text) = app.call("PUT", &format!("/v1/ladders/l/queues/{queue}"), &app.admin, Some(settings));
    assert!(status == 201 || status == 200, "{status} {text}");
}

/// Joins with `key` (201).
fn join(app: &TestApp, key: &str, queue: &str, body: &str) -> Value {
    let (status, text) = app.call("POST", &format!("/v1/ladders/l/queues/{queue}/tickets"), key, Some(body));
    assert_eq!(status, 201, "{body}: {text}");
    serde_json::from_str(&text).unwrap()
}

/// The ticket once it is no longer waiting (long-polls of up to 5 s, for up to 20 s).
fn settled(app: &TestApp, key: &str, queue: &str, ticket: &str) -> Value {
    let started = Instant::now();
    loop {
        let value = app.ok("GET", &format!("/v1/ladders/l/queues/{queue}/tickets/{ticket}?wait=5"), key, None);
        if value["state"] != "waiting" || started.elapsed() > Duration::from_secs(20) {
            return value;
        }
    }
}

fn rating_bits(value: &Value) -> u32 {
    (value.as_f64().expect("a rating") as f32).to_bits()
}

fn queue_settings_are_checked_field_by_field(backend: Backend) {
    let (app, _dir) = app(backend);
    let path = "/v1/ladders/l/queues/ranked";
    let (status, text) = app.call("PUT", path, &app.admin, Some(r#"{"mode":"pair"}"#));
    assert_eq!(status, 201, "{text}");
    let created: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(created["matchmaking"]["initial_distance"], 100.0, "the engine's defaults: {created}");
    assert_eq!((created["party_max"].as_i64(), created["ticket_seconds"].as_i64(), created["waiting"].as_i64()), (Some(1), Some(600), Some(0)));
    let (status, _) = app.call("PUT", path, &app.admin, Some(r#"{"mode":"pair","matchmaking":{"initial_distance":50,"max_distance":50}}"#));
    assert_eq!(status, 200, "replaced");
    assert_eq!(app.ok("GET", path, &app.read, None)["matchmaking"]["initial_distance"], 50.0);
    assert_eq!(app.ok("GET", path, &token("alice"), None)["mode"], "pair", "a token reads queues");
    assert_eq!(app.ok("GET", "/v1/ladders/l/queues", &app.read, None)["queues"].as_array().unwrap().len(), 1);
    for (body, field) in [
        (r#"{"mode":"pairs"}"#, "mode"),
        (r#"{"mode":"teams"}"#, "team_size"),
        (r#"{"mode":"teams","team_size":2,"party_max":3}"#, "party_max"),
        (r#"{"mode":"free_for_all","entrants":300}"#, "entrants"),
        (r#"{"mode":"pair","matchmaking":{"candidates":500}}"#, "matchmaking.candidates"),
        (r#"{"mode":"pair","matchmaking":{"growth_per_second":-1}}"#, "matchmaking.growth_per_second"),
        (r#"{"mode":"pair","matchmaking":[]}"#, "matchmaking"),
        (r#"{"mode":"pair","ticket_seconds":100000}"#, "ticket_seconds"),
        (r#"{"mode":"pair","attributes":["region","region"]}"#, "attributes"),
        (r#"{"mode":"pair","region":"eu"}"#, "region"),
        ("not json", "queue"),
    ] {
        let (status, text) = app.call("PUT", path, &app.admin, Some(body));
        assert_eq!(status, 400, "{body}: {text}");
        assert!(text.contains(field), "{body}: {text}");
    }
    assert_eq!(app.call("PUT", path, &app.report, Some(r#"{"mode":"pair"}"#)).0, 403, "admin only");
    assert_eq!(app.call("PUT", path, &token("alice"), Some(r#"{"mode":"pair"}"#)).0, 403);
    assert_eq!(app.call("PUT", "/v1/ladders/l/queues/a%20b", &app.admin, Some(r#"{"mode":"pair"}"#)).0, 422);
    let (status, text) = app.call("GET", "/v1/ladders/l/queues/none", &app.read, None);
    assert_eq!((status, text.contains("unknown_queue")), (404, true), "{text}");
}

/// Reports `matches` pair results (`a` beats `b`).
fn play(app: &TestApp, games: &[(&str, &str)]) {
    for (i, (a, b)) in games.iter().enumerate() {
        app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&format!(r#"{{"id":"warm-{a}-{b}-{i}","a":"{a}","b":"{b}","score_a":1}}"#)));
    }
}

fn pairs_meet_within_both_windows_and_preview_the_report(backend: Backend) {
    let (app, _dir) = app(backend);
    // alice 1516, bob 1484 (32 apart); carol far above after six wins (1587).
    play(&app, &[("alice", "bob"), ("carol", "dave"), ("carol", "erin"), ("carol", "frank"), ("carol", "gil"), ("carol", "hal"), ("carol", "ivy")]);
    put_queue(&app, "ranked", r#"{"mode":"pair","matchmaking":{"initial_distance":40,"growth_per_second":0,"max_distance":40}}"#);
    let a = join(&app, &token("alice"), "ranked", r#"{"players":["alice"]}"#);
    assert_eq!(a["state"], "waiting");
    assert_eq!(a["distance"], 40.0, "{a}");
    let c = join(&app, &app.report, "ranked", r#"{"players":["carol"]}"#);
    let b = join(&app, &token("bob"), "ranked", r#"{"players":["bob"]}"#);
    let ticket = |v: &Value| v["ticket"].as_str().unwrap().to_owned();
    let matched = settled(&app, &token("alice"), "ranked", &ticket(&a));
    assert_eq!(matched["state"], "matched", "{matched}");
    let the_match = &matched["match"];
    let sides = the_match["sides"].as_array().unwrap();
    let names: HashSet<&str> = sides.iter().flat_map(|s| s.as_array().unwrap()).map(|p| p["player"].as_str().unwrap()).collect();
    assert_eq!(names, HashSet::from(["alice", "bob"]), "{the_match}");
    assert_eq!(the_match["tickets"].as_array().unwrap().len(), 2);
    let gap = (sides[0][0]["rating"].as_f64().unwrap() - sides[1][0]["rating"].as_f64().unwrap()).abs();
    assert!(gap <= 40.0, "within both windows: {gap}");
    assert_eq!(settled(&app, &token("bob"), "ranked", &ticket(&b))["match"]["id"], the_match["id"], "bob's ticket holds the same match");
    assert_eq!(app.ok("GET", &format!("/v1/ladders/l/queues/ranked/tickets/{}", ticket(&c)), &app.read, None)["state"], "waiting", "carol is too far");

    // The report is checked against the match, then gives exactly the previews.
    let id = the_match["id"].as_str().unwrap();
    let (a_name, b_name) = (sides[0][0]["player"].as_str().unwrap(), sides[1][0]["player"].as_str().unwrap());
    let (status, text) = app.call("POST", "/v1/ladders/l/matches", &app.report, Some(&format!(r#"{{"id":"{id}","a":"{a_name}","b":"carol","score_a":1}}"#)));
    assert_eq!(status, 400, "other players: {text}");
    assert!(text.contains("names other players") && text.contains(id), "{text}");
    let (status, text) = app.call("POST", "/v1/ladders/l/matches", &app.report, Some(&format!(r#"{{"id":"{id}","entrants":["{a_name}","{b_name}"],"places":[1,2]}}"#)));
    assert_eq!(status, 400, "another kind: {text}");
    let (status, text) = app.call("POST", "/v1/ladders/l/matches", &app.report, Some(&format!(r#"{{"id":"{id}","a":"{b_name}","b":"{a_name}","score_a":1}}"#)));
    assert_eq!(status, 400, "the sides swapped (the engine rates side B as the complement of A): {text}");
    // Reported as made: B wins.
    let reported = app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&format!(r#"{{"id":"{id}","a":"{a_name}","b":"{b_name}","score_a":0}}"#)));
    let after: HashMap<&str, u32> = reported["players"].as_array().unwrap().iter().map(|p| (p["player"].as_str().unwrap(), rating_bits(&p["rating"]))).collect();
    assert_eq!(after[b_name], rating_bits(&sides[1][0]["preview"]["win"]), "the winner's preview, bit for bit: {the_match} {reported}");
    assert_eq!(after[a_name], rating_bits(&sides[0][0]["preview"]["loss"]), "the loser's preview");
    assert_ne!(sides[0][0]["preview"]["win"], sides[0][0]["preview"]["loss"]);

    // The queue seen from outside.
    let metrics = app.ok_text("/metrics");
    for needle in [
        r#"elo_ladder_queue_time_to_match_seconds_count{ladder="l",queue="ranked"} 2"#,
        r#"elo_ladder_queue_match_distance_count{ladder="l",queue="ranked"} 1"#,
        r#"elo_ladder_queue_match_spread_count{ladder="l",queue="ranked"} 1"#,
        r#"elo_ladder_queue_waiting_tickets{ladder="l",queue="ranked"}"#,
        r#"elo_ladder_queue_tick_duration_seconds_count{ladder="l",queue="ranked"}"#,
    ] {
        assert!(metrics.contains(needle), "/metrics lacks {needle}:\n{metrics}");
    }

    // The backend's feed of matches.
    let feed = app.ok("GET", "/v1/ladders/l/queues/ranked/matches?after=0", &app.report, None);
    assert_eq!(feed["matches"].as_array().unwrap().len(), 1);
    assert_eq!(feed["matches"][0]["id"], id);
    let next = feed["after"].as_i64().unwrap();
    let started = Instant::now();
    let empty = app.ok("GET", &format!("/v1/ladders/l/queues/ranked/matches?after={next}&wait=1"), &app.report, None);
    assert!(empty["matches"].as_array().unwrap().is_empty() && started.elapsed() >= Duration::from_millis(900), "waited for the next match");
    assert_eq!(app.call("GET", "/v1/ladders/l/queues/ranked/matches", &app.read, None).0, 403, "a report key's feed");

    // A matched ticket cannot be cancelled.
    let (status, text) = app.call("DELETE", &format!("/v1/ladders/l/queues/ranked/tickets/{}", ticket(&a)), &token("alice"), None);
    assert_eq!(status, 409, "{text}");

    // matched_only: a report no queue made is refused; a queue's match is taken.
    app.ok("PUT", "/v1/ladders/l/options", &app.admin, Some(r#"{"matched_only":true}"#));
    assert_eq!(app.ok("GET", "/v1/ladders/l", &app.read, None)["options"]["matched_only"], true);
    let (status, text) = app.call("POST", "/v1/ladders/l/matches", &app.report, Some(r#"{"id":"arranged","a":"carol","b":"dave","score_a":1}"#));
    assert_eq!(status, 422, "{text}");
    assert!(text.contains("not_matched"), "{text}");
    let d = join(&app, &app.report, "ranked", r#"{"players":["dave"]}"#);
    let e = join(&app, &app.report, "ranked", r#"{"players":["erin"]}"#);
    let second = settled(&app, &app.report, "ranked", &ticket(&d));
    assert_eq!(second["state"], "matched", "{second}");
    assert_eq!(settled(&app, &app.report, "ranked", &ticket(&e))["match"]["id"], second["match"]["id"]);
    let id = second["match"]["id"].as_str().unwrap();
    let sides = &second["match"]["sides"];
    let (first, other) = (sides[0][0]["player"].as_str().unwrap(), sides[1][0]["player"].as_str().unwrap());
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&format!(r#"{{"id":"{id}","a":"{first}","b":"{other}","score_a":0.5}}"#)));
}

fn parties_play_on_one_side_and_free_for_alls_fill(backend: Backend) {
    let (app, _dir) = app(backend);
    play(&app, &[("p1", "p2"), ("p3", "p4")]);
    put_queue(&app, "duos", r#"{"mode":"teams","team_size":2,"party_max":2,"matchmaking":{"initial_distance":100}}"#);
    let party = join(&app, &app.report, "duos", r#"{"players":["p1","p2"]}"#);
    join(&app, &app.report, "duos", r#"{"players":["p3"]}"#);
    join(&app, &app.report, "duos", r#"{"players":["newcomer"]}"#);
    let (status, text) = app.call("POST", "/v1/ladders/l/queues/duos/tickets", &app.report, Some(r#"{"players":["x","y","z"]}"#));
    assert_eq!(status, 400, "party_max: {text}");
    let matched = settled(&app, &app.report, "duos", party["ticket"].as_str().unwrap());
    assert_eq!(matched["state"], "matched", "{matched}");
    let sides = matched["match"]["sides"].as_array().unwrap().clone();
    let side_names: Vec<Vec<String>> = sides.iter().map(|s| s.as_array().unwrap().iter().map(|p| p["player"].as_str().unwrap().to_owned()).collect()).collect();
    assert!(side_names.contains(&vec!["p1".to_owned(), "p2".to_owned()]), "the party on one side: {side_names:?}");
    // The team report gives the previews (the newcomer joins the ladder with it).
    let id = matched["match"]["id"].as_str().unwrap();
    let body = json!({"id": id, "team_a": side_names[0], "team_b": side_names[1], "score_a": 0.0});
    let reported = app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&body.to_string()));
    for player in reported["players"].as_array().unwrap() {
        let name = player["player"].as_str().unwrap();
        let (side, index) = side_names.iter().enumerate().find_map(|(s, names)| names.iter().position(|n| n == name).map(|i| (s, i))).unwrap();
        let expected = if side == 0 { &sides[0][index]["preview"]["loss"] } else { &sides[1][index]["preview"]["win"] };
        assert_eq!(rating_bits(&player["rating"]), rating_bits(expected), "{name}: {reported} {sides:?}");
    }

    put_queue(&app, "brawl", r#"{"mode":"free_for_all","entrants":3,"matchmaking":{"initial_distance":400}}"#);
    let (status, _) = app.call("POST", "/v1/ladders/l/queues/brawl/tickets", &app.report, Some(r#"{"players":["f1","f2"]}"#));
    assert_eq!(status, 400, "no parties in a free-for-all");
    let tickets: Vec<Value> = ["f1", "f2", "f3"].iter().map(|p| join(&app, &app.report, "brawl", &format!(r#"{{"players":["{p}"]}}"#))).collect();
    let done = settled(&app, &app.report, "brawl", tickets[2]["ticket"].as_str().unwrap());
    assert_eq!(done["match"]["sides"].as_array().unwrap().len(), 3, "{done}");
    assert!(done["match"]["sides"][0][0].get("preview").is_none(), "no preview for a free-for-all");
    let id = done["match"]["id"].as_str().unwrap();
    let (status, text) = app.call("POST", "/v1/ladders/l/matches", &app.report, Some(&format!(r#"{{"id":"{id}","entrants":["f1","f2","f9"],"places":[1,2,3]}}"#)));
    assert_eq!(status, 400, "{text}");
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&format!(r#"{{"id":"{id}","entrants":["f3","f1","f2"],"places":[1,2,3]}}"#)));
}

fn tickets_belong_to_their_players(backend: Backend) {
    let (app, _dir) = app(backend);
    // A window of 0: nobody is ever matched here.
    put_queue(&app, "q", r#"{"mode":"pair","attributes":["region"],"matchmaking":{"initial_distance":0,"growth_per_second":0,"max_distance":0}}"#);
    let path = "/v1/ladders/l/queues/q/tickets";
    let alice = token("alice");
    let (status, text) = app.call("POST", path, &alice, Some(r#"{"players":["bob"],"attributes":{"region":"eu"}}"#));
    assert_eq!(status, 403, "a token joins for its player only: {text}");
    assert_eq!(app.call("POST", path, &app.read, Some(r#"{"players":["bob"],"attributes":{"region":"eu"}}"#)).0, 403, "a read key cannot join");
    for (body, says) in [
        (r#"{"players":["alice"]}"#, "region"),
        (r#"{"players":["alice"],"attributes":{"region":"eu","tier":"1"}}"#, "tier"),
        (r#"{"players":["alice"],"attributes":{"region":5}}"#, "ticket"),
        (r#"{"players":"alice","attributes":{"region":"eu"}}"#, "ticket"),
        (r#"{"players":["alice"],"attributes":{"region":"eu"},"colour":"red"}"#, "colour"),
    ] {
        let (status, text) = app.call("POST", path, &alice, Some(body));
        assert_eq!(status, 400, "{body}: {text}");
        assert!(text.contains(says), "{body}: {text}");
    }
    let mine = join(&app, &alice, "q", r#"{"players":["alice"],"attributes":{"region":"eu"},"id":"try-1"}"#);
    let id = mine["ticket"].as_str().unwrap();
    // A retry with the same id is the same ticket; another body with it is refused.
    let (status, text) = app.call("POST", path, &alice, Some(r#"{"players":["alice"],"attributes":{"region":"eu"},"id":"try-1"}"#));
    assert_eq!(status, 200, "{text}");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["ticket"], id);
    let (status, text) = app.call("POST", path, &alice, Some(r#"{"players":["alice"],"attributes":{"region":"us"},"id":"try-1"}"#));
    assert_eq!((status, text.contains("ticket_id_reused")), (409, true), "{text}");
    // Retry ids are each caller's own: bob's "try-1" is another ticket, and tells him nothing.
    let bobs = join(&app, &token("bob"), "q", r#"{"players":["bob"],"attributes":{"region":"us"},"id":"try-1"}"#);
    assert_ne!(bobs["ticket"], id);
    // Waiting once per queue.
    let (status, text) = app.call("POST", path, &app.report, Some(r#"{"players":["alice"],"attributes":{"region":"us"}}"#));
    assert_eq!(status, 409, "{text}");
    assert!(text.contains(id), "names the waiting ticket: {text}");
    // Only alice's token (or a key) reads and cancels alice's ticket.
    let ticket_path = format!("{path}/{id}");
    assert_eq!(app.call("GET", &ticket_path, &token("mallory"), None).0, 403);
    assert_eq!(app.call("DELETE", &ticket_path, &token("mallory"), None).0, 403);
    assert_eq!(app.call("DELETE", &ticket_path, &app.read, None).0, 403);
    assert_eq!(app.ok("GET", &ticket_path, &app.read, None)["state"], "waiting");
    assert_eq!(app.call("GET", &format!("{path}/t-none"), &alice, None).0, 404);
    // A long-poll wakes at the cancellation.
    let (address, waiting_path, reader) = (app.server.address.clone(), format!("{ticket_path}?wait=20"), alice.clone());
    let started = Instant::now();
    let poll = std::thread::spawn(move || call(&address, "GET", &waiting_path, Some(&reader), None).unwrap());
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(app.ok("DELETE", &ticket_path, &alice, None)["state"], "cancelled");
    let (status, text) = poll.join().unwrap();
    assert_eq!(status, 200);
    assert!(text.contains("\"cancelled\"") && started.elapsed() < Duration::from_secs(5), "woken: {:?} {text}", started.elapsed());
    assert_eq!(app.ok("DELETE", &ticket_path, &alice, None)["state"], "cancelled", "cancelling again is no error");
    // Cancelled, alice may wait again.
    join(&app, &alice, "q", r#"{"players":["alice"],"attributes":{"region":"eu"}}"#);
    assert_eq!(app.ok("GET", "/v1/ladders/l/queues/q", &app.read, None)["waiting"], 2, "alice and bob");
}

fn tickets_expire_survive_restarts_and_leave_with_an_erasure(backend: Backend) {
    let (mut app, _dir) = app(backend);
    put_queue(&app, "slow", r#"{"mode":"pair","ticket_seconds":2,"matchmaking":{"initial_distance":0,"growth_per_second":0,"max_distance":0}}"#);
    play(&app, &[("gone", "kept")]);
    let short = join(&app, &app.report, "slow", r#"{"players":["kept"]}"#);
    let erased = join(&app, &app.report, "slow", r#"{"players":["gone"]}"#);
    // An erasure cancels the player's waiting ticket and leaves no name in it.
    let pseudonym = app.ok("DELETE", "/v1/ladders/l/players/gone", &app.admin, None)["pseudonym"].as_str().unwrap().to_owned();
    let after = app.ok("GET", &format!("/v1/ladders/l/queues/slow/tickets/{}", erased["ticket"].as_str().unwrap()), &app.admin, None);
    assert_eq!(after["state"], "cancelled", "{after}");
    assert_eq!(after["players"], json!([pseudonym]), "{after}");
    assert_eq!(settled(&app, &app.report, "slow", short["ticket"].as_str().unwrap())["state"], "expired");

    // A waiting ticket outlives the server (kill -9), and is matched after it.
    put_queue(&app, "fast", r#"{"mode":"pair","matchmaking":{"initial_distance":400}}"#);
    let first = join(&app, &app.report, "fast", r#"{"players":["one"]}"#);
    app.server.kill9();
    app.server.restart();
    let id = first["ticket"].as_str().unwrap();
    assert_eq!(app.ok("GET", &format!("/v1/ladders/l/queues/fast/tickets/{id}"), &app.report, None)["state"], "waiting");
    join(&app, &app.report, "fast", r#"{"players":["two"]}"#);
    assert_eq!(settled(&app, &app.report, "fast", id)["state"], "matched");

    // A player named like a key of the stored match: the erasure renames the player only.
    let named = join(&app, &app.report, "fast", r#"{"players":["player"]}"#);
    let other = join(&app, &app.report, "fast", r#"{"players":["fast"]}"#);
    assert_eq!(settled(&app, &app.report, "fast", named["ticket"].as_str().unwrap())["state"], "matched");
    let pseudonym = app.ok("DELETE", "/v1/ladders/l/players/player", &app.admin, None)["pseudonym"].as_str().unwrap().to_owned();
    let seen = app.ok("GET", &format!("/v1/ladders/l/queues/fast/tickets/{}", other["ticket"].as_str().unwrap()), &app.report, None);
    let players: HashSet<&str> = seen["match"]["sides"].as_array().unwrap().iter().map(|s| s[0]["player"].as_str().unwrap()).collect();
    assert_eq!(players, HashSet::from([pseudonym.as_str(), "fast"]), "{seen}");
    assert_eq!(seen["match"]["queue"], "fast", "a queue named like a player keeps its name");
    let feed = app.ok("GET", "/v1/ladders/l/queues/fast/matches", &app.report, None);
    assert_eq!(feed["matches"].as_array().unwrap().len(), 2, "the feed still reads: {feed}");
    assert!(!feed.to_string().contains("\"player\":\"player\""), "{feed}");
    // A player who only ever queued is erased too (no 404): the ticket cancelled and renamed.
    let queued = join(&app, &app.report, "slow", r#"{"players":["queued-only"]}"#);
    let pseudonym = app.ok("DELETE", "/v1/ladders/l/players/queued-only", &app.admin, None)["pseudonym"].as_str().unwrap().to_owned();
    let after = app.ok("GET", &format!("/v1/ladders/l/queues/slow/tickets/{}", queued["ticket"].as_str().unwrap()), &app.admin, None);
    assert_eq!((after["state"].as_str(), after["players"].clone()), (Some("cancelled"), json!([pseudonym])), "{after}");
    assert_eq!(app.call("DELETE", "/v1/ladders/l/players/nobody-at-all", &app.admin, None).0, 404);
}

fn zero_sum_newcomers_wait_at_their_current_rating_and_preview_the_report(backend: Backend) {
    let (app, _dir) = app(backend);
    // A zero-sum ladder (stored ratings relative to an offset): a newcomer's ticket waits at
    // the rating it will join with, near everyone's, not at its stored form.
    app.put_ladder("z", r#"{"k_policy":{"policy":"constant","k":32},"zero_sum_total":6000}"#);
    for (i, (a, b)) in [("z1", "z2"), ("z3", "z4"), ("z1", "z3")].iter().enumerate() {
        app.ok("POST", "/v1/ladders/z/matches", &app.report, Some(&format!(r#"{{"id":"w{i}","a":"{a}","b":"{b}","score_a":1}}"#)));
    }
    app.ok("PUT", "/v1/ladders/z/queues/q", &app.admin, Some(r#"{"mode":"pair","matchmaking":{"initial_distance":100,"growth_per_second":0,"max_distance":100}}"#));
    let fresh = app.ok("POST", "/v1/ladders/z/queues/q/tickets", &app.report, Some(r#"{"players":["newcomer"]}"#));
    app.ok("POST", "/v1/ladders/z/queues/q/tickets", &app.report, Some(r#"{"players":["z4"]}"#));
    let id = fresh["ticket"].as_str().unwrap();
    let started = Instant::now();
    let matched = loop {
        let value = app.ok("GET", &format!("/v1/ladders/z/queues/q/tickets/{id}?wait=5"), &app.report, None);
        if value["state"] != "waiting" || started.elapsed() > Duration::from_secs(15) {
            break value;
        }
    };
    assert_eq!(matched["state"], "matched", "{matched}");
    let sides = matched["match"]["sides"].as_array().unwrap();
    for side in sides {
        let rating = side[0]["rating"].as_f64().unwrap();
        assert!((1300.0..1700.0).contains(&rating), "a current rating: {matched}");
    }
    let (a, b) = (sides[0][0]["player"].as_str().unwrap(), sides[1][0]["player"].as_str().unwrap());
    let match_id = matched["match"]["id"].as_str().unwrap();
    let reported = app.ok("POST", "/v1/ladders/z/matches", &app.report, Some(&format!(r#"{{"id":"{match_id}","a":"{a}","b":"{b}","score_a":0.5}}"#)));
    for (i, player) in reported["players"].as_array().unwrap().iter().enumerate() {
        assert_eq!(rating_bits(&player["rating"]), rating_bits(&sides[i][0]["preview"]["draw"]), "{reported} {matched}");
    }
}

/// Two servers on one PostgreSQL database, 8 clients joining and cancelling through both,
/// and a `kill -9` half way of the one holding the queue's lease: the other takes it over,
/// no ticket is in two matches, no cancelled ticket is matched, every ticket ends matched,
/// cancelled or expired.
#[test]
fn two_instances_match_each_ticket_once_and_survive_a_kill() {
    let dir = TempDir::new("queues-two");
    let database = helpers::database(Backend::Postgres, &dir);
    let args = ["--rate-limit", "0", "--auth-failure-limit", "0", "--matchmaking-interval-ms", "50"];
    let first = Server::start_with(&database, 0, &args);
    let second = Server::start_with(&database, 0, &args);
    let (admin, report) = (helpers::key(&database, "admin", None), helpers::key(&database, "report", None));
    let address = first.address.clone();
    assert_eq!(call(&address, "PUT", "/v1/ladders/l", Some(&admin), Some(RULES)).unwrap().0, 201);
    let settings = r#"{"mode":"pair","ticket_seconds":30,"matchmaking":{"initial_distance":400,"candidates":8}}"#;
    assert_eq!(call(&address, "PUT", "/v1/ladders/l/queues/q", Some(&admin), Some(settings)).unwrap().0, 201);
    let addresses = Arc::new(Mutex::new(vec![first.address.clone(), second.address.clone()]));
    let cancelled = Arc::new(Mutex::new(HashSet::new()));
    let all = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut clients = Vec::new();
    for client in 0..8u64 {
        let (addresses, cancelled, all, stop, report) = (Arc::clone(&addresses), Arc::clone(&cancelled), Arc::clone(&all), Arc::clone(&stop), report.clone());
        clients.push(std::thread::spawn(move || {
            let mut random = crate::Lcg(client + 1);
            let mut n = 0;
            while !stop.load(Ordering::SeqCst) {
                n += 1;
                let address = {
                    let a = addresses.lock().unwrap();
                    a[(random.below(100) as usize) % a.len()].clone()
                };
                let body = format!(r#"{{"players":["c{client}-{n}"]}}"#);
                let Ok((201, text)) = call(&address, "POST", "/v1/ladders/l/queues/q/tickets", Some(&report), Some(&body)) else { continue };
                let id = serde_json::from_str::<Value>(&text).unwrap()["ticket"].as_str().unwrap().to_owned();
                all.lock().unwrap().push(id.clone());
                if random.below(3) == 0 {
                    std::thread::sleep(Duration::from_millis(random.below(40)));
                    if let Ok((200, _)) = call(&address, "DELETE", &format!("/v1/ladders/l/queues/q/tickets/{id}"), Some(&report), None) {
                        cancelled.lock().unwrap().insert(id);
                    }
                }
                std::thread::sleep(Duration::from_millis(random.below(20)));
            }
        }));
    }
    std::thread::sleep(Duration::from_secs(3));
    // The server holding the queue's lease (each logs the name it takes leases as) is killed.
    let holder = helpers::psql_query(&database, "SELECT lease_holder FROM queues");
    assert!(holder.starts_with("server-"), "a lease is held: {holder:?}");
    let mut servers = [first, second];
    let held = servers.iter().position(|s| s.log().contains(&holder)).expect("the holder is one of the two");
    servers[held].kill9();
    let (dead, survivor) = (servers[held].address.clone(), servers[1 - held].address.clone());
    addresses.lock().unwrap().retain(|a| *a != dead);
    std::thread::sleep(Duration::from_secs(8)); // past the dead server's lease
    let taken = helpers::psql_query(&database, "SELECT lease_holder FROM queues");
    assert!(taken != holder && servers[1 - held].log().contains(&taken), "the survivor took the lease over: {holder} then {taken}");
    stop.store(true, Ordering::SeqCst);
    for client in clients {
        client.join().unwrap();
    }
    // Every ticket ends: an odd one out may wait, so a last partner is queued.
    let address = survivor;
    let last = call(&address, "POST", "/v1/ladders/l/queues/q/tickets", Some(&report), Some(r#"{"players":["last"]}"#)).unwrap();
    assert_eq!(last.0, 201, "{}", last.1);
    let deadline = Instant::now() + Duration::from_secs(30);
    let (all, cancelled) = (all.lock().unwrap().clone(), cancelled.lock().unwrap().clone());
    assert!(all.len() > 100, "{} tickets", all.len());
    let mut states = HashMap::new();
    for id in &all {
        loop {
            let (status, text) = call(&address, "GET", &format!("/v1/ladders/l/queues/q/tickets/{id}?wait=5"), Some(&report), None).unwrap();
            assert_eq!(status, 200, "{text}");
            let state = serde_json::from_str::<Value>(&text).unwrap()["state"].as_str().unwrap().to_owned();
            if state != "waiting" || Instant::now() > deadline {
                states.insert(id.clone(), state);
                break;
            }
        }
    }
    let waiting: Vec<&String> = states.iter().filter(|(_, s)| *s == "waiting").map(|(id, _)| id).collect();
    assert!(waiting.len() <= 1, "every ticket ends (the last one may wait for a partner): {waiting:?}");
    let mut in_matches: HashMap<String, i64> = HashMap::new();
    let mut after = 0;
    loop {
        let (_, text) = call(&address, "GET", &format!("/v1/ladders/l/queues/q/matches?after={after}&limit=1000"), Some(&report), None).unwrap();
        let page: Value = serde_json::from_str(&text).unwrap();
        let matches = page["matches"].as_array().unwrap();
        if matches.is_empty() {
            break;
        }
        for m in matches {
            assert_eq!(m["seq"].as_i64().unwrap(), after + 1, "the feed has no gaps");
            after = m["seq"].as_i64().unwrap();
            for t in m["tickets"].as_array().unwrap() {
                let id = t["ticket"].as_str().unwrap().to_owned();
                assert!(in_matches.insert(id.clone(), after).is_none(), "ticket {id} is in two matches");
                assert!(!cancelled.contains(&id), "cancelled ticket {id} was matched");
            }
        }
    }
    for (id, state) in &states {
        assert_eq!(state == "matched", in_matches.contains_key(id), "{id} is {state}");
        if cancelled.contains(id) {
            assert_eq!(state, "cancelled");
        }
    }
    let matched = states.values().filter(|s| *s == "matched").count();
    assert!(matched > 50 && cancelled.len() > 10, "{matched} matched, {} cancelled of {}", cancelled.len(), all.len());
    eprintln!("two instances: {} tickets, {matched} matched, {} cancelled, {} matches", all.len(), cancelled.len(), in_matches.len() / 2);
}

/// SQLite: a crowd of long-polls reads through a bounded pool of connections. 400 clients
/// wait at once; the server's open files stay near one per client (its sockets) plus the
/// pool, where one connection per concurrent read (each with its files) used to pile up.
#[test]
fn a_crowd_of_long_polls_opens_no_crowd_of_database_connections() {
    let dir = TempDir::new("queues-crowd");
    let database = helpers::database(Backend::Sqlite, &dir);
    let server = Server::start_with(&database, 0, &["--rate-limit", "0", "--max-connections-per-address", "1000", "--matchmaking-interval-ms", "100"]);
    let (admin, report) = (helpers::key(&database, "admin", None), helpers::key(&database, "report", None));
    let address = server.address.clone();
    assert_eq!(call(&address, "PUT", "/v1/ladders/l", Some(&admin), Some(RULES)).unwrap().0, 201);
    let held = r#"{"mode":"pair","attributes":["room"],"matchmaking":{"initial_distance":400}}"#;
    assert_eq!(call(&address, "PUT", "/v1/ladders/l/queues/q", Some(&admin), Some(held)).unwrap().0, 201);
    let crowd = 400;
    let ids: Vec<String> = (0..crowd)
        .map(|i| {
            let (status, text) =
                call(&address, "POST", "/v1/ladders/l/queues/q/tickets", Some(&report), Some(&format!(r#"{{"players":["p{i}"],"attributes":{{"room":"r{i}"}}}}"#))).unwrap();
            assert_eq!(status, 201, "{text}");
            serde_json::from_str::<Value>(&text).unwrap()["ticket"].as_str().unwrap().to_owned()
        })
        .collect();
    let files = || std::fs::read_dir(format!("/proc/{}/fd", server.pid())).map(|d| d.count()).unwrap_or(0);
    let before = files();
    let waiters: Vec<_> = ids
        .into_iter()
        .map(|id| {
            let (address, report) = (address.clone(), report.clone());
            std::thread::spawn(move || call(&address, "GET", &format!("/v1/ladders/l/queues/q/tickets/{id}?wait=20"), Some(&report), None).unwrap())
        })
        .collect();
    // Every client connected and its first read done (the queue's list answers after them).
    std::thread::sleep(Duration::from_secs(3));
    let waiting = files();
    assert!(waiting < before + crowd + 100, "{waiting} files open with {crowd} long-polls waiting ({before} before)");
    // Opened: every long-poll answers, matched.
    let open = r#"{"mode":"pair","matchmaking":{"initial_distance":400}}"#;
    assert_eq!(call(&address, "PUT", "/v1/ladders/l/queues/q", Some(&admin), Some(open)).unwrap().0, 200);
    for waiter in waiters {
        let (status, text) = waiter.join().unwrap();
        assert_eq!(status, 200, "{text}");
        assert!(text.contains("\"matched\""), "{text}");
    }
    assert!(files() < before + 100, "the pool keeps at most 32 connections: {} files", files());
}
