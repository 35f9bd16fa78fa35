//! The ladder server's suite, run against the real `elo-ladder` binary on SQLite and on a
//! private PostgreSQL cluster (one binary: every test binary is linked with the release
//! profile's fat LTO). Each test gets a fresh database.

mod faults;
mod helpers;

use helpers::{call, call_with_headers, verify_replay, Backend, TestApp};
use serde_json::Value;

/// Declares each test once per database.
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(#[test] fn $name() { super::$name(super::Backend::Sqlite) })*
        }
        mod postgres {
            $(#[test] fn $name() { super::$name(super::Backend::Postgres) })*
        }
    };
}

on_both!(
    ladders_are_created_once_with_their_rules,
    matches_of_every_shape_are_rated_once_per_id,
    bad_input_gets_a_clear_4xx_and_changes_nothing,
    keys_have_scopes_ladders_and_can_be_revoked,
    the_rate_limit_answers_429,
    the_journal_replays_to_every_stored_state_bit_for_bit,
    zero_sum_ladders_keep_their_total_through_one_row,
    leaderboard_pages_and_ranks,
    concurrent_reporters_lose_no_update,
    kill_9_in_the_middle_loses_no_acknowledged_match,
);

const RULES: &str = r#"{"k_policy":{"policy":"constant","k":32}}"#;

fn ladders_are_created_once_with_their_rules(backend: Backend) {
    let app = TestApp::spawn(backend);
    assert_eq!(app.call("GET", "/healthz", &app.read, None), (200, r#"{"status":"ok"}"#.into()));
    let put = |body: &str| app.call("PUT", "/v1/ladders/ranked", &app.admin, Some(body));
    assert_eq!(put(RULES).0, 201);
    // The same rules, written differently (defaults spelled out): 200.
    assert_eq!(put(r#"{"k_policy":{"policy":"constant","k":32.0},"initial_rating":1500}"#).0, 200);
    let (status, body) = put(r#"{"k_policy":{"policy":"constant","k":24}}"#);
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("ladder_rules_differ"));
    let (status, body) = put(r#"{"k_policy":{"policy":"constant","k":-1}}"#);
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("k_policy.k"), "{body}");
    assert_eq!(put("{not json").0, 400);
    assert_eq!(put(r#"{"k_polcy":{}}"#).0, 422);
    // Still the first rules.
    let report = app.ok("POST", "/v1/ladders/ranked/matches", &app.report, Some(r#"{"id":"m1","a":"x","b":"y","score_a":1}"#));
    assert_eq!(report["players"][0]["rating"].as_f64(), Some(1516.0));
}

fn matches_of_every_shape_are_rated_once_per_id(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("main", RULES);
    let post = |body: &str| app.call("POST", "/v1/ladders/main/matches", &app.report, Some(body));
    let pair = r#"{"id": "m-1", "a": "alice", "b": "bob", "score_a": 1}"#;
    let (status, first) = post(pair);
    assert_eq!(status, 200, "{first}");
    let answer: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(answer["seq"].as_i64().map(|s| s > 0), Some(true));
    assert_eq!(answer["players"][0]["player"], "alice");
    assert_eq!(answer["players"][0]["rating"].as_f64(), Some(1516.0));
    assert_eq!(answer["players"][1]["rating"].as_f64(), Some(1484.0));
    assert_eq!(answer["players"][1]["games_played"].as_u64(), Some(1));
    assert_eq!(answer["players"][1]["league"].as_u64(), Some(0));
    // A retry, even formatted differently, gets the same answer; nothing is applied twice.
    assert_eq!(post(r#"{"score_a":1.0,"b":"bob","a":"alice","id":"m-1"}"#), (200, first.clone()));
    let (status, body) = post(r#"{"id": "m-1", "a": "alice", "b": "bob", "score_a": 0}"#);
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("match_id_reused"));
    let alice = app.ok("GET", "/v1/ladders/main/players/alice", &app.read, None);
    assert_eq!((alice["rating"].as_f64(), alice["games_played"].as_u64(), alice["rank"].as_i64()), (Some(1516.0), Some(1), Some(1)));

    let team = app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(r#"{"id":"m-2","team_a":["alice","carol"],"team_b":["bob","dave"],"score_a":0.5}"#));
    assert_eq!(team["players"].as_array().map(Vec::len), Some(4));
    assert_eq!(team["players"][1]["player"], "carol");
    let ffa = app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(r#"{"id":"m-3","entrants":["e1","e2","e3","e4"],"places":[1,2,2,4]}"#));
    // docs/teams.md's worked example: four at 1500 finishing 1, 2, 2, 4.
    let ratings: Vec<f64> = ffa["players"].as_array().unwrap().iter().map(|p| p["rating"].as_f64().unwrap()).collect();
    assert_eq!(ratings, vec![1516.0, 1500.0, 1500.0, 1484.0]);
    assert!(ffa["seq"].as_i64() > team["seq"].as_i64());

    let journal = helpers::journal_page(&app, "main", 0, 2);
    let entries = journal["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!((entries[0]["id"].as_str(), entries[0]["kind"].as_str()), (Some("m-1"), Some("pair")));
    assert_eq!(entries[0]["joined"], serde_json::json!(["alice", "bob"]));
    assert_eq!(entries[0]["results"], answer["players"]);
    assert!(entries[0]["time"].as_f64().unwrap() > 1.7e9);
    let after = entries[1]["seq"].as_i64().unwrap();
    let rest = helpers::journal_page(&app, "main", after, 100);
    assert_eq!(rest["entries"][0]["kind"], "free_for_all");
    assert_eq!(rest["entries"].as_array().map(Vec::len), Some(1));
    verify_replay(&app, "main", RULES);
}

fn bad_input_gets_a_clear_4xx_and_changes_nothing(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("main", RULES);
    let post = |body: &str| app.call("POST", "/v1/ladders/main/matches", &app.report, Some(body));
    let team = |n: usize| format!(r#"{{"id":"t","team_a":[{}],"team_b":["z"],"score_a":1}}"#, (0..n).map(|i| format!("\"p{i}\"")).collect::<Vec<_>>().join(","));
    let cases: Vec<(String, u16, &str)> = vec![
        (r#"{"id":"m","a":"x","b":"y","score_a":2}"#.into(), 422, "score_a"),
        (r#"{"id":"m","a":"x","b":"x","score_a":1}"#.into(), 422, "twice"),
        (r#"{"id":"m","team_a":["x","y"],"team_b":["z","x"],"score_a":1}"#.into(), 422, "twice"),
        (team(65), 422, "65 players"),
        (r#"{"id":"m","entrants":["x"],"places":[1]}"#.into(), 422, "entrants"),
        (r#"{"id":"m","entrants":["x","y"],"places":[1,3]}"#.into(), 422, "places[1]"),
        (r#"{"id":"m","entrants":["x","y"],"places":[1]}"#.into(), 422, "places"),
        (r#"{"id":"m","a":"x","b":"y"}"#.into(), 422, "score_a is required"),
        (r#"{"id":"m","a":"x","b":"y","score_a":1,"places":[1,2]}"#.into(), 422, "other fields"),
        (r#"{"id":"m","a":"x y","b":"y","score_a":1}"#.into(), 422, "invalid_name"),
        (format!(r#"{{"id":"{}","a":"x","b":"y","score_a":1}}"#, "i".repeat(65)), 422, "invalid_name"),
        (r#"{"id":"m","a":"x","b":"y","score_a":1,"extra":1}"#.into(), 400, "unknown field"),
        (r#"{"id":"m","a":"x","b":"y","score_a":"1"}"#.into(), 400, "invalid type"),
        ("[1,2]".into(), 400, "bad_request"),
        ("{".into(), 400, "bad_request"),
    ];
    for (body, status, needle) in &cases {
        let (got, text) = post(body);
        assert_eq!(got, *status, "{body}: {text}");
        assert!(text.contains(needle), "{body}: {text} lacks {needle:?}");
        let error: Value = serde_json::from_str(&text).unwrap();
        assert!(error["error"]["code"].is_string() && error["error"]["message"].is_string(), "{text}");
    }
    let huge = format!(r#"{{"id":"m","a":"x","b":"y","score_a":1,"pad":"{}"}}"#, "p".repeat(70_000));
    let (status, text) = post(&huge);
    assert_eq!(status, 413, "{text}");
    let (status, text) = app.call("POST", "/v1/ladders/nope/matches", &app.report, Some(r#"{"id":"m","a":"x","b":"y","score_a":1}"#));
    assert_eq!(status, 404, "{text}");
    assert!(text.contains("unknown_ladder"));
    assert_eq!(app.call("GET", "/v1/ladders/main/players/ghost", &app.read, None).0, 404);
    assert_eq!(app.call("GET", "/v1/ladders/main/leaderboard?limit=0", &app.read, None).0, 400);
    assert_eq!(app.call("GET", "/v1/ladders/main/leaderboard?limit=x", &app.read, None).0, 400);
    assert_eq!(app.call("GET", "/v1/nothing", &app.read, None).0, 404);
    // Nothing was stored by any of them.
    assert_eq!(app.ok("GET", "/v1/ladders/main/leaderboard", &app.read, None)["entries"], serde_json::json!([]));
    assert_eq!(app.ok("GET", "/v1/ladders/main/matches", &app.read, None)["entries"], serde_json::json!([]));
}

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

/// A configuration exercising every state the engine keeps.
pub const RICH_RULES: &str = r#"{"k_policy":{"policy":"fide"},"streak_alpha":0.2,"rounding":"half_away_from_zero",
    "leagues":[{"name":"Bronze","min_rating":0,"k":40},{"name":"Silver","min_rating":1500,"k":30},{"name":"Gold","min_rating":1560,"k":20}],
    "demotion_margin":10,"protected_games":2,"season_reset":{"keep":0.5},"decay":{"grace_days":0,"points_per_day":1000000}}"#;

/// A small deterministic random sequence.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// A random match body with id `id` over players `p0..p{players}`.
pub fn random_match(rng: &mut Lcg, id: &str, players: u64, teams: bool) -> String {
    fn pick(rng: &mut Lcg, players: u64, count: usize) -> Vec<String> {
        let mut chosen: Vec<u64> = Vec::new();
        while chosen.len() < count {
            let p = rng.below(players);
            if !chosen.contains(&p) {
                chosen.push(p);
            }
        }
        chosen.iter().map(|p| format!("\"p{p}\"")).collect::<Vec<_>>()
    }
    let kind = rng.below(if teams { 3 } else { 2 });
    let score = ["1", "0", "0.5", "0.75"][rng.below(4) as usize];
    match kind {
        0 => {
            let p = pick(rng, players, 2);
            format!(r#"{{"id":"{id}","a":{},"b":{},"score_a":{score}}}"#, p[0], p[1])
        }
        1 => {
            let n = 2 + rng.below(4) as usize;
            let places: Vec<String> = (0..n).map(|_| (1 + rng.below(n as u64)).to_string()).collect();
            let mut places = places;
            places[0] = "1".into();
            format!(r#"{{"id":"{id}","entrants":[{}],"places":[{}]}}"#, pick(rng, players, n).join(","), places.join(","))
        }
        _ => {
            let p = pick(rng, players, 4);
            format!(r#"{{"id":"{id}","team_a":[{},{}],"team_b":[{},{}],"score_a":{score}}}"#, p[0], p[1], p[2], p[3])
        }
    }
}

fn the_journal_replays_to_every_stored_state_bit_for_bit(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("rich", RICH_RULES);
    let mut rng = Lcg(7);
    for i in 0..120 {
        if i == 60 {
            app.ok("POST", "/v1/ladders/rich/seasons/end", &app.admin, None);
        }
        if i == 90 {
            let decay = app.ok("POST", "/v1/ladders/rich/decay", &app.admin, None);
            assert!(decay["moved"].as_u64().is_some(), "{decay}");
        }
        let body = random_match(&mut rng, &format!("m{i}"), 12, true);
        app.ok("POST", "/v1/ladders/rich/matches", &app.report, Some(&body));
    }
    let season = app.ok("POST", "/v1/ladders/rich/seasons/end", &app.admin, None);
    assert_eq!(season["records"].as_array().map(Vec::len), Some(12));
    assert_eq!(season["leagues"], serde_json::json!(["Bronze", "Silver", "Gold"]));
    let replay = verify_replay(&app, "rich", RICH_RULES);
    assert_eq!((replay.entries, replay.players), (123, 12));
    // The leaderboard is the engine pool's order.
    let board = app.ok("GET", "/v1/ladders/rich/leaderboard?limit=12", &app.read, None);
    let served: Vec<String> = board["entries"].as_array().unwrap().iter().map(|e| e["player"].as_str().unwrap().to_owned()).collect();
    let mut by_index: Vec<(&String, &usize)> = replay.index.iter().collect();
    by_index.sort_by_key(|(_, i)| **i);
    let engine: Vec<String> = replay.pool.top(12).iter().map(|i| by_index[*i].0.clone()).collect();
    assert_eq!(served, engine);
}

fn zero_sum_ladders_keep_their_total_through_one_row(backend: Backend) {
    let config = r#"{"zero_sum_total":6000,"k_policy":{"policy":"constant","k":32}}"#;
    let app = TestApp::spawn(backend);
    app.put_ladder("zs", config);
    // issue 18's example: four players at 1500 (T 6000), 2v2, team A wins: the rule gives
    // 1516, 1516, 1484, 1484 and the total is unchanged, so nobody is shifted.
    let team = app.ok("POST", "/v1/ladders/zs/matches", &app.report, Some(r#"{"id":"t1","team_a":["a","b"],"team_b":["c","d"],"score_a":1}"#));
    let ratings: Vec<f64> = team["players"].as_array().unwrap().iter().map(|p| p["rating"].as_f64().unwrap()).collect();
    assert_eq!(ratings, vec![1516.0, 1516.0, 1484.0, 1484.0]);
    for (name, rating) in [("a", 1516.0), ("d", 1484.0)] {
        assert_eq!(app.ok("GET", &format!("/v1/ladders/zs/players/{name}"), &app.read, None)["rating"].as_f64(), Some(rating));
    }
    // Pairs and free-for-alls on a second zero-sum ladder replay through the engine's pool.
    let config = r#"{"zero_sum_total":1000,"k_policy":{"policy":"constant","k":32},"streak_alpha":0.1}"#;
    app.put_ladder("zs2", config);
    let mut rng = Lcg(11);
    for i in 0..80 {
        app.ok("POST", "/v1/ladders/zs2/matches", &app.report, Some(&random_match(&mut rng, &format!("z{i}"), 10, false)));
    }
    let replay = verify_replay(&app, "zs2", config);
    assert!((replay.pool.total() - 1000.0).abs() < 1e-6, "{}", replay.pool.total());
    let board = app.ok("GET", "/v1/ladders/zs2/leaderboard", &app.read, None);
    let total: f64 = board["entries"].as_array().unwrap().iter().map(|e| e["rating"].as_f64().unwrap()).sum();
    assert!((total - 1000.0).abs() < 1e-2, "{total}");
}

fn leaderboard_pages_and_ranks(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("main", RULES);
    for i in 0..6 {
        // p0 beats everybody once, p1 all but p0, …: the order is p0, p1, …
        for j in i + 1..6 {
            app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(&format!(r#"{{"id":"m{i}-{j}","a":"p{i}","b":"p{j}","score_a":1}}"#)));
        }
    }
    let page = app.ok("GET", "/v1/ladders/main/leaderboard?limit=2&offset=2", &app.read, None);
    let entries = page["entries"].as_array().unwrap();
    assert_eq!((entries[0]["rank"].as_i64(), entries[0]["player"].as_str()), (Some(3), Some("p2")));
    assert_eq!((entries[1]["rank"].as_i64(), entries[1]["player"].as_str()), (Some(4), Some("p3")));
    assert!(entries[0]["rating"].as_f64() > entries[1]["rating"].as_f64());
    assert!(entries[0]["league"].is_u64());
    assert_eq!(app.ok("GET", "/v1/ladders/main/players/p4", &app.read, None)["rank"].as_i64(), Some(5));
}

fn concurrent_reporters_lose_no_update(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("busy", RULES);
    let address = app.server.address.clone();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (address, key) = (address.clone(), app.report.clone());
            std::thread::spawn(move || {
                let mut rng = Lcg(100 + t);
                for i in 0..40 {
                    let body = random_match(&mut rng, &format!("c{t}-{i}"), 6, true);
                    let (status, text) = call(&address, "POST", "/v1/ladders/busy/matches", Some(&key), Some(&body)).expect("reachable");
                    assert_eq!(status, 200, "{text}");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("reporter");
    }
    let replay = verify_replay(&app, "busy", RULES);
    assert_eq!(replay.entries, 320);
    let games: u32 = (0..replay.pool.len()).map(|i| replay.pool.player(i).unwrap().games_played).sum();
    let served: u64 = replay.index.keys().map(|name| app.ok("GET", &format!("/v1/ladders/busy/players/{name}"), &app.read, None)["games_played"].as_u64().unwrap()).sum();
    assert_eq!(u64::from(games), served);
}

fn kill_9_in_the_middle_loses_no_acknowledged_match(backend: Backend) {
    faults::kill_9_in_the_middle(backend);
}

#[test]
fn postgres_two_instances_share_one_ladder() {
    faults::two_instances(Backend::Postgres);
}

#[test]
fn postgres_journal_shows_an_entry_only_after_every_lower_seq_has_committed() {
    faults::journal_horizon();
}

#[test]
fn serve_starts_on_sqlite_with_the_default_database() {
    let dir = helpers::TempDir::new("default");
    let mut child = std::process::Command::new(helpers::binary())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .current_dir(&dir.0)
        .stdout(std::process::Stdio::piped())
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
