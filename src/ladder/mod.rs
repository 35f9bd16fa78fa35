//! Ladders: player pools with leagues and zero-sum totals, their team and
//! free-for-all matches (`group_matches`), matchmaking (pairs and teams),
//! seasons (soft resets, decay) and saves.

mod fixed_point;
pub mod group_matches;
pub mod matchmaking;
pub mod team_matchmaking;
pub mod pool;
pub mod save;
pub mod season;
pub mod stored;
