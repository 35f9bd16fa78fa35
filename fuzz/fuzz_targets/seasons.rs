//! Fuzz target `seasons`: see `tests/fuzz_checks/mod.rs` for what it checks.
#![no_main]

#[path = "../../tests/fuzz_checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::seasons(data));
