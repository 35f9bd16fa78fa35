//! The two functions of the tutorial's C# `RankingELO` class, with its exact meaning
//! (SPEC end of section 3): logistic expectation with c = 400, `K = multiplier` for both
//! players, win or loss only, no rounding.

use crate::update::{tutorial_probability, tutorial_update};

/// Two floats, laid out like Unity's `Vector2`: `x` is player 1, `y` player 2.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloVector2 {
    /// Player 1's value.
    pub x: f32,
    /// Player 2's value.
    pub y: f32,
}

/// Probability that player 1 wins: `1 / (1 + 10^((rating_player2 - rating_player1) / 400))`.
///
/// Mirrors `RankingELO.GetProbabilityWinning`. NaN or infinite input returns NaN.
#[no_mangle]
pub extern "C" fn elo_get_probability_winning(rating_player1: f32, rating_player2: f32) -> f32 {
    ffi_boundary!(value f32::NAN => { tutorial_probability(rating_player1, rating_player2) })
}

/// New ratings after a win or loss of player 1, with `K = multiplier` for both players.
///
/// Mirrors `RankingELO.UpdatePlayerRankings`; returns `{x: player 1, y: player 2}`.
/// `is_player1_winner` is 0 for a loss and any other value for a win. NaN or infinite
/// input (ratings or multiplier) returns NaN in both fields.
#[no_mangle]
pub extern "C" fn elo_update_player_rankings(rating_player1: f32, rating_player2: f32, multiplier: f32, is_player1_winner: u8) -> EloVector2 {
    ffi_boundary!(value EloVector2 { x: f32::NAN, y: f32::NAN } => {
        let (x, y) = tutorial_update(rating_player1, rating_player2, multiplier, is_player1_winner != 0);
        EloVector2 { x, y }
    })
}
