using System;
using System.Collections.Generic;

namespace RankingElo.Ladder
{
    /// <summary>A player of a ladder as the server stores it: the name and the engine's state.</summary>
    public sealed class LadderPlayer
    {
        /// <summary>The player's name in the ladder.</summary>
        public string Player { get; private set; }

        /// <summary>The player's state (rating, games, streak, league, season record), the bits the server stored.</summary>
        public PlayerState State { get; private set; }

        /// <summary>The player's rank (1 = best); 0 in a match report, which does not rank, and for a provisional player, who is not on the board yet.</summary>
        public long Rank { get; private set; }

        /// <summary>
        /// Whether the player is provisional: fewer games than the ladder's
        /// <c>provisional_games</c> option, so not on the leaderboard (nor counted in others'
        /// ranks) yet. Show it as "placement matches: 2 of 5".
        /// </summary>
        public bool Provisional { get; private set; }

        /// <summary>
        /// Whether the match this report answers is held for its rating period (a ladder with
        /// the <c>rating_periods</c> option): <see cref="State"/> is then the player's state
        /// before the match, and the period's end rates it with the period's other games. Show
        /// it as "rated when the period ends".
        /// </summary>
        public bool Held { get; private set; }

        internal static LadderPlayer Read(object json)
        {
            var o = LadderJson.Object(json, "a player");
            var state = new PlayerState(LadderJson.Float(o, "rating"))
            {
                GamesPlayed = (uint)LadderJson.Long(o, "games_played"),
                WinStreak = (uint)LadderJson.Long(o, "win_streak"),
                PeriodGames = (uint)LadderJson.Long(o, "period_games"),
                League = o.ContainsKey("league") ? (int)LadderJson.Long(o, "league") : -1,
                ProtectedGames = (uint)LadderJson.Long(o, "protected_games"),
                SeasonGames = (uint)LadderJson.Long(o, "season_games"),
                SeasonWins = (uint)LadderJson.Long(o, "season_wins"),
                PeakRating = LadderJson.Float(o, "peak_rating"),
                PeakLeague = (int)LadderJson.Long(o, "peak_league"),
                LastPlayed = LadderJson.Double(o, "last_played"),
                IsJunior = LadderJson.Bool(o, "is_junior"),
                HasReached2400 = LadderJson.Bool(o, "has_reached_2400"),
            };
            return new LadderPlayer
            {
                Player = LadderJson.String(o, "player"),
                State = state,
                Rank = o.ContainsKey("rank") ? LadderJson.Long(o, "rank") : 0,
                Provisional = o.ContainsKey("provisional") && LadderJson.Bool(o, "provisional"),
                Held = o.ContainsKey("held") && LadderJson.Bool(o, "held"),
            };
        }
    }

    /// <summary>The server's answer to a match report: its place in the ladder's journal and every player's new state.</summary>
    public sealed class MatchReport
    {
        /// <summary>The match's position in the ladder's journal.</summary>
        public long Seq { get; private set; }

        /// <summary>The players' states after the match, in the order the match listed them.</summary>
        public LadderPlayer[] Players { get; private set; }

        internal static MatchReport Read(object json)
        {
            var o = LadderJson.Object(json, "a match report");
            var players = new List<LadderPlayer>();
            foreach (var player in LadderJson.Array(o, "players"))
            {
                players.Add(LadderPlayer.Read(player));
            }
            return new MatchReport { Seq = LadderJson.Long(o, "seq"), Players = players.ToArray() };
        }
    }

    /// <summary>One line of a leaderboard.</summary>
    public struct LeaderboardEntry
    {
        /// <summary>1 = best; ties go to the player who joined first.</summary>
        public long Rank;

        /// <summary>The player's name.</summary>
        public string Player;

        /// <summary>The current rating.</summary>
        public float Rating;

        /// <summary>The league held (0 = lowest).</summary>
        public int League;

        /// <summary>Whether the player is provisional (only on boards read with provisional players included).</summary>
        public bool Provisional;

        internal static LeaderboardEntry[] ReadAll(object json)
        {
            var entries = new List<LeaderboardEntry>();
            foreach (var item in LadderJson.Array(LadderJson.Object(json, "a leaderboard"), "entries"))
            {
                var o = LadderJson.Object(item, "a leaderboard entry");
                entries.Add(new LeaderboardEntry
                {
                    Rank = LadderJson.Long(o, "rank"),
                    Player = LadderJson.String(o, "player"),
                    Rating = LadderJson.Float(o, "rating"),
                    League = (int)LadderJson.Long(o, "league"),
                    Provisional = o.ContainsKey("provisional") && LadderJson.Bool(o, "provisional"),
                });
            }
            return entries.ToArray();
        }
    }

    /// <summary>One line of a player's history (<see cref="LadderClient.GetHistoryAsync"/>): a journal entry that changed the player.</summary>
    public struct HistoryEntry
    {
        /// <summary>The entry's position in the journal (shared by all the server's ladders, so a ladder's values have gaps).</summary>
        public long Seq;

        /// <summary>What it was: <c>pair</c>, <c>team</c>, <c>free_for_all</c>, <c>import</c> (the player as the server's import brought them in), <c>season_end</c>, <c>decay</c> or <c>period_end</c> (the end of a rating period that rated the player's held games).</summary>
        public string Kind;

        /// <summary>The match's or the event's id, or null when the entry has none.</summary>
        public string Id;

        /// <summary>When the server applied it (UTC).</summary>
        public DateTimeOffset Time;

        /// <summary>The player's rating before the entry.</summary>
        public float RatingBefore;

        /// <summary>The player's rating after it (for a match, the engine's result: the bits the server stored).</summary>
        public float RatingAfter;

        /// <summary>
        /// Whether the match was annulled by an admin: it then counts for nothing, and the
        /// later entries' ratings are those of the rebuild without it.
        /// </summary>
        public bool Annulled;

        internal static HistoryEntry Read(object json)
        {
            var o = LadderJson.Object(json, "a history entry");
            return new HistoryEntry
            {
                Seq = LadderJson.Long(o, "seq"),
                Kind = LadderJson.String(o, "kind"),
                Id = LadderJson.String(o, "id"),
                Time = LadderJson.Time(LadderJson.Double(o, "time")),
                RatingBefore = LadderJson.Float(o, "rating_before"),
                RatingAfter = LadderJson.Float(o, "rating_after"),
                Annulled = LadderJson.Bool(o, "annulled"),
            };
        }
    }

    /// <summary>A page of a player's history, newest first, and where the next (older) page starts.</summary>
    public sealed class HistoryPage
    {
        /// <summary>The entries, newest first (empty for a player who has not played in the ladder).</summary>
        public HistoryEntry[] Entries { get; private set; }

        /// <summary>
        /// The <c>before</c> to pass to <see cref="LadderClient.GetHistoryAsync"/> for the next,
        /// older page; null when this page is the last. (The server gives it whenever a page is
        /// full, so the page after a full last one is empty, with <see cref="Before"/> null.)
        /// </summary>
        public long? Before { get; private set; }

        internal static readonly HistoryPage Empty = new HistoryPage { Entries = new HistoryEntry[0] };

        internal static HistoryPage Read(object json)
        {
            var o = LadderJson.Object(json, "a history page");
            var entries = new List<HistoryEntry>();
            foreach (var item in LadderJson.Array(o, "entries"))
            {
                entries.Add(HistoryEntry.Read(item));
            }
            return new HistoryPage { Entries = entries.ToArray(), Before = LadderJson.OptionalLong(o, "before") };
        }
    }

    /// <summary>An ended season of a ladder (<see cref="LadderClient.GetSeasonsAsync"/>).</summary>
    public struct LadderSeason
    {
        /// <summary>The season's number (the first is 1).</summary>
        public long Season;

        /// <summary>When it ended (UTC).</summary>
        public DateTimeOffset Ended;

        /// <summary>Players with a record in its final standings.</summary>
        public long Players;

        /// <summary>The journal entry of its end.</summary>
        public long Seq;

        internal static LadderSeason[] ReadAll(object json)
        {
            var seasons = new List<LadderSeason>();
            foreach (var item in LadderJson.Array(LadderJson.Object(json, "the seasons"), "seasons"))
            {
                var o = LadderJson.Object(item, "a season");
                seasons.Add(new LadderSeason
                {
                    Season = LadderJson.Long(o, "season"),
                    Ended = LadderJson.Time(LadderJson.Double(o, "ended")),
                    Players = LadderJson.Long(o, "players"),
                    Seq = LadderJson.Long(o, "seq"),
                });
            }
            return seasons.ToArray();
        }
    }

    /// <summary>One line of an ended season's final standings (<see cref="LadderClient.GetSeasonStandingsAsync"/>), as kept at its end.</summary>
    public struct SeasonStanding
    {
        /// <summary>1 = best at the season's end; ties go to the player who joined first.</summary>
        public long Rank;

        /// <summary>The player's name.</summary>
        public string Player;

        /// <summary>The rating at the season's end, before the reset.</summary>
        public float Rating;

        /// <summary>The highest rating after a game this season.</summary>
        public float PeakRating;

        /// <summary>The league held at the season's end (0 = lowest).</summary>
        public int League;

        /// <summary>The highest league held this season.</summary>
        public int PeakLeague;

        /// <summary>Games played this season.</summary>
        public uint Games;

        /// <summary>Wins this season.</summary>
        public uint Wins;

        internal static SeasonStanding[] ReadAll(object json)
        {
            var standings = new List<SeasonStanding>();
            foreach (var item in LadderJson.Array(LadderJson.Object(json, "a season's standings"), "entries"))
            {
                var o = LadderJson.Object(item, "a standing");
                standings.Add(new SeasonStanding
                {
                    Rank = LadderJson.Long(o, "rank"),
                    Player = LadderJson.String(o, "player"),
                    Rating = LadderJson.Float(o, "rating"),
                    PeakRating = LadderJson.Float(o, "peak_rating"),
                    League = (int)LadderJson.Long(o, "league"),
                    PeakLeague = (int)LadderJson.Long(o, "peak_league"),
                    Games = (uint)LadderJson.Long(o, "games"),
                    Wins = (uint)LadderJson.Long(o, "wins"),
                });
            }
            return standings.ToArray();
        }
    }

    /// <summary>
    /// The server refused a request (<c>{"error": {"code", "message"}}</c>), did not answer in
    /// time (<see cref="Status"/> 0, <see cref="Code"/> <c>timeout</c>) or could not be reached
    /// (<see cref="Status"/> 0, <see cref="Code"/> <c>unreachable</c>).
    /// </summary>
    public sealed class LadderException : Exception
    {
        /// <summary>The HTTP status (400, 401, 403, 404, 409, 413, 422, 429, 5xx), or 0 when no answer came (a timeout or a connection error).</summary>
        public int Status { get; private set; }

        /// <summary>
        /// The server's error code (<c>unknown_ladder</c>, <c>match_id_reused</c>,
        /// <c>rate_limited</c>, …; the README's API table lists them), or the client's own:
        /// <c>timeout</c> (no whole answer within the timeout), <c>unreachable</c> (no
        /// connection, or it broke), <c>bad_response</c> (inside Unity: an answer that could
        /// not be read), <c>http_STATUS</c> (an error answer that is not the server's JSON, such
        /// as a proxy's page).
        /// </summary>
        public string Code { get; private set; }

        /// <summary>How long the server asked to wait before trying again (its <c>Retry-After</c>, sent with 429), or null.</summary>
        public TimeSpan? RetryAfter { get; private set; }

        /// <summary>An error from the server or the network.</summary>
        /// <param name="status">The HTTP status, 0 for a network failure.</param>
        /// <param name="code">The server's error code.</param>
        /// <param name="message">The server's message.</param>
        public LadderException(int status, string code, string message) : this(status, code, message, null)
        {
        }

        /// <summary>An error from the server with the wait it asked for.</summary>
        /// <param name="status">The HTTP status, 0 for a network failure.</param>
        /// <param name="code">The server's error code.</param>
        /// <param name="message">The server's message.</param>
        /// <param name="retryAfter">The server's <c>Retry-After</c>, or null.</param>
        public LadderException(int status, string code, string message, TimeSpan? retryAfter) : base(message)
        {
            Status = status;
            Code = code;
            RetryAfter = retryAfter;
        }

        /// <summary>
        /// Whether sending the same request again may succeed: a timeout or a connection error
        /// (<see cref="Status"/> 0), a 429 with <see cref="RetryAfter"/>, a 5xx. A match report
        /// is applied once per id, so retrying it is safe (<see cref="LadderClient.RetryAsync{T}"/>).
        /// Every other 4xx says the request itself is wrong: it would fail again.
        /// </summary>
        public bool IsRetryable
        {
            get { return Status == 0 || (Status == 429 && RetryAfter.HasValue) || Status >= 500; }
        }
    }

    /// <summary>
    /// How <see cref="LadderClient.RetryAsync{T}"/> retries: how many attempts, and how long it
    /// waits between them (doubling from <see cref="FirstDelay"/> to <see cref="MaxDelay"/>, each
    /// wait a random time between half and all of it; after a 429 at least the server's
    /// <c>Retry-After</c>).
    /// </summary>
    public sealed class LadderRetryPolicy
    {
        private static readonly Random Jitter = new Random();
        private int maxAttempts = 6;
        private TimeSpan firstDelay = TimeSpan.FromSeconds(0.5);
        private TimeSpan maxDelay = TimeSpan.FromSeconds(30);

        /// <summary>Attempts in all, the first included (6 unless set; at least 1).</summary>
        public int MaxAttempts
        {
            get { return maxAttempts; }
            set
            {
                if (value < 1) throw new ArgumentOutOfRangeException("value", value, "at least one attempt");
                maxAttempts = value;
            }
        }

        /// <summary>The wait before the second attempt (0.5 s unless set); each later wait doubles.</summary>
        public TimeSpan FirstDelay
        {
            get { return firstDelay; }
            set
            {
                if (value < TimeSpan.Zero) throw new ArgumentOutOfRangeException("value", value, "a wait cannot be negative");
                firstDelay = value;
            }
        }

        /// <summary>The longest wait (30 s unless set), except that a 429's <c>Retry-After</c> is always honoured.</summary>
        public TimeSpan MaxDelay
        {
            get { return maxDelay; }
            set
            {
                if (value < TimeSpan.Zero) throw new ArgumentOutOfRangeException("value", value, "a wait cannot be negative");
                maxDelay = value;
            }
        }

        /// <summary>Called before each wait with the attempt that failed (1 = the first), its failure and the wait (for logs).</summary>
        public Action<int, LadderException, TimeSpan> OnRetry { get; set; }

        /// <summary>The wait after failed attempt <paramref name="attempt"/> (1 = the first).</summary>
        internal TimeSpan Wait(int attempt, LadderException error)
        {
            double full = Math.Min(maxDelay.TotalMilliseconds, firstDelay.TotalMilliseconds * Math.Pow(2, Math.Min(attempt - 1, 30)));
            double random;
            lock (Jitter)
            {
                random = Jitter.NextDouble();
            }
            TimeSpan wait = TimeSpan.FromMilliseconds(full / 2 + random * full / 2);
            if (error.RetryAfter.HasValue && error.RetryAfter.Value > wait)
            {
                wait = error.RetryAfter.Value;
            }
            return wait;
        }
    }
}
