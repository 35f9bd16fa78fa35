//! Ladders: created once with their rules.

use crate::helpers::{self, Backend, TestApp};
use crate::{RICH_RULES, RULES};

on_both!(ladders_are_created_once_with_their_rules, rules_that_reports_cannot_satisfy_are_refused, ladders_are_listed_and_described_with_their_rules,);

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

fn rules_that_reports_cannot_satisfy_are_refused(backend: Backend) {
    let app = TestApp::spawn(backend);
    // A report carries no member weights: rules that need them would refuse every team
    // match after the ladder exists.
    for (rules, field) in [(r#"{"team_split":"weights"}"#, "team_split"), (r#"{"team_rating":"weighted_mean"}"#, "team_rating")] {
        let (status, body) = app.call("PUT", "/v1/ladders/weighted", &app.admin, Some(rules));
        assert_eq!(status, 422, "{body}");
        assert!(body.contains(field) && body.contains("weights"), "{body}");
    }
    let (status, _) = app.call("GET", "/v1/ladders/weighted/leaderboard", &app.read, None);
    assert_eq!(status, 404, "nothing was created");
    // Names a URL cannot reach are refused wherever a name is taken.
    let (status, body) = app.call("POST", "/v1/ladders/%2E%2E/matches", &app.report, Some(r#"{"id":"m","a":"x","b":"y","score_a":1}"#));
    assert!(status == 422 || status == 404, "{status} {body}");
    app.put_ladder("main", RULES);
    for name in [".", ".."] {
        let body = format!(r#"{{"id":"m","a":"{name}","b":"y","score_a":1}}"#);
        let (status, text) = app.call("POST", "/v1/ladders/main/matches", &app.report, Some(&body));
        assert_eq!(status, 422, "{text}");
        assert!(text.contains("invalid_name"), "{text}");
        let body = format!(r#"{{"id":"{name}","a":"x","b":"y","score_a":1}}"#);
        assert_eq!(app.call("POST", "/v1/ladders/main/matches", &app.report, Some(&body)).0, 422);
    }
}

/// `GET /v1/ladders` lists what the key may see; `GET /v1/ladders/{ladder}` gives the rules
/// a client previews with: `Config::from_json` of them is the server's configuration.
fn ladders_are_listed_and_described_with_their_rules(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("b-rich", RICH_RULES);
    app.put_ladder("a-plain", RULES);
    app.put_ladder("c-empty", RULES);
    for i in 0..3 {
        app.ok("POST", "/v1/ladders/b-rich/matches", &app.report, Some(&format!(r#"{{"id":"m{i}","a":"p{i}","b":"q{i}","score_a":1}}"#)));
    }
    app.ok("POST", "/v1/ladders/a-plain/matches", &app.report, Some(r#"{"id":"x","team_a":["t1","t2"],"team_b":["t3"],"score_a":0.5}"#));
    app.ok("POST", "/v1/ladders/b-rich/seasons/end", &app.admin, Some(r#"{"id":"s1"}"#));
    let list = app.ok("GET", "/v1/ladders", &app.read, None);
    let names: Vec<&str> = list["ladders"].as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["a-plain", "b-rich", "c-empty"]);
    let rich = &list["ladders"][1];
    assert_eq!((rich["players"].as_i64(), rich["season"].as_i64()), (Some(6), Some(2)));
    let journal = helpers::journal(&app, "b-rich");
    assert_eq!(rich["last_seq"].as_i64(), journal.last().unwrap()["seq"].as_i64());
    assert_eq!((list["ladders"][0]["players"].as_i64(), list["ladders"][2]["players"].as_i64(), list["ladders"][2]["last_seq"].as_i64()), (Some(3), Some(0), Some(0)));
    // A key limited to one ladder sees that one.
    let limited = helpers::key(&app.server.database, "read", Some("c-empty"));
    let seen = app.ok("GET", "/v1/ladders", &limited, None);
    assert_eq!(seen["ladders"].as_array().unwrap().len(), 1);
    assert_eq!(seen["ladders"][0]["name"], "c-empty");
    // The description: the rules as a JSON object that is the server's configuration.
    let described = app.ok("GET", "/v1/ladders/b-rich", &app.read, None);
    assert_eq!((described["name"].as_str(), described["players"].as_i64(), described["season"].as_i64()), (Some("b-rich"), Some(6), Some(2)));
    let rules = ranking_elo::Config::from_json(&described["rules"].to_string()).expect("the rules parse");
    let expected = ranking_elo::Config::from_json(RICH_RULES).unwrap();
    assert_eq!(rules.config().to_json(), expected.config().to_json());
    assert_eq!(app.call("GET", "/v1/ladders/b-rich", &limited, None).0, 403);
    assert_eq!(app.call("GET", "/v1/ladders/nope", &app.read, None).0, 404);
}
