using System;
using System.Runtime.InteropServices;
#if UNITY_5_3_OR_NEWER
using UnityEngine;
#endif

namespace RankingElo
{
    /// <summary>
    /// A player's rating and the state the K policies and streak penalties read. Laid out
    /// exactly like the C ABI's <c>EloPlayerState</c>, so arrays of it go to native code
    /// without copying.
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

        [SerializeField] private byte isJunior;
        [SerializeField] private byte hasReached2400;

        /// <summary>A player with the given rating and no history.</summary>
        /// <param name="rating">The rating.</param>
        public PlayerState(float rating) : this()
        {
            Rating = rating;
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
                "PlayerState(rating {0:F1}, games {1}, streak {2})", Rating, GamesPlayed, WinStreak);
        }
    }
}
