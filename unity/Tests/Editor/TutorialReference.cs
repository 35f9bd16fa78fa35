using System;

namespace RankingElo.Tests
{
    /// <summary>
    /// The tutorial's managed implementation (float arithmetic, <c>Math.Pow</c> for
    /// <c>Mathf.Pow</c>), kept as the reference the native mirrors must agree with.
    /// </summary>
    internal static class TutorialReference
    {
        internal static float GetProbabilityWinning(float ratingPlayer1, float ratingPlayer2)
        {
            return 1f / (1f + (float)Math.Pow(10f, (ratingPlayer2 - ratingPlayer1) / 400f));
        }

        internal static float[] UpdatePlayerRankings(float ratingPlayer1, float ratingPlayer2, float multiplier, bool isPlayer1Winner)
        {
            float probabilityWinPlayer1 = GetProbabilityWinning(ratingPlayer1, ratingPlayer2);
            if (isPlayer1Winner)
            {
                ratingPlayer1 += multiplier * (1 - probabilityWinPlayer1);
                ratingPlayer2 += multiplier * (probabilityWinPlayer1 - 1);
            }
            else
            {
                ratingPlayer1 += multiplier * (-probabilityWinPlayer1);
                ratingPlayer2 += multiplier * probabilityWinPlayer1;
            }
            return new[] { ratingPlayer1, ratingPlayer2 };
        }
    }
}
