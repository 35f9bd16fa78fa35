//! `elo-ladder verify`: checks a ladder's journal as an outsider would. Each entry's hash
//! must follow from the previous one's ([`crate::chain`]), and the entries replayed through
//! the engine ([`crate::replay`]: annulled matches skipped, corrected ones with their latest
//! correction) must give every entry's results, with every annulment and correction mark
//! backed by its amendment entry. From a database, the players' stored states must also be
//! the replay's, bit for bit. The first entry that does not verify is named by its `seq`.

use std::collections::HashMap;

use serde::Deserialize;

use crate::chain::{canonical, genesis, hex, link, Content, Numbers, PlayerKey};
use crate::model::{current, PlayerView};
use crate::replay::{Rebuild, StoredEntry};
use crate::store::{HistoryLine, Ladder, StandingView};

/// The first line of an export.
#[derive(Debug, Deserialize, serde::Serialize)]
pub struct Header {
    /// `elo-ladder-journal/1`.
    pub format: String,
    /// The ladder's name.
    pub ladder: String,
    /// The first season's configuration (canonical JSON); season ends that bring in other
    /// rules carry them in their inputs (`next_rules`).
    pub rules: serde_json::Value,
}

/// An export's last line, `{"end": {…}}`: what it holds and whether that is the whole
/// journal as committed when the export started.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct End {
    /// Entries sent.
    pub entries: usize,
    /// The last one's seq (0 when none).
    pub last_seq: i64,
    /// The last one's hash: the chain head the entries must reach ("" when none).
    pub head: String,
    /// Every entry committed when the export started is in it, and nothing went wrong.
    pub complete: bool,
    /// Why not, when not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl End {
    /// Checks the end line against what a verifier saw.
    ///
    /// # Errors
    /// An incomplete export (its reason), or entries, last seq or head other than `seen`.
    pub fn check(&self, seen: &Summary) -> Result<(), String> {
        if !self.complete {
            return Err(format!("the export is incomplete: {}", self.reason.as_deref().unwrap_or("no reason given")));
        }
        if self.entries != seen.entries || self.last_seq != seen.last_seq || self.head != seen.head {
            return Err(format!(
                "the end line says {} entries through seq {} with head {:?}; the file has {} through seq {} with head {:?}",
                self.entries, self.last_seq, self.head, seen.entries, seen.last_seq, seen.head
            ));
        }
        Ok(())
    }
}

/// The export format's name.
pub const FORMAT: &str = "elo-ladder-journal/1";

/// A journal entry as exported (and as `GET …/matches` shows it).
#[derive(Debug, Deserialize)]
pub struct Exported {
    /// Its seq.
    pub seq: i64,
    /// Its kind.
    pub kind: String,
    /// Its id.
    #[serde(default)]
    pub id: Option<String>,
    /// Server time.
    pub time: f64,
    /// Inputs.
    pub inputs: serde_json::Value,
    /// Joined players.
    pub joined: Vec<String>,
    /// Results.
    pub results: serde_json::Value,
    /// Annulled.
    #[serde(default)]
    pub annulled: bool,
    /// The annulment's reason.
    #[serde(default)]
    pub annul_reason: Option<String>,
    /// The latest correction.
    #[serde(default)]
    pub corrected: Option<serde_json::Value>,
    /// Hex hash.
    pub hash: String,
    /// The joining players' keys.
    #[serde(default)]
    pub keys: Vec<PlayerKey>,
}

/// Where verification failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The first entry that does not verify (0: none in particular, e.g. the players).
    pub seq: i64,
    /// Why.
    pub reason: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.seq > 0 {
            write!(f, "seq {} does not verify: {}", self.seq, self.reason)
        } else {
            write!(f, "{}", self.reason)
        }
    }
}

/// What verified.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Entries.
    pub entries: usize,
    /// Matches (annulled ones included).
    pub matches: usize,
    /// Annulled matches.
    pub annulled: usize,
    /// Corrected matches.
    pub corrected: usize,
    /// Players imported with their states ([`crate::import`]).
    pub imported: usize,
    /// Players.
    pub players: usize,
    /// The last entry's hash.
    pub head: String,
    /// The last entry's seq.
    pub last_seq: i64,
}

/// Verifies a ladder's entries, streamed in seq order.
pub struct Verifier {
    rebuild: Rebuild,
    numbers: Numbers,
    previous: [u8; 32],
    last_seq: i64,
    summary: Summary,
    /// Matches by id: seq, annulled, annul reason, corrected.
    matches: HashMap<String, (i64, bool, Option<String>, Option<serde_json::Value>)>,
    /// Amendments seen: match id -> (annul reason, latest correction).
    amendments: HashMap<String, (Option<String>, Option<serde_json::Value>)>,
    /// The derived rows the replay gives, kept for a check against a database.
    derived: Option<Derived>,
}

/// The history lines and season standings the replay gives, until checked.
#[derive(Default)]
struct Derived {
    /// Per entry in seq order: its seq, its time and the lines it must have.
    lines: Vec<(i64, f64, Lines)>,
    /// Entries older than this may have no lines (written before version 0.2 kept them).
    kept_since: f64,
    /// Per season end: the season and its standings.
    standings: Vec<(i64, Vec<StandingView>)>,
}

/// The history lines an entry must have.
enum Lines {
    /// Exactly these (player, before, after), by name.
    Exact(Vec<(String, f32, f32)>),
    /// An annulled match: none, or one for each of these players (their values are those
    /// of the match as it was rated, which the replay skips).
    PlayersOf(Vec<String>),
}

impl Verifier {
    /// A verifier of `ladder`'s journal from its first entry.
    ///
    /// # Errors
    /// None today.
    pub fn new(ladder: &Ladder) -> Result<Self, Failure> {
        let rebuild = Rebuild::new(ladder).map_err(|e| Failure { seq: 0, reason: e.message })?;
        let previous = genesis(&ladder.initial_config_json).map_err(|reason| Failure { seq: 0, reason })?;
        Ok(Self { rebuild, numbers: Numbers::default(), previous, last_seq: 0, summary: Summary::default(), matches: HashMap::new(), amendments: HashMap::new(), derived: None })
    }

    /// A verifier that also keeps the history lines and season standings the replay gives,
    /// for [`Self::check_history`] and [`Self::check_standings`] (from a database).
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn with_derived_rows(ladder: &Ladder) -> Result<Self, Failure> {
        Ok(Self { derived: Some(Derived::default()), ..Self::new(ladder)? })
    }

    /// Entries older than `time` may have no history lines: they were written before the
    /// database kept them (version 0.2); their lines are checked when they have some.
    pub fn history_kept_since(&mut self, time: f64) {
        if let Some(derived) = &mut self.derived {
            derived.kept_since = time;
        }
    }

    /// Checks the next entry.
    ///
    /// # Errors
    /// The entry does not verify.
    pub fn entry(&mut self, entry: &Exported) -> Result<(), Failure> {
        let fail = |reason: String| Failure { seq: entry.seq, reason };
        if entry.seq <= self.last_seq {
            return Err(fail(format!("out of order (after seq {})", self.last_seq)));
        }
        self.last_seq = entry.seq;
        self.summary.last_seq = entry.seq;
        // The chain: who joined (each name against its key), then the content.
        if entry.keys.len() != entry.joined.len() {
            return Err(fail(format!("{} players joined with {} keys", entry.joined.len(), entry.keys.len())));
        }
        for (name, key) in entry.joined.iter().zip(&entry.keys) {
            key.check(name).map_err(fail)?;
        }
        self.numbers.join(&entry.joined);
        let inputs = entry.inputs.to_string();
        let held = entry.kind == "pair" && crate::periods::is_held(&entry.results.to_string());
        let decayed_through = if entry.kind == "decay" { Some(entry.results.get("decayed_through").and_then(serde_json::Value::as_f64).unwrap_or(f64::NAN)) } else { None };
        let content = Content {
            seq: entry.seq,
            kind: &entry.kind,
            id: entry.id.as_deref(),
            time: entry.time,
            inputs: &inputs,
            joined: &entry.joined,
            keys: &entry.keys,
            decayed_through,
            held,
        };
        let text = canonical(&content, |name| self.numbers.get(name)).map_err(fail)?;
        let hash = link(&self.previous, &text);
        if hex(&hash) != entry.hash {
            return Err(fail("its hash is not the previous entry's hash and its content (a changed, missing or reordered entry)".to_owned()));
        }
        self.previous = hash;
        self.summary.head = entry.hash.clone();
        // The replay.
        let effective = entry.corrected.as_ref().map_or_else(|| inputs.clone(), serde_json::Value::to_string);
        let stored = StoredEntry {
            seq: entry.seq,
            kind: entry.kind.clone(),
            time: entry.time,
            inputs: effective,
            joined: entry.joined.clone(),
            annulled: entry.annulled,
            results: entry.results.to_string(),
        };
        let step = self.rebuild.step(&stored).map_err(|e| fail(e.message))?;
        if let Some(derived) = &mut self.derived {
            let is_match = matches!(entry.kind.as_str(), "pair" | "team" | "free_for_all");
            let lines = if is_match && entry.annulled {
                let game: crate::model::Game = serde_json::from_value(entry.inputs.clone()).map_err(|e| fail(format!("inputs: {e}")))?;
                let mut players: Vec<String> = game.players().into_iter().map(str::to_owned).collect();
                players.sort_unstable();
                Lines::PlayersOf(players)
            } else {
                let mut lines = step.history.clone();
                lines.sort_by(|a, b| a.0.cmp(&b.0));
                Lines::Exact(lines)
            };
            derived.lines.push((entry.seq, entry.time, lines));
            if let Some((season, standings)) = &step.standings {
                let order = self.rebuild.order();
                let view = |s: &crate::events::Standing| StandingView {
                    rank: s.rank,
                    player: usize::try_from(s.player_id).ok().and_then(|i| order.get(i)).cloned().unwrap_or_default(),
                    rating: s.rating,
                    peak_rating: s.peak_rating,
                    league: s.league,
                    peak_league: s.peak_league,
                    games: s.games,
                    wins: s.wins,
                };
                derived.standings.push((*season, standings.iter().map(view).collect()));
            }
        }
        if let Some(results) = step.results {
            let replayed: serde_json::Value = serde_json::from_str(&results).map_err(|e| fail(e.to_string()))?;
            if replayed != entry.results {
                return Err(fail(format!("the replay gives other results: {replayed}")));
            }
        }
        self.summary.entries += 1;
        match entry.kind.as_str() {
            "pair" | "team" | "free_for_all" => {
                self.summary.matches += 1;
                self.summary.annulled += usize::from(entry.annulled);
                self.summary.corrected += usize::from(entry.corrected.is_some());
                if let Some(id) = &entry.id {
                    self.matches.insert(id.clone(), (entry.seq, entry.annulled, entry.annul_reason.clone(), entry.corrected.clone()));
                }
            }
            "import" => self.summary.imported += 1,
            "annul" | "correct" => {
                let target = entry.inputs["match"].as_str().ok_or_else(|| fail("an amendment without its match".to_owned()))?;
                if !self.matches.contains_key(target) {
                    return Err(fail(format!("amends {target:?}, which is not an earlier match")));
                }
                let record = self.amendments.entry(target.to_owned()).or_default();
                if entry.kind == "annul" {
                    // Older annulments hashed their reason with the inputs; newer ones keep it
                    // with the results, outside the chain.
                    let reason = entry.inputs.get("reason").or_else(|| entry.results.get("reason"));
                    record.0 = Some(reason.and_then(serde_json::Value::as_str).unwrap_or("").to_owned());
                } else {
                    record.1 = Some(entry.inputs["result"].clone());
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Checks a database's history lines of the entries verified since the last call (all
    /// of their lines, in seq order), then forgets those entries.
    ///
    /// # Errors
    /// A line missing, extra or with other ratings than the replay's, naming its entry.
    pub fn check_history(&mut self, stored: &[HistoryLine]) -> Result<(), Failure> {
        let Some(derived) = &mut self.derived else { return Ok(()) };
        let mut stored = stored.iter().peekable();
        let kept_since = derived.kept_since;
        for (seq, time, expected) in derived.lines.drain(..) {
            let fail = |reason: String| Failure { seq, reason };
            let mut found: Vec<&HistoryLine> = Vec::new();
            while let Some(line) = stored.next_if(|l| l.seq <= seq) {
                if line.seq < seq {
                    return Err(Failure { seq: line.seq, reason: format!("a history line of {:?} for an entry that has none", line.player) });
                }
                found.push(line);
            }
            match expected {
                Lines::Exact(_) if found.is_empty() && time < kept_since => {}
                Lines::Exact(lines) => {
                    let same = lines.len() == found.len()
                        && lines
                            .iter()
                            .zip(&found)
                            .all(|((name, before, after), line)| *name == line.player && before.to_bits() == line.before.to_bits() && after.to_bits() == line.after.to_bits());
                    if !same {
                        let shown: Vec<String> = found.iter().map(|l| format!("{} {} -> {}", l.player, l.before, l.after)).collect();
                        let wanted: Vec<String> = lines.iter().map(|(p, b, a)| format!("{p} {b} -> {a}")).collect();
                        return Err(fail(format!("its history lines are [{}]; the replay gives [{}]", shown.join(", "), wanted.join(", "))));
                    }
                }
                Lines::PlayersOf(players) => {
                    let names: Vec<&str> = found.iter().map(|l| l.player.as_str()).collect();
                    if !names.is_empty() && names != players.iter().map(String::as_str).collect::<Vec<_>>() {
                        return Err(fail(format!("the annulled match's history lines name {names:?}, not its players")));
                    }
                }
            }
        }
        if let Some(line) = stored.next() {
            return Err(Failure { seq: line.seq, reason: format!("a history line of {:?} for an entry that has none", line.player) });
        }
        Ok(())
    }

    /// The seasons whose standings the replay gave (after every entry is verified).
    #[must_use]
    pub fn seasons(&self) -> Vec<i64> {
        self.derived.as_ref().map(|d| d.standings.iter().map(|(season, _)| *season).collect()).unwrap_or_default()
    }

    /// Checks a database's kept standings of `season` (every line, by rank).
    ///
    /// # Errors
    /// A line missing, extra or other than the replay's.
    pub fn check_standings(&self, season: i64, stored: &[StandingView]) -> Result<(), Failure> {
        let fail = |reason: String| Failure { seq: 0, reason: format!("season {season}: {reason}") };
        let expected = self
            .derived
            .as_ref()
            .and_then(|d| d.standings.iter().find(|(s, _)| *s == season))
            .map(|(_, lines)| lines)
            .ok_or_else(|| fail("the journal ends no such season".to_owned()))?;
        if expected.len() != stored.len() {
            return Err(fail(format!("{} standings are kept, the replay gives {}", stored.len(), expected.len())));
        }
        for (wanted, kept) in expected.iter().zip(stored) {
            let same = wanted.rank == kept.rank
                && wanted.player == kept.player
                && wanted.rating.to_bits() == kept.rating.to_bits()
                && wanted.peak_rating.to_bits() == kept.peak_rating.to_bits()
                && (wanted.league, wanted.peak_league, wanted.games, wanted.wins) == (kept.league, kept.peak_league, kept.games, kept.wins);
            if !same {
                return Err(fail(format!(
                    "rank {} is kept as {} {} ({} games); the replay gives {} {} ({} games)",
                    kept.rank, kept.player, kept.rating, kept.games, wanted.player, wanted.rating, wanted.games
                )));
            }
        }
        Ok(())
    }

    /// Checks the marks against the amendments, and (from a database) the stored players.
    ///
    /// # Errors
    /// A mark without its amendment or the reverse, or a stored state the replay does not
    /// give.
    pub fn finish(mut self, stored: Option<&[PlayerView]>) -> Result<Summary, Failure> {
        for (id, (seq, annulled, reason, corrected)) in &self.matches {
            let fail = |reason: String| Failure { seq: *seq, reason };
            let (annulment, correction) = self.amendments.get(id).cloned().unwrap_or_default();
            if *annulled != annulment.is_some() || (*annulled && reason.as_deref() != annulment.as_deref()) {
                return Err(fail(format!("match {id:?}: its annulment mark does not match the journal's annulments")));
            }
            if corrected.as_ref() != correction.as_ref() {
                return Err(fail(format!("match {id:?}: its correction does not match the journal's latest correction")));
            }
        }
        self.summary.players = self.rebuild.order().len();
        if let Some(stored) = stored {
            let zero_sum = self.rebuild.zero_sum();
            if stored.len() != self.rebuild.order().len() {
                return Err(Failure { seq: 0, reason: format!("the database has {} players, the journal {}", stored.len(), self.rebuild.order().len()) });
            }
            for player in stored {
                let replayed = self.rebuild.players().get(&player.player).ok_or_else(|| Failure { seq: 0, reason: format!("player {:?} is not in the journal", player.player) })?;
                let replayed = current(&replayed.state, zero_sum.map_or(0.0, |z| z.offset));
                let same =
                    replayed == player.state && replayed.rating.to_bits() == player.state.rating.to_bits() && replayed.peak_rating.to_bits() == player.state.peak_rating.to_bits();
                if !same {
                    return Err(Failure { seq: 0, reason: format!("player {:?}: stored {:?}, replayed {:?}", player.player, player.state, replayed) });
                }
            }
        }
        self.summary.annulled = self.matches.values().filter(|m| m.1).count();
        Ok(self.summary)
    }
}

impl Summary {
    /// One line for the command's output.
    #[must_use]
    pub fn line(&self, ladder: &str) -> String {
        format!(
            "ladder {ladder}: {} entries ({} matches, {} imported players, {} annulled, {} corrected), {} players; chain head {}",
            self.entries,
            self.matches,
            self.imported,
            self.annulled,
            self.corrected,
            self.players,
            if self.head.is_empty() { "(empty)" } else { &self.head }
        )
    }
}

/// Verifies an export (`elo-ladder verify --journal FILE`) read from `reader`: its header (the
/// format and the first season's rules), every entry ([`Verifier::entry`]), the marks
/// ([`Verifier::finish`]) and its end line ([`End::check`]). Any input gives an answer,
/// never a panic (the `verify_journal` fuzz target holds it to that).
///
/// # Errors
/// The first thing that does not verify: a line that does not read (with its number), an
/// entry that does not verify (with its seq), a missing or wrong end line.
pub fn export(reader: impl std::io::BufRead) -> Result<String, String> {
    #[derive(Deserialize)]
    struct EndLine {
        end: End,
    }
    let mut lines = reader.lines();
    let header: Header = match lines.next() {
        Some(line) => serde_json::from_str(&line.map_err(|e| e.to_string())?).map_err(|e| format!("line 1 is not an export header: {e}"))?,
        None => return Err("empty".to_owned()),
    };
    if header.format != FORMAT {
        return Err(format!("format {:?}, expected {FORMAT:?}", header.format));
    }
    let rules = header.rules.to_string();
    ranking_elo::Config::from_json(&rules).map_err(|e| format!("the header's rules: {e}"))?;
    let ladder = Ladder::from_row(0, header.ladder.clone(), rules, 1, None).map_err(|e| e.message)?;
    let in_ladder = |e: &dyn std::fmt::Display| format!("ladder {}: {e}", header.ladder);
    let mut verifier = Verifier::new(&ladder).map_err(|e| in_ladder(&e))?;
    let mut end: Option<End> = None;
    for (i, line) in lines.enumerate() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        if end.is_some() {
            return Err(format!("line {}: an entry after the end line", i + 2));
        }
        if line.starts_with(r#"{"end""#) {
            end = Some(serde_json::from_str::<EndLine>(&line).map_err(|e| format!("line {}: {e}", i + 2))?.end);
            continue;
        }
        let entry: Exported = serde_json::from_str(&line).map_err(|e| format!("line {}: {e}", i + 2))?;
        verifier.entry(&entry).map_err(|e| in_ladder(&e))?;
    }
    let summary = verifier.finish(None).map_err(|e| in_ladder(&e))?;
    let end = end.ok_or("no end line: the export was cut short (or made by a server older than 0.2)")?;
    end.check(&summary).map_err(|e| in_ladder(&e))?;
    Ok(summary.line(&header.ladder))
}
