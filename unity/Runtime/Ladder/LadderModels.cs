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

        /// <summary>The player's rank (1 = best); 0 in a match report, which does not rank.</summary>
        public long Rank { get; private set; }

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
            return new LadderPlayer { Player = LadderJson.String(o, "player"), State = state, Rank = o.ContainsKey("rank") ? LadderJson.Long(o, "rank") : 0 };
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
                });
            }
            return entries.ToArray();
        }
    }

    /// <summary>
    /// The server refused a request (<c>{"error": {"code", "message"}}</c>) or could not be
    /// reached (<see cref="Status"/> 0).
    /// </summary>
    public sealed class LadderException : Exception
    {
        /// <summary>The HTTP status (400, 401, 403, 404, 409, 413, 422, 429, 5xx), or 0 when the server could not be reached.</summary>
        public int Status { get; private set; }

        /// <summary>The server's error code (<c>unknown_ladder</c>, <c>match_id_reused</c>, <c>rate_limited</c>, …).</summary>
        public string Code { get; private set; }

        /// <summary>An error from the server or the network.</summary>
        /// <param name="status">The HTTP status, 0 for a network failure.</param>
        /// <param name="code">The server's error code.</param>
        /// <param name="message">The server's message.</param>
        public LadderException(int status, string code, string message) : base(message)
        {
            Status = status;
            Code = code;
        }

        /// <summary>Whether sending the same request again may succeed (network failures, 429 and 5xx): a match report is applied once per id, so retrying it is safe.</summary>
        public bool IsRetryable
        {
            get { return Status == 0 || Status == 429 || Status >= 500; }
        }
    }
}
