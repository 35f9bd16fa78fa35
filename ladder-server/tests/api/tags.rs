//! Player tags (`region: eu`): set by an admin route or with a report, one value per key;
//! `GET …/leaderboard?tag=key:value` is the tag's board with exact ranks among its players
//! (pages, deep pages, `around`), which follows every rating write (reports, a season end,
//! an annulment's rebuild, an erasure), the provisional option, and `elo-ladder verify`.

use serde_json::{json, Value};

use crate::helpers::{self, Backend, TestApp};
use crate::RULES;

on_both!(a_tag_board_ranks_the_players_of_its_tag, tags_refuse_bad_input_by_field);

fn entries(app: &TestApp, query: &str) -> Vec<Value> {
    app.ok("GET", &format!("/v1/ladders/l/leaderboard?limit=1000{query}"), &app.read, None)["entries"].as_array().expect("entries").clone()
}

/// The board of the ladder (of `provisional`) cut down to the players whose region is
/// `region` in `regions`, ranks renumbered: what the tag's board must be.
fn expected_board(app: &TestApp, provisional: &str, regions: &std::collections::BTreeMap<String, String>, region: &str) -> Vec<Value> {
    let mut board: Vec<Value> = entries(app, provisional).into_iter().filter(|l| regions.get(l["player"].as_str().expect("a name")).map(String::as_str) == Some(region)).collect();
    for (i, line) in board.iter_mut().enumerate() {
        line["rank"] = json!(i + 1);
    }
    board
}

/// The tag's board equals `expected`, whole, in deep pages (the bucket walk) and around each
/// of its players.
fn check_tag_board(app: &TestApp, tag: &str, provisional: &str, expected: &[Value]) {
    let board = entries(app, &format!("&tag={tag}{provisional}"));
    assert_eq!(board, expected, "tag {tag}{provisional}");
    for offset in [1, 2, 5, 9] {
        let page =
            app.ok("GET", &format!("/v1/ladders/l/leaderboard?limit=3&offset={offset}&tag={tag}{provisional}"), &app.read, None)["entries"].as_array().expect("entries").clone();
        let want: Vec<Value> = expected.iter().skip(offset).take(3).cloned().collect();
        assert_eq!(page, want, "tag {tag}{provisional}: the page at offset {offset}");
    }
    for (at, line) in expected.iter().enumerate() {
        let name = line["player"].as_str().expect("a name");
        let around =
            app.ok("GET", &format!("/v1/ladders/l/leaderboard?tag={tag}&around={name}&limit=5{provisional}"), &app.read, None)["entries"].as_array().expect("entries").clone();
        assert_eq!(around, expected[at.saturating_sub(2)..(at + 3).min(expected.len())].to_vec(), "tag {tag}{provisional}: around {name}");
    }
}

fn a_tag_board_ranks_the_players_of_its_tag(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("l", RULES);
    let mut regions = std::collections::BTreeMap::new();
    let mut rng = crate::Lcg(11);
    let mut id = 0;
    // Eighteen players; each first match sets both players' regions (eu or na) with the report.
    for p in 0..18 {
        id += 1;
        let (a, b) = (format!("p{p}"), format!("p{}", (p + 1) % 18));
        let region = |name: &str| if name[1..].parse::<u32>().expect("a number") % 3 == 0 { "na" } else { "eu" };
        let body = json!({"id": format!("m{id}"), "a": a, "b": b, "score_a": 1, "tags": {a.clone(): {"region": region(&a)}, b.clone(): {"region": region(&b), "platform": "pc"}}});
        let answer = app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&body.to_string()));
        assert_eq!(answer["tags"][&a]["region"], region(&a), "{answer}");
        regions.insert(a.clone(), region(&a).to_owned());
        regions.insert(b.clone(), region(&b).to_owned());
    }
    for _ in 0..60 {
        id += 1;
        let a = rng.below(18);
        let b = (a + 1 + rng.below(17)) % 18;
        let score = ["1", "0", "0.5"][rng.below(3) as usize];
        app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&format!(r#"{{"id":"m{id}","a":"p{a}","b":"p{b}","score_a":{score}}}"#)));
    }
    for region in ["eu", "na"] {
        check_tag_board(&app, &format!("region:{region}"), "", &expected_board(&app, "", &regions, region));
    }
    // platform:pc is every player who was ever a report's b.
    assert_eq!(entries(&app, "&tag=platform:pc").len(), 18);
    assert_eq!(entries(&app, "&tag=region:apac"), Vec::<Value>::new(), "a tag nobody holds: an empty board");

    // The admin route: a move to another region takes the player off the old board.
    let tags = app.ok("PUT", "/v1/ladders/l/players/p1/tags", &app.admin, Some(r#"{"region":"na","platform":null}"#));
    assert_eq!(tags, json!({"player": "p1", "tags": {"region": "na"}}));
    regions.insert("p1".into(), "na".into());
    assert_eq!(app.ok("GET", "/v1/ladders/l/players/p1/tags", &app.read, None)["tags"], json!({"region": "na"}));
    for region in ["eu", "na"] {
        check_tag_board(&app, &format!("region:{region}"), "", &expected_board(&app, "", &regions, region));
    }
    let (status, text) = app.call("GET", "/v1/ladders/l/leaderboard?tag=platform:pc&around=p1", &app.read, None);
    assert_eq!(status, 409, "{text}");
    assert!(text.contains("not_tagged"), "{text}");
    helpers::verify_database(&app.server.database, "l");

    // Provisional players: the tag's board leaves them out as the ladder's does.
    for p in 0..3 {
        id += 1;
        let body = json!({"id": format!("m{id}"), "a": format!("new{p}"), "b": "p0", "score_a": 1, "tags": {format!("new{p}"): {"region": "eu"}}});
        app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(&body.to_string()));
        regions.insert(format!("new{p}"), "eu".into());
    }
    app.ok("PUT", "/v1/ladders/l/options", &app.admin, Some(r#"{"provisional_games":3}"#));
    let settled = expected_board(&app, "", &regions, "eu");
    assert!(settled.iter().all(|l| !l["player"].as_str().expect("a name").starts_with("new")), "{settled:?}");
    check_tag_board(&app, "region:eu", "", &settled);
    check_tag_board(&app, "region:eu", "&provisional=include", &expected_board(&app, "&provisional=include", &regions, "eu"));
    let (status, text) = app.call("GET", "/v1/ladders/l/leaderboard?tag=region:eu&around=new0", &app.read, None);
    assert_eq!(status, 409, "{text}");
    assert!(text.contains("provisional_player"), "{text}");
    helpers::verify_database(&app.server.database, "l");

    // A season end (every player written in bulk), an annulment (a rebuild) and an erasure.
    app.ok("POST", "/v1/ladders/l/seasons/end", &app.admin, Some(r#"{"id":"s1"}"#));
    app.ok("POST", "/v1/ladders/l/matches/m20/annul", &app.admin, Some(r#"{"reason":"cheating"}"#));
    let erased = app.ok("DELETE", "/v1/ladders/l/players/p4", &app.admin, None);
    let pseudonym = erased["pseudonym"].as_str().expect("a pseudonym").to_owned();
    let region = regions.remove("p4").expect("p4's region");
    regions.insert(pseudonym.clone(), region);
    for region in ["eu", "na"] {
        check_tag_board(&app, &format!("region:{region}"), "", &expected_board(&app, "", &regions, region));
    }
    assert!(entries(&app, "&tag=region:eu&provisional=include").iter().chain(entries(&app, "&tag=region:na").iter()).all(|l| l["player"] != "p4"));
    helpers::verify_database(&app.server.database, "l");

    // verify finds a tag count that is wrong (the control: the check can fail).
    let sql = "UPDATE tag_buckets SET count = count + 1 WHERE level = 1 AND tag_id = (SELECT id FROM tags WHERE key = 'region' AND value = 'na')";
    match backend {
        Backend::Sqlite => {
            let connection = rusqlite::Connection::open(helpers::sqlite_file(&app.server.database)).expect("open");
            connection.busy_timeout(std::time::Duration::from_secs(10)).expect("busy timeout");
            connection.execute(sql, []).expect("corrupt a count");
        }
        Backend::Postgres => {
            helpers::psql_query(&app.server.database, sql);
        }
    }
    let output = std::process::Command::new(helpers::binary()).args(["verify", "--database", &app.server.database, "--ladder", "l"]).output().expect("verify");
    let said = String::from_utf8_lossy(&output.stderr).into_owned() + &String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success() && said.contains("tag region:na: rank bucket"), "{said}");
}

fn tags_refuse_bad_input_by_field(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("l", RULES);
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(r#"{"id":"m1","a":"alice","b":"bob","score_a":1}"#));
    for (body, status, says) in [
        (r#"{"Region":"eu"}"#, 422, "tags: key"),
        (r#"{"region":"e u"}"#, 422, "tags.region: value"),
        (r#"{"region":7}"#, 422, "tags.region must be a string"),
        (r#"["eu"]"#, 422, "tags must be an object"),
        (r#"{"region":"#, 400, "tags:"),
    ] {
        let (got, text) = app.call("PUT", "/v1/ladders/l/players/alice/tags", &app.admin, Some(body));
        assert_eq!(got, status, "{body}: {text}");
        assert!(text.contains(says), "{body}: {text}");
    }
    let (status, text) = app.call("PUT", "/v1/ladders/l/players/alice/tags", &app.report, Some(r#"{"region":"eu"}"#));
    assert_eq!(status, 403, "a report key sets tags only with a report: {text}");
    let (status, text) = app.call("PUT", "/v1/ladders/l/players/nobody/tags", &app.admin, Some(r#"{"region":"eu"}"#));
    assert_eq!(status, 404, "{text}");
    // Sixteen keys at most.
    let many: serde_json::Map<String, Value> = (0..16).map(|i| (format!("k{i}"), json!("v"))).collect();
    app.ok("PUT", "/v1/ladders/l/players/alice/tags", &app.admin, Some(&Value::Object(many).to_string()));
    let (status, text) = app.call("PUT", "/v1/ladders/l/players/alice/tags", &app.admin, Some(r#"{"one_more":"v"}"#));
    assert_eq!(status, 422, "{text}");
    assert!(text.contains("too_many_tags"), "{text}");
    // A report's tags name the match's players; the match counts when the tags cannot be set.
    let (status, text) = app.call("POST", "/v1/ladders/l/matches", &app.report, Some(r#"{"id":"m2","a":"alice","b":"bob","score_a":1,"tags":{"carol":{"region":"eu"}}}"#));
    assert_eq!(status, 422, "{text}");
    assert!(text.contains("tags.carol"), "{text}");
    let answer = app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(r#"{"id":"m3","a":"alice","b":"bob","score_a":1,"tags":{"alice":{"one_more":"v"}}}"#));
    assert_eq!(
        (answer["tags_refused"][0]["player"].as_str(), answer["tags_refused"][0]["code"].as_str(), answer["tags_refused"][0]["status"].as_u64()),
        (Some("alice"), Some("too_many_tags"), Some(422)),
        "{answer}"
    );
    assert_eq!(answer["tags"], serde_json::json!({}), "{answer}");
    assert_eq!(app.ok("GET", "/v1/ladders/l/players/alice", &app.read, None)["games_played"], 2);
    // The board's query.
    for (query, says) in [("tag=region", "tag must be key:value"), ("tag=region:e%20u", "value"), ("tag=region:eu&around=alice&offset=2", "cannot be combined")] {
        let (status, text) = app.call("GET", &format!("/v1/ladders/l/leaderboard?{query}"), &app.read, None);
        assert!(status == 400 || status == 422, "{query}: {status} {text}");
        assert!(text.contains(says), "{query}: {text}");
    }
    let (status, text) = app.call("GET", "/v1/ladders/l/leaderboard?tag=region:eu&around=nobody", &app.read, None);
    assert_eq!(status, 404, "{text}");
}
