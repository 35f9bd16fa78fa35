//! The ladder server's suite, run against the real `elo-ladder` binary on SQLite and on a
//! private PostgreSQL cluster (with TLS) that the first PostgreSQL test starts. Each test
//! gets a fresh database. One module per resource or concern; `on_both!` declares a test
//! once per database.

/// Declares each test once per database (`module::sqlite::name`, `module::postgres::name`).
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(#[test] fn $name() { super::$name(crate::helpers::Backend::Sqlite) })*
        }
        mod postgres {
            $(#[test] fn $name() { super::$name(crate::helpers::Backend::Postgres) })*
        }
    };
}

mod amend;
mod browser;
mod cdp;
mod chain;
mod connections;
mod console;
mod export;
mod faults;
mod helpers;
mod hostile_ids;
mod import;
mod journal;
mod keys;
mod ladders;
mod matches;
mod operations;
mod periods;
mod players;
mod postgres;
mod provisional;
mod queues;
mod receiver;
mod seasons;
mod seasons_rules;
mod staged_amend;
mod staged_events;
mod tags;
mod tokens;
mod upgrade;
mod webhooks;

/// The plainest rules: constant K = 32.
pub const RULES: &str = r#"{"k_policy":{"policy":"constant","k":32}}"#;

/// A configuration exercising every state the engine keeps.
pub const RICH_RULES: &str = r#"{"k_policy":{"policy":"fide"},"streak_alpha":0.2,"rounding":"half_away_from_zero",
    "leagues":[{"name":"Bronze","min_rating":0,"k":40},{"name":"Silver","min_rating":1500,"k":30},{"name":"Gold","min_rating":1560,"k":20}],
    "demotion_margin":10,"protected_games":2,"season_reset":{"keep":0.5},"decay":{"grace_days":0,"points_per_day":1000000}}"#;

/// A small deterministic random sequence.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// A random match body with id `id` over players `p0..p{players}`.
pub fn random_match(rng: &mut Lcg, id: &str, players: u64, teams: bool) -> String {
    fn pick(rng: &mut Lcg, players: u64, count: usize) -> Vec<String> {
        let mut chosen: Vec<u64> = Vec::new();
        while chosen.len() < count {
            let p = rng.below(players);
            if !chosen.contains(&p) {
                chosen.push(p);
            }
        }
        chosen.iter().map(|p| format!("\"p{p}\"")).collect::<Vec<_>>()
    }
    let kind = rng.below(if teams { 3 } else { 2 });
    let score = ["1", "0", "0.5", "0.75"][rng.below(4) as usize];
    match kind {
        0 => {
            let p = pick(rng, players, 2);
            format!(r#"{{"id":"{id}","a":{},"b":{},"score_a":{score}}}"#, p[0], p[1])
        }
        1 => {
            let n = 2 + rng.below(4) as usize;
            let places: Vec<String> = (0..n).map(|_| (1 + rng.below(n as u64)).to_string()).collect();
            let mut places = places;
            places[0] = "1".into();
            format!(r#"{{"id":"{id}","entrants":[{}],"places":[{}]}}"#, pick(rng, players, n).join(","), places.join(","))
        }
        _ => {
            let p = pick(rng, players, 4);
            format!(r#"{{"id":"{id}","team_a":[{},{}],"team_b":[{},{}],"score_a":{score}}}"#, p[0], p[1], p[2], p[3])
        }
    }
}

/// Unix seconds now.
pub fn now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}
