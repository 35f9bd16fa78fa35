// C# benchmark on Mono, one run, three ways to update N random pairs (K = 32):
//   1. the tutorial's managed implementation (float arithmetic, Math.Pow);
//   2. the native mirror, one P/Invoke call per pair (RankingELO.UpdatePlayerRankings);
//   3. the batch API, one P/Invoke call for all pairs (float[] in place).
// Prints ns per pair (the best of several repetitions) and the ratios.
// Run with `cargo xtask bench-mono`.
using System;
using System.Diagnostics;
using System.Globalization;
#if UNITY_5_3_OR_NEWER
using UnityEngine;
#else
using RankingElo;
#endif

internal static class Benchmark
{
    private const int Pairs = 1 << 20;
    private const int Repetitions = 7;

    private static float TutorialProbability(float ratingPlayer1, float ratingPlayer2)
    {
        return 1f / (1f + (float)Math.Pow(10f, (ratingPlayer2 - ratingPlayer1) / 400f));
    }

    private static void TutorialUpdate(ref float ratingPlayer1, ref float ratingPlayer2, float multiplier, bool isPlayer1Winner)
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

    private static int Main()
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
            for (int i = 0; i < Pairs; i++) TutorialUpdate(ref a[i], ref b[i], 32f, wins[i]);
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
        Console.WriteLine(string.Format("  managed tutorial (C#)          {0,7:F2} ns/pair", managed));
        Console.WriteLine(string.Format("  native, one P/Invoke per pair  {0,7:F2} ns/pair   {1,5:F2}x the managed time", perCall, perCall / managed));
        Console.WriteLine(string.Format("  native batch, one call         {0,7:F2} ns/pair   {1,5:F1}x faster than managed", batch, managed / batch));
        Console.WriteLine(string.Format("  batch without the array reset  {0,7:F2} ns/pair   {1,5:F1}x faster than managed", batch - copyOnly, (managed - copyOnly) / Math.Max(batch - copyOnly, 1e-9)));
        return float.IsNaN(sink) ? 1 : 0;
    }
}
