//! The ladder server's load benchmark (BENCHMARKS.md): matches per second and report
//! latency with 1, 8 and 32 concurrent reporters on SQLite (synchronous FULL and NORMAL)
//! and PostgreSQL (one and two server instances, on an empty journal and on one that
//! already holds 1,000,000 entries), pgbench's TPC-B-like transactions per second on the
//! same cluster in the same run (the database's own limit, for the ratios), and leaderboard
//! reads (the top, one player's rank, the view around a player, a page half way down) at
//! 1,000,000 players, or as many as `players=N` says. Every request goes through HTTP to the
//! real `elo-ladder`; nothing is asserted (speed is measured here, never in tests).
//!
//! `cargo xtask bench-ladder [seconds per run]` or
//! `cargo bench -p ranking-elo-ladder --bench load -- [seconds per run] [postgres] [empty]
//! [reports] [leaderboard] [players=N] [provisional=N] [tags=N]` (`postgres`: only PostgreSQL; `empty`: only on an
//! empty journal; `reports`: only the reports; `leaderboard`: only the reads; `tags=N`: the
//! players also spread over N region tags, and one tag's board read the same way). `annul
//! [matches=N]`: a SQLite ladder of 100,000 players and N (1,000,000) reported matches, then
//! (once the checkpointer has caught up) the time to annul its newest match and its first,
//! each with another ladder's worst report latency meanwhile, and the export's. `season-end [players=N]`: a season end of
//! a SQLite ladder of N (300,000) players while a client reports to another ladder.
//! `ELO_LADDER_BIN=path` runs another build of `elo-ladder` (an older commit's, for a
//! before/after comparison in one session): it needs only `serve --listen --database
//! --rate-limit` and `keys create`.

#[path = "../tests/api/helpers.rs"]
#[allow(dead_code)]
mod helpers;

#[allow(dead_code, reason = "the load benchmark sends and reads in one call")]
mod connection;

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use connection::Connection;
use helpers::{Backend, Server, TempDir};

const RULES: &str = r#"{"k_policy":{"policy":"constant","k":32}}"#;
const PLAYERS: u64 = 10_000;

struct Run {
    matches: usize,
    seconds: f64,
    latencies: Vec<Duration>,
}

/// `reporters` threads report random pairs over [`PLAYERS`] players for `seconds`,
/// spreading over `addresses`.
fn load(addresses: &[String], key: &str, ladder: &str, reporters: usize, seconds: f64, tag: &str) -> Run {
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let threads: Vec<_> = (0..reporters)
        .map(|t| {
            let (address, key, ladder, stop, tag) = (addresses[t % addresses.len()].clone(), key.to_owned(), ladder.to_owned(), Arc::clone(&stop), tag.to_owned());
            std::thread::spawn(move || {
                let mut connection = Connection::open(&address);
                let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ (t as u64 + 1);
                let mut next = move || {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed
                };
                let mut latencies = Vec::new();
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let a = next() % PLAYERS;
                    let b = (a + 1 + next() % (PLAYERS - 1)) % PLAYERS;
                    let body = format!(r#"{{"id":"{tag}-{t}-{i}","a":"p{a}","b":"p{b}","score_a":{}}}"#, next() % 2);
                    let sent = Instant::now();
                    let (status, text) = connection.request("POST", &format!("/v1/ladders/{ladder}/matches"), &key, &body);
                    assert_eq!(status, 200, "{text}");
                    latencies.push(sent.elapsed());
                    i += 1;
                }
                latencies
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::Relaxed);
    let mut latencies: Vec<Duration> = threads.into_iter().flat_map(|t| t.join().expect("reporter")).collect();
    let seconds = started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    Run { matches: latencies.len(), seconds, latencies }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1000.0
}

fn report(label: &str, reporters: usize, run: &Run) {
    println!("| {label} | {reporters} | {:.0} | {:.2} | {:.2} |", run.matches as f64 / run.seconds, percentile(&run.latencies, 0.5), percentile(&run.latencies, 0.99));
}

/// A ladder with keys on a fresh database; the players join during a warm-up.
fn prepare(database: &str, servers: &[&Server], ladder: &str) -> String {
    let admin = helpers::key(database, "admin", None);
    let (status, text) = Connection::open(&servers[0].address).request("PUT", &format!("/v1/ladders/{ladder}"), &admin, RULES);
    assert_eq!(status, 201, "{text}");
    admin
}

/// A server of the benchmarked build (`ELO_LADDER_BIN` or this one), without a rate limit,
/// with `extra` arguments.
fn server(database: &str, extra: &[&str]) -> Server {
    let mut args = vec!["--rate-limit", "0"];
    args.extend_from_slice(extra);
    Server::start_with(database, 0, &args)
}

/// Runs 1, 8 and 32 reporters; returns the matches per second with 8.
fn matches_per_second(backend: Backend, label: &str, database: &str, instances: usize, extra: &[&str], seconds: f64) -> f64 {
    let servers: Vec<Server> = (0..instances).map(|_| server(database, extra)).collect();
    let refs: Vec<&Server> = servers.iter().collect();
    let admin = prepare(database, &refs, "bench");
    let addresses: Vec<String> = servers.iter().map(|s| s.address.clone()).collect();
    // Warm-up: every player joins (first matches insert rows), statements get prepared.
    load(&addresses, &admin, "bench", 8, seconds.min(3.0), &format!("warm{instances}"));
    let mut eight = 0.0;
    for reporters in [1, 8, 32] {
        let run = load(&addresses, &admin, "bench", reporters, seconds, &format!("r{reporters}"));
        report(label, reporters, &run);
        if reporters == 8 {
            eight = run.matches as f64 / run.seconds;
        }
    }
    let _ = backend;
    eight
}

/// Times `count` GETs of `path` on one keep-alive connection; returns the median and p99
/// in milliseconds.
fn time_gets(address: &str, key: &str, path: &str, count: usize) -> (f64, f64) {
    let mut connection = Connection::open(address);
    let mut times = Vec::with_capacity(count);
    for _ in 0..count {
        let started = Instant::now();
        let (status, text) = connection.request("GET", path, key, "");
        assert_eq!(status, 200, "{text}");
        times.push(started.elapsed());
    }
    times.sort_unstable();
    (percentile(&times, 0.5), percentile(&times, 0.99))
}

/// The columns of a player row the seeding writes.
const SEEDED_COLUMNS: &str = "ladder_id, name, rating, games_played, win_streak, period_games, is_junior, has_reached_2400, league, protected_games, season_games, season_wins, peak_rating, peak_league, last_played";

/// Writes `players` players `p1`… into the SQLite ladder `ladder` in one transaction, ratings
/// spread like a real ladder's (1500 plus the sum of four uniform draws, standard deviation
/// about 230), and sets the ladder's player count.
fn seed_sqlite_players(database: &str, ladder: &str, players: u64) {
    let path = database.strip_prefix("sqlite://").expect("sqlite path");
    let connection = rusqlite::Connection::open(path).expect("open");
    // A build with rank buckets counts them once after the load (as a season end did)
    // instead of row by row.
    let buckets = connection.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'rank_control'", [], |r| r.get::<_, i64>(0)).expect("schema") == 1;
    // Ratings in 1/1024 steps: f32 values, as the server writes them (SQLite keeps a REAL as
    // a double).
    let uniform = "((abs(random()) % 1000000) / 1000000.0 - 0.5)";
    connection
        .execute_batch(&format!(
            "BEGIN; {bulk} WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {players}) \
             INSERT INTO players ({SEEDED_COLUMNS}) SELECT (SELECT id FROM ladders WHERE name = '{ladder}'), 'p' || i, \
             round((1500 + 400 * ({uniform} + {uniform} + {uniform} + {uniform})) * 1024) / 1024.0, 10, 0, 0, 0, 0, 0, 0, 10, 5, 1600, 0, 0 FROM n; \
             UPDATE ladders SET players = (SELECT count(*) FROM players WHERE players.ladder_id = ladders.id); {recount} COMMIT; ANALYZE;",
            bulk = if buckets { "UPDATE rank_control SET bulk = 1;" } else { "" },
            recount = if buckets {
                "INSERT INTO rank_buckets (ladder_id, level, bucket, count) \
                 SELECT ladder_id, 0, CAST(rating * 4 AS INTEGER) - (rating * 4 < CAST(rating * 4 AS INTEGER)) AS b, count(*) FROM players GROUP BY ladder_id, b; \
                 INSERT INTO rank_buckets (ladder_id, level, bucket, count) \
                 SELECT ladder_id, 1, CAST(rating / 16 AS INTEGER) - (rating / 16 < CAST(rating / 16 AS INTEGER)) AS b, count(*) FROM players GROUP BY ladder_id, b; \
                 UPDATE rank_control SET bulk = 0;"
            } else {
                ""
            },
        ))
        .expect("seed");
}

/// A ladder of `players` players written straight into the database (through the API it
/// would take hours), ratings spread like a real ladder's (1500 plus the sum of four
/// uniform draws, standard deviation about 230), then read through the API: the top 100, a
/// player's rank, 21 lines around a player, and the 100 lines from the middle rank.
fn leaderboard(backend: Backend, label: &str, database: &str, players: u64, provisional: u32, tags: u64) {
    let server = server(database, &[]);
    let admin = prepare(database, &[&server], "big");
    let seeded = Instant::now();
    match backend {
        Backend::Sqlite => seed_sqlite_players(database, "big", players),
        Backend::Postgres => {
            let sql = format!(
                "INSERT INTO players ({SEEDED_COLUMNS}) SELECT (SELECT id FROM ladders WHERE name = 'big'), 'p' || i, \
                 (1500 + 400 * (random() + random() + random() + random() - 2))::real, 10, 0, 0, false, false, 0, 0, 10, 5, 1600, 0, 0 FROM generate_series(1, {players}) AS i"
            );
            for sql in [sql.as_str(), "VACUUM ANALYZE players", "CHECKPOINT"] {
                let status = helpers::psql_background(database, sql).wait().expect("psql");
                assert!(status.success());
            }
        }
    }
    let seeded = seeded.elapsed().as_secs_f64();
    // `provisional=N`: the ladder option set first (the board without provisional players:
    // every seeded player has 10 games, so N up to 10 leaves everybody on it, through the
    // queries that leave provisional players out).
    let label = if provisional > 0 {
        let started = Instant::now();
        let (status, text) =
            helpers::call(&server.address, "PUT", "/v1/ladders/big/options", Some(&admin), Some(&format!(r#"{{"provisional_games":{provisional}}}"#))).expect("PUT options");
        assert_eq!(status, 200, "{text}");
        println!("{label}: provisional_games {provisional} set (the provisional players recounted) in {:.1} s", started.elapsed().as_secs_f64());
        format!("{label}, provisional_games {provisional}")
    } else {
        label.to_owned()
    };
    let label = label.as_str();
    let middle = players / 2;
    let (top_p50, top_p99) = time_gets(&server.address, &admin, "/v1/ladders/big/leaderboard?limit=100", 200);
    let mut lines = vec![format!("| {label} | top 100 | {top_p50:.2} | {top_p99:.2} |")];
    // Different players each time (a cached answer would flatter the figure).
    let mut rng = 0x2545_F491_4F6C_DD1D_u64;
    let mut pick = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        1 + rng % players
    };
    let paths: Vec<String> = (0..200).map(|_| format!("/v1/ladders/big/players/p{}", pick())).collect();
    let (p50, p99) = time_paths(&server.address, &admin, &paths);
    lines.push(format!("| {label} | one player's rank (200 players) | {p50:.2} | {p99:.2} |"));
    let paths: Vec<String> = (0..200).map(|_| format!("/v1/ladders/big/leaderboard?around=p{}&limit=21", pick())).collect();
    let (p50, p99) = time_paths(&server.address, &admin, &paths);
    lines.push(format!("| {label} | 21 around a player (200 players) | {p50:.2} | {p99:.2} |"));
    let paths: Vec<String> = (0..100).map(|k| format!("/v1/ladders/big/leaderboard?limit=100&offset={}", middle + k * 37)).collect();
    let (p50, p99) = time_paths(&server.address, &admin, &paths);
    lines.push(format!("| {label} | 100 lines from rank {} (100 pages) | {p50:.2} | {p99:.2} |", middle + 1));
    lines.push(format!("| {label} | (seeding {seeded:.0} s) | | |"));
    if tags > 0 {
        lines.extend(tag_boards(backend, label, database, &server.address, &admin, players, tags));
    }
    println!("{}", lines.join("\n"));
}

/// `tags=N`: every player given one of N regions (`region:r0`…, player `pI` in `r{I mod N}`)
/// by rows written straight into the database (the tag triggers counting them), then region
/// r1's board read through the API as the ladder's is: its top 100, 21 around a player, and
/// 100 lines from its middle.
fn tag_boards(backend: Backend, label: &str, database: &str, address: &str, admin: &str, players: u64, tags: u64) -> Vec<String> {
    let started = Instant::now();
    let sql = format!(
        "WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < {last}) \
         INSERT INTO tags (ladder_id, key, value) SELECT l.id, 'region', 'r' || r.i FROM ladders l, r WHERE l.name = 'big'; \
         INSERT INTO tag_members (tag_id, player_id, rating, games_played) \
         SELECT t.id, p.id, p.rating, p.games_played FROM players p JOIN tags t ON t.ladder_id = p.ladder_id AND t.key = 'region' \
         AND t.value = 'r' || (CAST(substr(p.name, 2) AS INTEGER) % {tags})",
        last = tags - 1
    );
    match backend {
        Backend::Sqlite => {
            let connection = rusqlite::Connection::open(helpers::sqlite_file(database)).expect("open");
            connection.busy_timeout(Duration::from_secs(60)).expect("busy timeout");
            connection.execute_batch(&format!("BEGIN; {sql}; COMMIT; ANALYZE;")).expect("tags");
        }
        Backend::Postgres => {
            for sql in [format!("BEGIN; {sql}; COMMIT;").replace("AS INTEGER", "AS BIGINT"), "VACUUM ANALYZE tag_members".to_owned(), "CHECKPOINT".to_owned()] {
                let status = helpers::psql_background(database, &sql).wait().expect("psql");
                assert!(status.success());
            }
        }
    }
    let seeded = started.elapsed().as_secs_f64();
    let size = players / tags;
    let label = format!("{label}, tag region:r1 ({size} players of {players})");
    let (p50, p99) = time_gets(address, admin, "/v1/ladders/big/leaderboard?tag=region:r1&limit=100", 200);
    let mut lines = vec![format!("| {label} | top 100 | {p50:.2} | {p99:.2} |")];
    let mut rng = 0x2545_F491_4F6C_DD1D_u64;
    let mut pick = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        // A player of r1: pI with I mod tags = 1.
        (rng % size) * tags + 1
    };
    let paths: Vec<String> = (0..200).map(|_| format!("/v1/ladders/big/leaderboard?tag=region:r1&around=p{}&limit=21", pick())).collect();
    let (p50, p99) = time_paths(address, admin, &paths);
    lines.push(format!("| {label} | 21 around a player (200 players) | {p50:.2} | {p99:.2} |"));
    let middle = size / 2;
    let paths: Vec<String> = (0..100).map(|k| format!("/v1/ladders/big/leaderboard?tag=region:r1&limit=100&offset={}", middle + k * 37)).collect();
    let (p50, p99) = time_paths(address, admin, &paths);
    lines.push(format!("| {label} | 100 lines from rank {} (100 pages) | {p50:.2} | {p99:.2} |", middle + 1));
    lines.push(format!("| {label} | (tagging {seeded:.0} s) | | |"));
    lines
}

/// A SQLite ladder of `players` players built by `matches` reported matches (8 reporters,
/// through the API: a real journal), then the cost of annulling its first match (every
/// later state rebuilt from the journal) and its last.
fn annul_far_back(players: u64, matches: u64) {
    let dir = TempDir::new("bench-annul");
    // Commits need not wait for the disk while the journal is written.
    let database = format!("{}?synchronous=normal", helpers::database(Backend::Sqlite, &dir));
    let server = server(&database, &["--request-timeout", "600"]);
    let admin = prepare(&database, &[&server], "season");
    let written = Instant::now();
    let reporters = 8;
    let threads: Vec<_> = (0..reporters)
        .map(|t| {
            let (address, key) = (server.address.clone(), admin.clone());
            std::thread::spawn(move || {
                let mut connection = Connection::open(&address);
                let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ (t + 1);
                let mut next = move || {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed
                };
                for i in 0..matches / reporters {
                    let a = next() % players;
                    let b = (a + 1 + next() % (players - 1)) % players;
                    let body = format!(r#"{{"id":"m-{t}-{i}","a":"p{a}","b":"p{b}","score_a":{}}}"#, next() % 2);
                    let (status, text) = connection.request("POST", "/v1/ladders/season/matches", &key, &body);
                    assert_eq!(status, 200, "{text}");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("reporter");
    }
    let written = written.elapsed().as_secs_f64();
    let mut connection = Connection::open(&server.address);
    let (_, first) = connection.request("GET", "/v1/ladders/season/matches?limit=1", &admin, "");
    let first: serde_json::Value = serde_json::from_str(&first).expect("journal");
    let first_id = first["entries"][0]["id"].as_str().expect("the first match").to_owned();
    let last_id = format!("m-{}-{}", reporters - 1, matches / reporters - 1);
    // The server's checkpointer catches up with the journal (a checkpoint every 50,000
    // entries, laid on a read snapshot).
    let caught_up = Instant::now();
    let file = helpers::sqlite_file(&database).to_owned();
    let newest_checkpoint = || -> i64 {
        let connection = rusqlite::Connection::open(&file).expect("sqlite");
        connection.busy_timeout(Duration::from_secs(10)).expect("busy timeout");
        connection.query_row("SELECT coalesce(max(seq), 0) FROM rebuild_checkpoints", [], |r| r.get(0)).expect("checkpoints")
    };
    while newest_checkpoint() + 50_000 < i64::try_from(matches).unwrap_or(i64::MAX) {
        std::thread::sleep(Duration::from_millis(500));
    }
    let caught_up = caught_up.elapsed().as_secs_f64();
    // Another ladder's client reports one match after another throughout; its worst wait
    // during each amendment is what the amendment costs everybody else.
    let (_, _) = connection.request("PUT", "/v1/ladders/other", &admin, RULES);
    let probing = Arc::new(AtomicBool::new(true));
    let waits = Arc::new(std::sync::Mutex::new(Vec::<(Instant, Duration)>::new()));
    let prober = {
        let (address, key, probing, waits) = (server.address.clone(), admin.clone(), Arc::clone(&probing), Arc::clone(&waits));
        std::thread::spawn(move || {
            let mut connection = Connection::open(&address);
            let mut i = 0u64;
            while probing.load(Ordering::SeqCst) {
                let body = format!(r#"{{"id":"o{i}","a":"x","b":"y","score_a":1}}"#);
                let started = Instant::now();
                let (status, text) = connection.request("POST", "/v1/ladders/other/matches", &key, &body);
                assert_eq!(status, 200, "{text}");
                waits.lock().expect("waits").push((started, started.elapsed()));
                i += 1;
            }
        })
    };
    std::thread::sleep(Duration::from_secs(2));
    println!("\n(the checkpointer caught up {caught_up:.0} s after the journal was written)");
    println!("\n| SQLite ladder | journal | annulled | rebuild s | entries replayed | matches re-rated | players changed | other ladder's worst report ms |\n|---|---|---|---|---|---|---|---|");
    for (what, id) in [("the newest match", last_id), ("the first match", first_id)] {
        let started = Instant::now();
        let (status, text) = connection.request("POST", &format!("/v1/ladders/season/matches/{id}/annul"), &admin, r#"{"reason":"benchmark"}"#);
        let seconds = started.elapsed().as_secs_f64();
        assert_eq!(status, 200, "{text}");
        std::thread::sleep(Duration::from_millis(500));
        let worst = waits.lock().expect("waits").iter().filter(|(at, wait)| *at + *wait >= started).map(|(_, wait)| wait.as_secs_f64() * 1000.0).fold(0.0, f64::max);
        let answer: serde_json::Value = serde_json::from_str(&text).expect("answer");
        println!(
            "| {players} players | {matches} matches (written in {written:.0} s) | {what} | {seconds:.2} | {} | {} | {} | {worst:.0} |",
            answer["replayed"], answer["rerated"], answer["players_changed"]
        );
    }
    // The export of the whole journal, streamed.
    let started = Instant::now();
    let (status, text) = helpers::call(&server.address, "GET", "/v1/ladders/season/export", Some(&admin), None).expect("export");
    assert_eq!(status, 200);
    let seconds = started.elapsed().as_secs_f64();
    let worst = waits.lock().expect("waits").iter().filter(|(at, wait)| *at + *wait >= started).map(|(_, wait)| wait.as_secs_f64() * 1000.0).fold(0.0, f64::max);
    println!("\nexport: {} lines, {:.0} MB in {seconds:.1} s; the other ladder's worst report meanwhile {worst:.0} ms", text.lines().count(), text.len() as f64 / 1e6);
    probing.store(false, Ordering::SeqCst);
    prober.join().expect("prober");
}

/// A season end of a SQLite ladder of `players` players (written straight into the
/// database, as [`leaderboard`] does) while one client reports matches to another ladder,
/// one after another: the season end's time and how long those reports waited.
fn season_end_stall(players: u64) {
    let dir = TempDir::new("bench-season");
    let database = helpers::database(Backend::Sqlite, &dir);
    let server = server(&database, &[]);
    let admin = prepare(&database, &[&server], "big");
    let (status, text) = Connection::open(&server.address).request("PUT", "/v1/ladders/small", &admin, RULES);
    assert_eq!(status, 201, "{text}");
    seed_sqlite_players(&database, "big", players);
    let done = Arc::new(AtomicBool::new(false));
    let reporter = {
        let (address, key, done) = (server.address.clone(), admin.clone(), Arc::clone(&done));
        std::thread::spawn(move || {
            let mut connection = Connection::open(&address);
            let mut waits = Vec::new();
            let mut i = 0;
            while !done.load(Ordering::Relaxed) {
                let started = Instant::now();
                let body = format!(r#"{{"id":"s{i}","a":"x{}","b":"y{}","score_a":1}}"#, i % 10, i % 7);
                let (status, text) = connection.request("POST", "/v1/ladders/small/matches", &key, &body);
                assert_eq!(status, 200, "{text}");
                waits.push(started.elapsed());
                i += 1;
                std::thread::sleep(Duration::from_millis(5));
            }
            waits
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let (status, text) = Connection::open(&server.address).request("POST", "/v1/ladders/big/seasons/end", &admin, r#"{"id":"end-1"}"#);
    let took = started.elapsed().as_secs_f64();
    assert_eq!(status, 200, "{text}");
    done.store(true, Ordering::Relaxed);
    let mut waits = reporter.join().expect("reporter");
    waits.sort_unstable();
    println!(
        "| SQLite, {players} players | season end {took:.1} s | {} reports to another ladder meanwhile: p50 {:.1} ms, p99 {:.1} ms, longest {:.1} ms |",
        waits.len(),
        percentile(&waits, 0.5),
        percentile(&waits, 0.99),
        waits.last().map_or(0.0, |w| w.as_secs_f64() * 1000.0)
    );
}

/// Each path read once, in order, on one connection: p50 and p99 in milliseconds.
fn time_paths(address: &str, key: &str, paths: &[String]) -> (f64, f64) {
    let mut connection = Connection::open(address);
    let mut times = Vec::with_capacity(paths.len());
    for path in paths {
        let started = Instant::now();
        let (status, text) = connection.request("GET", path, key, "");
        assert_eq!(status, 200, "{path}: {text}");
        times.push(started.elapsed());
    }
    times.sort_unstable();
    (percentile(&times, 0.5), percentile(&times, 0.99))
}

/// Writes `count` journal entries of another ladder straight into the database (about
/// 300 bytes each, like a pair's), as a journal grown over a season would be.
fn grow_journal(database: &str, count: u64) -> f64 {
    let started = Instant::now();
    // The schema of this build or an older one (whose journal had a `horizon` column).
    let has_horizon = helpers::psql_query(database, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'journal' AND column_name = 'horizon'") == "1";
    // (Entries of another ladder, already chained as far as the chainer is concerned.)
    let (extra_columns, extra_values) = if has_horizon { (", horizon", ", 0") } else { (", bytes, hash", ", 300, '\\x00'") };
    let sql = format!(
        "INSERT INTO ladders (name, config, created_at) VALUES ('history', '{{}}', 0); \
         INSERT INTO journal (seq, ladder_id, match_id, kind, inputs, time, joined, results{extra_columns}) \
         SELECT nextval('journal_seq'), (SELECT id FROM ladders WHERE name = 'history'), 'old-' || i, 'pair', '{{\"kind\":\"pair\",\"a\":\"p1\",\"b\":\"p2\",\"score_a\":1.0}}', 0, '[]', \
         repeat('x', 220){extra_values} FROM generate_series(1, {count}) AS i"
    );
    // Written, vacuumed and checkpointed: the runs measure a grown journal, not the writing
    // back of a bulk load.
    for sql in [sql.as_str(), "VACUUM ANALYZE journal", "CHECKPOINT"] {
        let status = helpers::psql_background(database, sql).wait().expect("psql");
        assert!(status.success(), "seeding the journal");
    }
    started.elapsed().as_secs_f64()
}

/// A database of the cluster initialized for pgbench (scale 10).
fn pgbench_database() -> String {
    let dir = TempDir::new("pgbench");
    let database = helpers::database(Backend::Postgres, &dir);
    let init = Command::new(helpers::postgres_bin_dir().join("pgbench")).args(["-i", "-s", "10", "-q", &database]).output().expect("pgbench -i");
    assert!(init.status.success(), "pgbench -i: {}", String::from_utf8_lossy(&init.stderr));
    database
}

/// pgbench's TPC-B-like script with 8 clients on `database`: the cluster's transactions
/// per second now (this machine's disk latency changes from minute to minute, so it is
/// measured next to each configuration).
fn pgbench(database: &str, seconds: f64) -> f64 {
    let bin = helpers::postgres_bin_dir();
    let run = Command::new(bin.join("pgbench")).args(["-c", "8", "-j", "2", "-T", &format!("{}", seconds.ceil() as u64), "-b", "tpcb-like", database]).output().expect("pgbench");
    assert!(run.status.success(), "pgbench: {}", String::from_utf8_lossy(&run.stderr));
    let text = String::from_utf8_lossy(&run.stdout);
    text.lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l.trim_start_matches("tps = ").split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or_else(|| panic!("no tps in pgbench's output: {text}"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: f64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(5.0);
    let only_postgres = args.iter().any(|a| a == "postgres");
    let reports = !args.iter().any(|a| a == "leaderboard");
    let reads = !args.iter().any(|a| a == "reports");
    let players: u64 = args.iter().find_map(|a| a.strip_prefix("players=").and_then(|n| n.parse().ok())).unwrap_or(1_000_000);
    let provisional: u32 = args.iter().find_map(|a| a.strip_prefix("provisional=").and_then(|n| n.parse().ok())).unwrap_or(0);
    let tags: u64 = args.iter().find_map(|a| a.strip_prefix("tags=").and_then(|n| n.parse().ok())).unwrap_or(0);
    // `annul [matches=N]`: only the annulment far back (100,000 players).
    if args.iter().any(|a| a == "annul") {
        let matches: u64 = args.iter().find_map(|a| a.strip_prefix("matches=").and_then(|n| n.parse().ok())).unwrap_or(1_000_000);
        annul_far_back(100_000, matches);
        return;
    }
    // `season-end [players=N]`: only a SQLite season end beside another ladder's reports.
    if args.iter().any(|a| a == "season-end") {
        let players: u64 = args.iter().find_map(|a| a.strip_prefix("players=").and_then(|n| n.parse().ok())).unwrap_or(300_000);
        season_end_stall(players);
        return;
    }
    // `empty`: PostgreSQL on an empty journal only (a quicker comparison).
    let journals: &[u64] = if args.iter().any(|a| a == "empty") { &[0] } else { &[0, 1_000_000] };
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned()))
        .unwrap_or_default();
    println!("elo-ladder load benchmark: {seconds} s per run, {cores} cores ({cpu}), {PLAYERS} players, random pairs, keep-alive HTTP/1.1 on 127.0.0.1");
    println!("server: {}", helpers::binary());
    let pg_version = Command::new("sh").args(["-c", "ls /usr/lib/postgresql"]).output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned()).unwrap_or_default();
    if reports {
        report_runs(seconds, only_postgres, journals, &pg_version);
    }
    if only_postgres || !reads {
        return;
    }
    println!("\n| database, {players} players | read | p50 ms | p99 ms |\n|---|---|---|---|");
    let dir = TempDir::new("bench");
    leaderboard(Backend::Sqlite, "SQLite", &helpers::database(Backend::Sqlite, &dir), players, provisional, tags);
    leaderboard(Backend::Postgres, &format!("PostgreSQL {pg_version}"), &helpers::database(Backend::Postgres, &dir), players, provisional, tags);
}

/// The report runs: SQLite both ways, PostgreSQL with one and two instances on each journal.
fn report_runs(seconds: f64, only_postgres: bool, journals: &[u64], pg_version: &str) {
    let bench_db = pgbench_database();
    println!("\n| database | reporters | matches/s | p50 ms | p99 ms |\n|---|---|---|---|---|");
    if !only_postgres {
        for (label, suffix) in [("SQLite, WAL, synchronous=FULL (default)", ""), ("SQLite, WAL, synchronous=NORMAL", "?synchronous=normal")] {
            let dir = TempDir::new("bench");
            let database = format!("{}{suffix}", helpers::database(Backend::Sqlite, &dir));
            matches_per_second(Backend::Sqlite, label, &database, 1, &[], seconds);
        }
    }
    // Two servers also with one committer each (`--committers 1`), which this build has and
    // an older one (ELO_LADDER_BIN) may not.
    let mut setups: Vec<(usize, &[&str])> = vec![(1, &[]), (2, &[])];
    if std::env::var_os("ELO_LADDER_BIN").is_none() {
        setups.push((2, &["--committers", "1"]));
    }
    for &journal in journals {
        for &(instances, extra) in &setups {
            let dir = TempDir::new("bench");
            let database = helpers::database(Backend::Postgres, &dir);
            // The server's first start migrates; the journal is grown after it.
            drop(server(&database, &[]));
            let seeded = if journal > 0 { format!(", {journal} journal entries (written in {:.0} s)", grow_journal(&database, journal)) } else { ", empty journal".to_owned() };
            let before = pgbench(&bench_db, seconds);
            let label = format!(
                "PostgreSQL {pg_version}, {instances} instance{}{}{seeded}",
                if instances == 1 { "" } else { "s" },
                if extra.is_empty() { String::new() } else { format!(" ({})", extra.join(" ")) }
            );
            let eight = matches_per_second(Backend::Postgres, &label, &database, instances, extra, seconds);
            let after = pgbench(&bench_db, seconds);
            let tps = (before + after) / 2.0;
            println!("| pgbench TPC-B-like, 8 clients, scale 10, just before and after | | {before:.0} / {after:.0} tps | 8 reporters / pgbench = {:.2} | |", eight / tps);
        }
    }
}
