// C# benchmark on Mono, one run, ways to update N random pairs (K = 32):
//   1. the tutorial's managed class as the article writes it (float arithmetic, Math.Pow,
//      a Vector2 returned), and the same arithmetic on two floats in place;
//   2. RankingELO.UpdatePlayerRankings, one call per pair (on 64-bit Mono: the managed
//      path with the engine's bits, TutorialMath);
//   3. the native function called directly, one P/Invoke per pair (what the method did
//      before: the transition's cost), with its Vector2 returned by value and, for
//      comparison, the checked variant writing through two pointers;
//   4. the batch API, one P/Invoke call for all pairs (float[] in place);
// and the same for GetProbabilityWinning (the tutorial's, the method, the native call).
// Prints ns per pair (the best of several repetitions) and the ratios.
// Run with `cargo xtask bench-mono`.
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
#if UNITY_5_3_OR_NEWER
using UnityEngine;
#else
using RankingElo;
#endif

internal static class Benchmark
{
    private const int Pairs = 1 << 20;
    private const int Repetitions = 7;

    [StructLayout(LayoutKind.Sequential)]
    private struct NativeVector2
    {
        public float x;
        public float y;
    }

    [DllImport("ranking_elo", EntryPoint = "elo_update_player_rankings", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
    private static extern NativeVector2 NativeUpdate(float ratingPlayer1, float ratingPlayer2, float multiplier, byte isPlayer1Winner);

    [DllImport("ranking_elo", EntryPoint = "elo_update_player_rankings_score", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
    private static extern unsafe int NativeUpdateScore(float ratingPlayer1, float ratingPlayer2, float multiplier, float scorePlayer1, float* out1, float* out2);

    [DllImport("ranking_elo", EntryPoint = "elo_get_probability_winning", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
    private static extern float NativeProbability(float ratingPlayer1, float ratingPlayer2);

    // The tutorial's class, as written in the article (Mathf.Pow is (float)Math.Pow): the
    // code a user replaces with RankingELO, called the same way.
    private static float TutorialProbability(float ratingPlayer1, float ratingPlayer2)
    {
        return 1f / (1f + (float)Math.Pow(10f, (ratingPlayer2 - ratingPlayer1) / 400f));
    }

    private static Vector2 TutorialUpdate(float ratingPlayer1, float ratingPlayer2, float multiplier, bool isPlayer1Winner)
    {
        float probabilityWinPlayer1 = TutorialProbability(ratingPlayer1, ratingPlayer2);
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
        return new Vector2(ratingPlayer1, ratingPlayer2);
    }

    // The same arithmetic updating two floats in place (no Vector2): the figure earlier
    // versions of this benchmark called "managed".
    private static void TutorialUpdateInPlace(ref float ratingPlayer1, ref float ratingPlayer2, float multiplier, bool isPlayer1Winner)
    {
        float probabilityWinPlayer1 = TutorialProbability(ratingPlayer1, ratingPlayer2);
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
    }

    private static double Best(Action run)
    {
        run(); // warm-up (JIT, caches)
        double best = double.MaxValue;
        for (int r = 0; r < Repetitions; r++)
        {
            var watch = Stopwatch.StartNew();
            run();
            watch.Stop();
            best = Math.Min(best, watch.Elapsed.TotalMilliseconds * 1e6 / Pairs);
        }
        return best;
    }

    private static unsafe int Main()
    {
        CultureInfo.DefaultThreadCurrentCulture = CultureInfo.InvariantCulture;
        var random = new System.Random(2026);
        float[] a0 = new float[Pairs], b0 = new float[Pairs], scores = new float[Pairs];
        bool[] wins = new bool[Pairs];
        for (int i = 0; i < Pairs; i++)
        {
            a0[i] = (float)(1000 + 1000 * random.NextDouble());
            b0[i] = (float)(1000 + 1000 * random.NextDouble());
            wins[i] = random.Next(2) == 1;
            scores[i] = wins[i] ? 1f : 0f;
        }
        float[] a = new float[Pairs], b = new float[Pairs];
        float sink = 0f;

        double managed = Best(() =>
        {
            Array.Copy(a0, a, Pairs);
            Array.Copy(b0, b, Pairs);
            for (int i = 0; i < Pairs; i++)
            {
                Vector2 v = TutorialUpdate(a[i], b[i], 32f, wins[i]);
                a[i] = v.x;
                b[i] = v.y;
            }
            sink += a[Pairs - 1];
        });
        double managedInPlace = Best(() =>
        {
            Array.Copy(a0, a, Pairs);
            Array.Copy(b0, b, Pairs);
            for (int i = 0; i < Pairs; i++) TutorialUpdateInPlace(ref a[i], ref b[i], 32f, wins[i]);
            sink += a[Pairs - 1];
        });
        double perCall = Best(() =>
        {
            Array.Copy(a0, a, Pairs);
            Array.Copy(b0, b, Pairs);
            for (int i = 0; i < Pairs; i++)
            {
                Vector2 v = RankingELO.UpdatePlayerRankings(a[i], b[i], 32f, wins[i]);
                a[i] = v.x;
                b[i] = v.y;
            }
            sink += a[Pairs - 1];
        });
        double nativeCall = Best(() =>
        {
            Array.Copy(a0, a, Pairs);
            Array.Copy(b0, b, Pairs);
            for (int i = 0; i < Pairs; i++)
            {
                NativeVector2 v = NativeUpdate(a[i], b[i], 32f, wins[i] ? (byte)1 : (byte)0);
                a[i] = v.x;
                b[i] = v.y;
            }
            sink += a[Pairs - 1];
        });
        double nativeScoreCall = Best(() =>
        {
            Array.Copy(a0, a, Pairs);
            Array.Copy(b0, b, Pairs);
            for (int i = 0; i < Pairs; i++)
            {
                float x, y;
                NativeUpdateScore(a[i], b[i], 32f, scores[i], &x, &y);
                a[i] = x;
                b[i] = y;
            }
            sink += a[Pairs - 1];
        });
        double managedProbability = Best(() =>
        {
            float sum = 0f;
            for (int i = 0; i < Pairs; i++) sum += TutorialProbability(a0[i], b0[i]);
            sink += sum;
        });
        double methodProbability = Best(() =>
        {
            float sum = 0f;
            for (int i = 0; i < Pairs; i++) sum += RankingELO.GetProbabilityWinning(a0[i], b0[i]);
            sink += sum;
        });
        double nativeProbability = Best(() =>
        {
            float sum = 0f;
            for (int i = 0; i < Pairs; i++) sum += NativeProbability(a0[i], b0[i]);
            sink += sum;
        });
        double batch = Best(() =>
        {
            Array.Copy(a0, a, Pairs);
            Array.Copy(b0, b, Pairs);
            RankingELO.UpdatePlayerRankings(a, b, scores, 32f);
            sink += a[Pairs - 1];
        });
        double copyOnly = Best(() =>
        {
            Array.Copy(a0, a, Pairs);
            Array.Copy(b0, b, Pairs);
            sink += a[Pairs - 1];
        });

        Console.WriteLine("Mono " + Environment.Version + ", " + Pairs + " pairs, best of " + Repetitions + " runs (each includes resetting the arrays: " + copyOnly.ToString("F2") + " ns/pair)");
        Console.WriteLine(string.Format("  managed tutorial (C#)          {0,7:F2} ns/pair   (the article's class: Math.Pow, a Vector2 returned)", managed));
        Console.WriteLine(string.Format("  tutorial math, floats in place {0,7:F2} ns/pair   {1,5:F2}x the managed time (no Vector2: this benchmark's earlier baseline)", managedInPlace, managedInPlace / managed));
        Console.WriteLine(string.Format("  RankingELO.UpdatePlayerRankings {0,6:F2} ns/pair   {1,5:F2}x the managed time", perCall, perCall / managed));
        Console.WriteLine(string.Format("  native, one P/Invoke per pair  {0,7:F2} ns/pair   {1,5:F2}x the managed time (elo_update_player_rankings, Vector2 by value)", nativeCall, nativeCall / managed));
        Console.WriteLine(string.Format("  checked native, two pointers   {0,7:F2} ns/pair   {1,5:F2}x the managed time (elo_update_player_rankings_score)", nativeScoreCall, nativeScoreCall / managed));
        Console.WriteLine(string.Format("  native batch, one call         {0,7:F2} ns/pair   {1,5:F1}x faster than managed", batch, managed / batch));
        Console.WriteLine(string.Format("  batch without the array reset  {0,7:F2} ns/pair   {1,5:F1}x faster than managed", batch - copyOnly, (managed - copyOnly) / Math.Max(batch - copyOnly, 1e-9)));
        Console.WriteLine("Probability (no array reset):");
        Console.WriteLine(string.Format("  managed tutorial (C#)          {0,7:F2} ns/pair", managedProbability));
        Console.WriteLine(string.Format("  RankingELO.GetProbabilityWinning {0,5:F2} ns/pair   {1,5:F2}x the managed time", methodProbability, methodProbability / managedProbability));
        Console.WriteLine(string.Format("  native, one P/Invoke per pair  {0,7:F2} ns/pair   {1,5:F2}x the managed time (elo_get_probability_winning)", nativeProbability, nativeProbability / managedProbability));
        return float.IsNaN(sink) ? 1 : 0;
    }
}
