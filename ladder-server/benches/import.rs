//! The import benchmark (BENCHMARKS.md): `elo-ladder import` of a history of players and
//! matches (by default 100,000 imported players and 1,000,000 matches: pairs, teams of
//! two and free-for-alls of four), timed, with the import process's peak memory, on SQLite
//! and PostgreSQL; then the same import again, and `elo-ladder verify` of the imported ladder.
//! The server runs beside it (the ladder is created through it). Nothing is asserted but
//! that the import succeeds.
//!
//! `cargo bench -p ranking-elo-ladder --bench import -- [matches=N] [players=N] [sqlite]
//! [postgres]` (SQLite when neither is named).

#[path = "../tests/api/helpers.rs"]
#[allow(dead_code)]
mod helpers;

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use helpers::{Backend, Server, TempDir};

const RULES: &str =
    r#"{"k_policy":{"policy":"constant","k":32},"leagues":[{"name":"Bronze","min_rating":0},{"name":"Silver","min_rating":1500},{"name":"Gold","min_rating":1600}]}"#;

/// A small deterministic random sequence.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// Writes the history: `players` imported players, then `matches` matches a second apart
/// (8 in 10 pairs, 1 a team match of two against two, 1 a free-for-all of four), ending an
/// hour ago. Its size in bytes.
fn write_history(path: &Path, players: u64, matches: u64) -> u64 {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let start = now - 3600 - matches;
    let mut out = BufWriter::new(std::fs::File::create(path).expect("history file"));
    let mut rng = Lcg(2026);
    for p in 0..players {
        let rating = 1200 + rng.below(800);
        let games = rng.below(300);
        writeln!(out, r#"{{"id":"p{p}","time":{start},"player":"p{p}","state":{{"rating":{rating},"games_played":{games},"season_games":{}}}}}"#, games / 3).expect("write");
    }
    let pick = |rng: &mut Lcg, count: usize| {
        let mut chosen: Vec<u64> = Vec::with_capacity(count);
        while chosen.len() < count {
            let p = rng.below(players);
            if !chosen.contains(&p) {
                chosen.push(p);
            }
        }
        chosen
    };
    for m in 0..matches {
        let time = start + m;
        let score = ["1", "0", "0.5"][rng.below(3) as usize];
        match rng.below(10) {
            0 => {
                let p = pick(&mut rng, 4);
                writeln!(out, r#"{{"id":"m{m}","time":{time},"team_a":["p{}","p{}"],"team_b":["p{}","p{}"],"score_a":{score}}}"#, p[0], p[1], p[2], p[3]).expect("write");
            }
            1 => {
                let p = pick(&mut rng, 4);
                writeln!(out, r#"{{"id":"m{m}","time":{time},"entrants":["p{}","p{}","p{}","p{}"],"places":[1,2,3,4]}}"#, p[0], p[1], p[2], p[3]).expect("write");
            }
            _ => {
                let p = pick(&mut rng, 2);
                writeln!(out, r#"{{"id":"m{m}","time":{time},"a":"p{}","b":"p{}","score_a":{score}}}"#, p[0], p[1]).expect("write");
            }
        }
    }
    out.flush().expect("flush");
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Runs a command to its end, sampling its peak resident memory (`VmHWM`) meanwhile: the
/// time, the peak in MiB and what it printed.
fn run_measured(command: &mut Command) -> (Duration, f64, String) {
    let started = Instant::now();
    let child = command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().expect("spawn");
    let pid = child.id();
    let sampler = std::thread::spawn(move || {
        let mut peak = 0.0_f64;
        while let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            let hwm = status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|k| k.parse::<f64>().ok()).unwrap_or(0.0) / 1024.0;
            peak = peak.max(hwm);
            if status.lines().any(|l| l.starts_with("State:") && l.contains('Z')) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        peak
    });
    let output = child.wait_with_output().expect("wait");
    let elapsed = started.elapsed();
    let peak = sampler.join().unwrap_or(0.0);
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{said}");
    (elapsed, peak, said)
}

fn bench(backend: Backend, file: &Path, lines: u64) {
    let dir = TempDir::new("import-bench");
    let database = helpers::database(backend, &dir);
    let server = Server::start(&database, 0, 0);
    let admin = helpers::key(&database, "admin", None);
    let (status, text) = helpers::call(&server.address, "PUT", "/v1/ladders/l", Some(&admin), Some(RULES)).expect("PUT");
    assert_eq!(status, 201, "{text}");
    let (took, peak, said) = run_measured(Command::new(helpers::binary()).args(["import", "--database", &database, "--ladder", "l"]).arg(file));
    let summary = said.lines().find(|l| l.starts_with('{')).unwrap_or_default().to_owned();
    println!("{backend:?}: imported {lines} lines in {:.1} s ({:.0} lines/s), import process peak {peak:.0} MiB; {summary}", took.as_secs_f64(), lines as f64 / took.as_secs_f64());
    let (again, again_peak, _) = run_measured(Command::new(helpers::binary()).args(["import", "--database", &database, "--ladder", "l"]).arg(file));
    println!("{backend:?}: the same import again (every line already applied): {:.1} s, peak {again_peak:.0} MiB", again.as_secs_f64());
    let (verified, verify_peak, said) = run_measured(Command::new(helpers::binary()).args(["verify", "--database", &database, "--ladder", "l"]));
    println!("{backend:?}: elo-ladder verify of the imported ladder: {:.1} s, peak {verify_peak:.0} MiB: {}", verified.as_secs_f64(), said.trim());
    if backend == Backend::Sqlite {
        let bytes = std::fs::metadata(helpers::sqlite_file(&database)).map_or(0, |m| m.len());
        println!("{backend:?}: database file {:.0} MiB", bytes as f64 / 1024.0 / 1024.0);
    }
    drop(server);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |name: &str, default: u64| args.iter().find_map(|a| a.strip_prefix(&format!("{name}="))).and_then(|v| v.parse().ok()).unwrap_or(default);
    let matches = number("matches", 1_000_000);
    let players = number("players", 100_000);
    let dir = TempDir::new("import-history");
    let file = dir.0.join("history.ndjson");
    let bytes = write_history(&file, players, matches);
    println!("history: {players} players and {matches} matches, {:.0} MiB of NDJSON", bytes as f64 / 1024.0 / 1024.0);
    let postgres = args.iter().any(|a| a == "postgres");
    if !postgres || args.iter().any(|a| a == "sqlite") {
        bench(Backend::Sqlite, &file, players + matches);
    }
    if postgres {
        bench(Backend::Postgres, &file, players + matches);
    }
}
