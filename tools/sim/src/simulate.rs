//! `simulate`: a population with hidden true skills plays matches (drawn by the matchmaker
//! or at random); results are drawn from the true-skill win probability; ratings evolve
//! under a configuration.

use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use ranking_elo::expected::logistic;
use ranking_elo::ladder::group_matches::{PlacementMatch, TeamMatch};
use ranking_elo::matchmaking::{Matchmaker, MatchmakingSettings};
use ranking_elo::pool::{Match, MatchOutputs, Pool};
use ranking_elo::{Config, Outcome, Rules};
use serde::Serialize;

use crate::metrics::{spearman, Prediction};
use crate::plot::{self, Axes, Figure, Series};
use crate::rng::Rng;

/// How true skills are spread.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(tag = "distribution", rename_all = "snake_case")]
pub enum Skills {
    Normal { mean: f64, sd: f64 },
    Uniform { low: f64, high: f64 },
}

impl Skills {
    /// `normal:MEAN:SD` or `uniform:LOW:HIGH`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let parts: Vec<&str> = text.split(':').collect();
        let number = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| format!("--skills: {s:?} is not a number"));
        match parts.as_slice() {
            ["normal", mean, sd] if number(sd)? > 0.0 => Ok(Self::Normal { mean: number(mean)?, sd: number(sd)? }),
            ["uniform", low, high] if number(low)? < number(high)? => Ok(Self::Uniform { low: number(low)?, high: number(high)? }),
            _ => Err(format!("--skills must be normal:MEAN:SD (SD > 0) or uniform:LOW:HIGH (LOW < HIGH), not {text:?}")),
        }
    }

    fn draw(self, rng: &mut Rng) -> f64 {
        match self {
            Self::Normal { mean, sd } => mean + sd * rng.normal(),
            Self::Uniform { low, high } => low + (high - low) * rng.unit(),
        }
    }
}

/// How match results are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Results {
    /// From the true skills' win probability (logistic, c = 400).
    Skill,
    /// A fair coin that ignores skill, as the published simulation of the league system of
    /// `benches/system_002.json` does (`tests/league_system.rs`).
    Coin,
}

impl Results {
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "skill" => Ok(Self::Skill),
            "coin" => Ok(Self::Coin),
            other => Err(format!("--results must be skill or coin, not {other:?}")),
        }
    }
}

pub struct Options {
    pub players: usize,
    pub matches: usize,
    pub seed: u64,
    pub config_json: String,
    pub skills: Skills,
    pub matchmaker: bool,
    pub results: Results,
    /// Players per team (1: one against one).
    pub team_size: usize,
    /// Entrants per free-for-all (0: off).
    pub players_per_match: usize,
    /// Replaces the configuration's `initial_rating` when given.
    pub initial_rating: Option<f32>,
    pub frames: usize,
    pub out_dir: PathBuf,
    pub progress: bool,
    /// Seasons (0: one run without season ends); each has `season_matches` matches and
    /// lasts `season_days` days of the pool's clock (inactivity decay reads it).
    pub seasons: usize,
    pub season_matches: usize,
    pub season_days: f64,
}

/// One season's end, before its soft reset.
#[derive(Serialize)]
pub struct SeasonSummary {
    pub season: usize,
    /// Players per league held at the season's end (what rewards go by).
    pub league_counts: Vec<LeagueCount>,
    /// Players per highest league reached during the season.
    pub peak_league_counts: Vec<LeagueCount>,
    pub mean_rating: f64,
    pub rating_sd: f64,
    /// Spearman correlation of the season's final ratings with true skill.
    pub spearman_rating_skill: f64,
    /// Promotions and demotions during the season (matches and decay).
    pub promotions: usize,
    pub demotions: usize,
    /// Players whose rating inactivity decay moved at least once.
    pub decayed_players: usize,
}

/// League counts by name from league indices.
fn counts_by_league(rules: &Rules, leagues: impl Iterator<Item = usize>) -> Vec<LeagueCount> {
    let mut counts = vec![0; rules.config().leagues.len().max(1)];
    for league in leagues {
        let last = counts.len() - 1;
        counts[league.min(last)] += 1;
    }
    counts.into_iter().enumerate().map(|(i, players)| LeagueCount { league: league_name(rules, i), players }).collect()
}

#[derive(Serialize)]
pub struct PlayerLine {
    pub id: usize,
    pub rating: f32,
    pub skill: f64,
    pub games: u32,
    pub win_streak: u32,
    pub league: String,
}

#[derive(Serialize)]
pub struct LeagueCount {
    pub league: String,
    pub players: usize,
}

#[derive(Serialize)]
pub struct Summary {
    pub players: usize,
    pub matches: usize,
    pub seed: u64,
    pub matchmaker: bool,
    pub results: Results,
    /// "pairs", "teams of T" or "free-for-all of N".
    pub mode: String,
    pub skills: Skills,
    pub config: serde_json::Value,
    pub seconds: f64,
    pub league_counts: Vec<LeagueCount>,
    pub top: Vec<PlayerLine>,
    pub bottom: Vec<PlayerLine>,
    /// Over every match, predictions made before the match.
    pub log_loss: f64,
    pub brier: f64,
    pub accuracy: f64,
    /// Over the last 10% of matches (ratings settled).
    pub log_loss_last_10_percent: f64,
    pub brier_last_10_percent: f64,
    /// Rank correlation of final ratings with true skills.
    pub spearman_rating_skill: f64,
    /// One entry per season end (with `--seasons`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub seasons: Vec<SeasonSummary>,
    pub mean_rating_initial: f64,
    pub mean_rating_final: f64,
    /// Mean rating change per player. Every match adds `V` once (to the winner, or `V/2`
    /// to each for a draw) and `L` once (the two shares sum to 1), so `M` matches among `N`
    /// players predict `M (V + L) / N` (0 in a zero-sum pool; league-specific bonuses make
    /// it an estimate).
    pub mean_drift: f64,
    pub bonus_drift_predicted: f64,
    pub files: Vec<String>,
    /// Every player's rating at the end (`queue` draws its tickets from them).
    #[serde(skip)]
    pub final_ratings: Vec<f32>,
}

fn league_name(rules: &Rules, index: usize) -> String {
    rules.config().leagues.as_slice().get(index).map_or_else(|| "all".to_owned(), |l| l.name.clone())
}

fn player_line(pool: &Pool, rules: &Rules, skills: &[f64], id: usize) -> PlayerLine {
    let p = pool.player(id).unwrap_or_else(|| unreachable!("ids come from the pool"));
    PlayerLine { id, rating: p.rating, skill: skills[id], games: p.games_played, win_streak: p.win_streak, league: league_name(rules, rules.league_of(p.rating)) }
}

/// Renders one scatter frame of rating against skill, one colour and legend entry per league.
fn scatter(skills: &[f64], ratings: &[f32], rules: &Rules, x_range: (f64, f64), y_range: (f64, f64), title: &str) -> Result<Figure, String> {
    let radius = if skills.len() > 2000 { 1 } else { 2 };
    let leagues = rules.config().leagues.len().max(1);
    let mut series: Vec<Series> = (0..leagues).map(|i| Series { label: Some(league_name(rules, i)), colour: plot::league_colour(i), points: Vec::new(), radius }).collect();
    for (skill, rating) in skills.iter().zip(ratings) {
        series[rules.league_of(*rating)].points.push((*skill, f64::from(*rating)));
    }
    if leagues == 1 {
        series[0].label = None;
        series[0].colour = plot::SERIES;
    }
    let axes = Axes { title, x_label: "true skill", y_label: "rating", x_range, y_range };
    plot::chart(720, 540, &axes, &series, true)
}

pub fn run(options: &Options) -> Result<Summary, String> {
    if options.players < 2 {
        return Err("--players must be at least 2".to_owned());
    }
    if options.seasons > 0 {
        if options.team_size > 1 || options.players_per_match > 1 {
            return Err("--seasons runs one-against-one ladders (leave out --team-size and --players-per-match)".to_owned());
        }
        if options.season_matches == 0 {
            return Err("--season-matches must be at least 1".to_owned());
        }
        if !(options.season_days.is_finite() && options.season_days > 0.0) {
            return Err("--season-days must be a positive number".to_owned());
        }
    }
    let mut config: Config = serde_json::from_str(&options.config_json).map_err(|e| format!("configuration: {e}"))?;
    if let Some(initial) = options.initial_rating {
        config.initial_rating = initial;
    }
    let rules = config.validate().map_err(|e| format!("configuration: {e}"))?;
    let start = Instant::now();
    let mut rng = Rng::new(options.seed);
    let skills: Vec<f64> = (0..options.players).map(|_| options.skills.draw(&mut rng)).collect();
    let mut pool = Pool::new(rules.clone());
    pool.add_players(options.players);
    let initial_mean = pool.total() / options.players as f64;
    let mut queue = if options.matchmaker {
        let settings = MatchmakingSettings { seed: options.seed, ..MatchmakingSettings::default() };
        let mut queue = Matchmaker::new(settings).map_err(|e| e.to_string())?;
        for id in 0..options.players {
            queue.join(id as u64, pool.rating(id).unwrap_or_default(), 0.0).map_err(|e| e.to_string())?;
        }
        Some(queue)
    } else {
        None
    };
    let truth_scale = std::f64::consts::LOG2_10 / 400.0;
    let frames = options.frames.max(1);
    let per_frame = options.matches.div_ceil(frames).max(1);
    let mut snapshots: Vec<(usize, Vec<f32>)> = Vec::with_capacity(frames + 1);
    let mut ratings = vec![0.0f32; options.players];
    pool.ratings_into(0, &mut ratings).map_err(|e| e.to_string())?;
    snapshots.push((0, ratings.clone()));

    let progress = if options.progress { ProgressBar::new(options.matches as u64) } else { ProgressBar::hidden() };
    progress.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} matches {elapsed_precise} eta {eta}").unwrap_or_else(|_| ProgressStyle::default_bar()));
    let (mut overall, mut last) = (Prediction::default(), Prediction::default());
    let last_start = options.matches - options.matches / 10;
    let mut played = 0usize;
    let mut clock = 0.0f64;
    let mut batch: Vec<Match> = Vec::new();
    let mut expected: Vec<f32> = Vec::new();
    let mut next_frame = per_frame;
    let mut season = SeasonRun::new(options);
    if options.team_size > 1 || options.players_per_match > 1 {
        let group = GroupRun { options, skills: &skills, truth_scale, last_start };
        group.play(&mut pool, queue.as_mut(), &mut rng, &mut overall, &mut last, &mut snapshots, per_frame, &progress)?;
        played = options.matches;
    }
    while played < options.matches {
        let wanted = (next_frame.min(options.matches).min(season.next_end) - played).min(65_536);
        season.tick(&mut pool, played)?;
        batch.clear();
        if let Some(queue) = queue.as_mut() {
            for (a, b) in queue.tick(clock, wanted) {
                batch.push(Match::new(a as usize, b as usize, Outcome::LOSS));
            }
            let settings = queue.settings();
            let widest = (settings.max_distance - settings.initial_distance) / settings.growth_per_second.max(1e-9);
            if batch.is_empty() && clock > widest + 1.0 {
                // Nobody is within anybody's widest window (a tiny or very spread
                // population): pair two waiting players at random so the run goes on.
                let a = rng.below(options.players);
                let b = (a + 1 + rng.below(options.players - 1)) % options.players;
                queue.leave(a as u64);
                queue.leave(b as u64);
                batch.push(Match::new(a, b, Outcome::LOSS));
            }
            clock += 1.0;
        } else {
            for _ in 0..wanted {
                let a = rng.below(options.players);
                let b = (a + 1 + rng.below(options.players - 1)) % options.players;
                batch.push(Match::new(a, b, Outcome::LOSS));
            }
        }
        for m in &mut batch {
            let p = match options.results {
                Results::Skill => logistic(skills[m.a] - skills[m.b], truth_scale),
                Results::Coin => 0.5,
            };
            m.outcome = if rng.unit() < p { Outcome::WIN } else { Outcome::LOSS };
        }
        expected.resize(batch.len(), 0.0);
        let events = season.events.as_mut();
        let outputs = MatchOutputs { expected_a: Some(&mut expected), events, ..MatchOutputs::default() };
        pool.apply(&batch, Some(outputs)).map_err(|e| e.to_string())?;
        for (i, m) in batch.iter().enumerate() {
            overall.add(f64::from(expected[i]), m.outcome.score_a);
            if played + i >= last_start {
                last.add(f64::from(expected[i]), m.outcome.score_a);
            }
        }
        if let Some(queue) = queue.as_mut() {
            for m in &batch {
                for id in [m.a, m.b] {
                    queue.join(id as u64, pool.rating(id).unwrap_or_default(), clock).map_err(|e| e.to_string())?;
                }
            }
        }
        played += batch.len();
        progress.set_position(played as u64);
        if played == season.next_end {
            season.end(&mut pool, &rules, &skills, played)?;
            if let Some(queue) = queue.as_mut() {
                // Waiting players re-join with their reset ratings.
                for id in 0..options.players {
                    if queue.leave(id as u64) {
                        queue.join(id as u64, pool.rating(id).unwrap_or_default(), clock).map_err(|e| e.to_string())?;
                    }
                }
            }
        }
        if played >= next_frame || played == options.matches {
            pool.ratings_into(0, &mut ratings).map_err(|e| e.to_string())?;
            snapshots.push((played, ratings.clone()));
            next_frame += per_frame;
        }
    }
    progress.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();

    // Charts: one range for every frame, so the animation does not jump.
    let span = |values: &mut dyn Iterator<Item = f64>| values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (skill_lo, skill_hi) = span(&mut skills.iter().copied());
    let (rating_lo, rating_hi) = span(&mut snapshots.iter().flat_map(|(_, r)| r.iter().map(|&v| f64::from(v))));
    let (x_range, y_range) = (plot::padded((skill_lo, skill_hi)), plot::padded((rating_lo, rating_hi)));
    std::fs::create_dir_all(&options.out_dir).map_err(|e| format!("{}: {e}", options.out_dir.display()))?;
    let png_path = options.out_dir.join("rating_vs_skill.png");
    let gif_path = options.out_dir.join("rating_vs_skill.gif");
    let json_path = options.out_dir.join("summary.json");
    let mut files = vec![png_path.clone(), gif_path.clone()];
    if !season.summaries.is_empty() {
        let path = options.out_dir.join("season_distributions.png");
        write_figure(&season.distribution_chart()?, &path)?;
        files.push(path);
    }
    files.push(json_path.clone());
    let (last_count, final_ratings) = snapshots.last().map(|(n, r)| (*n, r.clone())).unwrap_or_default();
    let final_frame = scatter(&skills, &final_ratings, &rules, x_range, y_range, &format!("Rating vs true skill after {last_count} matches"))?;
    write_figure(&final_frame, &png_path)?;
    let frames = snapshots
        .iter()
        .map(|(n, r)| scatter(&skills, r, &rules, x_range, y_range, &format!("Rating vs true skill after {n} matches")))
        .collect::<Result<Vec<Figure>, String>>()?;
    let file = std::fs::File::create(&gif_path).map_err(|e| format!("{}: {e}", gif_path.display()))?;
    plot::write_gif(std::io::BufWriter::new(file), &frames, 12).map_err(|e| format!("{}: {e}", gif_path.display()))?;

    let final_mean = pool.total() / options.players as f64;
    let league_counts = pool.league_counts().into_iter().enumerate().map(|(i, players)| LeagueCount { league: league_name(&rules, i), players }).collect();
    let ratings64: Vec<f64> = final_ratings.iter().map(|&r| f64::from(r)).collect();
    let summary = Summary {
        players: options.players,
        matches: options.matches,
        seed: options.seed,
        matchmaker: options.matchmaker,
        results: options.results,
        mode: if options.players_per_match > 1 {
            format!("free-for-all of {}", options.players_per_match)
        } else if options.team_size > 1 {
            format!("teams of {}", options.team_size)
        } else {
            "pairs".to_owned()
        },
        skills: options.skills,
        config: serde_json::from_str(&rules.config().to_json()).unwrap_or(serde_json::Value::Null),
        seconds,
        league_counts,
        top: pool.top(5).into_iter().map(|id| player_line(&pool, &rules, &skills, id)).collect(),
        bottom: pool.bottom(5).into_iter().map(|id| player_line(&pool, &rules, &skills, id)).collect(),
        log_loss: overall.log_loss(),
        brier: overall.brier(),
        accuracy: overall.accuracy(),
        log_loss_last_10_percent: last.log_loss(),
        brier_last_10_percent: last.brier(),
        spearman_rating_skill: spearman(&ratings64, &skills),
        seasons: season.summaries,
        mean_rating_initial: initial_mean,
        mean_rating_final: final_mean,
        mean_drift: final_mean - initial_mean,
        final_ratings: final_ratings.clone(),
        bonus_drift_predicted: if rules.config().zero_sum_total.is_some() {
            0.0
        } else {
            options.matches as f64 * (rules.config().victory_bonus + rules.config().score_share_bonus) / options.players as f64
        },
        files: files.iter().map(|p| p.display().to_string()).collect(),
    };
    let text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
    std::fs::write(&json_path, text + "\n").map_err(|e| format!("{}: {e}", json_path.display()))?;
    Ok(summary)
}

/// Team and free-for-all runs: a "match" is one team match or one free-for-all.
struct GroupRun<'a> {
    options: &'a Options,
    skills: &'a [f64],
    truth_scale: f64,
    last_start: usize,
}

impl GroupRun<'_> {
    /// Plays `options.matches` team matches (`team_size > 1`, teams formed by the team
    /// matchmaker or at random) or free-for-alls (`players_per_match > 1`, entrants at
    /// random). Results follow the skills: team A wins with the logistic probability of the
    /// mean skills' difference; free-for-all places sort skill plus Gumbel noise of scale
    /// 400 / ln 10, so every pair's win probability is the same logistic. The predictions
    /// scored are, for teams, E of the team ratings before the match, and for free-for-alls
    /// every pair's E before the match.
    #[allow(clippy::too_many_arguments)]
    fn play(
        &self,
        pool: &mut Pool,
        mut queue: Option<&mut Matchmaker>,
        rng: &mut Rng,
        overall: &mut Prediction,
        last: &mut Prediction,
        snapshots: &mut Vec<(usize, Vec<f32>)>,
        per_frame: usize,
        progress: &ProgressBar,
    ) -> Result<(), String> {
        let options = self.options;
        let n = options.players;
        let rules = pool.rules().clone();
        let group = if options.players_per_match > 1 { options.players_per_match } else { 2 * options.team_size };
        if group > n {
            return Err(format!("{group} players per match need at least as many players (--players {n})"));
        }
        let mut clock = 0.0;
        let mut next_frame = per_frame;
        let mut members: Vec<usize> = Vec::with_capacity(group);
        let mut ratings = vec![0.0f32; n];
        let mut pending: std::collections::VecDeque<Vec<u64>> = std::collections::VecDeque::new();
        let mut idle = 0;
        for played in 0..options.matches {
            members.clear();
            if options.players_per_match <= 1 {
                if let Some(queue) = queue.as_deref_mut() {
                    // Each tick forms every match it can; once nobody is within anybody's
                    // widest window for a while, a random group plays so the run goes on.
                    while pending.is_empty() {
                        clock += 1.0;
                        pending.extend(queue.tick_teams(clock, options.team_size, usize::MAX));
                        idle = if pending.is_empty() { idle + 1 } else { 0 };
                        if pending.is_empty() && idle > 60 {
                            let ids = draw_distinct(rng, n, group);
                            if ids.iter().all(|&id| queue.leave(id as u64)) {
                                pending.push_back(ids.iter().map(|&id| id as u64).collect());
                            }
                        }
                    }
                    members.extend(pending.pop_front().unwrap_or_default().iter().map(|&id| id as usize));
                }
            }
            if members.is_empty() {
                members.extend(draw_distinct(rng, n, group));
            }
            if options.players_per_match > 1 {
                self.free_for_all(pool, &rules, &members, rng, played, overall, last)?;
            } else {
                self.team_match(pool, &rules, &members, rng, played, overall, last)?;
            }
            if let Some(queue) = queue.as_deref_mut() {
                for &id in &members {
                    if !queue.contains(id as u64) {
                        queue.join(id as u64, pool.rating(id).unwrap_or_default(), clock).map_err(|e| e.to_string())?;
                    }
                }
            }
            progress.set_position(played as u64 + 1);
            if played + 1 >= next_frame || played + 1 == options.matches {
                pool.ratings_into(0, &mut ratings).map_err(|e| e.to_string())?;
                snapshots.push((played + 1, ratings.clone()));
                next_frame += per_frame;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn team_match(&self, pool: &mut Pool, rules: &Rules, members: &[usize], rng: &mut Rng, played: usize, overall: &mut Prediction, last: &mut Prediction) -> Result<(), String> {
        let t = members.len() / 2;
        let (a, b) = members.split_at(t);
        let mean = |team: &[usize], value: &dyn Fn(usize) -> f64| team.iter().map(|&i| value(i)).sum::<f64>() / t as f64;
        let skill = |i: usize| self.skills[i];
        let rating = |i: usize| f64::from(pool.rating(i).unwrap_or_default());
        let p = match self.options.results {
            Results::Skill => logistic(mean(a, &skill) - mean(b, &skill), self.truth_scale),
            Results::Coin => 0.5,
        };
        let expected = rules.expectation().expected_from_difference(rules.expectation().cap_difference(mean(a, &rating) - mean(b, &rating)));
        let outcome = if rng.unit() < p { Outcome::WIN } else { Outcome::LOSS };
        overall.add(expected, outcome.score_a);
        if played >= self.last_start {
            last.add(expected, outcome.score_a);
        }
        pool.apply_teams(&[TeamMatch::new(a, b, outcome)]).map_err(|e| e.to_string())
    }

    #[allow(clippy::too_many_arguments)]
    fn free_for_all(&self, pool: &mut Pool, rules: &Rules, members: &[usize], rng: &mut Rng, played: usize, overall: &mut Prediction, last: &mut Prediction) -> Result<(), String> {
        let noise = 400.0 / std::f64::consts::LN_10;
        let performance: Vec<f64> = members
            .iter()
            .map(|&i| {
                let gumbel = -(-(rng.unit().max(1e-300)).ln()).ln();
                match self.options.results {
                    Results::Skill => self.skills[i] + noise * gumbel,
                    Results::Coin => gumbel,
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..members.len()).collect();
        order.sort_by(|&x, &y| performance[y].total_cmp(&performance[x]).then(x.cmp(&y)));
        let mut places = vec![0u32; members.len()];
        for (rank, &k) in order.iter().enumerate() {
            places[k] = rank as u32 + 1;
        }
        for i in 0..members.len() {
            for j in i + 1..members.len() {
                let e = rules.expected_score(pool.rating(members[i]).unwrap_or_default(), pool.rating(members[j]).unwrap_or_default());
                let y = if places[i] < places[j] { 1.0 } else { 0.0 };
                overall.add(e, y);
                if played >= self.last_start {
                    last.add(e, y);
                }
            }
        }
        pool.apply_placements(&[PlacementMatch { entrants: members, places: &places }]).map_err(|e| e.to_string())
    }
}

/// `count` distinct indices below `n`, drawn at random.
fn draw_distinct(rng: &mut Rng, n: usize, count: usize) -> Vec<usize> {
    let mut chosen: Vec<usize> = Vec::with_capacity(count);
    while chosen.len() < count {
        let candidate = rng.below(n);
        if !chosen.contains(&candidate) {
            chosen.push(candidate);
        }
    }
    chosen
}

fn write_figure(figure: &Figure, path: &std::path::Path) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    figure.write_png(std::io::BufWriter::new(file)).map_err(|e| format!("{}: {e}", path.display()))
}

/// The season bookkeeping of a pairs run: the pool's clock through each season, decay
/// applied as time passes, and at each season's end the records, a summary and the
/// rating distribution before the soft reset.
struct SeasonRun {
    seasons: usize,
    season_matches: usize,
    season_seconds: f64,
    /// Played-match count at which the current season ends (`usize::MAX` without seasons).
    next_end: usize,
    /// League changes of the current season (collected only with seasons).
    events: Option<Vec<ranking_elo::standing::LeagueChange>>,
    decayed: Vec<bool>,
    /// Ratings at each season's end, before the reset.
    distributions: Vec<Vec<f32>>,
    summaries: Vec<SeasonSummary>,
}

impl SeasonRun {
    fn new(options: &Options) -> Self {
        let on = options.seasons > 0;
        Self {
            seasons: options.seasons,
            season_matches: options.season_matches,
            season_seconds: options.season_days * 86_400.0,
            next_end: if on { options.season_matches } else { usize::MAX },
            events: on.then(Vec::new),
            decayed: vec![false; if on { options.players } else { 0 }],
            distributions: Vec::new(),
            summaries: Vec::new(),
        }
    }

    /// Before a batch: the clock at this point of the season, and decay up to it.
    fn tick(&mut self, pool: &mut Pool, played: usize) -> Result<(), String> {
        if self.events.is_none() {
            return Ok(());
        }
        let season = self.summaries.len();
        let into = (played - season * self.season_matches) as f64 / self.season_matches as f64;
        let now = (season as f64 + into) * self.season_seconds;
        pool.set_clock(now).map_err(|e| e.to_string())?;
        let before: Vec<f32> = (0..pool.len()).map(|i| pool.rating(i).unwrap_or_default()).collect();
        pool.apply_decay(now, self.events.as_mut()).map_err(|e| e.to_string())?;
        if pool.rules().config().decay.is_on() {
            for (i, rating) in before.iter().enumerate() {
                if pool.rating(i) != Some(*rating) && pool.rules().config().zero_sum_total.is_none() {
                    self.decayed[i] = true;
                }
            }
        }
        Ok(())
    }

    /// At a season's end: summary, distribution, then the soft reset.
    fn end(&mut self, pool: &mut Pool, rules: &Rules, skills: &[f64], played: usize) -> Result<(), String> {
        let season = self.summaries.len() + 1;
        let now = season as f64 * self.season_seconds;
        pool.set_clock(now).map_err(|e| e.to_string())?;
        let records = pool.season_records();
        let ratings: Vec<f32> = records.iter().map(|r| r.rating).collect();
        let n = ratings.len() as f64;
        let mean = ratings.iter().map(|&r| f64::from(r)).sum::<f64>() / n;
        let sd = (ratings.iter().map(|&r| (f64::from(r) - mean).powi(2)).sum::<f64>() / n).sqrt();
        let ratings64: Vec<f64> = ratings.iter().map(|&r| f64::from(r)).collect();
        let events = self.events.take().unwrap_or_default();
        self.summaries.push(SeasonSummary {
            season,
            league_counts: counts_by_league(rules, records.iter().map(|r| r.league as usize)),
            peak_league_counts: counts_by_league(rules, records.iter().map(|r| r.peak_league as usize)),
            mean_rating: mean,
            rating_sd: sd,
            spearman_rating_skill: spearman(&ratings64, skills),
            promotions: events.iter().filter(|e| e.is_promotion()).count(),
            demotions: events.iter().filter(|e| !e.is_promotion()).count(),
            decayed_players: self.decayed.iter().filter(|&&d| d).count(),
        });
        self.distributions.push(ratings);
        pool.end_season(None);
        self.events = Some(Vec::new());
        self.decayed.fill(false);
        self.next_end = if season < self.seasons { played + self.season_matches } else { usize::MAX };
        Ok(())
    }

    /// The rating distribution at each season's end (before the reset): one histogram
    /// line per season, 40 bins over the range of all of them.
    fn distribution_chart(&self) -> Result<Figure, String> {
        const BINS: usize = 40;
        let all = self.distributions.iter().flatten().map(|&r| f64::from(r));
        let (low, high) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| (lo.min(r), hi.max(r)));
        let width = ((high - low) / BINS as f64).max(1e-9);
        let mut top = 0.0f64;
        let mut series = Vec::new();
        for (i, ratings) in self.distributions.iter().enumerate() {
            let mut bins = [0usize; BINS];
            for &r in ratings {
                bins[(((f64::from(r) - low) / width) as usize).min(BINS - 1)] += 1;
            }
            let share = |count: usize| 100.0 * count as f64 / ratings.len().max(1) as f64;
            let points: Vec<(f64, f64)> = bins.iter().enumerate().map(|(b, &c)| (low + (b as f64 + 0.5) * width, share(c))).collect();
            top = top.max(points.iter().map(|p| p.1).fold(0.0, f64::max));
            series.push(Series { label: Some(format!("end of season {}", i + 1)), colour: plot::series_colour(i), points, radius: 0 });
        }
        let axes = Axes {
            title: "Rating distribution at each season's end (before the reset)",
            x_label: "rating",
            y_label: "players (%)",
            x_range: plot::padded((low, high)),
            y_range: (0.0, top * 1.1 + 0.1),
        };
        plot::chart(800, 500, &axes, &series, false)
    }
}
