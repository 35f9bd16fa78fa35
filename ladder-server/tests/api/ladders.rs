//! Ladders: created once with their rules.

use crate::helpers::{Backend, TestApp};
use crate::RULES;

on_both!(
    ladders_are_created_once_with_their_rules,
    rules_that_reports_cannot_satisfy_are_refused,
);

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
