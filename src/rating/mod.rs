//! The rating math, free of FFI concerns: expected score, outcomes, the pair update rule,
//! K policies, leagues, team matches and free-for-all placements (`docs/teams.md`), league
//! hysteresis (standing), season rules, rating periods, player state, the configuration
//! (`docs/configuration.md`), and the deterministic arithmetic they all use.

pub mod config;
pub mod detmath;
pub mod expected;
pub mod kpolicy;
pub mod league;
pub mod outcome;
pub mod period;
pub mod placement;
pub mod player;
pub mod season_rules;
pub mod standing;
pub mod team;
pub mod update;
