//! Provisional players (the ladder option `provisional_games`): a player with fewer games is
//! marked provisional in every read, left out of the leaderboard, of everybody's ranks, of
//! the lines around a player and of a friends board unless the read asks for them
//! (`?provisional=include`); the rank counts follow the games played, a change of the
//! option, a season end, and `elo-ladder verify` finds them exact.

use serde_json::Value;

use crate::helpers::{self, Backend, TestApp};
use crate::RULES;

on_both!(provisional_players_are_left_out_until_they_have_played_enough);

fn board(app: &TestApp, query: &str) -> Vec<Value> {
    app.ok("GET", &format!("/v1/ladders/l/leaderboard?limit=1000{query}"), &app.read, None)["entries"].as_array().expect("entries").clone()
}

fn names(lines: &[Value]) -> Vec<String> {
    lines.iter().map(|l| l["player"].as_str().expect("a name").to_owned()).collect()
}

/// Every line's rank is its place, each player's own rank agrees, and deep pages are the
/// board's slices (the bucket walk), in the board of `query`.
fn check_board(app: &TestApp, query: &str) -> Vec<Value> {
    let lines = board(app, query);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["rank"].as_u64(), Some(i as u64 + 1), "{query}: {line}");
        let name = line["player"].as_str().expect("a name");
        let path = if query.is_empty() { format!("/v1/ladders/l/players/{name}") } else { format!("/v1/ladders/l/players/{name}?{}", &query[1..]) };
        let alone = app.ok("GET", &path, &app.read, None);
        assert_eq!(alone["rank"], line["rank"], "{query}: {name}'s own rank");
    }
    for offset in [1, 3, 7] {
        let page = app.ok("GET", &format!("/v1/ladders/l/leaderboard?limit=3&offset={offset}{query}"), &app.read, None)["entries"].as_array().expect("entries").clone();
        let expected: Vec<Value> = lines.iter().skip(offset).take(3).cloned().collect();
        assert_eq!(page, expected, "{query}: the page at offset {offset}");
    }
    lines
}

fn provisional_players_are_left_out_until_they_have_played_enough(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("l", RULES);
    // Eight veterans with six games or more; three newcomers with one, two and four games.
    let mut rng = crate::Lcg(5);
    let mut id = 0;
    let mut report = |a: &str, b: &str, score: &str| {
        id += 1;
        app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&format!(r#"{{"id":"m{id}","a":"{a}","b":"{b}","score_a":{score}}}"#)));
    };
    for round in 0..6 {
        for v in 0..8 {
            let other = (v + 1 + round) % 8;
            let score = ["1", "0", "0.5"][rng.below(3) as usize];
            report(&format!("vet{v}"), &format!("vet{other}"), score);
        }
    }
    report("new1", "vet0", "1");
    report("new2", "vet1", "1");
    report("new2", "vet2", "1");
    for v in 3..7 {
        report("new4", &format!("vet{v}"), "0");
    }
    let everybody = check_board(&app, "");
    assert_eq!(everybody.len(), 11, "no option: nobody is provisional");

    // A threshold of five games.
    let (status, text) = app.call("PUT", "/v1/ladders/l/options", &app.admin, Some(r#"{"provisional_games":10001}"#));
    assert_eq!(status, 422, "{text}");
    app.ok("PUT", "/v1/ladders/l/options", &app.admin, Some(r#"{"provisional_games":5}"#));
    let settled = check_board(&app, "");
    assert_eq!(names(&settled).iter().filter(|n| n.starts_with("new")).count(), 0, "{settled:?}");
    assert_eq!(settled.len(), 8);
    assert!(settled.iter().all(|l| l.get("provisional").is_none()));
    let included = check_board(&app, "&provisional=include");
    assert_eq!(included.len(), 11);
    let marked: Vec<String> = names(&included.iter().filter(|l| l["provisional"] == Value::Bool(true)).cloned().collect::<Vec<_>>());
    let mut marked_sorted = marked.clone();
    marked_sorted.sort();
    assert_eq!(marked_sorted, ["new1", "new2", "new4"]);
    // The settled board is the full board without them, ranks closing up.
    let without: Vec<String> = names(&included).into_iter().filter(|n| !n.starts_with("new")).collect();
    assert_eq!(names(&settled), without);

    // A provisional player: marked, no rank unless asked; not centred on.
    let new1 = app.ok("GET", "/v1/ladders/l/players/new1", &app.read, None);
    assert_eq!(new1["provisional"], Value::Bool(true));
    assert!(new1.get("rank").is_none(), "{new1}");
    let new1_included = app.ok("GET", "/v1/ladders/l/players/new1?provisional=include", &app.read, None);
    assert!(new1_included["rank"].as_u64().is_some());
    let (status, text) = app.call("GET", "/v1/ladders/l/leaderboard?around=new1", &app.read, None);
    assert_eq!(status, 409, "{text}");
    assert!(text.contains("provisional_player") && text.contains("1 of the ladder's 5 games"), "{text}");
    let around = app.ok("GET", "/v1/ladders/l/leaderboard?around=vet3&limit=5", &app.read, None)["entries"].as_array().expect("entries").clone();
    let at = settled.iter().position(|l| l["player"] == "vet3").expect("vet3 on the board");
    let expected: Vec<Value> = settled[at.saturating_sub(2)..(at + 3).min(settled.len())].to_vec();
    assert_eq!(around, expected, "around a settled player: the settled board's slice");
    let around = app.ok("GET", "/v1/ladders/l/leaderboard?around=new1&limit=3&provisional=include", &app.read, None)["entries"].as_array().expect("entries").clone();
    let at = included.iter().position(|l| l["player"] == "new1").expect("new1");
    assert_eq!(around, included[at.saturating_sub(1)..(at + 2).min(included.len())].to_vec());

    // A friends board names the provisional friends apart.
    let friends = app.ok("POST", "/v1/ladders/l/leaderboard/of", &app.read, Some(r#"{"players":["new2","vet5","vet0","ghost"]}"#));
    assert_eq!(friends["provisional"], serde_json::json!(["new2"]));
    assert_eq!(friends["unknown"], serde_json::json!(["ghost"]));
    for line in friends["entries"].as_array().expect("entries") {
        assert_eq!(settled[line["rank"].as_u64().expect("rank") as usize - 1], *line);
    }
    let friends = app.ok("POST", "/v1/ladders/l/leaderboard/of?provisional=include", &app.read, Some(r#"{"players":["new2","vet5"]}"#));
    assert!(friends.get("provisional").is_none());
    for line in friends["entries"].as_array().expect("entries") {
        assert_eq!(included[line["rank"].as_u64().expect("rank") as usize - 1], *line);
    }
    helpers::verify_database(&app.server.database, "l");

    // new4 plays a fifth game: settled, on the board.
    report("new4", "vet7", "1");
    let settled = check_board(&app, "");
    assert_eq!(settled.len(), 9);
    assert!(names(&settled).contains(&"new4".to_owned()));
    helpers::verify_database(&app.server.database, "l");

    // A season end (bulk writes of every player) keeps the counts; a lower threshold takes
    // new2 in, 0 takes everybody, a huge one leaves the board empty.
    app.ok("POST", "/v1/ladders/l/seasons/end", &app.admin, Some(r#"{"id":"s1"}"#));
    helpers::verify_database(&app.server.database, "l");
    check_board(&app, "");
    for (threshold, on_board) in [(2, 10), (0, 11), (10_000, 0)] {
        app.ok("PUT", "/v1/ladders/l/options", &app.admin, Some(&format!(r#"{{"provisional_games":{threshold}}}"#)));
        assert_eq!(check_board(&app, "").len(), on_board, "provisional_games {threshold}");
        assert_eq!(check_board(&app, "&provisional=include").len(), 11);
        helpers::verify_database(&app.server.database, "l");
    }
    let (status, text) = app.call("GET", "/v1/ladders/l/leaderboard?provisional=maybe", &app.read, None);
    assert_eq!(status, 400, "{text}");
}
