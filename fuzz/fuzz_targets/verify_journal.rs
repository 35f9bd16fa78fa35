//! Fuzz target `verify_journal`: `elo-ladder verify --journal` on any bytes answers (a
//! summary or an error), never panics. The seeds in `fuzz/corpus/verify_journal/` are real
//! exports (every kind of entry, an annulment, a correction, an erasure, a zero-sum ladder);
//! `ladder-server/tests/fuzz_corpus.rs` replays the corpus and mutates the seeds on stable
//! Rust.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = ranking_elo_ladder::verify::export(data);
});
