//! The library reads and writes configurations with its own code (`src/json`), not with
//! the serde derives its types keep for Rust users. [`disagreement`] holds the two to the
//! same answers (`tests/json_reading.rs` on generated texts, the `config_json` fuzz target
//! on mutated ones):
//!
//! - whenever the library accepts a text, serde accepts it too and reads the same values,
//!   bit for bit, and both write them back to the same bytes;
//! - whenever serde accepts a text, the library accepts it too, except where serde reads
//!   something no person means: a record given as a list (`[1500, 3]`, read by position)
//!   or a name given as an object (`{"truncate": null}`); the library refuses those
//!   ([`record_as_list_or_name_as_object`]).

use ranking_elo::Config;

/// What the library reads: the configuration, or the message.
pub fn library(text: &str) -> Result<Config, String> {
    Config::from_json(text).map(|rules| rules.config().clone()).map_err(|error| error.to_string())
}

/// What serde's derives read, validated the same way.
pub fn serde(text: &str) -> Result<Config, String> {
    let config: Config = serde_json::from_str(text).map_err(|error| error.to_string())?;
    config.validate().map(|rules| rules.config().clone()).map_err(|error| error.to_string())
}

/// `theirs` with the bands of a `rating_bands` K policy taken from `ours` where the two
/// differ by one unit in the last place of the `f32`, and only there.
///
/// serde reads an internally tagged object (`k_policy`) through a buffer that holds every
/// number as an `f64`, so an `f32` in it (a band's `below`) is rounded twice: to `f64`,
/// then to `f32`. The library rounds the decimal once, as serde does almost everywhere
/// else. The two differ for a decimal within about 2^-29 of halfway between two `f32`s.
/// (serde also rounds twice a negative whole number below -2^63 in an `f32` field, read
/// as an `f64` first; no such value passes validation, which bounds ratings at 1e15.)
pub fn rounded_once(ours: &Config, mut theirs: Config) -> Config {
    use ranking_elo::KPolicy::RatingBands;
    if let (RatingBands { tiers: mine }, RatingBands { tiers: other }) = (&ours.k_policy, &mut theirs.k_policy) {
        for (mine, other) in mine.iter().zip(other.iter_mut()) {
            if let (Some(a), Some(b)) = (mine.below, other.below) {
                if a.to_bits().abs_diff(b.to_bits()) == 1 && a.is_sign_positive() == b.is_sign_positive() {
                    other.below = Some(a);
                }
            }
        }
    }
    theirs
}

/// Whether the library's `message` refuses one of the two forms only serde reads: an object
/// given as a list (`expected an object ({...}) (got a list)`), or a name given as an
/// object (`expected "a" or "b" (got an object)`, `expected one of "a", … (got an object)`).
pub fn record_as_list_or_name_as_object(message: &str) -> bool {
    message.contains("expected an object ({...}) (got a list)")
        || message.split_once(": expected \"").or_else(|| message.split_once(": expected one of \"")).is_some_and(|(_, rest)| rest.contains("\" (got an object)"))
}

/// How the two readers disagree on `text`, if they do (see the module's documentation).
pub fn disagreement(text: &str) -> Option<String> {
    match (library(text), serde(text)) {
        // `Debug` writes every float in its shortest exact form: equal text, equal bits.
        (Ok(ours), Ok(theirs)) => {
            let (mine, other) = (format!("{ours:?}"), format!("{:?}", rounded_once(&ours, theirs)));
            if mine != other {
                return Some(format!("read differently:\n  library: {mine}\n  serde:   {other}\n  text: {text}"));
            }
            let written = serde_json::to_string_pretty(&ours).unwrap_or_default();
            (ours.to_json() != written).then(|| format!("written differently:\n  library: {}\n  serde:   {written}", ours.to_json()))
        }
        (Ok(_), Err(theirs)) => Some(format!("the library accepts what serde refuses ({theirs}): {text}")),
        (Err(ours), Ok(_)) if !record_as_list_or_name_as_object(&ours) => Some(format!("serde accepts what the library refuses ({ours}): {text}")),
        _ => None,
    }
}
