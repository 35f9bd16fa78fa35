//! Where ladders live: SQLite (the embedded default) or PostgreSQL (several server
//! instances on one database). Both implement [`LadderStore`], keep the same tables
//! (`migrations/`), map player rows through one module ([`rows`]) and apply matches with
//! the same engine code ([`crate::model::apply_match`], [`crate::events::run_event`]); they
//! differ in how a transaction locks and commits (`docs/ladder-server.md`).

pub mod database_url;
pub mod postgres;
pub mod ranks;
pub mod rows;
pub mod sqlite;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::Serialize;

use crate::error::ApiError;
use crate::events::EventRequest;
use crate::model::{JournalEntry, MatchRequest, PlayerView};

pub use database_url::DatabaseUrl;
// The ladder type lives in its own leaf module; its old paths stay.
pub use crate::ladder::{canonical_config, stored_rules, Ladder};
pub use crate::model::entry_bytes;

/// A store operation's future.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, ApiError>> + Send + 'a>>;

/// The store the API runs on.
pub type Store = Arc<dyn LadderStore>;

/// What `PUT /v1/ladders/{ladder}` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PutOutcome {
    /// The ladder was created (201).
    Created,
    /// It existed with identical rules (200).
    Same,
    /// It exists with other rules (409).
    Differs,
}

/// An API key's record.
#[derive(Debug, Clone)]
pub struct KeyRecord {
    /// SHA-256 of the secret.
    pub hash: [u8; 32],
    /// `read`, `report` or `admin`.
    pub scope: String,
    /// The one ladder the key may use, if limited.
    pub ladder: Option<String>,
    /// Revoked keys are refused.
    pub revoked: bool,
}

/// A key as `keys list` shows it (never its secret or hash).
#[derive(Debug, Clone, Serialize)]
pub struct KeyListing {
    /// Public id.
    pub id: String,
    /// `read`, `report` or `admin`.
    pub scope: String,
    /// The one ladder the key may use, if limited.
    pub ladder: Option<String>,
    /// Unix seconds.
    pub created: f64,
    /// Unix seconds, when revoked.
    pub revoked: Option<f64>,
}

/// Whether a board read counts the ladder's provisional players (`?provisional=include`) or
/// leaves them out of its lines and of everybody's ranks (the default). With the ladder's
/// `provisional_games` at 0 nobody is provisional and both are the same.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Provisional {
    /// Provisional players are not on the board and rank nobody.
    #[default]
    Excluded,
    /// Every player is on the board.
    Included,
}

impl Provisional {
    /// 1 when included, 0 when excluded (the queries' parameter).
    #[must_use]
    pub fn included(self) -> i32 {
        i32::from(self == Self::Included)
    }
}

/// A leaderboard line.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct BoardEntry {
    /// 1 = best (ties: the earlier player first).
    pub rank: i64,
    /// Name.
    pub player: String,
    /// Current rating.
    pub rating: f32,
    /// League held (0 = lowest).
    pub league: u32,
    /// The player has fewer games than the ladder's `provisional_games` (on boards that
    /// include provisional players; absent when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
}

/// A player with rank, for `GET …/players/{player}`.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerWithRank {
    /// Name and current state.
    #[serde(flatten)]
    pub view: PlayerView,
    /// 1 = best; absent for a provisional player when provisional players are left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<i64>,
    /// The player has fewer games than the ladder's `provisional_games` (absent when false).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
}

/// The most bytes of stored entries one journal page carries (a page holds at least one
/// entry, and one entry is at most about 100 KB: 256 entrants).
pub const JOURNAL_PAGE_BYTES: i64 = 1024 * 1024;

/// Entries the rebuild reads at a time.
pub const REBUILD_PAGE: i64 = 5000;

/// One page of the journal.
#[derive(Debug, Serialize)]
pub struct JournalPage {
    /// Entries after the asked `seq`, in `seq` order.
    pub entries: Vec<JournalEntry>,
    /// The page stopped before an entry that is held back until every lower `seq` has
    /// committed (PostgreSQL with concurrent writers; never on SQLite): ask again.
    pub pending: bool,
    /// Whether entries after this page exist (the page was cut by `limit`, by size, or
    /// held back): ask again with `after` = the last entry's `seq`.
    pub more: bool,
    /// The ladder's amendment generation (`ladders.amendments`, bumped by every annulment,
    /// correction and erasure) in the page's snapshot: an export whose pages see two did not
    /// read one state of the journal. `None` for pages read newest first.
    #[serde(skip)]
    pub amendments: Option<i64>,
}

/// One line of an ended season's final standings.
#[derive(Debug, Clone, Serialize)]
pub struct StandingView {
    /// 1 = best.
    pub rank: i64,
    /// Name.
    pub player: String,
    /// Rating at the season's end (before the reset).
    pub rating: f32,
    /// Highest rating after a game this season.
    pub peak_rating: f32,
    /// League held at the season's end.
    pub league: u32,
    /// Highest league held this season.
    pub peak_league: u32,
    /// Games played this season.
    pub games: u32,
    /// Wins this season.
    pub wins: u32,
}

/// An ended season.
#[derive(Debug, Clone, Serialize)]
pub struct SeasonSummary {
    /// Its number (the first season is 1).
    pub season: i64,
    /// When it ended (Unix seconds).
    pub ended: f64,
    /// Players with a record.
    pub players: i64,
    /// The journal entry of its end.
    pub seq: i64,
}

/// A ladder in the list of ladders and in its own description.
#[derive(Debug, Clone, Serialize)]
pub struct LadderSummary {
    /// Name.
    pub name: String,
    /// Players who have joined.
    pub players: i64,
    /// The `seq` of its newest journal entry (0 when none).
    pub last_seq: i64,
    /// The current season (the first is 1).
    pub season: i64,
    /// The schedule the servers run.
    pub schedule: ScheduleView,
    /// The next scheduled times.
    pub next: NextTimes,
    /// The rules from the next season end on (canonical JSON), if set.
    #[serde(skip)]
    pub next_config_json: Option<String>,
}

/// A ladder's schedule: five-field cron expressions in UTC, or none.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ScheduleView {
    /// When the season ends.
    pub season_end: Option<String>,
    /// When decay runs.
    pub decay: Option<String>,
    /// When a rating period ends (ladders with `rating_periods`; absent when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_end: Option<String>,
}

/// The next scheduled times (Unix seconds, UTC).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct NextTimes {
    /// The next season end.
    pub season_end: Option<f64>,
    /// The next decay.
    pub decay: Option<f64>,
    /// The next period end (absent when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period_end: Option<f64>,
}

/// The events of a ladder named `name` that are due at `now`, from its next times of a
/// season end, decay and period end.
#[must_use]
pub fn due_events(name: &str, [season_end, decay, period_end]: [Option<f64>; 3], now: f64) -> Vec<(String, crate::events::LadderEvent, f64)> {
    use crate::events::LadderEvent;
    // A period end first: a season end at the same time finds its matches rated.
    [(period_end, LadderEvent::PeriodEnd), (season_end, LadderEvent::SeasonEnd), (decay, LadderEvent::Decay)]
        .into_iter()
        .filter_map(|(at, event)| at.filter(|at| *at <= now).map(|at| (name.to_owned(), event, at)))
        .collect()
}

/// One line of a player's history (`GET …/players/{player}/matches`).
#[derive(Debug, Clone, Serialize)]
pub struct HistoryEntry {
    /// The journal entry.
    pub seq: i64,
    /// `pair`, `team`, `free_for_all`, `import`, `season_end` or `decay`.
    pub kind: String,
    /// The match's or event's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Server time, Unix seconds.
    pub time: f64,
    /// The player's current rating before the entry.
    pub rating_before: f32,
    /// The player's rating after it (for a match: the engine's result).
    pub rating_after: f32,
    /// Whether the match was annulled (it then counts for nothing).
    pub annulled: bool,
}

/// Where a checkpointer starts ([`LadderStore::rebuild_base`]).
#[derive(Debug, Clone, Default)]
pub struct RebuildBase {
    /// The latest checkpoint (JSON), if any.
    pub state: Option<String>,
    /// The entry it follows (0 when none).
    pub seq: i64,
    /// The ladder's amendment generation when read.
    pub generation: i64,
    /// Chained entries after it (up to the limit asked).
    pub entries_after: i64,
}

/// One stored history line: the entry, the player, their current ratings before and after.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryLine {
    /// The journal entry.
    pub seq: i64,
    /// The player's name.
    pub player: String,
    /// Rating before the entry.
    pub before: f32,
    /// Rating after it.
    pub after: f32,
}

/// The ladders resource: rules, next rules, schedules and the scheduled events due.
pub trait LaddersStore: Send + Sync {
    /// Creates a ladder or compares its rules.
    fn put_ladder<'a>(&'a self, name: &'a str, config_json: &'a str) -> StoreFuture<'a, PutOutcome>;
    /// A ladder by name.
    fn ladder<'a>(&'a self, name: &'a str) -> StoreFuture<'a, Option<Ladder>>;
    /// The ladders, or only `only`.
    fn ladders<'a>(&'a self, only: Option<&'a str>) -> StoreFuture<'a, Vec<LadderSummary>>;
    /// Stores the ladder's server-side options; a change of `provisional_games` recounts the
    /// ladder's provisional players (rank levels 2 and 3) in the same transaction.
    fn set_options<'a>(&'a self, ladder: &'a Ladder, options: &'a crate::ladder::LadderOptions) -> StoreFuture<'a, ()>;
    /// Stores the rules that take effect at the next season end.
    fn set_next_rules<'a>(&'a self, ladder: &'a Ladder, config_json: &'a str) -> StoreFuture<'a, ()>;
    /// Stores a schedule and its next times.
    fn set_schedule<'a>(&'a self, ladder: &'a Ladder, schedule: &'a ScheduleView, next: NextTimes) -> StoreFuture<'a, ()>;
    /// Ladders with a scheduled event due at `now`: name, event, its scheduled time.
    fn due<'a>(&'a self, now: f64) -> StoreFuture<'a, Vec<(String, crate::events::LadderEvent, f64)>>;
    /// Moves a ladder's next time of `event` from `from` to `to` (no change when another server
    /// moved it already); whether this call moved it.
    fn advance<'a>(&'a self, ladder: &'a Ladder, event: crate::events::LadderEvent, from: f64, to: Option<f64>) -> StoreFuture<'a, bool>;
}

/// The matches resource: reports, the journal, amendments and what `elo-ladder verify` and
/// the checkpointer read.
pub trait MatchesStore: Send + Sync {
    /// Applies a match exactly once per `(ladder, id)`; returns the 200 body. 409 for an id
    /// reused with another match, 422 for a match the engine refuses.
    fn report(&self, ladder: Arc<Ladder>, request: MatchRequest) -> StoreFuture<'_, String>;
    /// Journal entries after `after` (of one `kind` when given), in `seq` order: at most
    /// `limit`, and no more than [`JOURNAL_PAGE_BYTES`] of stored text (at least one entry).
    fn journal<'a>(&'a self, ladder: &'a Ladder, after: i64, limit: i64, kind: Option<&'a str>) -> StoreFuture<'a, JournalPage>;
    /// Journal entries before `before` (of one `kind` when given), newest first, with the
    /// same bounds as [`MatchesStore::journal`]; `more` says older entries exist, `pending`
    /// (PostgreSQL) that newer ones below `before` are held back until they are chained.
    fn journal_newest<'a>(&'a self, ladder: &'a Ladder, before: i64, limit: i64, kind: Option<&'a str>) -> StoreFuture<'a, JournalPage>;
    /// Imports checked lines in order, in one transaction ([`crate::import`]): each line once
    /// per id; a line the ladder refuses stops the batch there (the lines before it are
    /// committed, it changes nothing).
    fn import<'a>(&'a self, ladder: Arc<Ladder>, lines: Vec<crate::import::Line>) -> StoreFuture<'a, crate::import::BatchOutcome>;
    /// Annuls or corrects a match: marks it, rebuilds every later state from the journal,
    /// journals the amendment; once per amendment (see [`crate::amend::plan`]). Returns the
    /// 200 body.
    fn amend(&self, ladder: Arc<Ladder>, request: crate::amend::Request) -> StoreFuture<'_, String>;
    /// The ladder's amendment generation (`ladders.amendments`, bumped by every annulment,
    /// correction and erasure once it is committed) and whether a change in steps is under
    /// way (SQLite: a season end, decay or amendment between its first and last step), in
    /// one snapshot: `elo-ladder verify`, another process, checks a ladder again when either
    /// says it moved while it was read.
    fn amendment_generation<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, (i64, bool)>;
    /// A ladder's latest rebuild checkpoint ([`crate::checkpoint`]), its amendment
    /// generation, and how many chained entries follow it (counted up to `limit`).
    fn rebuild_base<'a>(&'a self, ladder: &'a Ladder, limit: i64) -> StoreFuture<'a, RebuildBase>;
    /// Up to `limit` chained journal entries after `after`, as a rebuild reads them.
    fn replay_page<'a>(&'a self, ladder: &'a Ladder, after: i64, limit: i64) -> StoreFuture<'a, Vec<crate::replay::StoredEntry>>;
    /// Stores a checkpoint after entry `seq` unless the ladder's generation moved past
    /// `generation` (it was amended or erased since the replay read it); whether it did.
    fn keep_checkpoint<'a>(&'a self, ladder: &'a Ladder, seq: i64, state: &'a str, generation: i64) -> StoreFuture<'a, bool>;
    /// The time before which the ladder's entries may have no history lines (written before
    /// version 0.2 kept them); 0 when every entry has them.
    fn history_kept_since<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, f64>;
    /// The stored history lines of the entries with `after < seq <= through` (for
    /// `elo-ladder verify`), in seq order.
    fn history_lines<'a>(&'a self, ladder: &'a Ladder, after: i64, through: i64) -> StoreFuture<'a, Vec<HistoryLine>>;
}

/// The players resource: players with their ranks, the leaderboard, histories, erasure.
pub trait PlayersStore: Send + Sync {
    /// A player's current state and rank (on the board of `mode`).
    fn player<'a>(&'a self, ladder: &'a Ladder, name: &'a str, mode: Provisional) -> StoreFuture<'a, Option<PlayerWithRank>>;
    /// `limit` leaderboard lines from rank `offset + 1`.
    fn leaderboard<'a>(&'a self, ladder: &'a Ladder, limit: i64, offset: i64, mode: Provisional) -> StoreFuture<'a, Vec<BoardEntry>>;
    /// A player's journal entries before `before` (all when `None`), newest first, at most
    /// `limit`; `None` for an unknown player.
    fn history<'a>(&'a self, ladder: &'a Ladder, player: &'a str, before: Option<i64>, limit: i64) -> StoreFuture<'a, Option<Vec<HistoryEntry>>>;
    /// The leaderboard lines of `players` (a friends list: up to 1,000 names), with their
    /// exact ranks on the whole board of `mode` from one snapshot, best first; players the
    /// ladder does not have are left out. Provisional players are in the answer, marked
    /// (when `mode` excludes them, their rank is what they would have counting them alone).
    fn lines_of<'a>(&'a self, ladder: &'a Ladder, players: &'a [String], mode: Provisional) -> StoreFuture<'a, Vec<BoardEntry>>;
    /// Up to `limit` leaderboard lines centred on `player` (fewer at the ends), with exact
    /// ranks from one snapshot; `None` for an unknown player. (When `mode` excludes
    /// provisional players, the caller asks for a player who is not one.)
    fn around<'a>(&'a self, ladder: &'a Ladder, player: &'a str, limit: i64, mode: Provisional) -> StoreFuture<'a, Option<Vec<BoardEntry>>>;
    /// Erases a player's name (see [`crate::erase`]); the pseudonym, or `None` for an
    /// unknown player.
    fn erase<'a>(&'a self, ladder: Arc<Ladder>, player: &'a str) -> StoreFuture<'a, Option<String>>;
    /// Every player's current state (for `elo-ladder verify`).
    fn all_players<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<PlayerView>>;
    /// The rank buckets whose stored count differs from the players' ratings (for
    /// `elo-ladder verify`): `(level, bucket, stored, counted)`, at most ten.
    fn rank_mismatches<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<(i64, i64, i64, i64)>>;
}

/// Season ends, decay and ended seasons.
pub trait SeasonsStore: Send + Sync {
    /// Ends the season (standings kept, then the soft reset) or applies decay, atomically,
    /// once per id; returns the 200 body.
    fn ladder_event(&self, ladder: Arc<Ladder>, request: EventRequest) -> StoreFuture<'_, String>;
    /// The ladder's ended seasons, oldest first.
    fn seasons<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<SeasonSummary>>;
    /// A page of an ended season's final standings; `None` for a season that has not ended.
    fn season_standings<'a>(&'a self, ladder: &'a Ladder, season: i64, limit: i64, offset: i64) -> StoreFuture<'a, Option<Vec<StandingView>>>;
}

/// API keys and their shared request budgets.
pub trait KeysStore: Send + Sync {
    /// A key's record by its public id.
    fn key<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<KeyRecord>>;
    /// Stores a new key's hash.
    fn create_key<'a>(&'a self, id: &'a str, hash: &'a [u8; 32], scope: &'a str, ladder: Option<&'a str>) -> StoreFuture<'a, ()>;
    /// Revokes a key; false when there is no such active key.
    fn revoke_key<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;
    /// Every key, oldest first.
    fn list_keys(&self) -> StoreFuture<'_, Vec<KeyListing>>;
    /// Takes up to `want` tokens of `key`'s request budget shared by every server on the
    /// database (a bucket of `burst` tokens refilled at `rate` per second); returns how
    /// many it got. `None` when the store has no shared budget (SQLite: one server).
    fn lease_tokens<'a>(&'a self, key: &'a str, rate: f64, burst: f64, want: u32) -> Option<StoreFuture<'a, u32>>;
}

/// A queue as the list of queues shows it.
#[derive(Debug, Clone, Serialize)]
pub struct QueueListing {
    /// Name.
    pub name: String,
    /// Settings.
    #[serde(flatten)]
    pub settings: crate::queue::QueueSettings,
    /// Tickets waiting now.
    pub waiting: i64,
    /// When the longest-waiting ticket joined (Unix seconds), if any waits.
    pub oldest_waiting: Option<f64>,
    /// Matches the queue has made (the `seq` of its newest).
    pub matches: i64,
}

/// What `PUT …/queues/{queue}` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueuePut {
    /// Created (201).
    Created,
    /// Replaced, or the same (200).
    Replaced,
}

/// What joining a queue did.
#[derive(Debug, Clone)]
pub enum Joined {
    /// A new ticket (201).
    Created(crate::queue::TicketRecord),
    /// The ticket of an earlier request with the same id and body (200).
    Again(crate::queue::TicketRecord),
}

/// One tick's changes, committed together by the queue's lease holder.
#[derive(Debug, Default)]
pub struct TickCommit {
    /// Matches: their tickets' row ids and their JSON ([`crate::queue::MatchBody`] without
    /// its `seq`, which the store sets).
    pub matches: Vec<(Vec<i64>, crate::queue::MatchBody)>,
    /// Tickets that expire.
    pub expired: Vec<i64>,
}

/// Matchmaking queues, their tickets and the matches they made.
pub trait QueuesStore: Send + Sync {
    /// Creates or replaces a queue.
    fn put_queue<'a>(&'a self, ladder: &'a Ladder, name: &'a str, settings_json: &'a str) -> StoreFuture<'a, QueuePut>;
    /// The ladder's queues (or only `only`), with their waiting tickets counted.
    fn queues<'a>(&'a self, ladder: &'a Ladder, only: Option<&'a str>) -> StoreFuture<'a, Vec<QueueListing>>;
    /// A queue's settings (one row: no counting, for the routes every ticket takes).
    fn queue_settings<'a>(&'a self, ladder: &'a Ladder, name: &'a str) -> StoreFuture<'a, Option<crate::queue::QueueSettings>>;
    /// Every queue of the database: ladder name, queue name (for the matchers).
    fn all_queues(&self) -> StoreFuture<'_, Vec<(String, String)>>;
    /// Adds a ticket with `rating` (its players' mean, see [`crate::queue::ticket_rating`],
    /// read by the store in the same transaction through `rate`) unless one of its players
    /// waits in the queue already (409 naming that ticket) or the client id was used (the
    /// same request: that ticket again; another: 409).
    fn join_queue(&self, ladder: Arc<Ladder>, queue: String, ticket: crate::queue::NewTicket) -> StoreFuture<'_, Joined>;
    /// A ticket of the queue (with its match, once matched).
    fn ticket<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, id: &'a str) -> StoreFuture<'a, Option<crate::queue::TicketRecord>>;
    /// Cancels a waiting ticket; the ticket after (its state says whether it was waiting).
    fn cancel_ticket<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, id: &'a str) -> StoreFuture<'a, Option<crate::queue::TicketRecord>>;
    /// Takes or renews the queue's matcher lease for `holder` until `now + seconds`;
    /// whether `holder` holds it.
    fn take_lease<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, holder: &'a str, seconds: f64) -> StoreFuture<'a, bool>;
    /// The queue's waiting tickets, in arrival order.
    fn waiting_tickets<'a>(&'a self, ladder: &'a Ladder, queue: &'a str) -> StoreFuture<'a, Vec<crate::queue::WaitingTicket>>;
    /// The stored players among `names` and the ladder's zero-sum numbers (previews).
    fn queue_players<'a>(&'a self, ladder: &'a Ladder, names: &'a [String]) -> StoreFuture<'a, (Option<crate::model::ZeroSum>, HashMap<String, crate::model::PlayerRow>)>;
    /// Commits a tick if `holder` still holds the lease: each match whose tickets all still
    /// wait is stored and its tickets matched (others are left out), expired tickets expire.
    /// The public ids of the tickets whose state changed.
    fn commit_tick<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, holder: &'a str, tick: TickCommit) -> StoreFuture<'a, Vec<String>>;
    /// The queue's matches after `after` (their `seq`), oldest first, at most `limit`.
    fn queue_matches<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, after: i64, limit: i64) -> StoreFuture<'a, Vec<crate::queue::MatchBody>>;
    /// A match any queue of the ladder made, by id.
    fn queue_match<'a>(&'a self, ladder: &'a Ladder, id: &'a str) -> StoreFuture<'a, Option<crate::queue::MatchBody>>;
    /// Public ids of tickets whose state changed at or after `since` (long-polls).
    fn ticket_changes(&self, since: f64) -> StoreFuture<'_, Vec<String>>;
}

/// Where a tag board's `around` found the player.
#[derive(Debug, Clone, PartialEq)]
pub enum TagAround {
    /// The ladder has no such player.
    UnknownPlayer,
    /// The player does not hold the tag.
    NotTagged,
    /// The player holds the tag but is provisional and the board leaves provisional players
    /// out: their games played.
    Provisional(i64),
    /// The lines, with exact ranks within the tag from one snapshot.
    Lines(Vec<BoardEntry>),
}

/// The tags resource: players' tags and each tag's board (see [`crate::tags`]).
pub trait TagsStore: Send + Sync {
    /// A player's tags; `None` for an unknown player.
    fn tags<'a>(&'a self, ladder: &'a Ladder, player: &'a str) -> StoreFuture<'a, Option<crate::tags::Tags>>;
    /// Applies `changes` to a player's tags in one transaction (a new value of a key takes the
    /// player off the key's old tag); the tags after, or `None` for an unknown player.
    fn set_tags<'a>(&'a self, ladder: &'a Ladder, player: &'a str, changes: &'a [(String, Option<String>)]) -> StoreFuture<'a, Option<crate::tags::Tags>>;
    /// `limit` lines of a tag's board from rank `offset + 1` (empty for a tag nobody holds).
    fn tag_leaderboard<'a>(&'a self, ladder: &'a Ladder, tag: &'a crate::tags::Tag, limit: i64, offset: i64, mode: Provisional) -> StoreFuture<'a, Vec<BoardEntry>>;
    /// Up to `limit` lines of a tag's board centred on `player`.
    fn tag_around<'a>(&'a self, ladder: &'a Ladder, tag: &'a crate::tags::Tag, player: &'a str, limit: i64, mode: Provisional) -> StoreFuture<'a, TagAround>;
    /// What disagrees between the tags' copies and counts and the players (for `elo-ladder
    /// verify`), in words, at most ten lines.
    fn tag_mismatches<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<String>>;
}

/// What a delivery sends next ([`WebhooksStore::next_delivery`]).
pub enum NextDelivery<'a> {
    /// The first entry after the cursor of the subscription's kinds, read while the ladder's
    /// erasures wait: send it, then [`NamesHeld::release`].
    Entry(Box<JournalEntry>, NamesHeld<'a>),
    /// No entry of its kinds after the cursor up to this `seq` (the newest it may send).
    Skip(i64),
    /// Nothing after the cursor yet.
    Nothing,
}

/// A hold on a ladder's names: an erasure of the ladder (on any server) waits until it is
/// released, so an entry read under it is sent before the erasure commits or not at all.
pub struct NamesHeld<'a>(Box<dyn ReleaseNames<'a> + 'a>);

impl<'a> NamesHeld<'a> {
    /// Wraps a backend's hold.
    pub fn new(hold: impl ReleaseNames<'a> + 'a) -> Self {
        Self(Box::new(hold))
    }

    /// Lets the ladder's erasures go on.
    pub async fn release(self) {
        self.0.release().await;
    }
}

/// A backend's hold on a ladder's names (dropped without [`Self::release`], it lets go
/// too, perhaps later: PostgreSQL closes its connection).
pub trait ReleaseNames<'a>: Send {
    /// Lets go.
    fn release(self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>>;
}

/// The webhooks resource: subscriptions and the state of their deliveries (see
/// [`crate::webhooks`] and [`crate::deliver`]).
pub trait WebhooksStore: Send + Sync {
    /// Creates a subscription (`true`; its secret is the caller's or `new_secret`) or updates
    /// one (`false`: its URL, kinds, pause and, when given, secret; its cursor stays and a
    /// waiting retry is made at once); the subscription after.
    fn put_webhook<'a>(&'a self, ladder: &'a Ladder, name: &'a str, put: &'a crate::webhooks::WebhookPut, new_secret: &'a str)
        -> StoreFuture<'a, (bool, crate::webhooks::Webhook)>;
    /// The subscriptions of a ladder (of every ladder with `None`), by ladder and name.
    fn webhooks<'a>(&'a self, ladder: Option<&'a Ladder>) -> StoreFuture<'a, Vec<crate::webhooks::Webhook>>;
    /// Deletes a subscription; `false` when there was none.
    fn delete_webhook<'a>(&'a self, ladder: &'a Ladder, name: &'a str) -> StoreFuture<'a, bool>;
    /// Takes or renews the subscription's delivery lease for `holder` for `seconds` (by the
    /// database's clock on PostgreSQL, so servers' clocks need not agree); the subscription
    /// as it is now, or `None` when another server holds it (or it is gone).
    fn take_webhook_lease<'a>(&'a self, webhook: i64, holder: &'a str, seconds: f64) -> StoreFuture<'a, Option<crate::webhooks::Webhook>>;
    /// What to send next after the subscription's cursor (only entries every lower `seq` of
    /// which has committed), read once the ladder's names are held; [`NextDelivery::Nothing`]
    /// when `holder`'s lease has less than `send_seconds` left by then (a send must end
    /// before another server may take the lease) or the names stay held by an erasure for
    /// `send_seconds`.
    fn next_delivery<'a>(&'a self, webhook: &'a crate::webhooks::Webhook, holder: &'a str, send_seconds: f64) -> StoreFuture<'a, NextDelivery<'a>>;
    /// Records an attempt while `holder` holds the lease (`false`: it does not, nothing
    /// recorded). A delivery or skip moves the cursor forward only (and ends a run of
    /// failures); a failure is recorded only at the revision it was sent under.
    fn record_attempt<'a>(&'a self, webhook: i64, holder: &'a str, attempt: &'a crate::webhooks::Attempt) -> StoreFuture<'a, bool>;
}

/// What both databases do, one trait per resource (each backend implements each in a module
/// of its own). Every write is one transaction: committed whole before its answer, or not
/// at all (SQLite's staged season ends and amendments: see their docs).
pub trait LadderStore: LaddersStore + MatchesStore + PlayersStore + SeasonsStore + KeysStore + QueuesStore + TagsStore + WebhooksStore {
    /// Whether the database answers.
    fn ping(&self) -> StoreFuture<'_, ()>;
    /// Rewrites the tables that hold player names into fresh storage, so that old versions
    /// of rows (an erased name among them) are no longer in the database's files
    /// (`elo-ladder scrub`); what was done, in words. SQLite: `VACUUM` and the write-ahead log
    /// truncated (also run after every erasure). PostgreSQL: `VACUUM (FULL)` of the players,
    /// the journal, the rebuild checkpoints and the matchmaking tickets and matches (each table locked while it is rewritten),
    /// then a `CHECKPOINT` when the role may run one.
    fn scrub(&self) -> StoreFuture<'_, String>;
    /// Database connections in use now (for metrics).
    fn connections_in_use(&self) -> usize;
}

/// Who opens the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `elo-ladder serve`: on SQLite, the one process that serves the file (a second is
    /// refused); it repairs what a stopped server left.
    Serve,
    /// A command (`keys`, `verify`): on SQLite it repairs nothing while a server runs.
    Tool,
}

/// Opens the database and runs the migrations.
///
/// # Errors
/// The database cannot be opened or migrated (the message never shows a password).
pub async fn open(url: &DatabaseUrl, role: Role) -> Result<Store, String> {
    match url {
        DatabaseUrl::Sqlite { path, full_sync, event_step } => {
            let (path, full_sync, event_step) = (path.clone(), *full_sync, *event_step);
            let store = tokio::task::spawn_blocking(move || sqlite::SqliteStore::open(&path, full_sync, event_step, role)).await.map_err(|e| e.to_string())??;
            Ok(Arc::new(store))
        }
        DatabaseUrl::Postgres(settings) => Ok(Arc::new(postgres::PgStore::open((**settings).clone()).await?)),
    }
}

/// The answer to an id already in the journal: the stored response when the request is the
/// same (same kind and canonical inputs), 409 when the id was used for something else.
///
/// # Errors
/// 409 `match_id_reused`.
pub fn replay_answer(id: &str, stored_kind: &str, stored_inputs: &str, kind: &str, inputs: &str, answer: impl FnOnce() -> String) -> Result<String, ApiError> {
    if stored_kind == kind && stored_inputs == inputs {
        Ok(answer())
    } else {
        Err(ApiError::conflict("match_id_reused", format!("id {id:?} was already used for another {stored_kind} ({stored_inputs}); nothing was changed")))
    }
}

/// The journal columns [`journal_entry`] reads, in its order.
pub const JOURNAL_COLUMNS: &str = "seq, kind, match_id, time, inputs, joined, results, annulled, annul_reason, corrected_inputs, hash, player_keys";

/// A journal row ([`JOURNAL_COLUMNS`]) as the API shows it.
#[derive(Debug)]
pub struct JournalRow {
    /// `seq`.
    pub seq: i64,
    /// `kind`.
    pub kind: String,
    /// `match_id`.
    pub id: Option<String>,
    /// `time`.
    pub time: f64,
    /// `inputs`.
    pub inputs: String,
    /// `joined`.
    pub joined: String,
    /// `results`.
    pub results: String,
    /// `annulled`.
    pub annulled: bool,
    /// `annul_reason`.
    pub annul_reason: Option<String>,
    /// `corrected_inputs`.
    pub corrected: Option<String>,
    /// `hash` (pages show only chained entries).
    pub hash: Vec<u8>,
    /// `player_keys`: the joining players' keys (JSON), set with the hash.
    pub keys: Option<String>,
}

/// A journal row as the API shows it.
///
/// # Errors
/// 500 when stored JSON does not parse.
pub fn journal_entry(row: JournalRow) -> Result<JournalEntry, ApiError> {
    let seq = row.seq;
    let broken = |e: serde_json::Error| ApiError::internal(format!("journal {seq}: {e}"));
    let raw = |text: String| serde_json::value::RawValue::from_string(text).map_err(broken);
    Ok(JournalEntry {
        seq,
        kind: row.kind,
        id: row.id,
        time: row.time,
        inputs: raw(row.inputs)?,
        joined: serde_json::from_str(&row.joined).map_err(broken)?,
        results: raw(row.results)?,
        annulled: row.annulled,
        annul_reason: row.annul_reason,
        corrected: row.corrected.map(raw).transpose()?,
        hash: crate::chain::hex(&row.hash),
        keys: row.keys.map(raw).transpose()?,
    })
}

/// How many of the entries, by their stored sizes in `seq` order, fit on one page: as many
/// as stay within [`JOURNAL_PAGE_BYTES`], at least one.
#[must_use]
pub fn page_length(sizes: &[i64]) -> usize {
    let mut total = 0i64;
    for (i, size) in sizes.iter().enumerate() {
        total = total.saturating_add(*size);
        if total > JOURNAL_PAGE_BYTES && i > 0 {
            return i;
        }
    }
    sizes.len()
}

/// A journal entry to append.
pub struct NewEntry<'a> {
    /// The ladder's row id.
    pub ladder: i64,
    /// The match's (or event's) id.
    pub id: &'a str,
    /// `pair`, `team`, `free_for_all`, `season_end` or `decay`.
    pub kind: &'a str,
    /// The canonical request.
    pub inputs: &'a str,
    /// Server time.
    pub time: f64,
    /// Players who joined with it (JSON array text).
    pub joined: String,
    /// What it did (JSON text).
    pub results: String,
}
