//! The matchmaking benchmark (BENCHMARKS.md): a queue holding 100,000 waiting tickets (a
//! tick's time while none can meet, the tick that matches them all, the server's memory, the
//! joins per second), and 10,000 long-polls waiting on one instance (the server's memory and
//! the time from the match to each answer). Every request goes through HTTP to the real
//! `elo-ladder`; nothing is asserted.
//!
//! `cargo bench -p ranking-elo-ladder --bench queues -- [tickets=N] [polls=N] [postgres]
//! [ticks] [long-polls]` (`ticks`: only the queue of N tickets, on SQLite and, with
//! `postgres`, on PostgreSQL too; `long-polls`: only the long-polls, on SQLite).
//!
//! Tickets are held apart by an attribute (`room`) with a value of their own each, so no two
//! can meet; replacing the queue's settings without the attribute lets them all meet at the
//! next tick.

#[path = "../tests/api/helpers.rs"]
#[allow(dead_code)]
mod helpers;

mod connection;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use connection::Connection;
use helpers::{Backend, Server, TempDir};

const RULES: &str = r#"{"k_policy":{"policy":"constant","k":32}}"#;
const HELD: &str = r#"{"mode":"pair","attributes":["room"],"ticket_seconds":3600,"matchmaking":{"initial_distance":400}}"#;
const OPEN: &str = r#"{"mode":"pair","ticket_seconds":3600,"matchmaking":{"initial_distance":400}}"#;

/// The server's resident memory now and at its peak, in MiB (`/proc`).
fn memory(server: &Server) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).unwrap_or_default();
    let field = |name: &str| status.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)).and_then(|k| k.parse::<f64>().ok()).unwrap_or(0.0) / 1024.0;
    (field("VmRSS:"), field("VmHWM:"))
}

/// The tick histogram's sum and count for queue `q` of ladder `l` (`/metrics`).
fn tick_totals(address: &str, admin: &str) -> (f64, f64) {
    let (_, text) = Connection::open(address).request("GET", "/metrics", admin, "");
    let value = |name: &str| {
        text.lines().find(|l| l.starts_with(&format!("{name}{{ladder=\"l\",queue=\"q\"}}"))).and_then(|l| l.rsplit(' ').next()).and_then(|v| v.parse().ok()).unwrap_or(0.0)
    };
    (value("elo_ladder_queue_tick_duration_seconds_sum"), value("elo_ladder_queue_tick_duration_seconds_count"))
}

/// A server with the limits a crowd of long-polls needs, ticking every `interval_ms`.
fn server(database: &str, interval_ms: u32) -> Server {
    let interval = interval_ms.to_string();
    Server::start_with(database, 0, &["--rate-limit", "0", "--max-connections", "30000", "--max-connections-per-address", "30000", "--matchmaking-interval-ms", &interval])
}

/// A ladder `l` with the held queue `q`; the admin key.
fn prepare(database: &str, address: &str) -> String {
    let admin = helpers::key(database, "admin", None);
    let mut connection = Connection::open(address);
    assert_eq!(connection.request("PUT", "/v1/ladders/l", &admin, RULES).0, 201);
    assert_eq!(connection.request("PUT", "/v1/ladders/l/queues/q", &admin, HELD).0, 201);
    admin
}

/// Joins `count` tickets (player `p{i}`, room `r{i}`) from 4 clients; the joins per second
/// and the tickets' ids.
fn join_all(address: &str, key: &str, count: usize) -> (f64, Vec<String>) {
    let started = Instant::now();
    let clients: Vec<_> = (0..4)
        .map(|client| {
            let (address, key) = (address.to_owned(), key.to_owned());
            std::thread::spawn(move || {
                let mut connection = Connection::open(&address);
                let mut ids = Vec::new();
                for i in (client..count).step_by(4) {
                    let (status, text) = connection.request("POST", "/v1/ladders/l/queues/q/tickets", &key, &format!(r#"{{"players":["p{i}"],"attributes":{{"room":"r{i}"}}}}"#));
                    assert_eq!(status, 201, "{text}");
                    ids.push(serde_json::from_str::<serde_json::Value>(&text).expect("a ticket")["ticket"].as_str().expect("an id").to_owned());
                }
                ids
            })
        })
        .collect();
    let mut ids = Vec::with_capacity(count);
    for client in clients {
        ids.extend(client.join().expect("a client"));
    }
    (count as f64 / started.elapsed().as_secs_f64(), ids)
}

/// Waits until the queue holds at most `left` waiting tickets.
fn drained(address: &str, key: &str, left: i64) {
    let mut connection = Connection::open(address);
    loop {
        let (_, text) = connection.request("GET", "/v1/ladders/l/queues/q", key, "");
        let waiting = serde_json::from_str::<serde_json::Value>(&text).expect("a queue")["waiting"].as_i64().expect("waiting");
        if waiting <= left {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn ticks(backend: Backend, label: &str, tickets: usize) {
    let dir = TempDir::new("bench-queues");
    let database = helpers::database(backend, &dir);
    let server = server(&database, 1000);
    let admin = prepare(&database, &server.address);
    let (joins, _) = join_all(&server.address, &admin, tickets);
    // A few ticks over the held queue (every ticket read and offered to the engine; none meet).
    let (sum, count) = tick_totals(&server.address, &admin);
    std::thread::sleep(Duration::from_secs(5));
    let (sum_after, count_after) = tick_totals(&server.address, &admin);
    let held = (sum_after - sum) / (count_after - count).max(1.0);
    let (rss, _) = memory(&server);
    // Every ticket may meet every other: the next tick matches them all.
    assert_eq!(Connection::open(&server.address).request("PUT", "/v1/ladders/l/queues/q", &admin, OPEN).0, 200);
    let (sum, count) = tick_totals(&server.address, &admin);
    let started = Instant::now();
    drained(&server.address, &admin, 1);
    let seen = started.elapsed().as_secs_f64();
    let (sum_after, count_after) = tick_totals(&server.address, &admin);
    let (_, peak) = memory(&server);
    println!("| {label} | {tickets} | {joins:.0} | {:.0} | {:.0} ({} ticks) | {seen:.1} | {rss:.0} | {peak:.0} |", held * 1000.0, (sum_after - sum) * 1000.0, count_after - count);
}

/// `polls` long-polls of one ticket each wait on one server; the queue is opened; each
/// answer's time after its match.
fn long_polls(polls: usize) {
    let dir = TempDir::new("bench-polls");
    let database = helpers::database(Backend::Sqlite, &dir);
    let server = server(&database, 100);
    let admin = prepare(&database, &server.address);
    let (before, _) = memory(&server);
    let (_, ids) = join_all(&server.address, &admin, polls);
    let (joined, _) = memory(&server);
    let sent = Arc::new(AtomicUsize::new(0));
    let waiters: Vec<_> = ids
        .into_iter()
        .map(|id| {
            let (address, key, sent) = (server.address.clone(), admin.clone(), Arc::clone(&sent));
            std::thread::Builder::new()
                .stack_size(64 * 1024)
                .spawn(move || {
                    let mut connection = Connection::open(&address);
                    connection.send("GET", &format!("/v1/ladders/l/queues/q/tickets/{id}?wait=30"), &key, "");
                    sent.fetch_add(1, Ordering::SeqCst);
                    let (status, text) = connection.answer();
                    let at = SystemTime::now().duration_since(UNIX_EPOCH).expect("clock").as_secs_f64();
                    assert_eq!(status, 200, "{text}");
                    let ticket: serde_json::Value = serde_json::from_str(&text).expect("a ticket");
                    (at, ticket["match"]["time"].as_f64())
                })
                .expect("a thread")
        })
        .collect();
    while sent.load(Ordering::SeqCst) < polls {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(2));
    let (waiting, _) = memory(&server);
    assert_eq!(Connection::open(&server.address).request("PUT", "/v1/ladders/l/queues/q", &admin, OPEN).0, 200);
    let mut delays: Vec<f64> = Vec::with_capacity(polls);
    let mut unmatched = 0;
    for waiter in waiters {
        match waiter.join().expect("a waiter") {
            (at, Some(time)) => delays.push((at - time) * 1000.0),
            (_, None) => unmatched += 1,
        }
    }
    delays.sort_by(f64::total_cmp);
    let at = |p: f64| delays.get(((delays.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN);
    println!(
        "| {polls} long-polls (SQLite) | {before:.0} MiB | {joined:.0} MiB | {waiting:.0} MiB ({:.1} KiB per long-poll) | {:.0} | {:.0} | {:.0} | {unmatched} |",
        (waiting - joined) * 1024.0 / polls as f64,
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |name: &str, default: usize| args.iter().find_map(|a| a.strip_prefix(name).and_then(|n| n.parse().ok())).unwrap_or(default);
    let (tickets, polls) = (number("tickets=", 100_000), number("polls=", 10_000));
    let only = |what: &str| args.iter().any(|a| a == what);
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    println!("elo-ladder matchmaking benchmark, {cores} cores, server {}", helpers::binary());
    if !only("long-polls") {
        println!("\n| database | tickets | joins/s | held tick ms | matching tick ms | s until matched | RSS MiB held | peak RSS MiB |\n|---|---|---|---|---|---|---|---|");
        ticks(Backend::Sqlite, "SQLite", tickets);
        if only("postgres") {
            ticks(Backend::Postgres, "PostgreSQL", tickets);
        }
    }
    if !only("ticks") {
        println!("\n| run | RSS empty | RSS with tickets | RSS while waiting | match to answer p50 ms | p99 ms | max ms | unmatched |\n|---|---|---|---|---|---|---|---|");
        long_polls(polls);
    }
}
