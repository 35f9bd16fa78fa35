//! Ladders: player pools with leagues and zero-sum totals, their team and
//! free-for-all matches (`group_matches`), seasons (soft resets, decay) and saves.
//! Matchmaking, which never touches a pool, is [`crate::matchmaking`].

mod durable_file;
mod fixed_point;
pub mod pool;
pub mod save;
pub mod zero_sum;

pub use pool::{group_matches, season};
