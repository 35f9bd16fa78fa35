//! Ladders: player pools with leagues and zero-sum totals (SPEC 7), their team and
//! free-for-all matches (`group_matches`), matchmaking (SPEC 8)
//! seasons (soft resets, decay) and saves.

mod fixed_point;
pub mod group_matches;
pub mod matchmaking;
pub mod team_matchmaking;
pub mod pool;
pub mod save;
pub mod season;
pub mod stored;
