//! `tune` and `replay`: a recorded history replayed under configurations.

use ranking_elo::pool::{Match, MatchOutputs, Pool};
use ranking_elo::Rules;
use serde::Serialize;

use crate::history::History;
use crate::metrics::Prediction;
use crate::plot::{self, Axes, Series};

/// How well one configuration predicted a history.
#[derive(Debug, Serialize)]
pub struct Score {
    pub name: String,
    pub k: Option<f64>,
    pub log_loss: f64,
    pub brier: f64,
    pub accuracy: f64,
}

/// Replays `history` under `rules`: the pool afterwards and the predictions made before
/// each match.
pub fn replay(history: &History, rules: &Rules) -> Result<(Pool, Prediction), String> {
    let mut pool = Pool::new(rules.clone());
    pool.add_players(history.players.len());
    let matches: Vec<Match> = history.matches.iter().map(|m| Match::new(m.a, m.b, m.outcome)).collect();
    let mut expected = vec![0.0f32; matches.len()];
    pool.apply(&matches, Some(MatchOutputs { expected_a: Some(&mut expected), ..MatchOutputs::default() })).map_err(|e| e.to_string())?;
    let mut prediction = Prediction::default();
    for (m, e) in history.matches.iter().zip(&expected) {
        prediction.add(f64::from(*e), m.outcome.score_a);
    }
    Ok((pool, prediction))
}

pub fn score(history: &History, name: String, k: Option<f64>, rules: &Rules) -> Result<Score, String> {
    let (_, p) = replay(history, rules)?;
    Ok(Score { name, k, log_loss: p.log_loss(), brier: p.brier(), accuracy: p.accuracy() })
}

/// A chart of log-loss against K, the best K highlighted.
pub fn plot_k(scores: &[Score], best: usize) -> Result<plot::Figure, String> {
    let ks: Vec<f64> = scores.iter().filter_map(|s| s.k).collect();
    let (k_lo, k_hi) = ks.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &k| (lo.min(k), hi.max(k)));
    let (l_lo, l_hi) = scores.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| (lo.min(s.log_loss), hi.max(s.log_loss)));
    let margin = ((l_hi - l_lo) * 0.1).max(1e-4);
    let k_margin = ((k_hi - k_lo) * 0.05).max(0.5);
    let points: Vec<(f64, f64)> = scores.iter().filter_map(|s| s.k.map(|k| (k, s.log_loss))).collect();
    let best_point: Vec<(f64, f64)> = scores.get(best).and_then(|s| s.k.map(|k| (k, s.log_loss))).into_iter().collect();
    let series = [
        Series { label: None, colour: plot::SERIES, points: points.clone(), radius: 0 },
        Series { label: Some("log-loss".to_owned()), colour: plot::SERIES, points, radius: 3 },
        Series { label: Some("best K".to_owned()), colour: plot::HIGHLIGHT, points: best_point, radius: 6 },
    ];
    let axes = Axes {
        title: "Log-loss of the predictions against K",
        x_label: "K",
        y_label: "log-loss",
        x_range: (k_lo - k_margin, k_hi + k_margin),
        y_range: (l_lo - margin, l_hi + margin),
    };
    plot::chart(720, 480, &axes, &series, false)
}
