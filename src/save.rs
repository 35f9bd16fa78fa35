//! Saving and restoring a [`Pool`] (ratings, player state and configuration) as JSON
//! (SPEC section 7).
//!
//! The file is `{"format": "ranking-elo-pool", "version": 1, "checksum": "…", "pool": {…}}`,
//! where `checksum` is the FNV-1a 64-bit hash of the exact bytes of the `pool` value, so a
//! truncated or corrupted file is refused instead of loading wrong ratings. Restoring
//! validates everything (format, version, checksum, counts, value ranges, the
//! configuration) before it replaces anything; a round trip is exact bit for bit (ratings
//! are written in the shortest form that reads back to the same `f32`).
//!
//! ```
//! use ranking_elo::pool::Pool;
//! use ranking_elo::Rules;
//!
//! let mut pool = Pool::new(Rules::default());
//! pool.add_players(3);
//! let saved = ranking_elo::save::to_json(&pool);
//! assert_eq!(ranking_elo::save::from_json(&saved).unwrap(), pool);
//! assert!(ranking_elo::save::from_json(&saved[..saved.len() - 5]).is_err());
//! ```

use std::fmt;
use std::fs;
use std::io::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::config::Config;
use crate::player::PlayerState;
use crate::pool::Pool;

/// The `format` field of every save.
pub const FORMAT: &str = "ranking-elo-pool";
/// The save format version this build writes and reads.
pub const VERSION: u32 = 1;

/// Why a save could not be written or read.
#[derive(Debug)]
pub enum SaveError {
    /// The text is not a valid save (truncated, corrupted, wrong format or version, values
    /// out of range, inconsistent).
    Invalid(String),
    /// Reading or writing the file failed.
    Io(std::io::Error),
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(message) => write!(f, "invalid pool save: {message}"),
            Self::Io(error) => write!(f, "pool save file: {error}"),
        }
    }
}

impl std::error::Error for SaveError {}

fn invalid(message: impl Into<String>) -> SaveError {
    SaveError::Invalid(message.into())
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PoolData {
    config: Config,
    players: Vec<PlayerState>,
    offset: f64,
    stored_sum: f64,
}

#[derive(Serialize)]
struct SaveOut<'a> {
    format: &'static str,
    version: u32,
    checksum: String,
    pool: &'a RawValue,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SaveIn<'a> {
    format: String,
    version: u32,
    checksum: String,
    #[serde(borrow)]
    pool: &'a RawValue,
}

/// FNV-1a, 64 bits: a fixed, dependency-free checksum.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

/// The pool as save-file JSON.
#[must_use]
pub fn to_json(pool: &Pool) -> String {
    let data = PoolData {
        config: pool.rules.config().clone(),
        players: pool.players.clone(),
        offset: pool.offset,
        stored_sum: pool.stored_sum,
    };
    let payload = serde_json::to_string(&data).unwrap_or_else(|_| unreachable!("pool data always serializes"));
    let raw = RawValue::from_string(payload).unwrap_or_else(|_| unreachable!("serde_json output is JSON"));
    let out = SaveOut { format: FORMAT, version: VERSION, checksum: format!("{:016x}", fnv1a(raw.get().as_bytes())), pool: &raw };
    serde_json::to_string(&out).unwrap_or_else(|_| unreachable!("a save always serializes"))
}

/// Reads a pool back from save-file JSON, validating everything first.
///
/// # Errors
/// [`SaveError::Invalid`] naming what is wrong: malformed or truncated JSON, another
/// format or version, a checksum mismatch, an invalid configuration, non-finite values,
/// or a stored sum that does not match the players.
pub fn from_json(text: &str) -> Result<Pool, SaveError> {
    let save: SaveIn<'_> = serde_json::from_str(text).map_err(|e| invalid(format!("not a complete save file ({e})")))?;
    if save.format != FORMAT {
        return Err(invalid(format!("format is {:?}, expected {FORMAT:?}", save.format)));
    }
    if save.version != VERSION {
        return Err(invalid(format!("version {} is not supported (this build reads version {VERSION})", save.version)));
    }
    let checksum = format!("{:016x}", fnv1a(save.pool.get().as_bytes()));
    if save.checksum != checksum {
        return Err(invalid(format!("checksum mismatch (file says {}, content hashes to {checksum}): the file is corrupted", save.checksum)));
    }
    let data: PoolData = serde_json::from_str(save.pool.get()).map_err(|e| invalid(format!("pool: {e}")))?;
    let rules = data.config.validate().map_err(|e| invalid(format!("pool.config.{e}")))?;
    if !(data.offset.is_finite() && data.stored_sum.is_finite()) {
        return Err(invalid("pool.offset and pool.stored_sum must be finite"));
    }
    if rules.config().zero_sum_total.is_none() && data.offset != 0.0 {
        return Err(invalid("pool.offset must be 0 when zero_sum_total is not set"));
    }
    let mut sum = 0.0f64;
    for (i, player) in data.players.iter().enumerate() {
        if !player.rating.is_finite() {
            return Err(invalid(format!("pool.players[{i}].rating must be finite")));
        }
        sum += f64::from(player.rating);
    }
    let scale = data.players.iter().map(|p| f64::from(p.rating.abs())).fold(1.0, f64::max);
    let tolerance = scale * (data.players.len() as f64 + 1.0) * f64::EPSILON * 4.0;
    if (sum - data.stored_sum).abs() > tolerance {
        return Err(invalid(format!("pool.stored_sum {} does not match the players' ratings (sum {sum})", data.stored_sum)));
    }
    Ok(Pool { rules, players: data.players, offset: data.offset, stored_sum: data.stored_sum })
}

/// Writes the pool to `path` atomically: a temporary file beside it is written, flushed
/// to disk and renamed over `path`, so a crash leaves either the old save or the new one,
/// never a half-written file.
///
/// # Errors
/// [`SaveError::Io`] when the file cannot be written (the temporary file is removed).
pub fn save_file(pool: &Pool, path: &Path) -> Result<(), SaveError> {
    let text = to_json(pool);
    let file_name = path.file_name().ok_or_else(|| invalid("the path has no file name"))?;
    let mut temporary_name = file_name.to_os_string();
    temporary_name.push(format!(".tmp-{}", std::process::id()));
    let temporary = path.with_file_name(temporary_name);
    let write = || -> std::io::Result<()> {
        let mut file = fs::File::create(&temporary)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temporary, path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // Make the rename itself durable where the platform allows opening folders.
            if let Ok(folder) = fs::File::open(dir) {
                let _ = folder.sync_all();
            }
        }
        Ok(())
    };
    write().map_err(|error| {
        let _ = fs::remove_file(&temporary);
        SaveError::Io(error)
    })
}

/// Reads a pool from a file written by [`save_file`].
///
/// # Errors
/// [`SaveError::Io`] when the file cannot be read, [`SaveError::Invalid`] as
/// [`from_json`].
pub fn load_file(path: &Path) -> Result<Pool, SaveError> {
    let text = fs::read_to_string(path).map_err(SaveError::Io)?;
    from_json(&text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Rules;
    use crate::pool::Match;
    use crate::Outcome;

    fn played_pool() -> Pool {
        let rules = Config::from_json(r#"{"zero_sum_total": 1000, "streak_alpha": 0.1}"#).unwrap();
        let mut pool = Pool::new(rules);
        pool.add_players(50);
        let matches: Vec<Match> = (0..500).map(|i| Match::new(i % 50, (i * 7 + 1) % 50, if i % 3 == 0 { Outcome::WIN } else { Outcome::LOSS })).filter(|m| m.a != m.b).collect();
        pool.apply(&matches, None).unwrap();
        pool
    }

    #[test]
    fn round_trip_is_exact_and_keeps_playing_identically() {
        let pool = played_pool();
        let mut restored = from_json(&to_json(&pool)).unwrap();
        assert_eq!(restored, pool);
        let mut original = pool;
        let more = [Match::new(3, 4, Outcome::WIN), Match::new(5, 3, Outcome::DRAW)];
        original.apply(&more, None).unwrap();
        restored.apply(&more, None).unwrap();
        assert_eq!(original, restored);
    }

    #[test]
    fn truncated_corrupted_or_foreign_saves_are_refused() {
        let text = to_json(&played_pool());
        for cut in [1, 10, text.len() / 2, text.len() - 1] {
            let error = from_json(&text[..cut]).unwrap_err().to_string();
            assert!(error.contains("not a complete save file"), "{error}");
        }
        let digit = text.rfind("\"rating\":").unwrap() + 9;
        let mut corrupted = text.clone().into_bytes();
        corrupted[digit] = if corrupted[digit] == b'1' { b'2' } else { b'1' };
        let error = from_json(std::str::from_utf8(&corrupted).unwrap()).unwrap_err().to_string();
        assert!(error.contains("checksum mismatch"), "{error}");
        assert!(from_json(&text.replace("\"version\":1", "\"version\":2")).unwrap_err().to_string().contains("version 2"));
        assert!(from_json(&text.replace(FORMAT, "other")).unwrap_err().to_string().contains("format"));
        let empty = to_json(&Pool::new(Rules::default()));
        assert_eq!(from_json(&empty).unwrap().len(), 0);
    }

    #[test]
    fn files_are_written_atomically_and_read_back() {
        let dir = std::env::temp_dir().join(format!("ranking-elo-save-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ladder.json");
        let pool = played_pool();
        save_file(&pool, &path).unwrap();
        assert_eq!(load_file(&path).unwrap(), pool);
        let leftovers: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
        fs::write(&path, &fs::read_to_string(&path).unwrap()[..100]).unwrap();
        assert!(matches!(load_file(&path), Err(SaveError::Invalid(_))));
        assert!(matches!(load_file(&dir.join("missing.json")), Err(SaveError::Io(_))));
        assert!(matches!(save_file(&pool, &dir.join("no-such-folder/ladder.json")), Err(SaveError::Io(_))));
        fs::remove_dir_all(&dir).unwrap();
    }
}
