//! `elo-sim`: simulate, tune and replay ranking-elo configurations before a game ships.
//!
//! ```text
//! elo-sim simulate [--players 10000] [--matches 1000000] [--seed 1] [--config FILE]
//!                  [--skills normal:1500:300] [--matchmaker on|off] [--results skill|coin]
//!                  [--initial-rating R] [--team-size 1 | --players-per-match N]
//!                  [--frames 40] [--out DIR]
//!                  [--seasons S --season-matches M [--season-days 28]]
//! elo-sim tune     --history FILE [--config FILE]... [--k-range 8:64:4] [--out DIR]
//! elo-sim replay   --history FILE [--config FILE] [--out FILE]
//! elo-sim generate-history [--players 60] [--matches 3000] [--seed 7] --out FILE
//! elo-sim queue    [--config FILE] [--population-players 10000] [--population-matches 1000000]
//!                  [--arrivals 1000] [--seconds 60] [--tick 1] [--widening M0:GROWTH:MAX]...
//!                  [--candidates 4] [--seed 1] [--out DIR]
//! ```
//!
//! Not part of the shipped plugin: its own package, so the mobile library stays lean.

mod history;
mod metrics;
mod plot;
mod queue;
mod rng;
mod simulate;
mod tune;

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ranking_elo::{Config, KPolicy, Outcome, Rules};

const USAGE: &str = "usage:
  elo-sim simulate [--players N] [--matches M] [--seed S] [--config FILE] [--skills normal:MEAN:SD|uniform:LOW:HIGH]
                   [--matchmaker on|off] [--results skill|coin] [--initial-rating R]
                   [--team-size T | --players-per-match N] [--frames F] [--out DIR]
                   [--seasons S --season-matches M [--season-days D]]
  elo-sim tune --history FILE [--config FILE]... [--k-range START:END:STEP] [--out DIR]
  elo-sim replay --history FILE [--config FILE] [--out FILE]
  elo-sim generate-history [--players N] [--matches M] [--seed S] --out FILE
  elo-sim queue [--config FILE] [--population-players N] [--population-matches M] [--arrivals PER_SECOND] [--seconds S]
                [--tick SECONDS] [--widening M0:GROWTH:MAX]... [--candidates C] [--seed S] [--out DIR]";

/// `--name value` options; `--config` may repeat.
struct Args {
    values: BTreeMap<String, Vec<String>>,
}

impl Args {
    fn parse(raw: &[String], allowed: &[&str]) -> Result<Self, String> {
        let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut i = 0;
        while i < raw.len() {
            let name = raw[i].strip_prefix("--").ok_or_else(|| format!("unexpected argument {:?}", raw[i]))?;
            if !allowed.contains(&name) {
                return Err(format!("unknown option --{name} (allowed: {})", allowed.iter().map(|a| format!("--{a}")).collect::<Vec<_>>().join(", ")));
            }
            let value = raw.get(i + 1).ok_or_else(|| format!("--{name} needs a value"))?;
            values.entry(name.to_owned()).or_default().push(value.clone());
            i += 2;
        }
        Ok(Self { values })
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).and_then(|v| v.last()).map(String::as_str)
    }

    fn all(&self, name: &str) -> Vec<String> {
        self.values.get(name).cloned().unwrap_or_default()
    }

    fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        self.get(name).map_or(Ok(default), |v| v.parse().map_err(|_| format!("--{name}: {v:?} is not a valid number")))
    }

    fn required(&self, name: &str) -> Result<&str, String> {
        self.get(name).ok_or_else(|| format!("--{name} is required"))
    }
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
}

fn config_text(path: Option<&str>) -> Result<String, String> {
    path.map_or_else(|| Ok("{}".to_owned()), read)
}

fn load_rules(path: Option<&str>) -> Result<Rules, String> {
    let text = config_text(path)?;
    Config::from_json(&text).map_err(|e| format!("{}: {e}", path.unwrap_or("default configuration")))
}

fn write_png(figure: &plot::Figure, path: &Path) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    figure.write_png(std::io::BufWriter::new(file)).map_err(|e| format!("{}: {e}", path.display()))
}

/// `queue`: the population is 002's experiment under `--config` (coin-flip results between
/// random players), whose final ratings the arriving tickets are drawn from.
fn queue(args: &Args) -> Result<(), String> {
    let out_dir = PathBuf::from(args.get("out").unwrap_or("queue"));
    let seed = args.number("seed", 1)?;
    let population = simulate::run(&simulate::Options {
        players: args.number("population-players", 10_000)?,
        matches: args.number("population-matches", 1_000_000)?,
        seed,
        config_json: config_text(args.get("config"))?,
        skills: simulate::Skills::parse("normal:1500:300")?,
        matchmaker: false,
        results: simulate::Results::parse("coin")?,
        team_size: 1,
        players_per_match: 0,
        initial_rating: None,
        frames: 1,
        out_dir: out_dir.join("population"),
        progress: false,
        seasons: 0,
        season_matches: 100_000,
        season_days: 28.0,
    })?;
    let widenings = match args.all("widening") {
        given if given.is_empty() => vec!["50:5:200".to_owned(), "100:10:400".to_owned(), "200:40:800".to_owned()],
        given => given,
    };
    let options = queue::Options {
        population: population.final_ratings,
        rules: load_rules(args.get("config"))?,
        arrivals: args.number("arrivals", 1000)?,
        seconds: args.number("seconds", 60)?,
        tick: args.number("tick", 1.0)?,
        widenings: widenings.iter().map(|w| queue::Widening::parse(w)).collect::<Result<_, _>>()?,
        candidates: args.number("candidates", 4)?,
        seed,
        out_dir,
    };
    let summary = queue::run(&options)?;
    println!("{} tickets/s for {} s, a tick every {} s, ratings drawn from {} players", summary.arrivals_per_second, summary.seconds, summary.tick_seconds, summary.population);
    println!("| widening (M0 + growth/s up to max) | matched | unmatched | wait p50 s | wait p99 s | mean gap | favourite above 0.75 | slowest tick ms | most waiting |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for s in &summary.settings {
        let w = s.widening;
        println!(
            "| {} + {}/s up to {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1}% | {:.1} | {} |",
            w.initial_distance,
            w.growth_per_second,
            w.max_distance,
            s.matched,
            s.unmatched,
            s.wait_p50_seconds,
            s.wait_p99_seconds,
            s.mean_gap,
            s.share_favourite_above_0_75 * 100.0,
            s.slowest_tick_ms,
            s.most_waiting
        );
    }
    for file in &summary.files {
        println!("wrote {file}");
    }
    Ok(())
}

fn simulate(args: &Args) -> Result<(), String> {
    let matchmaker = match args.get("matchmaker").unwrap_or("on") {
        "on" => true,
        "off" => false,
        other => return Err(format!("--matchmaker must be on or off, not {other:?}")),
    };
    let options = simulate::Options {
        players: args.number("players", 10_000)?,
        matches: args.number("matches", 1_000_000)?,
        seed: args.number("seed", 1)?,
        config_json: config_text(args.get("config"))?,
        skills: simulate::Skills::parse(args.get("skills").unwrap_or("normal:1500:300"))?,
        matchmaker,
        results: simulate::Results::parse(args.get("results").unwrap_or("skill"))?,
        team_size: args.number("team-size", 1)?,
        players_per_match: args.number("players-per-match", 0)?,
        initial_rating: args.get("initial-rating").map(|v| v.parse::<f32>().map_err(|_| format!("--initial-rating: {v:?} is not a number"))).transpose()?,
        frames: args.number("frames", 40)?,
        out_dir: PathBuf::from(args.get("out").unwrap_or("simulation")),
        progress: std::io::stderr().is_terminal(),
        seasons: args.number("seasons", 0)?,
        season_matches: args.number("season-matches", 100_000)?,
        season_days: args.number("season-days", 28.0)?,
    };
    let options = if options.seasons > 0 { simulate::Options { matches: options.seasons.saturating_mul(options.season_matches), ..options } } else { options };
    let summary = simulate::run(&options)?;
    println!(
        "{}: {} players, {} matches in {:.2} s; log-loss {:.4} (last 10%: {:.4}), Brier {:.4}, Spearman(rating, skill) {:.4}, mean drift {:+.2} (V and L predict {:+.2})",
        summary.mode,
        summary.players,
        summary.matches,
        summary.seconds,
        summary.log_loss,
        summary.log_loss_last_10_percent,
        summary.brier,
        summary.spearman_rating_skill,
        summary.mean_drift,
        summary.bonus_drift_predicted
    );
    for league in &summary.league_counts {
        println!("  {:<10} {}", league.league, league.players);
    }
    if !summary.seasons.is_empty() {
        let names: Vec<&str> = summary.seasons[0].league_counts.iter().map(|l| l.league.as_str()).collect();
        println!("season ends (league held, before the reset):");
        println!(
            "  {:<7} {} {:>8} {:>7} {:>9} {:>10} {:>9} {:>8}",
            "season",
            names.iter().map(|n| format!("{n:>9}")).collect::<String>(),
            "mean",
            "sd",
            "Spearman",
            "promoted",
            "demoted",
            "decayed"
        );
        for s in &summary.seasons {
            let counts: String = s.league_counts.iter().map(|l| format!("{:>9}", l.players)).collect();
            println!(
                "  {:<7} {counts} {:>8.1} {:>7.1} {:>9.3} {:>10} {:>9} {:>8}",
                s.season, s.mean_rating, s.rating_sd, s.spearman_rating_skill, s.promotions, s.demotions, s.decayed_players
            );
        }
    }
    println!("wrote {}", summary.files.join(", "));
    Ok(())
}

fn k_range(text: &str) -> Result<Vec<f64>, String> {
    let parts: Vec<f64> = text.split(':').map(|p| p.parse::<f64>().map_err(|_| format!("--k-range: {p:?} is not a number"))).collect::<Result<_, _>>()?;
    match parts.as_slice() {
        [start, end, step] if *step > 0.0 && start <= end && *start >= 0.0 => {
            let count = ((end - start) / step + 1e-9).floor() as usize + 1;
            if count > 10_000 {
                return Err("--k-range has more than 10,000 values".to_owned());
            }
            Ok((0..count).map(|i| start + step * i as f64).collect())
        }
        _ => Err(format!("--k-range must be START:END:STEP with 0 <= START <= END and STEP > 0, not {text:?}")),
    }
}

fn tune(args: &Args) -> Result<(), String> {
    let path = args.required("history")?;
    let history = history::parse(&read(path)?, path)?;
    let out = PathBuf::from(args.get("out").unwrap_or("tuning"));
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut scores = Vec::new();
    let configs = args.all("config");
    for config in &configs {
        scores.push(tune::score(&history, config.clone(), None, &load_rules(Some(config))?)?);
    }
    if let Some(range) = args.get("k-range") {
        let base = if configs.is_empty() { None } else { Some(configs[0].as_str()) };
        let base = load_rules(base)?;
        for k in k_range(range)? {
            let rules = Config { k_policy: KPolicy::Constant { k }, ..base.config().clone() }.validate().map_err(|e| e.to_string())?;
            scores.push(tune::score(&history, format!("K={k}"), Some(k), &rules)?);
        }
    }
    if scores.is_empty() {
        return Err("give candidate configurations with --config and/or a K range with --k-range".to_owned());
    }
    let best = (0..scores.len()).min_by(|&a, &b| scores[a].log_loss.total_cmp(&scores[b].log_loss)).unwrap_or(0);
    println!("{} matches, {} players", history.matches.len(), history.players.len());
    println!("{:<40} {:>9} {:>9} {:>9}", "candidate", "log-loss", "Brier", "accuracy");
    for (i, s) in scores.iter().enumerate() {
        println!("{:<40} {:>9.5} {:>9.5} {:>9.4}{}", s.name, s.log_loss, s.brier, s.accuracy, if i == best { "  <- best" } else { "" });
    }
    let report = serde_json::json!({ "history": path, "matches": history.matches.len(), "best": scores[best].name, "candidates": scores });
    let json_path = out.join("tuning.json");
    std::fs::write(&json_path, serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n").map_err(|e| format!("{}: {e}", json_path.display()))?;
    let mut written = vec![json_path.display().to_string()];
    if scores.iter().filter(|s| s.k.is_some()).count() >= 2 {
        let png = out.join("log_loss_vs_k.png");
        write_png(&tune::plot_k(&scores, best)?, &png)?;
        written.push(png.display().to_string());
    }
    println!("wrote {}", written.join(", "));
    Ok(())
}

fn replay(args: &Args) -> Result<(), String> {
    let path = args.required("history")?;
    let history = history::parse(&read(path)?, path)?;
    let rules = load_rules(args.get("config"))?;
    let (pool, prediction) = tune::replay(&history, &rules)?;
    let mut table = String::from("rank,player,rating,games,win_streak,league\n");
    for (rank, index) in pool.top(pool.len()).into_iter().enumerate() {
        let p = pool.player(index).unwrap_or_else(|| unreachable!("indices come from the pool"));
        let league = rules.config().leagues.as_slice().get(rules.league_of(p.rating)).map_or("", |l| l.name.as_str());
        table.push_str(&format!("{},{},{},{},{},{}\n", rank + 1, history.players[index], p.rating, p.games_played, p.win_streak, league));
    }
    let out = args.get("out").unwrap_or("ratings.csv");
    std::fs::write(out, &table).map_err(|e| format!("{out}: {e}"))?;
    println!("{} matches, {} players; log-loss {:.5}, Brier {:.5}; wrote {out}", history.matches.len(), history.players.len(), prediction.log_loss(), prediction.brier());
    for line in table.lines().skip(1).take(5) {
        println!("  {line}");
    }
    Ok(())
}

/// A synthetic history: players with hidden normal skills play random pairs; about one
/// match in ten is a draw; results otherwise follow the skills.
fn generate_history(args: &Args) -> Result<(), String> {
    let players: usize = args.number("players", 60)?;
    let matches: usize = args.number("matches", 3000)?;
    if players < 2 {
        return Err("--players must be at least 2".to_owned());
    }
    let out = args.required("out")?;
    let mut rng = rng::Rng::new(args.number("seed", 7)?);
    let skills: Vec<f64> = (0..players).map(|_| 1500.0 + 250.0 * rng.normal()).collect();
    let scale = std::f64::consts::LOG2_10 / 400.0;
    let mut h = history::History { players: (1..=players).map(|i| format!("p{i:03}")).collect(), matches: Vec::with_capacity(matches) };
    for t in 0..matches {
        let a = rng.below(players);
        let b = (a + 1 + rng.below(players - 1)) % players;
        let p = ranking_elo::expected::logistic(skills[a] - skills[b], scale);
        let outcome = if rng.unit() < 0.1 {
            Outcome::DRAW
        } else if rng.unit() < p {
            Outcome::WIN
        } else {
            Outcome::LOSS
        };
        h.matches.push(history::Played { a, b, outcome, time: Some(t as f64) });
    }
    std::fs::write(out, history::to_csv(&h)).map_err(|e| format!("{out}: {e}"))?;
    println!("wrote {out}: {players} players, {matches} matches");
    Ok(())
}

fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = raw.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest = &raw[1..];
    let result = match command.as_str() {
        "simulate" => Args::parse(
            rest,
            &[
                "players",
                "matches",
                "seed",
                "config",
                "skills",
                "matchmaker",
                "results",
                "initial-rating",
                "team-size",
                "players-per-match",
                "frames",
                "out",
                "seasons",
                "season-matches",
                "season-days",
            ],
        )
        .and_then(|a| simulate(&a)),
        "tune" => Args::parse(rest, &["history", "config", "k-range", "out"]).and_then(|a| tune(&a)),
        "replay" => Args::parse(rest, &["history", "config", "out"]).and_then(|a| replay(&a)),
        "generate-history" => Args::parse(rest, &["players", "matches", "seed", "out"]).and_then(|a| generate_history(&a)),
        "queue" => Args::parse(rest, &["config", "population-players", "population-matches", "arrivals", "seconds", "tick", "widening", "candidates", "seed", "out"])
            .and_then(|a| queue(&a)),
        "--help" | "-h" | "help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        other => Err(format!("unknown command {other:?}\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("elo-sim: error: {message}");
            ExitCode::FAILURE
        }
    }
}
