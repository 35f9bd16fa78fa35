//! Rules that change at a season end, and schedules the servers run themselves.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{self, call, verify_replay, Backend, Server, TestApp};
use crate::{random_match, Lcg, RICH_RULES};

on_both!(the_next_rules_take_effect_at_the_season_end, a_schedule_runs_once_per_scheduled_time);

const NEXT_RULES: &str = r#"{"k_policy":{"policy":"constant","k":48},"leagues":[{"name":"Open","min_rating":0},{"name":"Elite","min_rating":1520}],"season_reset":{"keep":0.25}}"#;

fn the_next_rules_take_effect_at_the_season_end(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("r", RICH_RULES);
    // Another server that cached the ladder's first rules (PostgreSQL: two servers).
    let second = (backend == Backend::Postgres).then(|| Server::start(&app.server.database, 0, 0));
    let other = second.as_ref().map_or_else(|| app.server.address.clone(), |s| s.address.clone());
    let mut rng = Lcg(8);
    for i in 0..20 {
        let (status, text) = call(&other, "POST", "/v1/ladders/r/matches", Some(&app.report), Some(&random_match(&mut rng, &format!("a{i}"), 8, true))).unwrap();
        assert_eq!(status, 200, "{text}");
    }
    assert_eq!(app.call("PUT", "/v1/ladders/r/next-rules", &app.admin, Some(r#"{"team_split":"weights"}"#)).0, 422);
    assert_eq!(app.call("PUT", "/v1/ladders/r/next-rules", &app.report, Some(NEXT_RULES)).0, 403);
    let set = app.ok("PUT", "/v1/ladders/r/next-rules", &app.admin, Some(NEXT_RULES));
    assert_eq!(set["next_rules"]["k_policy"]["k"].as_f64(), Some(48.0));
    let described = app.ok("GET", "/v1/ladders/r", &app.read, None);
    assert_eq!(described["next_rules"]["k_policy"]["k"].as_f64(), Some(48.0));
    assert_eq!(described["rules"]["k_policy"]["policy"], "fide", "still the first season's");
    let ended = app.ok("POST", "/v1/ladders/r/seasons/end", &app.admin, Some(r#"{"id":"s1"}"#));
    assert_eq!(ended["rules_changed"], Value::Bool(true));
    let described = app.ok("GET", "/v1/ladders/r", &app.read, None);
    assert_eq!((described["rules"]["k_policy"]["k"].as_f64(), described["next_rules"].is_null(), described["season"].as_i64()), (Some(48.0), true, Some(2)));
    // The other server rates the next matches with the new rules at once.
    for i in 0..20 {
        let (status, text) = call(&other, "POST", "/v1/ladders/r/matches", Some(&app.report), Some(&random_match(&mut rng, &format!("b{i}"), 8, true))).unwrap();
        assert_eq!(status, 200, "{text}");
    }
    let journal = helpers::journal(&app, "r");
    let end = journal.iter().find(|e| e["kind"] == "season_end").unwrap();
    assert_eq!(end["inputs"]["next_rules"]["k_policy"]["k"].as_f64(), Some(48.0), "the journal keeps the rules brought in");
    verify_replay(&app, "r", RICH_RULES);
    // A zero-sum total brought in at the next season end.
    app.ok("PUT", "/v1/ladders/r/next-rules", &app.admin, Some(r#"{"zero_sum_total":12000,"k_policy":{"policy":"constant","k":32}}"#));
    app.ok("POST", "/v1/ladders/r/seasons/end", &app.admin, Some(r#"{"id":"s2"}"#));
    // Reads show the new offset at once (they once applied a cached ladder's rules, which
    // had no total, so every rating read 1/16 high until the server restarted).
    verify_replay(&app, "r", RICH_RULES);
    // The other server's cache still has the old rules (no total): its reports are rebound
    // to the rules now in force and applied, never answered 503.
    for i in 0..20 {
        let (status, text) = call(&other, "POST", "/v1/ladders/r/matches", Some(&app.report), Some(&random_match(&mut rng, &format!("c{i}"), 8, false))).unwrap();
        assert_eq!(status, 200, "{text}");
    }
    let replay = verify_replay(&app, "r", RICH_RULES);
    assert!((replay.pool.total() - 12000.0).abs() < 1e-6, "{}", replay.pool.total());
    // And dropped again: the offset folds into the stored ratings, reads add nothing.
    app.ok("PUT", "/v1/ladders/r/next-rules", &app.admin, Some(r#"{"k_policy":{"policy":"constant","k":24}}"#));
    app.ok("POST", "/v1/ladders/r/seasons/end", &app.admin, Some(r#"{"id":"s3"}"#));
    for i in 0..10 {
        let (status, text) = call(&other, "POST", "/v1/ladders/r/matches", Some(&app.report), Some(&random_match(&mut rng, &format!("d{i}"), 8, true))).unwrap();
        assert_eq!(status, 200, "{text}");
    }
    let replay = verify_replay(&app, "r", RICH_RULES);
    assert!(replay.pool.rules().config().zero_sum_total.is_none());
    drop(second);
}

/// A due season end (its next time set in the past, as after downtime) runs once, records
/// its scheduled time, and the next time moves on; with two servers on PostgreSQL too.
fn a_schedule_runs_once_per_scheduled_time(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("sched", RICH_RULES);
    let second = (backend == Backend::Postgres).then(|| Server::start(&app.server.database, 0, 0));
    let mut rng = Lcg(9);
    for i in 0..10 {
        app.ok("POST", "/v1/ladders/sched/matches", &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 6, false)));
    }
    for (body, needle) in [(r#"{"season_end":"61 * * * *"}"#, "minute"), (r#"{"season_end":"* * *"}"#, "five fields"), (r#"{"season_end":"0 0 31 2 *"}"#, "no time")] {
        let (status, text) = app.call("PUT", "/v1/ladders/sched/schedule", &app.admin, Some(body));
        assert_eq!(status, 422, "{text}");
        assert!(text.contains(needle), "{text}");
    }
    assert_eq!(app.call("PUT", "/v1/ladders/sched/schedule", &app.admin, Some(r#"{"season_end":"0 0 1 * *","weekly":"x"}"#)).0, 400);
    let set = app.ok("PUT", "/v1/ladders/sched/schedule", &app.admin, Some(r#"{"season_end":"0 0 1 * *","decay":null}"#));
    let first_next = set["next"]["season_end"].as_f64().unwrap();
    assert!(first_next > 1.7e9 && first_next % 86_400.0 == 0.0, "{set}");
    let described = app.ok("GET", "/v1/ladders/sched", &app.read, None);
    assert_eq!((described["schedule"]["season_end"].as_str(), described["next"]["season_end"].as_f64()), (Some("0 0 1 * *"), Some(first_next)));
    // Overdue (the servers were down when it came): run once at the next look.
    let overdue = 1_767_225_600.0; // 2026-01-01 00:00 UTC
    set_next_season_end(&app, backend, overdue);
    let started = Instant::now();
    let entry = loop {
        let ends = app.ok("GET", "/v1/ladders/sched/matches?kind=season_end", &app.read, None);
        if let Some(entry) = ends["entries"].as_array().unwrap().first() {
            break entry.clone();
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the scheduled season end never ran");
        std::thread::sleep(Duration::from_millis(100));
    };
    // Every first of the month since then folds into one season end, for the latest of them
    // (one soft reset, not one per missed month), and the next time is in the future.
    let scheduled = entry["inputs"]["scheduled"].as_f64().unwrap();
    let now = crate::now();
    assert!(scheduled <= now && scheduled > now - 31.0 * 86_400.0 && scheduled % 86_400.0 == 0.0, "{entry}");
    assert_eq!(entry["id"].as_str(), Some(format!("scheduled/season_end/{}", scheduled as i64).as_str()));
    let months = entry["inputs"]["missed"].as_u64().unwrap();
    assert_eq!(months, ((scheduled - overdue) / (30.436_875 * 86_400.0)).round() as u64, "the months passed over: {entry}");
    let started = Instant::now();
    loop {
        let next = app.ok("GET", "/v1/ladders/sched", &app.read, None)["next"]["season_end"].as_f64().unwrap();
        if next > scheduled {
            assert!(next > crate::now() && next < crate::now() + 31.0 * 86_400.0, "{next}");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the schedule did not move on");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(2));
    let ends = helpers::journal(&app, "sched").into_iter().filter(|e| e["kind"] == "season_end").count();
    assert_eq!(ends, 1, "once, however many servers and missed times");
    verify_replay(&app, "sched", RICH_RULES);
    drop(second);
}

/// Moves a ladder's next scheduled season end, as downtime would leave it.
pub fn set_next_season_end(app: &TestApp, backend: Backend, at: f64) {
    let sql = format!("UPDATE ladders SET next_season_end = {at} WHERE name = 'sched'");
    match backend {
        Backend::Sqlite => {
            let connection = rusqlite::Connection::open(helpers::sqlite_file(&app.server.database)).unwrap();
            connection.busy_timeout(Duration::from_secs(10)).unwrap();
            connection.execute(&sql, []).unwrap();
        }
        Backend::Postgres => {
            helpers::psql_query(&app.server.database, &sql);
        }
    }
}
