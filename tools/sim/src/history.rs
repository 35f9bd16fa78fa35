//! Match histories as CSV: a header `player_a,player_b,result` (optionally `,time`), then
//! one match per line. A result is a score of player A in [0, 1], points as `3:2`, or
//! `win` / `loss` / `draw`. Errors give the line and column.

use std::collections::HashMap;
use std::fmt::Write as _;

use ranking_elo::Outcome;

/// One match of a history, with players as indices into [`History::players`].
#[derive(Debug, Clone, Copy)]
pub struct Played {
    pub a: usize,
    pub b: usize,
    pub outcome: Outcome,
    pub time: Option<f64>,
}

/// A parsed history.
#[derive(Debug, Default)]
pub struct History {
    /// Player names in order of first appearance.
    pub players: Vec<String>,
    pub matches: Vec<Played>,
}

fn parse_result(text: &str) -> Result<Outcome, String> {
    match text.to_ascii_lowercase().as_str() {
        "win" | "w" => return Ok(Outcome::WIN),
        "loss" | "l" => return Ok(Outcome::LOSS),
        "draw" | "d" => return Ok(Outcome::DRAW),
        _ => {}
    }
    if let Some((a, b)) = text.split_once(':') {
        let points = |p: &str| p.trim().parse::<f64>().map_err(|_| format!("{p:?} is not a number of points"));
        return Outcome::from_points(points(a)?, points(b)?).map_err(|e| e.to_string());
    }
    let score: f64 = text.parse().map_err(|_| format!("result {text:?} is not a score in [0, 1], points like 3:2, or win/loss/draw"))?;
    Outcome::from_score(score).map_err(|_| format!("score {text} is outside [0, 1]"))
}

/// Parses CSV text; `name` is used in error messages (`name:line:column: …`).
pub fn parse(text: &str, name: &str) -> Result<History, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let (header_index, header) = lines.next().ok_or_else(|| format!("{name}: the file is empty (expected the header player_a,player_b,result[,time])"))?;
    let columns: Vec<String> = header.split(',').map(|c| c.trim().to_ascii_lowercase()).collect();
    let has_time = match columns.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["player_a", "player_b", "result"] => false,
        ["player_a", "player_b", "result", "time"] => true,
        _ => {
            return Err(format!("{name}:{}:1: the header must be player_a,player_b,result or player_a,player_b,result,time (found {header:?})", header_index + 1));
        }
    };
    let mut history = History::default();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, line) in lines {
        let at = |column: usize, message: String| format!("{name}:{}:{column}: {message}", i + 1);
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let expected = if has_time { 4 } else { 3 };
        if fields.len() != expected {
            return Err(at(1, format!("expected {expected} fields, found {}", fields.len())));
        }
        let mut player = |column: usize, field: &str| -> Result<usize, String> {
            if field.is_empty() {
                return Err(at(column, "empty player name".to_owned()));
            }
            let next = history.players.len();
            let id = *index.entry(field.to_owned()).or_insert(next);
            if id == next {
                history.players.push(field.to_owned());
            }
            Ok(id)
        };
        let a = player(1, fields[0])?;
        let b = player(2, fields[1])?;
        if a == b {
            return Err(at(2, format!("player {:?} cannot play themself", fields[0])));
        }
        let outcome = parse_result(fields[2]).map_err(|message| at(3, message))?;
        let time = if has_time {
            let t: f64 = fields[3].parse().map_err(|_| at(4, format!("time {:?} is not a number", fields[3])))?;
            if !t.is_finite() {
                return Err(at(4, "time must be finite".to_owned()));
            }
            Some(t)
        } else {
            None
        };
        history.matches.push(Played { a, b, outcome, time });
    }
    if has_time {
        // Stable: matches at the same time keep their order in the file.
        history.matches.sort_by(|x, y| x.time.unwrap_or(0.0).total_cmp(&y.time.unwrap_or(0.0)));
    }
    Ok(history)
}

/// Writes a history as CSV (with times when every match has one).
pub fn to_csv(history: &History) -> String {
    let with_time = history.matches.iter().all(|m| m.time.is_some()) && !history.matches.is_empty();
    let mut out = String::from(if with_time { "player_a,player_b,result,time\n" } else { "player_a,player_b,result\n" });
    for m in &history.matches {
        let result = if m.outcome.score_a == 1.0 {
            "win".to_owned()
        } else if m.outcome.score_a == 0.0 {
            "loss".to_owned()
        } else if m.outcome.score_a == 0.5 {
            "draw".to_owned()
        } else {
            format!("{}", m.outcome.score_a)
        };
        let _ = write!(out, "{},{},{result}", history.players[m.a], history.players[m.b]);
        if with_time {
            let _ = write!(out, ",{}", m.time.unwrap_or(0.0));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_result_form_and_reports_positions() {
        let h = parse("player_a,player_b,result\nann,bob,win\nbob,cy,3:2\ncy,ann,0.5\nann,cy,loss\n", "h.csv").unwrap();
        assert_eq!(h.players, ["ann", "bob", "cy"]);
        assert_eq!(h.matches[1].outcome.score_a, 0.6);
        assert_eq!(h.matches[2].outcome, Outcome::DRAW);
        let error = parse("player_a,player_b,result\nann,bob,win\nann,bob,maybe\n", "h.csv").unwrap_err();
        assert!(error.starts_with("h.csv:3:3: result \"maybe\""), "{error}");
        assert!(parse("a,b\n", "h.csv").unwrap_err().starts_with("h.csv:1:1:"));
        assert!(parse("player_a,player_b,result\nann,ann,win\n", "h.csv").unwrap_err().starts_with("h.csv:2:2:"));
        assert!(parse("player_a,player_b,result,time\nann,bob,win,x\n", "h.csv").unwrap_err().starts_with("h.csv:2:4:"));
        assert!(parse("player_a,player_b,result\nann,bob,-1:2\n", "h.csv").unwrap_err().contains("h.csv:2:3:"));
    }

    #[test]
    fn times_order_the_matches() {
        let h = parse("player_a,player_b,result,time\na,b,win,5\nb,c,loss,1\n", "t").unwrap();
        assert_eq!(h.matches[0].time, Some(1.0));
        assert!(to_csv(&h).starts_with("player_a,player_b,result,time\nb,c,loss,1\n"));
    }
}
