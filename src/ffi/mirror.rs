//! The two functions of the tutorial's C# `RankingELO` class, with its exact meaning:
//! logistic expectation with c = 400, `K = multiplier` for both players, win or loss only,
//! no rounding. Bad input (NaN, infinities, a negative multiplier) gives NaN, as the
//! tutorial's class gives NaN for NaN input.

use std::sync::OnceLock;

use super::args::{arg_mut, check_disjoint, Region};
use super::error::EloResult;
use crate::config::Rules;
use crate::outcome::Outcome;
use crate::update::{tutorial_probability, tutorial_update};

/// The tutorial's rules (logistic with c = 400, no rounding, no floor, no bonuses), built
/// once; K is given per call.
fn tutorial_rules() -> &'static Rules {
    static RULES: OnceLock<Rules> = OnceLock::new();
    RULES.get_or_init(Rules::default)
}

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
/// input (ratings or multiplier) and a negative multiplier return NaN in both fields (the
/// tutorial's class would move the ratings the wrong way; use
/// [`elo_update_player_rankings_score`] for an error code and a message instead).
#[no_mangle]
pub extern "C" fn elo_update_player_rankings(rating_player1: f32, rating_player2: f32, multiplier: f32, is_player1_winner: u8) -> EloVector2 {
    ffi_boundary!(value EloVector2 { x: f32::NAN, y: f32::NAN } => {
        let (x, y) = tutorial_update(rating_player1, rating_player2, multiplier, is_player1_winner != 0);
        EloVector2 { x, y }
    })
}

/// The tutorial's update for any score of player 1 in `[0, 1]` (1 win, 0.5 draw, 0 loss,
/// or a margin such as 0.6 for 3:2), with `K = multiplier` for both players; the new
/// ratings go to `*out_rating_player1` and `*out_rating_player2`. Unlike the two mirrors it
/// checks its input: NaN or infinite ratings, a negative or non-finite multiplier and a
/// score outside `[0, 1]` are refused. With a score of 0 or 1 it gives the bits of
/// `elo_update_player_rankings`.
///
/// # Safety
/// The two outputs must be valid for one write each.
#[no_mangle]
pub unsafe extern "C" fn elo_update_player_rankings_score(
    rating_player1: f32,
    rating_player2: f32,
    multiplier: f32,
    score_player1: f32,
    out_rating_player1: *mut f32,
    out_rating_player2: *mut f32,
) -> EloResult {
    ffi_boundary!(result => {
        let outputs = [("out_rating_player1", Region::one(out_rating_player1.cast_const())), ("out_rating_player2", Region::one(out_rating_player2.cast_const()))];
        check_disjoint(&outputs, &[])?;
        let out_1 = unsafe { arg_mut(out_rating_player1, "out_rating_player1")? };
        let out_2 = unsafe { arg_mut(out_rating_player2, "out_rating_player2")? };
        let names = [("score_a", "score_player1"), ("rating_a", "rating_player1"), ("rating_b", "rating_player2"), ("k_a", "multiplier")];
        let outcome = Outcome::from_score(f64::from(score_player1)).map_err(|e| renamed(e, &names))?;
        let k = f64::from(multiplier);
        let (a, b) = tutorial_rules()
            .rate_checked_k(rating_player1, rating_player2, outcome, k, k)
            .map_err(|e| renamed(e, &names))?;
        *out_1 = a;
        *out_2 = b;
        Ok(())
    })
}

/// The engine's error with its argument named as this function's parameter.
fn renamed(error: crate::error::Error, names: &[(&str, &str)]) -> super::error::FfiError {
    let error = super::error::FfiError::from(error);
    let message = names.iter().fold(error.message, |message, (from, to)| message.replace(from, to));
    super::error::FfiError::new(error.code, message)
}
