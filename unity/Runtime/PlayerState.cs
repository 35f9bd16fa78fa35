using System;
using System.Runtime.InteropServices;
#if UNITY_5_3_OR_NEWER
using UnityEngine;
#endif

namespace RankingElo
{
    /// <summary>
    /// A player's rating and the state the K policies, streak penalties, leagues and seasons
    /// read. Laid out exactly like the C ABI's <c>EloPlayerState</c>, so arrays of it go to
    /// native code without copying. <see cref="League"/> is the league the player holds
    /// (leagues with a demotion margin and protected games keep it apart from the rating);
    /// -1 means "not placed yet" and <c>new PlayerState(rating)</c> starts there.
    /// </summary>
    [Serializable]
    [StructLayout(LayoutKind.Sequential)]
    public struct PlayerState
    {
        /// <summary>Current rating.</summary>
        public float Rating;

        /// <summary>Rated games played so far.</summary>
        public uint GamesPlayed;

        /// <summary>Consecutive wins; a loss or a draw resets it.</summary>
        public uint WinStreak;

        /// <summary>Games in the current rating period (FIDE's 700 rule); 0 when unused.</summary>
        public uint PeriodGames;

        /// <summary>The league held (0 = lowest), or -1 before the player is placed (the league of the rating is then used).</summary>
        public int League;

        /// <summary>Games left in which a demotion cannot happen (set by a promotion to the rules' protected games).</summary>
        public uint ProtectedGames;

        /// <summary>Rated games this season.</summary>
        public uint SeasonGames;

        /// <summary>Wins this season.</summary>
        public uint SeasonWins;

        /// <summary>The highest rating after a game this season.</summary>
        public float PeakRating;

        /// <summary>The highest league held this season.</summary>
        public int PeakLeague;

        /// <summary>Time of the last match in the pool clock's seconds (<see cref="RatingPool.Clock"/>).</summary>
        public double LastPlayed;

        [SerializeField] private byte isJunior;
        [SerializeField] private byte hasReached2400;

        /// <summary>A player with the given rating and no history.</summary>
        /// <param name="rating">The rating.</param>
        public PlayerState(float rating) : this()
        {
            Rating = rating;
            League = -1;
            PeakRating = rating;
        }

        /// <summary>FIDE junior (keeps K = 40 below 2300).</summary>
        public bool IsJunior
        {
            get { return isJunior != 0; }
            set { isJunior = value ? (byte)1 : (byte)0; }
        }

        /// <summary>The rating has reached 2400 at some point (FIDE K = 10 for good).</summary>
        public bool HasReached2400
        {
            get { return hasReached2400 != 0; }
            set { hasReached2400 = value ? (byte)1 : (byte)0; }
        }

        /// <summary>A short description for logs.</summary>
        /// <returns>The text.</returns>
        public override string ToString()
        {
            return string.Format(System.Globalization.CultureInfo.InvariantCulture,
                "PlayerState(rating {0:F1}, games {1}, streak {2}, league {3})", Rating, GamesPlayed, WinStreak, League);
        }
    }
}
