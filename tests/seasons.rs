//! Ladder seasons (`docs/seasons.md`): league hysteresis in pools, promotion and demotion
//! events, season ends with soft resets, inactivity decay and saves of the season state.

use std::ptr::null_mut;

use ranking_elo::ffi::{elo_pool_add_player_states, elo_pool_apply_decay, elo_pool_free, EloPlayerState, EloResult};
use ranking_elo::ladder::group_matches::{PlacementMatch, TeamMatch};
use ranking_elo::pool::{Match, MatchOutputs, Pool};
use ranking_elo::rating::standing::LeagueChange;
use ranking_elo::{Config, Outcome, PlayerState, Rules};

mod common;
use common::{ffi_pool, ffi_ratings};

const DAY: f64 = 86_400.0;

/// Four leagues 1000 apart with a margin and protected games.
const LADDER: &str = r#"{
    "k_policy": {"policy": "league"},
    "leagues": [
        {"name": "Bronze", "min_rating": 0, "k": 40},
        {"name": "Silver", "min_rating": 1450, "k": 32},
        {"name": "Gold", "min_rating": 1550, "k": 24, "season_keep": 0.25},
        {"name": "Platinum", "min_rating": 1650, "k": 16, "victory_bonus": 2}
    ],
    "demotion_margin": 30,
    "protected_games": 3,
    "season_reset": {"anchor": "initial_rating", "keep": 0.5},
    "decay": {"grace_days": 7, "points_per_day": 4, "min_league": 2}
}"#;

fn rules(json: &str) -> Rules {
    Config::from_json(json).unwrap()
}

/// A deterministic list of matches among `players` players.
fn matches(players: usize, count: usize, seed: u64) -> Vec<Match> {
    let mut state = seed;
    let mut next = move |n: usize| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as usize) % n
    };
    (0..count)
        .map(|_| {
            let a = next(players);
            let b = (a + 1 + next(players - 1)) % players;
            Match::new(a, b, [Outcome::WIN, Outcome::LOSS, Outcome::DRAW, Outcome::from_points(5.0, 3.0).unwrap()][next(4)])
        })
        .collect()
}

/// The pool's league of every player.
fn ratings(pool: &Pool) -> Vec<f32> {
    (0..pool.len()).map(|i| pool.rating(i).unwrap()).collect()
}

fn leagues(pool: &Pool) -> Vec<usize> {
    (0..pool.len()).map(|i| pool.league_of_player(i).unwrap()).collect()
}

#[test]
fn pools_rate_with_hysteresis_exactly_as_single_calls() {
    for json in [LADDER, &LADDER.replace("\"protected_games\": 3", "\"protected_games\": 0").replace("\"demotion_margin\": 30", "\"demotion_margin\": 0")] {
        let rules = rules(json);
        let list = matches(30, 6000, 5);
        let mut pool = Pool::new(rules.clone());
        pool.add_players(30);
        let mut events = Vec::new();
        pool.apply(&list, Some(MatchOutputs { events: Some(&mut events), ..MatchOutputs::default() })).unwrap();
        let mut states = vec![rules.placed(rules.new_player()); 30];
        let mut expected_events = Vec::new();
        for (position, m) in list.iter().enumerate() {
            let (a, b) = rules.rate_players(&states[m.a], &states[m.b], m.outcome).unwrap();
            for (player, new) in [(m.a, a), (m.b, b)] {
                if new.league != states[player].league {
                    expected_events.push(LeagueChange { position, player, from: states[player].league.unwrap(), to: new.league.unwrap() });
                }
                states[player] = new;
            }
        }
        for (i, state) in states.iter().enumerate() {
            assert_eq!(pool.player(i).unwrap(), *state, "player {i}");
        }
        assert_eq!(events, expected_events);
        assert!(events.iter().any(LeagueChange::is_promotion) && events.iter().any(|e| !e.is_promotion()), "{} events", events.len());
        // The league policy and bonuses read the held league: replaying with the league
        // recomputed from the rating gives other ratings once the margin matters.
        if rules.config().demotion_margin > 0.0 {
            let held_differs = states.iter().any(|s| s.league.unwrap() as usize != rules.league_of(s.rating));
            let played_in_margin = events.len() < 2 * list.len();
            assert!(played_in_margin && (held_differs || events.iter().any(|e| !e.is_promotion())));
        }
    }
}

#[test]
fn demotion_waits_for_the_margin_and_the_protected_games() {
    let mut pool = Pool::new(rules(LADDER));
    pool.add_player_states(&[PlayerState::new(1540.0), PlayerState::new(1700.0)]).unwrap();
    assert_eq!(leagues(&pool), [1, 3]);
    let mut events = Vec::new();
    // Player 0 beats the Platinum player and reaches Gold (1550+): promoted, 3 games protected.
    let win = [Match::new(0, 1, Outcome::WIN)];
    pool.apply(&win, Some(MatchOutputs { events: Some(&mut events), ..MatchOutputs::default() })).unwrap();
    assert_eq!(events, [LeagueChange { position: 0, player: 0, from: 1, to: 2 }]);
    let promoted = pool.player(0).unwrap();
    assert!(promoted.rating >= 1550.0 && promoted.protected_games == 3, "{promoted:?}");
    // A big fall (set by hand: placed with its protection, so still Gold), then three
    // protected losses.
    pool.set_player(0, PlayerState { rating: 1400.0, ..promoted }).unwrap();
    assert_eq!(leagues(&pool), [2, 3]);
    events.clear();
    for _ in 0..3 {
        pool.apply(&[Match::new(1, 0, Outcome::WIN)], Some(MatchOutputs { events: Some(&mut events), ..MatchOutputs::default() })).unwrap();
    }
    let after = pool.player(0).unwrap();
    assert!(after.rating < 1550.0 - 30.0, "{after:?}");
    assert_eq!((after.league, after.protected_games, events.len()), (Some(2), 0, 0));
    // The fourth loss demotes, to the highest league whose bound minus the margin it reaches.
    pool.apply(&[Match::new(1, 0, Outcome::WIN)], Some(MatchOutputs { events: Some(&mut events), ..MatchOutputs::default() })).unwrap();
    let fallen = pool.player(0).unwrap();
    let expected_league = if f64::from(fallen.rating) >= 1450.0 - 30.0 { 1 } else { 0 };
    assert_eq!(events, [LeagueChange { position: 0, player: 0, from: 2, to: expected_league }]);
    assert_eq!((fallen.peak_league, fallen.season_games, fallen.season_wins), (2, 5, 1));
    assert_eq!(pool.league_counts().iter().sum::<usize>(), 2);
}

#[test]
fn zero_sum_teams_and_free_for_alls_report_events_too() {
    let zero_sum = LADDER.replace("\"decay\"", "\"zero_sum_total\": 15000, \"decay\"");
    let mut pool = Pool::new(rules(&zero_sum));
    pool.add_players(10);
    let mut events = Vec::new();
    let list = matches(10, 400, 9);
    pool.apply(&list, Some(MatchOutputs { events: Some(&mut events), ..MatchOutputs::default() })).unwrap();
    assert!(!events.is_empty());
    assert!((pool.refresh_total() - 15_000.0).abs() < 1e-6);
    // Replaying the events from the start gives the leagues held now.
    let mut fresh = Pool::new(rules(&zero_sum));
    fresh.add_players(10);
    let mut held: Vec<u32> = leagues(&fresh).iter().map(|&l| l as u32).collect();
    for e in &events {
        assert_eq!(held[e.player], e.from, "{e:?}");
        held[e.player] = e.to;
    }
    assert_eq!(held.iter().map(|&l| l as usize).collect::<Vec<_>>(), leagues(&pool));

    let mut pool = Pool::new(rules(LADDER));
    pool.add_player_states(&[PlayerState::new(1545.0), PlayerState::new(1545.0), PlayerState::new(1600.0), PlayerState::new(1600.0)]).unwrap();
    let mut team_events = Vec::new();
    let (a, b) = ([0usize, 1], [2usize, 3]);
    pool.apply_teams_with_events(&[TeamMatch::new(&a, &b, Outcome::WIN)], &mut team_events).unwrap();
    assert_eq!(team_events.iter().map(|e| (e.player, e.from, e.to)).collect::<Vec<_>>(), [(0, 1, 2), (1, 1, 2)]);
    let mut ffa_events = Vec::new();
    let (entrants, places) = ([0usize, 1, 2, 3], [4u32, 3, 2, 1]);
    pool.apply_placements_with_events(&[PlacementMatch { entrants: &entrants, places: &places }], &mut ffa_events).unwrap();
    assert!(ffa_events.iter().all(|e| e.position == 0));
    // A refused list reports nothing.
    let bad = [9usize, 1];
    assert!(pool.apply_teams_with_events(&[TeamMatch::new(&bad, &b, Outcome::WIN)], &mut ffa_events).is_err());
}

#[test]
fn season_end_reports_records_then_soft_resets() {
    let rules = rules(LADDER);
    let mut pool = Pool::new(rules.clone());
    pool.add_players(40);
    pool.apply(&matches(40, 4000, 3), None).unwrap();
    let before: Vec<PlayerState> = (0..40).map(|i| pool.player(i).unwrap()).collect();
    let mut events = Vec::new();
    let records = pool.end_season(Some(&mut events));
    assert_eq!(records.len(), 40);
    for (i, (record, old)) in records.iter().zip(&before).enumerate() {
        assert_eq!((record.player, record.rating, record.peak_rating), (i, old.rating, old.peak_rating));
        assert_eq!((record.league, record.peak_league, record.games, record.wins), (old.league.unwrap(), old.peak_league, old.season_games, old.season_wins));
        let keep = if old.league == Some(2) { 0.25 } else { 0.5 };
        let expected = (1500.0 + (f64::from(old.rating) - 1500.0) * keep) as f32;
        let now = pool.player(i).unwrap();
        assert_eq!(now.rating, expected, "player {i}");
        assert_eq!(now.league, Some(rules.league_of(expected) as u32));
        assert_eq!((now.season_games, now.season_wins, now.protected_games, now.peak_rating), (0, 0, 0, expected));
        assert_eq!(now.games_played, old.games_played, "career totals stay");
    }
    let moved: Vec<usize> = (0..40).filter(|&i| before[i].league != pool.player(i).unwrap().league).collect();
    assert_eq!(events.iter().map(|e| e.player).collect::<Vec<_>>(), moved);
    assert!(records.iter().any(|r| r.peak_rating > r.rating));

    // Zero-sum pools keep their total through a reset toward either anchor.
    for anchor in ["initial_rating", "pool_mean"] {
        let json = format!(r#"{{"zero_sum_total": 60000, "season_reset": {{"anchor": "{anchor}", "keep": 0.3}}}}"#);
        let mut pool = Pool::new(self::rules(&json));
        pool.add_players(40);
        pool.apply(&matches(40, 3000, 8), None).unwrap();
        let spread = |p: &Pool| (0..40).map(|i| p.rating(i).unwrap()).fold(0.0f32, f32::max) - (0..40).map(|i| p.rating(i).unwrap()).fold(f32::MAX, f32::min);
        let wide = spread(&pool);
        pool.end_season(None);
        assert!((pool.refresh_total() - 60_000.0).abs() < 1e-6, "{anchor}");
        assert!(spread(&pool) < wide * 0.31, "{anchor}: {} vs {wide}", spread(&pool));
    }
}

#[test]
fn season_records_go_to_a_file_first_or_nothing_resets() {
    let mut pool = Pool::new(rules(LADDER));
    pool.add_players(5);
    pool.apply(&matches(5, 50, 1), None).unwrap();
    let before = pool.clone();
    let folder = std::env::temp_dir().join(format!("ranking-elo-season-{}", std::process::id()));
    assert!(pool.end_season_to_file(&folder.join("missing").join("season.json"), None).is_err());
    assert_eq!(pool, before, "a failed write resets nothing");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("season-1.json");
    let records = pool.end_season_to_file(&path, None).unwrap();
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["format"], "ranking-elo-season");
    assert_eq!(json["leagues"][3], "Platinum");
    assert_eq!(json["records"].as_array().unwrap().len(), 5);
    assert_eq!(json["records"][2]["rating"].as_f64().unwrap() as f32, records[2].rating);
    assert_eq!(json["records"][2]["games"].as_u64().unwrap(), u64::from(records[2].games));
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn decay_counts_each_day_once_and_stops_at_the_anchor() {
    let json = r#"{"decay": {"grace_days": 10, "points_per_day": 5}}"#;
    let mut pool = Pool::new(rules(json));
    pool.add_player_states(&[PlayerState::new(1700.0), PlayerState::new(1400.0), PlayerState::new(1520.0)]).unwrap();
    pool.set_clock(0.0).unwrap();
    // Within the grace period nothing moves.
    assert_eq!(pool.apply_decay(10.0 * DAY, None).unwrap(), 0);
    assert_eq!(pool.rating(0), Some(1700.0));
    // Daily calls and one call over the same days give the same rating.
    let mut daily = pool.clone();
    for day in 11..=20 {
        daily.apply_decay(f64::from(day) * DAY, None).unwrap();
    }
    pool.apply_decay(20.0 * DAY, None).unwrap();
    assert_eq!(daily.rating(0), Some(1650.0));
    assert_eq!(pool.rating(0), Some(1650.0));
    assert_eq!(pool.rating(1), Some(1400.0), "below the anchor: no decay");
    assert_eq!(pool.rating(2), Some(1500.0), "never past the anchor");
    // A second call for the same time changes nothing; time going back is refused.
    let snapshot = pool.clone();
    assert_eq!(pool.apply_decay(20.0 * DAY, None).unwrap(), 0);
    assert!(pool.apply_decay(19.0 * DAY, None).unwrap_err().to_string().contains("previous decay"));
    assert!(pool.apply_decay(f64::NAN, None).is_err());
    assert_eq!(pool, snapshot);
    // A match restarts the grace period.
    pool.set_clock(21.0 * DAY).unwrap();
    pool.apply(&[Match::new(0, 1, Outcome::DRAW)], None).unwrap();
    let played = pool.rating(0).unwrap();
    pool.apply_decay(30.0 * DAY, None).unwrap();
    assert_eq!(pool.rating(0), Some(played));
    pool.apply_decay(33.0 * DAY, None).unwrap();
    assert_eq!(pool.rating(0), Some(played - 10.0));
}

#[test]
fn decay_filters_floors_demotes_and_redistributes() {
    let mut pool = Pool::new(rules(LADDER));
    pool.add_player_states(&[PlayerState::new(1700.0), PlayerState::new(1560.0), PlayerState::new(1500.0)]).unwrap();
    let mut events = Vec::new();
    // 7 grace days, then 4 a day for league 2 (Gold) and up: 25 days past grace = 100 points.
    pool.apply_decay(32.0 * DAY, Some(&mut events)).unwrap();
    assert_eq!(pool.rating(0), Some(1600.0));
    assert_eq!(pool.rating(1), Some(1550.0), "Gold decays down to Gold's bound (min_league 2), a stop like the floor");
    assert_eq!(pool.rating(2), Some(1500.0), "Silver does not decay");
    // Platinum at 1600: within the margin of 1650? No: 1600 < 1620 -> Gold. Gold stays Gold.
    assert_eq!(events, [LeagueChange { position: 0, player: 0, from: 3, to: 2 }]);

    let floored = r#"{"decay": {"grace_days": 0, "points_per_day": 100, "floor": 1650, "min_rating": 1600}}"#;
    let mut pool = Pool::new(rules(floored));
    pool.add_player_states(&[PlayerState::new(1800.0), PlayerState::new(1590.0)]).unwrap();
    pool.apply_decay(10.0 * DAY, None).unwrap();
    assert_eq!((pool.rating(0), pool.rating(1)), (Some(1650.0), Some(1590.0)));

    let zero_sum = r#"{"zero_sum_total": 4500, "decay": {"grace_days": 1, "points_per_day": 10}}"#;
    let mut pool = Pool::new(rules(zero_sum));
    pool.add_players(3);
    let wins: Vec<Match> = (0..20).map(|i| Match::new(0, 1 + i % 2, Outcome::WIN)).collect();
    pool.apply(&wins, None).unwrap();
    let before: Vec<f32> = (0..3).map(|i| pool.rating(i).unwrap()).collect();
    assert!(before[0] > 1600.0 && before[1] < 1500.0);
    pool.apply_decay(5.0 * DAY, None).unwrap();
    assert!((pool.refresh_total() - 4500.0).abs() < 1e-6);
    // Player 0 lost 40 points; the two others received 40 / 3 each, as did player 0.
    let shared = 40.0 / 3.0;
    assert!((f64::from(pool.rating(0).unwrap()) - (f64::from(before[0]) - 40.0 + shared)).abs() < 1e-3);
    assert!((f64::from(pool.rating(1).unwrap()) - (f64::from(before[1]) + shared)).abs() < 1e-3);
}

#[test]
fn saves_keep_the_season_state_and_older_saves_load() {
    let mut pool = Pool::new(rules(LADDER));
    pool.add_players(20);
    pool.set_clock(1.7e9).unwrap();
    pool.apply(&matches(20, 500, 4), None).unwrap();
    pool.set_clock(1.7e9 + 40.0 * DAY).unwrap();
    pool.apply_decay(1.7e9 + 40.0 * DAY, None).unwrap();
    assert!((0..20).any(|i| pool.player(i).unwrap().protected_games > 0) || (0..20).any(|i| pool.player(i).unwrap().peak_league > 0));
    let text = ranking_elo::save::to_json(&pool);
    assert!(text.contains("\"version\":3"));
    let restored = ranking_elo::save::from_json(&text).unwrap();
    assert_eq!(restored, pool);
    assert_eq!((restored.clock(), restored.decayed_through()), (pool.clock(), pool.decayed_through()));
    // Both continue identically, bit for bit.
    let (mut a, mut b) = (pool, restored);
    let more = matches(20, 300, 6);
    a.apply(&more, None).unwrap();
    b.apply(&more, None).unwrap();
    assert_eq!(a, b);

    // A version 2 save (no season fields): players are placed by rating, records start empty.
    let payload = r#"{"config":{"leagues":[{"name":"Low","min_rating":0,"k":32},{"name":"High","min_rating":1600,"k":16}]},"players":[{"rating":1700.0,"games_played":12},{"rating":1500.0}],"offset":0.0}"#;
    let v2 = format!(r#"{{"format":"ranking-elo-pool","version":2,"checksum":"{}","pool":{payload}}}"#, ranking_elo::save::checksum(payload));
    let old = ranking_elo::save::from_json(&v2).unwrap();
    let first = old.player(0).unwrap();
    assert_eq!((first.league, first.peak_league, first.peak_rating, first.season_games, first.last_played), (Some(1), 1, 1700.0, 0, 0.0));
    assert_eq!(old.player(1).unwrap().league, Some(0));
    assert_eq!(old.clock(), 0.0);
    // Saved again it is a version 3 save that loads to the same pool.
    assert_eq!(ranking_elo::save::from_json(&ranking_elo::save::to_json(&old)).unwrap(), old);
    // A league the configuration does not have is refused.
    let bad = payload.replace("\"games_played\":12", "\"league\":5");
    let text = format!(r#"{{"format":"ranking-elo-pool","version":3,"checksum":"{}","pool":{bad}}}"#, ranking_elo::save::checksum(&bad));
    assert!(ranking_elo::save::from_json(&text).unwrap_err().to_string().contains("league"));
}

#[test]
fn season_settings_are_validated_with_their_field() {
    let cases = [
        (r#"{"demotion_margin": -1}"#, "demotion_margin"),
        (r#"{"demotion_margin": 1e300}"#, "demotion_margin"),
        (r#"{"protected_games": -1}"#, "protected_games"),
        (r#"{"season_reset": {"keep": 1.5}}"#, "season_reset.keep"),
        (r#"{"season_reset": {"anchor": "median"}}"#, "season_reset.anchor"),
        (r#"{"season_reset": {"kep": 1}}"#, "kep"),
        (r#"{"decay": {"grace_days": -2}}"#, "decay.grace_days"),
        (r#"{"decay": {"points_per_day": -2}}"#, "decay.points_per_day"),
        (r#"{"decay": {"min_league": 1}}"#, "decay.min_league"),
        (r#"{"decay": {"floor": 1e20}}"#, "decay.floor"),
        (r#"{"leagues": [{"name": "A", "min_rating": 0, "k": 1, "season_keep": -0.5}]}"#, "leagues[0].season_keep"),
    ];
    for (json, field) in cases {
        let message = Config::from_json(json).unwrap_err().to_string();
        assert!(message.contains(field), "{json}: {message}");
    }
    // Every new setting survives the JSON round trip.
    let rules = rules(LADDER);
    assert_eq!(Config::from_json(&rules.config().to_json()).unwrap(), rules);
}

#[test]
fn states_with_unknown_leagues_are_refused_and_stale_ones_corrected() {
    let rules = rules(LADDER);
    let bad = PlayerState { league: Some(4), ..PlayerState::new(1500.0) };
    assert!(rules.rate_players(&bad, &PlayerState::new(1500.0), Outcome::WIN).unwrap_err().to_string().contains("player_a.league"));
    let mut pool = Pool::new(rules.clone());
    assert!(pool.add_player_states(&[PlayerState::new(1.0), bad]).unwrap_err().to_string().contains("players[1].league"));
    assert!(pool.is_empty());
    // A state that says Bronze with a Platinum rating is promoted on entry; one that says
    // Gold within the margin below Gold stays Gold.
    pool.add_player_states(&[PlayerState { league: Some(0), ..PlayerState::new(1700.0) }, PlayerState { league: Some(2), ..PlayerState::new(1530.0) }]).unwrap();
    assert_eq!(leagues(&pool), [3, 2]);
    let late = PlayerState { last_played: f64::INFINITY, ..PlayerState::new(1500.0) };
    assert!(pool.set_player(0, late).is_err());
}

/// Fuzz finding: a zero-sum pool that once held an extreme rating kept a huge shared offset,
/// so every stored rating lost its precision (f32 steps of 2^21 at 2e13). A season end
/// re-bases the pool: the next season rates with full precision again.
#[test]
fn a_season_end_rebases_a_zero_sum_pool() {
    let mut pool = Pool::new(rules(r#"{"zero_sum_total": 15000, "season_reset": {"keep": 0}}"#));
    pool.add_players(10);
    pool.set_player(0, PlayerState::new(4.0e14)).unwrap();
    pool.apply(&[Match::new(1, 2, Outcome::WIN)], None).unwrap(); // rebalances around the giant
    pool.end_season(None); // keep 0: everybody back to the anchor (1500)
    assert!((0..10).all(|i| pool.rating(i) == Some(1500.0)));
    pool.apply(&[Match::new(3, 4, Outcome::WIN)], None).unwrap();
    // +16 and -16, then the zero-sum adjustment (0): exact, not rounded to 2^21.
    assert_eq!((pool.rating(3), pool.rating(4)), (Some(1516.0), Some(1484.0)));
    assert!((pool.refresh_total() - 15_000.0).abs() < 1e-9);
}

#[test]
fn next_seasons_rules_keep_ratings_and_place_afresh() {
    let mut pool = Pool::new(rules(LADDER));
    pool.add_players(30);
    pool.apply(&matches(30, 3000, 12), None).unwrap();
    let before: Vec<PlayerState> = (0..30).map(|i| pool.player(i).unwrap()).collect();
    // Same leagues, another K: leagues stay as held.
    pool.set_rules(rules(&LADDER.replace("\"k\": 40", "\"k\": 20")));
    for (i, old) in before.iter().enumerate() {
        assert_eq!(pool.player(i).unwrap(), *old, "player {i} unchanged");
    }
    // Other leagues: placed by rating, no protection, the season's peak league restarts.
    let two = rules(r#"{"leagues":[{"name":"Low","min_rating":0,"k":32},{"name":"High","min_rating":1500,"k":32}],"zero_sum_total":45000}"#);
    pool.set_rules(two.clone());
    for (i, old) in before.iter().enumerate() {
        let now = pool.player(i).unwrap();
        let shift = (45_000.0 - before.iter().map(|p| f64::from(p.rating)).sum::<f64>()) / 30.0;
        assert!((f64::from(now.rating) - (f64::from(old.rating) + shift)).abs() < 1e-3, "player {i}: equal shift to the new total");
        assert_eq!((now.league, now.peak_league, now.protected_games), (Some(two.league_of(old.rating) as u32), two.league_of(old.rating) as u32, 0));
        assert_eq!((now.games_played, now.season_games), (old.games_played, old.season_games));
    }
    assert!((pool.refresh_total() - 45_000.0).abs() < 1e-6);
    assert_eq!(ranking_elo::save::from_json(&ranking_elo::save::to_json(&pool)).unwrap(), pool);
}

/// Rounded decay stops at the floor and at the anchor: the stop holds after the rounding
/// (it once applied before: with `half_away_from_zero` a player at 1600 decayed to 1550
/// below the floor 1550.5, and with the anchor, a pool mean of 1500.5, a player at 1601
/// decayed to 1500, past it).
#[test]
fn rounded_decay_stops_at_the_floor_and_the_anchor() {
    let json = r#"{"rounding":"half_away_from_zero","decay":{"grace_days":0,"points_per_day":100,"floor":1550.5}}"#;
    let mut pool = Pool::new(Config::from_json(json).unwrap());
    pool.add_player_states(&[PlayerState::new(1600.0)]).unwrap();
    pool.apply_decay(10.0 * DAY, None).unwrap();
    assert_eq!(pool.rating(0), Some(1550.5), "at the floor, not below");

    let json = r#"{"rounding":"half_away_from_zero","season_reset":{"anchor":"pool_mean"},"decay":{"grace_days":0,"points_per_day":100}}"#;
    let mut pool = Pool::new(Config::from_json(json).unwrap());
    // Mean 1500.5: 1601, 1400 (below the anchor: never decays).
    pool.add_player_states(&[PlayerState::new(1601.0), PlayerState::new(1400.0)]).unwrap();
    pool.apply_decay(10.0 * DAY, None).unwrap();
    assert_eq!(pool.rating(0), Some(1500.5), "at the anchor, not past it");
    assert_eq!(pool.rating(1), Some(1400.0));

    // The same through the C ABI.
    let handle = ffi_pool(r#"{"rounding":"half_away_from_zero","decay":{"grace_days":0,"points_per_day":7,"floor":1570.25}}"#, 0);
    let states = [EloPlayerState::from(PlayerState::new(1600.0))];
    let mut first = 0;
    assert_eq!(unsafe { elo_pool_add_player_states(handle, states.as_ptr(), 1, &mut first) }, EloResult::Ok);
    let mut decayed = 0;
    assert_eq!(unsafe { elo_pool_apply_decay(handle, 10.0 * DAY, null_mut(), 0, null_mut(), &mut decayed) }, EloResult::Ok);
    assert_eq!((decayed, ffi_ratings(handle)), (1, vec![1570.25]));
    unsafe { elo_pool_free(handle) };
}

/// The worked life cycle's configuration of docs/seasons.md.
const LIFE_CYCLE: &str = r#"{ "k_policy": {"policy": "league"}, "demotion_margin": 30, "protected_games": 3,
  "leagues": [ {"name": "Bronze", "min_rating": 0, "k": 40},
               {"name": "Silver", "min_rating": 1450, "k": 32},
               {"name": "Gold", "min_rating": 1550, "k": 24, "season_keep": 0.25},
               {"name": "Platinum", "min_rating": 1650, "k": 16} ],
  "season_reset": {"anchor": "initial_rating", "keep": 0.5},
  "decay": {"grace_days": 7, "points_per_day": 4, "min_league": 2} }"#;

/// Decay is the same daily or in one call, also with `min_rating` or `min_league` set:
/// decay stops at `min_rating` and at the bound of `min_league` as at a floor (daily calls
/// once took a Gold player at 1600 to 1516 where one call gave 1500; with `min_rating`
/// 1580, to 1570 and 1500). This also checks the numbers of docs/seasons.md's worked
/// example (step 4).
#[test]
fn decay_is_the_same_daily_or_in_one_call() {
    let check = |json: &str, start: &[f32], days: u32| -> Vec<f32> {
        let mut once = Pool::new(Config::from_json(json).unwrap());
        once.add_player_states(&start.iter().map(|&r| PlayerState::new(r)).collect::<Vec<_>>()).unwrap();
        let mut daily = once.clone();
        for day in 1..=days {
            daily.apply_decay(f64::from(day) * DAY, None).unwrap();
        }
        once.apply_decay(f64::from(days) * DAY, None).unwrap();
        assert_eq!(daily, once, "{json}: daily calls and one call");
        ratings(&once)
    };
    // docs/seasons.md, step 4: Gold at 1600 and Platinum at 1700, 32 days without a game.
    let mut pool = Pool::new(Config::from_json(LIFE_CYCLE).unwrap());
    pool.add_player_states(&[PlayerState::new(1600.0), PlayerState::new(1700.0), PlayerState::new(1540.0)]).unwrap();
    let mut events = Vec::new();
    pool.apply_decay(32.0 * DAY, Some(&mut events)).unwrap();
    assert_eq!(ratings(&pool), [1550.0, 1600.0, 1540.0], "Gold stops at Gold's bound; Platinum loses 100; Silver does not decay");
    assert_eq!(pool.league_counts(), [0, 1, 2, 0], "Platinum at 1600 < 1650 - 30: demoted to Gold");
    assert_eq!(events.len(), 1);
    assert_eq!(check(LIFE_CYCLE, &[1600.0, 1700.0, 1540.0], 32), [1550.0, 1600.0, 1540.0]);
    // The min_rating case: 10 a day over 10 days from 1600 stops at 1580.
    let json = r#"{"decay":{"grace_days":0,"points_per_day":10,"min_rating":1580}}"#;
    assert_eq!(check(json, &[1600.0, 1590.0, 1575.0], 10), [1580.0, 1580.0, 1575.0]);
    // Integer rounding with a fractional stop: the same too.
    let json = r#"{"rounding":"truncate","decay":{"grace_days":0,"points_per_day":6,"min_rating":1577.5,"floor":1500}}"#;
    // 1600 - 22.5 truncated to -22: 1578, at or above the stop; daily calls end there too.
    assert_eq!(check(json, &[1600.0, 1640.25], 9), [1578.0, 1586.25]);
}
