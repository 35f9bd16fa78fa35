//! `queue`: players arrive in a matchmaking queue at a steady rate, with ratings drawn from a
//! simulated population, and the engine's [`Matchmaker`] ticks at a fixed interval, as
//! `elo-ladder`'s matcher does; for each widening setting, the time to match (p50, p99) and
//! the match quality (mean rating gap, and the share of matches whose favourite's expected
//! score, under the configuration's model, is above 0.75). Virtual time: a minute of
//! arrivals runs in well under a second.

use std::path::PathBuf;

use ranking_elo::matchmaking::{Matchmaker, MatchmakingSettings};
use ranking_elo::Rules;
use serde::Serialize;

use crate::plot::{self, Axes, Series};
use crate::rng::Rng;

/// A widening setting: `initial_distance:growth_per_second:max_distance`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Widening {
    pub initial_distance: f64,
    pub growth_per_second: f64,
    pub max_distance: f64,
}

impl Widening {
    pub fn parse(text: &str) -> Result<Self, String> {
        let parts: Vec<f64> = text.split(':').map(str::parse).collect::<Result<_, _>>().map_err(|_| format!("--widening {text:?}: expected M0:GROWTH:MAX (numbers)"))?;
        match parts[..] {
            [initial_distance, growth_per_second, max_distance] => Ok(Self { initial_distance, growth_per_second, max_distance }),
            _ => Err(format!("--widening {text:?}: expected M0:GROWTH:MAX")),
        }
    }

    fn label(&self) -> String {
        format!("{}+{}/s up to {}", self.initial_distance, self.growth_per_second, self.max_distance)
    }
}

/// What `queue` runs.
pub struct Options {
    /// Ratings of the population tickets are drawn from.
    pub population: Vec<f32>,
    /// The rules whose expected score judges a match.
    pub rules: Rules,
    /// Tickets per second.
    pub arrivals: usize,
    /// Seconds of arrivals.
    pub seconds: usize,
    /// Seconds between ticks.
    pub tick: f64,
    pub widenings: Vec<Widening>,
    pub candidates: u32,
    pub seed: u64,
    pub out_dir: PathBuf,
}

/// One setting's figures.
#[derive(Debug, Serialize)]
pub struct SettingSummary {
    pub widening: Widening,
    pub tickets: usize,
    pub matched: usize,
    /// Still waiting when the run ended (arrivals stop, then ticks go on until the widest
    /// window is reached).
    pub unmatched: usize,
    pub wait_p50_seconds: f64,
    pub wait_p99_seconds: f64,
    pub mean_gap: f64,
    pub share_favourite_above_0_75: f64,
    /// The longest tick (wall time) and the most tickets waiting at a tick.
    pub slowest_tick_ms: f64,
    pub most_waiting: usize,
}

/// The run's figures.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub arrivals_per_second: usize,
    pub seconds: usize,
    pub tick_seconds: f64,
    pub population: usize,
    pub settings: Vec<SettingSummary>,
    pub files: Vec<String>,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// The share of `values` (sorted) at most each of `xs`.
fn cumulative(sorted: &[f64], xs: impl Iterator<Item = f64>) -> Vec<(f64, f64)> {
    xs.map(|x| (x, sorted.partition_point(|&v| v <= x) as f64 / sorted.len().max(1) as f64)).collect()
}

pub fn run(options: &Options) -> Result<Summary, String> {
    if options.population.is_empty() {
        return Err("the population is empty".to_owned());
    }
    if options.widenings.is_empty() {
        return Err("give at least one --widening".to_owned());
    }
    if !(options.tick.is_finite() && options.tick > 0.0) {
        return Err("--tick must be a positive number of seconds".to_owned());
    }
    std::fs::create_dir_all(&options.out_dir).map_err(|e| format!("{}: {e}", options.out_dir.display()))?;
    let mut settings = Vec::new();
    let (mut wait_series, mut gap_series) = (Vec::new(), Vec::new());
    let mut longest_wait: f64 = 1.0;
    let mut widest_gap: f64 = 1.0;
    let mut results = Vec::new();
    for (index, widening) in options.widenings.iter().enumerate() {
        let engine = MatchmakingSettings {
            initial_distance: widening.initial_distance,
            growth_per_second: widening.growth_per_second,
            max_distance: widening.max_distance,
            candidates: options.candidates,
            seed: options.seed,
        };
        let mut queue = Matchmaker::new(engine).map_err(|e| e.to_string())?;
        let mut rng = Rng::new(options.seed);
        let total = options.arrivals * options.seconds;
        let mut arrival = Vec::with_capacity(total);
        let mut rating = Vec::with_capacity(total);
        let (mut waits, mut gaps, mut lopsided) = (Vec::new(), Vec::new(), 0usize);
        let (mut slowest, mut most) = (0.0f64, 0usize);
        // After the arrivals, ticks go on until every ticket can reach the widest window.
        let drain = if widening.growth_per_second > 0.0 { (widening.max_distance - widening.initial_distance).max(0.0) / widening.growth_per_second } else { 0.0 };
        let end = options.seconds as f64 + drain + 2.0 * options.tick;
        let mut now = 0.0;
        let mut next_id = 0usize;
        while now < end {
            now += options.tick;
            // The arrivals before this tick, spread evenly over their second.
            while next_id < total {
                let at = (next_id / options.arrivals) as f64 + (next_id % options.arrivals) as f64 / options.arrivals as f64;
                if at > now {
                    break;
                }
                let r = options.population[rng.below(options.population.len())];
                queue.join(next_id as u64, r, at).map_err(|e| e.to_string())?;
                arrival.push(at);
                rating.push(r);
                next_id += 1;
            }
            most = most.max(queue.len());
            let started = std::time::Instant::now();
            let pairs = queue.tick(now, usize::MAX);
            slowest = slowest.max(started.elapsed().as_secs_f64() * 1000.0);
            for (a, b) in pairs {
                let (a, b) = (a as usize, b as usize);
                waits.push(now - arrival[a]);
                waits.push(now - arrival[b]);
                gaps.push((f64::from(rating[a]) - f64::from(rating[b])).abs());
                let expected = options.rules.expected_score(rating[a], rating[b]);
                if expected.max(1.0 - expected) > 0.75 {
                    lopsided += 1;
                }
            }
        }
        waits.sort_by(f64::total_cmp);
        gaps.sort_by(f64::total_cmp);
        longest_wait = longest_wait.max(percentile(&waits, 0.999));
        widest_gap = widest_gap.max(percentile(&gaps, 0.999));
        settings.push(SettingSummary {
            widening: *widening,
            tickets: total,
            matched: waits.len(),
            unmatched: queue.len(),
            wait_p50_seconds: percentile(&waits, 0.5),
            wait_p99_seconds: percentile(&waits, 0.99),
            mean_gap: gaps.iter().sum::<f64>() / gaps.len().max(1) as f64,
            share_favourite_above_0_75: lopsided as f64 / gaps.len().max(1) as f64,
            slowest_tick_ms: slowest,
            most_waiting: most,
        });
        results.push((index, widening.label(), waits, gaps));
    }
    for (index, label, waits, gaps) in &results {
        let steps = 200;
        wait_series.push(Series {
            label: Some(label.clone()),
            colour: plot::series_colour(*index),
            points: cumulative(waits, (0..=steps).map(|i| longest_wait * f64::from(i) / f64::from(steps))),
            radius: 0,
        });
        gap_series.push(Series {
            label: Some(label.clone()),
            colour: plot::series_colour(*index),
            points: cumulative(gaps, (0..=steps).map(|i| widest_gap * f64::from(i) / f64::from(steps))),
            radius: 0,
        });
    }
    let title = format!("{} tickets/s for {} s, a tick every {} s", options.arrivals, options.seconds, options.tick);
    let waits = plot::chart(
        900,
        560,
        &Axes { title: &format!("Time to match: {title}"), x_label: "seconds waited", y_label: "share of matched tickets", x_range: (0.0, longest_wait), y_range: (0.0, 1.0) },
        &wait_series,
        false,
    )?;
    let gaps = plot::chart(
        900,
        560,
        &Axes { title: &format!("Rating gap of matches: {title}"), x_label: "|R_A - R_B|", y_label: "share of matches", x_range: (0.0, widest_gap), y_range: (0.0, 1.0) },
        &gap_series,
        false,
    )?;
    let mut files = Vec::new();
    for (figure, name) in [(&waits, "queue_time_to_match.png"), (&gaps, "queue_rating_gap.png")] {
        let path = options.out_dir.join(name);
        let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        figure.write_png(std::io::BufWriter::new(file)).map_err(|e| format!("{}: {e}", path.display()))?;
        files.push(path.display().to_string());
    }
    let summary = Summary { arrivals_per_second: options.arrivals, seconds: options.seconds, tick_seconds: options.tick, population: options.population.len(), settings, files };
    let path = options.out_dir.join("queue_summary.json");
    std::fs::write(&path, serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(summary)
}
