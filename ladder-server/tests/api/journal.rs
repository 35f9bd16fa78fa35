//! The journal: it replays to every stored state bit for bit.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{self, call, verify_replay, Backend, Server, TestApp};
use crate::{random_match, Lcg, RICH_RULES, RULES};

on_both!(
    an_export_ends_with_a_line_that_verify_checks,
    the_journal_replays_to_every_stored_state_bit_for_bit,
    zero_sum_ladders_keep_their_total_through_one_row,
    journal_pages_are_bounded_by_size,
    the_journal_is_filtered_by_kind_and_exported,
    the_journal_reads_newest_first,
    tampering_is_found_by_verify,
);

fn the_journal_replays_to_every_stored_state_bit_for_bit(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("rich", RICH_RULES);
    let mut rng = Lcg(7);
    for i in 0..120 {
        if i == 60 {
            app.ok("POST", "/v1/ladders/rich/seasons/end", &app.admin, Some(r#"{"id":"season-1"}"#));
        }
        if i == 90 {
            let decay = app.ok("POST", "/v1/ladders/rich/decay", &app.admin, Some(r#"{"id":"decay-1"}"#));
            assert!(decay["moved"].as_u64().is_some(), "{decay}");
        }
        let body = random_match(&mut rng, &format!("m{i}"), 12, true);
        app.ok("POST", "/v1/ladders/rich/matches", &app.report, Some(&body));
    }
    let season = app.ok("POST", "/v1/ladders/rich/seasons/end", &app.admin, Some(r#"{"id":"season-2"}"#));
    assert_eq!((season["season"].as_i64(), season["players"].as_u64()), (Some(2), Some(12)));
    assert_eq!(season["leagues"], serde_json::json!(["Bronze", "Silver", "Gold"]));
    let standings = app.ok("GET", "/v1/ladders/rich/seasons/2/leaderboard?limit=5&offset=3", &app.read, None);
    assert_eq!(standings["entries"].as_array().map(Vec::len), Some(5));
    assert_eq!(standings["entries"][0]["rank"].as_i64(), Some(4));
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

/// A page holds at most about a megabyte of entries whatever `limit` asks: with
/// free-for-alls of 256 players (about 90 KB each), `limit=1000` gives a dozen, says there
/// is more, and paging by `after` reaches every entry exactly once.
fn journal_pages_are_bounded_by_size(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("crowd", RULES);
    let entrants: Vec<String> = (0..256).map(|i| format!("\"crowd-player-{i:03}\"")).collect();
    let places: Vec<String> = (1..=256).map(|p| p.to_string()).collect();
    let matches = 30;
    for m in 0..matches {
        let body = format!(r#"{{"id":"ffa{m}","entrants":[{}],"places":[{}]}}"#, entrants.join(","), places.join(","));
        app.ok("POST", "/v1/ladders/crowd/matches", &app.report, Some(&body));
    }
    let (status, text) = app.call("GET", "/v1/ladders/crowd/matches?limit=1000", &app.read, None);
    assert_eq!(status, 200);
    let page: Value = serde_json::from_str(&text).unwrap();
    let shown = page["entries"].as_array().unwrap().len();
    assert!(shown >= 1 && shown < matches, "{shown} entries on one page");
    assert!(text.len() < 1_300_000, "one page is {} bytes", text.len());
    assert_eq!(page["more"], Value::Bool(true));
    let all = helpers::journal(&app, "crowd");
    assert_eq!(all.len(), matches);
    let ids: Vec<&str> = all.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, (0..matches).map(|m| format!("ffa{m}")).collect::<Vec<_>>());
    // limit still applies below the size cap.
    let two = helpers::journal_page(&app, "crowd", 0, 2);
    assert_eq!((two["entries"].as_array().unwrap().len(), two["more"].as_bool()), (2, Some(true)));
    // Newest first, the same cap.
    let (status, text) = app.call("GET", &format!("/v1/ladders/crowd/matches?before={}&limit=1000", i64::MAX), &app.read, None);
    assert_eq!(status, 200);
    let page: Value = serde_json::from_str(&text).unwrap();
    let newest: Vec<&str> = page["entries"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert!(!newest.is_empty() && newest.len() < matches && text.len() < 1_300_000, "{} entries, {} bytes", newest.len(), text.len());
    assert_eq!(newest, ids.iter().rev().take(newest.len()).copied().collect::<Vec<_>>());
    assert_eq!(page["more"], Value::Bool(true));
}

/// PostgreSQL with two servers and eight reporters: a reader that pages the journal by
/// `after` while matches land sees every entry exactly once, in seq order (entries commit
/// in seq order, so none can appear behind a reader's position).
#[test]
fn postgres_a_reader_following_the_journal_misses_nothing() {
    let app = TestApp::spawn(Backend::Postgres);
    app.put_ladder("follow", RULES);
    let second = Server::start(&app.server.database, 0, 0);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reporters: Vec<_> = (0..8u64)
        .map(|t| {
            let address = if t % 2 == 0 { app.server.address.clone() } else { second.address.clone() };
            let key = app.report.clone();
            std::thread::spawn(move || {
                let mut rng = Lcg(500 + t);
                for i in 0..40 {
                    let body = random_match(&mut rng, &format!("r{t}-{i}"), 30, true);
                    let (status, text) = call(&address, "POST", "/v1/ladders/follow/matches", Some(&key), Some(&body)).expect("reachable");
                    assert_eq!(status, 200, "{text}");
                }
            })
        })
        .collect();
    let reader = {
        let (address, key, done) = (app.server.address.clone(), app.read.clone(), std::sync::Arc::clone(&done));
        std::thread::spawn(move || {
            let mut seen: Vec<i64> = Vec::new();
            let mut after = 0;
            loop {
                let finished = done.load(std::sync::atomic::Ordering::SeqCst);
                let (status, text) = call(&address, "GET", &format!("/v1/ladders/follow/matches?after={after}&limit=7"), Some(&key), None).expect("reachable");
                assert_eq!(status, 200, "{text}");
                let page: Value = serde_json::from_str(&text).unwrap();
                let entries = page["entries"].as_array().unwrap();
                for entry in entries {
                    seen.push(entry["seq"].as_i64().unwrap());
                }
                if let Some(last) = entries.last() {
                    after = last["seq"].as_i64().unwrap();
                } else if finished && page["pending"] != Value::Bool(true) {
                    return seen;
                } else {
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
        })
    };
    for reporter in reporters {
        reporter.join().expect("reporter");
    }
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let seen = reader.join().expect("reader");
    let all: Vec<i64> = helpers::journal(&app, "follow").iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(all.len(), 320);
    assert_eq!(seen, all, "the following reader saw exactly the journal, in order");
    verify_replay(&app, "follow", RULES);
    drop(second);
}

/// PostgreSQL: a report costs index lookups, whatever the journal's size. 20,000 entries
/// are written straight into the journal; 20 reports then read almost none of its rows by
/// sequential scan (a statement that scanned the journal per match read 400,000). The
/// server is stopped before each reading of the statistics, since a backend reports its
/// own when it exits (an idle one may hold them for ten seconds).
#[test]
fn postgres_reports_do_not_scan_the_journal() {
    let mut app = TestApp::spawn(Backend::Postgres);
    app.put_ladder("big", RULES);
    app.ok("POST", "/v1/ladders/big/matches", &app.report, Some(r#"{"id":"first","a":"x","b":"y","score_a":1}"#));
    let db = app.server.database.clone();
    helpers::psql_query(
        &db,
        "INSERT INTO journal (seq, ladder_id, match_id, kind, inputs, time, joined, results, bytes, hash) \
         SELECT nextval('journal_seq'), l.id, 'old' || i, 'note', '{}', 0, '[]', '[]', 6, '\\x00' FROM generate_series(1, 20000) AS i, ladders l WHERE l.name = 'big'; ANALYZE journal",
    );
    let scanned = |app: &mut TestApp| -> i64 {
        app.server.terminate();
        assert!(app.server.wait_exit(Duration::from_secs(30)).is_some());
        std::thread::sleep(Duration::from_millis(500));
        helpers::psql_query(&db, "SELECT coalesce(seq_tup_read, 0) FROM pg_stat_user_tables WHERE relname = 'journal'").parse().unwrap()
    };
    let before = scanned(&mut app);
    app.server.restart();
    for i in 0..20 {
        app.ok("POST", "/v1/ladders/big/matches", &app.report, Some(&format!(r#"{{"id":"n{i}","a":"x","b":"p{i}","score_a":0.5}}"#)));
    }
    let read = scanned(&mut app) - before;
    assert!(read < 5_000, "20 reports read {read} journal rows by sequential scan");
}

/// PostgreSQL: an entry shows only once every lower seq has committed. Another transaction
/// takes a seq and holds it uncommitted (as a batch in flight on another server would);
/// a match reported meanwhile gets a higher seq and is held back until the holder ends.
#[test]
fn postgres_an_entry_shows_only_after_every_lower_seq_has_committed() {
    let app = TestApp::spawn(Backend::Postgres);
    app.put_ladder("main", RULES);
    let first = app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(r#"{"id":"m1","a":"x","b":"y","score_a":1}"#));
    let first_seq = first["seq"].as_i64().unwrap();
    // Another transaction takes a seq and holds it uncommitted, as a match in flight on
    // another server would. It waits in pg_sleep until this test ends it, so no timing of a
    // loaded machine can let it finish early; the test waits until it is asleep, that is
    // after its nextval.
    let mut holder = HeldTransaction::start(&app.server.database);
    let second = app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(r#"{"id":"m2","a":"x","b":"y","score_a":0}"#));
    assert!(second["seq"].as_i64().unwrap() > first_seq + 1, "the held seq lies between");
    // m1 committed before the holder took its id, so it shows while the holder still runs.
    // The horizon is the cluster's oldest running transaction, and the suites that share
    // this cluster run their own transactions meanwhile: one of them that began before m1
    // may still be running on a loaded machine, so m1 shows once those have ended.
    let waiting = Instant::now();
    let from_start = journal_when(&app, "", |page| page["entries"] != serde_json::json!([]));
    assert_eq!(from_start["entries"].as_array().map(Vec::len), Some(1), "m1 is settled, m2 is not (after {:?}): {from_start}", waiting.elapsed());
    assert_eq!(from_start["entries"][0]["id"], "m1");
    assert_eq!(from_start["pending"], serde_json::json!(true));
    let during = app.ok("GET", &format!("/v1/ladders/main/matches?after={first_seq}"), &app.read, None);
    assert_eq!(during["entries"], serde_json::json!([]), "m2 is held back while a lower seq may still commit");
    assert_eq!(during["pending"], serde_json::json!(true));
    assert!(holder.child.try_wait().unwrap().is_none(), "the holder was still running throughout");
    // End the holder (a cancelled statement aborts its transaction; the seq it took is
    // then never used, which ends the wait as a commit would).
    assert_eq!(holder.cancel(), "t");
    assert!(!holder.child.wait().unwrap().success(), "the holder was cancelled");
    // The horizon is the cluster's oldest running transaction: other suites sharing this
    // PostgreSQL cluster may hold it back a little longer, never forever.
    let after = journal_when(&app, &format!("?after={first_seq}"), |page| page["pending"] != serde_json::json!(true));
    assert_eq!(after["entries"][0]["id"], "m2");
    assert_eq!(after["pending"], serde_json::json!(false));
}

/// The page `/v1/ladders/main/matches{query}` once `settled` holds for it, or after 30 s
/// (the caller's assertions then say what was missing).
fn journal_when(app: &TestApp, query: &str, settled: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let page = app.ok("GET", &format!("/v1/ladders/main/matches{query}"), &app.read, None);
        if settled(&page) || Instant::now() > deadline {
            return page;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A psql session holding a transaction open; cancelled when dropped, so a failing test
/// never leaves it to hold back every other test's journal on the shared cluster.
struct HeldTransaction {
    child: std::process::Child,
    database: String,
    pid: String,
}

impl HeldTransaction {
    /// A transaction that takes a seq and sleeps with it uncommitted, once it is asleep
    /// (that is, after its nextval).
    fn start(database: &str) -> Self {
        let mut holder = Self {
            child: helpers::psql_background(database, "BEGIN; SELECT pg_current_xact_id(); SELECT nextval('journal_seq'); SELECT pg_sleep(300); COMMIT;"),
            database: database.to_owned(),
            pid: String::new(),
        };
        let asleep = "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()";
        let deadline = Instant::now() + Duration::from_secs(60);
        holder.pid = loop {
            let pid = helpers::psql_query(database, asleep);
            if !pid.is_empty() {
                break pid;
            }
            assert!(Instant::now() < deadline, "the holding transaction never reached its sleep");
            std::thread::sleep(Duration::from_millis(50));
        };
        holder
    }

    fn cancel(&self) -> String {
        helpers::psql_query(&self.database, &format!("SELECT pg_cancel_backend({})", self.pid))
    }
}

impl Drop for HeldTransaction {
    fn drop(&mut self) {
        if !self.pid.is_empty() && self.child.try_wait().ok().flatten().is_none() {
            // psql_query asserts; a panic inside a drop while unwinding would abort.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.cancel()));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `kind` filters the journal; the export is the whole journal as NDJSON, entry for entry.
fn the_journal_is_filtered_by_kind_and_exported(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("rich", RICH_RULES);
    let mut rng = Lcg(9);
    for i in 0..40 {
        app.ok("POST", "/v1/ladders/rich/matches", &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 10, true)));
        if i % 15 == 14 {
            app.ok("POST", "/v1/ladders/rich/seasons/end", &app.admin, Some(&format!(r#"{{"id":"s{i}"}}"#)));
        }
    }
    let all = helpers::journal(&app, "rich");
    let ends = app.ok("GET", "/v1/ladders/rich/matches?kind=season_end", &app.read, None);
    let expected: Vec<&Value> = all.iter().filter(|e| e["kind"] == "season_end").collect();
    assert_eq!(ends["entries"].as_array().unwrap().iter().collect::<Vec<_>>(), expected);
    assert_eq!(expected.len(), 2);
    let after = expected[0]["seq"].as_i64().unwrap();
    let later = app.ok("GET", &format!("/v1/ladders/rich/matches?kind=season_end&after={after}"), &app.read, None);
    assert_eq!(later["entries"].as_array().unwrap().len(), 1);
    let pairs = app.ok("GET", "/v1/ladders/rich/matches?kind=pair&limit=1000", &app.read, None);
    assert!(pairs["entries"].as_array().unwrap().iter().all(|e| e["kind"] == "pair"));
    assert_eq!(app.call("GET", "/v1/ladders/rich/matches?kind=nonsense", &app.read, None).0, 400);
    // The export: admin only, every entry once, as the journal shows it.
    assert_eq!(app.call("GET", "/v1/ladders/rich/export", &app.read, None).0, 403);
    let (status, text) = app.call("GET", "/v1/ladders/rich/export", &app.admin, None);
    assert_eq!(status, 200);
    let mut lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("one JSON entry per line")).collect();
    let header = lines.remove(0);
    let end = lines.pop().unwrap();
    assert_eq!((end["end"]["entries"].as_u64(), end["end"]["complete"].as_bool()), (Some(all.len() as u64), Some(true)), "{end}");
    assert_eq!((header["format"].as_str(), header["ladder"].as_str()), (Some("elo-ladder-journal/1"), Some("rich")));
    assert_eq!(lines, all);
}

/// `?before=SEQ`: the journal newest first, paged downwards, with the kind filter and the
/// size bound; every page is the oldest-first journal's, reversed. Two ladders interleave,
/// so a ladder's seqs have gaps.
fn the_journal_reads_newest_first(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("rich", RICH_RULES);
    app.put_ladder("other", RULES);
    let mut rng = Lcg(27);
    for i in 0..45 {
        app.ok("POST", "/v1/ladders/rich/matches", &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 10, true)));
        app.ok("POST", "/v1/ladders/other/matches", &app.report, Some(&format!(r#"{{"id":"o{i}","a":"x","b":"y","score_a":1}}"#)));
        if i % 20 == 19 {
            app.ok("POST", "/v1/ladders/rich/seasons/end", &app.admin, Some(&format!(r#"{{"id":"s{i}"}}"#)));
        }
    }
    app.ok("POST", "/v1/ladders/rich/matches/m3/annul", &app.admin, Some(r#"{"reason":"cheated"}"#));
    let mut all = helpers::journal(&app, "rich");
    all.reverse();
    let last_seq = app.ok("GET", "/v1/ladders/rich", &app.read, None)["last_seq"].as_i64().unwrap();
    assert_eq!(all[0]["seq"].as_i64(), Some(last_seq));
    let newest_first = |kind: &str, limit: usize| {
        let mut seen: Vec<Value> = Vec::new();
        let mut before = last_seq + 1;
        loop {
            let page = app.ok("GET", &format!("/v1/ladders/rich/matches?before={before}&limit={limit}{kind}"), &app.read, None);
            assert_eq!(page["pending"], Value::Bool(false), "nothing is held back once the reports have answered");
            let entries = page["entries"].as_array().unwrap();
            assert!(entries.len() <= limit);
            seen.extend(entries.iter().cloned());
            if page["more"] != Value::Bool(true) {
                break;
            }
            before = entries.last().unwrap()["seq"].as_i64().unwrap();
        }
        seen
    };
    assert_eq!(newest_first("", 7), all);
    assert_eq!(newest_first("", 1000), all);
    let pairs: Vec<Value> = all.iter().filter(|e| e["kind"] == "pair").cloned().collect();
    assert!(pairs.len() > 5);
    assert_eq!(newest_first("&kind=pair", 4), pairs);
    let annulled: Vec<&Value> = all.iter().filter(|e| e["annulled"] == Value::Bool(true)).collect();
    assert_eq!((annulled.len(), annulled[0]["annul_reason"].as_str()), (1, Some("cheated")));
    // Below the first entry: nothing, and nothing more.
    let first = all.last().unwrap()["seq"].as_i64().unwrap();
    let empty = app.ok("GET", &format!("/v1/ladders/rich/matches?before={first}"), &app.read, None);
    assert_eq!((empty["entries"].as_array().unwrap().len(), &empty["more"]), (0, &Value::Bool(false)));
    assert_eq!(app.call("GET", "/v1/ladders/rich/matches?before=5&after=1", &app.read, None).0, 400);
    assert_eq!(app.call("GET", "/v1/ladders/rich/matches?before=0", &app.read, None).0, 400);
}

/// An export verifies; a changed result, a changed input, a deleted entry or a swapped order
/// makes `elo-ladder verify --journal` fail naming the seq; a changed stored player makes
/// `verify --database` fail.
fn tampering_is_found_by_verify(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("rich", RICH_RULES);
    let mut rng = Lcg(12);
    for i in 0..30 {
        app.ok("POST", "/v1/ladders/rich/matches", &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 8, true)));
    }
    app.ok("POST", "/v1/ladders/rich/matches/m4/annul", &app.admin, Some(r#"{"reason":"smurf"}"#));
    let (_, text) = app.call("GET", "/v1/ladders/rich/export", &app.admin, None);
    let dir = helpers::TempDir::new("export");
    let write = |name: &str, lines: &[String]| {
        let path = dir.0.join(name);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    };
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let (ok, said) = helpers::verify_journal(&write("clean.ndjson", &lines));
    assert!(ok, "{said}");
    assert!(said.contains("31 entries (30 matches, 0 imported players, 1 annulled, 0 corrected)"), "{said}");
    let seq_of = |line: &str| serde_json::from_str::<Value>(line).unwrap()["seq"].as_i64().unwrap();
    let edit = |i: usize, change: &dyn Fn(&mut Value)| {
        let mut copy = lines.clone();
        let mut entry: Value = serde_json::from_str(&copy[i]).unwrap();
        change(&mut entry);
        copy[i] = entry.to_string();
        copy
    };
    // A result changed (the replay finds it), an input changed (the chain finds it).
    let tenth = seq_of(&lines[10]);
    let results = edit(10, &|e| e["results"][0]["rating"] = Value::from(e["results"][0]["rating"].as_f64().unwrap() + 1.0));
    let (ok, said) = helpers::verify_journal(&write("result.ndjson", &results));
    assert!(!ok && said.contains(&format!("seq {tenth} does not verify")), "{said}");
    let inputs = edit(10, &|e| {
        let key = if e["inputs"]["kind"] == "free_for_all" { "places" } else { "score_a" };
        e["inputs"][key] = if key == "places" { serde_json::json!(e["inputs"]["places"].as_array().unwrap().iter().rev().cloned().collect::<Vec<_>>()) } else { Value::from(0.25) };
    });
    let (ok, said) = helpers::verify_journal(&write("inputs.ndjson", &inputs));
    assert!(!ok && said.contains(&format!("seq {tenth} does not verify")), "{said}");
    // An entry deleted: the next one no longer follows.
    let mut deleted = lines.clone();
    deleted.remove(10);
    let (ok, said) = helpers::verify_journal(&write("deleted.ndjson", &deleted));
    assert!(!ok && said.contains(&format!("seq {} does not verify", seq_of(&lines[11]))), "{said}");
    // Two entries swapped.
    let mut swapped = lines.clone();
    swapped.swap(12, 13);
    let (ok, said) = helpers::verify_journal(&write("swapped.ndjson", &swapped));
    assert!(!ok && said.contains("does not verify"), "{said}");
    // The annulment mark removed: the amendment no longer matches.
    let m4 = lines.iter().position(|l| l.contains("\"id\":\"m4\"")).unwrap();
    let unmarked = edit(m4, &|e| {
        e["annulled"] = Value::Bool(false);
        e.as_object_mut().unwrap().remove("annul_reason");
    });
    let (ok, said) = helpers::verify_journal(&write("unmarked.ndjson", &unmarked));
    assert!(!ok, "{said}");
    // A stored player changed behind the server's back.
    let db = &app.server.database;
    let sql = "UPDATE players SET rating = rating + 1 WHERE name = (SELECT min(name) FROM players)";
    match backend {
        Backend::Sqlite => {
            let connection = rusqlite::Connection::open(helpers::sqlite_file(db)).unwrap();
            connection.execute(sql, []).unwrap();
        }
        Backend::Postgres => {
            helpers::psql_query(db, sql);
        }
    }
    let output = std::process::Command::new(helpers::binary()).args(["verify", "--database", db, "--ladder", "rich"]).output().unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("stored"), "{}", String::from_utf8_lossy(&output.stderr));
}

/// An export ends with `{"end": …}`: its entries, last seq and chain head, complete. An export
/// without it (cut short), with entries missing before it, or marked incomplete does not
/// verify.
fn an_export_ends_with_a_line_that_verify_checks(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder("rich", RICH_RULES);
    let mut rng = Lcg(21);
    for i in 0..25 {
        app.ok("POST", "/v1/ladders/rich/matches", &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 8, true)));
        if i == 20 {
            app.ok("POST", "/v1/ladders/rich/matches/m3/annul", &app.admin, Some(r#"{"reason":"smurf"}"#));
        }
    }
    let (status, text) = app.call("GET", "/v1/ladders/rich/export", &app.admin, None);
    assert_eq!(status, 200);
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let end: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    let last: Value = serde_json::from_str(&lines[lines.len() - 2]).unwrap();
    assert_eq!(end["end"]["entries"].as_u64(), Some(26), "{end}");
    assert_eq!((end["end"]["last_seq"].clone(), end["end"]["head"].clone(), end["end"]["complete"].clone()), (last["seq"].clone(), last["hash"].clone(), Value::Bool(true)));
    let dir = helpers::TempDir::new("ended");
    let write = |name: &str, lines: &[String]| {
        let path = dir.0.join(name);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    };
    let (ok, said) = helpers::verify_journal(&write("whole.ndjson", &lines));
    assert!(ok, "{said}");
    // Cut short: no end line.
    let (ok, said) = helpers::verify_journal(&write("cut.ndjson", &lines[..lines.len() - 1]));
    assert!(!ok && said.contains("no end line"), "{said}");
    // The last entries gone, the end line kept.
    let mut shortened = lines[..lines.len() - 4].to_vec();
    shortened.push(lines.last().unwrap().clone());
    let (ok, said) = helpers::verify_journal(&write("short.ndjson", &shortened));
    assert!(!ok && said.contains("the end line says 26 entries"), "{said}");
    // An export that says it is incomplete.
    let mut incomplete = lines.clone();
    *incomplete.last_mut().unwrap() = lines.last().unwrap().replace(r#""complete":true"#, r#""complete":false,"reason":"held back""#);
    let (ok, said) = helpers::verify_journal(&write("incomplete.ndjson", &incomplete));
    assert!(!ok && said.contains("incomplete: held back"), "{said}");
    // Anything after the end line.
    let mut trailing = lines.clone();
    trailing.push(lines[1].clone());
    let (ok, said) = helpers::verify_journal(&write("trailing.ndjson", &trailing));
    assert!(!ok && said.contains("after the end line"), "{said}");
}

/// PostgreSQL: while another transaction holds a lower seq uncommitted past the pending
/// timeout, an
/// export stops before the acknowledged matches held back and says so in its end line (it
/// does not verify), and `verify --database` fails instead of checking fewer entries.
#[test]
fn postgres_an_export_held_back_says_it_is_incomplete() {
    // Two seconds, not thirty: the held transaction holds back every ladder of the cluster
    // (the horizon is the cluster's oldest transaction), other tests' too.
    let app = TestApp::spawn_args(Backend::Postgres, &["--rate-limit", "0", "--pending-timeout", "2"]);
    app.put_ladder("main", RULES);
    app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(r#"{"id":"m0","a":"x","b":"y","score_a":1}"#));
    let holder = HeldTransaction::start(&app.server.database);
    for i in 1..6 {
        app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(&format!(r#"{{"id":"m{i}","a":"x","b":"y","score_a":1}}"#)));
    }
    let (status, text) = app.call("GET", "/v1/ladders/main/export", &app.admin, None);
    assert_eq!(status, 200);
    let end: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(end["end"]["complete"], Value::Bool(false), "{end}");
    assert!(end["end"]["reason"].as_str().unwrap().contains("held back"), "{end}");
    assert!(end["end"]["entries"].as_u64().unwrap() < 6, "{end}");
    let dir = helpers::TempDir::new("held");
    let path = dir.0.join("held.ndjson");
    std::fs::write(&path, &text).unwrap();
    let (ok, said) = helpers::verify_journal(&path);
    assert!(!ok && said.contains("incomplete"), "{said}");
    let output = std::process::Command::new(helpers::binary()).args(["verify", "--pending-timeout", "2", "--database", &app.server.database, "--ladder", "main"]).output().unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && said.contains("could be read through seq"), "{said}");
    drop(holder);
}
