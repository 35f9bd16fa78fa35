//! Fault tests: `kill -9` of a server while reporters write, two servers on one
//! PostgreSQL database, and the journal's horizon.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::helpers::{self, call, verify_replay, Backend, Server, TestApp};
use crate::{random_match, Lcg, RULES};

/// What the reporters saw.
#[derive(Default)]
struct Tally {
    /// Acknowledged match id -> seq of its 200.
    acknowledged: Mutex<HashMap<String, i64>>,
    /// Requests that failed (connection refused or broken, 5xx) and were sent again.
    retries: AtomicUsize,
}

const REPORTERS: u64 = 8;
const MATCHES_EACH: usize = 50;

/// Reporter `t` sends its matches to `addresses[t % len]`, retrying every match that was
/// not acknowledged (same id, same body) until it is, failing over to the next address.
fn reporters(addresses: Vec<String>, key: &str, tally: &Arc<Tally>, ladder: &'static str) -> Vec<std::thread::JoinHandle<()>> {
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

fn wait_for(tally: &Tally, count: usize) {
    let started = Instant::now();
    while acknowledged(tally) < count {
        assert!(started.elapsed() < Duration::from_secs(60), "reporters stalled at {}", acknowledged(tally));
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Every acknowledged match is in the journal exactly once with the acknowledged seq, and
/// the journal replays through the engine to every stored state.
fn check(app: &TestApp, tally: &Tally, ladder: &str, label: &str, kills: usize) {
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

pub fn kill_9_in_the_middle(backend: Backend) {
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

pub fn two_instances(backend: Backend) {
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

pub fn journal_horizon() {
    let app = TestApp::spawn(Backend::Postgres);
    app.put_ladder("main", RULES);
    let first = app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(r#"{"id":"m1","a":"x","b":"y","score_a":1}"#));
    let first_seq = first["seq"].as_i64().unwrap();
    // Another transaction takes a seq and holds it uncommitted, as a match in flight on
    // another server would. It waits in pg_sleep until this test ends it, so no timing of a
    // loaded machine can let it finish early; the test waits until it is asleep, that is
    // after its nextval.
    let mut holder = HeldTransaction {
        child: helpers::psql_background(&app.server.database, "BEGIN; SELECT pg_current_xact_id(); SELECT nextval('journal_seq'); SELECT pg_sleep(300); COMMIT;"),
        database: app.server.database.clone(),
        pid: String::new(),
    };
    let asleep = "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()";
    let deadline = Instant::now() + Duration::from_secs(60);
    holder.pid = loop {
        let pid = helpers::psql_query(&app.server.database, asleep);
        if !pid.is_empty() {
            break pid;
        }
        assert!(Instant::now() < deadline, "the holding transaction never reached its sleep");
        std::thread::sleep(Duration::from_millis(50));
    };
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
