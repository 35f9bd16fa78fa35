//! A database written by the previous release (commit e9b90d9a, before migrations 0005 to
//! 0008; made by `tests/fixtures/make-upgrade-fixtures.sh` through that server's API) is
//! served by today's: the migrations link its amendments to their matches, re-chain its
//! journal (a player erased under the old version included) and change no state; then it
//! verifies, its amendments are found again (a repeated annulment or correction applies
//! nothing), and it takes reports, amendments and erasures as a new database does.

use std::process::Command;

use serde_json::Value;

use crate::helpers::{self, Backend, TempDir, TestApp};

on_both!(a_database_of_the_previous_release_is_served_as_it_was);

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/upgrade-e9b90d9a");

/// Every player as the old server left them, before today's server opens the database:
/// name, rating, games. (Each fixture has its own: the decay's effect depends on when the
/// old server ran it.)
fn players_before(database: &str) -> Vec<(String, f32, i64)> {
    if database.starts_with("sqlite://") {
        let connection = rusqlite::Connection::open_with_flags(helpers::sqlite_file(database), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("the fixture");
        let mut statement = connection.prepare("SELECT name, rating, games_played FROM players").expect("players");
        let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get::<_, f64>(1)? as f32, r.get(2)?))).expect("players");
        return rows.collect::<Result<_, _>>().expect("players");
    }
    // (psql prints a real as the shortest text that reads back as the same f32.)
    helpers::psql_query(database, "SELECT name, rating, games_played FROM players")
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('|').collect();
            (fields[0].to_owned(), fields[1].parse().expect("rating"), fields[2].parse().expect("games"))
        })
        .collect()
}

/// Today's server on a copy of the fixture, and the players as they were.
fn upgraded(backend: Backend) -> (TestApp, Vec<(String, f32, i64)>) {
    let dir = TempDir::new("upgrade");
    let database = match backend {
        Backend::Sqlite => {
            let file = dir.0.join("old.db");
            std::fs::copy(format!("{FIXTURE}.sqlite"), &file).expect("copy the fixture");
            format!("sqlite://{}", file.display())
        }
        Backend::Postgres => {
            let database = helpers::database(Backend::Postgres, &dir);
            let output =
                Command::new(helpers::postgres_bin_dir().join("psql")).args(["-q", "-v", "ON_ERROR_STOP=1", &database, "-f", &format!("{FIXTURE}.sql")]).output().expect("psql");
            assert!(output.status.success(), "loading the dump: {}", String::from_utf8_lossy(&output.stderr));
            database
        }
    };
    let before = players_before(&database);
    (TestApp::on(&database, dir), before)
}

fn a_database_of_the_previous_release_is_served_as_it_was(backend: Backend) {
    let (app, before) = upgraded(backend);
    // No state changed.
    // (Ratings compared as the f32 they are; the two fixtures' pseudonyms differ.)
    let same = |name: &str| if name.starts_with("erased-") { "erased-…".to_owned() } else { name.to_owned() };
    let mut before: Vec<(String, f32, i64)> = before.into_iter().map(|(name, rating, games)| (same(&name), rating, games)).collect();
    before.sort_by(|a, b| a.0.cmp(&b.0));
    let board = app.ok("GET", "/v1/ladders/old/leaderboard?limit=100", &app.read, None);
    let mut after: Vec<(String, f32, i64)> = board["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|entry| {
            let name = entry["player"].as_str().expect("name");
            let player = app.ok("GET", &format!("/v1/ladders/old/players/{name}"), &app.read, None);
            (same(name), player["rating"].as_f64().expect("rating") as f32, player["games_played"].as_i64().expect("games"))
        })
        .collect();
    after.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(after, before, "every player as the old server left them");
    assert!(after.iter().any(|(name, _, _)| name == "erased-…"), "the player erased under the old version");
    // Re-chained: the chain, the replay, history lines and standings verify.
    helpers::verify_database(&app.server.database, "old");
    let journal = helpers::journal(&app, "old");
    // The amendments are found through the link migration 0005 filled in: the same
    // annulment or correction again applies nothing.
    let (status, text) = app.call("POST", "/v1/ladders/old/matches/m4/annul", &app.admin, Some(r#"{"reason":"smurf account"}"#));
    assert_eq!(status, 200, "{text}");
    let (status, text) = app.call("POST", "/v1/ladders/old/matches/m8/correct", &app.admin, Some(r#"{"score_a":0.5}"#));
    assert_eq!(status, 200, "{text}");
    assert_eq!(helpers::journal(&app, "old").len(), journal.len(), "nothing applied again");
    // A third correction of m8 counts the two before it.
    let answer = app.ok("POST", "/v1/ladders/old/matches/m8/correct", &app.admin, Some(r#"{"score_a":1}"#));
    let entry = helpers::journal(&app, "old").into_iter().find(|e| e["seq"] == answer["seq"]).expect("the correction's entry");
    assert_eq!(entry["id"], "correct/m8/3", "{entry}");
    // The old server's client ids with ':' are matches like any other.
    app.ok("POST", "/v1/ladders/old/matches/annul:m9/annul", &app.admin, Some(r#"{"reason":"bot"}"#));
    // Reports, an erasure and an export, as on a new database.
    for i in 0..5 {
        app.ok("POST", "/v1/ladders/old/matches", &app.report, Some(&format!(r#"{{"id":"new{i}","a":"p1","b":"newcomer","score_a":1}}"#)));
    }
    app.ok("DELETE", "/v1/ladders/old/players/p2", &app.admin, None);
    helpers::verify_database(&app.server.database, "old");
    let (status, export) = app.call("GET", "/v1/ladders/old/export", &app.admin, None);
    assert_eq!(status, 200);
    let end: Value = serde_json::from_str(export.lines().last().expect("end line")).expect("json");
    assert_eq!(end["end"]["complete"], Value::Bool(true), "{end}");
    let dir = TempDir::new("upgrade-export");
    let path = dir.0.join("export.ndjson");
    std::fs::write(&path, &export).expect("write");
    let (ok, said) = helpers::verify_journal(&path);
    assert!(ok, "{said}");
}
