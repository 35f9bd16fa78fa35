//! Ladders: player pools with leagues and zero-sum totals, their team and
//! free-for-all matches (`group_matches`), seasons (soft resets, decay) and saves.
//! Matchmaking, which never touches a pool, is [`crate::matchmaking`].

mod durable_file;
mod fixed_point;
pub mod group_matches;
pub mod pool;
pub mod save;
pub mod season;
pub mod stored;
