//! Fault tests: `kill -9` of a server while reporters write, and two servers on one
//! PostgreSQL database (the rolling restart is in `operations`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::helpers::{self, call, verify_replay, Backend, Server, TestApp};
use crate::{random_match, Lcg, RULES};

on_both!(kill_9_in_the_middle_loses_no_acknowledged_match);

/// What the reporters saw.
#[derive(Default)]
pub struct Tally {
    /// Acknowledged match id -> seq of its 200.
    acknowledged: Mutex<HashMap<String, i64>>,
    /// Requests that failed (connection refused or broken, 5xx) and were sent again.
    retries: AtomicUsize,
}

const REPORTERS: u64 = 8;
const MATCHES_EACH: usize = 50;
/// Every report of a run.
pub const TOTAL: usize = REPORTERS as usize * MATCHES_EACH;

/// Reporter `t` sends its matches to `addresses[t % len]`, retrying every match that was
/// not acknowledged (same id, same body) until it is, failing over to the next address.
pub fn reporters(addresses: Vec<String>, key: &str, tally: &Arc<Tally>, ladder: &'static str) -> Vec<std::thread::JoinHandle<()>> {
    (0..REPORTERS)
        .map(|t| {
            let (addresses, key, tally) = (addresses.clone(), key.to_owned(), Arc::clone(tally));
            std::thread::spawn(move || {
                let mut rng = Lcg(1000 + t);
                let mut target = t as usize;
                for i in 0..MATCHES_EACH {
                    let id = format!("f{t}-{i}");
                    let body = random_match(&mut rng, &id, 10, ladder != "zero_sum");
                    let started = Instant::now();
                    loop {
                        let address = &addresses[target % addresses.len()];
                        match call(address, "POST", &format!("/v1/ladders/{ladder}/matches"), Some(&key), Some(&body)) {
                            Ok((200, text)) => {
                                let answer: serde_json::Value = serde_json::from_str(&text).expect("json");
                                let seq = answer["seq"].as_i64().expect("seq");
                                let previous = tally.acknowledged.lock().unwrap().insert(id.clone(), seq);
                                assert!(previous.is_none(), "{id} acknowledged twice");
                                break;
                            }
                            Ok((status, text)) if status < 500 => panic!("{id}: {status} {text}"),
                            _ => {
                                tally.retries.fetch_add(1, Ordering::Relaxed);
                                target += 1;
                                assert!(started.elapsed() < Duration::from_secs(60), "{id} never acknowledged");
                                std::thread::sleep(Duration::from_millis(15));
                            }
                        }
                    }
                }
            })
        })
        .collect()
}

fn acknowledged(tally: &Tally) -> usize {
    tally.acknowledged.lock().unwrap().len()
}

pub fn wait_for(tally: &Tally, count: usize) {
    let started = Instant::now();
    while acknowledged(tally) < count {
        assert!(started.elapsed() < Duration::from_secs(60), "reporters stalled at {}", acknowledged(tally));
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Every acknowledged match is in the journal exactly once with the acknowledged seq, and
/// the journal replays through the engine to every stored state.
pub fn check(app: &TestApp, tally: &Tally, ladder: &str, label: &str, kills: usize) {
    let replay = verify_replay(app, ladder, RULES);
    let journal = helpers::journal(app, ladder);
    let mut seen: HashMap<String, i64> = HashMap::new();
    for entry in &journal {
        let id = entry["id"].as_str().expect("id").to_owned();
        assert!(seen.insert(id.clone(), entry["seq"].as_i64().unwrap()).is_none(), "{id} journaled twice");
    }
    let acknowledged = tally.acknowledged.lock().unwrap();
    assert_eq!(acknowledged.len(), REPORTERS as usize * MATCHES_EACH);
    for (id, seq) in acknowledged.iter() {
        assert_eq!(seen.get(id), Some(seq), "{id}: acknowledged with seq {seq}");
    }
    assert_eq!(journal.len(), acknowledged.len(), "no match applied without being reported");
    println!(
        "{label}: {} matches acknowledged by {REPORTERS} reporters, {} requests retried after a failure, {kills} kill -9, {} journal entries replayed through the engine, {} players equal bit for bit",
        acknowledged.len(),
        tally.retries.load(Ordering::Relaxed),
        replay.entries,
        replay.players
    );
}

fn kill_9_in_the_middle_loses_no_acknowledged_match(backend: Backend) {
    let mut app = TestApp::spawn(backend);
    app.put_ladder("faults", RULES);
    let port = app.server.port();
    let tally = Arc::new(Tally::default());
    let threads = reporters(vec![app.server.address.clone()], &app.report, &tally, "faults");
    let total = REPORTERS as usize * MATCHES_EACH;
    let mut kills = 0;
    for share in [4, 2] {
        wait_for(&tally, total / share);
        app.server.kill9();
        kills += 1;
        std::thread::sleep(Duration::from_millis(150));
        app.server = Server::start(&app.server.database.clone(), port, 0);
    }
    for thread in threads {
        thread.join().expect("reporter");
    }
    check(&app, &tally, "faults", &format!("kill -9 ({backend:?})"), kills);
}

#[test]
fn postgres_two_instances_share_one_ladder() {
    let backend = Backend::Postgres;
    let mut app = TestApp::spawn(backend);
    app.put_ladder("faults", RULES);
    let second = Server::start(&app.server.database, 0, 0);
    let port = app.server.port();
    let tally = Arc::new(Tally::default());
    let threads = reporters(vec![app.server.address.clone(), second.address.clone()], &app.report, &tally, "faults");
    // One of the two is killed and restarted while both take reports.
    wait_for(&tally, REPORTERS as usize * MATCHES_EACH / 3);
    app.server.kill9();
    std::thread::sleep(Duration::from_millis(150));
    app.server = Server::start(&app.server.database.clone(), port, 0);
    for thread in threads {
        thread.join().expect("reporter");
    }
    check(&app, &tally, "faults", &format!("two instances on one database ({backend:?})"), 1);
    drop(second);
}
