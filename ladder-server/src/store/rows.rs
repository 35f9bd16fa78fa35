//! The `players` table's columns and their mapping to the engine's [`PlayerState`], in one
//! place for both databases: the column list, reading a row by column name, and the state
//! columns to write.

use ranking_elo::PlayerState;

use crate::error::ApiError;
use crate::model::PlayerRow;

/// Every column of a player row, as selected by both stores.
pub const PLAYER_COLUMNS: &str =
    "id, name, rating, games_played, win_streak, period_games, is_junior, has_reached_2400, league, protected_games, season_games, season_wins, peak_rating, peak_league, last_played";

/// The state columns written after a change (everything but `id`, `ladder_id` and `name`),
/// in [`StateValues`] order.
pub const STATE_COLUMNS: [&str; 13] = [
    "rating",
    "games_played",
    "win_streak",
    "period_games",
    "is_junior",
    "has_reached_2400",
    "league",
    "protected_games",
    "season_games",
    "season_wins",
    "peak_rating",
    "peak_league",
    "last_played",
];

/// A database row read by column name.
pub trait NamedRow {
    /// An integer column.
    fn int(&self, column: &str) -> Result<i64, ApiError>;
    /// A `real` column holding an `f32`.
    fn single(&self, column: &str) -> Result<f32, ApiError>;
    /// A double-precision column.
    fn double(&self, column: &str) -> Result<f64, ApiError>;
    /// A boolean column.
    fn flag(&self, column: &str) -> Result<bool, ApiError>;
    /// A text column.
    fn text(&self, column: &str) -> Result<String, ApiError>;
}

/// A player row from any store.
///
/// # Errors
/// 500 when a column is missing or has another type (a damaged database).
pub fn player_row(row: &impl NamedRow) -> Result<PlayerRow, ApiError> {
    let count = |column: &str| -> Result<u32, ApiError> { Ok(u32::try_from(row.int(column)?).unwrap_or(u32::MAX)) };
    Ok(PlayerRow {
        id: row.int("id")?,
        name: row.text("name")?,
        state: PlayerState {
            rating: row.single("rating")?,
            games_played: count("games_played")?,
            win_streak: count("win_streak")?,
            period_games: count("period_games")?,
            is_junior: row.flag("is_junior")?,
            has_reached_2400: row.flag("has_reached_2400")?,
            league: Some(count("league")?),
            protected_games: count("protected_games")?,
            season_games: count("season_games")?,
            season_wins: count("season_wins")?,
            peak_rating: row.single("peak_rating")?,
            peak_league: count("peak_league")?,
            last_played: row.double("last_played")?,
        },
    })
}

/// One state's values for [`STATE_COLUMNS`], typed for both databases.
#[derive(Debug, Clone, Copy)]
pub struct StateValues {
    /// `rating`.
    pub rating: f32,
    /// The counts, in [`STATE_COLUMNS`] order where they appear.
    pub games_played: i64,
    /// `win_streak`.
    pub win_streak: i64,
    /// `period_games`.
    pub period_games: i64,
    /// `is_junior`.
    pub is_junior: bool,
    /// `has_reached_2400`.
    pub has_reached_2400: bool,
    /// `league`.
    pub league: i64,
    /// `protected_games`.
    pub protected_games: i64,
    /// `season_games`.
    pub season_games: i64,
    /// `season_wins`.
    pub season_wins: i64,
    /// `peak_rating`.
    pub peak_rating: f32,
    /// `peak_league`.
    pub peak_league: i64,
    /// `last_played`.
    pub last_played: f64,
}

impl From<&PlayerState> for StateValues {
    fn from(s: &PlayerState) -> Self {
        Self {
            rating: s.rating,
            games_played: s.games_played.into(),
            win_streak: s.win_streak.into(),
            period_games: s.period_games.into(),
            is_junior: s.is_junior,
            has_reached_2400: s.has_reached_2400,
            league: s.league.unwrap_or(0).into(),
            protected_games: s.protected_games.into(),
            season_games: s.season_games.into(),
            season_wins: s.season_wins.into(),
            peak_rating: s.peak_rating,
            peak_league: s.peak_league.into(),
            last_played: s.last_played,
        }
    }
}

fn missing(column: &str, error: impl std::fmt::Display) -> ApiError {
    ApiError::internal(format!("player column {column}: {error}"))
}

impl NamedRow for rusqlite::Row<'_> {
    fn int(&self, column: &str) -> Result<i64, ApiError> {
        self.get(column).map_err(|e| missing(column, e))
    }
    fn single(&self, column: &str) -> Result<f32, ApiError> {
        // SQLite's REAL holds the f32 exactly.
        #[allow(clippy::cast_possible_truncation)]
        self.get::<_, f64>(column).map(|v| v as f32).map_err(|e| missing(column, e))
    }
    fn double(&self, column: &str) -> Result<f64, ApiError> {
        self.get(column).map_err(|e| missing(column, e))
    }
    fn flag(&self, column: &str) -> Result<bool, ApiError> {
        self.get(column).map_err(|e| missing(column, e))
    }
    fn text(&self, column: &str) -> Result<String, ApiError> {
        self.get(column).map_err(|e| missing(column, e))
    }
}

impl NamedRow for tokio_postgres::Row {
    fn int(&self, column: &str) -> Result<i64, ApiError> {
        self.try_get(column).map_err(|e| missing(column, e))
    }
    fn single(&self, column: &str) -> Result<f32, ApiError> {
        self.try_get(column).map_err(|e| missing(column, e))
    }
    fn double(&self, column: &str) -> Result<f64, ApiError> {
        self.try_get(column).map_err(|e| missing(column, e))
    }
    fn flag(&self, column: &str) -> Result<bool, ApiError> {
        self.try_get(column).map_err(|e| missing(column, e))
    }
    fn text(&self, column: &str) -> Result<String, ApiError> {
        self.try_get(column).map_err(|e| missing(column, e))
    }
}
