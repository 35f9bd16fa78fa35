using System;
using System.Runtime.CompilerServices;
using RankingElo;
using RankingElo.Native;
#if UNITY_5_3_OR_NEWER
using Unity.Collections;
using Unity.Collections.LowLevel.Unsafe;
using Vector2 = UnityEngine.Vector2;
#else
using Vector2 = RankingElo.Vector2;
#endif

/// <summary>
/// Drop-in, native replacement for the tutorial's <c>RankingELO</c> class: the same names,
/// parameters and results, computed by the deterministic Rust engine. Also offers draws,
/// scores and batch updates over arrays.
/// </summary>
/// <remarks>
/// <para>Calling code written for the tutorial compiles unchanged:</para>
/// <code>
/// float p = RankingELO.GetProbabilityWinning(1700f, 1300f);                // 0.9090909
/// Vector2 r = RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, false);  // (1670.909, 1329.091)
/// </code>
/// <para>The two tutorial methods keep the tutorial's behaviour for bad input: NaN or
/// infinite arguments, and a negative multiplier, give NaN. The other methods validate their
/// input and throw <see cref="EloArgumentException"/>.</para>
/// <para>Every method first checks that the native library loads; when it does not, it
/// throws <see cref="DllNotFoundException"/> naming the binary this Editor, player or process
/// needs and the platform, and a later call tries again (so it works once the binary is
/// fixed).</para>
/// <para>On Mono in a 64-bit x86 process (the Editor and Mono players on Windows, Linux and
/// Intel Macs) the two tutorial methods compute in managed code with the engine's exact
/// arithmetic, because a native call's transition alone costs Mono more than the tutorial's
/// whole computation; the results are the native library's bits (the tests compare both).
/// Under IL2CPP and on other architectures they call the native library.</para>
/// </remarks>
public static class RankingELO
{
    /// <summary>Probability that player 1 beats player 2: <c>1 / (1 + 10^((r2 - r1) / 400))</c>.</summary>
    /// <param name="ratingPlayer1">Rating of player 1.</param>
    /// <param name="ratingPlayer2">Rating of player 2.</param>
    /// <returns>A probability in [0, 1]; NaN if an argument is NaN or infinite.</returns>
    /// <exception cref="DllNotFoundException">The native library is missing or cannot load here (the message names the binary and the platform; a later call tries again).</exception>
    public static float GetProbabilityWinning(float ratingPlayer1, float ratingPlayer2)
    {
        PluginBinary.EnsureLoaded();
        if (TutorialMath.Exact)
        {
            return TutorialMath.Probability(ratingPlayer1, ratingPlayer2);
        }
        return Loaded.Probability(ratingPlayer1, ratingPlayer2);
    }

    /// <summary>
    /// New ratings after player 1 wins or loses, with <c>K = multiplier</c> for both players
    /// (the tutorial's method).
    /// </summary>
    /// <param name="ratingPlayer1">Rating of player 1.</param>
    /// <param name="ratingPlayer2">Rating of player 2.</param>
    /// <param name="multiplier">The K factor (32 is a common choice).</param>
    /// <param name="isPlayer1Winner">Whether player 1 won.</param>
    /// <returns><c>x</c>: player 1's new rating, <c>y</c>: player 2's; NaN in both if an argument is NaN or infinite or the multiplier is negative.</returns>
    /// <exception cref="DllNotFoundException">The native library is missing or cannot load here (the message names the binary and the platform; a later call tries again).</exception>
    public static Vector2 UpdatePlayerRankings(float ratingPlayer1, float ratingPlayer2, float multiplier, bool isPlayer1Winner)
    {
        PluginBinary.EnsureLoaded();
        if (TutorialMath.Exact)
        {
            return TutorialMath.Update(ratingPlayer1, ratingPlayer2, multiplier, isPlayer1Winner);
        }
        return Loaded.Mirror(ratingPlayer1, ratingPlayer2, multiplier, isPlayer1Winner);
    }

    /// <summary>New ratings after a win, draw or loss of player 1, with <c>K = multiplier</c>.</summary>
    /// <param name="ratingPlayer1">Rating of player 1.</param>
    /// <param name="ratingPlayer2">Rating of player 2.</param>
    /// <param name="multiplier">The K factor.</param>
    /// <param name="result">The result seen from player 1.</param>
    /// <returns><c>x</c>: player 1's new rating, <c>y</c>: player 2's.</returns>
    /// <exception cref="EloArgumentException">A rating or the multiplier is NaN, infinite or (K) negative.</exception>
    public static Vector2 UpdatePlayerRankings(float ratingPlayer1, float ratingPlayer2, float multiplier, MatchResult result)
    {
        return UpdatePlayerRankings(ratingPlayer1, ratingPlayer2, multiplier, result.Score());
    }

    /// <summary>
    /// New ratings for a whole-number score of player 1: 1 (win) or 0 (loss). Code ported
    /// from tutorials that pass <c>1</c>/<c>0</c> calls this overload; without it the
    /// literal <c>0</c> would fit both the <see cref="MatchResult"/> and the <c>float</c>
    /// overloads (error CS0121).
    /// </summary>
    /// <param name="ratingPlayer1">Rating of player 1.</param>
    /// <param name="ratingPlayer2">Rating of player 2.</param>
    /// <param name="multiplier">The K factor.</param>
    /// <param name="scorePlayer1">1 if player 1 won, 0 if it lost.</param>
    /// <returns><c>x</c>: player 1's new rating, <c>y</c>: player 2's.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="scorePlayer1"/> is neither 0 nor 1.</exception>
    /// <exception cref="EloArgumentException">A bad rating or multiplier.</exception>
    public static Vector2 UpdatePlayerRankings(float ratingPlayer1, float ratingPlayer2, float multiplier, int scorePlayer1)
    {
        if (scorePlayer1 != 0 && scorePlayer1 != 1)
        {
            throw new ArgumentOutOfRangeException("scorePlayer1", scorePlayer1, "a whole-number score is 1 (win) or 0 (loss); pass a float for draws and margins");
        }
        return UpdatePlayerRankings(ratingPlayer1, ratingPlayer2, multiplier, (float)scorePlayer1);
    }

    /// <summary>
    /// New ratings for any score of player 1 in [0, 1] (1 win, 0.5 draw, 0 loss, or a
    /// margin such as 0.6 for 3:2), with <c>K = multiplier</c>.
    /// </summary>
    /// <param name="ratingPlayer1">Rating of player 1.</param>
    /// <param name="ratingPlayer2">Rating of player 2.</param>
    /// <param name="multiplier">The K factor.</param>
    /// <param name="scorePlayer1">Player 1's score in [0, 1].</param>
    /// <returns><c>x</c>: player 1's new rating, <c>y</c>: player 2's.</returns>
    /// <exception cref="EloArgumentException">A bad rating, multiplier or score.</exception>
    public static Vector2 UpdatePlayerRankings(float ratingPlayer1, float ratingPlayer2, float multiplier, float scorePlayer1)
    {
        PluginBinary.EnsureLoaded();
        return Loaded.Score(ratingPlayer1, ratingPlayer2, multiplier, scorePlayer1);
    }

    /// <summary>
    /// Updates many independent matches in place: <paramref name="ratingsPlayer1"/> and
    /// <paramref name="ratingsPlayer2"/> receive the new ratings. One native call, no
    /// allocation, the same bits as calling the single-match method for each pair.
    /// </summary>
    /// <param name="ratingsPlayer1">Ratings of the first players; overwritten.</param>
    /// <param name="ratingsPlayer2">Ratings of the second players; overwritten.</param>
    /// <param name="scoresPlayer1">Scores of the first players in [0, 1].</param>
    /// <param name="multiplier">The K factor for every match.</param>
    /// <exception cref="ArgumentNullException">An array is null.</exception>
    /// <exception cref="EloArgumentException">Lengths differ or an element is invalid; then nothing is changed.</exception>
    public static unsafe void UpdatePlayerRankings(float[] ratingsPlayer1, float[] ratingsPlayer2, float[] scoresPlayer1, float multiplier)
    {
        int count = Arrays.CommonLength(ratingsPlayer1, "ratingsPlayer1", ratingsPlayer2, "ratingsPlayer2", scoresPlayer1, "scoresPlayer1");
        PluginBinary.EnsureLoaded();
        fixed (float* a = ratingsPlayer1, b = ratingsPlayer2, s = scoresPlayer1)
        {
            Loaded.Batch(a, b, s, multiplier, count, a, b);
        }
    }

    /// <summary>
    /// Updates many independent matches into separate output arrays (the inputs are not
    /// changed).
    /// </summary>
    /// <param name="ratingsPlayer1">Ratings of the first players.</param>
    /// <param name="ratingsPlayer2">Ratings of the second players.</param>
    /// <param name="scoresPlayer1">Scores of the first players in [0, 1].</param>
    /// <param name="multiplier">The K factor for every match.</param>
    /// <param name="newRatingsPlayer1">Receives the first players' new ratings.</param>
    /// <param name="newRatingsPlayer2">Receives the second players' new ratings.</param>
    /// <exception cref="ArgumentNullException">An array is null.</exception>
    /// <exception cref="EloArgumentException">Lengths differ, outputs overlap inputs, or an element is invalid; then nothing is written.</exception>
    public static unsafe void UpdatePlayerRankings(float[] ratingsPlayer1, float[] ratingsPlayer2, float[] scoresPlayer1, float multiplier, float[] newRatingsPlayer1, float[] newRatingsPlayer2)
    {
        int count = Arrays.CommonLength(ratingsPlayer1, "ratingsPlayer1", ratingsPlayer2, "ratingsPlayer2", scoresPlayer1, "scoresPlayer1");
        Arrays.RequireLength(newRatingsPlayer1, "newRatingsPlayer1", count);
        Arrays.RequireLength(newRatingsPlayer2, "newRatingsPlayer2", count);
        PluginBinary.EnsureLoaded();
        fixed (float* a = ratingsPlayer1, b = ratingsPlayer2, s = scoresPlayer1, outA = newRatingsPlayer1, outB = newRatingsPlayer2)
        {
            Loaded.Batch(a, b, s, multiplier, count, outA, outB);
        }
    }

#if UNITY_5_3_OR_NEWER
    /// <summary>
    /// Updates many independent matches in place over <c>NativeArray</c>s (for jobs and
    /// Burst-friendly code): no copy, no allocation.
    /// </summary>
    /// <param name="ratingsPlayer1">Ratings of the first players; overwritten.</param>
    /// <param name="ratingsPlayer2">Ratings of the second players; overwritten.</param>
    /// <param name="scoresPlayer1">Scores of the first players in [0, 1].</param>
    /// <param name="multiplier">The K factor for every match.</param>
    /// <exception cref="EloArgumentException">Lengths differ or an element is invalid; then nothing is changed.</exception>
    public static unsafe void UpdatePlayerRankings(NativeArray<float> ratingsPlayer1, NativeArray<float> ratingsPlayer2, NativeArray<float> scoresPlayer1, float multiplier)
    {
        int count = Arrays.CommonLength(ratingsPlayer1.Length, "ratingsPlayer1", ratingsPlayer2.Length, "ratingsPlayer2", scoresPlayer1.Length, "scoresPlayer1");
        float* a = (float*)NativeArrayUnsafeUtility.GetUnsafePtr(ratingsPlayer1);
        float* b = (float*)NativeArrayUnsafeUtility.GetUnsafePtr(ratingsPlayer2);
        float* s = (float*)NativeArrayUnsafeUtility.GetUnsafeReadOnlyPtr(scoresPlayer1);
        PluginBinary.EnsureLoaded();
        Loaded.Batch(a, b, s, multiplier, count, a, b);
    }
#endif

    /// <summary>
    /// The native calls, apart from the public methods: those check that the library loads
    /// first, and these are compiled only after it does. (Mono compiles the native call of a
    /// method when it compiles the method; one compiled while the library was missing keeps
    /// throwing after the library is fixed.)
    /// </summary>
    private static class Loaded
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static float Probability(float ratingPlayer1, float ratingPlayer2)
        {
            return NativeMethods.elo_get_probability_winning(ratingPlayer1, ratingPlayer2);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static Vector2 Mirror(float ratingPlayer1, float ratingPlayer2, float multiplier, bool isPlayer1Winner)
        {
            EloVector2 result = NativeMethods.elo_update_player_rankings(ratingPlayer1, ratingPlayer2, multiplier, isPlayer1Winner ? (byte)1 : (byte)0);
            return new Vector2(result.x, result.y);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static unsafe Vector2 Score(float ratingPlayer1, float ratingPlayer2, float multiplier, float scorePlayer1)
        {
            float a, b;
            ThrowHelper.Check(NativeMethods.elo_update_player_rankings_score(ratingPlayer1, ratingPlayer2, multiplier, scorePlayer1, &a, &b));
            return new Vector2(a, b);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static unsafe void Batch(float* a, float* b, float* s, float multiplier, int count, float* outA, float* outB)
        {
            ThrowHelper.Check(NativeMethods.elo_update_player_rankings_batch(a, b, s, multiplier, count, outA, outB));
        }
    }
}
