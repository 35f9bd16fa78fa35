//! The engine's JSON, read and written by hand: configurations ([`crate::Config::from_json`],
//! [`crate::Config::to_json`]), pool saves ([`crate::save`]) and season records.
//!
//! Reading gives messages with the path of the value at fault, what is wrong in plain
//! words and where: `leagues[1].min_rating: expected a number (got the string "x") at line
//! 4 column 35`. Writing gives the text `serde_json` gives for the types' serde derives,
//! byte for byte.
//!
//! Why by hand: serde's derived code is generic, instantiated for every type and every
//! serializer or deserializer. Reading through it (with `serde_path_to_error` for the
//! paths) and writing through it was more than 200 KB of each shipped library, a third of
//! it (BENCHMARKS.md, "Binary sizes"). Here there is one non-generic cursor ([`read`]), one
//! writer ([`write`]) and two short functions per type ([`records`]). The types keep their
//! serde derives for Rust users (the ladder server stores player states with them);
//! `tests/json_reading.rs` and the unit tests check that both ways read and write every
//! value the same, bit for bit and byte for byte.

pub(crate) mod read;
pub(crate) mod records;
pub(crate) mod write;

pub(crate) use read::{read_text, JsonError, Read, Reader};
pub(crate) use write::Writer;
