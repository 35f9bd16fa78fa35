//! Saving and restoring a [`Pool`] (ratings, player state and configuration) as JSON
//!.
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
use std::path::Path;

#[cfg(test)]
use serde::Serialize;

use crate::config::Config;
use crate::error::MAX_POOL_RATING;
use crate::json::{read_text, records, Read, Reader, Writer};
use crate::ladder::durable_file::{self, FileFailure};
pub use crate::ladder::durable_file::{FileError, FileOperation};
use crate::pool::{Pool, StoredPlayer};

/// The most players a save may hold (the C ABI counts players in `int32_t`).
pub const MAX_POOL_PLAYERS: usize = i32::MAX as usize;

/// The `format` field of every save.
pub const FORMAT: &str = "ranking-elo-pool";
/// The save format version this build writes: 3 adds the season state (each player's
/// league, protection, season record and last match time; the pool's clock and decay
/// time). Versions 1 (which also stored the running sum of the ratings, now always
/// recomputed exactly) and 2 are still read: their players are placed in the league of
/// their rating, with an empty season record, and the clock starts at 0.
pub const VERSION: u32 = 3;

/// Why a save could not be written or read.
#[derive(Debug)]
pub enum SaveError {
    /// The text is not a valid save (truncated, corrupted, wrong format or version, values
    /// out of range, inconsistent).
    Invalid(String),
    /// Reading or writing the file failed; the error names the file and the operation.
    Io(FileError),
    /// The path does not name a file (empty, a folder, ending in `..`).
    Path(String),
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(message) => write!(f, "invalid pool save: {message}"),
            Self::Io(error) => error.fmt(f),
            Self::Path(message) => write!(f, "path: {message}"),
        }
    }
}

impl std::error::Error for SaveError {}

impl From<FileFailure> for SaveError {
    fn from(failure: FileFailure) -> Self {
        match failure {
            FileFailure::Path(message) => Self::Path(message),
            FileFailure::Io(error) => Self::Io(error),
        }
    }
}

fn invalid(message: impl Into<String>) -> SaveError {
    SaveError::Invalid(message.into())
}

/// The `pool` value of a save. (serde writes it in the tests, to check [`write_pool_data`].)
#[cfg_attr(test, derive(Serialize))]
struct PoolData {
    config: Config,
    /// Ratings relative to `offset`.
    players: Vec<StoredPlayer>,
    offset: f64,
    /// Version 1 only: the running sum of the stored ratings (checked, then recomputed).
    #[cfg_attr(test, serde(skip_serializing_if = "Option::is_none"))]
    stored_sum: Option<f64>,
    /// Version 3: the pool's clock.
    clock: f64,
    /// Version 3: the time up to which decay has been applied.
    #[cfg_attr(test, serde(skip_serializing_if = "Option::is_none"))]
    decayed_through: Option<f64>,
}

/// The envelope of a save as read: its fields, and where the `pool` value's text is.
struct Envelope {
    format: String,
    version: u32,
    checksum: String,
    /// The byte range of the `pool` value in the text.
    pool: (usize, usize),
}

/// Reads the envelope of a save, passing over the `pool` value (its syntax checked).
fn envelope(reader: &mut Reader<'_>) -> Read<Envelope> {
    let mut envelope = Envelope { format: String::new(), version: 0, checksum: String::new(), pool: (0, 0) };
    reader.object(&["format", "version", "checksum", "pool"], 0b1111, "", &mut |reader, field| {
        match field {
            0 => envelope.format = reader.string_value()?,
            1 => envelope.version = reader.u32()?,
            2 => envelope.checksum = reader.string_value()?,
            3 => envelope.pool = reader.skip_value()?,
            _ => unreachable!("Reader::object passes only indices of the fields it is given"),
        }
        Ok(())
    })?;
    Ok(envelope)
}

impl PoolData {
    /// What a save of `pool` holds.
    fn of(pool: &Pool) -> Self {
        Self {
            config: pool.rules().config().clone(),
            players: pool.stored_players(),
            offset: pool.offset(),
            stored_sum: None,
            clock: pool.clock(),
            decayed_through: pool.decayed_through(),
        }
    }
}

/// Writes the `pool` value of a save (compact, the fields in declaration order, the
/// optional ones only when there).
fn write_pool_data(data: &PoolData) -> String {
    let mut writer = Writer::new(false);
    writer.open('{');
    writer.key("config");
    records::write_config(&mut writer, &data.config);
    writer.key("players");
    writer.open('[');
    for player in &data.players {
        writer.item();
        records::write_player(&mut writer, &player.fields());
    }
    writer.close(']');
    writer.key("offset");
    writer.f64(data.offset);
    if let Some(sum) = data.stored_sum {
        writer.key("stored_sum");
        writer.f64(sum);
    }
    writer.key("clock");
    writer.f64(data.clock);
    if let Some(through) = data.decayed_through {
        writer.key("decayed_through");
        writer.f64(through);
    }
    writer.close('}');
    writer.finish()
}

/// Reads the `pool` value of a save.
fn pool_data(reader: &mut Reader<'_>) -> Read<PoolData> {
    let mut data = PoolData { config: Config::default(), players: Vec::new(), offset: 0.0, stored_sum: None, clock: 0.0, decayed_through: None };
    reader.object(&["config", "players", "offset", "stored_sum", "clock", "decayed_through"], 0b111, "", &mut |reader, field| {
        match field {
            0 => data.config = records::config(reader)?,
            1 => reader.list(&mut |reader| {
                data.players.push(StoredPlayer::from_fields(records::player(reader)?));
                Ok(())
            })?,
            2 => data.offset = reader.f64()?,
            3 => data.stored_sum = reader.optional(Reader::f64)?,
            4 => data.clock = reader.f64()?,
            5 => data.decayed_through = reader.optional(Reader::f64)?,
            _ => unreachable!("Reader::object passes only indices of the fields it is given"),
        }
        Ok(())
    })?;
    Ok(data)
}

/// The `checksum` field for a save whose `pool` value is exactly `payload` (16 lowercase
/// hex digits of its FNV-1a hash); for tools and fuzzers that build saves by hand.
#[must_use]
pub fn checksum(payload: &str) -> String {
    format!("{:016x}", fnv1a(payload.as_bytes()))
}

/// FNV-1a, 64 bits: a fixed, dependency-free checksum.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

/// The pool as save-file JSON.
#[must_use]
pub fn to_json(pool: &Pool) -> String {
    let payload = write_pool_data(&PoolData::of(pool));
    // What serializing the envelope's four fields in order would write (`FORMAT` and the
    // hex checksum need no escaping).
    format!(r#"{{"format":"{FORMAT}","version":{VERSION},"checksum":"{}","pool":{payload}}}"#, checksum(&payload))
}

/// Reads a pool back from save-file JSON, validating everything first.
///
/// # Errors
/// [`SaveError::Invalid`] naming what is wrong: malformed or truncated JSON, another
/// format or version, a checksum mismatch, an invalid configuration, non-finite values,
/// or a stored sum that does not match the players.
pub fn from_json(text: &str) -> Result<Pool, SaveError> {
    if !text.trim_start().starts_with('{') {
        return Err(invalid("not a save file (a save is a JSON object)"));
    }
    let save = read_text(text, "", envelope).map_err(|e| invalid(format!("not a complete save file ({})", e.message)))?;
    if save.format != FORMAT {
        return Err(invalid(format!("format is {:?}, expected {FORMAT:?}", save.format)));
    }
    if !(1..=VERSION).contains(&save.version) {
        return Err(invalid(format!("version {} is not supported (this build reads versions 1 to {VERSION})", save.version)));
    }
    let (start, end) = save.pool;
    let checksum = checksum(&text[start..end]);
    if save.checksum != checksum {
        return Err(invalid(format!("checksum mismatch (file says {}, content hashes to {checksum}): the file is corrupted", save.checksum)));
    }
    // Positions in messages are the file's.
    let data = pool_data(&mut Reader::new(text, start, "pool", "")).map_err(|e| invalid(e.message))?;
    let rules = data.config.validate().map_err(|e| invalid(format!("pool.config.{e}")))?;
    if !data.offset.is_finite() || data.offset.abs() > MAX_POOL_RATING {
        return Err(invalid("pool.offset must be a finite number within 2^55"));
    }
    if rules.config().zero_sum_total.is_none() && data.offset != 0.0 {
        return Err(invalid("pool.offset must be 0 when zero_sum_total is not set"));
    }
    if data.players.len() > MAX_POOL_PLAYERS {
        return Err(invalid(format!("pool.players has {} players, more than {MAX_POOL_PLAYERS}", data.players.len())));
    }
    let leagues = rules.config().leagues.len().max(1);
    for (i, player) in data.players.iter().enumerate() {
        let player = player.fields();
        if !(player.rating.is_finite() && f64::from(player.rating.abs()) <= MAX_POOL_RATING) {
            return Err(invalid(format!("pool.players[{i}].rating must be a finite number within 2^55")));
        }
        if !(player.peak_rating.is_finite() && f64::from(player.peak_rating.abs()) <= MAX_POOL_RATING) && player.peak_rating != f32::MIN {
            return Err(invalid(format!("pool.players[{i}].peak_rating must be a finite number within 2^55")));
        }
        if player.season_games > player.games_played || player.protected_games > crate::rating::standing::MAX_PROTECTED_GAMES {
            return Err(invalid(format!("pool.players[{i}]: season_games must be at most games_played and protected_games at most 65535")));
        }
        if !player.last_played.is_finite() {
            return Err(invalid(format!("pool.players[{i}].last_played must be a finite number")));
        }
        if player.league.is_some_and(|l| l as usize >= leagues) || player.peak_league as usize >= leagues {
            return Err(invalid(format!("pool.players[{i}]: league and peak_league must be league indices of the configuration (it has {leagues})")));
        }
    }
    if !data.clock.is_finite() || data.decayed_through.is_some_and(|t| !t.is_finite()) {
        return Err(invalid("pool.clock and pool.decayed_through must be finite numbers"));
    }
    let mut pool = Pool::from_parts(rules, data.players, data.offset, data.clock, data.decayed_through);
    match (save.version, data.stored_sum) {
        (1, Some(stored)) => {
            // Version 1 kept a running f64 sum; accept it when it agrees with the players
            // to within its own rounding, then use the exact sum.
            let exact = pool.total();
            let tolerance = pool.ledger().bound().max(1.0) * (pool.len() as f64 + 1.0) * f64::EPSILON * 4.0;
            if !stored.is_finite() || (stored - exact).abs() > tolerance {
                return Err(invalid(format!("pool.stored_sum {stored} does not match the players' ratings (sum {exact})")));
            }
        }
        (1, None) => return Err(invalid("pool.stored_sum is missing (version 1)")),
        (_, Some(_)) => return Err(invalid("pool.stored_sum is a version 1 field")),
        (_, None) => {}
    }
    // A zero-sum pool holds its total after every call, so a save it wrote is balanced and
    // this changes no bit; a save balanced otherwise (edited by hand, or written by an
    // older version right after a player was set) is brought to the total here, as its
    // next match would have done.
    pool.rebalance();
    Ok(pool)
}

/// The largest save file [`load_file`] reads (2 GiB - 1, what the C ABI's `int32_t`
/// lengths can describe): a bigger file, or a device that never ends, is refused instead
/// of filling memory.
pub const MAX_SAVE_BYTES: u64 = i32::MAX as u64;

/// Writes the pool to `path` atomically and safely under concurrent saves: the JSON goes
/// to a new temporary file beside `path` with a name no other save uses (process id, a
/// per-process counter and a random part), created exclusively (an existing file or a
/// symbolic link planted at that name makes the creation fail; it is never followed),
/// flushed to disk, then renamed over `path`; the folder is flushed too (on Unix), so a
/// crash leaves either the old save or the new one, never a half-written file. Leftover
/// temporary files of this save that crashed long ago are removed.
///
/// # Errors
/// [`SaveError::Path`] when `path` names no file; [`SaveError::Io`] when the file or the
/// folder cannot be written or flushed (the temporary file is removed).
pub fn save_file(pool: &Pool, path: &Path) -> Result<(), SaveError> {
    Ok(durable_file::write_atomic(path, &to_json(pool), FileOperation::SavePool)?)
}

/// Reads a pool from a file written by [`save_file`]. Only regular files are read (a
/// folder, device or FIFO is refused without blocking), at most [`MAX_SAVE_BYTES`].
///
/// # Errors
/// [`SaveError::Path`] for a path that names no file, [`SaveError::Io`] when the file
/// cannot be opened or read or is not a regular file, [`SaveError::Invalid`] for a file
/// that is too large, not UTF-8, or invalid as [`from_json`] says.
pub fn load_file(path: &Path) -> Result<Pool, SaveError> {
    let bytes = durable_file::read_regular(path, FileOperation::LoadPool, MAX_SAVE_BYTES)?;
    if bytes.len() as u64 > MAX_SAVE_BYTES {
        return Err(invalid(format!("the file is larger than {MAX_SAVE_BYTES} bytes")));
    }
    let text = String::from_utf8(bytes).map_err(|e| invalid(format!("the file is not UTF-8 text ({e})")))?;
    from_json(&text)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use proptest::prelude::*;

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
        assert!(from_json(&text.replace("\"version\":3", "\"version\":4")).unwrap_err().to_string().contains("version 4"));
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

    #[test]
    fn file_errors_name_the_path_the_operation_and_the_fix() {
        let dir = std::env::temp_dir().join(format!("ranking-elo-file-errors-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let pool = played_pool();
        let into_missing_folder = dir.join("no-such-folder/ladder.json");
        let message = save_file(&pool, &into_missing_folder).unwrap_err().to_string();
        assert_eq!(
            message,
            format!(
                "cannot save the pool to \"{}\": the folder \"{}\" does not exist (the engine does not create folders: create it first, or choose another path)",
                into_missing_folder.display(),
                dir.join("no-such-folder").display()
            )
        );
        let missing = dir.join("missing.json");
        let message = load_file(&missing).unwrap_err().to_string();
        assert_eq!(
            message,
            format!("cannot load a pool save from \"{}\": the file does not exist (nothing was saved at this path yet: check the path, or start a new pool)", missing.display())
        );
        let message = load_file(&into_missing_folder).unwrap_err().to_string();
        assert!(message.contains("the folder") && message.contains("does not exist"), "{message}");
        fs::create_dir_all(dir.join("folder.json")).unwrap();
        let message = load_file(&dir.join("folder.json")).unwrap_err().to_string();
        assert!(message.ends_with("the path names a folder, not a file"), "{message}");
        let message = SaveError::from(durable_file::write_atomic(&into_missing_folder, "{}", FileOperation::WriteSeasonRecords).unwrap_err()).to_string();
        assert!(message.starts_with("cannot write the season records to") && message.ends_with("nothing was reset"), "{message}");
        let relative = load_file(Path::new("ranking-elo-no-such-save.json")).unwrap_err().to_string();
        assert!(relative.contains("relative to the working directory"), "{relative}");
        fs::remove_dir_all(&dir).unwrap();
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// A save's payload is what `serde_json::to_string` writes for it: pools of any
        /// player states, zero-sum or not, after matches, with a clock, a decay time and
        /// (version 1's) stored sum.
        #[test]
        fn payloads_are_written_as_serde_writes_them(
            states in proptest::collection::vec(crate::json::records::tests::player(), 0..6),
            zero_sum in any::<bool>(),
            results in proptest::collection::vec((0..6_usize, 0..6_usize, 0..3_u8), 0..12),
            clock in 0.0_f64..1e9,
            stored_sum in proptest::option::of(-1e6_f64..1e6),
        ) {
            let config = Config { zero_sum_total: zero_sum.then_some(0.0), ..Config::default() };
            let mut pool = Pool::new(config.validate().unwrap());
            // Any states a pool accepts: finite ratings, counts that agree, league 0.
            let finite = |x: f32| if x.is_finite() { x.clamp(-1e6, 1e6) } else { 1500.0 };
            let states: Vec<_> = states
                .into_iter()
                .map(|s| crate::PlayerState {
                    rating: finite(s.rating),
                    peak_rating: finite(s.peak_rating),
                    league: s.league.map(|_| 0),
                    peak_league: 0,
                    season_games: s.season_games.min(s.games_played),
                    protected_games: s.protected_games % 65_536,
                    last_played: if s.last_played.is_finite() { s.last_played } else { 0.0 },
                    ..s
                })
                .collect();
            pool.add_player_states(&states).unwrap();
            let n = pool.len();
            let matches: Vec<Match> = results.into_iter().filter(|(a, b, _)| a != b && *a < n && *b < n).map(|(a, b, r)| Match::new(a, b, [Outcome::WIN, Outcome::DRAW, Outcome::LOSS][usize::from(r)])).collect();
            let _ = pool.apply(&matches, None);
            let _ = pool.apply_decay(clock, None);
            let mut data = PoolData::of(&pool);
            data.stored_sum = stored_sum;
            prop_assert_eq!(write_pool_data(&data), serde_json::to_string(&data).unwrap());
        }
    }
}
