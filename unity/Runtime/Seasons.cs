using System;
using System.Runtime.InteropServices;

namespace RankingElo
{
    /// <summary>
    /// A promotion or demotion reported by <see cref="RatingPool.Apply(ReadOnlySpan{int}, ReadOnlySpan{int}, ReadOnlySpan{float}, Span{LeagueChange})"/>,
    /// <see cref="RatingPool.ApplyDecay(double, out LeagueChange[])"/> or a season's end, so a
    /// game can show "Promoted to Gold!" without comparing leagues itself. Laid out like the
    /// C ABI's <c>EloLeagueChange</c>.
    /// </summary>
    [Serializable]
    [StructLayout(LayoutKind.Sequential)]
    public struct LeagueChange
    {
        /// <summary>Position of the match in the list that caused it; for a season end or a decay, the player's index.</summary>
        public int Position;

        /// <summary>The player's index in the pool.</summary>
        public int Player;

        /// <summary>League held before (0 = lowest).</summary>
        public int FromLeague;

        /// <summary>League held after.</summary>
        public int ToLeague;

        /// <summary>Whether the player moved up.</summary>
        public bool IsPromotion
        {
            get { return ToLeague > FromLeague; }
        }

        /// <summary>A short description for logs.</summary>
        /// <returns>The text.</returns>
        public override string ToString()
        {
            return string.Format(System.Globalization.CultureInfo.InvariantCulture, "player {0}: league {1} -> {2} (match {3})", Player, FromLeague, ToLeague, Position);
        }
    }

    /// <summary>One player's season, reported by <see cref="RatingPool.EndSeason(string)"/> before the reset. Laid out like the C ABI's <c>EloSeasonRecord</c>.</summary>
    [Serializable]
    [StructLayout(LayoutKind.Sequential)]
    public struct SeasonRecord
    {
        /// <summary>The player's index in the pool.</summary>
        public int Player;

        /// <summary>Rating at the season's end (before the reset).</summary>
        public float Rating;

        /// <summary>Highest rating after a game this season.</summary>
        public float PeakRating;

        /// <summary>League held at the season's end: what season rewards usually go by.</summary>
        public int League;

        /// <summary>Highest league held this season.</summary>
        public int PeakLeague;

        /// <summary>Games played this season.</summary>
        public uint Games;

        /// <summary>Wins this season.</summary>
        public uint Wins;
    }
}
