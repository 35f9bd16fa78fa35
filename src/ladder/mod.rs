//! Ladders: player pools with leagues and zero-sum totals (SPEC 7), matchmaking (SPEC 8)
//! and saves.

pub mod matchmaking;
pub mod pool;
pub mod save;
