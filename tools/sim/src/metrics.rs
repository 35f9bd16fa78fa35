//! How well ratings predict results and track skill.

/// Running log-loss, Brier score and accuracy of predictions `p` for outcomes `y` in [0, 1].
#[derive(Debug, Default, Clone, Copy)]
pub struct Prediction {
    count: u64,
    log_loss: f64,
    brier: f64,
    correct: f64,
}

impl Prediction {
    pub fn add(&mut self, p: f64, y: f64) {
        let p = p.clamp(1e-12, 1.0 - 1e-12);
        self.count += 1;
        self.log_loss -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        self.brier += (p - y) * (p - y);
        // A draw (y = 0.5) counts half whichever way the prediction leans.
        self.correct += if (p - 0.5) * (y - 0.5) > 0.0 {
            1.0
        } else if y == 0.5 || p == 0.5 {
            0.5
        } else {
            0.0
        };
    }

    pub fn log_loss(&self) -> f64 {
        self.log_loss / self.count.max(1) as f64
    }

    pub fn brier(&self) -> f64 {
        self.brier / self.count.max(1) as f64
    }

    pub fn accuracy(&self) -> f64 {
        self.correct / self.count.max(1) as f64
    }
}

/// Ranks with ties sharing their average rank.
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let average = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = average;
        }
        i = j + 1;
    }
    ranks
}

/// Spearman's rank correlation.
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    let (rx, ry) = (ranks(x), ranks(y));
    let n = rx.len() as f64;
    let mean = (n + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mean) * (b - mean);
        sxx += (a - mean) * (a - mean);
        syy += (b - mean) * (b - mean);
    }
    if sxx == 0.0 || syy == 0.0 {
        0.0
    } else {
        sxy / (sxx * syy).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_of_monotonic_data_is_one() {
        assert!((spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 35.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
    }

    #[test]
    fn perfect_and_coin_predictions() {
        let mut coin = Prediction::default();
        coin.add(0.5, 1.0);
        coin.add(0.5, 0.0);
        assert!((coin.log_loss() - std::f64::consts::LN_2).abs() < 1e-12);
        assert!((coin.brier() - 0.25).abs() < 1e-12);
    }
}
