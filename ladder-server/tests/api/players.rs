//! Players and leaderboards.

use serde_json::Value;

use crate::helpers::{self, call, Backend, Server, TestApp};
use crate::RULES;

on_both!(
    leaderboard_pages_and_ranks,
    ties_follow_the_journals_joining_order,
    around_a_player_and_history,
    an_erased_player_leaves_no_name_behind,
    a_friends_board_has_each_players_rank_on_the_whole_board,
);

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

/// Players tied on rating are ranked by joining order, which is the journal's: in `seq`
/// order, each entry's `joined` list in its order. 240 new players join in draws (everybody
/// stays at 1500) from eight reporters, on PostgreSQL through two servers; the leaderboard
/// must list them exactly in the journal's joining order, as a replayed pool would.
fn ties_follow_the_journals_joining_order(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("ties", RULES);
    let second = (backend == Backend::Postgres).then(|| Server::start(&app.server.database, 0, 0));
    let addresses: Vec<String> = std::iter::once(app.server.address.clone()).chain(second.iter().map(|s| s.address.clone())).collect();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (address, key) = (addresses[t % addresses.len()].clone(), app.report.clone());
            std::thread::spawn(move || {
                for i in 0..15 {
                    // Names whose byte order differs from any collation's: case and digits.
                    let (a, b) = (format!("T{t}-{i}-b"), format!("t{t}-{i}-A"));
                    let body = format!(r#"{{"id":"d{t}-{i}","a":"{a}","b":"{b}","score_a":0.5}}"#);
                    let (status, text) = call(&address, "POST", "/v1/ladders/ties/matches", Some(&key), Some(&body)).expect("reachable");
                    assert_eq!(status, 200, "{text}");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("reporter");
    }
    let joined: Vec<String> =
        helpers::journal(&app, "ties").iter().flat_map(|e| e["joined"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_owned()).collect::<Vec<_>>()).collect();
    assert_eq!(joined.len(), 240);
    let board = app.ok("GET", "/v1/ladders/ties/leaderboard?limit=1000", &app.read, None);
    let ranked: Vec<String> = board["entries"].as_array().unwrap().iter().map(|e| e["player"].as_str().unwrap().to_owned()).collect();
    assert!(board["entries"].as_array().unwrap().iter().all(|e| e["rating"].as_f64() == Some(1500.0)), "all tied");
    let first_difference = ranked.iter().zip(&joined).position(|(r, j)| r != j);
    assert_eq!(first_difference, None, "leaderboard {:?} vs joining order {:?}", &ranked[..8], &joined[..8]);
    // Each match's new players joined in byte order of their names (the `joined` list).
    for entry in helpers::journal(&app, "ties") {
        let names: Vec<&str> = entry["joined"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
    }
    let rank = app.ok("GET", &format!("/v1/ladders/ties/players/{}", joined[17]), &app.read, None);
    assert_eq!(rank["rank"].as_i64(), Some(18));
    drop(second);
}

/// `around` gives the lines centred on a player with the ranks `offset` pages give; a
/// player's history lists their entries newest first, each rating after equal to the next
/// one's rating before, paged by `before`.
fn around_a_player_and_history(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("main", crate::RICH_RULES);
    let mut rng = crate::Lcg(21);
    for i in 0..60 {
        app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(&crate::random_match(&mut rng, &format!("m{i}"), 15, true)));
        if i == 30 {
            app.ok("POST", "/v1/ladders/main/seasons/end", &app.admin, Some(r#"{"id":"s"}"#));
        }
    }
    let board = app.ok("GET", "/v1/ladders/main/leaderboard?limit=1000", &app.read, None)["entries"].as_array().unwrap().clone();
    assert_eq!(board.len(), 15);
    for (i, line) in board.iter().enumerate() {
        let player = line["player"].as_str().unwrap();
        let around = app.ok("GET", &format!("/v1/ladders/main/leaderboard?around={player}&limit=5"), &app.read, None)["entries"].as_array().unwrap().clone();
        let start = i.saturating_sub(2);
        let expected = &board[start..(i + 3).min(board.len())];
        assert_eq!(around, expected, "around {player} (rank {})", i + 1);
    }
    assert_eq!(app.call("GET", "/v1/ladders/main/leaderboard?around=ghost", &app.read, None).0, 404);
    assert_eq!(app.call("GET", "/v1/ladders/main/leaderboard?around=p1&offset=3", &app.read, None).0, 400);
    // History.
    let journal = helpers::journal(&app, "main");
    for line in &board {
        let player = line["player"].as_str().unwrap();
        let mut entries = Vec::new();
        let mut query = String::new();
        loop {
            let page = app.ok("GET", &format!("/v1/ladders/main/players/{player}/matches?limit=4{query}"), &app.read, None);
            entries.extend(page["entries"].as_array().unwrap().clone());
            match page["before"].as_i64() {
                Some(before) => query = format!("&before={before}"),
                None => break,
            }
        }
        let seqs: Vec<i64> = entries.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
        assert!(seqs.windows(2).all(|w| w[0] > w[1]), "newest first: {seqs:?}");
        // Every match the player played is there, with the journal's result.
        let played: Vec<&serde_json::Value> = journal.iter().filter(|e| e["results"].as_array().is_some_and(|r| r.iter().any(|p| p["player"] == player))).collect();
        for entry in &played {
            let line = entries.iter().find(|e| e["seq"] == entry["seq"]).unwrap_or_else(|| panic!("{player}: seq {} missing", entry["seq"]));
            let result = entry["results"].as_array().unwrap().iter().find(|p| p["player"] == player).unwrap();
            assert_eq!(line["rating_after"], result["rating"]);
            assert_eq!((line["kind"].as_str(), line["annulled"].as_bool()), (entry["kind"].as_str(), Some(false)));
        }
        // The season end moved everybody: one line more.
        assert_eq!(entries.len(), played.len() + 1, "{player}");
        // Chained: each line starts where the previous (older) one ended.
        for pair in entries.windows(2) {
            assert_eq!(pair[0]["rating_before"], pair[1]["rating_after"], "{player}: {pair:?}");
        }
        let current = app.ok("GET", &format!("/v1/ladders/main/players/{player}"), &app.read, None);
        assert_eq!(entries[0]["rating_after"], current["rating"]);
    }
    assert_eq!(app.call("GET", "/v1/ladders/main/players/ghost/matches", &app.read, None).0, 404);
    assert_eq!(app.call("GET", "/v1/ladders/main/players/p1/matches?before=0", &app.read, None).0, 400);
}

/// Erasure: the name is replaced by a pseudonym in every read (player, leaderboard, journal,
/// history, standings, export); no other player's state changes; the journal still
/// verifies and replays; the name can join again as a new player.
fn an_erased_player_leaves_no_name_behind(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("main", crate::RICH_RULES);
    let mut rng = crate::Lcg(31);
    for i in 0..40 {
        let body = crate::random_match(&mut rng, &format!("m{i}"), 8, true).replace("\"p3\"", "\"alice-smith\"");
        app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(&body));
        if i == 20 {
            app.ok("POST", "/v1/ladders/main/seasons/end", &app.admin, Some(r#"{"id":"s1"}"#));
        }
    }
    let with_alice = helpers::journal(&app, "main").into_iter().find(|e| e["kind"] == "pair" && e.to_string().contains("alice-smith")).expect("a pair with alice");
    let score = with_alice["inputs"]["score_a"].as_f64().unwrap();
    app.ok("POST", &format!("/v1/ladders/main/matches/{}/correct", with_alice["id"].as_str().unwrap()), &app.admin, Some(&format!(r#"{{"score_a":{}}}"#, 1.0 - score)));
    let alice = app.ok("GET", "/v1/ladders/main/players/alice-smith", &app.read, None);
    let everybody = |app: &TestApp| -> Vec<Value> { app.ok("GET", "/v1/ladders/main/leaderboard?limit=1000", &app.read, None)["entries"].as_array().unwrap().clone() };
    let before = everybody(&app);
    assert_eq!(app.call("DELETE", "/v1/ladders/main/players/alice-smith", &app.report, None).0, 403, "admin only");
    let erased = app.ok("DELETE", "/v1/ladders/main/players/alice-smith", &app.admin, None);
    let pseudonym = erased["pseudonym"].as_str().unwrap().to_owned();
    assert!(pseudonym.starts_with("erased-"));
    assert_eq!(app.call("GET", "/v1/ladders/main/players/alice-smith", &app.read, None).0, 404);
    assert_eq!(app.call("DELETE", "/v1/ladders/main/players/alice-smith", &app.admin, None).0, 404);
    // The same board with the pseudonym in her place.
    let after = everybody(&app);
    let renamed: Vec<Value> = before
        .iter()
        .map(|e| {
            if e["player"] == "alice-smith" {
                let mut e = e.clone();
                e["player"] = Value::from(pseudonym.as_str());
                e
            } else {
                e.clone()
            }
        })
        .collect();
    assert_eq!(after, renamed);
    let now = app.ok("GET", &format!("/v1/ladders/main/players/{pseudonym}"), &app.read, None);
    assert_eq!((now["rating"].clone(), now["games_played"].clone()), (alice["rating"].clone(), alice["games_played"].clone()));
    // No read shows the name.
    for path in [
        "/v1/ladders/main/matches?limit=1000".to_owned(),
        "/v1/ladders/main/export".to_owned(),
        "/v1/ladders/main/seasons/1/leaderboard?limit=1000".to_owned(),
        format!("/v1/ladders/main/players/{pseudonym}/matches?limit=1000"),
        "/v1/ladders/main/leaderboard?limit=1000".to_owned(),
    ] {
        let (status, text) = app.call("GET", &path, &app.admin, None);
        assert_eq!(status, 200, "{path}");
        assert!(!text.contains("alice-smith"), "{path} still names her");
    }
    assert!(app.ok("GET", &format!("/v1/ladders/main/players/{pseudonym}/matches?limit=1000"), &app.read, None)["entries"].as_array().unwrap().len() > 5);
    helpers::verify_replay(&app, "main", crate::RICH_RULES);
    // The name joins again, as a new player.
    let again = app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(r#"{"id":"back","a":"alice-smith","b":"p0","score_a":1}"#));
    assert_eq!(again["players"][0]["games_played"].as_u64(), Some(1));
    helpers::verify_replay(&app, "main", crate::RICH_RULES);
}

/// `POST …/leaderboard/of`: the named players only, best first, each with the rank the whole
/// board gives them (ties by joining order); unknown names listed apart; bounds checked.
fn a_friends_board_has_each_players_rank_on_the_whole_board(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("main", RULES);
    let mut rng = crate::Lcg(11);
    for m in 0..400 {
        app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(&crate::random_match(&mut rng, &format!("m{m}"), 60, true)));
    }
    // Two tied newcomers (a draw between them): the earlier joiner ranks first.
    app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(r#"{"id":"tie","a":"tie-a","b":"tie-b","score_a":0.5}"#));
    let friends = ["p7", "tie-b", "nobody", "p33", "p7", "p0", "tie-a", "p59"];
    let body = serde_json::json!({ "players": friends }).to_string();
    let answer = app.ok("POST", "/v1/ladders/main/leaderboard/of", &app.read, Some(&body));
    let entries = answer["entries"].as_array().expect("entries");
    assert_eq!(answer["unknown"], serde_json::json!(["nobody"]));
    assert_eq!(entries.len(), 6, "the known names, once each");
    let mut previous = 0;
    for entry in entries {
        let name = entry["player"].as_str().expect("a name");
        let alone = app.ok("GET", &format!("/v1/ladders/main/players/{name}"), &app.read, None);
        assert_eq!(entry["rank"], alone["rank"], "{name}: the rank of the whole board");
        assert_eq!(entry["rating"], alone["rating"], "{name}");
        let rank = entry["rank"].as_i64().expect("a rank");
        assert!(rank > previous, "best first");
        previous = rank;
    }
    let tied: Vec<&str> = entries.iter().filter_map(|e| e["player"].as_str()).filter(|n| n.starts_with("tie-")).collect();
    assert_eq!(tied, ["tie-a", "tie-b"], "ties by joining order");
    // The same lines as the board's own page at those ranks.
    let board = app.ok("GET", "/v1/ladders/main/leaderboard?limit=1000", &app.read, None);
    for entry in entries {
        let line = &board["entries"][entry["rank"].as_u64().expect("rank") as usize - 1];
        assert_eq!(line, entry);
    }
    let too_many = serde_json::json!({ "players": (0..1001).map(|i| format!("p{i}")).collect::<Vec<_>>() }).to_string();
    let (status, text) = app.call("POST", "/v1/ladders/main/leaderboard/of", &app.read, Some(&too_many));
    assert_eq!(status, 422, "{text}");
    let longest = serde_json::json!({ "players": (0..1000).map(|i| format!("{i:0>64}")).collect::<Vec<_>>() }).to_string();
    let answer = app.ok("POST", "/v1/ladders/main/leaderboard/of", &app.read, Some(&longest));
    assert_eq!(answer["unknown"].as_array().map(Vec::len), Some(1000), "1,000 names of 64 characters fit");
    let (status, text) = app.call("POST", "/v1/ladders/main/leaderboard/of", &app.read, Some(r#"{"players":["bad name"]}"#));
    assert_eq!(status, 422, "{text}");
    let (status, text) = app.call("POST", "/v1/ladders/main/leaderboard/of", &app.read, Some(r#"{"names":["p1"]}"#));
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("players"), "{text}");
}
