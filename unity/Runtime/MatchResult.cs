namespace RankingElo
{
    /// <summary>The result of a match seen from the first player.</summary>
    public enum MatchResult
    {
        /// <summary>The first player lost (score 0).</summary>
        Loss = 0,

        /// <summary>A draw (score 0.5).</summary>
        Draw = 1,

        /// <summary>The first player won (score 1).</summary>
        Win = 2,
    }

    /// <summary>Conversions of <see cref="MatchResult"/>.</summary>
    public static class MatchResultExtensions
    {
        /// <summary>The actual score of the first player: 0, 0.5 or 1.</summary>
        /// <param name="result">The result.</param>
        /// <returns>The score in [0, 1].</returns>
        public static float Score(this MatchResult result)
        {
            switch (result)
            {
                case MatchResult.Win: return 1f;
                case MatchResult.Draw: return 0.5f;
                case MatchResult.Loss: return 0f;
                default: throw new System.ArgumentOutOfRangeException("result", result, "not a MatchResult");
            }
        }
    }
}
